import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// A request that broke one of the service's time limits; its connection is closed after the
/// answer (408 where one can still be sent).
public struct RequestTimeout: Error, Equatable, Sendable {
    /// Which limit was broken.
    public enum Limit: String, Sendable {
        /// The request's head (line and headers) took longer than `headerTimeout`.
        case header
        /// The body arrived slower than `bodyMinimumBytesPerSecond` over a `bodyRateWindow`.
        case bodyRate = "body_rate"
    }
    /// Which limit was broken.
    public let limit: Limit
}

/// The HTTP/1.1 child channel of the service: Hummingbird's `HTTP1Channel` (whose `idleTimeout`
/// closes idle keep-alive connections), with the deadlines Hummingbird has no handler for put
/// in its pipeline: the header timeout, the minimum body rate, the shutdown grace period for
/// uploads, and closing a connection whose answer went out before its request's body ended.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let responder: HTTPChannelHandler.Responder
    let limits: ConnectionDeadlines.Limits
    let decoder: HTTP1Channel.Configuration.DecoderConfiguration

    private func channel(adding handlers: @escaping @Sendable () -> [any RemovableChannelHandler]) -> HTTP1Channel {
        HTTP1Channel(
            responder: responder,
            configuration: .init(
                additionalChannelHandlers: handlers(), idleTimeout: limits.idle,
                httpDecoderConfiguration: decoder))
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let deadlines = ConnectionDeadlines(limits: limits)
        do {
            // First in the pipeline, before the HTTP decoder: it sees the first byte of a head.
            try channel.pipeline.syncOperations.addHandler(ConnectionDeadlines.ByteWatch(deadlines))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let phaseWatch = NIOLoopBound(ConnectionDeadlines.PhaseWatch(deadlines), eventLoop: channel.eventLoop)
        return self.channel { [ClientDisconnectWatch(), phaseWatch.value] }.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await channel { [] }.handle(value: value, logger: logger)
    }
}

/// The time limits of one connection, kept on its event loop (not thread-safe: every method
/// runs there). Two handlers of the connection's pipeline share it: `ByteWatch`, first, notices
/// the first byte of a request and an answer the client does not read; `PhaseWatch`, after the
/// HTTP codec, follows heads, bodies and answers. Its timers are cancelled when the connection
/// closes.
final class ConnectionDeadlines {
    /// The limits, as `ServerConfiguration` gives them.
    struct Limits: Sendable {
        var header: TimeAmount
        var bodyMinimumBytesPerSecond: Int
        var bodyRateWindow: TimeAmount
        var idle: TimeAmount
        var shutdownGrace: TimeAmount
    }

    private enum Phase {
        /// Between requests: no byte of the next one yet (Hummingbird's idle timeout applies).
        case idle
        /// Some bytes of a head have arrived, not all of it.
        case head
        /// The head has arrived, the body has not ended.
        case body
        /// The request has arrived whole; its answer is being made.
        case answering
    }

    let limits: Limits
    private var phase = Phase.idle
    private var headerTimer: Scheduled<Void>?
    private var rateTimer: Scheduled<Void>?
    private var graceTimer: Scheduled<Void>?
    private var readTimer: Scheduled<Void>?
    private var bytesThisWindow = 0
    /// Heads read and answers written on this connection: they differ while a request is
    /// outstanding (more than one when a client pipelines).
    private var requests = 0
    private var answers = 0
    /// A limit was broken: the connection closes once the answer is written.
    private var broken = false

    init(limits: Limits) { self.limits = limits }

    // MARK: Events

    fileprivate func bytesArrived(_ context: ChannelHandlerContext) {
        guard phase == .idle, !broken else { return }
        phase = .head
        headerTimer = context.eventLoop.assumeIsolated().scheduleTask(in: limits.header) { [self] in
            headerTimer = nil
            guard phase == .head else { return }
            // No request to answer through Hummingbird: the answer goes straight to the socket.
            broken = true
            let answer = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
            context.writeAndFlush(NIOAny(ByteBuffer(string: answer))).assumeIsolated().whenComplete { _ in
                context.close(promise: nil)
            }
        }
    }

    fileprivate func headArrived(_ context: ChannelHandlerContext) {
        headerTimer?.cancel()
        headerTimer = nil
        requests += 1
        phase = .body
        scheduleRateCheck(context)
    }

    /// Checks, one window from now, that the window carried the minimum rate of body bytes.
    private func scheduleRateCheck(_ context: ChannelHandlerContext) {
        bytesThisWindow = 0
        let window = limits.bodyRateWindow
        let least = Int64(limits.bodyMinimumBytesPerSecond) * window.nanoseconds / 1_000_000_000
        rateTimer = context.eventLoop.assumeIsolated().scheduleTask(in: window) { [self] in
            rateTimer = nil
            guard phase == .body else { return }
            if Int64(bytesThisWindow) < least {
                breakLimit(.bodyRate, context)
            } else {
                scheduleRateCheck(context)
            }
        }
    }

    fileprivate func bodyArrived(bytes: Int) { bytesThisWindow += bytes }

    fileprivate func requestEnded() {
        rateTimer?.cancel()
        rateTimer = nil
        graceTimer?.cancel()
        graceTimer = nil
        if phase == .body { phase = .answering }
    }

    /// An answer's head is being written: true when the connection will close after it, so
    /// that the head says so (`Connection: close`).
    fileprivate func answerBeginning() -> Bool {
        broken || (answers + 1 == requests && phase == .body)
    }

    /// An answer's last part is being written: the connection closes after it when a limit was
    /// broken, or when it answers the request whose body is still arriving (the rest of that body
    /// is not worth reading).
    fileprivate func answerEnding() -> Bool {
        answers += 1
        if broken || (answers == requests && phase == .body) { return true }
        if answers == requests { phase = .idle }
        return false
    }

    fileprivate func shutdownBegan(_ context: ChannelHandlerContext) {
        guard phase == .head || phase == .body else { return }
        graceTimer = context.eventLoop.assumeIsolated().scheduleTask(in: limits.shutdownGrace) { [self] in
            graceTimer = nil
            // Still arriving after the grace period: cut, so that the process can exit.
            if phase == .head || phase == .body { context.close(promise: nil) }
        }
    }

    /// The answer waiting to be sent filled the connection's buffer (the client does not read
    /// it), or drained: a client that leaves the buffer full for a whole rate window is
    /// disconnected, so that a slow reader does not keep its answer in memory for ever. A client
    /// that reads keeps the buffer draining (NIO's watermarks: 64 KiB full, 32 KiB drained).
    fileprivate func writabilityChanged(_ context: ChannelHandlerContext) {
        if context.channel.isWritable {
            readTimer?.cancel()
            readTimer = nil
        } else if readTimer == nil {
            readTimer = context.eventLoop.assumeIsolated().scheduleTask(in: limits.bodyRateWindow) { [self] in
                readTimer = nil
                if !context.channel.isWritable { context.close(promise: nil) }
            }
        }
    }

    fileprivate func closed() {
        readTimer?.cancel()
        readTimer = nil
        headerTimer?.cancel()
        rateTimer?.cancel()
        graceTimer?.cancel()
        headerTimer = nil
        rateTimer = nil
        graceTimer = nil
    }

    /// Fails the request's body with `RequestTimeout`: the handler reading it answers 408, and
    /// the connection closes after that answer (or at once when nobody reads the body).
    private func breakLimit(_ limit: RequestTimeout.Limit, _ context: ChannelHandlerContext) {
        broken = true
        context.fireErrorCaught(RequestTimeout(limit: limit))
        // A handler that never answers must not keep the connection.
        context.eventLoop.assumeIsolated().scheduleTask(in: .seconds(5)) { context.close(promise: nil) }
    }

    // MARK: Handlers

    /// Sees the raw bytes of the connection, before the HTTP decoder.
    final class ByteWatch: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        private let deadlines: ConnectionDeadlines
        init(_ deadlines: ConnectionDeadlines) { self.deadlines = deadlines }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            deadlines.bytesArrived(context)
            context.fireChannelRead(data)
        }

        func channelInactive(context: ChannelHandlerContext) {
            deadlines.closed()
            context.fireChannelInactive()
        }

        func channelWritabilityChanged(context: ChannelHandlerContext) {
            deadlines.writabilityChanged(context)
            context.fireChannelWritabilityChanged()
        }
    }

    /// Sees the HTTP parts of the connection, after the HTTP codec.
    final class PhaseWatch: ChannelDuplexHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart
        typealias OutboundIn = HTTPResponsePart
        typealias OutboundOut = HTTPResponsePart
        private let deadlines: ConnectionDeadlines
        init(_ deadlines: ConnectionDeadlines) { self.deadlines = deadlines }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head: deadlines.headArrived(context)
            case .body(let bytes): deadlines.bodyArrived(bytes: bytes.readableBytes)
            case .end: deadlines.requestEnded()
            }
            context.fireChannelRead(data)
        }

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            switch unwrapOutboundIn(data) {
            case .head(var head) where deadlines.answerBeginning():
                head.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(head)), promise: promise)
            case .end where deadlines.answerEnding():
                context.writeAndFlush(data, promise: promise)
                context.close(promise: nil)
            default:
                context.write(data, promise: promise)
            }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is ChannelShouldQuiesceEvent { deadlines.shutdownBegan(context) }
            context.fireUserInboundEventTriggered(event)
        }
    }
}

@available(*, unavailable)
extension ConnectionDeadlines: Sendable {}

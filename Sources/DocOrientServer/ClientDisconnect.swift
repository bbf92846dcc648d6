import Hummingbird
import NIOCore
import Synchronization

/// The request context of the service's router: Hummingbird's own storage, and the connection
/// the request came in on, so that a handler can notice its client going away.
public struct ServiceRequestContext: RequestContext {
    /// Hummingbird's storage for the request (logger, matched route, parameters).
    public var coreContext: CoreRequestContextStorage
    /// The connection the request came in on.
    let channel: any Channel
    /// What the handler found, for the access log.
    let outcome = RequestOutcome()

    /// The context of a request that arrived on `source.channel`.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

/// What a request's handler found that its answer's status does not say: the decision's
/// verdict. Set by the handler, read by the access log once the answer is made. Thread-safe.
final class RequestOutcome: Sendable {
    private let state = Mutex<String?>(nil)
    /// The verdict of the decision (`agrees`, `disagrees`, ...), nil before one or without one.
    var verdict: String? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}

/// Notices when the client of one connection goes away, that is when its side of the connection
/// closes (end of input) or the connection drops, and runs what requests asked to run then.
/// One per connection, in its channel pipeline after the HTTP decoder.
///
/// The server allows half-closed connections, so a client that shuts down its sending side after
/// the request (and would still read the answer) counts as gone too; HTTP clients do not do that.
/// Thread-safe: requests register from any thread, events arrive on the channel's event loop.
final class ClientDisconnectWatch: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    private struct State {
        var gone = false
        var actions: [UInt64: @Sendable () -> Void] = [:]
        var nextID: UInt64 = 0
    }
    private let state = Mutex(State())

    /// Runs `action` once the client is gone (at once if it already is).
    /// - Returns: the registration to `forget` when the request ends first; nil when `action` ran.
    func whenGone(_ action: @escaping @Sendable () -> Void) -> UInt64? {
        let id = state.withLock { s -> UInt64? in
            if s.gone { return nil }
            s.nextID += 1
            s.actions[s.nextID] = action
            return s.nextID
        }
        if id == nil { action() }
        return id
    }

    /// Drops a registration whose request has ended.
    func forget(_ id: UInt64) {
        _ = state.withLock { $0.actions.removeValue(forKey: id) }
    }

    private func clientLeft() {
        let actions = state.withLock { s -> [@Sendable () -> Void] in
            s.gone = true
            defer { s.actions = [:] }
            return Array(s.actions.values)
        }
        for action in actions { action() }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed? = event as? ChannelEvent { clientLeft() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        clientLeft()
        context.fireChannelInactive()
    }
}

/// Runs `work` as a task that is cancelled when the client of `channel` goes away (or when the
/// calling task is cancelled); the fixer's work stops at its next check and frees its engine.
func cancellingWhenClientLeaves<R: Sendable>(
    _ channel: any Channel, _ work: @escaping @Sendable () async throws -> R
) async throws -> R {
    guard let watch = try? await channel.pipeline.handler(type: ClientDisconnectWatch.self).get() else {
        return try await work()
    }
    let task = Task { try await work() }
    let registration = watch.whenGone { task.cancel() }
    defer { if let registration { watch.forget(registration) } }
    return try await withTaskCancellationHandler {
        try await task.value
    } onCancel: {
        task.cancel()
    }
}

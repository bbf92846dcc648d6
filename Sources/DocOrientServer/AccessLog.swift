import DocOrient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOHTTP1
import Synchronization

extension HTTPField.Name {
    /// The request's id: the client's when it sends one, otherwise made here; always answered.
    static let requestID = HTTPField.Name("X-Request-ID")!
}

/// Writes one line per request to the access log (at level info): method, route, status,
/// bytes in and out, duration, the decision's verdict and the request id, which the answer
/// carries in `X-Request-ID`. Outermost in the router: it also turns the errors handlers throw
/// into their answers (Hummingbird's `HTTPResponseError`), so that those carry the id too.
package struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let logger: Logger

    /// Logs to `logger`.
    package init(logger: Logger) { self.logger = logger }

    package func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let id = Self.requestID(request.headers[.requestID])
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            // Hummingbird answers a request it cannot parse (a bad chunk in the body) with 400.
            log(request, context, status: error is HTTPParserError ? 400 : 500, bytesOut: nil, since: start, id: id)
            throw error
        }
        response.headers[.requestID] = id
        log(request, context, status: response.status.code, bytesOut: response.body.contentLength, since: start, id: id)
        return response
    }

    private func log(
        _ request: Request, _ context: Context, status: Int, bytesOut: Int?, since start: ContinuousClock.Instant,
        id: String
    ) {
        let milliseconds = start.duration(to: .now).milliseconds
        var metadata: Logger.Metadata = [
            "request_id": .string(id),
            "method": .string(request.method.rawValue),
            // The route pattern, not the raw path: what clients ask for does not reach the log.
            "route": .string(context.endpointPath ?? "unmatched"),
            "status": .stringConvertible(status),
            "duration_ms": .string(String(format: "%.1f", milliseconds)),
        ]
        if let bytesIn = request.headers[.contentLength] { metadata["bytes_in"] = .string(bytesIn) }
        if let bytesOut { metadata["bytes_out"] = .stringConvertible(bytesOut) }
        if let verdict = (context as? ServiceRequestContext)?.outcome.verdict { metadata["verdict"] = .string(verdict) }
        logger.info("request", metadata: metadata)
    }

    /// The client's id when it is a sensible one (1-128 visible ASCII characters), a new one otherwise.
    static func requestID(_ sent: String?) -> String {
        if let sent, (1...128).contains(sent.utf8.count), sent.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            return sent
        }
        return String(UInt64.random(in: 0...UInt64.max), radix: 16).leftPadded(to: 16)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

/// A swift-log handler that writes each message as one JSON object per line on standard error:
/// `time`, `level`, `logger`, `message` and the metadata's keys (`docorient serve --log-format
/// json`). Thread-safe: lines from several threads never interleave.
public struct JSONLogHandler: LogHandler {
    /// Metadata added to every message of this handler.
    public var metadata: Logger.Metadata = [:]
    /// The least level written.
    public var logLevel: Logger.Level = .info
    private let label: String
    private static let output = Mutex(())

    /// A handler for the logger named `label`.
    public init(label: String) { self.label = label }

    /// The value of one metadata key.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one line.
    public func log(event: LogEvent) {
        var object: [String: Any] = [
            "time": ISO8601DateFormatter.string(
                from: Date(), timeZone: .gmt, formatOptions: [.withInternetDateTime, .withFractionalSeconds]),
            "level": event.level.rawValue, "logger": label, "message": "\(event.message)",
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            object[key] = Self.plain(value)
        }
        guard
            var line = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { return }
        line.append(0x0A)
        Self.output.withLock { _ in FileHandle.standardError.write(line) }
    }

    private static func plain(_ value: Logger.Metadata.Value) -> Any {
        switch value {
        case .string(let s): return Int(s) ?? Double(s).map { $0 as Any } ?? s
        case .stringConvertible(let s): return Int("\(s)") ?? "\(s)"
        case .array(let a): return a.map(plain)
        case .dictionary(let d): return d.mapValues(plain)
        }
    }
}

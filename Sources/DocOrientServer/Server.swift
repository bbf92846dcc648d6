import DocOrient
import Foundation
import HTTPTypes
import Hummingbird
import NIOHTTP1
import Prometheus
import Synchronization

/// Settings of the HTTP service.
public struct ServerConfiguration: Sendable {
    /// The address to listen on: "127.0.0.1" (the default) for this machine only, "0.0.0.0" for every interface.
    public var host: String
    /// The TCP port to listen on; 0 lets the system choose a free one (`makeApplication`'s
    /// `onRunning` receives it).
    public var port: Int
    /// Largest accepted request body; larger ones get 413.
    public var maxBodyBytes: Int
    /// The work allowed for each request's image; nil uses the resolver's `configuration.budget`.
    public var budget: WorkBudget?
    /// Image requests admitted at once (being read, queued for an engine, or being decided);
    /// one more gets 503 with Retry-After.
    public var maxInFlight: Int

    /// Settings with defaults for a local service: 127.0.0.1:8080, bodies up to 32 MiB, the
    /// resolver's budget, and 4 image requests in flight per active processor.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, maxBodyBytes: Int = 32 << 20, budget: WorkBudget? = nil,
        maxInFlight: Int = 4 * ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.budget = budget
        self.maxInFlight = maxInFlight
    }
}

/// The HTTP status for a library failure: 415 for bytes that are no supported image, 422 for a
/// broken one or a limit, 400 for an impossible request, 500 otherwise.
func status(for code: DocOrientError.Code) -> HTTPResponse.Status {
    switch code {
    case .unsupportedFormat: return .unsupportedMediaType
    case .malformed, .limitExceeded, .imperfectTransform: return .unprocessableContent
    case .invalidRequest: return .badRequest
    case .io, .library, .missingModel: return .internalServerError
    }
}

func jsonResponse(_ status: HTTPResponse.Status, _ text: String) -> Response {
    Response(
        status: status, headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
}

func errorResponse(_ error: DocOrientError) -> Response {
    let object: [String: String] = ["error": error.code.rawValue, "message": error.message]
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let text = (try? encoder.encode(object)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    return jsonResponse(status(for: error.code), text)
}

/// Builds the router of the service over `fixer`. The work of an image request stops (and its
/// engine is freed) when its client goes away; `makeApplication` installs what notices that.
/// - Parameter registry: where the service's metrics live, served at `GET /metrics`; pass one
///   to add them to an exposition of your own (their names start with `docorient_`).
public func makeRouter(
    fixer: Fixer, configuration: ServerConfiguration,
    registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) -> Router<ServiceRequestContext> {
    let router = Router(context: ServiceRequestContext.self)
    let metrics = ServiceMetrics(registry: registry)
    router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
    let limit = configuration.maxBodyBytes
    let budget = configuration.budget

    @Sendable func body(_ request: Request) async throws -> Upload {
        do {
            return .complete(try await request.body.collect(upTo: limit))
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return .tooLarge
        } catch HTTPParserError.invalidEOFState {
            return .abandoned
        }
    }
    let admitted = Admission(limit: configuration.maxInFlight)
    @Sendable func busy() -> Response {
        var r = errorResponse(DocOrientError(.limitExceeded, "the service is busy; try again shortly"))
        r.status = .serviceUnavailable
        r.headers[.retryAfter] = "1"
        return r
    }
    let tooLarge = DocOrientError(.limitExceeded, "the request body is larger than \(limit) bytes")
    // Nobody reads it: the status is for the metrics and the log.
    let clientGone = Response(status: ServiceMetrics.clientClosedRequest, headers: [.connection: "close"])

    router.get("/healthz") { _, _ in jsonResponse(.ok, #"{"status":"ok"}"#) }
    router.get("/openapi.json") { _, _ in jsonResponse(.ok, OpenAPIDocument.json) }
    router.get("/metrics") { _, _ in
        // Requests beyond the engines wait in the fixer's queue; the gate admits maxEngines at once.
        let queued = max(0, admitted.deciding - fixer.resolver.configuration.maxEngines)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition(inFlight: admitted.current, queued: queued))))
    }

    router.post("/v1/orientation") { request, context -> Response in
        guard admitted.enter() else { return busy() }
        defer { admitted.leave() }
        let buffer: ByteBuffer
        switch try await body(request) {
        case .complete(let bytes): buffer = bytes
        case .tooLarge: return withStatus(errorResponse(tooLarge), .contentTooLarge)
        case .abandoned: return clientGone
        }
        do {
            let fixed = try await admitted.deciding {
                try await cancellingWhenClientLeaves(context.channel) {
                    try await fixer.fix(
                        Array(buffer.readableBytesView), options: FixOptions(dryRun: true), budget: budget)
                }
            }
            return jsonResponse(.ok, fixed.record.jsonLine)
        } catch let error as DocOrientError {
            return errorResponse(error)
        } catch is CancellationError {
            return clientGone
        }
    }

    router.post("/v1/fix") { request, context -> Response in
        guard admitted.enter() else { return busy() }
        defer { admitted.leave() }
        let mode = request.uri.queryParameters.get("mode") ?? "tag"
        guard mode == "tag" || mode == "bake" else {
            return errorResponse(DocOrientError(.invalidRequest, "mode must be tag or bake, not \(mode)"))
        }
        let buffer: ByteBuffer
        switch try await body(request) {
        case .complete(let bytes): buffer = bytes
        case .tooLarge: return withStatus(errorResponse(tooLarge), .contentTooLarge)
        case .abandoned: return clientGone
        }
        do {
            let fixed = try await admitted.deciding {
                try await cancellingWhenClientLeaves(context.channel) {
                    try await fixer.fix(
                        Array(buffer.readableBytesView), options: FixOptions(bake: mode == "bake"), budget: budget)
                }
            }
            var headers: HTTPFields = [.contentType: "application/octet-stream"]
            headers[HTTPField.Name("X-DocOrient-Record")!] = fixed.record.jsonLine
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: fixed.bytes)))
        } catch let error as DocOrientError {
            return errorResponse(error)
        } catch is CancellationError {
            return clientGone
        }
    }
    return router
}

/// A request body as it arrived.
enum Upload {
    /// All of it, within the limit.
    case complete(ByteBuffer)
    /// More than the limit.
    case tooLarge
    /// The connection ended before the body did: the client went away mid-upload.
    case abandoned
}

func withStatus(_ response: Response, _ status: HTTPResponse.Status) -> Response {
    var r = response
    r.status = status
    return r
}

/// The service as a Hummingbird application; `runService()` serves until SIGTERM or SIGINT,
/// then stops accepting and lets requests in flight finish.
/// - Parameters:
///   - registry: where the service's metrics live (`GET /metrics`); each application gets its
///     own unless you pass one, so building several in one process is safe.
///   - onRunning: called once the server listens, with the port it listens on (the one the
///     system chose when `configuration.port` is 0).
public func makeApplication(
    fixer: Fixer, configuration: ServerConfiguration,
    registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
    onRunning: (@Sendable (_ port: Int) async -> Void)? = nil
) -> some ApplicationProtocol {
    Application(
        router: makeRouter(fixer: fixer, configuration: configuration, registry: registry),
        server: .http1(configuration: .init(additionalChannelHandlers: [ClientDisconnectWatch()])),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "docorient"),
        onServerRunning: { channel in await onRunning?(channel.localAddress?.port ?? configuration.port) })
}

/// Counts the image requests in flight (admitted: being read, queued for an engine, or being
/// decided) and refuses past a limit; also counts those inside the fixer (queued or being decided).
final class Admission: Sendable {
    private let count = Atomic<Int>(0)
    private let inFixer = Atomic<Int>(0)
    private let limit: Int
    init(limit: Int) { self.limit = limit }
    func enter() -> Bool {
        if count.add(1, ordering: .relaxed).newValue > limit {
            count.subtract(1, ordering: .relaxed)
            return false
        }
        return true
    }
    func leave() { count.subtract(1, ordering: .relaxed) }
    /// Admitted requests now.
    var current: Int { count.load(ordering: .relaxed) }

    /// Runs `work` (a call into the fixer), counted in `deciding` meanwhile.
    func deciding<R>(_ work: () async throws -> R) async throws -> R {
        inFixer.add(1, ordering: .relaxed)
        defer { inFixer.subtract(1, ordering: .relaxed) }
        return try await work()
    }
    /// Requests inside the fixer now: waiting for an engine or being decided.
    var deciding: Int { inFixer.load(ordering: .relaxed) }
}

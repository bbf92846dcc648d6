import DocOrient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import Prometheus
import Synchronization

/// Settings of the HTTP service: where it listens, what it admits, and the time limits of each
/// phase of a connection (docs/service.md gives each default and why).
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
    /// Image requests admitted to the OCR engines at once (queued for an engine or being
    /// decided); one more gets 503 with Retry-After. Receiving a body does not count.
    public var maxInFlight: Int
    /// Request bodies being received at once; one more gets 429 with Retry-After. With
    /// `maxBodyBytes`, it bounds the memory uploads hold: `maxUploads` x `maxBodyBytes`.
    public var maxUploads: Int
    /// Connections open at once; past it, new ones wait in the listen backlog until one closes.
    public var maxConnections: Int
    /// Time from a request's first byte to the end of its headers; past it, 408 and the
    /// connection closes.
    public var headerTimeout: Duration
    /// The least rate a body must keep, in bytes per second, over each `bodyRateWindow`;
    /// slower, 408 and the connection closes.
    public var bodyMinimumBytesPerSecond: Int
    /// The window over which `bodyMinimumBytesPerSecond` is measured.
    public var bodyRateWindow: Duration
    /// Time a keep-alive connection may wait for its next request before it is closed.
    public var idleTimeout: Duration
    /// After SIGTERM, how long uploads still arriving may go on before they are cut; requests
    /// whose body has arrived are answered whatever the time.
    public var shutdownGrace: Duration

    /// Settings with defaults for a local service: 127.0.0.1:8080, bodies up to 32 MiB, the
    /// resolver's budget, 4 image requests at the engines per active processor, 64 uploads and
    /// 1,000 connections at once; headers within 10 s, bodies at 2 KiB/s or more over 10 s
    /// windows, idle connections closed after 75 s, uploads cut 20 s after SIGTERM.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, maxBodyBytes: Int = 32 << 20, budget: WorkBudget? = nil,
        maxInFlight: Int = 4 * ProcessInfo.processInfo.activeProcessorCount, maxUploads: Int = 64,
        maxConnections: Int = 1000, headerTimeout: Duration = .seconds(10), bodyMinimumBytesPerSecond: Int = 2048,
        bodyRateWindow: Duration = .seconds(10), idleTimeout: Duration = .seconds(75),
        shutdownGrace: Duration = .seconds(20)
    ) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.budget = budget
        self.maxInFlight = maxInFlight
        self.maxUploads = maxUploads
        self.maxConnections = maxConnections
        self.headerTimeout = headerTimeout
        self.bodyMinimumBytesPerSecond = bodyMinimumBytesPerSecond
        self.bodyRateWindow = bodyRateWindow
        self.idleTimeout = idleTimeout
        self.shutdownGrace = shutdownGrace
    }

    var connectionLimits: ConnectionDeadlines.Limits {
        .init(
            header: TimeAmount(headerTimeout), bodyMinimumBytesPerSecond: bodyMinimumBytesPerSecond,
            bodyRateWindow: TimeAmount(bodyRateWindow), idle: TimeAmount(idleTimeout),
            shutdownGrace: TimeAmount(shutdownGrace))
    }
}

/// What an image request answers.
enum ImageAnswer: Sendable {
    /// The record of the decision, the image unchanged (`POST /v1/orientation`).
    case record
    /// The image fixed in this mode, the record in a header (`POST /v1/fix`).
    case fixed(FixMode)
}

/// Builds the router of the service over `fixer`. The work of an image request stops (and its
/// engine is freed) when its client goes away; `makeApplication` installs what notices that.
/// - Parameters:
///   - registry: where the service's metrics live, served at `GET /metrics`; pass one to add
///     them to an exposition of your own (their names start with `docorient_`).
///   - accessLog: where each request's line goes (docs/service.md, "Access log"), at level info.
public func makeRouter(
    fixer: Fixer, configuration: ServerConfiguration,
    registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
    accessLog: Logger = Logger(label: "docorient.access")
) -> Router<ServiceRequestContext> {
    let router = Router(context: ServiceRequestContext.self)
    let metrics = ServiceMetrics(registry: registry)
    router.add(middleware: AccessLogMiddleware(logger: accessLog))
    router.add(middleware: RequestMetricsMiddleware(metrics: metrics))
    router.add(middleware: MethodNotAllowedMiddleware())
    let images = ImageEndpoint(fixer: fixer, configuration: configuration)

    router.get("/healthz") { _, _ in jsonResponse(.ok, #"{"status":"ok"}"#) }
    router.get("/openapi.json") { _, _ in jsonResponse(.ok, OpenAPIDocument.json) }
    router.get("/metrics") { _, _ in
        let engines = fixer.resolver.configuration.maxEngines
        let admitted = images.engines.current
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(
                byteBuffer: ByteBuffer(
                    bytes: metrics.exposition(
                        inFlight: admitted, queued: max(0, admitted - engines), uploads: images.uploads.current))))
    }
    router.post("/v1/orientation") { request, context in try await images.answer(request, context, .record) }
    router.post("/v1/fix") { request, context in
        let asked = request.uri.queryParameters.get("mode") ?? FixMode.tag.rawValue
        // Not bake-trim: the service only makes lossless changes, and a trimmed bake drops up to
        // 15 rows or columns of edge pixels; a bake that cannot be perfect answers 422 instead, and
        // the client keeps its upload (docs/service.md).
        guard let mode = FixMode(rawValue: asked), mode != .bakeTrim else {
            throw ServiceError(.badRequest, .invalidRequest, "mode must be tag or bake, not \(asked)")
        }
        return try await images.answer(request, context, .fixed(mode))
    }
    return router
}

/// Answers 405 with `Allow` (instead of the router's 404) for a route's path asked with a
/// method it does not take.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The methods each path takes, from `OpenAPIDocument.routes`.
    static var allowed: [String: [String]] {
        Dictionary(
            grouping: OpenAPIDocument.routes.map { $0.split(separator: " ").map(String.init) }, by: { $0[1] }
        ).mapValues { $0.map { $0[0] } }
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard let methods = Self.allowed[request.uri.path] else { throw error }
            throw ServiceError(
                .methodNotAllowed, .invalidRequest, "\(request.uri.path) takes \(methods.joined(separator: ", "))",
                headers: [.allow: methods.joined(separator: ", ")])
        }
    }
}

/// The image endpoints: receive the body (holding an upload slot), then decide (holding an OCR
/// admission), then answer. Thread-safe.
struct ImageEndpoint: Sendable {
    let fixer: Fixer
    let maxBodyBytes: Int
    let budget: WorkBudget?
    /// Bodies being received.
    let uploads: Admission
    /// Requests queued for an OCR engine or being decided.
    let engines: Admission

    init(fixer: Fixer, configuration: ServerConfiguration) {
        self.fixer = fixer
        maxBodyBytes = configuration.maxBodyBytes
        budget = configuration.budget
        uploads = Admission(limit: configuration.maxUploads)
        engines = Admission(limit: configuration.maxInFlight)
    }

    func answer(_ request: Request, _ context: ServiceRequestContext, _ answer: ImageAnswer) async throws -> Response {
        let body = try await receive(request)
        guard engines.enter() else {
            throw ServiceError(
                .serviceUnavailable, .limitExceeded, "the OCR engines are busy; try again shortly",
                headers: [.retryAfter: "1"])
        }
        defer { engines.leave() }
        let options =
            switch answer {
            case .record: FixOptions(dryRun: true)
            case .fixed(let mode): FixOptions(mode: mode)
            }
        let fixed: FixedImage
        do {
            fixed = try await cancellingWhenClientLeaves(context.channel) { [fixer, budget] in
                try await fixer.fix(Array(body.readableBytesView), options: options, budget: budget)
            }
        } catch let error as DocOrientError {
            throw ServiceError(error)
        } catch is CancellationError {
            throw ServiceError.clientGone
        }
        context.outcome.verdict = fixed.record.verdict.rawValue
        switch answer {
        case .record:
            return jsonResponse(.ok, fixed.record.jsonLine)
        case .fixed:
            // A PDF's record has its pages' records, and so has a multi-page TIFF's; an image's has none.
            let type =
                fixed.record.pages.isEmpty
                ? "application/octet-stream"
                : (try? ImageFormat.detect(fixed.bytes)) == .tiff ? "image/tiff" : "application/pdf"
            var headers: HTTPFields = [.contentType: type]
            headers[.docOrientRecord] = fixed.record.jsonLine
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: fixed.bytes)))
        }
    }

    /// The whole body, read while holding an upload slot (never an OCR admission).
    private func receive(_ request: Request) async throws -> ByteBuffer {
        let tooLarge = ServiceError(
            .contentTooLarge, .limitExceeded, "the request body is larger than \(maxBodyBytes) bytes")
        // Refused before a byte of it is read; the connection closes after the answer.
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > maxBodyBytes {
            throw tooLarge
        }
        guard uploads.enter() else {
            throw ServiceError(
                .tooManyRequests, .limitExceeded, "too many uploads at once; try again shortly",
                headers: [.retryAfter: "1"])
        }
        defer { uploads.leave() }
        do {
            return try await request.body.collect(upTo: maxBodyBytes)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw tooLarge
        } catch let timeout as RequestTimeout {
            throw ServiceError(timeout)
        } catch HTTPParserError.invalidEOFState {
            throw ServiceError.clientGone
        }
    }
}

extension HTTPField.Name {
    /// The record of a fix, as JSON, beside the fixed image.
    static let docOrientRecord = HTTPField.Name("X-DocOrient-Record")!
}

/// An answer of JSON text (a newline added).
package func jsonResponse(_ status: HTTPResponse.Status, _ text: String) -> Response {
    Response(
        status: status, headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(string: text + "\n")))
}

/// The service as a Hummingbird application; `runService()` serves until SIGTERM or SIGINT,
/// then stops accepting, answers the requests whose body has arrived, cuts uploads still
/// arriving after `shutdownGrace`, and returns.
/// - Parameters:
///   - registry: where the service's metrics live (`GET /metrics`); each application gets its
///     own unless you pass one, so building several in one process is safe.
///   - logger: the application's logger; the access log is its `docorient.access` child.
///   - onRunning: called once the server listens, with the port it listens on (the one the
///     system chose when `configuration.port` is 0).
public func makeApplication(
    fixer: Fixer, configuration: ServerConfiguration,
    registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
    logger: Logger = Logger(label: "docorient"),
    onRunning: (@Sendable (_ port: Int) async -> Void)? = nil
) -> some ApplicationProtocol {
    var accessLog = Logger(label: "docorient.access")
    accessLog.logLevel = logger.logLevel
    let limits = configuration.connectionLimits
    return Application(
        router: makeRouter(fixer: fixer, configuration: configuration, registry: registry, accessLog: accessLog),
        server: HTTPServerBuilder { responder in
            GuardedHTTP1Channel(responder: responder, limits: limits, decoder: .init())
        },
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "docorient",
            availableConnectionsDelegate: .maximum(configuration.maxConnections, logger: logger)),
        onServerRunning: { channel in await onRunning?(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

/// Counts requests holding one kind of admission and refuses past a limit. Thread-safe.
final class Admission: Sendable {
    private let count = Atomic<Int>(0)
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
    /// Requests holding the admission now.
    var current: Int { count.load(ordering: .relaxed) }
}

import DocOrient
import DocOrientBatch
import DocOrientServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// Settings of the review page's server.
public struct ReviewConfiguration: Sendable {
    /// The address to listen on; "127.0.0.1" (the default) for this machine only.
    public var host: String
    /// The TCP port; 0 lets the system choose (`makeReviewApplication`'s `onRunning` receives it).
    public var port: Int
    /// The secret every request must carry (`?token=` in the address, or the
    /// `X-DocOrient-Token` header); nil for none, which only a loopback address may go without.
    public var token: String?
    /// Largest request body; a turn's is a few hundred bytes.
    public var maxBodyBytes: Int
    /// The long side of the previews, in pixels.
    public var previewSide: Int

    /// Settings for the review: loopback, port 8081, no token, bodies up to 16 KiB, 360-pixel previews.
    public init(
        host: String = "127.0.0.1", port: Int = 8081, token: String? = nil, maxBodyBytes: Int = 16 << 10,
        previewSide: Int = 360
    ) {
        self.host = host
        self.port = port
        self.token = token
        self.maxBodyBytes = maxBodyBytes
        self.previewSide = previewSide
    }

    /// Whether `host` is a loopback address, reachable from this machine only.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// A new random token: 32 hexadecimal digits.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }
            .joined()
    }
}

/// Builds the router of the review page over `review`:
/// `GET /` the page (the files that need a look; `?all=1` the rest too), `GET /preview?file=`
/// (`&page=` for a PDF's or multi-page TIFF's page) a thumbnail as it shows now, `POST /turn` a
/// person's turn (JSON `{"file", "page", "turn", "version"}`, `page` only for a page; the new
/// state back, with the page header's counts). Every request must carry the token when there is
/// one; a turn must be JSON from the page's own origin (a page elsewhere cannot send one).
public func makeReviewRouter(
    review: Review, configuration: ReviewConfiguration, accessLog: Logger = Logger(label: "docorient.access")
) -> Router<ServiceRequestContext> {
    let router = Router(context: ServiceRequestContext.self)
    router.add(middleware: AccessLogMiddleware(logger: accessLog))
    router.add(middleware: ReviewAccessMiddleware(token: configuration.token))
    let page = ReviewPage(review: review, token: configuration.token)
    router.get("/") { request, _ in
        let all = request.uri.queryParameters.get("all") == "1"
        return try htmlResponse(page.render(all: all))
    }
    router.get("/preview") { request, _ in
        guard let file = request.uri.queryParameters.get("file") else {
            throw ServiceError(.badRequest, .invalidRequest, "name the file: /preview?file=PATH")
        }
        let number = try pageNumber(request.uri.queryParameters.get("page"))
        let jpeg = try answering { try review.preview(file, page: number, side: configuration.previewSide) }
        // The address names the file's version (`v`), so a preview never goes stale in a cache.
        return Response(
            status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=86400"],
            body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
    }
    router.post("/turn") { request, _ in
        let body = try await receive(request, limit: configuration.maxBodyBytes)
        let asked: TurnRequest
        do {
            asked = try JSONDecoder().decode(TurnRequest.self, from: Data(buffer: body))
        } catch {
            throw ServiceError(
                .badRequest, .invalidRequest,
                "the body must be JSON: {\"file\": PATH, \"page\": N (a PDF's or multi-page TIFF's), \"turn\": "
                    + "left|right|180|mirror|keep, \"version\": HASH}"
            )
        }
        guard let turn = Turn(rawValue: asked.turn) else {
            throw ServiceError(.badRequest, .invalidRequest, "turn must be left, right, 180, mirror or keep")
        }
        if let page = asked.page, page < 1 {
            throw ServiceError(.badRequest, .invalidRequest, "page counts from 1")
        }
        let item = try answering { try review.turn(asked.file, page: asked.page, turn, expecting: asked.version) }
        let counts = try answering { try page.counts() }
        return jsonResponse(
            .ok, try TurnAnswer(item, summary: counts.summary, attentionCount: counts.attention).json)
    }
    return router
}

/// The review page as a Hummingbird application; `runService()` serves until SIGTERM or SIGINT.
/// - Parameter onRunning: called once the server listens, with the port it listens on.
public func makeReviewApplication(
    review: Review, configuration: ReviewConfiguration, logger: Logger = Logger(label: "docorient"),
    onRunning: (@Sendable (_ port: Int) async -> Void)? = nil
) -> some ApplicationProtocol {
    var accessLog = Logger(label: "docorient.access")
    accessLog.logLevel = logger.logLevel
    return Application(
        router: makeReviewRouter(review: review, configuration: configuration, accessLog: accessLog),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "docorient-review"),
        onServerRunning: { channel in await onRunning?(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

/// A turn as the page sends it.
struct TurnRequest: Decodable {
    var file: String
    /// The page of a PDF or multi-page TIFF, absent for a single image.
    var page: Int?
    var turn: String
    var version: String
}

/// The file's (or page's) state after a turn, and the page header's counts, as the page reads them.
struct TurnAnswer: Encodable {
    var file: String
    var page: Int?
    /// The file's new version: every card of the file must name it in its next turn.
    var version: String
    var personOrientation: Int?
    var decidedBy: String
    /// The batch's summary line, a person's decision counted.
    var summary: String
    /// How many files and pages still need a look first.
    var attentionCount: Int

    init(_ item: ReviewItem, summary: String, attentionCount: Int) {
        file = item.file
        page = item.page
        version = item.version
        personOrientation = item.personOrientation
        decidedBy = item.decidedBy.rawValue
        self.summary = summary
        self.attentionCount = attentionCount
    }

    enum CodingKeys: String, CodingKey {
        case file, page, version, summary
        case personOrientation = "person_orientation"
        case decidedBy = "decided_by"
        case attentionCount = "attention_count"
    }

    var json: String {
        get throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: try encoder.encode(self), as: UTF8.self)
        }
    }
}

/// Refuses, before any handler runs, a request without the token (when there is one), and a
/// turn that is not JSON or comes from another origin: a page elsewhere in the person's browser
/// can send a form or a plain-text POST to a loopback port, but neither is JSON, and a JSON
/// request across origins needs a preflight this server never grants.
struct ReviewAccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let token: String?

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let token {
            let given = request.headers[.docOrientToken] ?? request.uri.queryParameters.get("token")
            guard let given, Self.same(given, token) else {
                throw ServiceError(
                    status: .forbidden, code: "forbidden",
                    message: "a token is needed: use the address docorient review printed")
            }
        } else if let authority = request.head.authority,
            !ReviewConfiguration.isLoopback(Self.hostname(authority))
        {
            // Without a token the server listens on loopback only; a name that resolves there
            // from elsewhere (DNS rebinding) must not reach it.
            throw ServiceError(status: .forbidden, code: "forbidden", message: "the review answers on loopback only")
        }
        if request.method == .post {
            guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
                throw ServiceError(.unsupportedMediaType, .invalidRequest, "a turn is sent as application/json")
            }
            if let origin = request.headers[.origin], let host = request.head.authority,
                origin != "http://\(host)"
            {
                throw ServiceError(
                    status: .forbidden, code: "forbidden", message: "turns come from the review page itself")
            }
        }
        return try await next(request, context)
    }

    /// The host of an authority ("127.0.0.1:8081" -> "127.0.0.1", "[::1]:8081" -> "::1").
    static func hostname(_ authority: String) -> String {
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<end])
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "")
    }

    /// Whether two tokens are equal, in time that does not depend on where they first differ.
    static func same(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}

extension HTTPField.Name {
    /// The review's token, for clients that would rather not put it in the address.
    static let docOrientToken = HTTPField.Name("X-DocOrient-Token")!
}

/// The `page` query parameter: nil when absent, else a page number from 1.
private func pageNumber(_ text: String?) throws -> Int? {
    guard let text else { return nil }
    guard let page = Int(text), page >= 1 else {
        throw ServiceError(.badRequest, .invalidRequest, "page is a page number, from 1")
    }
    return page
}

/// The whole body, refused with 413 past `limit` (before a byte is read when it says so).
private func receive(_ request: Request, limit: Int) async throws -> ByteBuffer {
    let tooLarge = ServiceError(.contentTooLarge, .limitExceeded, "the request body is larger than \(limit) bytes")
    if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit { throw tooLarge }
    do {
        return try await request.body.collect(upTo: limit)
    } catch let error as HTTPError where error.status == .contentTooLarge {
        throw tooLarge
    }
}

/// Runs `body`, answering a refusal or a library failure with its status: a name outside the
/// folder 403, an unknown file 404, a file changed under the page 409, a file the review does
/// not turn 422.
private func answering<R>(_ body: () throws -> R) throws -> R {
    do {
        return try body()
    } catch let refusal as ReviewRefusal {
        let status: HTTPResponse.Status =
            switch refusal.reason {
            case .outsideFolder: .forbidden
            case .notFound: .notFound
            case .changed: .conflict
            case .notTurnable: .unprocessableContent
            }
        throw ServiceError(status: status, code: refusal.reason.rawValue, message: refusal.message)
    } catch let error as DocOrientError {
        throw ServiceError(error)
    }
}

private func htmlResponse(_ html: String) -> Response {
    Response(
        status: .ok,
        headers: [
            .contentType: "text/html; charset=utf-8",
            // The page runs its own script only, and is never framed by another.
            .contentSecurityPolicy:
                "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
                + "connect-src 'self'; frame-ancestors 'none'",
            .cacheControl: "no-store",
        ],
        body: .init(byteBuffer: ByteBuffer(string: html)))
}

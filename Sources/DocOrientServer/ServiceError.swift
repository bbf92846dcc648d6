import DocOrient
import Foundation
import Hummingbird

/// A request the service refuses or fails, answered through Hummingbird's error protocol as
/// `{"error": <code>, "message": ..., "cause": ...}` (the `Error` schema of the OpenAPI document;
/// `cause` only when a system call or C library failed underneath).
package struct ServiceError: HTTPResponseError {
    package let status: HTTPResponse.Status
    /// A `DocOrientError.Code` raw value, or `request_timeout`.
    package let code: String
    package let message: String
    /// The failure underneath a library error, when there was one.
    var cause: DocOrientError.Cause? = nil
    var headers: HTTPFields = [:]

    /// The answer to a library failure: 415 for bytes that are no supported image, 422 for a
    /// broken or encrypted one or a limit, 400 for an impossible request, 500 otherwise (I/O, a
    /// C library, a missing model, and any code added later).
    package init(_ error: DocOrientError) {
        switch error.code {
        case .unsupportedFormat: status = .unsupportedMediaType
        case .malformed, .limitExceeded, .imperfectTransform, .encrypted: status = .unprocessableContent
        case .invalidRequest: status = .badRequest
        default: status = .internalServerError
        }
        code = error.code.rawValue
        message = error.explanation
        cause = error.cause
    }

    package init(
        _ status: HTTPResponse.Status, _ code: DocOrientError.Code, _ message: String, headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code.rawValue
        self.message = message
        self.headers = headers
    }

    /// 408: the request broke a time limit; the connection closes after this answer.
    init(_ timeout: RequestTimeout) {
        status = .requestTimeout
        code = "request_timeout"
        switch timeout.limit {
        case .header: message = "the request's headers took too long"
        case .bodyRate: message = "the request body arrived too slowly"
        }
        headers = [.connection: "close"]
    }

    /// The client went away before its answer (recorded as 499; nobody reads it).
    static let clientGone = ServiceError(
        status: ServiceMetrics.clientClosedRequest, code: "client_closed_request", message: "the client went away",
        headers: [.connection: "close"])

    /// An answer with a code of the caller's own (the review page's refusals).
    package init(status: HTTPResponse.Status, code: String, message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// The answer's JSON: `cause` left out when there is none.
    private struct Body: Encodable {
        var error: String
        var message: String
        var cause: DocOrientError.Cause?
    }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let body = try encoder.encode(Body(error: code, message: message, cause: cause)) + Data("\n".utf8)
        var fields = headers
        fields[.contentType] = "application/json"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

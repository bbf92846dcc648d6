/// The one error type docorient throws: a code to branch on, a message that says what to do,
/// and the file it concerns.
public struct DocOrientError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, for callers that branch on it.
    public enum Code: String, Sendable, Codable {
        /// The bytes are an image format docorient does not handle (HEIC, WebP, GIF, PDF, ...), or no image.
        case unsupportedFormat = "unsupported_format"
        /// The file claims a supported format but its structure is broken.
        case malformed
        /// Reading or writing the file failed.
        case io
        /// The image exceeds a configured limit (pixel count, file size).
        case limitExceeded = "limit_exceeded"
        /// A lossless transform cannot be done without losing edge pixels.
        case imperfectTransform = "imperfect_transform"
        /// A C library reported a failure.
        case library
        /// A Tesseract model or configuration is missing.
        case missingModel = "missing_model"
        /// The caller asked for something that cannot be done.
        case invalidRequest = "invalid_request"
    }

    public var code: Code
    public var message: String
    public var path: String?

    public init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    /// The same error, naming `path` if it did not name a file yet.
    public func at(_ path: String) -> DocOrientError {
        var copy = self
        if copy.path == nil { copy.path = path }
        return copy
    }

    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }
}

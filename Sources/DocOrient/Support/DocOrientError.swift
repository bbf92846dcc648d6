/// The one error type docorient throws: a code to branch on, a message that says what to do,
/// and the file it concerns.
public struct DocOrientError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What went wrong, for callers that branch on it.
    public enum Code: String, Sendable, Codable {
        /// The bytes are a format docorient does not handle (WebP, GIF, BMP, ...), or no image.
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
        /// The file is encrypted (a PDF with a user or owner password): docorient neither reads nor
        /// rewrites it.
        case encrypted
    }

    /// What kind of failure, to branch on; its raw value is `error_code` in JSON records.
    public var code: Code
    /// What went wrong and what the caller can change; not prefixed with `path` (`description` adds it).
    public var message: String
    /// The file the error concerns; nil for an image passed as bytes, or before a caller names it
    /// with `at(_:)`.
    public var path: String?

    /// An error of kind `code` with `message`, naming `path` when it concerns a file.
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

    /// The message, prefixed with "path: " when the error names a file: the form docorient prints.
    public var description: String {
        if let path { return "\(path): \(message)" }
        return message
    }
}

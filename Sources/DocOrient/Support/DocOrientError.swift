import SystemPackage

/// The one error type docorient throws, in the shape of SwiftNIO's `FileSystemError`: a stable
/// code to branch on, a message that says what to do, the file it concerns, and the failure
/// underneath it (a system call's errno, a C library's own words) when there was one.
public struct DocOrientError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure, to branch on; its raw value is `error_code` in JSON records and the
    /// service's answers, and never changes. A struct rather than an enum, as SwiftNIO's
    /// `FileSystemError.Code`: codes may be added without breaking a caller's `switch` (which
    /// therefore needs a `default`).
    public struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        /// The code as JSON spells it ("unsupported_format").
        public let rawValue: String

        /// The code spelled `rawValue`; nil for a spelling docorient does not use.
        public init?(rawValue: String) {
            guard Self.all.contains(where: { $0.rawValue == rawValue }) else { return nil }
            self.rawValue = rawValue
        }

        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// The bytes are a format docorient does not handle (WebP, GIF, BMP, ...), or no image.
        public static let unsupportedFormat = Code("unsupported_format")
        /// The file claims a supported format but its structure is broken.
        public static let malformed = Code("malformed")
        /// Reading or writing the file failed.
        public static let io = Code("io")
        /// The image exceeds a configured limit (pixel count, file size).
        public static let limitExceeded = Code("limit_exceeded")
        /// A lossless transform cannot be done without losing edge pixels.
        public static let imperfectTransform = Code("imperfect_transform")
        /// A C library reported a failure.
        public static let library = Code("library")
        /// A Tesseract model or configuration is missing.
        public static let missingModel = Code("missing_model")
        /// The caller asked for something that cannot be done.
        public static let invalidRequest = Code("invalid_request")
        /// The file is encrypted (a PDF with a user or owner password): docorient neither reads nor
        /// rewrites it.
        public static let encrypted = Code("encrypted")
    }

    /// What kind of failure, to branch on.
    public var code: Code
    /// What went wrong and what the caller can change; prefixed neither with `path` nor followed
    /// by `cause` (`description` adds both).
    public var message: String
    /// The file the error concerns; nil for an image passed as bytes, or before a caller names it
    /// with `at(_:)`.
    public var path: String?
    /// The failure underneath: the system call or C library call that failed, and what it said;
    /// nil when docorient itself found the problem (a broken structure, a limit).
    public var cause: Cause?

    /// An error of kind `code` with `message`, naming `path` when it concerns a file and `cause`
    /// when a system call or a C library failed underneath.
    public init(_ code: Code, _ message: String, path: String? = nil, cause: Cause? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
    }

    /// The same error, naming `path` if it did not name a file yet.
    public func at(_ path: String) -> DocOrientError {
        var copy = self
        if copy.path == nil { copy.path = path }
        return copy
    }

    /// The message followed by what the cause said ("cannot open: No such file or directory"):
    /// the text of JSON `reason`, and of `description` after the file.
    public var explanation: String {
        guard let cause else { return message }
        return "\(message): \(cause)"
    }

    /// The explanation, prefixed with "path: " when the error names a file: the form docorient prints.
    public var description: String {
        if let path { return "\(path): \(explanation)" }
        return explanation
    }
}

extension DocOrientError.Code {
    /// Every code docorient uses, in the order of the OpenAPI document's enum.
    public static let all: [Self] = [
        .unsupportedFormat, .malformed, .io, .limitExceeded, .imperfectTransform, .library, .missingModel,
        .invalidRequest, .encrypted,
    ]

    /// The raw value, as JSON spells it.
    public var description: String { rawValue }
}

extension DocOrientError {
    /// The failure underneath a `DocOrientError`: a system call and the `Errno` it set (what
    /// SwiftNIO's `FileSystemError.SystemCallError` holds), or a C library call and its own
    /// message. JSON `error_cause`: `{"call": ..., "errno": ..., "message": ...}`.
    public struct Cause: Error, Hashable, Sendable, CustomStringConvertible {
        /// The system call or C library call that failed: "open", "rename", "tjDecompress2".
        public var call: String
        /// The errno the system call set; nil for a library call.
        public var errno: Errno?
        /// What it said: the errno's text (`strerror`) for a system call, the library's own
        /// message otherwise.
        public var message: String

        /// `call`, a system call, failed with `errno`.
        public static func systemCall(_ call: String, _ errno: Errno) -> Cause {
            Cause(call: call, errno: errno, message: errno.description)
        }

        /// `call`, a C library function, failed and said `message`.
        public static func library(_ call: String, _ message: String) -> Cause {
            Cause(call: call, errno: nil, message: message)
        }

        /// What it said: the text docorient prints after the error's message.
        public var description: String { message }
    }
}

extension DocOrientError.Cause: Codable {
    enum Key: String, CodingKey { case call, errno, message }

    /// `{"call": "open", "errno": 2, "message": "No such file or directory"}`; `errno` is null for
    /// a library call.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(call, forKey: .call)
        try c.encode(errno?.rawValue, forKey: .errno)
        try c.encode(message, forKey: .message)
    }

    /// The cause `encode(to:)` wrote.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        call = try c.decode(String.self, forKey: .call)
        errno = try c.decodeIfPresent(Int32.self, forKey: .errno).map(Errno.init(rawValue:))
        message = try c.decode(String.self, forKey: .message)
    }
}

import Foundation
import Synchronization

/// How `Fixer` may change files.
public struct FixOptions: Sendable, Equatable {
    /// How a file is changed: its tag rewritten, or its pixels turned (trimming partial edge blocks
    /// or not).
    public var mode: FixMode
    /// Decide and report, change nothing.
    public var dryRun: Bool
    /// Replace originals, or write copies into a directory.
    public var destination: Destination

    /// Options that fix in `mode`.
    ///
    /// In-memory fixes (`Fixer.fix(_:)`) need `destination` `.inPlace`: they return bytes and throw
    /// `DocOrientError.Code.invalidRequest` for any other destination.
    public init(mode: FixMode, dryRun: Bool = false, destination: Destination = .inPlace) {
        self.mode = mode
        self.dryRun = dryRun
        self.destination = destination
    }

    /// Options for a fix given as `docorient fix`'s flags; the defaults rewrite the tag in place.
    /// `trim` counts only with `bake`.
    public init(bake: Bool = false, trim: Bool = false, dryRun: Bool = false, destination: Destination = .inPlace) {
        self.init(mode: bake ? (trim ? .bakeTrim : .bake) : .tag, dryRun: dryRun, destination: destination)
    }

    /// Whether the winning orientation is baked into the pixels instead of written to the tag.
    public var bake: Bool { mode != .tag }
    /// With `bake`: whether partial edge blocks are dropped rather than the tag rewritten instead.
    public var trim: Bool { mode == .bakeTrim }
}

/// One image's metadata and the resolver's decision about it.
public struct Resolution: Sendable, Equatable {
    /// Every orientation value the image carries.
    public var metadata: ImageMetadata
    /// The orientation that displays the image upright, or why it is undecidable.
    public var decision: Decision
}

/// An image fixed in memory: the bytes to keep and the record of what was decided and done.
public struct FixedImage: Sendable {
    /// The fixed image; the input itself when nothing needed to change.
    public var bytes: [UInt8]
    /// What was decided and done (its `path` is nil: the image came as bytes).
    public var record: FixRecord
}

/// Resolves document photos and fixes them: the library form of `docorient fix`.
///
/// Thread-safe: call it from any number of tasks or threads at once, each call with its own image.
/// The `async` forms run the OCR off Swift's cooperative threads, wait (without holding a thread)
/// while all of the resolver's `maxEngines` engines are busy, and stop early when their task is
/// cancelled, throwing `CancellationError`.
public final class Fixer: Sendable {
    /// The resolver that decides.
    public let resolver: Resolver
    private let gate: AdmissionGate
    private let workQueue = DispatchQueue(label: "docorient.fixer.work", attributes: .concurrent)

    /// A fixer deciding with `resolver`.
    public init(resolver: Resolver) {
        self.resolver = resolver
        self.gate = AdmissionGate(permits: resolver.configuration.maxEngines)
    }

    // MARK: Synchronous forms (they block the calling thread for the OCR: tens of milliseconds to about a second)

    /// Reads and decides, without changing anything.
    /// - Parameters:
    ///   - image: the bytes of a JPEG, PNG, TIFF or HEIF image (a PDF or a TIFF of several pages
    ///     has a decision per page: use `fix(_:options:budget:)` with `dryRun`).
    ///   - budget: the work allowed for this image; the resolver's `configuration.budget` when nil.
    /// - Throws: `DocOrientError` (`.unsupportedFormat`, `.malformed`, `.limitExceeded`, `.library`).
    public func resolve(_ image: some DataProtocol, budget: WorkBudget? = nil) throws -> Resolution {
        try resolve(bytes: [UInt8](image), budget: budget, signal: nil)
    }

    /// Reads the file at `url` and decides, without changing anything.
    /// - Throws: `DocOrientError`, naming the file; `.io` when it cannot be read.
    public func resolve(contentsOf url: URL, budget: WorkBudget? = nil) throws -> Resolution {
        try Self.naming(url) { try resolve(bytes: FileIO.read(url.path), budget: budget, signal: nil) }
    }

    /// Decides and fixes in memory.
    ///
    /// A PDF (scanned pages) is decided page by page: the record holds one record per page in
    /// `pages`, and each page shown turned gets a new /Rotate; every stream stays byte-identical.
    /// So is a TIFF of several pages, each turned by its own Orientation tag; its image data,
    /// other tags and other pages stay byte-identical.
    /// - Parameter options: `bake`, `trim` and `dryRun` apply; `destination` must be `.inPlace`
    ///   (the bytes come back to the caller, who writes them where it likes).
    /// - Throws: `DocOrientError` when the image cannot be read, decided or changed.
    public func fix(
        _ image: some DataProtocol, options: FixOptions = FixOptions(), budget: WorkBudget? = nil
    ) throws
        -> FixedImage
    {
        try fix(bytes: [UInt8](image), options: options, budget: budget, signal: nil)
    }

    /// Decides and fixes the file at `url`: rewrites its tag or bakes it in place (atomically:
    /// a temporary file beside it, fsynced, renamed over it), or writes a copy to
    /// `options.destination`.
    /// - Returns: what was decided and done.
    /// - Throws: `DocOrientError`, naming the file, when it cannot be read, decided or written;
    ///   the file is then unchanged.
    public func fix(
        contentsOf url: URL, options: FixOptions = FixOptions(), budget: WorkBudget? = nil
    ) throws
        -> FixRecord
    {
        try Self.succeeded(fixFile(path: url.path, options: options, budget: budget, signal: nil))
    }

    // MARK: Asynchronous, cancellable forms

    /// Reads and decides, without changing anything; stops with `CancellationError` when the
    /// calling task is cancelled. See the synchronous form for the parameters.
    public func resolve(_ image: some DataProtocol, budget: WorkBudget? = nil) async throws -> Resolution {
        let bytes = [UInt8](image)
        return try await run { signal in try self.resolve(bytes: bytes, budget: budget, signal: signal) }
    }

    /// Reads the file at `url` and decides; stops with `CancellationError` when the calling task
    /// is cancelled.
    public func resolve(contentsOf url: URL, budget: WorkBudget? = nil) async throws -> Resolution {
        try await run { signal in
            try Self.naming(url) { try self.resolve(bytes: FileIO.read(url.path), budget: budget, signal: signal) }
        }
    }

    /// Decides and fixes in memory; stops with `CancellationError` when the calling task is
    /// cancelled. See the synchronous form for the parameters.
    public func fix(
        _ image: some DataProtocol, options: FixOptions = FixOptions(), budget: WorkBudget? = nil
    )
        async throws -> FixedImage
    {
        let bytes = [UInt8](image)
        return try await run { signal in try self.fix(bytes: bytes, options: options, budget: budget, signal: signal) }
    }

    /// Decides and fixes the file at `url`; stops with `CancellationError`, the file unchanged,
    /// when the calling task is cancelled before the write.
    public func fix(
        contentsOf url: URL, options: FixOptions = FixOptions(), budget: WorkBudget? = nil
    ) async throws
        -> FixRecord
    {
        try await run { signal in
            try Self.succeeded(
                self.fixFile(path: url.path, options: options, budget: budget, signal: signal))
        }
    }

    /// Runs `work` on the fixer's own threads once an engine is free, and hands its result back.
    /// Cancelling the calling task sets the signal `work` checks between reads and before each
    /// word, and returns at once with `CancellationError`; `work` then stops at its next check and
    /// its engine goes back to the pool.
    private func run<R: Sendable>(_ work: @escaping @Sendable (CancellationSignal) throws -> R) async throws -> R {
        try await gate.acquire()
        let signal = CancellationSignal()
        let outcome = Mutex<CheckedContinuation<R, any Error>?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<R, any Error>) in
                outcome.withLock { $0 = continuation }
                if Task.isCancelled { signal.cancel() }
                workQueue.async { [gate] in
                    let result = Result { try work(signal) }
                    gate.release()
                    outcome.withLock { $0.take() }?.resume(with: result)
                }
            }
        } onCancel: {
            signal.cancel()
            outcome.withLock { $0.take() }?.resume(throwing: CancellationError())
        }
    }

    // MARK: The work itself

    private func resolve(bytes: [UInt8], budget: WorkBudget?, signal: CancellationSignal?) throws -> Resolution {
        let metadata = try ImageMetadata.read(bytes).singleImage()
        let decision = try resolver.decide(
            imageBytes: bytes, metadata: metadata, prior: metadata.effectiveOrientation, budget: budget, signal: signal)
        return Resolution(metadata: metadata, decision: decision)
    }

    private func fix(
        bytes: [UInt8], options: FixOptions, budget: WorkBudget?, signal: CancellationSignal?
    ) throws
        -> FixedImage
    {
        guard options.destination == .inPlace else {
            throw DocOrientError(
                .invalidRequest,
                "an image fixed in memory comes back as bytes: write them where they belong (destination must be "
                    + ".inPlace)"
            )
        }
        if PDFPages.isPDF(bytes) { return try fixPDF(bytes: bytes, options: options, budget: budget, signal: signal) }
        if (try? ImageFormat.detect(bytes)) == .tiff {
            let pages = try TIFFPages.parse(bytes)
            if pages.pages.count > 1 {
                return try fixTIFFPages(bytes: bytes, pages: pages, options: options, budget: budget, signal: signal)
            }
        }
        let clock = ContinuousClock.now
        var record = FixRecord(path: nil)
        let resolution = try resolve(bytes: bytes, budget: budget, signal: signal)
        record.take(metadata: resolution.metadata, decision: resolution.decision)
        var output = bytes
        if let target = resolution.decision.orientation,
            let change = try change(for: target, metadata: resolution.metadata, bytes: bytes, options: options)
        {
            output = change.bytes
            record.action = change.action
            if let note = change.note { record.reason = note }
        }
        record.elapsedMilliseconds = clock.duration(to: .now).milliseconds
        return FixedImage(bytes: output, record: record)
    }

    /// The record of a file fix, or the error that made it fail.
    private static func succeeded(_ fixed: FileFix) throws -> FixRecord {
        if let error = fixed.record.error { throw error }
        return fixed.record
    }

    /// Runs `body`, naming the file of `url` in the error it throws.
    private static func naming<R>(_ url: URL, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as DocOrientError {
            throw error.at(url.path)
        }
    }

    /// One file fixed: what was decided and done, and the bytes before and after (a batch journals
    /// their hashes; the fixer itself keeps no record of files).
    package struct FileFix: Sendable {
        /// What was decided and done, or why the file failed.
        package var record: FixRecord
        /// The file's bytes as read; nil when it could not be read.
        package var original: [UInt8]?
        /// The bytes that replaced the file in place; nil when it was left as it was or a copy
        /// was written elsewhere.
        package var written: [UInt8]?
    }

    /// Fixes the file at `path` (read, decide, keep the original, write atomically).
    /// - Parameter keepOriginal: called with the original and the fixed bytes before a file is
    ///   replaced in place; when it throws, the file is left alone and the record says why.
    package func fixFile(
        path: String, options: FixOptions, keepOriginal: ((_ original: [UInt8], _ fixed: [UInt8]) throws -> Void)? = nil
    ) -> FileFix {
        // Nothing cancels a fix without a signal.
        (try? fixFile(path: path, options: options, budget: nil, signal: nil, keepOriginal: keepOriginal))
            ?? FileFix(record: FixRecord(path: path))
    }

    /// The same, with a budget and a cancellation signal.
    /// - Throws: only the cancellation that stopped it (the file then unchanged). Every other
    ///   failure is a fix whose record has verdict `.error`.
    func fixFile(
        path: String, options: FixOptions, budget: WorkBudget?, signal: CancellationSignal?,
        keepOriginal: ((_ original: [UInt8], _ fixed: [UInt8]) throws -> Void)? = nil
    ) throws(CancellationError) -> FileFix {
        let clock = ContinuousClock.now
        var outcome = FileFix(record: FixRecord(path: path))
        do {
            let bytes = try FileIO.read(path)
            outcome.original = bytes
            let inMemory = FixOptions(mode: options.mode, dryRun: options.dryRun)
            var result: FixedImage
            do {
                result = try fix(bytes: bytes, options: inMemory, budget: budget, signal: signal)
            } catch let error as DocOrientError {
                var failed = FixRecord(path: path)
                failed.fail(error)
                result = FixedImage(bytes: bytes, record: failed)
            }
            result.record.path = path
            for page in result.record.pages.indices { result.record.pages[page].path = path }
            outcome.record = result.record
            if outcome.record.verdict != .error, !options.dryRun,
                outcome.record.changedTheFile || options.destination != .inPlace
            {
                if signal?.isCancelled == true { throw CancellationError() }
                do {
                    if options.destination == .inPlace, result.bytes != bytes { try keepOriginal?(bytes, result.bytes) }
                    _ = try FileActions.commit(
                        result.bytes, original: bytes, path: path, destination: options.destination)
                    if options.destination == .inPlace { outcome.written = result.bytes }
                } catch {
                    outcome.record.fail(error)
                }
            }
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            outcome.record.fail(error)
        }
        outcome.record.path = path
        outcome.record.elapsedMilliseconds = clock.duration(to: .now).milliseconds
        return outcome
    }

    /// The change that puts `bytes` upright given the decided `target`, or nil when it already is
    /// (`Reorientation`, the same change a person's click on the review page makes).
    private func change(
        for target: Orientation, metadata: ImageMetadata, bytes: [UInt8], options: FixOptions
    ) throws
        -> (bytes: [UInt8], action: FixAction, note: String?)?
    {
        try Reorientation.change(
            showing: target, metadata: metadata, bytes: bytes, mode: options.mode, dryRun: options.dryRun,
            maxPixels: resolver.configuration.maxPixels
        ).map { ($0.bytes, $0.action, $0.note) }
    }
}

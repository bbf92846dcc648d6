import Foundation

/// How `Fixer` may change files.
public struct FixOptions: Sendable, Equatable {
    /// Bake the winning orientation into the pixels instead of rewriting the tag.
    public var bake: Bool
    /// With `bake`: drop partial edge blocks rather than fall back to a tag rewrite.
    public var trim: Bool
    /// Decide and report, change nothing.
    public var dryRun: Bool
    /// Replace originals, or write copies into a directory.
    public var destination: Destination

    public init(bake: Bool = false, trim: Bool = false, dryRun: Bool = false, destination: Destination = .inPlace) {
        self.bake = bake
        self.trim = trim
        self.dryRun = dryRun
        self.destination = destination
    }
}

/// How the evidence relates to the file's original tag.
public enum Verdict: String, Sendable, Codable {
    /// The text confirms the tag.
    case agrees
    /// The text says the tag is wrong.
    case disagrees
    /// The file had no usable tag; the text decided.
    case noTag = "no_tag"
    /// The text does not decide; nothing is changed.
    case undecidable
    /// The file could not be read, decided or written.
    case error
}

/// What was done to the file.
public enum FixAction: String, Sendable, Codable {
    case none
    case tagRewritten = "tag_rewritten"
    case baked
    case wouldRewriteTag = "would_rewrite_tag"
    case wouldBake = "would_bake"
}

/// Resolves document photos and fixes them: the library form of `docorient fix`.
///
/// Thread-safe: call `fix` and `resolve` from any number of tasks at once (the `Resolver` pools
/// its Tesseract engines); give each call a different file.
public final class Fixer: Sendable {
    public let resolver: Resolver

    public init(resolver: Resolver) {
        self.resolver = resolver
    }

    /// Reads and decides, without changing anything.
    /// - Returns: the file's metadata and the decision.
    public func resolve(bytes: [UInt8]) throws -> (metadata: ImageMetadata, decision: Decision) {
        let metadata = try ImageMetadata.read(bytes)
        let decision = try resolver.decide(imageBytes: bytes, metadata: metadata, prior: metadata.effectiveOrientation)
        return (metadata, decision)
    }

    /// Reads the file at `url` and decides, without changing anything.
    public func resolve(fileAt url: URL) throws -> (metadata: ImageMetadata, decision: Decision) {
        do {
            return try resolve(bytes: FileIO.read(url.path))
        } catch let error as DocOrientError {
            throw error.at(url.path)
        }
    }

    /// Decides and fixes in memory: returns the new bytes (the input itself when nothing changes)
    /// and the record of what was decided and done (`path` is empty).
    public func fix(bytes: [UInt8], options: FixOptions = FixOptions()) -> (bytes: [UInt8], record: FixRecord) {
        let clock = ContinuousClock.now
        var record = FixRecord(path: "")
        var output = bytes
        do {
            let (metadata, decision) = try resolve(bytes: bytes)
            record.take(metadata: metadata, decision: decision)
            if let target = decision.orientation, let change = try change(for: target, metadata: metadata, bytes: bytes, options: options) {
                output = change.bytes
                record.action = change.action
                if let note = change.note { record.reason = note }
            }
        } catch {
            record.fail(error)
        }
        record.elapsedMilliseconds = clock.duration(to: .now).milliseconds
        return (output, record)
    }

    /// Decides and fixes the file at `path`. Never throws: failures are records with verdict `.error`.
    public func fix(path: String, options: FixOptions = FixOptions()) -> FixRecord {
        fixFile(path: path, options: options, hashing: false).record
    }

    /// A file's record with its state before and after, for the batch journal.
    struct FileOutcome: Sendable {
        var record: FixRecord
        var before: FileFacts?
        var after: FileFacts?
    }

    /// - Parameter hashing: whether the facts carry content hashes (only a journal records them:
    ///   hashing a 12 MP photo costs a few milliseconds).
    func fixFile(path: String, options: FixOptions, hashing: Bool) -> FileOutcome {
        let clock = ContinuousClock.now
        var outcome = FileOutcome(record: FixRecord(path: path))
        do {
            let bytes = try FileIO.read(path)
            outcome.before = FileFacts.stat(path, hash: hashing ? bytes : nil)
            var result = fix(bytes: bytes, options: FixOptions(bake: options.bake, trim: options.trim, dryRun: options.dryRun))
            result.record.path = path
            outcome.record = result.record
            var written: [UInt8]? = nil
            if outcome.record.verdict != .error, !options.dryRun,
                outcome.record.action == .tagRewritten || outcome.record.action == .baked || options.destination != .inPlace
            {
                do {
                    _ = try FileActions.commit(result.bytes, original: bytes, path: path, destination: options.destination)
                    if options.destination == .inPlace { written = result.bytes }
                } catch {
                    outcome.record.fail(error)
                }
            }
            outcome.after = FileFacts.stat(path, hash: hashing ? written : nil)
            if hashing, written == nil, let before = outcome.before?.hash { outcome.after?.hash = before }
        } catch {
            outcome.record.fail(error)
        }
        outcome.record.path = path
        outcome.record.elapsedMilliseconds = clock.duration(to: .now).milliseconds
        return outcome
    }

    /// The change that puts `bytes` upright given the decided `target`, or nil when it already is.
    private func change(for target: Orientation, metadata: ImageMetadata, bytes: [UInt8], options: FixOptions) throws
        -> (bytes: [UInt8], action: FixAction, note: String?)?
    {
        let current = metadata.effectiveOrientation ?? .identity
        let tagsConsistent = [metadata.exifOrientation, metadata.xmpOrientation, metadata.thumbnailOrientation]
            .allSatisfy { $0 == nil || $0 == target.exifValue }
        let wantsBake = options.bake && target != .identity
        if !wantsBake, current == target, tagsConsistent { return nil }
        if options.dryRun {
            return (bytes, wantsBake ? .wouldBake : .wouldRewriteTag, nil)
        }
        if wantsBake {
            let result = try Bake.apply(target, to: bytes, trim: options.trim, maxPixels: resolver.configuration.maxPixels)
            switch result.outcome {
            case .baked: return (result.bytes, .baked, nil)
            case .unchanged: return nil
            case .tagRewrittenInstead(_, let reason): return (result.bytes, .tagRewritten, "not baked: \(reason)")
            }
        }
        return (try TagRewrite.setting(target, in: bytes), .tagRewritten, nil)
    }
}

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}

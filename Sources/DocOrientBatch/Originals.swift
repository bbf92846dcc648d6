import DocOrient
import Foundation
import SystemPackage

/// The original bytes of files a batch changed, kept beside its journal so that `undo` can give
/// them back byte for byte: one file per original, named by its content hash, in the
/// hidden folder `.docorient-originals` next to the journal (journals in one folder share it; the
/// walker never enters hidden folders). Files whose original a tag edit gives back exactly (a
/// wrong tag rewritten in place) are not kept: `undo` edits the tag back.
public struct OriginalsStore: Sendable {
    /// The folder the originals are kept in.
    public let directory: String

    /// The store beside the journal at `journalPath`.
    public init(besideJournal journalPath: String) {
        directory = FileIO.parentDirectory(of: journalPath) + "/.docorient-originals"
    }

    /// Keeps `original` unless a tag edit of `fixed` gives it back exactly. Written atomically and
    /// flushed before the caller replaces the file, so a kill never leaves a change without its
    /// original.
    public func keep(original: [UInt8], fixed: [UInt8]) throws {
        // A file of several pages has a record per page and none of its own tag to edit back.
        if let metadata = try? ImageMetadata.read(original), metadata.pageCount == 1,
            let tag = metadata.exifOrientation, let o = Orientation(exifValue: tag),
            (try? TagRewrite.setting(o, in: fixed)) == original
        {
            return
        }
        let path = FilePath(directory).appending(FileFacts.contentHash(original)).string
        if FileManager.default.fileExists(atPath: path) { return }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw DocOrientError(.io, "cannot create the folder for kept originals", path: directory)
        }
        try FileIO.writeAtomically(original, to: path, replacing: false, modeFrom: directory)
    }

    /// The kept original whose content hash is `hash`, nil when none was kept.
    /// - Throws: `.io` when the kept file no longer has that content.
    public func original(hash: String) throws -> [UInt8]? {
        let path = FilePath(directory).appending(hash).string
        guard !hash.isEmpty, FileManager.default.fileExists(atPath: path) else { return nil }
        let bytes = try FileIO.read(path, maxBytes: .max)
        guard FileFacts.contentHash(bytes) == hash else {
            throw DocOrientError(.io, "the kept original has been changed", path: path)
        }
        return bytes
    }
}

/// `docorient undo`: gives files a batch changed their original bytes back, but only while each
/// is still exactly what docorient wrote.
public enum Undo {
    /// What happened to one file.
    public enum Outcome: String, Sendable, Codable {
        /// The original bytes are back.
        case restored
        /// A dry run: they would be.
        case wouldRestore = "would_restore"
        /// Left alone; `reason` says why.
        case refused
        /// The journal records no change to this file.
        case nothingToUndo = "nothing_to_undo"
    }

    /// One file's result (a line of `undo --json`).
    public struct Result: Sendable, Codable, Equatable {
        /// The file, by the absolute path the journal records.
        public var path: String
        /// Whether its original bytes are back, would be (dry run), or were refused.
        public var outcome: Outcome
        /// How the original came back ("kept original", "tag edited back"), or why not.
        public var reason: String?

        /// A result for the file at `path`.
        public init(path: String, outcome: Outcome, reason: String?) {
            self.path = path
            self.outcome = outcome
            self.reason = reason
        }
    }

    /// The original bytes of the file `entry` records, from `store` or by editing the tag back,
    /// when the file at `entry.path` is still the one docorient wrote; writes them unless
    /// `dryRun`, and returns the journal entry for the restored file (action "undone").
    public static func undo(_ entry: JournalEntry, store: OriginalsStore, dryRun: Bool) -> (Result, JournalEntry?) {
        func result(_ outcome: Outcome, _ reason: String?) -> Result {
            Result(path: entry.path, outcome: outcome, reason: reason)
        }
        guard entry.changedTheFile else {
            return (
                result(.nothingToUndo, entry.action == .undone ? "already undone" : "docorient did not change it"), nil
            )
        }
        let current: [UInt8]
        do {
            current = try FileIO.read(entry.path)
        } catch {
            return (result(.refused, "cannot read it: \(error)"), nil)
        }
        guard FileFacts.contentHash(current) == entry.hashAfter else {
            return (result(.refused, "it changed after docorient fixed it; left alone"), nil)
        }
        var original: [UInt8]
        var how: String
        do {
            if let kept = try store.original(hash: entry.hashBefore) {
                original = kept
                how = "kept original"
            } else if entry.action == .fixed(.tagRewritten),
                let tag = entry.exifOrientation.flatMap(Orientation.init(exifValue:))
            {
                original = try TagRewrite.setting(tag, in: current)
                how = "tag edited back"
            } else {
                return (
                    result(
                        .refused,
                        "no original was kept (fixed without keeping originals, or the kept one was "
                            + "deleted)"),
                    nil
                )
            }
        } catch {
            return (result(.refused, "\(error)"), nil)
        }
        guard FileFacts.contentHash(original) == entry.hashBefore else {
            return (result(.refused, "the original bytes cannot be rebuilt exactly; left alone"), nil)
        }
        if dryRun { return (result(.wouldRestore, how), nil) }
        do {
            try FileIO.writeAtomically(original, to: entry.path)
        } catch {
            return (result(.refused, "\(error)"), nil)
        }
        var undone = entry
        if let facts = FileFacts.stat(entry.path, hash: original) {
            undone.size = facts.size
            undone.mtimeNs = facts.modified
            undone.ctimeNs = facts.changed
            undone.inode = Int64(bitPattern: facts.inode)
            undone.hashAfter = facts.hash
        }
        undone.action = .undone
        undone.updatedAt = ISO8601DateFormatter().string(from: Date())
        return (result(.restored, how), undone)
    }
}

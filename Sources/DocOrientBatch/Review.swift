import DocOrient
import Foundation
import Synchronization
import SystemPackage

/// A person's turn of one file on the review page, relative to how the file shows now.
public enum Turn: String, Sendable, CaseIterable, Codable {
    /// A quarter turn anticlockwise.
    case left
    /// A quarter turn clockwise.
    case right
    /// A half turn.
    case halfTurn = "180"
    /// A left-right mirror.
    case mirror
    /// As it shows now: the person confirms it.
    case keep

    /// The transform applied after the file's current display orientation.
    public var transform: Orientation {
        switch self {
        case .left: return .rotate270
        case .right: return .rotate90
        case .halfTurn: return .rotate180
        case .mirror: return .flipHorizontal
        case .keep: return .identity
        }
    }
}

/// Why the review refused a request; nothing was written.
public struct ReviewRefusal: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of refusal, to answer with.
    public enum Reason: String, Sendable {
        /// The name is no path inside the folder (absolute, `..`, a symbolic link on the way, too long).
        case outsideFolder = "outside_folder"
        /// No such file in the folder, or the journal has none.
        case notFound = "not_found"
        /// The file or its journal entry changed since the page showed it.
        case changed
        /// The review cannot turn this file (a PDF, a TIFF of several pages, a file that failed).
        case notTurnable = "not_turnable"
    }

    /// What kind of refusal.
    public var reason: Reason
    /// What the person can do.
    public var message: String

    /// A refusal of kind `reason`.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

/// One file on the review page.
public struct ReviewItem: Sendable, Equatable {
    /// The file's path relative to the folder: its name on the page and in requests.
    public var file: String
    /// Why it needs a look first ("undecidable", "low confidence 0.62", "turned against its
    /// tag"); nil for the rest.
    public var attention: String?
    /// How docorient's evidence related to the file's tag.
    public var verdict: Verdict
    /// The orientation docorient decided (1-8), nil when undecidable or failed.
    public var docorientOrientation: Int?
    /// docorient's confidence in it, 0...1.
    public var confidence: Double
    /// docorient's reason, when it gave one.
    public var reason: String?
    /// Who decided the orientation it shows now.
    public var decidedBy: JournalEntry.Decider
    /// The orientation a person chose (1-8), nil when none did.
    public var personOrientation: Int?
    /// The content hash the journal has for it now: the version a click must name, and the
    /// thumbnail's cache key.
    public var version: String
    /// Whether the page offers turns: one image whose tag the review can set.
    public var turnable: Bool
}

/// The review of one batch: the files of a folder its journal records, the ones that need a look
/// first, and a person's turns, each the lossless change `fix` makes (`Reorientation`, tag mode),
/// with the original kept for `undo` and the decision journalled as the person's.
///
/// Thread-safe: turns run one at a time.
public final class Review: Sendable {
    /// The folder, every symbolic link resolved: nothing outside it is read or written.
    public let folder: String
    /// The batch's journal.
    public let journal: Journal
    /// Where originals are kept for `undo`.
    public let originals: OriginalsStore
    /// Below this confidence a decided file needs a look.
    public let lowConfidence: Double
    /// Whether the journal lies in the folder itself, so that its entries' relative paths are
    /// relative to the folder.
    private let journalInFolder: Bool
    private let turning = Mutex<Void>(())

    /// The review of the batch over `folder`, whose journal is in it (or at `journalPath`).
    /// - Throws: `DocOrientError` `.io` when the folder is none, or has no journal.
    public init(folder: String, journalPath: String? = nil, lowConfidence: Double = 0.9) throws {
        guard let real = Syscalls.resolvedPath(folder), (try? FileStatus(real))?.kind == .directory else {
            throw DocOrientError(.io, "no such folder", path: folder)
        }
        let location = journalPath ?? FilePath(real).appending(Journal.defaultName).string
        guard FileManager.default.fileExists(atPath: location) else {
            throw DocOrientError(
                .io,
                "no journal here: review shows the files of a batch; run docorient fix on the folder first (or name its journal with --journal)",
                path: location)
        }
        self.folder = real
        journal = try Journal(path: location)
        originals = OriginalsStore(besideJournal: location)
        self.lowConfidence = lowConfidence
        journalInFolder = Syscalls.resolvedPath(FileIO.parentDirectory(of: location)) == real
    }

    /// Every file of the folder the journal records: those that need a look first (undecidable,
    /// then low confidence, then turned against their tag), then the rest, each group by path.
    public func items() throws -> [ReviewItem] {
        let all = try journal.entries().values.compactMap { entry in
            relative(entry).map { (rank: rank(entry), item: item($0, entry)) }
        }
        return all.sorted { ($0.rank, $0.item.file) < ($1.rank, $1.item.file) }.map(\.item)
    }

    /// The order of the groups on the page: undecidable, low confidence, turned against the tag, the rest.
    private func rank(_ entry: JournalEntry) -> Int {
        guard attention(entry) != nil else { return 3 }
        switch entry.verdict {
        case .undecidable: return 0
        case .disagrees: return 2
        default: return 1
        }
    }

    /// The item of one file, by its path relative to the folder.
    public func item(_ file: String) throws -> ReviewItem {
        let (entry, _) = try entry(for: file)
        return item(file, entry)
    }

    /// Turns the file named `file` (relative to the folder) by `turn` from how it shows now:
    /// sets its orientation tag as `fix` does (every other byte kept), keeps its original for
    /// `undo`, and records the new orientation as a person's decision, which no later `fix`
    /// overrides.
    /// - Parameter version: the content hash the page showed (`ReviewItem.version`); a file or
    ///   entry that changed since is refused.
    /// - Throws: `ReviewRefusal`, or `DocOrientError` when the file cannot be changed; either
    ///   way nothing was written.
    public func turn(_ file: String, _ turn: Turn, expecting version: String) throws -> ReviewItem {
        try turning.withLock { _ in
            let (entry, path) = try entry(for: file)
            guard turnable(entry) else {
                throw ReviewRefusal(
                    .notTurnable, "the review turns single images; turn this file's pages with docorient tag")
            }
            guard entry.hashAfter == version else {
                throw ReviewRefusal(.changed, "the journal has a newer state of this file: reload the page")
            }
            let bytes: [UInt8]
            do {
                bytes = try FileIO.read(path)
            } catch {
                throw ReviewRefusal(.notFound, "the file cannot be read any more (\(error)); nothing was written")
            }
            guard FileFacts.contentHash(bytes) == entry.hashAfter else {
                throw ReviewRefusal(
                    .changed,
                    "the file changed since the batch handled it; nothing was written (run docorient fix again)")
            }
            let metadata = try ImageMetadata.read(bytes)
            guard metadata.pageCount == 1 else {
                throw ReviewRefusal(.notTurnable, "the file has \(metadata.pageCount) pages; nothing was written")
            }
            let target = (metadata.effectiveOrientation ?? .identity).followed(by: turn.transform)
            var written: [UInt8]?
            if let change = try Reorientation.change(showing: target, metadata: metadata, bytes: bytes, mode: .tag),
                change.bytes != bytes
            {
                try keepOriginal(of: entry, current: bytes, fixed: change.bytes)
                _ = try FileActions.commit(change.bytes, original: bytes, path: path, destination: .inPlace)
                written = change.bytes
            }
            let decided = try journalled(
                entry, path: path, now: written ?? bytes, wrote: written != nil, target: target)
            return item(file, decided)
        }
    }

    /// A small JPEG of the file as it shows now, its long side about `side` pixels.
    /// - Throws: `ReviewRefusal` for a name outside the folder; `DocOrientError` when no
    ///   preview can be made (PNG and TIFF get none).
    public func preview(_ file: String, side: Int) throws -> [UInt8] {
        let (_, path) = try entry(for: file)
        let bytes = try FileIO.read(path)
        let metadata = try ImageMetadata.read(bytes)
        let stored = try PreviewImage(bytes, metadata: metadata, side: side)
        guard let jpeg = stored.transformed(by: metadata.effectiveOrientation ?? .identity).jpeg else {
            throw DocOrientError(.library, "the preview could not be encoded", path: path)
        }
        return jpeg
    }

    /// The journal's entry for `file` and its path, once `file` is known to name a file inside the
    /// folder: relative, no `.` or `..`, no symbolic link anywhere on the way (so no link leads
    /// out), and recorded by the journal.
    func entry(for file: String) throws -> (JournalEntry, String) {
        let relative = FilePath(file)
        guard !file.isEmpty, file.utf8.count <= 4096, !file.contains("\0"), !relative.isAbsolute,
            relative.components.allSatisfy({ $0.kind == .regular })
        else {
            throw ReviewRefusal(.outsideFolder, "name a file by its path inside the folder, without . or ..")
        }
        let path = FilePath(folder).pushing(relative).string
        guard let resolved = Syscalls.resolvedPath(path) else {
            throw ReviewRefusal(.notFound, "no such file in the folder (deleted since the batch?)")
        }
        guard resolved == path else {
            throw ReviewRefusal(.outsideFolder, "a symbolic link is on the way; the review follows none")
        }
        guard let entry = try journal.entries().values.first(where: { self.relative($0) == file }) else {
            throw ReviewRefusal(.notFound, "the batch's journal does not record this file")
        }
        return (entry, path)
    }

    /// The entry's path relative to the folder, nil for a file outside it.
    func relative(_ entry: JournalEntry) -> String? {
        if journalInFolder, let relative = entry.relativePath { return relative }
        var path = FilePath(entry.path)
        guard let real = Syscalls.resolvedPath(FilePath(entry.path).removingLastComponent().string),
            let name = path.lastComponent
        else { return nil }
        path = FilePath(real).appending(name)
        return path.removePrefix(FilePath(folder)) && !path.isEmpty ? path.string : nil
    }

    private func item(_ file: String, _ entry: JournalEntry) -> ReviewItem {
        ReviewItem(
            file: file, attention: attention(entry), verdict: entry.verdict,
            docorientOrientation: entry.detectedOrientation, confidence: entry.confidence, reason: entry.reason,
            decidedBy: entry.decidedBy, personOrientation: entry.personDecisionStands ? entry.personOrientation : nil,
            version: entry.hashAfter, turnable: turnable(entry))
    }

    /// Why the file needs a look first; nil once a person decided, and for the rest.
    private func attention(_ entry: JournalEntry) -> String? {
        if entry.personDecisionStands || entry.verdict == .error { return nil }
        if entry.verdict == .undecidable { return "undecidable" }
        if entry.verdict == .disagrees { return "turned against its tag" }
        if entry.detectedOrientation != nil, entry.confidence < lowConfidence {
            return "low confidence \(String(format: "%.2f", entry.confidence))"
        }
        return nil
    }

    /// Whether the review can turn the file: one image (not a PDF or a TIFF of several pages,
    /// whose records have their pages' records) that docorient could read.
    private func turnable(_ entry: JournalEntry) -> Bool {
        guard entry.verdict != .error, !entry.hashAfter.isEmpty else { return false }
        let record = try? JSONSerialization.jsonObject(with: Data(entry.record.utf8)) as? [String: Any]
        return (record?["pages"] as? [Any])?.isEmpty ?? true
    }

    /// Keeps the bytes the journal knows as the file's original (`hashBefore`) so that `undo`
    /// restores them exactly: the file as it is, when docorient left it unchanged; otherwise
    /// the original already kept, or rebuilt by editing the tag back.
    private func keepOriginal(of entry: JournalEntry, current: [UInt8], fixed: [UInt8]) throws {
        var original = current
        if !entry.hashBefore.isEmpty, entry.hashBefore != entry.hashAfter {
            if try originals.original(hash: entry.hashBefore) != nil { return }
            guard let tag = entry.exifOrientation.flatMap(Orientation.init(exifValue:)),
                let rebuilt = try? TagRewrite.setting(tag, in: current),
                FileFacts.contentHash(rebuilt) == entry.hashBefore
            else {
                throw ReviewRefusal(
                    .notTurnable,
                    "its original was not kept and cannot be rebuilt, so undo could not give it back; nothing was written"
                )
            }
            original = rebuilt
        }
        try originals.keep(original: original, fixed: fixed)
    }

    /// Records the person's decision: the file's new state, the orientation chosen, who chose.
    private func journalled(
        _ entry: JournalEntry, path: String, now bytes: [UInt8], wrote: Bool, target: Orientation
    ) throws -> JournalEntry {
        var decided = entry
        if let facts = FileFacts.stat(path, hash: bytes) {
            decided.size = facts.size
            decided.mtimeNs = facts.modified
            decided.ctimeNs = facts.changed
            decided.inode = Int64(bitPattern: facts.inode)
            decided.hashAfter = facts.hash
        }
        if decided.hashBefore.isEmpty { decided.hashBefore = decided.hashAfter }
        if decided.hashAfter == decided.hashBefore {
            decided.action = .fixed(.none)
        } else if wrote {
            decided.action = .fixed(entry.action == .fixed(.baked) ? .baked : .tagRewritten)
        }
        decided.decidedBy = .person
        decided.personOrientation = target.exifValue
        decided.updatedAt = ISO8601DateFormatter().string(from: Date())
        try journal.save([decided])
        return decided
    }
}

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
        /// The review cannot turn this file or page (a file that failed, a PDF page whose image
        /// docorient does not read, a mirror a PDF page's annotations would not follow), or the
        /// request names no page of a file of pages, or a page of a single image.
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

/// One file on the review page, or one page of a PDF or multi-page TIFF.
public struct ReviewItem: Sendable, Equatable {
    /// The file's path relative to the folder: its name on the page and in requests.
    public var file: String
    /// The page of a PDF or multi-page TIFF (1 for the first), nil for a single image.
    public var page: Int? = nil
    /// How many pages the file's record has, nil for a single image.
    public var pageCount: Int? = nil
    /// Why it needs a look first ("undecidable", "low confidence 0.62", "turned against its
    /// tag"); nil for the rest.
    public var attention: String?
    /// How docorient's evidence related to the file's tag (the page's, for a page).
    public var verdict: Verdict
    /// The orientation docorient decided (1-8), nil when undecidable or failed. For a page, the
    /// orientation its image shows upright in, as the page's record has it.
    public var docorientOrientation: Int?
    /// docorient's confidence in it, 0...1.
    public var confidence: Double
    /// docorient's reason, when it gave one.
    public var reason: String?
    /// Who decided the orientation it shows now (for a page: a person, once one turned it).
    public var decidedBy: JournalEntry.Decider
    /// The orientation a person chose (1-8), nil when none did.
    public var personOrientation: Int?
    /// The content hash the journal has for the file now: the version a click must name, and
    /// the thumbnail's cache key (one for all of a file's pages).
    public var version: String
    /// Whether the page offers turns: one image whose tag the review can set, or a page whose
    /// image docorient reads (its /Rotate, or its own Orientation tag).
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
                "no journal here: review shows the files of a batch; run docorient fix on the folder first (or name "
                    + "its journal with --journal)",
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
    /// A PDF's or multi-page TIFF's pages are items of their own, each in its group.
    public func items() throws -> [ReviewItem] {
        let all = try journal.entries().values.flatMap { entry -> [ReviewItem] in
            guard let file = relative(entry) else { return [] }
            let pages = entry.pageRecords
            return pages.isEmpty ? [item(file, entry)] : pages.map { item(file, entry, $0, of: pages.count) }
        }
        return all.map { (rank: rank($0), item: $0) }
            .sorted { ($0.rank, $0.item.file, $0.item.page ?? 0) < ($1.rank, $1.item.file, $1.item.page ?? 0) }
            .map(\.item)
    }

    /// The order of the groups on the page: undecidable, low confidence, turned against the tag, the rest.
    private func rank(_ item: ReviewItem) -> Int {
        guard item.attention != nil else { return 3 }
        switch item.verdict {
        case .undecidable: return 0
        case .disagrees: return 2
        default: return 1
        }
    }

    /// The item of one file, or of one of its pages, by its path relative to the folder.
    public func item(_ file: String, page: Int? = nil) throws -> ReviewItem {
        let (entry, _) = try entry(for: file)
        return try item(file, entry, page: page)
    }

    /// Turns the file named `file` (relative to the folder), or its page `page`, by `turn` from
    /// how it shows now, with the change `fix` makes: an image's orientation tag (HEIF's
    /// `irot`/`imir`), a PDF page's /Rotate (a mirror drawn around its content where /Rotate
    /// cannot show one), a multi-page TIFF page's own Orientation tag; every other byte kept.
    /// Keeps the file's original for `undo`, and records the new orientation as a person's
    /// decision (the page's, for a page), which no later `fix` overrides.
    /// - Parameters:
    ///   - page: the page of a PDF or multi-page TIFF (1 for the first); nil for a single image.
    ///   - version: the content hash the page showed (`ReviewItem.version`); a file or entry
    ///     that changed since is refused.
    /// - Throws: `ReviewRefusal`, or `DocOrientError` when the file cannot be changed; either
    ///   way nothing was written.
    public func turn(_ file: String, page: Int? = nil, _ turn: Turn, expecting version: String) throws -> ReviewItem {
        try turning.withLock { _ in
            let (entry, path) = try entry(for: file)
            guard try item(file, entry, page: page).turnable else {
                throw ReviewRefusal(
                    .notTurnable,
                    page == nil
                        ? "the review does not turn this file (it failed, or docorient read no image of it)"
                        : "the review does not turn this page (it failed, or docorient read no image of it)")
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
            let (target, change) = try Self.change(bytes, page: page, by: turn)
            var written: [UInt8]?
            if let change, change.bytes != bytes {
                try keepOriginal(of: entry, current: bytes, fixed: change.bytes)
                _ = try FileActions.commit(change.bytes, original: bytes, path: path, destination: .inPlace)
                written = change.bytes
            }
            let decided = try journalled(
                entry, page: page, path: path, now: written ?? bytes, wrote: written != nil, target: target)
            return try item(file, decided, page: page)
        }
    }

    /// What shows the image in `bytes` (or its page `page`) turned by `turn` from how it shows
    /// now, and the change to its bytes that does it (nil when none is needed).
    private static func change(
        _ bytes: [UInt8], page: Int?, by turn: Turn
    ) throws -> (target: Orientation, change: Reorientation.Change?) {
        guard let page else {
            let metadata = try ImageMetadata.read(bytes)
            guard metadata.pageCount == 1 else {
                throw ReviewRefusal(.notTurnable, "the file has \(metadata.pageCount) pages: name the page")
            }
            let target = (metadata.effectiveOrientation ?? .identity).followed(by: turn.transform)
            return (target, try Reorientation.change(showing: target, metadata: metadata, bytes: bytes, mode: .tag))
        }
        do {
            let target = try Reorientation.shown(page: page, in: bytes).followed(by: turn.transform)
            return (target, try Reorientation.change(page: page, showing: target, in: bytes))
        } catch let error as DocOrientError where error.code == .unsupportedFormat || error.code == .invalidRequest {
            throw ReviewRefusal(.notTurnable, "\(error.message); nothing was written")
        }
    }

    /// A small JPEG of the file (or of its page `page`) as it shows now, its long side about
    /// `side` pixels: JPEG and HEIF in colour, PNG and TIFF pages in grey, a PDF page's image
    /// as docorient reads it (its stored samples, placed and turned as the page shows them; no
    /// renderer).
    /// - Throws: `ReviewRefusal` for a name outside the folder; `DocOrientError` when no
    ///   preview can be made (a PDF page whose image docorient does not read).
    public func preview(_ file: String, page: Int? = nil, side: Int) throws -> [UInt8] {
        let (_, path) = try entry(for: file)
        let bytes = try FileIO.read(path)
        let shown: PreviewImage
        if let page {
            let preview = try PreviewImage.page(page, of: bytes, side: side)
            shown = preview.stored.transformed(by: preview.shown)
        } else {
            let metadata = try ImageMetadata.read(bytes)
            shown = try PreviewImage(bytes, metadata: metadata, side: side)
                .transformed(by: metadata.effectiveOrientation ?? .identity)
        }
        guard let jpeg = shown.jpeg else {
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

    /// The item of the file `entry` records, or of its page `page`.
    /// - Throws: `ReviewRefusal` `.notTurnable` for a page of a single image, or no page of a
    ///   file of pages; `.notFound` for a page its record does not have.
    private func item(_ file: String, _ entry: JournalEntry, page: Int?) throws -> ReviewItem {
        let pages = entry.pageRecords
        guard let page else {
            guard pages.isEmpty else {
                throw ReviewRefusal(.notTurnable, "the file has \(pages.count) pages: name the page")
            }
            return item(file, entry)
        }
        guard !pages.isEmpty else { throw ReviewRefusal(.notTurnable, "the file is a single image: it has no pages") }
        guard let record = pages.first(where: { $0.number == page }) else {
            throw ReviewRefusal(.notFound, "the file's record has no page \(page)")
        }
        return item(file, entry, record, of: pages.count)
    }

    /// The item of a single image.
    private func item(_ file: String, _ entry: JournalEntry) -> ReviewItem {
        let person = entry.personDecisionStands ? entry.personOrientation : nil
        // One image docorient could read; a file of pages whose record has none failed whole.
        let turnable = entry.verdict != .error && !entry.hashAfter.isEmpty && entry.pageRecords.isEmpty
        return ReviewItem(
            file: file,
            attention: attention(
                entry.verdict, decided: entry.detectedOrientation, entry.confidence,
                byPerson: entry.personDecisionStands),
            verdict: entry.verdict, docorientOrientation: entry.detectedOrientation, confidence: entry.confidence,
            reason: entry.reason, decidedBy: entry.decidedBy, personOrientation: person, version: entry.hashAfter,
            turnable: turnable)
    }

    /// The item of one page of a PDF or multi-page TIFF: turnable when docorient read how the
    /// page shows its image and did not fail on it.
    private func item(
        _ file: String, _ entry: JournalEntry, _ page: (number: Int, record: FixRecord), of count: Int
    ) -> ReviewItem {
        let person = entry.personDecisionStands ? entry.personPages[page.number] : nil
        let record = page.record
        return ReviewItem(
            file: file, page: page.number, pageCount: count,
            attention: attention(
                record.verdict, decided: record.detectedOrientation, record.confidence, byPerson: person != nil),
            verdict: record.verdict, docorientOrientation: record.detectedOrientation, confidence: record.confidence,
            reason: record.reason, decidedBy: person != nil ? .person : .docorient, personOrientation: person,
            version: entry.hashAfter,
            turnable: record.verdict != .error && record.exifOrientation != nil && !entry.hashAfter.isEmpty)
    }

    /// Why a file or page needs a look first; nil once a person decided, and for the rest.
    private func attention(_ verdict: Verdict, decided: Int?, _ confidence: Double, byPerson: Bool) -> String? {
        if byPerson || verdict == .error { return nil }
        if verdict == .undecidable { return "undecidable" }
        if verdict == .disagrees { return "turned against its tag" }
        if decided != nil, confidence < lowConfidence {
            return "low confidence \(String(format: "%.2f", confidence))"
        }
        return nil
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
                    "its original was not kept and cannot be rebuilt, so undo could not give it back; nothing was "
                        + "written"
                )
            }
            original = rebuilt
        }
        try originals.keep(original: original, fixed: fixed)
    }

    /// Records the person's decision: the file's new state, the orientation chosen, who chose.
    private func journalled(
        _ entry: JournalEntry, page: Int?, path: String, now bytes: [UInt8], wrote: Bool, target: Orientation
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
        if let page {
            // The pages a person turned before, unless undo took them back.
            var pages = entry.personDecisionStands ? entry.personPages : [:]
            pages[page] = target.exifValue
            decided.personPages = pages
            decided.personOrientation = nil
        } else {
            decided.personOrientation = target.exifValue
            decided.personPages = [:]
        }
        decided.decidedBy = .person
        decided.updatedAt = ISO8601DateFormatter().string(from: Date())
        try journal.save([decided])
        return decided
    }
}

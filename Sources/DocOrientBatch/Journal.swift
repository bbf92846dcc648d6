import DocOrient
import Foundation
internal import GRDB
import SystemPackage

/// One journalled file: its state after docorient handled it, and what was decided and done.
public struct JournalEntry: Codable, Sendable, Equatable {

    /// The file's absolute path (relative paths are taken from the working directory): the journal's key.
    public var path: String
    /// How the file was handled (stored as the raw value: "tag", "bake", "bake-trim"): a run in
    /// another mode redoes it.
    public var mode: FixMode
    /// The file's length in bytes after docorient handled it.
    public var size: Int
    /// Last content change after docorient handled it (`FileFacts.modified`), in nanoseconds since 1970.
    public var mtimeNs: Int64
    /// Last status change after docorient handled it (`FileFacts.changed`), in nanoseconds since 1970.
    public var ctimeNs: Int64
    /// The inode after docorient handled it, its `UInt64` bit pattern stored as SQLite's signed integer.
    public var inode: Int64
    /// FNV-1a 64 of the content before docorient changed it, 16 hex digits; empty when it could not be read.
    public var hashBefore: String
    /// FNV-1a 64 of the content as docorient left it (equal to `hashBefore` when the file itself
    /// was not rewritten): a copy with this hash is recognised as done, and `undo` restores only
    /// files that still have it.
    public var hashAfter: String
    /// How the evidence related to the original tag (stored as its raw value: "agrees", "disagrees",
    /// "no_tag", "undecidable" or "error").
    public var verdict: Verdict
    /// What was done to the file: a fix's action, or `undone` after `docorient undo` (stored as the
    /// raw value: "none", "tag_rewritten", "baked", "would_rewrite_tag", "would_bake" or "undone").
    public var action: Action
    /// The orientation the file displayed with before (1-8; EXIF, else XMP), nil when it had none.
    public var exifOrientation: Int?
    /// The orientation the text decided (1-8), nil when undecidable or failed.
    public var detectedOrientation: Int?
    /// The decision's calibrated probability, 0...1 (see `FixRecord.confidence`).
    public var confidence: Double
    /// Why the file is undecidable or failed, or a note on the action; nil otherwise.
    public var reason: String?
    /// Wall-clock milliseconds the file took (`FixRecord.elapsedMilliseconds`).
    public var elapsedMs: Double
    /// The full `FixRecord` as JSON (what `--json` printed), for reports.
    public var record: String
    /// `record` as a value; nil when it holds no record.
    public var fixRecord: FixRecord? { try? JSONDecoder().decode(FixRecord.self, from: Data(record.utf8)) }
    /// The records of a PDF's or multi-page TIFF's pages (`FixRecord.pages`) by page number, in
    /// page order; empty for a single image.
    var pageRecords: [(number: Int, record: FixRecord)] {
        (fixRecord?.pages ?? []).compactMap { page in page.page.map { ($0, page) } }
    }
    /// When the row was written, ISO 8601 in UTC ("2026-11-25T10:30:00Z").
    public var updatedAt: String
    /// The path relative to the journal's folder, so that a folder moved or copied with its
    /// journal is still recognised; nil for files outside it (and in journals before v2).
    public var relativePath: String? = nil
    /// Stored as `decided_by`; nil (docorient) in rows `fix` writes and in journals before v3.
    var decider: Decider? = nil
    /// The orientation (1-8) a person chose on the review page (`docorient review`), nil when
    /// docorient decided. `detectedOrientation`, `verdict` and `reason` stay docorient's answer.
    public var personOrientation: Int? = nil
    /// Stored as `person_pages`: JSON, page number to orientation (`{"2":6}`); nil when no
    /// person turned a page.
    var personPagesJSON: String? = nil

    /// The orientation (1-8) a person chose on the review page for each page of a PDF or a
    /// multi-page TIFF they turned, by page number (1 for the first): the orientation the page
    /// shows its image in, as `fix` records a page's. Empty for single images (their decision
    /// is `personOrientation`) and where no person turned a page. Like `personOrientation`, it
    /// stands while `personDecisionStands`.
    public var personPages: [Int: Int] {
        get {
            guard let json = personPagesJSON,
                let object = try? JSONDecoder().decode([String: Int].self, from: Data(json.utf8))
            else { return [:] }
            return Dictionary(uniqueKeysWithValues: object.compactMap { key, value in Int(key).map { ($0, value) } })
        }
        set {
            guard !newValue.isEmpty else {
                personPagesJSON = nil
                return
            }
            let fields = newValue.keys.sorted().map { "\"\($0)\":\(newValue[$0] ?? 0)" }
            personPagesJSON = "{" + fields.joined(separator: ",") + "}"
        }
    }

    /// Who decided the orientation the file shows now: docorient, or a person on the review page.
    /// A later `fix` never decides again over a person (`BatchRunner`), whatever its mode.
    public var decidedBy: Decider {
        get { decider ?? .docorient }
        set { decider = newValue }
    }

    /// Who decided a file's orientation (stored as its raw value in `decided_by`).
    public enum Decider: String, Sendable, Codable, Equatable {
        /// The resolver, in a `fix` run.
        case docorient
        /// A person, with a click on the review page (`docorient review`).
        case person
    }

    /// Whether a person's decision stands for this file: a person decided and `undo` has not
    /// taken it back.
    public var personDecisionStands: Bool { decidedBy == .person && action != .undone }

    enum CodingKeys: String, CodingKey {
        case path, mode, size, inode, verdict, action, confidence, reason, record
        case mtimeNs = "mtime_ns"
        case ctimeNs = "ctime_ns"
        case hashBefore = "hash_before"
        case hashAfter = "hash_after"
        case exifOrientation = "exif_orientation"
        case detectedOrientation = "detected_orientation"
        case elapsedMs = "elapsed_ms"
        case updatedAt = "updated_at"
        case relativePath = "relative_path"
        case decider = "decided_by"
        case personOrientation = "person_orientation"
        case personPagesJSON = "person_pages"
    }

    /// Whether docorient changed the file's bytes (a tag rewritten or added, pixels baked): what
    /// the report lists as changed and `undo` can take back.
    public var changedTheFile: Bool {
        guard case .fixed(let fix) = action else { return false }
        return fix.changesTheFile && hashBefore != hashAfter
    }

    /// What the journal records as done to a file: the fix's action, or that `undo` took it back.
    /// Stored as one text column: the `FixAction` raw value, or "undone".
    public enum Action: Sendable, Equatable, Codable, RawRepresentable, CustomStringConvertible {
        /// What `fix` did (`FixRecord.action`).
        case fixed(FixAction)
        /// `docorient undo` gave the file its original bytes back; the next `fix` in the same
        /// mode leaves it alone until it changes.
        case undone

        /// The stored text: a `FixAction` raw value or "undone"; nil for anything else.
        public init?(rawValue: String) {
            if rawValue == "undone" {
                self = .undone
            } else if let action = FixAction(rawValue: rawValue) {
                self = .fixed(action)
            } else {
                return nil
            }
        }

        /// The stored text ("tag_rewritten", "undone", ...).
        public var rawValue: String {
            switch self {
            case .fixed(let action): return action.rawValue
            case .undone: return "undone"
            }
        }

        /// The stored text, for reports.
        public var description: String { rawValue }
    }

    /// The recorded state, to compare with the file as it is now.
    package var facts: FileFacts {
        FileFacts(size: size, modified: mtimeNs, changed: ctimeNs, inode: UInt64(bitPattern: inode), hash: hashAfter)
    }
}

/// A journal row as a GRDB record: the entry's own coding, columns named by its coding keys.
/// A separate internal type because GRDB is not part of the public API (`internal import`).
struct JournalRow: Codable, FetchableRecord, PersistableRecord {
    /// The SQLite table holding one row per file: `file`.
    static let databaseTableName = "file"
    var entry: JournalEntry

    init(_ entry: JournalEntry) { self.entry = entry }
    init(from decoder: Decoder) throws { entry = try JournalEntry(from: decoder) }
    func encode(to encoder: Encoder) throws { try entry.encode(to: encoder) }
}

/// The batch journal: an SQLite database (GRDB) recording every file a batch handled, so that a
/// second run skips what is done and a run killed at any moment can be resumed.
///
/// Thread-safe (GRDB serialises access); the batch runner writes from one thread.
public final class Journal: Sendable {
    /// The default file name, in the batch root.
    public static let defaultName = ".docorient.sqlite"

    /// Where a command finds the journal it is given: `path` itself, or the default journal in
    /// it when `path` is a folder.
    public static func location(_ path: String) -> String {
        (try? FileStatus(path))?.kind == .directory ? FilePath(path).appending(defaultName).string : path
    }

    /// The database file as given when opened; each entry's `relativePath` is relative to its folder.
    public let path: String
    private let queue: DatabaseQueue

    /// Opens (creating if needed) the journal at `path`.
    public init(path: String, readOnly: Bool = false) throws {
        self.path = path
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(10)
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            if !readOnly {
                // WAL: a reader (docorient report) never blocks the batch, and a kill loses at most
                // the last transaction, whose files the next run re-checks and finds done.
                try queue.writeWithoutTransaction { db in
                    _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                    try db.execute(sql: "PRAGMA synchronous = NORMAL")
                }
                try Self.migrator.migrate(queue)
            }
        } catch let error as DatabaseError {
            throw DocOrientError(.io, "cannot open the journal", path: path, cause: sqliteCause(error))
        }
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "file") { t in
                t.primaryKey("path", .text)
                t.column("mode", .text).notNull()
                t.column("size", .integer).notNull()
                t.column("mtime_ns", .integer).notNull()
                t.column("ctime_ns", .integer).notNull()
                t.column("inode", .integer).notNull()
                t.column("hash_before", .text).notNull()
                t.column("hash_after", .text).notNull()
                t.column("verdict", .text).notNull().indexed()
                t.column("action", .text).notNull()
                t.column("exif_orientation", .integer)
                t.column("detected_orientation", .integer)
                t.column("confidence", .double).notNull()
                t.column("reason", .text)
                t.column("elapsed_ms", .double).notNull()
                t.column("record", .text).notNull()
                t.column("updated_at", .text).notNull()
            }
        }
        migrator.registerMigration("v2: relative paths") { db in
            try db.alter(table: "file") { t in t.add(column: "relative_path", .text).indexed() }
        }
        // NULL in `decided_by` is docorient: every row of an earlier journal, and what `fix`
        // writes; a reader of a journal not yet migrated (a read-only `report`) takes the missing
        // column the same way.
        migrator.registerMigration("v3: a person's decisions") { db in
            try db.alter(table: "file") { t in
                t.add(column: "decided_by", .text)
                t.add(column: "person_orientation", .integer)
            }
        }
        // A person's turns of single pages (a PDF's, a multi-page TIFF's), one JSON object a file.
        migrator.registerMigration("v4: a person's decisions per page") { db in
            try db.alter(table: "file") { t in t.add(column: "person_pages", .text) }
        }
        return migrator
    }

    /// Every entry, keyed by path.
    public func entries() throws -> [String: JournalEntry] {
        do {
            let all = try queue.read { db in try JournalRow.fetchAll(db).map(\.entry) }
            return Dictionary(all.map { ($0.path, $0) }, uniquingKeysWith: { $1 })
        } catch let error as DatabaseError {
            throw DocOrientError(.io, "cannot read the journal", path: path, cause: sqliteCause(error))
        }
    }

    /// The entry of the file at the absolute `path`, nil when the journal has none.
    public func entry(path: String) throws -> JournalEntry? {
        do {
            return try queue.read { db in try JournalRow.filter(key: path).fetchOne(db)?.entry }
        } catch let error as DatabaseError {
            throw DocOrientError(.io, "cannot read the journal", path: self.path, cause: sqliteCause(error))
        }
    }

    /// Records entries in one transaction (insert or replace by path).
    public func save(_ entries: [JournalEntry]) throws {
        guard !entries.isEmpty else { return }
        do {
            try queue.write { db in
                for entry in entries { try JournalRow(entry).save(db) }
            }
        } catch let error as DatabaseError {
            throw DocOrientError(.io, "cannot write the journal", path: path, cause: sqliteCause(error))
        }
    }
}

/// What SQLite said when a journal operation failed: the cause of the `.io` error.
private func sqliteCause(_ error: DatabaseError) -> DocOrientError.Cause {
    .library("sqlite3", error.message ?? "\(error)")
}

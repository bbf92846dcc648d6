import DocOrientBatch
import Foundation
import Testing

/// The SQLite journal on its own: where it lives, and what a new one holds.
struct JournalTests {
    @Test func aFoldersJournalLivesInItAndANewOneIsEmpty() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = Journal.location(folder.path)
        #expect((path as NSString).lastPathComponent == Journal.defaultName)
        let journal = try Journal(path: path)
        #expect(try journal.entries().isEmpty)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    /// A journal written before v3 (no `decided_by`), as `sqlite3` makes one: read as it is by a
    /// read-only reader, and migrated by a writer, its rows still docorient's decisions.
    @Test func aJournalOfVersion2IsStillReadAndMigrated() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = Journal.location(folder.path)
        let schema = """
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('v1'), ('v2: relative paths');
            CREATE TABLE file (path TEXT PRIMARY KEY, mode TEXT NOT NULL, size INTEGER NOT NULL,
              mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, inode INTEGER NOT NULL,
              hash_before TEXT NOT NULL, hash_after TEXT NOT NULL, verdict TEXT NOT NULL, action TEXT NOT NULL,
              exif_orientation INTEGER, detected_orientation INTEGER, confidence DOUBLE NOT NULL, reason TEXT,
              elapsed_ms DOUBLE NOT NULL, record TEXT NOT NULL, updated_at TEXT NOT NULL, relative_path TEXT);
            INSERT INTO file VALUES ('/r/a.jpg', 'tag', 10, 1, 1, 7, 'aa', 'bb', 'disagrees', 'tag_rewritten',
              6, 1, 0.97, NULL, 3.5, '{}', '2026-11-01T00:00:00Z', 'a.jpg');
            """
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [path, schema]
        try sqlite.run()
        sqlite.waitUntilExit()
        try #require(sqlite.terminationStatus == 0)

        let old = try #require(try Journal(path: path, readOnly: true).entries()["/r/a.jpg"])
        #expect(old.decidedBy == .docorient && old.personOrientation == nil)
        #expect(old.action == .fixed(.tagRewritten) && old.relativePath == "a.jpg")

        let journal = try Journal(path: path)
        var entry = try #require(try journal.entries()["/r/a.jpg"])
        #expect(entry == old)
        entry.decidedBy = .person
        entry.personOrientation = 8
        try journal.save([entry])
        let read = try #require(try Journal(path: path, readOnly: true).entry(path: "/r/a.jpg"))
        #expect(read.decidedBy == .person && read.personOrientation == 8 && read.personDecisionStands)
    }
}

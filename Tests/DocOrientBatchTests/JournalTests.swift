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
}

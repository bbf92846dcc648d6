import Foundation
import Testing

/// A folder moved or copied with its journal resumes where it stopped: the journal knows its
/// files by their path relative to it, and by their content.
struct ResumeAfterMoveTests {
    static func names(_ output: CLITests.Output) throws -> Set<String> {
        Set(
            try output.lines.map { line in
                let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return URL(fileURLWithPath: try #require(object["path"] as? String)).lastPathComponent
            })
    }

    @Test func aFolderMovedAfterAHalfDoneBatchResumesReadingOnlyTheFilesNotYetDone() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = dir.appendingPathComponent("receipts")
        try FileManager.default.copyItem(at: CLITests.samples, to: first)
        // Half the batch, as a run stopped half way leaves it: shard 1 of 2 journalled.
        let half = try CLITests.run(CLITests.binary, ["fix", "--json", "--shard", "1/2", first.path])
        #expect(half.status == 0, "\(half.err)")
        let done = try Self.names(half)
        let all = Set(try CLITests.sampleFiles().map { URL(fileURLWithPath: $0).lastPathComponent })
        #expect(done.count > 5 && done.count < all.count)

        // The folder moves; the resume runs under strace, which lists every file it opens.
        let moved = dir.appendingPathComponent("archive-2024")
        try FileManager.default.moveItem(at: first, to: moved)
        let trace = dir.appendingPathComponent("opens.txt").path
        let resume = try CLITests.run(
            "strace", ["-f", "-e", "trace=openat", "-o", trace, CLITests.binary, "fix", "--json", moved.path])
        #expect(resume.status == 0, "\(resume.err)")
        #expect(try Self.names(resume) == all.subtracting(done), "only the files not yet done are handled")
        let opened = Set(
            try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap { line -> String? in
                guard let start = line.range(of: "\"\(moved.path)/"),
                    let end = line[start.upperBound...].firstIndex(of: "\"")
                else { return nil }
                return String(line[start.upperBound..<end])
            }
        ).intersection(all)
        #expect(opened == all.subtracting(done), "done files are recognised without being read")

        // A copy (new inodes and times) is recognised by content: nothing is resolved again.
        let copy = dir.appendingPathComponent("copy")
        try FileManager.default.copyItem(at: moved, to: copy)
        let again = try CLITests.run(CLITests.binary, ["fix", "--json", copy.path])
        #expect(again.status == 0)
        #expect(again.out.isEmpty, "\(again.out.prefix(300))")
        #expect(again.err.contains("\(all.count) files were already handled"))

        // A file changed since it was fixed is looked at again.
        let changed = copy.appendingPathComponent(try #require(done.sorted().first))
        let before = try Data(contentsOf: changed)
        let current = try ReviewReportTests.displays([changed.path])[changed.lastPathComponent]
        #expect(try CLITests.run(CLITests.binary, ["tag", current == 2 ? "4" : "2", changed.path]).status == 0)
        #expect(try Data(contentsOf: changed) != before)
        let third = try CLITests.run(CLITests.binary, ["fix", "--json", copy.path])
        #expect(try Self.names(third) == [changed.lastPathComponent])
    }
}

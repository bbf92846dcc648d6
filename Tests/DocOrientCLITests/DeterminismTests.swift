import Foundation
import Testing

/// The answer for a file is a function of the file and the configuration only: the resolver's
/// work is bounded by what it spends (reads, words, pixels), never by the clock, so a busy
/// machine reads exactly what an idle one reads.
struct DeterminismTests {
    /// `fix --dry-run --json` records in the order printed, without `elapsed_ms` (the one field
    /// that may differ).
    static func records(_ output: CLITests.Output) throws -> [(path: String, record: String)] {
        try output.lines.map { line in
            var record = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            record["elapsed_ms"] = nil
            let path = try #require(record["path"] as? String)
            return (
                path,
                String(
                    decoding: try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]), as: UTF8.self)
            )
        }
    }

    /// Also the order: the second run walks the folder with two workers, whose files finish in
    /// any order, and must print the records in the walker's order (names sorted), as the first
    /// run prints the sorted file list one by one.
    @Test func everySampleGetsTheSameRecordUnderCPULoadAsOnAnIdleMachine() throws {
        let files = try CLITests.sampleFiles()
        #expect(files.count >= 30)
        let quiet = try CLITests.run(CLITests.binary, ["fix", "--dry-run", "--json", "--jobs", "1"] + files)
        #expect(quiet.status == 0, "\(quiet.err)")

        // One busy loop per core, for as long as the second run lasts.
        let burners = (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", "while :; do :; done"]
            return p
        }
        for b in burners { try b.run() }
        defer {
            // SIGKILL: the test runner's threads block SIGTERM, and children inherit the mask.
            for b in burners {
                kill(b.processIdentifier, SIGKILL)
                b.waitUntilExit()
            }
        }
        let loaded = try CLITests.run(
            CLITests.binary, ["fix", "--dry-run", "--json", "--jobs", "2", CLITests.samples.path])
        #expect(loaded.status == 0, "\(loaded.err)")

        let (a, b) = (try Self.records(quiet), try Self.records(loaded))
        #expect(a.map(\.path) == files)
        // The folder's walk names the same files, in the same order.
        #expect(
            b.map { URL(fileURLWithPath: $0.path).standardizedFileURL.path }
                == files.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
        for (x, y) in zip(a, b)
        where x.record.replacingOccurrences(of: x.path, with: "") != y.record.replacingOccurrences(of: y.path, with: "")
        {
            Issue.record("\(x.path): idle \(x.record)\nloaded \(y.record)")
        }
    }
}

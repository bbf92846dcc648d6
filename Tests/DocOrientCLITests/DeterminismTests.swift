import Foundation
import Testing

/// The answer for a file is a function of the file and the configuration only: the resolver's
/// work is bounded by what it spends (reads, words, pixels), never by the clock, so a busy
/// machine reads exactly what an idle one reads.
struct DeterminismTests {
    /// `fix --dry-run --json` records by path, without `elapsed_ms` (the one field that may differ).
    static func records(_ output: CLITests.Output) throws -> [String: String] {
        var byPath: [String: String] = [:]
        for line in output.lines {
            var record = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            record["elapsed_ms"] = nil
            let path = try #require(record["path"] as? String)
            byPath[path] = String(decoding: try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys]), as: UTF8.self)
        }
        return byPath
    }

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
        let loaded = try CLITests.run(CLITests.binary, ["fix", "--dry-run", "--json", "--jobs", "2"] + files)
        #expect(loaded.status == 0, "\(loaded.err)")

        let (a, b) = (try Self.records(quiet), try Self.records(loaded))
        #expect(a.count == files.count)
        #expect(Set(a.keys) == Set(b.keys))
        for path in a.keys.sorted() where a[path] != b[path] {
            Issue.record("\(path): idle \(a[path] ?? "-")\nloaded \(b[path] ?? "-")")
        }
    }
}

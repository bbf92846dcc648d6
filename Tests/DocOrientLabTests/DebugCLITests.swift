import DocOrient
import Foundation
import Testing

/// `docorient-lab debug`: the dumps and the evaluation that were tests switched off by default,
/// now commands of the lab, run on the samples.
struct DebugCLITests {
    @Test func evaluateResolvesEveryRowOfAManifestAndWritesItsTrace() throws {
        let directory = try LabCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let names = ["0000_receipt.jpg", "0003_letter.jpg"]
        for name in names {
            try FileManager.default.copyItem(
                at: LabCLI.samples.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        let manifest = directory.appendingPathComponent("manifest.csv")
        let rows = try CSV.rows(atPath: LabCLI.samples.appendingPathComponent("manifest.csv").path).filter {
            names.contains($0["file"] ?? "")
        }
        try CSV.text(rows).write(to: manifest, atomically: true, encoding: .utf8)
        let out = directory.appendingPathComponent("eval.jsonl")
        let run = try LabCLI.run(
            LabCLI.binary, ["debug", "evaluate", "--manifest", manifest.path, "--out", out.path, "--jobs", "2"])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("evaluation: 2 files"), "\(run.out)")
        let traces = try String(contentsOf: out, encoding: .utf8).split(separator: "\n")
        #expect(traces.count == 2)
    }

    @Test func papersPrintsOneJSONLineAFile() throws {
        let directory = try LabCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try LabCLI.sampleFiles().prefix(2)
        let list = directory.appendingPathComponent("files.txt")
        try files.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        let run = try LabCLI.run(LabCLI.binary, ["debug", "papers", list.path])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.lines.count == 2)
        for line in run.lines {
            let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect((object["paper"] as? [Int])?.count == 4, "\(line)")
        }
    }
}

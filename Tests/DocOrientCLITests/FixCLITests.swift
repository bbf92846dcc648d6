import DocOrient
import Foundation
import Testing

/// `docorient fix` end to end on the committed samples: real JPEGs, real Tesseract.
struct FixCLITests {
    struct Sample {
        var file: String
        var upright: Int
        var decidable: Bool
        var tag: Int?
    }

    static func manifest() throws -> [Sample] {
        try CSV.rows(atPath: CLITests.samples.appendingPathComponent("manifest.csv").path).map {
            Sample(
                file: try #require($0["file"]), upright: try #require($0["upright_orientation"].flatMap(Int.init)),
                decidable: $0["decidable"] == "1", tag: $0["exif_orientation"].flatMap(Int.init))
        }
    }

    /// Copies the named samples into a fresh directory and returns their new paths.
    static func copies(_ samples: [Sample]) throws -> (URL, [String]) {
        let dir = try CLITests.temporaryDirectory()
        let paths = try samples.map { sample -> String in
            let target = dir.appendingPathComponent(sample.file).path
            try FileManager.default.copyItem(
                atPath: CLITests.samples.appendingPathComponent(sample.file).path, toPath: target)
            return target
        }
        return (dir, paths)
    }

    func records(_ output: CLITests.Output) throws -> [[String: Any]] {
        try output.lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func aTagRightFileAgreesAndStaysByteIdentical() throws {
        let sample = try #require(
            try Self.manifest().first { $0.decidable && $0.tag == $0.upright && $0.file.hasSuffix(".jpg") })
        let (dir, paths) = try Self.copies([sample])
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try Data(contentsOf: URL(fileURLWithPath: paths[0]))
        let result = try CLITests.docorient("fix", "--json", paths[0])
        #expect(result.status == 0, "\(result.err)")
        let record = try #require(try records(result).first)
        #expect(record["verdict"] as? String == "agrees")
        #expect(record["action"] as? String == "none")
        #expect(try Data(contentsOf: URL(fileURLWithPath: paths[0])) == before)
    }

    @Test func aTagWrongFileIsFixedByRewritingTheTag() throws {
        let sample = try #require(
            try Self.manifest().first {
                $0.decidable && $0.tag != nil && $0.tag != $0.upright && $0.file.hasSuffix(".jpg")
            })
        let (dir, paths) = try Self.copies([sample])
        defer { try? FileManager.default.removeItem(at: dir) }
        let result = try CLITests.docorient("fix", "--json", paths[0])
        #expect(result.status == 0, "\(result.err)")
        let record = try #require(try records(result).first)
        #expect(record["verdict"] as? String == "disagrees")
        #expect(record["action"] as? String == "tag_rewritten")
        #expect(record["detected_orientation"] as? Int == sample.upright)
        #expect(result.err.contains("is wrong"), "the disagreement is reported on stderr")
        let tag = try CLITests.run("exiftool", ["-n", "-s3", "-Orientation", paths[0]]).out
        #expect(Int(tag.trimmingCharacters(in: .whitespacesAndNewlines)) == sample.upright)
        // A second run finds nothing to do.
        let again = try records(try CLITests.docorient("fix", "--json", paths[0])).first
        #expect(again?["verdict"] as? String == "agrees" && again?["action"] as? String == "none")
    }

    @Test func bakeFixesTheTagWrongFileInThePixels() throws {
        let sample = try #require(
            try Self.manifest().first {
                $0.decidable && $0.tag != nil && $0.tag != $0.upright && $0.upright != 1 && $0.file.hasSuffix(".jpg")
            })
        let (dir, paths) = try Self.copies([sample])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let before = try Data(contentsOf: URL(fileURLWithPath: paths[0]))
        let result = try CLITests.docorient("fix", "--bake", "--trim", "--json", "--output", out.path, paths[0])
        #expect(result.status == 0, "\(result.err)")
        let record = try #require(try records(result).first)
        #expect(record["action"] as? String == "baked")
        #expect(try Data(contentsOf: URL(fileURLWithPath: paths[0])) == before, "--output leaves the original alone")
        let baked = out.appendingPathComponent(sample.file).path
        let tag = try CLITests.run("exiftool", ["-n", "-s3", "-Orientation", baked]).out.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(tag == "1")
        // The baked copy reads as upright with its tag 1.
        let check = try records(try CLITests.docorient("fix", "--dry-run", "--json", baked)).first
        #expect(check?["detected_orientation"] as? Int == 1, "\(String(describing: check))")
    }

    @Test func hardNegativesAreUndecidableAndUntouched() throws {
        let negatives = try Self.manifest().filter { !$0.decidable }
        #expect(negatives.count >= 3)
        let (dir, paths) = try Self.copies(negatives)
        defer { try? FileManager.default.removeItem(at: dir) }
        let before = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let result = try CLITests.run(CLITests.binary, ["fix", "--json"] + paths)
        #expect(result.status == 0, "undecidable is handled: \(result.err)")
        for record in try records(result) {
            #expect(record["verdict"] as? String == "undecidable", "\(record["path"]!)")
            #expect(record["detected_orientation"] is NSNull)
            #expect((record["reason"] as? String)?.isEmpty == false)
        }
        #expect(try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
        #expect(result.err.contains("undecidable"))
    }

    @Test func jsonRecordsCarryEveryKeyWithItsType() throws {
        let samples = try Self.manifest()
        let chosen = [samples.first { $0.decidable }!, samples.first { !$0.decidable }!]
        let (dir, paths) = try Self.copies(chosen)
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("missing.jpg").path
        let report = dir.appendingPathComponent("report.jsonl").path
        let result = try CLITests.run(
            CLITests.binary, ["fix", "--dry-run", "--json", "--report", report] + paths + [missing])
        #expect(result.status == 1, "a missing file is a failure")
        let all = try records(result)
        #expect(all.count == 3)
        for r in all {
            #expect(r["path"] is String)
            #expect(r["exif_orientation"] is NSNull || r["exif_orientation"] is Int)
            #expect(r["detected_orientation"] is NSNull || r["detected_orientation"] is Int)
            #expect(r["confidence"] is Double || r["confidence"] is Int)
            #expect(["agrees", "disagrees", "no_tag", "undecidable", "error"].contains(r["verdict"] as? String ?? ""))
            #expect(
                ["none", "tag_rewritten", "baked", "would_rewrite_tag", "would_bake"].contains(
                    r["action"] as? String ?? ""))
            #expect(r["reason"] is NSNull || r["reason"] is String)
            #expect(r["candidates"] is [Any])
            #expect(r["elapsed_ms"] is Double || r["elapsed_ms"] is Int)
        }
        let decided = all.first { $0["path"] as? String == paths[0] }
        // One candidate when it read as plain text at once (the resolver then reads no other).
        let read = (decided?["candidates"] as? [[String: Any]]) ?? []
        #expect(!read.isEmpty, "a decided file lists the candidates it read")
        #expect(read.first?["orientation"] as? Int == decided?["detected_orientation"] as? Int, "best first")
        for c in (decided?["candidates"] as? [[String: Any]]) ?? [] {
            #expect(c["orientation"] is Int && c["characters"] is Int)
            #expect(
                (c["score"] is Double || c["score"] is Int)
                    && (c["mean_confidence"] is Double || c["mean_confidence"] is Int))
        }
        let failed = all.first { $0["path"] as? String == missing }
        #expect(failed?["verdict"] as? String == "error")
        #expect((failed?["reason"] as? String)?.contains("No such file") == true)
        // The code, the file and the system call underneath, with its errno, all reach the record.
        #expect(failed?["error_code"] as? String == "io")
        let cause = failed?["error_cause"] as? [String: Any]
        #expect(cause?["call"] as? String == "open")
        #expect(cause?["errno"] as? Int == Int(ENOENT))
        #expect(cause?["message"] as? String == "No such file or directory")
        #expect(all.filter { $0["verdict"] as? String != "error" }.allSatisfy { $0["error_cause"] is NSNull })
        let reported = try String(contentsOfFile: report, encoding: .utf8).split(separator: "\n")
        #expect(reported.count == 3, "--report appends the same records")
        #expect(result.err.contains("3 files:"), "a summary ends the run")
    }
}

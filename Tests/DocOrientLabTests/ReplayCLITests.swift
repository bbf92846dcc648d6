import DocOrient
import Foundation
import Testing

/// `docorient-lab replay`: what both readers said of a file, recorded once and replayed through the
/// decision rules, gives the decision `fix` gives; the classifier's thresholds are fitted on such
/// recordings by the rules themselves, not by a copy of them.
struct ReplayCLITests {
    static let committed = LabCLI.repoRoot.appendingPathComponent("Tests/Fixtures/replay/samples.recordings.jsonl")

    /// `fix --dry-run --json` records by path: what a recording's decision must equal.
    static func fixRecords(_ files: [String]) throws -> [String: [String: Any]] {
        let fix = try LabCLI.run(LabCLI.docorient, ["fix", "--dry-run", "--json"] + files)
        #expect(fix.status == 0, "\(fix.err)")
        var byPath: [String: [String: Any]] = [:]
        for line in fix.lines {
            let record = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            byPath[try #require(record["path"] as? String)] = record
        }
        return byPath
    }

    @Test func recordingsOfTheSamplesReplayToTheDecisionsFixGives() throws {
        let files = try LabCLI.sampleFiles()
        let recorded = try LabCLI.run(LabCLI.binary, ["replay", "record"] + files)
        #expect(recorded.status == 0, "\(recorded.err)")
        #expect(recorded.lines.count == files.count)
        let fix = try Self.fixRecords(files)
        var byReader: [String: Int] = [:]
        for line in recorded.lines {
            let recording = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let path = try #require(recording["path"] as? String)
            let decision = try #require(recording["decision"] as? [String: Any])
            let record = try #require(fix[path])
            #expect(decision["orientation"] as? Int == record["detected_orientation"] as? Int, "\(path)")
            #expect(decision["confidence"] as? Double == record["confidence"] as? Double, "\(path)")
            #expect(decision["decidedBy"] as? String == record["decided_by"] as? String, "\(path)")
            // A record gives the reason of an undecidable answer only.
            if decision["orientation"] as? Int == nil {
                #expect(decision["reason"] as? String == record["reason"] as? String, "\(path)")
            }
            byReader[decision["decidedBy"] as? String ?? "undecidable", default: 0] += 1
        }
        // The samples exercise the rules: text answers, classifier answers and undecidable ones.
        #expect(byReader["text", default: 0] > 0 && byReader["undecidable", default: 0] > 0, "\(byReader)")

        let directory = try LabCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("samples.recordings.jsonl")
        try Data(recorded.out.utf8).write(to: file)
        let check = try LabCLI.run(LabCLI.binary, ["replay", "check", file.path])
        #expect(check.status == 0, "\(check.err)")
        #expect(check.out.contains("\(files.count) of \(files.count) recordings replay to their recorded decision"))
    }

    /// `--with` records under a trial calibration, as a model is judged under values that are not
    /// shipped: with `nothingAt` 0 the classifier sees nothing to orient in every sample, so none is
    /// read and none answered; a value the calibration does not have is refused by name.
    @Test func recordingWithATrialCalibrationRecordsUnderIt() throws {
        let files = Array(try LabCLI.sampleFiles().prefix(4))
        let trial = #"{"classifier":{"nothingAt":0}}"#
        let recorded = try LabCLI.run(LabCLI.binary, ["replay", "record", "--with", trial] + files)
        #expect(recorded.status == 0, "\(recorded.err)")
        #expect(recorded.lines.count == files.count)
        for line in recorded.lines {
            let recording = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let decision = try #require(recording["decision"] as? [String: Any])
            #expect(decision["orientation"] == nil, "\(line)")
            #expect((decision["reason"] as? String)?.hasPrefix("the classifier sees nothing to orient") == true)
        }
        let unknown = #"{"classifier":{"nope":1}}"#
        let refused = try LabCLI.run(LabCLI.binary, ["replay", "record", "--with", unknown] + files)
        #expect(refused.status == 2)
        #expect(refused.err.contains("no value classifier.nope"), "\(refused.err)")
    }

    /// The committed recordings (`docorient-lab replay record` of Corpus/samples, made when the rules
    /// last changed) replay to their recorded decisions: a change to the rules that changes one
    /// fails here, and the recordings are made again on purpose.
    @Test func theCommittedRecordingsReplayToTheirDecisions() throws {
        let check = try LabCLI.run(LabCLI.binary, ["replay", "check", Self.committed.path])
        #expect(check.status == 0, "\(check.err)")
        #expect(check.out.contains("recordings replay to their recorded decision"))
    }

    @Test func aRecordingWhoseDecisionTheRulesDoNotGiveIsReported() throws {
        let directory = try LabCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = try String(contentsOf: Self.committed, encoding: .utf8).split(separator: "\n")
        let line = try #require(lines.first)
        var first = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        var decision = try #require(first["decision"] as? [String: Any])
        decision["confidence"] = 0.123
        first["decision"] = decision
        let file = directory.appendingPathComponent("tampered.jsonl")
        try JSONSerialization.data(withJSONObject: first, options: [.sortedKeys]).write(to: file)
        let check = try LabCLI.run(LabCLI.binary, ["replay", "check", file.path])
        #expect(check.status == 1)
        #expect(check.err.contains("recorded") && check.err.contains("replayed"))
        #expect(check.out.contains("0 of 1 recordings replay to their recorded decision"))
    }

    /// The fit reads the truth from the manifest and fits on the fit part only: here the samples
    /// are all "fit", and the values it prints are the rules' own field names.
    @Test func fitPrintsTheFittedValuesAndEachPartsAnswers() throws {
        let fit = try LabCLI.run(
            LabCLI.binary,
            [
                "replay", "fit", "--manifest", LabCLI.samples.appendingPathComponent("manifest.csv").path,
                Self.committed.path,
            ])
        #expect(fit.status == 0, "\(fit.err)")
        let first = try #require(fit.lines.first)
        let values = try #require(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Double])
        let fitted: Set = [
            "nothingAt", "decideAloneAt", "aloneConfidence", "overruleAt", "ocrStandsAt", "trustAt", "agreeAt",
            "agreeConfidence",
        ]
        #expect(Set(values.keys) == fitted)
        #expect(fit.out.contains("narrowAt must exceed"))
        #expect(fit.out.contains("pageMarks must exceed"))
        #expect(
            fit.out.contains("fit text alone: right") && fit.out.contains("fit as shipped: right")
                && fit.out.contains("fit fitted: right"))
    }

    /// The training photos' stored variants (`bench.py --train`: FOLDER__NAME.uT.EXT, T the EXIF
    /// value that shows the photo upright) are matched to their truth by their own manifest and
    /// fitted on with the generated fit part: the samples' fit-part recordings, named as such
    /// variants, give the fitted values and the answers they give as the fit part.
    @Test func trainingPhotosAreMatchedByTheirManifestAndFittedOnLikeTheFitPart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("replay-train-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let manifest = LabCLI.samples.appendingPathComponent("manifest.csv")
        var truth: [String: (upright: String, decidable: Bool)] = [:]
        for row in try CSV.rows(atPath: manifest.path) where row["split"] == "fit" {
            truth[try #require(row["file"])] = (try #require(row["upright_orientation"]), row["decidable"] == "1")
        }
        var trainManifest: [[String: String]] = []
        var renamed: [String] = []
        for line in try String(contentsOf: Self.committed, encoding: .utf8).split(separator: "\n") {
            var recording = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let name = URL(fileURLWithPath: try #require(recording["path"] as? String)).lastPathComponent
            guard let t = truth[name] else {  // held out: matched by the generated manifest as before
                renamed.append(String(line))
                continue
            }
            let set = t.decidable ? "docs" : "nothing"
            let stem = (name as NSString).deletingPathExtension
            trainManifest.append(["file": "\(set)/\(name)", "set": set])
            recording["path"] = "/variants/\(set)__\(stem).u\(t.upright).\((name as NSString).pathExtension)"
            renamed.append(String(decoding: try JSONSerialization.data(withJSONObject: recording), as: UTF8.self))
        }
        let trainCSV = folder.appendingPathComponent("manifest.csv")
        try CSV.text(trainManifest).write(to: trainCSV, atomically: true, encoding: .utf8)
        let recordings = folder.appendingPathComponent("train.recordings.jsonl")
        try (renamed.joined(separator: "\n") + "\n").write(to: recordings, atomically: true, encoding: .utf8)

        let asFit = try LabCLI.run(
            LabCLI.binary, ["replay", "fit", "--manifest", manifest.path, Self.committed.path])
        let asTraining = try LabCLI.run(
            LabCLI.binary,
            ["replay", "fit", "--manifest", manifest.path, "--train-manifest", trainCSV.path, recordings.path])
        #expect(asTraining.status == 0, "\(asTraining.err)")
        #expect(!asTraining.err.contains("match no manifest row"), "\(asTraining.err)")
        #expect(asTraining.lines.first == asFit.lines.first, "the same fitted values")
        let tallies = asFit.lines.filter { $0.hasPrefix("fit ") }
        #expect(tallies.count == 3)
        #expect(
            tallies.map { "training photos " + $0.dropFirst(4) }
                == asTraining.lines.filter { $0.hasPrefix("training photos ") })
    }
}

import DocOrient
import Foundation
import Testing

/// `docorient-lab replay record --reads` and `replay fit-cascade`: what Tesseract reads of every
/// candidate of every text line and window, recorded once, replays through the real cascade to the
/// decision `fix` gives, and the scoring, the cascade's thresholds and the confidence model are
/// fitted on such recordings by that code (`CascadeFit`), on the fit part only.
struct CascadeFitCLITests {
    /// Samples of every kind of ending: the lines decide at once, after reading several candidates
    /// or parts, a mirror, the classifier alone, the windows, the page stage (a sign, two words), the
    /// nothing guard; three of them held out in the manifest (0023, 0029, 0035).
    static let names = [
        "0000_receipt.jpg", "0013_receipt.jpg", "0017_blank.jpg", "0019_twowords.jpg", "0023_label.jpg",
        "0029_sign.jpg", "0031_handnote.jpg", "0033_thermal.jpg", "0035_handnote.jpg",
    ]

    /// The samples' reads, recorded once for both tests (seconds a file): the JSON lines of
    /// `replay record --reads`, or what went wrong.
    static let recorded: Result<String, RecordingFailed> = {
        let files = names.map { LabCLI.samples.appendingPathComponent($0).path }
        guard let run = try? LabCLI.run(LabCLI.binary, ["replay", "record", "--reads"] + files) else {
            return .failure(RecordingFailed(message: "could not run \(LabCLI.binary)"))
        }
        guard run.status == 0, run.lines.count == files.count else {
            return .failure(RecordingFailed(message: "exit \(run.status), \(run.lines.count) lines: \(run.err)"))
        }
        return .success(run.out)
    }()

    struct RecordingFailed: Error { var message: String }

    /// The recorded reads, written to a file in `directory`.
    static func recordReads(into directory: URL) throws -> URL {
        let file = directory.appendingPathComponent("reads.jsonl")
        try Data(try recorded.get().utf8).write(to: file)
        return file
    }

    /// Wherever the replayed lines and windows decide, `fix` gives that decision: the cascade, the
    /// classifier's lead and the rules replayed on recorded reads are the resolver's own. Where they
    /// do not, the live resolver goes on to the page stage, which is not recorded.
    @Test func replayedReadsGiveFixsDecisionWhereverTheLinesAndWindowsDecide() throws {
        let directory = try LabCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = Self.names.map { LabCLI.samples.appendingPathComponent($0).path }
        let reads = try Self.recordReads(into: directory)
        let replay = try LabCLI.run(LabCLI.binary, ["replay", "reads", reads.path])
        #expect(replay.status == 0, "\(replay.err)")
        let fix = try ReplayCLITests.fixRecords(files)
        var compared: [String: Int] = [:]
        for line in replay.lines {
            let replayed = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let path = try #require(replayed["path"] as? String)
            let decision = try #require(replayed["decision"] as? [String: Any])
            let record = try #require(fix[path])
            let decidedBy = decision["decidedBy"] as? String
            let guarded = (decision["reason"] as? String)?.contains("sees nothing to orient") == true
            guard decidedBy != nil || guarded else { continue }  // left to the page stage
            #expect(decision["orientation"] as? Int == record["detected_orientation"] as? Int, "\(path)")
            #expect(decision["confidence"] as? Double == record["confidence"] as? Double, "\(path)")
            #expect(decidedBy == record["decided_by"] as? String, "\(path)")
            compared[guarded ? "guard" : decidedBy!, default: 0] += 1
            if let stage = replayed["stage"] as? String { compared[stage, default: 0] += 1 }
        }
        // Text answers of the lines and of the windows, the classifier's, and the guard's.
        #expect(compared["text", default: 0] >= 3 && compared["classifier", default: 0] >= 1, "\(compared)")
        #expect(compared["windows", default: 0] >= 1 && compared["guard", default: 0] >= 1, "\(compared)")

        // Other values replay without editing the calibration: a text answer needing 0.999 leaves
        // 0013 (0.946 as shipped) to the classifier or undecidable; an unknown value is refused.
        let strict = try LabCLI.run(
            LabCLI.binary, ["replay", "reads", "--with", #"{"confidence":{"decideAt":0.999}}"#, reads.path])
        #expect(strict.status == 0, "\(strict.err)")
        func textAnswers(_ lines: [String]) -> Set<String> {
            Set(
                lines.compactMap { line in
                    guard let r = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        (r["decision"] as? [String: Any])?["decidedBy"] as? String == "text"
                    else { return nil }
                    return URL(fileURLWithPath: r["path"] as? String ?? "").lastPathComponent
                })
        }
        #expect(textAnswers(replay.lines).contains("0013_receipt.jpg"))
        #expect(
            textAnswers(strict.lines) == textAnswers(replay.lines).subtracting(["0013_receipt.jpg", "0023_label.jpg"]))
        let unknown = try LabCLI.run(
            LabCLI.binary, ["replay", "reads", "--with", #"{"confidence":{"decideAtt":0.9}}"#, reads.path])
        #expect(unknown.status == 2 && unknown.err.contains("no value confidence.decideAtt"), "\(unknown.err)")
    }

    /// The fit prints the values it fitted under the calibration's own names (the confidence model
    /// whole, as the calibration's `confidence` section) and each part's answers; the held-out
    /// files are only judged: giving them other truths changes their tallies, never the fitted
    /// values.
    @Test func fitCascadeFitsOnTheFitPartOnlyAndJudgesTheHeldOut() throws {
        let directory = try LabCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reads = try Self.recordReads(into: directory)
        let manifest = LabCLI.samples.appendingPathComponent("manifest.csv")
        let fit = try LabCLI.run(LabCLI.binary, ["replay", "fit-cascade", "--manifest", manifest.path, reads.path])
        #expect(fit.status == 0, "\(fit.err)")
        let first = try #require(fit.lines.first)
        let values = try #require(JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(
            Set(values.keys) == [
                "minWordConfidence", "dictionaryWeight", "earlyExitScore", "earlyExitRatio",
                "singleReadDictionaryWords", "singleReadDictionaryShare", "singleReadDictionaryCharacters",
                "confidence",
            ])
        let confidence = try #require(values["confidence"] as? [String: Double])
        #expect(
            Set(confidence.keys) == [
                "intercept", "bestScore", "secondScore", "margin", "dictionaryWords", "priorAgrees",
                "priorDisagrees", "decideAt", "minScore", "priorMargin",
            ])
        for part in ["fit", "held out"] {
            #expect(
                fit.out.contains("\(part) as shipped: text right") && fit.out.contains("\(part) fitted: text right"))
        }

        // The held-out rows upside down in the manifest: their truths change, the fit must not.
        let changed = try CSV.rows(atPath: manifest.path).map { row in
            guard row["split"] == "holdout" else { return row }
            return row.merging(["upright_orientation": row["upright_orientation"] == "3" ? "1" : "3"]) { _, new in new }
        }
        #expect(changed.contains { $0["split"] == "holdout" })
        let other = directory.appendingPathComponent("manifest.csv")
        try CSV.text(changed).write(to: other, atomically: true, encoding: .utf8)
        let again = try LabCLI.run(LabCLI.binary, ["replay", "fit-cascade", "--manifest", other.path, reads.path])
        #expect(again.status == 0, "\(again.err)")
        #expect(again.lines.first == fit.lines.first, "the same fitted values")
        #expect(
            again.lines.filter { $0.hasPrefix("fit ") } == fit.lines.filter { $0.hasPrefix("fit ") })
        #expect(
            again.lines.filter { $0.hasPrefix("held out ") } != fit.lines.filter { $0.hasPrefix("held out ") })
    }
}

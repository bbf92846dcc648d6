import Foundation
import Testing

@testable import DocOrient

/// Measures the resolver on a generated corpus. Off unless DOCORIENT_EVAL_MANIFEST names a
/// manifest.csv (Corpus/generate.py output), because it takes minutes:
///
///     python3 Corpus/generate.py --seed 11 --count 320 --out /tmp/bench-set
///     DOCORIENT_EVAL_MANIFEST=/tmp/bench-set/manifest.csv DOCORIENT_EVAL_OUT=/tmp/eval.jsonl \
///       swift test -c release -Xswiftc -enable-testing --scratch-path .build-resolver-release \
///       --filter ResolverEvaluation
///
/// DOCORIENT_EVAL_EXHAUSTIVE=1 reads every candidate at every stage (what `docorient replay
/// record --reads` records for `replay fit-cascade`, without the page stage); DOCORIENT_EVAL_JOBS
/// runs that many files at once (timings are per file either way);
/// DOCORIENT_EVAL_CALIBRATION changes calibration values for the run (a JSON object).
struct ResolverEvaluation {
    struct Row: Codable {
        var file: String
        var kind: String
        var truth: Int
        var decidable: Bool
        var prior: Int?
        var answer: Int?
        var confidence: Double
        var margin: Double
        var reason: String?
        var seconds: Double
        var analysisSeconds: Double
        var glyphs: Int
        var textHeight: Double
        var windows: Int
        var depth: Int
        var horizontalPairs: Int
        var verticalPairs: Int
        var evidence: [String: [Evidence]]
        var words: [String: [[RecognizedWord]]]
        var pageEvidence: [String: Evidence]
        var uprightness: [String: Double]
        var candidates: [CandidateScore]
    }

    static var manifest: String? { ProcessInfo.processInfo.environment["DOCORIENT_EVAL_MANIFEST"] }

    @Test(.enabled(if: manifest != nil), .timeLimit(.minutes(60)))
    func evaluateOnManifest() async throws {
        let env = ProcessInfo.processInfo.environment
        let manifestPath = try #require(Self.manifest)
        let directory = (manifestPath as NSString).deletingLastPathComponent
        let lines = try String(contentsOfFile: manifestPath, encoding: .utf8).split(separator: "\n").map(String.init)
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        func column(_ name: String) throws -> Int { try #require(header.firstIndex(of: name)) }
        let (cFile, cTruth, cDecidable, cKind) = (
            try column("file"), try column("upright_orientation"), try column("decidable"), try column("kind")
        )
        var configuration = ResolverConfiguration()
        configuration.exhaustive = env["DOCORIENT_EVAL_EXHAUSTIVE"] == "1"
        if env["DOCORIENT_EVAL_MIRROR"] == "always" { configuration.mirror = .always }
        var calibration = Calibration.embedded
        if let overrides = env["DOCORIENT_EVAL_CALIBRATION"] {
            // A JSON object shaped like Models/calibration.json with only the values to change,
            // e.g. {"analysis": {"windowMaxThreshold": 195}}.
            calibration = try calibration.merging(overrides)
        }
        let resolver = try Resolver(configuration: configuration, calibration: calibration)
        let jobs = Int(env["DOCORIENT_EVAL_JOBS"] ?? "1") ?? 1
        let entries = lines.dropFirst().filter { !$0.isEmpty }.map {
            $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }

        let rows = try await withThrowingTaskGroup(of: Row.self) { group in
            var results: [Row] = []
            var next = 0
            func add(_ group: inout ThrowingTaskGroup<Row, Error>) {
                let fields = entries[next]
                next += 1
                group.addTask {
                    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory + "/" + fields[cFile])))
                    let metadata = try ImageMetadata.read(bytes)
                    let prior = metadata.effectiveOrientation
                    let start = ContinuousClock.now
                    let trace = try resolver.trace(imageBytes: bytes, metadata: metadata, prior: prior)
                    let elapsed = ContinuousClock.now - start
                    let seconds = elapsed.milliseconds / 1000
                    var evidence: [String: [Evidence]] = [:]
                    for (o, list) in trace.evidence { evidence[String(o.exifValue)] = list }
                    var words: [String: [[RecognizedWord]]] = [:]
                    for (o, list) in trace.words { words[String(o.exifValue)] = list }
                    var pageEvidence: [String: Evidence] = [:]
                    for (o, e) in trace.pageEvidence { pageEvidence[String(o.exifValue)] = e }
                    var uprightness: [String: Double] = [:]
                    for (o, u) in trace.uprightness { uprightness[String(o.exifValue)] = u }
                    return Row(
                        file: fields[cFile], kind: fields[cKind], truth: Int(fields[cTruth]) ?? 0,
                        decidable: fields[cDecidable] == "1", prior: prior?.exifValue,
                        answer: trace.decision.orientation?.exifValue, confidence: trace.decision.confidence,
                        margin: trace.decision.margin, reason: trace.decision.reason, seconds: seconds,
                        analysisSeconds: trace.analysisSeconds,
                        glyphs: trace.glyphs, textHeight: trace.textHeight, windows: trace.windows,
                        depth: trace.depth, horizontalPairs: trace.horizontalPairs,
                        verticalPairs: trace.verticalPairs, evidence: evidence, words: words,
                        pageEvidence: pageEvidence,
                        uprightness: uprightness,
                        candidates: trace.decision.candidates)
                }
            }
            for _ in 0..<min(jobs, entries.count) { add(&group) }
            while let row = try await group.next() {
                results.append(row)
                if next < entries.count { add(&group) }
            }
            return results.sorted { $0.file < $1.file }
        }

        if let out = env["DOCORIENT_EVAL_OUT"] {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var text = ""
            for row in rows { text += String(decoding: try encoder.encode(row), as: UTF8.self) + "\n" }
            try text.write(toFile: out, atomically: true, encoding: .utf8)
        }
        let decidable = rows.filter(\.decidable)
        let right = decidable.filter { $0.answer == $0.truth }.count
        let wrong = decidable.filter { $0.answer != nil && $0.answer != $0.truth }
        let confidentWrong = wrong.filter { $0.confidence > 0.9 }.count
        let negatives = rows.filter { !$0.decidable }
        let abstained = negatives.filter { $0.answer == nil }.count
        let times = rows.map(\.seconds).sorted()
        guard !times.isEmpty else { Issue.record("no files in \(manifestPath)"); return }
        print(
            """
            evaluation: \(rows.count) files
              decidable right \(right)/\(decidable.count), wrong \(wrong.count) (\(confidentWrong) above 0.9), \
            undecided \(decidable.count - right - wrong.count)
              hard negatives undecidable \(abstained)/\(negatives.count)
              time median \(times[times.count / 2]) s, p90 \(times[times.count * 9 / 10]) s, max \(times.last ?? 0) s
            """)
        for row in wrong {
            print("  wrong: \(row.file) truth \(row.truth) answer \(row.answer ?? 0) conf \(row.confidence)")
        }
    }
}

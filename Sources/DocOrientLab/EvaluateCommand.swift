import ArgumentParser
import DocOrient
import Foundation

extension DebugCommand {
    /// `debug evaluate`: the live resolver on a generated set (Corpus/generate.py), with each file's
    /// trace written out: the measurement the decision pages cite.
    struct Evaluate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resolve every file of a generated set's manifest; print the tally, write each file's trace.",
            discussion: """
                Example:
                  python3 Corpus/generate.py --seed 11 --count 320 --out /tmp/bench-set
                  swift build -c release
                  .build/release/docorient-lab debug evaluate --manifest /tmp/bench-set/manifest.csv \\
                      --out /tmp/eval.jsonl
                """)

        /// One file's answer and what the resolver read of it.
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

        @Option(help: ArgumentHelp("The set's manifest.csv (Corpus/generate.py).", valueName: "CSV"))
        var manifest: String

        @Option(help: ArgumentHelp("Write each file's row (a JSON line) here.", valueName: "FILE"))
        var out: String?

        @Option(help: ArgumentHelp("Files resolved at once (timings are per file either way).", valueName: "N"))
        var jobs = 1

        @Flag(
            help: "Read every candidate at every stage (what `replay record --reads` records, with the page stage).")
        var exhaustive = false

        @Flag(help: "Read the mirrored orientations too, as `fix --mirror` does.")
        var mirror = false

        @Option(name: .customLong("with"), help: ArgumentHelp(withHelp, valueName: "JSON"))
        var overrides: String?

        func run() throws {
            let directory = (manifest as NSString).deletingLastPathComponent
            let entries = try CSV.rows(atPath: manifest)
            var configuration = ResolverConfiguration()
            configuration.exhaustive = exhaustive
            if mirror { configuration.mirror = .always }
            let calibration = try overrides.map { try Calibration.embedded.merging($0) } ?? .embedded
            let resolver = try Resolver(configuration: configuration, calibration: calibration)
            let results = Rows(count: entries.count)
            DispatchQueue.concurrentPerform(iterations: max(1, jobs)) { worker in
                for i in stride(from: worker, to: entries.count, by: max(1, jobs)) {
                    results.set(i, Result { try Self.row(entries[i], in: directory, resolver: resolver) })
                }
            }
            let rows = try results.all().sorted { $0.file < $1.file }
            if let out {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                let text = try rows.map { String(decoding: try encoder.encode($0), as: UTF8.self) + "\n" }.joined()
                try text.write(toFile: out, atomically: true, encoding: .utf8)
            }
            print(Self.tally(rows))
        }

        /// Resolves one manifest row's file.
        static func row(_ entry: [String: String], in directory: String, resolver: Resolver) throws -> Row {
            let file = entry["file"] ?? ""
            let bytes = try FileIO.read(directory + "/" + file)
            let metadata = try ImageMetadata.read(bytes)
            let prior = metadata.effectiveOrientation
            let start = ContinuousClock.now
            let trace = try resolver.trace(imageBytes: bytes, metadata: metadata, prior: prior)
            let elapsed = (ContinuousClock.now - start).components
            let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
            func byExif<V>(_ values: [Orientation: V]) -> [String: V] {
                Dictionary(uniqueKeysWithValues: values.map { (String($0.key.exifValue), $0.value) })
            }
            let d = trace.decision
            return Row(
                file: file, kind: entry["kind"] ?? "", truth: Int(entry["upright_orientation"] ?? "") ?? 0,
                decidable: entry["decidable"] == "1", prior: prior?.exifValue, answer: d.orientation?.exifValue,
                confidence: d.confidence, margin: d.margin, reason: d.reason, seconds: seconds,
                analysisSeconds: trace.analysisSeconds, glyphs: trace.glyphs, textHeight: trace.textHeight,
                windows: trace.windows, depth: trace.depth, horizontalPairs: trace.horizontalPairs,
                verticalPairs: trace.verticalPairs, evidence: byExif(trace.evidence), words: byExif(trace.words),
                pageEvidence: byExif(trace.pageEvidence), uprightness: byExif(trace.uprightness),
                candidates: d.candidates)
        }

        /// Right, wrong and undecided answers, hard negatives left undecidable, and the times.
        static func tally(_ rows: [Row]) -> String {
            let decidable = rows.filter(\.decidable)
            let right = decidable.filter { $0.answer == $0.truth }.count
            let wrong = decidable.filter { $0.answer != nil && $0.answer != $0.truth }
            let confidentWrong = wrong.filter { $0.confidence > 0.9 }.count
            let negatives = rows.filter { !$0.decidable }
            let abstained = negatives.filter { $0.answer == nil }.count
            let times = rows.map(\.seconds).sorted()
            guard !times.isEmpty else { return "evaluation: no files" }
            var lines = [
                "evaluation: \(rows.count) files",
                "  decidable right \(right)/\(decidable.count), wrong \(wrong.count) (\(confidentWrong) above 0.9), "
                    + "undecided \(decidable.count - right - wrong.count)",
                "  hard negatives undecidable \(abstained)/\(negatives.count)",
                "  time median \(times[times.count / 2]) s, p90 \(times[times.count * 9 / 10]) s, max \(times.last!) s",
            ]
            for row in wrong {
                lines.append("  wrong: \(row.file) truth \(row.truth) answer \(row.answer ?? 0) conf \(row.confidence)")
            }
            return lines.joined(separator: "\n")
        }
    }
}

/// The rows of an evaluation, filled by several workers at once.
private final class Rows: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Result<DebugCommand.Evaluate.Row, Error>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    func set(_ i: Int, _ result: Result<DebugCommand.Evaluate.Row, Error>) {
        lock.withLock { results[i] = result }
    }

    /// Every row, or the first error.
    func all() throws -> [DebugCommand.Evaluate.Row] {
        try lock.withLock { try results.map { try $0!.get() } }
    }
}

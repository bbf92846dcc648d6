import ArgumentParser
import DocOrient
import DocOrientCommandLine
import Foundation

/// Records what both readers said of files and replays it through the decision rules: the
/// classifier's thresholds are fitted here, by the rules that apply them (`ClassifierFit`), not by
/// a copy of them. For fitting and its tests, not for everyday use.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Record the readers' readings, replay them through the rules, fit the rules' thresholds.",
        discussion: """
            Examples:
              docorient-lab replay record Corpus/samples/*.jpg > samples.recordings.jsonl
              docorient-lab replay record --without-nothing-guard SET/*.jpg > fit.jsonl
              docorient-lab replay check samples.recordings.jsonl
              docorient-lab replay fit --manifest SET/manifest.csv --real-manifest ../shared/real/manifest.csv \\
                  fit.jsonl holdout.jsonl real.jsonl
              docorient-lab replay record --reads SET/*.jpg > reads.jsonl
              docorient-lab replay fit-cascade --manifest SET/manifest.csv reads.jsonl
            """,
        subcommands: [Record.self, Check.self, Fit.self, Reads.self, FitCascade.self])

    /// `docorient-lab replay record`: one recording per file on stdout.
    struct Record: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Resolve each file and print what the rules weighed (one JSON line per file).")

        @Option(help: ArgumentHelp("The classifier's model file.", valueName: "FILE"))
        var classifier: String?

        @Flag(help: "Never stop for nothing to orient: record every file's text reading (for `replay fit`).")
        var withoutNothingGuard = false

        @Flag(
            help: ArgumentHelp(
                "Record every candidate of every text line and window read, with no budget and no nothing guard "
                    + "(for `replay fit-cascade`; minutes a file set)."))
        var reads = false

        @Option(name: .customLong("with"), help: ArgumentHelp(withHelp, valueName: "JSON"))
        var overrides: String?

        @Argument(help: "Image files (JPEG, PNG, TIFF, HEIF).")
        var paths: [String]

        func run() throws {
            let resolver = try labResolver(
                classifier: classifier, withoutNothingGuard: withoutNothingGuard, recordingReads: reads,
                calibration: try calibration(overrides))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try forEachFile(paths, command: "docorient-lab") { path in
                let bytes = try FileIO.read(path)
                let line =
                    reads
                    ? try encoder.encode(try resolver.recordReads(bytes, path: path))
                    : try encoder.encode(try resolver.record(bytes, path: path))
                print(String(decoding: line, as: UTF8.self))
            }
        }
    }

    /// `docorient-lab replay check`: the recorded decisions are what the rules give again.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay recordings through the rules and report any decision that differs (exit 1).")

        @Argument(help: "Recordings (JSON lines of `docorient-lab replay record`).")
        var recordings: [String]

        func run() throws {
            var differ = 0
            var count = 0
            for recording in try recordings.flatMap({ try readJSONLines($0, as: Recording.self) }) {
                count += 1
                let again = recording.replayed()
                guard again != recording.decision else { continue }
                differ += 1
                printError("docorient-lab: \(recording.path): recorded \(recording.decision), replayed \(again)")
            }
            print("\(count - differ) of \(count) recordings replay to their recorded decision")
            if differ > 0 { throw ExitCode(1) }
        }
    }

    /// `docorient-lab replay fit`: the classifier's thresholds fitted on the fit part, judged on the others.
    struct Fit: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fit the classifier's thresholds on the fit part of a generated set; judge them on the others.",
            discussion: """
                Each recording is matched to its truth by file name: a generated set's rows by its \
                manifest (split fit or holdout; no split column: fit), the real set's stored variants \
                (NAME.uT.EXT, as Benchmarks/orientation/bench.py --real-dir writes them) by the real \
                manifest, the training photos' (bench.py --train: FOLDER__NAME.uT.EXT) by theirs. Only \
                the fit part is fitted on: the generated fit rows and the training photos. Prints the \
                fitted values as JSON (for \
                Models/calibration.json), the floors narrowAt and pageMarks must stay above, and each part's \
                answers with the text alone, as shipped and with the fitted values.
                """)

        @OptionGroup var manifests: Manifests

        @Option(name: .customLong("with"), help: ArgumentHelp(withHelp, valueName: "JSON"))
        var overrides: String?

        @Argument(help: "Recordings (JSON lines of `docorient-lab replay record`), any parts.")
        var recordings: [String]

        func run() throws {
            let (parts, fitRows) = try manifests.truths().parts(
                try recordings.flatMap { try readJSONLines($0, as: Recording.self) }, path: \.path)
            let fit = ClassifierFit(base: try calibration(overrides))
            let fitted = fit.fit(fitRows)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(fitted), as: UTF8.self))
            print(
                "narrowAt must exceed \(fit.narrowFloor(fitRows)): the classifier's highest probability for a "
                    + "rotation neither right nor on a mirrored page's axis, on the fit part")
            print(
                "pageMarks must exceed \(fit.pageMarksFloor(fitRows, nothingAt: fitted.nothingAt)): the most "
                    + "letter-like marks of a hard negative of the fit part that the nothing guard leaves to the rules")
            for part in Truths.parts {
                guard let rows = parts[part] else { continue }
                for (label, values) in [
                    ("text alone", ClassifierFit.Thresholds.textAlone),
                    (overrides == nil ? "as shipped" : "as given", .shipped),
                    ("fitted", .fitted(fitted)),
                ] {
                    let t = fit.tally(rows, values)
                    let readers = t.byReader.keys.sorted().map {
                        "\($0) \(t.byReader[$0]!.right)/\(t.byReader[$0]!.wrong)"
                    }
                    print(
                        "\(part) \(label): right \(t.right)/\(t.decidable), wrong \(t.wrong) (>= 0.9: "
                            + "\(t.confidentWrong)), "
                            + "undecided \(t.undecided), textless answered \(t.negativesAnswered)/\(t.negatives) "
                            + "(scenes answered upright \(t.scenesUpright)); "
                            + "right/wrong by reader: \(readers.joined(separator: ", "))")
                    if label == "fitted" { for w in t.wrongFiles { print("    wrong: \(w)") } }
                }
            }
        }
    }
    /// `docorient-lab replay reads`: recorded reads replayed with the shipped rules, a line per file.
    struct Reads: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replay recorded reads through the cascade and the rules as shipped (one JSON line per file).",
            discussion: """
                Each line: the file, the decision (orientation, confidence, decidedBy, reason), the stack \
                whose reading gave the text's decision (stage: lines or windows; none where no stack was \
                read) and the parts read. Where the live resolver's text lines and windows decide, this is \
                its decision; the page stage is not replayed.
                """)

        @Option(name: .customLong("with"), help: ArgumentHelp(withHelp, valueName: "JSON"))
        var overrides: String?

        @Argument(help: "Recordings (JSON lines of `docorient-lab replay record --reads`).")
        var recordings: [String]

        func run() throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let fit = try cascadeFit(overrides)
            for path in recordings {
                for recording in try readJSONLines(path, as: ReadsRecording.self) {
                    print(String(decoding: try encoder.encode(fit.replayed(recording)), as: UTF8.self))
                }
            }
        }
    }

    /// `docorient-lab replay fit-cascade`: the scoring, the cascade's thresholds and the confidence
    /// model fitted on the fit part's recorded reads (`CascadeFit`), judged on the others.
    struct FitCascade: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "fit-cascade",
            abstract: "Fit the scoring, the cascade's early exit and the confidence model on recorded reads.",
            discussion: """
                Replays `docorient-lab replay record --reads` recordings through the cascade, the classifier's \
                lead and the rules themselves. Files are matched to their truth as `replay fit` matches \
                them; only the fit part is fitted on. Prints the fitted values as JSON (for \
                Models/calibration.json `scoring`, `cascade`, `confidence`), then each part's text \
                answers, wrong winners, reads per file and reliability, as shipped and fitted.
                """)

        @OptionGroup var manifests: Manifests

        @Flag(help: "Search a one-point grid (the shipped values): fits the confidence model and decideAt only.")
        var shippedGrid = false

        @Flag(help: "Keep the plain-text rule (singleReadDictionary*) as shipped (decision 2); search the rest.")
        var keepPlainTextRule = false

        @Option(name: .customLong("with"), help: ArgumentHelp(withHelp, valueName: "JSON"))
        var overrides: String?

        @Argument(help: "Recordings (JSON lines of `docorient-lab replay record --reads`), any parts.")
        var recordings: [String]

        func run() throws {
            let (parts, fitRows) = try manifests.truths().parts(
                try recordings.flatMap { try readJSONLines($0, as: ReadsRecording.self) }, path: \.path)
            let fit = try cascadeFit(overrides)
            let grid =
                shippedGrid ? fit.shippedGrid : keepPlainTextRule ? fit.gridKeepingThePlainTextRule : CascadeFit.Grid()
            let fitted = fit.fit(fitRows, grid: grid)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            print(String(decoding: try encoder.encode(fitted), as: UTF8.self))
            for part in Truths.parts {
                guard let rows = parts[part] else { continue }
                for (label, values) in [(overrides == nil ? "as shipped" : "as given", nil), ("fitted", fitted)]
                    as [(String, CascadeFit.Fitted?)]
                {
                    let t = fit.tally(rows, values)
                    let reads = t.reads.sorted()
                    let median = reads.isEmpty ? 0 : reads[reads.count / 2]
                    let mean = reads.isEmpty ? 0 : Double(reads.reduce(0, +)) / Double(reads.count)
                    print(
                        "\(part) \(label): text right \(t.right)/\(t.decidable), wrong \(t.wrong) (>= 0.9: "
                            + "\(t.confidentWrong)), undecided \(t.undecided), negatives answered "
                            + "\(t.negativesAnswered)/\(t.negatives); wrong winners \(t.wrongWinners); with the "
                            + "classifier right \(t.finalRight), wrong \(t.finalWrong), negatives answered "
                            + "\(t.negativesAnsweredFinally)/\(t.negatives); reads per file median "
                            + "\(median), mean \(String(format: "%.1f", mean))")
                    let bins = t.bins.keys.sorted().map {
                        "\(Double($0) / 10): \(t.bins[$0]!.right)/\(t.bins[$0]!.files)"
                    }
                    print("  reliability (confidence from: winners right/files): \(bins.joined(separator: ", "))")
                    if label == "fitted" { for w in t.wrongFiles { print("    wrong: \(w)") } }
                }
            }
        }
    }
}

/// What `--with` does for the replays of recorded reads.
let withHelp =
    "Record, replay or fit with these calibration values instead of the shipped ones (a JSON object shaped like "
    + "Models/calibration.json with only the values to change), e.g. '{\"classifier\":{\"narrowAt\":0.9}}'."

/// The shipped calibration with `overrides` put in (`--with`): what a recording is made under and
/// a fit starts from; a recording made with `--with` is fitted with the same `--with`, since the
/// reads it holds are those that calibration asked for.
private func calibration(_ overrides: String?) throws -> Calibration {
    guard let overrides else { return .embedded }
    do {
        return try Calibration.embedded.merging(overrides)
    } catch let error as DocOrientError {
        printError("docorient-lab: \(error)")
        throw ExitCode(2)
    }
}

/// The fit of recorded reads, from the shipped calibration with `overrides` put in.
private func cascadeFit(_ overrides: String?) throws -> CascadeFit {
    guard let overrides else { return CascadeFit() }
    do {
        return try CascadeFit(overrides: overrides)
    } catch let error as DocOrientError {
        printError("docorient-lab: \(error)")
        throw ExitCode(2)
    }
}

/// The manifests the fits match recordings to their truths by (`Truths`).
struct Manifests: ParsableArguments {
    @Option(help: ArgumentHelp("A generated set's manifest.csv (Corpus/generate.py).", valueName: "CSV"))
    var manifest: String

    @Option(
        help: ArgumentHelp(
            "The real set's manifest.csv (../shared/real/manifest.csv, beside the checkout).", valueName: "CSV"))
    var realManifest: String?

    @Option(
        help: ArgumentHelp(
            "The training photos' manifest.csv (../shared/train/manifest.csv): their stored variants "
                + "are fitted on with the generated fit part.", valueName: "CSV"))
    var trainManifest: String?

    @Option(
        help: ArgumentHelp(
            "The real photos with nothing to orient's manifest.csv (../shared/real/nothing/manifest.csv): "
                + "their stored variants (bench.py --real-dir's nothing/) are judged as a part of their own.",
            valueName: "CSV"))
    var nothingManifest: String?

    func truths() throws -> Truths {
        try Truths(
            manifest: manifest, realManifest: realManifest, trainManifest: trainManifest,
            nothingManifest: nothingManifest)
    }
}

/// Each recorded file's truth, decidability and part, by its file name: a generated set's rows by
/// its manifest (split fit or holdout; no split column: fit), the real set's stored variants
/// (NAME.uT.EXT, as Benchmarks/orientation/bench.py --real-dir writes them) by the real manifest,
/// the training photos' (bench.py --train: FOLDER__NAME.uT.EXT) by theirs, and the real photos
/// with nothing to orient (nothing/NAME.uT.EXT) by theirs.
struct Truths {
    /// The parts a fit may look at.
    static let fitParts = ["fit", "training photos"]
    /// Every part, in the order reports list them.
    static let parts = ["fit", "training photos", "held out", "real", "real nothing photos"]

    /// The kinds of textless file that have an up (a scene, an animal, an object, food: answering
    /// their own upright is harmless), as Corpus/corpusgen/kinds.py's `has_up_without_text` names
    /// them for the generated set (`photo`) and the manifests of ../shared (the others).
    static let scenes: Set = ["photo", "scene", "animal", "object", "food"]

    /// Whether a manifest's file has an up: a page, or a textless scene of kind `kind`.
    static func hasUp(page: Bool, kind: String?) -> Bool { page || scenes.contains(kind ?? "") }

    private var byName: [String: (truth: Int, decidable: Bool, hasUp: Bool, part: String)] = [:]

    init(manifest: String, realManifest: String?, trainManifest: String?, nothingManifest: String? = nil) throws {
        for row in try CSV.rows(atPath: manifest) {
            guard let file = row["file"], let t = row["upright_orientation"].flatMap(Int.init) else { continue }
            let decidable = row["decidable"] == "1"
            byName[file] = (
                t, decidable, Self.hasUp(page: decidable, kind: row["kind"]),
                row["split"] == "holdout" ? "held out" : "fit"
            )
        }
        if let realManifest {
            for row in try CSV.rows(atPath: realManifest) {
                guard let file = row["file"] else { continue }
                let decidable = row["decidable"] == "1"
                for v in storedVariants(of: file) { byName[v.name] = (v.truth, decidable, decidable, "real") }
            }
        }
        if let trainManifest {  // stored upright: every page decidable
            for row in try CSV.rows(atPath: trainManifest) {
                guard let file = row["file"] else { continue }
                let page = row["set"] == "docs"
                for v in storedVariants(of: file) {
                    byName[v.name] = (
                        v.truth, page, Self.hasUp(page: page, kind: row["kind"]), "training photos"
                    )
                }
            }
        }
        if let nothingManifest {  // nothing to orient: never decidable, a scene has an up
            for row in try CSV.rows(atPath: nothingManifest) {
                guard let file = row["file"] else { continue }
                let scene = Self.hasUp(page: false, kind: row["kind"])
                for v in storedVariants(of: file) { byName[v.name] = (v.truth, false, scene, "real nothing photos") }
            }
        }
    }

    /// `recordings` with their truths, by part, and those of the fit parts; says how many match
    /// no manifest row (left out).
    /// - Throws: `ExitCode(1)` when none is of a fit part: nothing to fit on.
    func parts<R: Sendable>(
        _ recordings: [R], path: KeyPath<R, String>
    ) throws -> (
        parts: [String: [Labelled<R>]], fit: [Labelled<R>]
    ) {
        var parts: [String: [Labelled<R>]] = [:]
        var unmatched = 0
        for recording in recordings {
            guard let t = self[recording[keyPath: path]] else {
                unmatched += 1
                continue
            }
            parts[t.part, default: []].append(
                Labelled(recording: recording, truth: t.truth, decidable: t.decidable, hasUp: t.hasUp))
        }
        if unmatched > 0 { printError("docorient-lab: \(unmatched) recordings match no manifest row: left out") }
        let fit = Self.fitParts.flatMap { parts[$0] ?? [] }
        guard !fit.isEmpty else {
            printError("docorient-lab: no recording of the fit part: nothing to fit on")
            throw ExitCode(1)
        }
        return (parts, fit)
    }

    /// The truth of the file at `path`, matched by its name; nil for none.
    subscript(path: String) -> (truth: Int, decidable: Bool, hasUp: Bool, part: String)? {
        byName[URL(fileURLWithPath: path).lastPathComponent]
    }
}

/// The names Benchmarks/orientation/bench.py gives the stored variants of a manifest's `file`
/// (`real_entries`): FOLDER__NAME.uT.EXT, T the EXIF value that shows the variant upright, EXT the
/// source's (PNG stays PNG) or jpg.
private func storedVariants(of file: String) -> [(name: String, truth: Int)] {
    let stem = (file as NSString).deletingPathExtension.replacingOccurrences(of: "/", with: "__")
    return (1...8).flatMap { t in
        Set([(file as NSString).pathExtension, "jpg"]).map { ext in ("\(stem).u\(t).\(ext)", t) }
    }
}

/// The values of a JSON-lines file, one a line.
private func readJSONLines<T: Decodable>(_ path: String, as type: T.Type) throws -> [T] {
    let decoder = JSONDecoder()
    return try String(decoding: FileIO.read(path), as: UTF8.self)
        .split(separator: "\n").filter { $0.hasPrefix("{") }
        .map { try decoder.decode(T.self, from: Data($0.utf8)) }
}

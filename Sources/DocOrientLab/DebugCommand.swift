import ArgumentParser
import DocOrient
import DocOrientCommandLine
import Foundation

/// What the analysis sees of a file, dumped for a person to look at, and the live resolver
/// measured on a generated set: the tools behind the figures on the decision pages.
struct DebugCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug",
        abstract: "Dump what the analysis sees of a file; measure the resolver on a generated set.",
        discussion: """
            Examples:
              docorient-lab debug analysis --out /tmp scan.jpg
              docorient-lab debug analysis --region 100,200,600,80,2,40 scan.jpg
              docorient-lab debug probe --side 1024 scan.jpg
              docorient-lab debug papers files.txt > papers.jsonl
              docorient-lab debug evaluate --manifest /tmp/bench-set/manifest.csv --out /tmp/eval.jsonl
            """,
        subcommands: [Analysis.self, ProbeSteps.self, Papers.self, Skews.self, Evaluate.self])

    /// `debug analysis`: the analysis image, its text windows or lines and the page stage's images
    /// as PNGs, and what Tesseract reads of each window in the four rotations.
    struct Analysis: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write the analysis image, its windows (or lines) and the coarse page as PNGs; read each window.")

        @Option(help: ArgumentHelp("Where the PNGs go (resolver-debug-*.png).", valueName: "DIR"))
        var out = "/tmp"

        @Option(help: ArgumentHelp("Cut the page's N longest text lines instead of windows.", valueName: "N"))
        var lines = 0

        @Option(
            help: ArgumentHelp(
                "A JPEG's region in stored pixels, read after an upscale, a background tile and optional quarter "
                    + "turns, binarised every way the analysis can (x,y,w,h,scale,tile[,turns]).",
                valueName: "SPEC"))
        var region: String?

        @Option(
            help: ArgumentHelp("Directory with eng.traineddata (default: as docorient finds it).", valueName: "DIR"))
        var tessdata: String?

        @Argument(help: "The image file.")
        var file: String

        func run() throws {
            let bytes = try FileIO.read(file)
            let engine = try TesseractEngine(
                datapath: try ModelLocator.locate(explicit: tessdata, languages: "eng"), languages: "eng")
            if let region { try readRegion(region, of: bytes, engine: engine) }
            try dumpAnalysis(bytes, engine: engine)
        }

        func write(_ pix: borrowing Pix, _ name: String) throws {
            try Data(pix.encodedPNG()).write(
                to: URL(fileURLWithPath: out).appendingPathComponent("resolver-debug-\(name).png"))
        }

        /// The region read after each binarisation the analysis can make of it.
        func readRegion(_ spec: String, of bytes: [UInt8], engine: TesseractEngine) throws {
            let v = spec.split(separator: ",").compactMap { Double($0) }
            guard v.count >= 6 else { throw ValidationError("--region takes x,y,w,h,scale,tile[,turns]") }
            let scoring = Calibration.embedded.scoring
            let full = try Pix.gray(TurboJPEG.decodeGray(bytes, minimumLongSide: 100_000, maxPixels: 100_000_000))
            let cut = try full.cropped(to: PixelBox(x: Int(v[0]), y: Int(v[1]), width: Int(v[2]), height: Int(v[3])))
            let big = try cut.scaled(by: v[4]).rotated(quarterTurns: v.count > 6 ? Int(v[6]) : 0)
            func report(_ name: String, _ pix: borrowing Pix) throws {
                try write(pix, name)
                let words = try engine.recognize(
                    pix, mode: .singleBlock, meter: WorkMeter(budget: .unlimited), maxWords: .max)
                let e = Evidence(words: words, weights: scoring)
                print(
                    name, "score", e.score(scoring), "dict", e.dictionaryWords,
                    words.prefix(12).map { "\($0.text)/\(Int($0.confidence))" }.joined(separator: " "))
            }
            try report("gray", big)
            let tile = Int(v[5])
            let norm = try big.backgroundNormalized(tile: tile)
            try report("norm", norm)
            for t in [140, 160, 180] { try report("thr\(t)", try norm.thresholded(t)) }
            try report("otsu", try big.otsuOnNormalizedBackground(tile: tile))
        }

        /// The analysis image as the resolver cuts it, the page stage's images, and each window read.
        func dumpAnalysis(_ bytes: [UInt8], engine: TesseractEngine) throws {
            let metadata = try ImageMetadata.read(bytes)
            let calibration = Calibration.embedded
            let source = try GraySource(bytes: bytes, metadata: metadata, maxPixels: 100_000_000)
            let clock = ContinuousClock()
            let start = clock.now
            let c = calibration.cascade
            let request = WindowRequest(
                count: c.maxWindows, sideInTextHeights: c.windowSideInTextHeights, minGlyphs: c.windowMinGlyphs)
            let survey = try AnalysisImage.Survey(source: source, parameters: calibration.analysis, lines: lines > 0)
            let analysis =
                try AnalysisImage.lines(source: source, survey: survey, parameters: calibration.analysis, count: lines)
                ?? AnalysisImage.make(
                    source: source, parameters: calibration.analysis, windows: request, survey: survey)
            print(
                "analysis \(clock.now - start): \(analysis.windows.count) windows, text \(analysis.textHeight) "
                    + "glyphs \(analysis.glyphs) pairs \(analysis.horizontalPairs)/\(analysis.verticalPairs)")
            let frame = PixelBox(x: 0, y: 0, width: source.full.width, height: source.full.height)
            try write(calibration.page.pageImage(source: source, paper: analysis.paper, skew: analysis.skew), "coarse")
            try write(calibration.page.pageImage(source: source, paper: frame, skew: analysis.skew), "coarse-frame")
            print("paper \(analysis.paper) of \(source.full.width)x\(source.full.height), skew \(analysis.skew)")
            try write(analysis.strip, "binary")
            try write(analysis.readable, "readable")
            for (i, w) in analysis.windows.enumerated() {
                let crop = try analysis.readable.cropped(to: w)
                try write(crop, "window\(i)")
                for o in [Orientation.identity, .rotate90, .rotate180, .rotate270]
                where analysis.windowAlongX.isEmpty || analysis.windowAlongX[i] == (o.quarterTurns % 2 == 0) {
                    let view = try crop.rotated(quarterTurns: o.quarterTurns)
                    view.setResolution(300)
                    let t0 = clock.now
                    let words = try engine.recognize(
                        view, mode: .singleBlock, meter: WorkMeter(budget: .unlimited), maxWords: .max)
                    let read = words.map { "\($0.text)/\(Int($0.confidence))\($0.isFromDictionary ? "d" : "")" }
                    print("window \(i) \(w) as \(o.exifValue): \(clock.now - t0) \(read.joined(separator: " "))")
                }
            }
        }
    }

    /// `debug probe`: the probe's steps as PNGs, and the glyphs each threshold measures.
    struct ProbeSteps: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "probe", abstract: "Write the probe's steps as PNGs (probe-*.png) and measure each threshold.")

        @Option(help: ArgumentHelp("Where the PNGs go.", valueName: "DIR"))
        var out = "/tmp"

        @Option(help: ArgumentHelp("The probe's long side.", valueName: "PIXELS"))
        var side = 1024

        @Argument(help: "The image file.")
        var file: String

        func run() throws {
            let bytes = try FileIO.read(file)
            let metadata = try ImageMetadata.read(bytes)
            let source = try GraySource(bytes: bytes, format: metadata.format, maxPixels: 100_000_000)
            func write(_ pix: borrowing Pix, _ name: String) throws {
                try Data(pix.encodedPNG()).write(
                    to: URL(fileURLWithPath: out).appendingPathComponent("probe-\(name).png"))
            }
            let gray = try source.gray(longSide: side)
            try write(gray, "gray")
            let normalized = try gray.backgroundNormalized(tile: max(16, gray.width / 30))
            try write(normalized, "norm")
            let paper = try AnalysisImage.paper(in: gray)
            print("probe \(gray.width)x\(gray.height) paper \(String(describing: paper))")
            let box = paper ?? PixelBox(x: 0, y: 0, width: gray.width, height: gray.height)
            let otsu = try normalized.cropped(to: box).otsuThreshold()
            print("otsu on paper \(otsu)")
            for t in [otsu, 160, 185] {
                try write(try normalized.thresholded(t), "thr\(t)")
                let m = AnalysisImage.measureGlyphs(try normalized.inkComponents(darkerThan: t, inside: box))
                print(
                    "threshold \(t): glyphs \(m.glyphs.count) height \(String(describing: m.textHeight)) "
                        + "pairs \(m.horizontalPairs)/\(m.verticalPairs)")
            }
        }
    }

    /// `debug papers`: per listed file, the probe's size, the paper the resolver uses and the
    /// glyphs over the whole frame at the probe's threshold (Benchmarks/orientation/paper_finder.py
    /// scores the papers).
    struct Papers: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each listed file's probe, paper and glyphs (one JSON line a file).")

        @Argument(help: "A file listing image paths, one a line.")
        var list: String

        func run() throws {
            try eachListedFile(list) { file, source, probe in
                let gray = try source.gray(longSide: max(probe.width, probe.height))
                let normalized = try AnalysisImage.Probe.lightCorrected(gray)
                let m = AnalysisImage.measureGlyphs(
                    try normalized.thresholded(probe.threshold).componentBoxes(), lines: true)
                return PaperLine(
                    file: file, w: gray.width, h: gray.height, paper: PaperLine.corners(probe.paper),
                    threshold: probe.threshold, glyphs: m.glyphs.map { PaperLine.corners($0.box) })
            }
        }
    }

    /// `debug skews`: per listed file, the probe's page skew, its glyphs and links, and how many
    /// links run within `lineAngleReach` of the skew's direction.
    struct Skews: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each listed file's page skew, glyphs and links (one JSON line a file).")

        @Argument(help: "A file listing image paths, one a line.")
        var list: String

        func run() throws {
            try eachListedFile(list) { file, _, probe in
                let measure = probe.measure
                var line = SkewLine(file: file, glyphs: measure.glyphs.count, links: measure.links.count)
                if let lines = measure.pageLines {
                    let reach = AnalysisImage.GlyphMeasure.lineAngleReach * .pi / 180
                    let near = measure.links.filter { NeighbourLink.difference($0.angle, lines.radians) <= reach }
                    line.near = near.count
                    line.skew = lines.skew * 180 / .pi
                }
                return line
            }
        }
    }
}

/// `debug papers`' line for one file: the probe's size, the paper and the glyphs, each box as
/// x, y, width, height.
private struct PaperLine: Encodable {
    var file: String
    var w: Int
    var h: Int
    var paper: [Int]
    var threshold: Int
    var glyphs: [[Int]]

    static func corners(_ box: PixelBox) -> [Int] { [box.x, box.y, box.width, box.height] }
}

/// `debug skews`' line for one file; `near` and `skew` only where the probe found the page's lines.
private struct SkewLine: Encodable {
    var file: String
    var glyphs: Int
    var links: Int
    var near: Int?
    var skew: Double?
}

/// Surveys each file listed (one path a line) in `list` as the resolver does, and prints the JSON
/// line `line` makes of it; a file that fails is reported and the others go on (`forEachFile`).
private func eachListedFile<Line: Encodable>(
    _ list: String,
    _ line: (_ file: String, _ source: borrowing GraySource, _ probe: AnalysisImage.Probe) throws -> Line
) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let maxPixels = ResolverConfiguration().maxPixels
    let files = String(decoding: try FileIO.read(list), as: UTF8.self).split(separator: "\n").map(String.init)
    try forEachFile(files, command: "docorient-lab") { file in
        let bytes = try FileIO.read(file)
        let source = try GraySource(bytes: bytes, metadata: try ImageMetadata.read(bytes), maxPixels: maxPixels)
        let analysis = Calibration.embedded.analysis
        let probe = try AnalysisImage.Survey(source: source, parameters: analysis, lines: false)
            .probe(source: source, parameters: analysis)
        print(String(decoding: try encoder.encode(try line(file, source, probe)), as: UTF8.self))
    }
}

import Foundation
import Testing

@testable import DocOrient

/// Writes the analysis image and its text windows as PNGs to /tmp/resolver-debug-*, for one file
/// named by DOCORIENT_DEBUG_FILE. Off otherwise.
struct ResolverDebug {
    static var file: String? { ProcessInfo.processInfo.environment["DOCORIENT_DEBUG_FILE"] }

    @Test(.enabled(if: file != nil))
    func dumpAnalysisImage() throws {
        let path = try #require(Self.file)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let metadata = try ImageMetadata.read(bytes)
        let calibration = Calibration.embedded
        if metadata.format == .jpeg, let spec = ProcessInfo.processInfo.environment["DOCORIENT_DEBUG_REGION"] {
            // x,y,w,h in stored pixels, upscale factor, background tile[, quarter turns]: try
            // binarisations on that region.
            let v = spec.split(separator: ",").compactMap { Double($0) }
            let full = try Pix.gray(TurboJPEG.decodeGray(bytes, minimumLongSide: 100_000, maxPixels: 100_000_000))
            let region = try full.cropped(to: PixelBox(x: Int(v[0]), y: Int(v[1]), width: Int(v[2]), height: Int(v[3])))
            let scaled = v[4] == 1 ? try region.scaled(by: 1) : try region.scaled(by: v[4])
            // Optional seventh value: quarter turns clockwise before reading.
            let big = try scaled.rotated(quarterTurns: v.count > 6 ? Int(v[6]) : 0)
            let engine = try TesseractEngine(datapath: "/usr/share/tesseract-ocr/5/tessdata", languages: "eng")
            func report(_ name: String, _ pix: borrowing Pix) throws {
                pix.writeDebugPNG("/tmp/resolver-debug-\(name).png")
                let words = try engine.recognize(
                    pix, mode: .singleBlock, meter: WorkMeter(budget: .unlimited), maxWords: .max)
                let e = Evidence(words: words, weights: calibration.scoring)
                print(
                    name, "score", e.score(calibration.scoring), "dict", e.dictionaryWords,
                    words.prefix(12).map { "\($0.text)/\(Int($0.confidence))" }.joined(separator: " "))
            }
            try report("gray", big)
            let tile = Int(v[5])
            let norm = try big.backgroundNormalized(tile: tile)
            try report("norm", norm)
            for t in [140, 160, 180] { try report("thr\(t)", try norm.thresholded(t)) }
            for w in [tile / 4, tile / 2] {
                for k in [0.2, 0.34] {
                    try report("sauvola-\(w)-\(k)", try norm.sauvolaBinarized(halfWindow: w, factor: k))
                }
            }
            try report("otsu", try big.otsuOnNormalizedBackground(tile: tile))
        }
        let source = try GraySource(bytes: bytes, metadata: metadata, maxPixels: 100_000_000)
        let clock = ContinuousClock()
        let start = clock.now
        let c = calibration.cascade
        let request = WindowRequest(
            count: c.maxWindows, sideInTextHeights: c.windowSideInTextHeights, minGlyphs: c.windowMinGlyphs)
        let lineCount = Int(ProcessInfo.processInfo.environment["DOCORIENT_DEBUG_LINES"] ?? "0") ?? 0
        let survey = try AnalysisImage.Survey(source: source, parameters: calibration.analysis, lines: lineCount > 0)
        let analysis =
            try AnalysisImage.lines(source: source, survey: survey, parameters: calibration.analysis, count: lineCount)
            ?? AnalysisImage.make(source: source, parameters: calibration.analysis, windows: request, survey: survey)
        print(
            "analysis \(clock.now - start): \(analysis.windows.count) windows, text \(analysis.textHeight) glyphs "
                + "\(analysis.glyphs) pairs \(analysis.horizontalPairs)/\(analysis.verticalPairs)"
        )
        let coarse = calibration.page
        try coarse.pageImage(source: source, paper: analysis.paper, skew: analysis.skew)
            .writeDebugPNG("/tmp/resolver-debug-coarse.png")
        try coarse.pageImage(
            source: source, paper: PixelBox(x: 0, y: 0, width: source.full.width, height: source.full.height),
            skew: analysis.skew
        ).writeDebugPNG("/tmp/resolver-debug-coarse-frame.png")
        print("paper \(analysis.paper) of \(source.full.width)x\(source.full.height), skew \(analysis.skew)")
        analysis.strip.writeDebugPNG("/tmp/resolver-debug-binary.png")
        analysis.readable.writeDebugPNG("/tmp/resolver-debug-readable.png")
        let windows = analysis.windows
        let engine = try TesseractEngine(datapath: "/usr/share/tesseract-ocr/5/tessdata", languages: "eng")
        for (i, w) in windows.enumerated() {
            let crop = try analysis.readable.cropped(to: w)
            crop.writeDebugPNG("/tmp/resolver-debug-window\(i).png")
            for o in [Orientation.identity, .rotate90, .rotate180, .rotate270]
            where analysis.windowAlongX.isEmpty || analysis.windowAlongX[i] == (o.quarterTurns % 2 == 0) {
                var view = try crop.rotated(quarterTurns: o.quarterTurns)
                view.setResolution(300)
                let t0 = clock.now
                let words = try engine.recognize(
                    view, mode: .singleBlock, meter: WorkMeter(budget: .unlimited), maxWords: .max)
                let read = words.map { "\($0.text)/\(Int($0.confidence))\($0.isFromDictionary ? "d" : "")" }
                print("window \(i) \(w) as \(o.exifValue): \(clock.now - t0) \(read.joined(separator: " "))")
                _ = view
            }
        }
    }
}

/// Writes the probe's steps for DOCORIENT_DEBUG_PROBE (a JPEG) to /tmp/probe-*.png.
struct ProbeDebug {
    static var file: String? { ProcessInfo.processInfo.environment["DOCORIENT_DEBUG_PROBE"] }

    @Test(.enabled(if: file != nil))
    func dumpProbe() throws {
        let path = try #require(Self.file)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let metadata = try ImageMetadata.read(bytes)
        let source = try GraySource(bytes: bytes, format: metadata.format, maxPixels: 100_000_000)
        let side = Int(ProcessInfo.processInfo.environment["DOCORIENT_DEBUG_SIDE"] ?? "1024")!
        let gray = try source.gray(longSide: side)
        gray.writeDebugPNG("/tmp/probe-gray.png")
        let normalized = try gray.backgroundNormalized(tile: max(16, gray.width / 30))
        normalized.writeDebugPNG("/tmp/probe-norm.png")
        let paper = try AnalysisImage.paper(in: gray)
        print("probe \(gray.width)x\(gray.height) paper \(String(describing: paper))")
        let box = paper ?? PixelBox(x: 0, y: 0, width: gray.width, height: gray.height)
        let otsu = try normalized.cropped(to: box).otsuThreshold()
        print("otsu on paper \(otsu)")
        for t in [otsu, 160, 185] {
            let binary = try normalized.thresholded(t)
            binary.writeDebugPNG("/tmp/probe-thr\(t).png")
            let m = AnalysisImage.measureGlyphs(try normalized.inkComponents(darkerThan: t, inside: box))
            print(
                "threshold \(t): glyphs \(m.glyphs.count) height \(String(describing: m.textHeight)) pairs "
                    + "\(m.horizontalPairs)/\(m.verticalPairs)"
            )
        }
    }
}

/// Surveys each file listed (one path a line) in the file `list` names, as the resolver does, and
/// writes the JSON line `line` makes of it to `output`.
private func dumpEachListedFile(
    _ list: String, to output: String,
    _ line: (_ file: String, _ source: borrowing GraySource, _ probe: AnalysisImage.Probe) throws -> String
) throws {
    let files = try String(contentsOfFile: list, encoding: .utf8).split(separator: "\n").map(String.init)
    var out = ""
    for file in files {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let source = try GraySource(bytes: bytes, metadata: try ImageMetadata.read(bytes), maxPixels: 100_000_000)
        let analysis = Calibration.embedded.analysis
        let probe = try AnalysisImage.Survey(source: source, parameters: analysis, lines: false)
            .probe(source: source, parameters: analysis)
        out += try line(file, source, probe) + "\n"
    }
    try out.write(toFile: output, atomically: true, encoding: .utf8)
}

/// For each file listed in DOCORIENT_DEBUG_PAPERS, one JSON line in /tmp/papers.jsonl: the probe's
/// size, the paper the resolver uses (the first probe's, scaled when the text was too small and the
/// probe doubled), and the glyphs (paired marks) measured over the whole frame at the probe's
/// threshold (Benchmarks/orientation/paper_finder.py scores the papers).
struct PaperDebug {
    static var list: String? { ProcessInfo.processInfo.environment["DOCORIENT_DEBUG_PAPERS"] }

    @Test(.enabled(if: list != nil))
    func dumpPapers() throws {
        try dumpEachListedFile(try #require(Self.list), to: "/tmp/papers.jsonl") { file, source, probe in
            let gray = try source.gray(longSide: max(probe.width, probe.height))
            let normalized = try gray.backgroundNormalized(tile: max(16, gray.width / 30))
            let paper = probe.paper
            let m = AnalysisImage.measureGlyphs(
                try normalized.thresholded(probe.threshold).componentBoxes(), lines: true)
            let glyphs = m.glyphs.map { "[\($0.box.x),\($0.box.y),\($0.box.width),\($0.box.height)]" }
            return
                "{\"file\":\"\(file)\",\"w\":\(gray.width),\"h\":\(gray.height),"
                + "\"paper\":[\(paper.x),\(paper.y),\(paper.width),\(paper.height)],\"threshold\":\(probe.threshold),"
                + "\"glyphs\":[\(glyphs.joined(separator: ","))]}"
        }
    }
}

/// For each file listed in DOCORIENT_DEBUG_SKEWS, one JSON line in /tmp/skews.jsonl: the probe's
/// page skew, its glyphs and links, and how many links run within `lineAngleReach` of the skew's
/// direction.
struct SkewDebug {
    static var list: String? { ProcessInfo.processInfo.environment["DOCORIENT_DEBUG_SKEWS"] }

    @Test(.enabled(if: list != nil))
    func dumpSkews() throws {
        try dumpEachListedFile(try #require(Self.list), to: "/tmp/skews.jsonl") { file, _, probe in
            let measure = probe.measure
            guard let lines = measure.pageLines else {
                return "{\"file\":\"\(file)\",\"glyphs\":\(measure.glyphs.count),\"links\":\(measure.links.count)}"
            }
            let reach = AnalysisImage.GlyphMeasure.lineAngleReach * .pi / 180
            let near = measure.links.filter { NeighbourLink.difference($0.angle, lines.radians) <= reach }.count
            return
                "{\"file\":\"\(file)\",\"glyphs\":\(measure.glyphs.count),\"links\":\(measure.links.count),"
                + "\"near\":\(near),\"skew\":\(lines.skew * 180 / .pi)}"
        }
    }
}

// The text readers the stages read with: one protocol, so that the cascade's and the page
// stage's order and stopping are tested on recorded readings without Tesseract
// (Tests/DocOrientTests/CascadeTests.swift, PageStageTests.swift), and behind it Tesseract
// reading the analysis image's parts (`CandidateReader`) or a whole page (`PageReader`). Recorded
// readings (`RecordedParts`) stand in for Tesseract in those tests and in the replay that fits
// the cascade: a read of one part in one candidate does not depend on what was read before, so a
// replay reads what the resolver would have read.

/// Reads the candidate orientations of one stack of parts (text lines, or text windows read in
/// parts) and remembers what it read: Tesseract over the analysis image (`CandidateReader`), or
/// recorded readings.
package protocol PartReader: ~Copyable {
    /// Parts in the stack, densest or longest first.
    var partCount: Int { get }
    /// How a candidate's evidence is scored.
    var weights: ScoringWeights { get }
    /// Candidates the work budget denied a read that the cascade asked for.
    var starved: Set<Orientation> { get }
    /// The evidence of each part read so far, per candidate (index 0: the first part).
    var allEvidence: [Orientation: [Evidence]] { get }
    /// The words behind the evidence, per candidate and part (exhaustive mode only).
    var words: [Orientation: [[RecognizedWord]]] { get }
    /// Makes sure the first `count` parts of candidate `o` have been read; stops where the work
    /// budget denies a read (the candidate is then `starved`).
    mutating func read(_ o: Orientation, parts count: Int) throws
    /// Leptonica's uprightness of the parts shown as `o` (a rotation whose lines run along the
    /// displayed x axis): positive when `o` rather than its half-turn looks upright.
    func uprightness(of o: Orientation) throws -> Double
}

extension PartReader where Self: ~Copyable {
    /// The evidence of each part of candidate `o` read so far.
    func partEvidence(_ o: Orientation) -> [Evidence] { allEvidence[o] ?? [] }

    /// The evidence of the first `depth` parts of `o` together.
    func evidence(_ o: Orientation, depth: Int) -> Evidence {
        partEvidence(o).prefix(depth).reduce(Evidence()) { $0.adding($1) }
    }

    func score(_ o: Orientation, depth: Int) -> Double {
        evidence(o, depth: depth).score(weights)
    }

    /// `candidates` best first; ties keep the given order.
    func ranked(_ candidates: [Orientation], depth: Int) -> [Orientation] {
        let scores = Dictionary(uniqueKeysWithValues: Set(candidates).map { ($0, score($0, depth: depth)) })
        return CandidatePolicy.ranked(candidates) { scores[$0] ?? 0 }
    }
}

/// Tesseract reading the parts of an analysis image (`AnalysisImage`: its text lines or windows),
/// each crop shown in the candidate orientation. Owns clones of the image's pixels: not copyable,
/// used on the thread of the engine it borrowed.
struct CandidateReader: PartReader, ~Copyable {
    let engine: TesseractEngine
    let windows: [PixelBox]
    let weights: ScoringWeights
    let meter: WorkMeter
    /// The smallest letter height of the crops, in pixels (`AnalysisParameters.minTextHeight`).
    let minTextHeight: Double
    /// The parts, grey, and the same binarised (`AnalysisImage.readable`, `.strip`).
    private let readable: Pix
    private let strip: Pix
    /// For text lines, whether each runs along stored x (`AnalysisImage.windowAlongX`).
    private let windowAlongX: [Bool]
    private var read: [Orientation: [Evidence]] = [:]
    private(set) var starved: Set<Orientation> = []
    /// The words behind the evidence, kept only when `keepWords` (for fitting).
    var keepWords = false
    private(set) var words: [Orientation: [[RecognizedWord]]] = [:]

    init(
        engine: TesseractEngine, image: borrowing AnalysisImage, weights: ScoringWeights, meter: WorkMeter,
        minTextHeight: Double
    ) throws {
        let readable = try image.readable.cloned()
        let strip = try image.strip.cloned()
        self.engine = engine
        self.minTextHeight = minTextHeight
        self.windows = image.windows
        self.weights = weights
        self.meter = meter
        self.readable = readable
        self.strip = strip
        self.windowAlongX = image.windowAlongX
    }

    var partCount: Int { windows.count }
    var allEvidence: [Orientation: [Evidence]] { read }

    /// Most text lines one read of a `height`-pixel crop may recognise: as many lines of the
    /// smallest letters the crop holds as fit one above the other (`minTextHeight`: the analysis
    /// scales the text into its reading band, so no line of it is lower), and one more for a line
    /// cut at the edge. Tesseract's cancel callback, which the work meter counts, comes once per
    /// text line in LSTM mode; a read that finds more lines than fit is reading noise as lines
    /// (window parts of a receipt's paper grain read as tens of lines, each paid for; decision 2).
    static func maxLines(height: Int, minTextHeight: Double) -> Int {
        Int(Double(height) / minTextHeight) + 1
    }

    mutating func read(_ o: Orientation, parts count: Int) throws {
        var list = read[o] ?? []
        defer { read[o] = list }
        while list.count < min(count, windows.count) {
            // A line shown sideways reads as nothing: it is not read.
            if !windowAlongX.isEmpty, windowAlongX[list.count] != (o.quarterTurns % 2 == 0) {
                list.append(Evidence())
                if keepWords { self.words[o, default: []].append([]) }
                continue
            }
            let crop = try readable.cropped(to: windows[list.count])
            let view = try Self.display(crop, as: o)
            view.setResolution(300)
            let words: [RecognizedWord]
            do {
                words = try engine.recognize(
                    view, mode: .singleBlock, meter: meter,
                    maxWords: Self.maxLines(height: view.height, minTextHeight: minTextHeight))
            } catch is WorkMeter.Exhausted {
                starved.insert(o)
                return
            }
            list.append(Evidence(words: words, weights: weights))
            if keepWords { self.words[o, default: []].append(words) }
        }
    }

    /// The stored-orientation image as candidate `o` displays it (`Pix.oriented`).
    static func display(_ pix: consuming Pix, as o: Orientation) throws -> Pix {
        try pix.oriented(o)
    }

    func uprightness(of o: Orientation) throws -> Double {
        guard !windows.isEmpty else { return 0 }
        // All windows: one window holds too few ascenders and descenders for Leptonica, which then
        // says 0; on all of them together it leans the right way far more often than the wrong way
        // (decision 2).
        return try Self.display(try strip.cloned(), as: o).uprightness()
    }
}

/// Tesseract's look at a whole page image, one read of the whole image per candidate (a
/// `PartReader` of one part), in its sparse-text mode, at most `maxWords` recognition steps a read.
/// Owns a clone of the page image: not copyable, used on the thread of the engine it borrowed.
struct PageReader: PartReader, ~Copyable {
    let engine: TesseractEngine
    let weights: ScoringWeights
    let meter: WorkMeter
    let maxWords: Int
    private let image: Pix
    private var read: [Orientation: [Evidence]] = [:]
    private(set) var starved: Set<Orientation> = []

    init(
        engine: TesseractEngine, image: borrowing Pix, weights: ScoringWeights, meter: WorkMeter, maxWords: Int
    )
        throws
    {
        self.image = try image.cloned()
        self.engine = engine
        self.weights = weights
        self.meter = meter
        self.maxWords = maxWords
    }

    var partCount: Int { 1 }
    var allEvidence: [Orientation: [Evidence]] { read }
    var words: [Orientation: [[RecognizedWord]]] { [:] }

    /// Reads the page shown as `o`, once: a candidate the budget starved is not tried again.
    mutating func read(_ o: Orientation, parts count: Int) throws {
        guard count > 0, read[o] == nil else { return }
        let view = try CandidateReader.display(try image.cloned(), as: o)
        do {
            let words = try engine.recognize(view, mode: .sparseText, meter: meter, maxWords: maxWords)
            read[o] = [Evidence(words: words, weights: weights)]
        } catch is WorkMeter.Exhausted {
            starved.insert(o)
            read[o] = []
        }
    }

    /// Not asked of a whole page (the look orders the axis pairs by the tag and the lines' marks).
    func uprightness(of o: Orientation) throws -> Double { 0 }
}

/// Readings per candidate and part, handed out as the cascade asks (a `PartReader` without
/// Tesseract): recorded reads (`StackReads`) or a test's readings. Every read made is logged.
package struct RecordedParts: PartReader {
    var readings: [Orientation: [Evidence]]
    package var partCount: Int
    /// Reads the budget allows, all when nil.
    var budget: Int?
    package var weights: ScoringWeights
    var recordedUprightness: [Orientation: Double] = [:]
    package private(set) var starved: Set<Orientation> = []
    package private(set) var allEvidence: [Orientation: [Evidence]] = [:]
    package var words: [Orientation: [[RecognizedWord]]] { [:] }
    /// Each read made: candidate and part (1 = the first).
    package private(set) var log: [(o: Orientation, part: Int)] = []

    init(
        _ readings: [Orientation: [Evidence]], parts: Int, budget: Int? = nil,
        weights: ScoringWeights = Calibration.embedded.scoring
    ) {
        self.readings = readings
        self.partCount = parts
        self.budget = budget
        self.weights = weights
    }

    /// The recorded reads of a stack, scored with `weights` (already turned into evidence by
    /// `StackReads.evidence`, which a fit does once per weighting).
    package init(_ stack: StackReads, evidence: [Orientation: [Evidence]], weights: ScoringWeights) {
        self.init(evidence, parts: stack.parts, weights: weights)
        recordedUprightness = Dictionary(
            uniqueKeysWithValues: stack.uprightness.compactMap { key, value in
                Int(key).flatMap(Orientation.init(exifValue:)).map { ($0, value) }
            })
    }

    package mutating func read(_ o: Orientation, parts count: Int) throws {
        var list = allEvidence[o] ?? []
        defer { allEvidence[o] = list }
        while list.count < min(count, partCount) {
            if let budget, log.count >= budget {
                starved.insert(o)
                return
            }
            log.append((o, list.count + 1))
            list.append(readings[o]?[safe: list.count] ?? Evidence())
        }
    }

    package func uprightness(of o: Orientation) throws -> Double { recordedUprightness[o] ?? 0 }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

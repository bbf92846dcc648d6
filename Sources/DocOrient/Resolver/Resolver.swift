import Foundation

/// Decides which EXIF orientation displays a document photo's stored pixels upright, with two
/// readers: Tesseract, which reads the text in each candidate orientation and alone tells a
/// mirrored page, and a learned orientation classifier, which looks at the page once, orders what
/// Tesseract reads first, and answers for what Tesseract reads nothing of (handwriting, other
/// scripts, unusual print).
///
/// Thread-safe: `decide` may be called from any number of tasks or threads at once and gives the
/// same answers as serial calls. Each call borrows one Tesseract engine and one classifier from
/// internal pools (engines are created on demand up to `ResolverConfiguration.maxEngines`, then
/// callers wait; models are loaded once per engine, never per image, and idle engines are freed;
/// every engine runs on its caller's thread only).
public final class Resolver: Sendable {
    /// The configuration the resolver was made with.
    public let configuration: ResolverConfiguration
    /// The directory the Tesseract models were loaded from.
    public let modelDirectory: String
    /// The orientation classifier's model file.
    public let classifierModel: String
    let calibration: Calibration
    let pool: TesseractPool
    let classifiers: ClassifierPool

    /// Finds and loads the models.
    /// - Throws: `.missingModel` when a language's `.traineddata` or the classifier's model is not
    ///   found (the message names what to install), `.invalidRequest` for a malformed language list.
    public convenience init(configuration: ResolverConfiguration) throws {
        try self.init(configuration: configuration, calibration: .embedded)
    }

    init(configuration: ResolverConfiguration, calibration: Calibration) throws {
        Leptonica.silenced
        self.configuration = configuration
        self.calibration = calibration
        self.modelDirectory = try ModelLocator.locate(
            explicit: configuration.tessdata, languages: configuration.languages)
        self.pool = TesseractPool(
            datapath: modelDirectory, languages: configuration.languages, capacity: configuration.maxEngines,
            idleTimeout: configuration.engineIdleTimeout)
        let model = try ClassifierLocator.locate(explicit: configuration.classifierModel)
        self.classifierModel = model
        self.classifiers = ClassifierPool(
            capacity: configuration.maxEngines, idleTimeout: configuration.engineIdleTimeout
        ) {
            try ClassifierEngine(modelPath: model)
        }
        try pool.warmUp()
        try classifiers.warmUp()
    }

    /// Decides the orientation of one image, with its own tag as the prior.
    /// - Parameter image: the bytes of a JPEG, PNG, TIFF or HEIF image.
    /// - Throws: `.unsupportedFormat` or `.malformed` for bytes that are no readable image,
    ///   `.limitExceeded` for frames over `maxPixels`, `.library` when a C library fails.
    public func decide(_ image: some DataProtocol) throws -> Decision {
        let bytes = [UInt8](image)
        let metadata = try ImageMetadata.read(bytes)
        return try decide(imageBytes: bytes, metadata: metadata, prior: metadata.effectiveOrientation)
    }

    /// Decides the orientation of one image whose metadata the caller has read.
    /// - Parameters:
    ///   - prior: the file's current usable tag, nil when none. It stands unless the text clearly
    ///     says otherwise.
    ///   - budget: the work allowed, `configuration.budget` when nil.
    ///   - signal: stops the work with `CancellationError` when set.
    func decide(
        imageBytes: [UInt8], metadata: ImageMetadata, prior: Orientation?, budget: WorkBudget? = nil,
        signal: CancellationSignal? = nil
    ) throws -> Decision {
        try trace(imageBytes: imageBytes, metadata: metadata, prior: prior, budget: budget, signal: signal).decision
    }

    /// The decision together with the evidence behind it (for the evaluation and fitting tools).
    func trace(
        imageBytes: [UInt8], metadata: ImageMetadata, prior: Orientation?, budget: WorkBudget? = nil,
        signal: CancellationSignal? = nil
    ) throws -> Trace {
        let meter = WorkMeter(budget: budget ?? configuration.budget, signal: signal)
        try meter.checkCancellation()
        var stages = try Stages(resolver: self, imageBytes: imageBytes, metadata: metadata, prior: prior, meter: meter)
        return try stages.run()
    }

    /// A decision reached when the work budget ran out: it stands when every candidate the
    /// resolver asked to read was read by some stage (the budget only cut deeper reads or a later
    /// stage short); when one went unread in every stage (`starved`) the comparison is not fair,
    /// and the answer is undecidable.
    static func budgeted(_ decision: Decision, starved: Set<Orientation>, part: String, spent: String) -> Decision {
        var decision = decision
        let note = "work budget spent (\(part): \(spent))"
        if decision.isDecided, starved.isEmpty {
            decision.reason = (decision.reason.map { $0 + "; " } ?? "") + note
        } else {
            let unread = starved.map(\.exifValue).sorted().map(String.init).joined(separator: ", ")
            decision.orientation = nil
            decision.reason =
                note + (unread.isEmpty ? "" : " before orientation \(unread) could be read")
                + (decision.reason.map { "; \($0)" } ?? "")
        }
        return decision
    }

    /// The candidate policy every stage follows.
    var policy: CandidatePolicy { CandidatePolicy(configuration) }

    /// Whether the glyph pairs run along one axis so much more than along the other that the
    /// sideways rotations need not be read (Models/calibration.json `cascade.axis*`).
    func axisIsClear(_ image: borrowing AnalysisImage) -> Bool {
        let c = calibration.cascade
        let (more, fewer) = (
            max(image.horizontalPairs, image.verticalPairs), min(image.horizontalPairs, image.verticalPairs)
        )
        return more >= c.axisMinPairs && Double(more + 1) >= c.axisMinRatio * Double(fewer + 1)
    }

    /// Fewest confident words an answer rests on: a couple of words is undecidable by definition
    /// (issue 14 counts "a couple of words" among the negatives with blank pages and photos: two
    /// words may read in two orientations, "NOON", "SIS", "MOW"), a sign of three is not.
    static let minConfidentWords = 3

    /// Whether `e` is too little to answer on: fewer than `minConfidentWords` confident words, or
    /// a score under `minScore` (`conclude`'s first rule).
    func readsTooLittle(_ e: Evidence, minScore: Double) -> Bool {
        e.confidentWords < Self.minConfidentWords || e.score(calibration.scoring) < minScore
    }

    /// The decision from the evidence gathered: the winner (the prior when it is nearly as good),
    /// its calibrated confidence, or undecidable with the reason.
    func conclude(
        evidence: (Orientation) -> Evidence, _ candidates: [Orientation], minScore: Double, minPlainWords: Int = 0,
        prior: Orientation?, note: String
    ) -> Decision {
        let model = calibration.confidence
        let weights = calibration.scoring
        func score(_ o: Orientation) -> Double { evidence(o).score(weights) }
        // Best first; ties keep the given order.
        let ranked = CandidatePolicy.ranked(candidates, by: score)
        guard !ranked.isEmpty else {
            return Decision(orientation: nil, confidence: 0, margin: 0, reason: "no text found", candidates: [])
        }
        let scores = ranked.map { o -> CandidateScore in
            let e = evidence(o)
            return CandidateScore(
                orientation: o, score: (e.score(weights) * 100).rounded() / 100,
                characters: e.confidentCharacters, meanConfidence: (e.meanConfidence * 10).rounded() / 10)
        }
        var winner = ranked[0]
        let topScore = score(winner)
        var note = note
        if let prior, prior != winner, candidates.contains(prior), score(prior) >= topScore * (1 - model.priorMargin) {
            winner = prior
            note += "; the tag stands (within \(Int(model.priorMargin * 100))% of the best)"
        }
        let best = score(winner)
        let second = ranked.filter { $0 != winner }.map { score($0) }.max() ?? 0
        let relation: ConfidenceModel.PriorRelation =
            prior == nil ? .none : (prior == winner ? .agrees : .disagrees)
        let confidence = model.probability(
            best: best, second: second, dictionaryWords: evidence(winner).dictionaryWords, prior: relation)
        let margin = best > 0 ? max(0, (best - second) / best) : 0
        let rounded = (confidence * 1000).rounded() / 1000
        let roundedMargin = (margin * 1000).rounded() / 1000

        if readsTooLittle(evidence(winner), minScore: minScore) {
            let words = evidence(winner).confidentWords
            return Decision(
                orientation: nil, confidence: rounded, margin: roundedMargin,
                reason: "too little readable text (\(words) confident word\(words == 1 ? "" : "s"))",
                candidates: scores)
        }
        let plain = evidence(winner).dictionaryWords + evidence(winner).amounts
        if plain < minPlainWords {
            return Decision(
                orientation: nil, confidence: rounded, margin: roundedMargin,
                reason:
                    "no readable words: \(evidence(winner).confidentWords) confident marks, none a dictionary word or an amount",
                candidates: scores)
        }
        if confidence < model.decideAt {
            let runnerUp = ranked.first { $0 != winner }
            let why =
                margin < 0.5 && runnerUp != nil
                ? "evenly matched: \(winner.exifValue) and \(runnerUp!.exifValue) read about as well"
                : "the text is too unclear to be sure"
            return Decision(
                orientation: nil, confidence: rounded, margin: roundedMargin,
                reason: "\(why) (confidence \(rounded) < \(model.decideAt))", candidates: scores)
        }
        return Decision(
            orientation: winner, confidence: rounded, margin: roundedMargin, reason: note, candidates: scores)
    }
}

extension Resolver {
    /// The decision on everything the stages read (`gathered`, per candidate), each word counted
    /// once (`Evidence.distinct`), for when no stage alone read enough: the page's text may have
    /// been read in pieces, a line here, a window there, a heading in the coarse look. The sum is
    /// over reads of different kinds and sizes, which the confidence model was never fitted on,
    /// so the winner must also lead the way the cascade's early exit asks
    /// (`cascade.earlyExitScore` and `earlyExitRatio`): every candidate gathers some confident
    /// clutter over a dozen reads, and without that rule the likeliest clutter won. Undecidable
    /// without a reason otherwise: the last stage's reason stands.
    func concludeTogether(_ gathered: [Orientation: Evidence], prior: Orientation?) -> Decision {
        let undecided = Decision(orientation: nil, confidence: 0, margin: 0, reason: nil, candidates: [])
        let candidates = gathered.keys.sorted { $0.exifValue < $1.exifValue }
        let distinct = gathered.mapValues(\.distinct)
        let weights = calibration.scoring
        let decision = conclude(
            evidence: { distinct[$0] ?? Evidence() }, candidates, minScore: calibration.confidence.minScore,
            minPlainWords: calibration.page.minPlainWords, prior: prior, note: "the stages' readings together")
        guard let winner = decision.orientation else { return undecided }
        let best = distinct[winner]!.score(weights)
        let second = candidates.filter { $0 != winner }.map { distinct[$0]!.score(weights) }.max() ?? 0
        let c = calibration.cascade
        return CandidatePolicy.leads(best, over: second, score: c.earlyExitScore, ratio: c.earlyExitRatio)
            ? decision : undecided
    }
}

/// The decision and the evidence behind it.
struct Trace: Sendable {
    var glyphs: Int
    var textHeight: Double
    var windows: Int
    var horizontalPairs: Int
    var verticalPairs: Int
    /// Time spent decoding, measuring and binarising before any OCR.
    var analysisSeconds = 0.0
    /// Windows read per candidate.
    var depth = 0
    /// Per candidate, the evidence of each window read (index 0 = densest).
    var evidence: [Orientation: [Evidence]] = [:]
    /// Per candidate and window, the words read (exhaustive mode only).
    var words: [Orientation: [[RecognizedWord]]] = [:]
    /// Leptonica's uprightness of the text windows shown as 1 and as 6 (see `CandidateReader.uprightness`).
    var uprightness: [Orientation: Double] = [:]
    /// Per candidate, the evidence of the page stage's last look (only when the page stage ran).
    var pageEvidence: [Orientation: Evidence] = [:]
    var decision = Decision(orientation: nil, confidence: 0, margin: 0, reason: nil, candidates: [])
}

/// Reads candidate orientations of the analysis image's windows, remembering what it read.
struct CandidateReader {
    let engine: TesseractEngine
    let windows: [PixelBox]
    let weights: ScoringWeights
    let meter: WorkMeter
    /// The smallest letter height of the crops, in pixels (`AnalysisParameters.minTextHeight`).
    let minTextHeight: Double
    private var read: [Orientation: [Evidence]] = [:]
    /// Candidates the work budget denied a read that the cascade asked for.
    private(set) var starved: Set<Orientation> = []
    /// The words behind the evidence, kept only when `keepWords` (for fitting).
    var keepWords = false
    private(set) var words: [Orientation: [[RecognizedWord]]] = [:]

    init(
        engine: TesseractEngine, windows: [PixelBox], weights: ScoringWeights, meter: WorkMeter, minTextHeight: Double
    ) {
        self.engine = engine
        self.minTextHeight = minTextHeight
        self.windows = windows
        self.weights = weights
        self.meter = meter
    }

    /// Most text lines one read of a `height`-pixel crop may recognise: as many lines of the
    /// smallest letters the crop holds as fit one above the other (`minTextHeight`: the analysis
    /// scales the text into its reading band, so no line of it is lower), and one more for a line
    /// cut at the edge. Tesseract's cancel callback, which the work meter counts, comes once per
    /// text line in LSTM mode; a read that finds more lines than fit is reading noise as lines
    /// (window parts of a receipt's paper grain read as 20 to 36 lines, at 4 ms a line).
    static func maxLines(height: Int, minTextHeight: Double) -> Int {
        Int(Double(height) / minTextHeight) + 1
    }

    /// Makes sure the first `windows` windows of candidate `o` have been read.
    mutating func read(_ o: Orientation, windows count: Int, of image: borrowing AnalysisImage) throws {
        var list = read[o] ?? []
        defer { read[o] = list }
        while list.count < min(count, windows.count) {
            // A line shown sideways reads as nothing: it is not read.
            if !image.windowAlongX.isEmpty, image.windowAlongX[list.count] != (o.quarterTurns % 2 == 0) {
                list.append(Evidence())
                continue
            }
            let crop = try image.readable.cropped(to: windows[list.count])
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

    /// Leptonica's uprightness of the text windows shown as `o` (a rotation whose lines run
    /// along the displayed x axis): positive when `o` rather than its half-turn looks upright.
    func uprightness(of o: Orientation, in image: borrowing AnalysisImage) throws -> Double {
        guard !windows.isEmpty else { return 0 }
        // All windows: one window holds too few ascenders and descenders for Leptonica, which
        // then says 0 (it did on every file of the seed-1 set; on the strip it leaned the right
        // way on 123 of 240 rotated files and the wrong way on 7).
        return try Self.display(try image.strip.cloned(), as: o).uprightness()
    }

    /// The evidence of each window of candidate `o` read so far, densest first.
    func windowEvidence(_ o: Orientation) -> [Evidence] { read[o] ?? [] }

    func evidence(_ o: Orientation, depth: Int) -> Evidence {
        (read[o] ?? []).prefix(depth).reduce(Evidence()) { $0.adding($1) }
    }

    func score(_ o: Orientation, depth: Int) -> Double {
        evidence(o, depth: depth).score(weights)
    }

    /// `candidates` best first; ties keep the given order.
    func ranked(_ candidates: [Orientation], depth: Int) -> [Orientation] {
        CandidatePolicy.ranked(candidates) { score($0, depth: depth) }
    }

    var allEvidence: [Orientation: [Evidence]] { read }
}

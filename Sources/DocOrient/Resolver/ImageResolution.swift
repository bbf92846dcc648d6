import Foundation

// One image's resolution, stage by stage: the text lines, then the text windows (when marks pair
// up like letters), then the page: the paper, then the whole frame, looked at by Tesseract's
// sparse-text mode at a coarse scale. Each stage is one method; they share the pixels decoded
// once, the probes that found the paper and the text once, the work meter, and the candidate
// policy (`CandidatePolicy`). What each stage read is gathered, so that a page whose text no
// stage alone read enough of may still be decided on all of it.

/// What every image's stages read with, built by the resolver (`Resolver.stageInputs`) and handed
/// to them as a value: they never call back up into the resolver.
struct StageInputs: Sendable {
    /// The decision rules, with the resolver's calibration: built once, read by every stage.
    let rules: DecisionRules
    /// Which candidates are read and how (`exhaustive`: every candidate at every stage).
    let policy: CandidatePolicy
    /// The Tesseract engines the stages borrow one of at a time.
    let engines: TesseractPool
    /// Read the text lines and windows only (`ResolverConfiguration.stacksOnly`).
    let stacksOnly: Bool

    var calibration: Calibration { rules.calibration }
}

/// One image's resolution: its stages and what they share. Owns the decoded pixels: not copyable.
struct ImageResolution: ~Copyable {
    let inputs: StageInputs
    let source: GraySource
    /// What the probes found on the page: surveyed when the stages run (`run`), not before the
    /// classifier has looked: where it sees nothing to orient, no stage runs.
    private(set) var survey: AnalysisImage.Survey
    let prior: Orientation?
    let meter: WorkMeter
    /// What the orientation classifier said of the image, asked once before the stages were made.
    let reading: ClassifierReading
    /// Candidates the work budget denied a read that a stage asked for.
    private(set) var starved: Set<Orientation> = []
    /// Candidates some stage read (or, for a line shown sideways, chose not to: it reads as
    /// nothing): one starved in a later stage still had its reading.
    private var read: Set<Orientation> = []
    /// Everything every stage read, per candidate (`Evidence.distinct` counts each word once).
    private var gathered: [Orientation: Evidence] = [:]
    /// Every candidate is read again, the classifier's rotation first but not alone (`run`).
    private var widened = false
    /// Exhaustive mode: every stack read (`StackReads`), for `Trace.stacks`.
    private var recorded: [StackReads] = []
    private let started = ContinuousClock.now

    /// The stages of an image decoded once (`source`), after the classifier has looked at it
    /// (`reading`).
    init(
        inputs: StageInputs, source: consuming GraySource, reading: ClassifierReading, prior: Orientation?,
        meter: WorkMeter
    ) throws {
        // Nothing probed yet (`run` surveys the page).
        let survey = try AnalysisImage.Survey(source: source, parameters: inputs.calibration.analysis, lines: false)
        self.inputs = inputs
        self.prior = prior
        self.meter = meter
        self.survey = survey
        self.reading = reading
        self.source = source
    }

    private var calibration: Calibration { inputs.calibration }
    private var rules: DecisionRules { inputs.rules }

    /// Runs the stages (`readStages`), and weighs what they decided with the classifier
    /// (`finished`). A mirrored answer read with the classifier's rotation as its only rival
    /// (`Lead.excludesOthers`) that does not read as words (`DecisionRules.readsAsWords`) is read
    /// again against every candidate: the confidence model was fitted on readings in which every
    /// rotation's clutter competes, and without it Tesseract's junk on a handwritten page shown
    /// mirrored came out confident and wrong (decision 10). Mirrored answers are rare, and right ones
    /// mostly read as words, so this costs little.
    ///
    /// Where the classifier sees nothing to orient (`DecisionRules.seesNothing`), or is sure enough
    /// to be trusted alone (`DecisionRules.trusts`), no stage reads.
    mutating func run() throws -> Trace {
        if rules.seesNothing(reading) || rules.trusts(reading) {
            return finished(Trace(glyphs: 0, textHeight: 0, windows: 0, horizontalPairs: 0, verticalPairs: 0))
        }
        survey = try AnalysisImage.Survey(
            source: source, parameters: calibration.analysis, lines: calibration.cascade.maxLines > 0)
        let narrowed = try readStages()
        guard lead?.excludesOthers == true, let answer = narrowed.decision.orientation, answer.isMirrored,
            !rules.readsAsWords(gathered[answer]?.distinct ?? Evidence())
        else { return finished(narrowed) }
        widened = true
        (starved, read, gathered) = ([], [], [:])
        return finished(try readStages())
    }

    /// Runs the stages until one decides, the budget is spent or none is left; then, when none
    /// decided, concludes on all they read together (`DecisionRules.concludeTogether`).
    private mutating func readStages() throws -> Trace {
        // The lines' trace where no later stage need read. Exhaustive mode then reads the windows
        // too, for the record (`StackReads`), and answers as the lines did.
        var settled: Trace?
        if let lines = try readLines() {
            gather(lines.evidence, starvedBefore: [])
            if stops(lines) { settled = lines }
            if let settled, !inputs.policy.exhaustive { return settled }
        }
        let c = calibration.cascade
        let analysis = try AnalysisImage.make(
            source: source, parameters: calibration.analysis,
            windows: WindowRequest(
                count: c.maxWindows, sideInTextHeights: c.windowSideInTextHeights, minGlyphs: c.windowMinGlyphs,
                parts: c.windowParts), survey: survey)
        var trace = Trace(
            glyphs: analysis.glyphs, textHeight: analysis.textHeight, windows: analysis.windows.count,
            horizontalPairs: analysis.horizontalPairs, verticalPairs: analysis.verticalPairs)
        trace.analysisSeconds = (ContinuousClock.now - started).milliseconds / 1000
        try meter.checkCancellation()
        if analysis.glyphs >= c.minGlyphs, !analysis.windows.isEmpty {
            let before = starved
            try read(analysis, trace: &trace)
            if let settled { return settled }
            gather(trace.evidence, starvedBefore: before)
            if stops(trace) { return trace }
            try meter.checkCancellation()
        }
        if let settled { return settled }
        if inputs.stacksOnly { return trace }
        try lookCoarsely(analysis, trace: &trace)
        try meter.checkCancellation()
        if !trace.decision.isDecided {
            let together = rules.concludeTogether(gathered, prior: prior)
            if together.isDecided { trace.decision = together }
        }
        return trace
    }

    /// The rotation every stage reads first (`DecisionRules.lead`): never narrowed in exhaustive
    /// mode, which reads everything, nor once `run` has widened the reading.
    private var lead: Lead? {
        rules.lead(reading, marks: marks, narrowing: !inputs.policy.exhaustive && !widened)
    }

    /// Whether no later stage need read after a stage's reading: it decided, the budget is spent,
    /// or the classifier's answer stands on what the stages read so far
    /// (`DecisionRules.classifierStands`).
    private func stops(_ trace: Trace) -> Bool {
        trace.decision.isDecided || meter.exhaustedPart != nil
            || rules.classifierStands(arbitration(trace.decision), lead: lead)
    }

    /// What the rules weigh when the readers meet, with the text's decision `text`.
    private func arbitration(_ text: Decision) -> Arbitration {
        Arbitration(text: text, reading: reading, read: gathered.mapValues(\.distinct), marks: marks)
    }

    /// The letter-like marks the survey found on the page (`classifier.pageMarks`).
    private var marks: Int { survey.linesProbe?.measure.glyphs.count ?? 0 }

    /// Adds what a stage read, per candidate (its lines' or windows' parts, or a coarse look),
    /// to `gathered`.
    /// `starvedBefore`: the candidates starved before this stage; a candidate this stage starved
    /// was not read by it.
    private mutating func gather(_ read: [Orientation: [Evidence]], starvedBefore: Set<Orientation>) {
        for (o, parts) in read {
            for e in parts { gathered[o, default: Evidence()] = gathered[o, default: Evidence()].adding(e) }
            if !parts.isEmpty, !starved.subtracting(starvedBefore).contains(o) { self.read.insert(o) }
        }
    }

    /// The line stage: the page's longest text lines in either direction, each read at the size
    /// where its own letters read best. Nil when the survey found no lines.
    private mutating func readLines() throws -> Trace? {
        guard
            let lines = try AnalysisImage.lines(
                source: source, survey: survey, parameters: calibration.analysis,
                count: calibration.cascade.maxLines)
        else { return nil }
        var trace = Trace(
            glyphs: lines.glyphs, textHeight: lines.textHeight, windows: lines.windows.count,
            horizontalPairs: lines.horizontalPairs, verticalPairs: lines.verticalPairs)
        try read(lines, trace: &trace)
        trace.decision.reason = trace.decision.reason.map { $0 + " (text lines)" }
        return trace
    }

    /// The page stage (`PageStage`), for what the lines and windows leave undecided, and for pages
    /// whose marks do not pair up like letters (a blank page, a photo, a barcode, or a few words
    /// too large or too blurred to come apart into letters). Never "too little text" before
    /// Tesseract's own look (decision 3).
    private mutating func lookCoarsely(_ analysis: borrowing AnalysisImage, trace: inout Trace) throws {
        let frame = PixelBox(x: 0, y: 0, width: source.full.width, height: source.full.height)
        let c = calibration
        // The paper first; then, when that read too little, the whole frame: the paper found in a
        // street scene can be a strip of a stone wall, and a licence plate's paper can leave out
        // its bottom line.
        var looks = [(region: analysis.paper, minScore: c.confidence.minScore)]
        if analysis.paper != frame { looks.append((frame, c.page.minScore)) }
        let stage = PageStage(
            rules: rules, policy: inputs.policy, meter: meter, prior: prior,
            lead: lead)
        for (region, minScore) in looks {
            let before = starved
            let look = try stage.look(
                source: source, region: region, minScore: minScore, skew: analysis.skew,
                alongX: analysis.horizontalPairs >= analysis.verticalPairs, engines: inputs.engines)
            starved.formUnion(look.starved)
            trace.pageEvidence = look.evidence
            trace.decision = look.decision
            gather(trace.pageEvidence.mapValues { [$0] }, starvedBefore: before)
            if trace.decision.isDecided || meter.exhaustedPart != nil || !readTooLittle(trace) { break }
        }
        // "No text" only when the windows, if any were read, read no confident character either.
        let windowsReadNothing = trace.evidence.values.allSatisfy { $0.allSatisfy { $0.confidentCharacters == 0 } }
        if !trace.decision.isDecided, windowsReadNothing, trace.decision.candidates.allSatisfy({ $0.characters == 0 }) {
            trace.decision.reason =
                "no text found (\(analysis.glyphs) letter-like mark\(analysis.glyphs == 1 ? "" : "s"), "
                + "no word read at a coarse scale)"
        }
    }

    /// Whether the page's best reading is too little to answer on by the page's standard
    /// (`DecisionRules.readsTooLittle` at `page.minScore`).
    private func readTooLittle(_ trace: Trace) -> Bool {
        let weights = calibration.scoring
        guard let best = trace.pageEvidence.values.max(by: { $0.score(weights) < $1.score(weights) }) else {
            return false
        }
        return rules.readsTooLittle(best, minScore: calibration.page.minScore)
    }

    /// Reads the candidates of a stack of windows or lines by the cascade (`Cascade`).
    private mutating func read(_ image: borrowing AnalysisImage, trace: inout Trace) throws {
        var starved = self.starved
        defer { self.starved = starved }
        try inputs.engines.withEngine { engine in
            var reader = try CandidateReader(
                engine: engine, image: image, weights: calibration.scoring, meter: meter,
                minTextHeight: calibration.analysis.minTextHeight)
            reader.keepWords = inputs.policy.exhaustive
            var cascade = Cascade(
                rules: rules, policy: inputs.policy, layout: StackLayout(image, rules: rules),
                reader: reader, prior: prior, lead: lead, trace: trace)
            defer {
                starved.formUnion(cascade.reader.starved)
                trace = cascade.trace
            }
            try cascade.run()
            if inputs.policy.exhaustive {
                recorded.append(
                    StackReads(
                        stage: image.windowAlongX.isEmpty ? "windows" : "lines", layout: cascade.layout,
                        parts: cascade.reader.partCount, words: cascade.reader.words,
                        uprightness: cascade.trace.uprightness))
            }
        }
    }

    /// The trace with the budget's note when it ran out (`DecisionRules.budgeted`), and the text's
    /// decision weighed with the classifier's reading (`DecisionRules.arbitrate`).
    private func finished(_ trace: Trace) -> Trace {
        var trace = trace
        if let part = meter.exhaustedPart {
            trace.decision = DecisionRules.budgeted(
                trace.decision, starved: starved.subtracting(read), part: part, spent: meter.summary)
        }
        let inputs = arbitration(trace.decision)
        trace.arbitration = inputs
        trace.stacks = recorded
        trace.decision = rules.arbitrate(inputs)
        return trace
    }
}

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
    /// What the rules weighed when the readers met (`Stages.finished`), for recordings.
    var arbitration: Arbitration?
    /// The winner of the last stack the cascade concluded on, and what the confidence model weighed
    /// of it (`DecisionRules.weigh`), for `CascadeFit`.
    var weighing: DecisionRules.Weighing?
    /// Exhaustive mode: every stack read, every candidate, every part (`StackReads`).
    var stacks: [StackReads] = []
    /// The work units spent (`WorkMeter.work`: decoding, the classifier's squares, every read).
    var work = 0
}

/// What OCR made of the page shown in one candidate orientation.
public struct CandidateScore: Sendable, Codable, Equatable {
    /// The EXIF orientation under which the stored pixels were read.
    public var orientation: Orientation
    /// Evidence of upright text: confident characters, counted extra in dictionary words.
    /// Comparable between the candidates of one decision only.
    public var score: Double
    /// Letters and digits in the words Tesseract was reasonably sure of.
    public var characters: Int
    /// Mean word confidence (0...100) over the words read, 0 when none.
    public var meanConfidence: Double

    /// The result of reading the page under `orientation` (see the properties for each unit).
    public init(orientation: Orientation, score: Double, characters: Int, meanConfidence: Double) {
        self.orientation = orientation
        self.score = score
        self.characters = characters
        self.meanConfidence = meanConfidence
    }
}

/// Which of the resolver's two readers an answer rests on.
public enum Reader: String, Sendable, Codable, Equatable {
    /// Tesseract read the text in the winning orientation (it alone tells a mirrored page).
    case text
    /// The text did not decide (handwriting, other scripts, print Tesseract cannot read); the
    /// orientation classifier was sure enough alone.
    case classifier
    /// Neither was sure enough alone, but the text read best, if too little to decide (a word or
    /// two), in the rotation the classifier saw (`classifier.agreeAt`).
    case both
}

/// The resolver's answer for one image.
public struct Decision: Sendable, Equatable {
    /// The EXIF orientation that displays the stored pixels upright; nil when undecidable.
    public var orientation: Orientation?
    /// Probability that `orientation` is right, calibrated on the corpus: of the decisions made with
    /// confidence 0.9, about 9 in 10 are right. For an undecidable image, the confidence the best
    /// candidate would have had.
    public var confidence: Double
    /// How far the winner leads the runner-up: (best - second) / best, 0...1.
    public var margin: Double
    /// Why the image is undecidable, or a short note on how it was decided.
    public var reason: String?
    /// Every candidate read, best first.
    public var candidates: [CandidateScore]
    /// Which reader the answer rests on; nil when undecidable.
    public var decidedBy: Reader?
    /// The orientation classifier's probability of each rotation (1, 3, 6, 8); empty when it did
    /// not look. It cannot name a mirrored orientation.
    public var classifier: [Orientation: Double] = [:]
    /// The orientation classifier's probability that the image holds nothing to orient; nil from
    /// a model without that class, or when it did not look.
    public var nothing: Double?
    /// The work units spent on the decision (`WorkBudget`: the decode, the classifier's squares,
    /// every read); 0 where the decision was not the resolver's own.
    public var work = 0

    /// A decision as the resolver makes it: a nil `orientation` means undecidable, and `reason` says why.
    public init(
        orientation: Orientation?, confidence: Double, margin: Double, reason: String?,
        candidates: [CandidateScore], decidedBy: Reader? = nil
    ) {
        self.decidedBy = decidedBy ?? (orientation == nil ? nil : .text)
        self.orientation = orientation
        self.confidence = confidence
        self.margin = margin
        self.reason = reason
        self.candidates = candidates
    }

    /// Whether the resolver gave an orientation.
    public var isDecided: Bool { orientation != nil }
}

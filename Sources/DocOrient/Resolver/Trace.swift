/// The decision and the evidence behind it.
package struct Trace: Sendable {
    package var glyphs: Int
    package var textHeight: Double
    package var windows: Int
    package var horizontalPairs: Int
    package var verticalPairs: Int
    /// Time spent decoding, measuring and binarising before any OCR.
    package var analysisSeconds = 0.0
    /// Windows read per candidate.
    package var depth = 0
    /// Per candidate, the evidence of each window read (index 0 = densest).
    package var evidence: [Orientation: [Evidence]] = [:]
    /// Per candidate and window, the words read (exhaustive mode only).
    package var words: [Orientation: [[RecognizedWord]]] = [:]
    /// Leptonica's uprightness of the text windows shown as 1 and as 6 (see `CandidateReader.uprightness`).
    package var uprightness: [Orientation: Double] = [:]
    /// Per candidate, the evidence of the page stage's last look (only when the page stage ran).
    package var pageEvidence: [Orientation: Evidence] = [:]
    package var decision = Decision(orientation: nil, confidence: 0, margin: 0, reason: nil, candidates: [])
    /// What the rules weighed when the readers met (`ImageResolution.finished`), for recordings.
    package var arbitration: Arbitration?
    /// The winner of the last stack the cascade concluded on, and what the confidence model weighed
    /// of it (`DecisionRules.weigh`), for `CascadeFit`.
    package var weighing: DecisionRules.Weighing?
    /// Exhaustive mode: every stack read, every candidate, every part (`StackReads`).
    package var stacks: [StackReads] = []
    /// The work units spent (`WorkMeter.work`: decoding, the classifier's squares, every read).
    var work = 0

    package init(glyphs: Int, textHeight: Double, windows: Int, horizontalPairs: Int, verticalPairs: Int) {
        self.glyphs = glyphs
        self.textHeight = textHeight
        self.windows = windows
        self.horizontalPairs = horizontalPairs
        self.verticalPairs = verticalPairs
    }
}

/// What was read of one stack of parts (text lines or text windows), every candidate, every part.
package struct StackReads: Sendable, Codable, Equatable {
    /// "lines" or "windows": the stage that read the stack.
    package var stage: String
    /// The stack's lie, as the analysis found it.
    var alongX: Bool
    var axisIsClear: Bool
    var partsAreLines: Bool
    /// Parts in the stack.
    package var parts: Int
    /// Per candidate (EXIF value as a string key), per part, the words read (empty for a line
    /// the candidate shows sideways, which is not read).
    var words: [String: [[RecognizedWord]]]
    /// Leptonica's uprightness of the stack shown as 1 and as 6 (`PartReader.uprightness`).
    var uprightness: [String: Double]

    package var layout: StackLayout {
        StackLayout(alongX: alongX, axisIsClear: axisIsClear, partsAreLines: partsAreLines)
    }

    init(
        stage: String, layout: StackLayout, parts: Int, words: [Orientation: [[RecognizedWord]]],
        uprightness: [Orientation: Double]
    ) {
        self.stage = stage
        alongX = layout.alongX
        axisIsClear = layout.axisIsClear
        partsAreLines = layout.partsAreLines
        self.parts = parts
        self.words = Dictionary(uniqueKeysWithValues: words.map { (String($0.key.exifValue), $0.value) })
        self.uprightness = Dictionary(uniqueKeysWithValues: uprightness.map { (String($0.key.exifValue), $0.value) })
    }

    /// The evidence of each part per candidate, scored with `weights`.
    package func evidence(_ weights: ScoringWeights) -> [Orientation: [Evidence]] {
        Dictionary(
            uniqueKeysWithValues: words.compactMap { key, parts in
                Int(key).flatMap(Orientation.init(exifValue:)).map { o in
                    (o, parts.map { Evidence(words: $0, weights: weights) })
                }
            })
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// What docorient learned from the corpus, as one value. The source of truth is
// Models/calibration.json; Calibration+Generated.swift embeds it (Models/embed.py writes that file)
// so the library needs no file at run time, wherever the binary runs from. Why each value is what
// it is: docs/decisions (its README lists which page names which values).

/// How far the cascade reads before it decides (decision 2).
package struct CascadeParameters: Sendable, Codable, Equatable {
    /// A page with fewer glyphs than this has no text to read.
    var minGlyphs: Int
    /// Side of a text window, in text heights.
    package var windowSideInTextHeights: Double
    /// A window must hold at least this many glyphs.
    package var windowMinGlyphs: Int
    /// At most this many windows are read per candidate.
    package var maxWindows: Int
    /// Each window is read in this many parts (cut across the lines), one part at a time.
    var windowParts: Int
    /// At most this many text lines are read per candidate, longest first, before the windows
    /// (0: no line stage). Eight: a receipt's or a letter's longest lines hold some 50 words,
    /// more than any early exit needs, at about the cost of the three windows.
    var maxLines: Int
    /// Stop reading once the leader scores at least this...
    package var earlyExitScore: Double
    /// ...and at least this many times the runner-up (plus one, so zero scores compare).
    package var earlyExitRatio: Double
    /// The text lines run along the axis with more glyph pairs, beyond doubt, when it has at least
    /// this many pairs...
    var axisMinPairs: Int
    /// ...and this many times those of the other axis (both plus one).
    var axisMinRatio: Double
    /// A candidate reads as plain text (the first one read then decides alone; the best rotation
    /// then needs no mirrored rival in `.auto`) with at least this many confident dictionary words...
    package var singleReadDictionaryWords: Int
    /// ...at least this share of its confident words are dictionary words...
    package var singleReadDictionaryShare: Double
    /// ...and those words hold at least this many confidence-weighted letters (short all-caps
    /// "words" read from upside-down print are in the dictionary too).
    package var singleReadDictionaryCharacters: Double
    /// ...and at least this many of its confident words are telling words: short dictionary words
    /// alone ("the", "oil", "was") are read from wrong rotations of fine print too (decision 2).
    var singleReadDictionaryTellingWords: Int
    /// A candidate also reads as plain text when one text window of it reads at least this many
    /// telling words (`Evidence.tellingWords`: long dictionary words and amounts).
    var singleReadTellingWords: Int
    /// Which of an axis pair is read first: the tag's rotation, unless Leptonica's uprightness of
    /// the text windows says the other at least this strongly (its own decision threshold is 8).
    var uprightnessOverTag: Double
}

/// Logistic model turning the winner's evidence into the probability that it is right, fitted
/// by `docorient-lab replay fit-cascade` (`CascadeFit`; decision 4).
package struct ConfidenceModel: Sendable, Codable, Equatable {
    package var intercept: Double
    /// log(1 + winner's score)
    package var bestScore: Double
    /// log(1 + runner-up's score)
    package var secondScore: Double
    /// (best - second) / best
    package var margin: Double
    /// log(1 + dictionary words of the winner)
    package var dictionaryWords: Double
    /// 1 when the winner is the file's tag
    package var priorAgrees: Double
    /// 1 when the file has a usable tag and the winner is another orientation
    package var priorDisagrees: Double
    /// Decide only at or above this confidence; below, the image is undecidable.
    package var decideAt: Double
    /// Below this winner score the page is "too little text" whatever the model says.
    var minScore: Double
    /// The tag stands unless another candidate beats it by more than this relative margin.
    var priorMargin: Double

    /// The calibrated probability for a winner's features.
    func probability(best: Double, second: Double, dictionaryWords words: Int, prior: PriorRelation) -> Double {
        probability(Self.features(best: best, second: second, dictionaryWords: words, prior: prior))
    }

    /// The probability for a feature vector (`features`).
    package func probability(_ x: [Double]) -> Double {
        let z = zip(coefficients, x).reduce(intercept) { $0 + $1.0 * $1.1 }
        return 1 / (1 + exp(-z))
    }

    /// The model's inputs, in the order of `coefficients`: log(1 + best score), log(1 + runner-up
    /// score), the relative margin, log(1 + the winner's dictionary words), and whether the
    /// winner is the tag or another orientation than a usable tag.
    static func features(best: Double, second: Double, dictionaryWords words: Int, prior: PriorRelation) -> [Double] {
        [
            log1p(best), log1p(second), best > 0 ? (best - second) / best : 0, log1p(Double(words)),
            prior == .agrees ? 1 : 0, prior == .disagrees ? 1 : 0,
        ]
    }

    /// The weights of `features`, in their order.
    package var coefficients: [Double] {
        get { [bestScore, secondScore, margin, dictionaryWords, priorAgrees, priorDisagrees] }
        set {
            (bestScore, secondScore, margin, dictionaryWords, priorAgrees, priorDisagrees) =
                (newValue[0], newValue[1], newValue[2], newValue[3], newValue[4], newValue[5])
        }
    }

    enum PriorRelation: Sendable { case none, agrees, disagrees }
}

/// The page stage: the pages whose text lines and windows did not settle the question (text too
/// small, large, faint or blurred to be found or measured with the fixed probe threshold, light
/// on dark, or too few lines) are read whole: the paper (the brightest bright region), then the
/// whole frame, light-corrected, as grey that Tesseract thresholds itself, in its sparse-text
/// mode, in the candidate orientations (decision 3).
package struct PageParameters: Sendable, Codable, Equatable {
    /// Long side of the page image (stored pixels are enlarged up to `maxUpscale` to reach it).
    var longSide: Int
    var maxUpscale: Double
    /// Tile of the background normalisation, in page-image pixels.
    var backgroundTile: Int
    /// Most words one reading of the page in one orientation may recognise (layout analysis at
    /// psm 4 is bounded on its own): work counted, not time, so that the answer does not depend on
    /// the machine's speed and load (decision 3).
    var maxWordsPerRead: Int
    /// After the first axis pair: stop when the leader scores at least this...
    var earlyExitScore: Double
    /// ...and this many times the runner-up (plus one), and reads as dictionary text.
    var earlyExitRatio: Double
    /// Below this winner score the page is "too little readable text".
    var minScore: Double
    /// ...and so it is when the winner read fewer dictionary words and amounts than this: a whole
    /// page of small print read upside down yields confident non-words and numbers ("yuse" for
    /// "asn1"), and a right page-stage answer reads at least one (decision 3).
    var minPlainWords: Int
    /// The winner "reads as text" (mirrored candidates not needed) at this share of dictionary words...
    var mirrorMinDictionaryShare: Double
    /// ...with at least this many telling words (long dictionary words, amounts): a mirrored letter
    /// read as a rotation gives a few short dictionary words among its confident ones, and none
    /// that is telling (decision 3).
    var mirrorMinTellingWords: Int
    /// The page image with these sizes (`AnalysisImage.page`).
    package func pageImage(source: borrowing GraySource, paper: PixelBox, skew: Double = 0) throws -> Pix {
        try AnalysisImage.page(
            source: source, paper: paper, skew: skew, longSide: longSide, maxUpscale: maxUpscale,
            backgroundTile: backgroundTile)
    }
}

/// The orientation classifier, the resolver's second reader (`ClassifierReading`): how it is shown
/// the image, and how far its word goes beside the text's. The text that reads decides; the
/// classifier orders what is read first, decides alone only where the text does not decide, and
/// makes a weak reading of the text undecidable where it disagrees. The squares: decision 8; the
/// thresholds: decision 9.
package struct ClassifierParameters: Sendable, Codable, Equatable {
    /// The model's own view: the image resized to this short side (Lanczos), its centre square...
    var centreShortSide: Int
    /// ...and the squares where the dark strokes are densest in the image resized (area) to this
    /// short side, where letters are larger than in the model's own view...
    var textShortSide: Int
    /// ...at most this many of them (`ClassifierEngine.read`), all combined
    /// (`ClassifierReading.combined`).
    var textSquares: Int
    /// The classifier's best rotation is read first, in every stage, at this probability or more.
    var orderAt: Double
    /// Where the text does not decide, the classifier decides alone at this probability or more
    /// (unless the text reads better mirrored).
    package var decideAloneAt: Double
    /// The confidence given to an answer the classifier gave alone is its probability times this:
    /// the share of such answers right on the fit part, where it cannot tell a mirrored page.
    package var aloneConfidence: Double
    /// A text answer under `ocrStandsAt` is undecidable when the classifier gives another rotation
    /// at least this probability.
    package var overruleAt: Double
    /// A text answer at this confidence or more stands whatever the classifier says.
    package var ocrStandsAt: Double
    /// At this probability or more, the text is read only in the classifier's rotation and its two
    /// mirrored twins (`Lead.excludesOthers`): above the highest probability the classifier gave a
    /// rotation that was neither the right one nor, on a mirrored page, its axis's twin, on the fit
    /// part, with a margin (decision 9).
    package var narrowAt: Double
    /// On a page where the survey found this many letter-like marks or more, the classifier answers
    /// alone from `narrowAt` rather than `decideAloneAt`: more than any hard negative of the fit
    /// part that the nothing guard (`nothingAt`) leaves to the rules (the two-word signs made at
    /// most 30, and those the classifier was sure of, 8 and 3), so a couple of words never gets
    /// there; `docorient-lab replay fit` prints that floor. With PP-LCNet, whose readings have no
    /// nothing to orient, a blank page's paper texture (52 marks) held it at 53; the guard now
    /// stops that page and the barcodes (up to 56) before any rule.
    package var pageMarks: Int
    /// Where the classifier leaves the text its rotation alone (`narrowAt`), each stage reads at
    /// most this many parts (text lines, window parts) of it and of its mirrored twins: enough for
    /// print to confirm the rotation or for a mirrored twin to read better and contradict it ("a
    /// line or two each"; decision 9), where reading on only spends the budget on text Tesseract
    /// cannot read (handwriting, other scripts: the slowest files of decision 9).
    var confirmParts: Int
    /// ...and the page stage's coarse look at most this many recognition steps in each of them
    /// (`page.maxWordsPerRead` otherwise): on handwriting and other scripts each look read 40-60
    /// steps of junk, six looks (the paper, then the frame) a third to half of the work budget, to
    /// answer with the classifier's rotation in the end. The smallest of 10, 20, 30, 40 and 50 at
    /// which no answer of the fit part changes, neither its orientation nor the reader that gave
    /// it; a mirror found by the look reads better in its first steps (decision 9).
    var confirmWords: Int
    /// At this probability or more that the image holds nothing to orient (from a model with that
    /// class, `ClassifierReading.nothing`), the answer is undecidable before Tesseract reads
    /// anything (`DecisionRules.seesNothing`): fitted by `docorient-lab replay fit` as the lowest
    /// probability, from 0.5 (nothing the likeliest class) up, at which no file of the fit part
    /// that the rules answer right is lost.
    package var nothingAt: Double
    /// At this probability or more of its best rotation, the classifier answers alone before
    /// Tesseract reads anything (`DecisionRules.trusts`): for a model that tells a mirrored page
    /// from its twin (Models/orientation/train.py `--mirrors axis`: a mirrored page's probability
    /// is split between its twins), fitted by `docorient-lab replay fit` as the lowest probability at
    /// which no file of the fit part would be answered wrong. 2 (never) for a model that cannot.
    package var trustAt: Double
    /// Where the text did not decide and the classifier is not sure enough to answer alone, the two
    /// answer together when the text's best reading, too little alone (a word or two), is of the
    /// classifier's rotation and the classifier gives it this probability or more
    /// (`DecisionRules.agreement`): fitted by `docorient-lab replay fit` as the lowest probability
    /// at which no file of the fit part is answered wrong so. 2 (never) until fitted.
    package var agreeAt: Double
    /// The confidence of such an answer: the share of them right on the fit part, by Laplace's rule,
    /// under 0.9 (`DecisionRules.maxAloneConfidence`).
    package var agreeConfidence: Double
}

/// Everything fitted on the corpus.
package struct Calibration: Sendable, Codable, Equatable {
    /// Version of the file format; bump when fields change meaning.
    var version: Int
    /// The command that produced these values.
    var fittedWith: String
    package var analysis: AnalysisParameters
    package var scoring: ScoringWeights
    package var cascade: CascadeParameters
    package var confidence: ConfidenceModel
    package var page: PageParameters
    package var classifier: ClassifierParameters
}

extension Calibration {
    /// This calibration with the values of the JSON object `overrides` put in, section by section
    /// (`{"classifier": {"narrowAt": 0.9}}`): for trying values in a replay or an evaluation
    /// without editing Models/calibration.json.
    /// - Throws: `.invalidRequest` for text that is not such an object, an unknown section, or a
    ///   value of the wrong type.
    package func merging(_ overrides: String) throws -> Calibration {
        func invalid(_ why: String) -> DocOrientError {
            DocOrientError(.invalidRequest, "calibration overrides \(overrides): \(why)")
        }
        guard var base = try JSONSerialization.jsonObject(with: JSONEncoder().encode(self)) as? [String: Any],
            let changes = try? JSONSerialization.jsonObject(with: Data(overrides.utf8)) as? [String: Any]
        else { throw invalid("not a JSON object") }
        for (section, values) in changes {
            guard var merged = base[section] as? [String: Any] else { throw invalid("no section \(section)") }
            guard let values = values as? [String: Any] else { throw invalid("\(section) is not an object") }
            for (key, value) in values {
                guard merged[key] != nil else { throw invalid("no value \(section).\(key)") }
                merged[key] = value
            }
            base[section] = merged
        }
        do {
            return try JSONDecoder().decode(Calibration.self, from: JSONSerialization.data(withJSONObject: base))
        } catch {
            throw invalid("\(error)")
        }
    }
}

import Foundation
import Testing

@testable import DocOrient

/// How the text's decision and the classifier's reading are weighed (`DecisionRules.arbitrate`),
/// on recorded readings: no OCR engine, no model.
struct DecisionRulesTests {
    /// The embedded calibration with the classifier's thresholds set here, so that each rule is
    /// tested apart from the values fitted on the corpus.
    static let rules: DecisionRules = {
        var calibration = Calibration.embedded
        calibration.classifier.decideAloneAt = 0.8
        calibration.classifier.aloneConfidence = 0.9
        calibration.classifier.overruleAt = 0.8
        calibration.classifier.ocrStandsAt = 0.95
        return DecisionRules(calibration: calibration)
    }()

    static func reading(_ best: Orientation, _ p: Double) -> ClassifierReading {
        let rest = (1 - p) / 3
        return ClassifierReading(probabilities: ClassifierReading.rotations.map { $0 == best ? p : rest })
    }

    static func text(_ o: Orientation?, confidence: Double, reason: String? = nil) -> Decision {
        Decision(orientation: o, confidence: confidence, margin: 0.5, reason: reason, candidates: [])
    }

    static func evidence(_ words: [String], dictionary: Bool = true) -> Evidence {
        Evidence(
            words: words.map {
                RecognizedWord(text: $0, confidence: 90, isFromDictionary: dictionary, isNumeric: false)
            },
            weights: Calibration.embedded.scoring)
    }

    @Test func aSureTextAnswerStandsWhateverTheClassifierSays() {
        let d = Self.rules.arbitrate(
            Self.text(.rotate90, confidence: 0.99), reading: Self.reading(.identity, 0.93), read: [:], marks: 0)
        #expect(d.orientation == .rotate90)
        #expect(d.decidedBy == .text)
        #expect(d.classifier[.identity] == 0.93)
    }

    @Test func aWeakTextAnswerTheClassifierContradictsIsUndecidable() {
        let d = Self.rules.arbitrate(
            Self.text(.rotate90, confidence: 0.7), reading: Self.reading(.rotate270, 0.9), read: [:], marks: 0)
        #expect(d.orientation == nil)
        #expect(d.decidedBy == nil)
        #expect(d.reason?.contains("the readers disagree") == true)
    }

    @Test func aWeakTextAnswerTheClassifierConfirmsStands() {
        let d = Self.rules.arbitrate(
            Self.text(.rotate90, confidence: 0.7), reading: Self.reading(.rotate90, 0.9), read: [:], marks: 0)
        #expect(d.orientation == .rotate90)
        #expect(d.decidedBy == .text)
    }

    /// The confident wrong answer: an upright receipt read as its vertical mirror (4), its
    /// upright twin reading nothing. A mirrored reading whose unmirrored twin read nothing is no
    /// evidence of a mirror.
    @Test func aMirroredAnswerWhoseTwinReadNothingIsNoEvidenceOfAMirror() {
        let read: [Orientation: Evidence] = [
            .identity: Evidence(), .flipVertical: Self.evidence(["Tolal", "Caslr", "Bnnk"], dictionary: false),
        ]
        let d = Self.rules.arbitrate(
            Self.text(.flipVertical, confidence: 0.944), reading: Self.reading(.identity, 0.9), read: read,
            marks: 0)
        #expect(d.orientation == nil)
        // Mirrored print read unmirrored reads some confident characters: then the mirror stands.
        var twinRead = read
        twinRead[.identity] = Self.evidence(["Bnk", "lsaT"], dictionary: false)
        let mirrored = Self.rules.arbitrate(
            Self.text(.flipVertical, confidence: 0.944), reading: Self.reading(.identity, 0.9), read: twinRead,
            marks: 0)
        #expect(mirrored.orientation == .flipVertical)
    }

    /// What Tesseract read of a page it reads nothing of: every candidate, the mirrored ones too.
    static let readNothing: [Orientation: Evidence] = Dictionary(
        uniqueKeysWithValues: Orientation.allCases.map { ($0, Evidence()) })

    @Test func whereTheTextDoesNotDecideASureClassifierAnswersAlone() {
        let d = Self.rules.arbitrate(
            Self.text(nil, confidence: 0.2, reason: "no text found"), reading: Self.reading(.rotate180, 0.92),
            read: Self.readNothing, marks: 0)
        #expect(d.orientation == .rotate180)
        #expect(d.decidedBy == .classifier)
        #expect(abs(d.confidence - 0.92 * 0.9) < 0.001)
        #expect(d.reason?.contains("no text found") == true)
    }

    /// A spent budget that cut the mirrored reads leaves the mirror unexcluded: a mirrored sample
    /// (5) read once, with a classifier sure of its twin rotation (8), came out as 8.
    @Test func theClassifierDoesNotAnswerAloneWhereTheMirroredTwinsWentUnread() {
        let d = Self.rules.arbitrate(
            Self.text(nil, confidence: 0.2, reason: "work budget spent (reads: 1 read)"),
            reading: Self.reading(.rotate270, 0.92), read: [.rotate270: Evidence()], marks: 0)
        #expect(d.orientation == nil)
        #expect(d.reason?.hasPrefix("work budget spent") == true)
        #expect(d.reason?.contains("orientation 5") == true)
    }

    /// A two-word sign ("PRIVATE PROPERTY" read at 96 in 8, nothing any other way) with a classifier
    /// under its bar alone for it (0.63): the two readers name the same rotation, and answer together.
    @Test func whereNeitherDecidesAloneTheyAnswerTogetherWhenTheyAgree() {
        var calibration = Self.rules.calibration
        (calibration.classifier.agreeAt, calibration.classifier.agreeConfidence) = (0.6, 0.8)
        let rules = DecisionRules(calibration: calibration)
        let text = Self.text(nil, confidence: 0.3, reason: "too little readable text (2 confident words)")
        var read = Self.readNothing
        read[.rotate270] = Self.evidence(["PRIVATE", "PROPERTY"])
        let d = rules.arbitrate(text, reading: Self.reading(.rotate270, 0.63), read: read, marks: 40)
        #expect(d.orientation == .rotate270)
        #expect(d.decidedBy == .both)
        #expect(d.confidence == 0.8)
        #expect(d.reason?.contains("too little readable text") == true, "\(d)")
        // A reading with no favourite names no rotation, even at a bar of a quarter.
        var anyBar = calibration
        anyBar.classifier.agreeAt = 0.25
        let even = ClassifierReading(probabilities: [0.25, 0.25, 0.25, 0.25])
        var readIdentity = Self.readNothing
        readIdentity[.identity] = Self.evidence(["PRIVATE", "PROPERTY"])
        #expect(
            DecisionRules(calibration: anyBar).arbitrate(text, reading: even, read: readIdentity, marks: 40).orientation
                == nil)
        // Under `agreeAt`, no answer.
        let unsure = rules.arbitrate(text, reading: Self.reading(.rotate270, 0.55), read: read, marks: 40)
        #expect(unsure.orientation == nil)
        // The text reading best elsewhere is no agreement...
        let elsewhere = rules.arbitrate(text, reading: Self.reading(.rotate90, 0.63), read: read, marks: 40)
        #expect(elsewhere.orientation == nil)
        // ...nor a lead short of the cascade's early-exit ratio: clutter reads about as well every way.
        var clutter = read
        clutter[.rotate90] = Self.evidence(["PROPERTY"])
        #expect(
            rules.arbitrate(text, reading: Self.reading(.rotate270, 0.63), read: clutter, marks: 40).orientation == nil)
        // ...nor a reading whose mirrored twins went unread (a mirrored page reads better mirrored).
        var unreadTwin = read
        unreadTwin[.transpose] = nil
        #expect(
            rules.arbitrate(text, reading: Self.reading(.rotate270, 0.63), read: unreadTwin, marks: 40).orientation
                == nil)
    }

    /// A mirrored lead is no agreement: the classifier names a mirrored page as its unmirrored
    /// twin, so only the text says "mirrored" (a held-out menu read best as 5, the classifier on 8).
    @Test func aMirroredTextLeadDoesNotAgreeWithTheClassifiersTwin() {
        var calibration = Self.rules.calibration
        calibration.classifier.agreeAt = 0.6
        let rules = DecisionRules(calibration: calibration)
        var read = Self.readNothing
        read[.transpose] = Self.evidence(["PRIVATE", "PROPERTY"])
        let d = rules.arbitrate(
            Self.text(nil, confidence: 0.3, reason: "too little readable text (2 confident words)"),
            reading: Self.reading(.rotate270, 0.7), read: read, marks: 40)
        #expect(d.orientation == nil)
    }

    /// The classifier's bar falls from `decideAloneAt` to `narrowAt` on a page of many letter-like
    /// marks, never on a couple of words (the fit part's two-word signs: the classifier at 0.88).
    @Test func onAPageOfManyMarksTheClassifierAnswersAloneFromItsLowerBar() {
        var calibration = Calibration.embedded
        (calibration.classifier.decideAloneAt, calibration.classifier.narrowAt) = (0.89, 0.8)
        calibration.classifier.pageMarks = 53
        let rules = DecisionRules(calibration: calibration)
        let text = Self.text(nil, confidence: 0.2, reason: "too little readable text (1 confident word)")
        let page = rules.arbitrate(text, reading: Self.reading(.rotate90, 0.85), read: Self.readNothing, marks: 56)
        #expect(page.orientation == .rotate90)
        #expect(page.decidedBy == .classifier)
        let sign = rules.arbitrate(text, reading: Self.reading(.rotate90, 0.85), read: Self.readNothing, marks: 8)
        #expect(sign.orientation == nil)
        let sure = rules.arbitrate(text, reading: Self.reading(.rotate90, 0.9), read: Self.readNothing, marks: 8)
        #expect(sure.orientation == .rotate90)
    }

    @Test func anUnsureClassifierLeavesItUndecidable() {
        let d = Self.rules.arbitrate(
            Self.text(nil, confidence: 0.2, reason: "no text found"), reading: Self.reading(.rotate180, 0.6),
            read: [:], marks: 0)
        #expect(d.orientation == nil)
        #expect(d.reason == "no text found")
    }

    @Test func theClassifierDoesNotAnswerAloneWhereTheTextReadsBetterMirrored() {
        var gathered = Self.readNothing
        gathered[.identity] = Self.evidence(["ab"], dictionary: false)
        gathered[.flipHorizontal] = Self.evidence(["receipt", "total", "amount", "cash"])
        let d = Self.rules.arbitrate(
            Self.text(nil, confidence: 0.5, reason: "evenly matched"), reading: Self.reading(.identity, 0.92),
            read: gathered, marks: 0)
        #expect(d.orientation == nil)
        #expect(d.reason?.contains("reads better mirrored (2)") == true)
    }

    @Test func theModelsClassesMapToTheRotationsThatUndoThem() {
        // Class order 0, 90, 180, 270 degrees clockwise: the text turned 90 clockwise (class 1) is
        // shown upright by rotation 8 (270 clockwise), as bench.py's rapid peer maps it.
        let reading = ClassifierReading(modelOutput: [0.1, 0.6, 0.2, 0.1])
        #expect(reading.best == .rotate270)
        #expect(abs(reading.probability(.rotate180) - 0.2) < 1e-6)
        #expect(reading.probability(.flipHorizontal) == 0)
    }

    @Test func combinedReadingsFavourTheSquaresThatAreSure() {
        let sure = Self.reading(.identity, 0.9)
        let blank = ClassifierReading(probabilities: [0.25, 0.25, 0.25, 0.25])
        let combined = ClassifierReading.combined([sure, blank, blank])
        #expect(combined.best == .identity)
        #expect(abs(combined.probabilities.reduce(0, +) - 1) < 1e-9)
    }

    /// docorient's own model answers a fifth class, nothing to orient: the squares' five classes
    /// combine as the model's answer on their mean logits (what Models/orientation/train.py
    /// trains), the rotations given a page.
    @Test func fiveClassSquaresCombineAsTheSoftmaxOfTheirMeanLogits() {
        let squares: [[Double]] = [[2, 0.5, -1, 0, 1], [1, 0, 0, -2, 3], [0.3, 0.2, 0.1, 0, -1]]
        func softmax(_ z: [Double]) -> [Double] {
            let top = z.max()!
            let e = z.map { exp($0 - top) }
            return e.map { $0 / e.reduce(0, +) }
        }
        let combined = ClassifierReading.combined(
            squares.map { ClassifierReading(modelOutput: softmax($0).map(Float.init)) })
        let mean = (0..<5).map { i in squares.map { $0[i] }.reduce(0, +) / 3 }
        let expected = softmax(mean)
        #expect(abs(combined.nothing! - expected[4]) < 1e-6)
        // Class 0 (upright) given a page: rotation 1.
        #expect(abs(combined.probability(.identity) - expected[0] / (1 - expected[4])) < 1e-6)
        #expect(
            ClassifierReading.combined([Self.reading(.identity, 0.9), Self.reading(.identity, 0.8)]).nothing == nil)
    }

    /// Where the classifier sees nothing to orient (`nothingAt`), the answer is undecidable
    /// whatever the text read, and says so; under it, the text's answer stands.
    @Test func theClassifierSeeingNothingToOrientLeavesTheImageUndecidable() {
        var calibration = Calibration.embedded
        calibration.classifier.nothingAt = 0.6
        let rules = DecisionRules(calibration: calibration)
        var reading = Self.reading(.identity, 0.9)
        reading.nothing = 0.7
        let d = rules.arbitrate(Self.text(.identity, confidence: 0.95), reading: reading, read: [:], marks: 0)
        #expect(d.orientation == nil && d.decidedBy == nil)
        #expect(d.reason == "the classifier sees nothing to orient (70%)")
        reading.nothing = 0.59
        #expect(
            rules.arbitrate(Self.text(.identity, confidence: 0.95), reading: reading, read: [:], marks: 0)
                .orientation == .identity)
    }

    /// A classifier trusted alone (`trustAt`) answers with nothing read, whatever the text said,
    /// under 0.9 as any answer of it alone; under the bar, or seeing nothing to orient, it is not.
    @Test func aTrustedClassifierAnswersWithNothingReadAndOnlyAtItsBar() {
        var calibration = Calibration.embedded
        calibration.classifier.trustAt = 0.95
        calibration.classifier.aloneConfidence = 0.95
        calibration.classifier.nothingAt = 0.6
        let rules = DecisionRules(calibration: calibration)
        var reading = Self.reading(.rotate270, 0.96)
        #expect(rules.trusts(reading))
        let d = rules.arbitrate(Self.text(.identity, confidence: 0.99), reading: reading, read: [:], marks: 0)
        #expect(d.orientation == .rotate270 && d.decidedBy == .classifier)
        #expect(d.confidence == 0.89)
        #expect(d.reason?.contains("sure enough to answer without reading") == true)
        reading.nothing = 0.7
        #expect(!rules.trusts(reading))
        #expect(!rules.trusts(Self.reading(.rotate270, 0.94)))
        let below = rules.arbitrate(
            Self.text(.identity, confidence: 0.99), reading: Self.reading(.rotate270, 0.94), read: [:], marks: 0)
        #expect(below.orientation == .identity && below.decidedBy == .text)
        // The shipped calibration trusts no reading (model 2 cannot tell a mirror).
        #expect(!DecisionRules(calibration: .embedded).trusts(Self.reading(.identity, 0.999)))
    }

    /// Issue 43: the classifier cannot see a mirror, so an answer of it alone stays under 0.9
    /// however sure it is, and says why.
    @Test func anAnswerOfTheClassifierAloneStaysUnderPointNineAndSaysAMirrorWasNotRuledOut() {
        var calibration = Calibration.embedded
        calibration.classifier.aloneConfidence = 1
        let rules = DecisionRules(calibration: calibration)
        let nothing: [Orientation: Evidence] = [.rotate90: Evidence(), .transpose: Evidence(), .transverse: Evidence()]
        let d = rules.arbitrate(
            Self.text(nil, confidence: 0), reading: Self.reading(.rotate90, 0.99), read: nothing, marks: 500)
        #expect(d.orientation == .rotate90 && d.decidedBy == .classifier)
        #expect(d.confidence < 0.9)
        #expect(d.reason?.hasSuffix("a mirrored page could not be ruled out") == true)
    }
}

import Foundation
import Testing

@testable import DocOrient
@testable import DocOrientLab

/// The classifier's thresholds fitted by replaying recordings through the rules themselves
/// (`ClassifierFit`, `Recording`): no OCR engine, no model.
struct ClassifierFitTests {
    /// A reading that names `best` at `p`, the other rotations alike.
    static func reading(_ best: Orientation, _ p: Double) -> ClassifierReading {
        let rest = (1 - p) / 3
        return ClassifierReading(probabilities: ClassifierReading.rotations.map { $0 == best ? p : rest })
    }

    /// A recording of a page the text did not decide, whose twins read nothing, on which the
    /// classifier names `best` at `p`.
    static func undecided(_ name: String, _ best: Orientation, _ p: Double, marks: Int = 0) -> Recording {
        let text = Decision(
            orientation: nil, confidence: 0, margin: 0, reason: "too little readable text", candidates: [])
        let twins: [Orientation] = best.swapsDimensions ? [.transpose, .transverse] : [.flipHorizontal, .flipVertical]
        let arbitration = Arbitration(
            text: text, reading: Self.reading(best, p),
            read: Dictionary(uniqueKeysWithValues: ([best] + twins).map { ($0, Evidence()) }), marks: marks)
        return Recording(
            path: name, arbitration: arbitration, decision: DecisionRules(calibration: .embedded).arbitrate(arbitration)
        )
    }

    @Test func aRecordingReplaysToItsDecisionAfterARoundTripThroughJSON() throws {
        let recording = Self.undecided("page.jpg", .rotate90, 0.95)
        let again = try JSONDecoder().decode(Recording.self, from: JSONEncoder().encode(recording))
        #expect(again == recording)
        #expect(again.replayed() == recording.decision)
        #expect(recording.decision.decidedBy == "classifier" && recording.decision.orientation == 6)
    }

    @Test func decideAloneAtIsTheLowestBarWithNoWrongAnswerOnTheFitPart() {
        let rows = [
            ClassifierFit.Row(recording: Self.undecided("a", .identity, 0.93), truth: 1, decidable: true),
            ClassifierFit.Row(recording: Self.undecided("b", .rotate90, 0.88), truth: 6, decidable: true),
            // Right above 0.86, wrong at 0.86, and a hard negative at 0.80: the bar is 0.87.
            ClassifierFit.Row(recording: Self.undecided("c", .rotate180, 0.86), truth: 1, decidable: true),
            ClassifierFit.Row(recording: Self.undecided("d", .rotate270, 0.80), truth: 1, decidable: false),
            ClassifierFit.Row(recording: Self.undecided("e", .identity, 0.70), truth: 1, decidable: true),
        ]
        let fit = ClassifierFit()
        let fitted = fit.fit(rows)
        #expect(abs(fitted.decideAloneAt - 0.87) < 1e-9)
        // Two right answers alone: (2 + 1) / (2 + 2).
        #expect(fitted.aloneConfidence == 0.75)
        let tally = fit.tally(rows, .fitted(fitted))
        #expect(tally.right == 2 && tally.wrong == 0 && tally.undecided == 2 && tally.negativesAnswered == 0)
        let textAlone = fit.tally(rows, .textAlone)
        #expect(textAlone.right == 0 && textAlone.undecided == 4)
    }

    /// A page the text did not decide that read a word or two of print in `lead` (nothing any other
    /// way), on which the classifier names `best` at `p`.
    static func agreeing(_ name: String, _ best: Orientation, _ p: Double, lead: Orientation) -> Recording {
        var a = undecided(name, best, p).arbitration
        a.read[lead] = Evidence(
            words: ["PRIVATE", "PROPERTY"].map {
                RecognizedWord(text: $0, confidence: 95, isFromDictionary: true, isNumeric: false)
            }, weights: Calibration.embedded.scoring)
        return Recording(path: name, arbitration: a, decision: DecisionRules(calibration: .embedded).arbitrate(a))
    }

    /// `agreeAt`: the lowest bar at which the two readers answering together give no wrong fit
    /// answer; `agreeConfidence` the share of those right.
    @Test func agreeAtIsTheLowestBarWithNoWrongAnswerTogether() {
        let rows = [
            // The classifier alone wrong at 0.9: decideAloneAt 0.91, above every row below.
            ClassifierFit.Row(recording: Self.undecided("w", .rotate180, 0.9), truth: 1, decidable: true),
            ClassifierFit.Row(
                recording: Self.agreeing("a", .identity, 0.8, lead: .identity), truth: 1, decidable: true),
            // A sign both read sideways the wrong way at 0.7; right at 0.75.
            ClassifierFit.Row(
                recording: Self.agreeing("b", .rotate90, 0.7, lead: .rotate90), truth: 8, decidable: true),
            ClassifierFit.Row(
                recording: Self.agreeing("c", .rotate90, 0.75, lead: .rotate90), truth: 6, decidable: true),
            // The text reading best elsewhere: no agreement whatever the bar.
            ClassifierFit.Row(
                recording: Self.agreeing("d", .rotate90, 0.85, lead: .rotate270), truth: 8, decidable: true),
        ]
        let fit = ClassifierFit()
        let fitted = fit.fit(rows)
        #expect(abs(fitted.decideAloneAt - 0.91) < 1e-9)
        #expect(abs(fitted.agreeAt - 0.71) < 1e-9)
        #expect(fitted.agreeConfidence == 0.75)
        let tally = fit.tally(rows, .fitted(fitted))
        #expect(tally.right == 2 && tally.wrong == 0 && tally.undecided == 3)
        #expect(tally.byReader["both"]?.right == 2)
    }

    /// `trustAt` needs the fit files at its bar to show it: their share harmless by Laplace's rule
    /// must reach the confidence a trusted answer is given there (model 2 reached 0.93 on 2 files).
    @Test func trustAtRestingOnAFileOrTwoIsNoBar() {
        let fit = ClassifierFit()
        let fitted = ClassifierFit.Fitted(
            nothingAt: ClassifierFit.never, decideAloneAt: 0.91, aloneConfidence: 0.938,
            overruleAt: ClassifierFit.never,
            ocrStandsAt: 0.9, trustAt: ClassifierFit.never, agreeAt: ClassifierFit.never, agreeConfidence: 1)
        var rows = [
            ClassifierFit.Row(recording: Self.undecided("a", .rotate90, 0.97), truth: 6, decidable: true),
            // A mirrored page (2) named as its twin at 0.9: the bar must be above it.
            ClassifierFit.Row(recording: Self.undecided("m", .identity, 0.9), truth: 2, decidable: true),
        ]
        // One file at 0.91 or more: (1 + 1) / (1 + 2) is short of the 0.854 a trusted answer is given.
        #expect(fit.fitTrustAt(rows, fitted).trustAt == ClassifierFit.never)
        // Seven: (7 + 1) / (7 + 2) reaches it.
        rows += (0..<6).map {
            ClassifierFit.Row(
                recording: Self.undecided("p\($0)", .identity, 0.92 + 0.01 * Double($0)), truth: 1, decidable: true)
        }
        #expect(abs(fit.fitTrustAt(rows, fitted).trustAt - 0.91) < 1e-9)
    }

    /// Issue 60's judging: a scene (no text, an up) answered with its own upright is harmless, answered
    /// otherwise wrong; a file without an up (a barcode) is wrong to answer at all.
    @Test func aSceneAnsweredUprightIsHarmlessAndAFileWithoutAnUpTakesNoAnswer() {
        let page = ClassifierFit.Row(recording: Self.undecided("page", .rotate90, 0.95), truth: 6, decidable: true)
        func rows(_ extra: ClassifierFit.Row) -> [ClassifierFit.Row] { [page, extra] }
        let sceneUpright = ClassifierFit.Row(
            recording: Self.undecided("street", .identity, 0.9), truth: 1, decidable: false, hasUp: true)
        let sceneSideways = ClassifierFit.Row(
            recording: Self.undecided("cup", .rotate90, 0.9), truth: 1, decidable: false, hasUp: true)
        let barcode = ClassifierFit.Row(
            recording: Self.undecided("barcode", .identity, 0.9), truth: 1, decidable: false)
        let fit = ClassifierFit()
        // The scene answered upright at 0.9 does not hold the bar up: 0.5 answers both.
        #expect(abs(fit.fit(rows(sceneUpright)).decideAloneAt - 0.5) < 1e-9)
        let upright = fit.tally(rows(sceneUpright), .fitted(fit.fit(rows(sceneUpright))))
        #expect(upright.right == 1 && upright.scenesUpright == 1 && upright.negativesAnswered == 0)
        // Sideways, or a barcode answered at all: the bar rises above 0.9.
        #expect(abs(fit.fit(rows(sceneSideways)).decideAloneAt - 0.91) < 1e-9)
        #expect(abs(fit.fit(rows(barcode)).decideAloneAt - 0.91) < 1e-9)
        let answered = fit.tally(rows(barcode), .fitted(fit.fit(rows(sceneUpright))))
        #expect(answered.negativesAnswered == 1 && answered.scenesUpright == 0)
    }

    /// `trustAt`: the lowest bar at which the classifier's rotation is harmless on every fit file at
    /// or above it: a mirrored page named as its twin (wrong) holds it up, a scene named upright
    /// does not, and a file without an up named at all does.
    @Test func trustAtIsTheLowestBarAtWhichTheClassifiersRotationIsHarmlessOnEveryFitFile() {
        var rows = [
            ClassifierFit.Row(recording: Self.undecided("a", .rotate90, 0.97), truth: 6, decidable: true),
            ClassifierFit.Row(recording: Self.undecided("b", .identity, 0.99), truth: 1, decidable: true),
            // A mirrored page (2) named as its twin at 0.9: the bar must be above it.
            ClassifierFit.Row(recording: Self.undecided("m", .identity, 0.9), truth: 2, decidable: true),
            ClassifierFit.Row(
                recording: Self.undecided("scene", .rotate180, 0.98), truth: 3, decidable: false, hasUp: true),
        ]
        let fit = ClassifierFit()
        #expect(abs(fit.fit(rows).trustAt - 0.91) < 1e-9)
        // The trusted answers: both pages and the scene, harmlessly; the mirrored page as before.
        let t = fit.tally(rows, .fitted(fit.fit(rows)))
        #expect(t.right == 2 && t.scenesUpright == 1 && t.negativesAnswered == 0)
        rows.append(
            ClassifierFit.Row(recording: Self.undecided("barcode", .identity, 0.995), truth: 1, decidable: false))
        #expect(fit.fit(rows).trustAt == 0.999)
        rows.append(
            ClassifierFit.Row(recording: Self.undecided("wrong", .rotate90, 0.9995), truth: 1, decidable: true))
        #expect(fit.fit(rows).trustAt == ClassifierFit.never)
    }

    /// `decideAloneAt` is fitted on the pages it governs: a page of `pageMarks` marks or more is
    /// answered alone from `narrowAt`, whatever that bar, so its wrong answer does not push the bar
    /// to never (it is `narrowAt`'s to answer for).
    @Test func decideAloneAtIgnoresThePagesNarrowAtGoverns() {
        let marks = Calibration.embedded.classifier.pageMarks
        let rows = [
            ClassifierFit.Row(recording: Self.undecided("a", .identity, 0.93), truth: 1, decidable: true),
            // A mirrored page of many marks named as its twin at 0.95: wrong whatever decideAloneAt.
            ClassifierFit.Row(
                recording: Self.undecided("m", .identity, 0.95, marks: marks + 10), truth: 2, decidable: true),
            ClassifierFit.Row(recording: Self.undecided("c", .rotate180, 0.86), truth: 1, decidable: true),
        ]
        #expect(abs(ClassifierFit().fit(rows).decideAloneAt - 0.87) < 1e-9)
    }

    /// A recording as `undecided`'s, the classifier also giving `nothing` to nothing to orient.
    static func undecided(_ name: String, _ best: Orientation, _ p: Double, nothing: Double) -> Recording {
        var recording = undecided(name, best, p)
        recording.nothing = nothing
        return recording
    }

    @Test func nothingAtIsTheLowestBarAboveEveryRightAnswerOfTheFitPart() {
        let rows = [
            // Answered right by the classifier alone: their nothing (0.2, 0.62) must stay under the bar.
            ClassifierFit.Row(recording: Self.undecided("a", .identity, 0.95, nothing: 0.2), truth: 1, decidable: true),
            ClassifierFit.Row(
                recording: Self.undecided("b", .rotate90, 0.95, nothing: 0.62), truth: 6, decidable: true),
            // Wrong (a mirrored page named as its twin): its nothing does not hold the bar up.
            ClassifierFit.Row(recording: Self.undecided("c", .identity, 0.9, nothing: 0.8), truth: 2, decidable: true),
            // Hard negatives: one the guard catches (0.9), one it does not (0.55), which holds the
            // classifier's own bar above its 0.9.
            ClassifierFit.Row(
                recording: Self.undecided("d", .rotate180, 0.95, nothing: 0.9), truth: 1, decidable: false),
            ClassifierFit.Row(
                recording: Self.undecided("e", .rotate180, 0.9, nothing: 0.55), truth: 1, decidable: false),
        ]
        let fit = ClassifierFit()
        let fitted = fit.fit(rows)
        #expect(abs(fitted.nothingAt - 0.63) < 1e-9)
        #expect(abs(fitted.decideAloneAt - 0.91) < 1e-9)
        let tally = fit.tally(rows, .fitted(fitted))
        #expect(tally.right == 2 && tally.wrong == 0 && tally.negatives == 2 && tally.negativesAnswered == 0)
        // A model without the class (PP-LCNet): never.
        #expect(
            fit.fitNothingAt(
                rows.map {
                    var r = $0; r.recording.nothing = nil; return r
                }) == ClassifierFit.never)
    }

    @Test func theNarrowFloorIsTheSurestRotationOffTheRightAxis() {
        let rows = [
            // A mirrored page (5, on the quarter-turn axis) named 6: on its axis, not counted.
            ClassifierFit.Row(recording: Self.undecided("m", .rotate90, 0.9), truth: 5, decidable: true),
            ClassifierFit.Row(recording: Self.undecided("w", .rotate180, 0.72), truth: 1, decidable: true),
            ClassifierFit.Row(recording: Self.undecided("r", .identity, 0.95), truth: 1, decidable: true),
        ]
        #expect(abs(ClassifierFit().narrowFloor(rows) - 0.72) < 1e-9)
    }

    @Test func thePageMarksFloorIsTheMostMarksOfANegativeTheNothingGuardLeaves() {
        func negative(_ name: String, marks: Int, nothing: Double?) -> ClassifierFit.Row {
            var recording = Self.undecided(name, .identity, 0.8, marks: marks)
            recording.nothing = nothing
            return ClassifierFit.Row(recording: recording, truth: 1, decidable: false)
        }
        let rows = [
            // A blank page whose paper texture made 52 marks, stopped by the guard: not counted.
            negative("blank", marks: 52, nothing: 0.98),
            negative("two words", marks: 30, nothing: 0.55),
            negative("sign", marks: 8, nothing: 0.2),
            // A page to orient with many marks: not a negative.
            ClassifierFit.Row(recording: Self.undecided("page", .identity, 0.9, marks: 300), truth: 1, decidable: true),
        ]
        #expect(ClassifierFit().pageMarksFloor(rows, nothingAt: 0.97) == 30)
        // From a model without the class (PP-LCNet), every negative counts.
        #expect(
            ClassifierFit().pageMarksFloor(
                rows.map {
                    var r = $0
                    r.recording.nothing = nil
                    return r
                }, nothingAt: 0.97) == 52)
    }
}

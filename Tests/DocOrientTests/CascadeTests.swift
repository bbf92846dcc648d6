import Foundation
import Testing

@testable import DocOrient

/// The cascade's order and stopping on recorded readings (`PartReader`): which candidates it
/// reads, how deep, and what it concludes, without Tesseract.
struct CascadeTests {
    /// A line of plain print: long dictionary words and an amount.
    static let print = evidence(["Payment", "received", "Thursday", "morning", "12.50"], dictionary: true)
    /// What Tesseract makes of handwriting or of a wrong rotation: short confident non-words.
    static let junk = evidence(["Hrn", "tlw"], dictionary: false)

    static func evidence(_ words: [String], dictionary: Bool) -> Evidence {
        Evidence(
            words: words.map {
                RecognizedWord(text: $0, confidence: 90, isFromDictionary: dictionary, isNumeric: false)
            },
            weights: Calibration.embedded.scoring)
    }

    static func run(
        _ reader: RecordedParts, lead: Lead? = nil, prior: Orientation? = nil, alongX: Bool = true
    ) throws -> (decision: Decision, log: [(o: Orientation, part: Int)]) {
        var cascade = Cascade(
            rules: DecisionRules(calibration: .embedded), policy: CandidatePolicy(exhaustive: false, mirror: .auto),
            layout: StackLayout(alongX: alongX, axisIsClear: false, partsAreLines: false), reader: reader,
            prior: prior, lead: lead,
            trace: Trace(glyphs: 100, textHeight: 22, windows: reader.partCount, horizontalPairs: 0, verticalPairs: 0))
        try cascade.run()
        return (cascade.trace.decision, cascade.reader.log)
    }

    @Test func aRotationThatReadsAsPlainTextAtItsFirstPartSettlesAlone() throws {
        let (decision, log) = try Self.run(RecordedParts([.identity: [Self.print]], parts: 6))
        #expect(decision.orientation == .identity)
        #expect(log.map(\.o) == [.identity] && log.map(\.part) == [1])
    }

    @Test func theLikelierAxisIsReadFirstAndTheOtherWhenItDoesNotSettle() throws {
        // Lines along y: 6 and 8 first; the page reads upright as 6 at its first part.
        let (decision, log) = try Self.run(RecordedParts([.rotate90: [Self.print]], parts: 6), alongX: false)
        #expect(decision.orientation == .rotate90)
        #expect(log.first?.o == .rotate90 && log.count == 1)
        // Along x, the pair 1, 3 is read first and fails; 6 then settles it.
        let (other, otherLog) = try Self.run(RecordedParts([.rotate90: [Self.print]], parts: 6), alongX: true)
        #expect(other.orientation == .rotate90)
        #expect(Array(otherLog.map(\.o).prefix(2)) == [.identity, .rotate180])
    }

    /// Issue 43: where the classifier is sure, Tesseract reads only its rotation and the mirrored
    /// twins, a line or two each, and stops: handwriting reads junk in all three.
    @Test func aSureClassifiersRotationAndItsTwinsAreReadAtMostConfirmPartsDeep() throws {
        let junk = [Orientation: [Evidence]](
            uniqueKeysWithValues: Orientation.allCases.map { ($0, Array(repeating: Self.junk, count: 8)) })
        let (decision, log) = try Self.run(
            RecordedParts(junk, parts: 8), lead: Lead(rotation: .rotate90, excludesOthers: true, confirmsOnly: true))
        #expect(Set(log.map(\.o)) == [.rotate90, .transpose, .transverse])
        let confirm = Calibration.embedded.classifier.confirmParts
        #expect(log.allSatisfy { $0.part <= confirm })
        #expect(log.count <= 3 * confirm)
        #expect(decision.orientation == nil)
    }

    /// Where the classifier narrows the reading but would not answer alone, the text must decide,
    /// and is read deeper than a confirmation: print that reads as plain text only at its third
    /// line still decides.
    @Test func aClassifierThatWouldNotAnswerAloneLeavesTheTextItsDepth() throws {
        let late: [Orientation: [Evidence]] = [
            .rotate90: [Self.junk, Self.junk, Self.print, Self.print],
            .transpose: Array(repeating: Self.junk, count: 4), .transverse: Array(repeating: Self.junk, count: 4),
        ]
        let narrowed = try Self.run(
            RecordedParts(late, parts: 8), lead: Lead(rotation: .rotate90, excludesOthers: true, confirmsOnly: false))
        #expect(narrowed.decision.orientation == .rotate90)
        #expect(narrowed.log.contains { $0.o == .rotate90 && $0.part == 3 })
        let confirming = try Self.run(
            RecordedParts(late, parts: 8), lead: Lead(rotation: .rotate90, excludesOthers: true, confirmsOnly: true))
        #expect(confirming.decision.orientation == nil)
    }

    @Test func aMirroredTwinThatReadsAsPrintBeatsTheClassifiersRotation() throws {
        let readings: [Orientation: [Evidence]] = [
            .identity: [Self.junk, Self.junk], .flipHorizontal: [Self.print, Self.print],
        ]
        let (decision, log) = try Self.run(
            RecordedParts(readings, parts: 6), lead: Lead(rotation: .identity, excludesOthers: true))
        #expect(decision.orientation == .flipHorizontal)
        #expect(!log.contains { !$0.o.isMirrored && $0.o != .identity })
    }

    @Test func aCandidateTheBudgetDeniesIsStarvedAndTheAnswerRestsOnWhatWasRead() throws {
        var reader = RecordedParts([.rotate180: [Self.print]], parts: 4, budget: 2)
        try reader.read(.identity, parts: 1)
        try reader.read(.rotate180, parts: 2)
        #expect(reader.starved == [.rotate180])
        #expect(reader.partEvidence(.rotate180).count == 1)
        #expect(reader.ranked([.identity, .rotate180], depth: 1) == [.rotate180, .identity])
    }
}

import Foundation
import Testing

@testable import DocOrient

/// The page stage's order and stopping on recorded readings (`PartReader`, one part a candidate:
/// a look at the whole page), without Tesseract.
struct PageStageTests {
    /// A page of plain print: long dictionary words and amounts, enough to lead a look.
    static let print = CascadeTests.evidence(
        [
            "Payment", "received", "Thursday", "morning", "12.50", "Delivery", "address", "Station", "Road",
            "London", "Invoice", "number", "total", "34.90",
        ], dictionary: true)

    static func look(
        _ readings: [Orientation: Evidence], lead: Lead? = nil, prior: Orientation? = nil, alongX: Bool = true
    ) throws -> (look: PageStage.Look, reads: [Orientation]) {
        let stage = PageStage(
            rules: DecisionRules(calibration: .embedded), policy: CandidatePolicy(exhaustive: false, mirror: .auto),
            meter: WorkMeter(budget: .unlimited), prior: prior, lead: lead)
        var reader = RecordedParts(readings.mapValues { [$0] }, parts: 1)
        let look = try stage.readWholePage(&reader, alongX: alongX, minScore: Calibration.embedded.page.minScore)
        return (look, reader.log.map(\.o))
    }

    @Test func aFirstPairThatReadsNothingEndsTheLook() throws {
        let (look, reads) = try Self.look([:])
        #expect(reads == [.identity, .rotate180])
        #expect(look.decision.orientation == nil)
    }

    @Test func printThatLeadsAndReadsAsWordsSettlesAfterTheFirstPair() throws {
        let (look, reads) = try Self.look([.rotate180: Self.print, .identity: CascadeTests.junk])
        #expect(reads == [.identity, .rotate180])
        #expect(look.decision.orientation == .rotate180)
    }

    /// Print read along the other axis: the first pair reads junk, so the other pair is read, and
    /// the winner, reading as words, needs no mirrored rival.
    @Test func theOtherPairIsReadWhenTheFirstDoesNotSettleIt() throws {
        let (look, reads) = try Self.look([.identity: CascadeTests.junk, .rotate90: Self.print])
        #expect(reads == [.identity, .rotate180, .rotate90, .rotate270])
        #expect(look.decision.orientation == .rotate90)
    }

    /// Mirrored print reads as confident non-words in every rotation: the mirrored pair along the
    /// winner's axis is read, and reads as the page.
    @Test func aWinnerThatReadsNoWordsBringsItsMirroredTwinsIn() throws {
        let (look, reads) = try Self.look([.identity: CascadeTests.junk, .flipHorizontal: Self.print])
        #expect(reads == [.identity, .rotate180, .rotate90, .rotate270, .flipHorizontal, .flipVertical])
        #expect(look.decision.orientation == .flipHorizontal)
    }

    /// A sure classifier leaves the look its rotation alone; a mirrored twin is still read when
    /// that rotation reads nothing (a mirrored sign, decision 10).
    @Test func theClassifiersRotationAloneIsReadThenItsTwins() throws {
        let lead = Lead(rotation: .rotate90, excludesOthers: true)
        let (look, reads) = try Self.look([.transpose: Self.print], lead: lead)
        #expect(reads == [.rotate90, .transpose, .transverse])
        #expect(look.decision.orientation == .transpose)
    }
}

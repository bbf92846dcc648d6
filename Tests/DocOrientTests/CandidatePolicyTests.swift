import Testing

@testable import DocOrient

/// Which candidates the stages read, and in which order, given the classifier's rotation.
struct CandidatePolicyTests {
    static let alongX = CandidatePolicy.axisPairs(alongX: true)

    @Test func aSureClassifiersRotationIsReadFirstWithItsPairFirst() {
        let pairs = CandidatePolicy.leading(Self.alongX, with: Lead(rotation: .rotate270, excludesOthers: false))
        #expect(pairs == [[.rotate270, .rotate90], [.identity, .rotate180]])
    }

    @Test func aSurerClassifierLeavesItsRotationAlone() {
        let pairs = CandidatePolicy.leading(Self.alongX, with: Lead(rotation: .rotate180, excludesOthers: true))
        #expect(pairs == [[.rotate180]])
    }

    @Test func withoutTheClassifierThePairsStand() {
        #expect(CandidatePolicy.leading(Self.alongX, with: nil) == Self.alongX)
    }

    /// The mirrored twins read beside a rotation are the two on its axis, which the classifier
    /// cannot tell from it.
    @Test func theMirroredTwinsOfARotationShareItsAxis() {
        let policy = CandidatePolicy(ResolverConfiguration())
        #expect(policy.mirrored(beside: .rotate180, prior: nil) == [.flipHorizontal, .flipVertical])
        #expect(policy.mirrored(beside: .rotate270, prior: nil) == [.transpose, .transverse])
    }
}

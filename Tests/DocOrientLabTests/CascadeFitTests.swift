import Foundation
import Testing

@testable import DocOrient
@testable import DocOrientLab

/// The arithmetic of `CascadeFit` (the replay itself is tested against `fix` on real samples:
/// Tests/DocOrientLabTests/CascadeFitCLITests.swift).
struct CascadeFitTests {
    /// Draws from a known logistic model (a fixed linear congruential sequence: the same data in
    /// every run) and fits it again: Newton's method finds the weights within the sampling error.
    @Test func logisticRegressionRecoversTheWeightsItsDataWereDrawnFrom() {
        var state: UInt64 = 12345
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let truth = [-1.0, 2.0, -1.5]
        var x: [[Double]] = []
        var y: [Double] = []
        for _ in 0..<20_000 {
            let row = [uniform() * 4 - 2, uniform() * 4 - 2]
            let z = truth[0] + truth[1] * row[0] + truth[2] * row[1]
            x.append(row)
            y.append(uniform() < 1 / (1 + exp(-z)) ? 1 : 0)
        }
        let w = CascadeFit.logistic(x, y)
        for (fitted, expected) in zip(w, truth) { #expect(abs(fitted - expected) < 0.1, "\(w)") }
    }

    /// Where a feature never varies on the fit part (no file has a tag), the penalty keeps its
    /// weight at 0 instead of leaving the system singular.
    @Test func aConstantFeatureGetsNoWeight() {
        let x = (0..<200).map { i in [Double(i % 10) / 5 - 1, 0] }
        let y = (0..<200).map { i in Double(i % 10 >= 5 ? 1 : 0) }
        let w = CascadeFit.logistic(x, y)
        #expect(w.allSatisfy(\.isFinite) && w[2] == 0 && w[1] > 1, "\(w)")
    }

    @Test func gaussianEliminationSolvesAndRefusesASingularSystem() throws {
        let x = try #require(CascadeFit.solve([[0, 2, 1], [1, 1, 1], [2, 1, 0]], [7, 6, 4]))
        for (a, b) in zip(x, [1.0, 2.0, 3.0]) { #expect(abs(a - b) < 1e-12) }
        #expect(CascadeFit.solve([[1, 2], [2, 4]], [1, 2]) == nil)
    }
}

// Which candidate orientations a stage reads, in which order, and how it ranks what it read: one
// policy for the text lines, the text windows and the whole page.

/// The rules every stage follows to choose, order and rank candidate orientations.
package struct CandidatePolicy: Sendable {
    /// Read every candidate (for fitting): no early exit, all four mirrored orientations.
    var exhaustive: Bool
    /// When mirrored candidates are read.
    var mirror: MirrorPolicy

    init(_ configuration: ResolverConfiguration) {
        self.init(exhaustive: configuration.exhaustive, mirror: configuration.mirror)
    }

    package init(exhaustive: Bool, mirror: MirrorPolicy) {
        self.exhaustive = exhaustive
        self.mirror = mirror
    }

    /// The two rotation pairs, each a stored axis's upright and upside-down views: the pair whose
    /// lines run along stored x (1, 3) first when `alongX`, else the quarter turns (6, 8) first.
    static func axisPairs(alongX: Bool) -> [[Orientation]] {
        alongX
            ? [[.identity, .rotate180], [.rotate90, .rotate270]] : [[.rotate90, .rotate270], [.identity, .rotate180]]
    }

    /// The axis pairs with `lead`'s pair first and its rotation first in it (unchanged when nil);
    /// its rotation alone when it excludes the others (`Lead.excludesOthers`).
    static func leading(_ pairs: [[Orientation]], with lead: Lead?) -> [[Orientation]] {
        guard let lead else { return pairs }
        if lead.excludesOthers { return [[lead.rotation]] }
        guard let i = pairs.firstIndex(where: { $0.contains(lead.rotation) }) else { return pairs }
        var pairs = pairs
        let pair = pairs.remove(at: i)
        return [[lead.rotation] + pair.filter { $0 != lead.rotation }] + pairs
    }

    /// `candidates` best first by `score`; ties keep the given order.
    static func ranked(_ candidates: [Orientation], by score: (Orientation) -> Double) -> [Orientation] {
        candidates.enumerated().map { (index: $0.offset, o: $0.element, s: score($0.element)) }
            .sorted { $0.s != $1.s ? $0.s > $1.s : $0.index < $1.index }.map(\.o)
    }

    /// Whether a leader scoring `best` is clear of a runner-up scoring `second`: it scores at
    /// least `score`, and at least `ratio` times the runner-up (both plus one, so that zero scores
    /// compare). The early exit of the cascade and of the page stage, and the bar of the stages'
    /// readings together.
    static func leads(_ best: Double, over second: Double, score: Double, ratio: Double) -> Bool {
        best >= score && best + 1 >= ratio * (second + 1)
    }

    /// Whether mirrored candidates are read whatever the rotations read: on request, or for a
    /// mirrored tag.
    func asksMirrored(prior: Orientation?) -> Bool {
        exhaustive || mirror == .always || prior?.isMirrored == true
    }

    /// The mirrored candidates to read beside the best rotation `best`: all four on request, else
    /// the two whose lines run along the same stored axis (mirrored print read unmirrored is
    /// confused with its own axis's rotations), and a mirrored tag.
    func mirrored(beside best: Orientation, prior: Orientation?) -> [Orientation] {
        var list: [Orientation] =
            exhaustive || mirror == .always
            ? [.flipHorizontal, .flipVertical, .transpose, .transverse]
            : best.quarterTurns % 2 == 0 ? [.flipHorizontal, .flipVertical] : [.transpose, .transverse]
        if let prior, prior.isMirrored, !list.contains(prior) { list.append(prior) }
        return list
    }
}

/// The classifier's rotation as the text stages take it (`ImageResolution.lead`).
package struct Lead: Sendable, Equatable {
    /// Read first in every stage (`classifier.orderAt`).
    var rotation: Orientation
    /// Only `rotation` and its two mirrored twins on the same axis are read
    /// (`classifier.narrowAt`). The classifier cannot tell a mirrored page from its twin rotation,
    /// but at that probability it named neither another rotation nor the other axis on any file
    /// of the fit part, so the other five candidates can only lose; reading them cost most of
    /// the time spent on text Tesseract reads little of (handwriting, other scripts), and gave
    /// it five more ways to read junk that rivals the right rotation.
    package var excludesOthers: Bool
    /// Each stage reads at most `classifier.confirmParts` parts of those three (the page stage's
    /// coarse look at most `classifier.confirmWords` recognition steps of each): the classifier
    /// would answer alone (`DecisionRules.answersAlone`), so the text need only confirm its
    /// rotation or contradict it with a mirror. Where it would not, the text must decide, and is
    /// read as deep as without the classifier (a handwritten note may read as plain text only past
    /// its second line; decision 9).
    var confirmsOnly = false
}

// The reading of a stack of text lines or windows: candidates from cheapest and likeliest to
// dearest, one more part at a time, stopping as soon as one reads as plain text or the leader is
// clear. Each step is one method; they share the reader, the depth read and the candidates
// considered.

/// How one stack of parts lies, as the analysis found it: all the cascade needs of the image.
package struct StackLayout: Sendable, Equatable {
    /// The text lines run along stored x (glyph pairs, or the lines' marks): rotations 1 and 3
    /// are likelier than 6 and 8.
    var alongX: Bool
    /// They run along that axis beyond doubt (`DecisionRules.axisIsClear`).
    var axisIsClear: Bool
    /// The parts are text lines, each read only in the rotations that show it along x
    /// (`AnalysisImage.windowAlongX`), rather than squares of text read every way.
    var partsAreLines: Bool

    init(alongX: Bool, axisIsClear: Bool, partsAreLines: Bool) {
        self.alongX = alongX
        self.axisIsClear = axisIsClear
        self.partsAreLines = partsAreLines
    }

    /// The layout of an analysis image's text lines or windows.
    init(_ image: borrowing AnalysisImage, rules: DecisionRules) {
        self.init(
            alongX: image.horizontalPairs >= image.verticalPairs, axisIsClear: rules.axisIsClear(image),
            partsAreLines: !image.windowAlongX.isEmpty)
    }
}

/// Reads the candidates of one stack of text lines or windows (`PartReader`) and concludes. Given
/// its inputs (the rules, the candidate policy, the stack's layout, the prior and the classifier's
/// lead), not the resolver: tested on recorded readings without Tesseract.
package struct Cascade<Parts: PartReader & ~Copyable>: ~Copyable {
    let rules: DecisionRules
    let policy: CandidatePolicy
    let layout: StackLayout
    let prior: Orientation?
    /// The rotation to read first (the classifier's, when it is sure), nil for none.
    let lead: Lead?
    package var reader: Parts
    package var trace: Trace
    /// Parts (lines or window parts) read per candidate so far.
    private var depth = 1
    /// The candidates the decision is taken among.
    private var considered: [Orientation] = []

    package init(
        rules: DecisionRules, policy: CandidatePolicy, layout: StackLayout, reader: consuming Parts,
        prior: Orientation?, lead: Lead?, trace: Trace
    ) {
        self.rules = rules
        self.policy = policy
        self.layout = layout
        self.reader = reader
        self.prior = prior
        self.lead = lead
        self.trace = trace
    }

    private var c: CascadeParameters { rules.calibration.cascade }
    private var exhaustive: Bool { policy.exhaustive }
    /// The parts read per candidate at most: all of them, or, where the text need only confirm
    /// the classifier's rotation (`Lead.confirmsOnly`), `classifier.confirmParts`.
    private var partCount: Int {
        lead?.confirmsOnly == true
            ? min(reader.partCount, rules.calibration.classifier.confirmParts) : reader.partCount
    }

    /// Reads until one candidate settles it, the leader is clear, or the parts run out; then
    /// concludes (`DecisionRules.conclude`) into `trace.decision`.
    package mutating func run() throws {
        let pairs = try candidatePairs()
        if try readFirstPair(pairs[0]) { return }
        if try readMirroredBeside(pairs[0]) { return }
        if exhaustive || !leaderIsClear() {
            // Text lines are sorted to an axis by their marks, which a table's columns or a stack
            // of fine print can outnumber: for them, the other axis is always read, unless the
            // classifier leaves one rotation only.
            if pairs.count == 1 || (!exhaustive && !layout.partsAreLines && layout.axisIsClear) {
                if try readDeeper(along: pairs[0]) { return }
            } else {
                if try readOtherPairThenDeeper(pairs) { return }
            }
        }
        if try readMirrored() { return }
        conclude(note: "read \(depth) text window\(depth == 1 ? "" : "s")")
    }

    /// The two rotation pairs, likelier first. Glyph pairs (or the lines' marks) say which way the
    /// lines run in the stored pixels: upright or upside down (1, 3) when along x, a quarter turn
    /// (6, 8) when along y; a hint for the order only. Within a pair, the tag's rotation first,
    /// unless Leptonica's ascender and descender count points the other way clearly; without a
    /// tag, the way it points. The classifier's rotation, when it is sure (`lead`), comes first of
    /// all: it names the axis and the way up in one look, where the glyph pairs are fooled by a
    /// table's columns and the tag by how the phone was held. Surer still, it is the only pair,
    /// of one (`Lead.excludesOthers`).
    private mutating func candidatePairs() throws -> [[Orientation]] {
        if let lead, lead.excludesOthers { return CandidatePolicy.leading([], with: lead) }
        var pairs = CandidatePolicy.axisPairs(alongX: layout.alongX)
        for i in pairs.indices {
            // pairs[i][0] is 1 or 6 here: its uprightness is recorded for the replay (`StackReads`).
            let up = try reader.uprightness(of: pairs[i][0])
            trace.uprightness[pairs[i][0]] = up
            if abs(up) >= c.uprightnessOverTag {
                if up < 0 { pairs[i].reverse() }
            } else if let p = prior?.rotationPart, pairs[i].contains(p) {
                if pairs[i][0] != p { pairs[i].reverse() }
            } else if up < 0 {
                pairs[i].reverse()
            }
        }
        return CandidatePolicy.leading(pairs, with: lead)
    }

    /// The first part (`cascade.windowParts`; a line is one part) of the likelier pair, likelier
    /// candidate first. A candidate that reads as plain text settles it alone, here and after any
    /// later read: upside-down, sideways and mirrored print do not (`cascade.singleRead*`).
    private mutating func readFirstPair(_ pair: [Orientation]) throws -> Bool {
        for o in pair {
            considered.append(o)
            try reader.read(o, parts: depth)
            if settled(by: o) { return true }
        }
        return false
    }

    /// The mirrored pair along the likelier pair's axis, at the first part, unless that pair
    /// already leads clearly; they then take part in every deeper read. Mirrored print read
    /// unmirrored gives a few confident characters a line and never plain text, so otherwise the
    /// rotations alone would be read every part deep before a mirrored candidate was read at all
    /// (decision 10). A rotated page pays for the two reads only when its best rotation comes to
    /// read as plain text in a deeper part; otherwise they were read at the end anyway.
    private mutating func readMirroredBeside(_ pair: [Orientation]) throws -> Bool {
        guard !exhaustive, !leaderIsClear() else { return false }
        for o in policy.mirrored(beside: pair[0], prior: prior) where !considered.contains(o) {
            considered.append(o)
            try reader.read(o, parts: depth)
            if settled(by: o) { return true }
        }
        return false
    }

    /// The lines run one way beyond doubt: the other pair shows them sideways and cannot read
    /// better. More parts of this pair instead.
    private mutating func readDeeper(along pair: [Orientation]) throws -> Bool {
        while depth < partCount, !leaderIsClear() {
            depth += 1
            if try readOneMorePart(of: pair + mirroredConsidered) { return true }
        }
        return false
    }

    /// The other pair, then more parts for all four rotations.
    private mutating func readOtherPairThenDeeper(
        _ pairs: [[Orientation]]
    )
        throws -> Bool
    {
        let rotations = pairs.flatMap { $0 }
        considered = rotations + mirroredConsidered
        for o in pairs[1] {
            try reader.read(o, parts: depth)
            if settled(by: o) { return true }
        }
        guard exhaustive || !leaderIsClear() else { return false }
        for d in 2...max(2, partCount) where d <= partCount {
            depth = d
            if try readOneMorePart(of: considered) { return true }
            if !exhaustive, leaderIsClear() { break }
        }
        return false
    }

    /// Mirrored candidates: on request, for a mirrored tag, or unless the best rotation reads as
    /// plain dictionary text. Mirrored print read unmirrored still yields a few short dictionary
    /// words ("bid" for "did"), so a weaker rule let mirrored pages through as rotations with high
    /// confidence.
    private mutating func readMirrored() throws -> Bool {
        let bestRotation = reader.ranked(considered.filter { !$0.isMirrored }, depth: depth)[0]
        let asked = policy.asksMirrored(prior: prior)
        if !asked, depth < partCount, !readsAsPlainText(bestRotation) {
            // One more part of the best rotation first: a receipt's first lines (a date, a till
            // number) may not read as plain text where its items do. One read that often saves the
            // two mirrored ones (decision 2).
            depth += 1
            try reader.read(bestRotation, parts: depth)
            if settled(by: bestRotation) { return true }
            depth -= 1
        }
        if asked || !readsAsPlainText(bestRotation) {
            let mirrored = policy.mirrored(beside: bestRotation, prior: prior)
            for o in mirrored { try reader.read(o, parts: depth) }
            considered += mirrored.filter { !considered.contains($0) }
        }
        return false
    }

    /// The mirrored candidates read so far (`readMirroredBeside`).
    private var mirroredConsidered: [Orientation] { considered.filter(\.isMirrored) }

    /// Reads one more part of each of `candidates`, the leader so far first; true once one of
    /// them settles it.
    private mutating func readOneMorePart(
        of candidates: [Orientation]
    ) throws
        -> Bool
    {
        for o in reader.ranked(candidates, depth: depth - 1) {
            try reader.read(o, parts: depth)
            if settled(by: o) { return true }
        }
        return false
    }

    /// Concludes when candidate `o` reads as plain text (never in exhaustive mode).
    private mutating func settled(by o: Orientation) -> Bool {
        guard !exhaustive, readsAsPlainText(o) else { return false }
        let reads = considered.map { reader.partEvidence($0).count }.reduce(0, +)
        conclude(
            note:
                "read \(reads) text window part\(reads == 1 ? "" : "s") in \(considered.count) "
                + "orientation\(considered.count == 1 ? "" : "s")"
        )
        return true
    }

    /// The decision from what the considered candidates read to the current depth.
    private mutating func conclude(note: String) {
        trace.depth = depth
        trace.evidence = reader.allEvidence
        trace.words = reader.words
        let read = Dictionary(uniqueKeysWithValues: Set(considered).map { ($0, reader.evidence($0, depth: depth)) })
        trace.weighing = rules.weigh(evidence: { read[$0] ?? Evidence() }, considered, prior: prior)
        trace.decision = rules.conclude(
            trace.weighing, evidence: { read[$0] ?? Evidence() }, minScore: rules.calibration.confidence.minScore,
            note: note)
    }

    /// Whether candidate `o` reads as plain text: one of its parts reads several telling words
    /// (long dictionary words, amounts), or its first `depth` parts together read many confident
    /// dictionary words, most of its confident words from the dictionary. Enough for a candidate
    /// to decide alone, and for the best rotation to need no mirrored rival.
    private func readsAsPlainText(_ o: Orientation) -> Bool {
        // Per part: a wrong candidate reads at most one telling word in any one part, but may
        // collect one in each. Mirrored print read unmirrored can read two in a part and little
        // else (a mirrored invoice: 2 dictionary words among 5 confident ones; decision 2), so most
        // of what the candidate read must be dictionary words or amounts too. (One telling word
        // with five or more dictionary words looked safe on two sets' exhaustive reads, then a
        // mirrored letter read that way as rotation 1.)
        let e = reader.evidence(o, depth: depth)
        // Never fewer words than an answer may rest on (`DecisionRules.minConfidentWords`): two telling
        // words in one line ("Paddington, London,") settled the reading, which then concluded
        // "too little readable text" without reading the next line.
        guard e.confidentWords >= DecisionRules.minConfidentWords else { return false }
        if e.plainShare >= c.singleReadDictionaryShare,
            reader.partEvidence(o).prefix(depth).contains(where: { $0.tellingWords >= c.singleReadTellingWords })
        {
            return true
        }
        return e.dictionaryWords >= c.singleReadDictionaryWords && e.dictionaryShare >= c.singleReadDictionaryShare
            && e.weightedDictionaryCharacters >= c.singleReadDictionaryCharacters
            && e.tellingWords >= c.singleReadDictionaryTellingWords
    }

    /// Whether the best candidate considered leads every other by the early-exit ratio and has
    /// the early-exit score.
    private func leaderIsClear() -> Bool {
        let ranked = reader.ranked(considered, depth: depth)
        guard ranked.count >= 2 else { return false }
        // A leader with fewer words than an answer may rest on is not clear: reading stopped there
        // concluded "too little readable text" with lines left unread.
        guard reader.evidence(ranked[0], depth: depth).confidentWords >= DecisionRules.minConfidentWords else {
            return false
        }
        return CandidatePolicy.leads(
            reader.score(ranked[0], depth: depth), over: reader.score(ranked[1], depth: depth),
            score: c.earlyExitScore, ratio: c.earlyExitRatio)
    }
}

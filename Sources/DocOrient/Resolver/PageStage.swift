// The page stage: what the text lines and windows leave undecided (or a page whose marks do not
// pair up like letters at all) is looked at whole, at a coarse scale, by Tesseract itself.

/// One look at a region of the page (`look`): the region at `page.longSide`, light-corrected,
/// read by Tesseract's sparse-text mode in the candidate orientations. Given its inputs (the
/// rules, the candidate policy and the work meter), not the resolver; an engine pool for each look.
struct PageStage {
    let rules: DecisionRules
    let policy: CandidatePolicy
    let meter: WorkMeter
    let prior: Orientation?
    /// The rotation to read first (the classifier's, when it is sure), nil for none.
    let lead: Lead?

    /// What one look read and concluded.
    struct Look {
        /// Per candidate read, its evidence (an empty one for a candidate the budget starved).
        var evidence: [Orientation: Evidence] = [:]
        /// Candidates the work budget denied a read.
        var starved: Set<Orientation> = []
        var decision = Decision(orientation: nil, confidence: 0, margin: 0, reason: nil, candidates: [])
    }

    private var page: PageParameters { rules.calibration.page }

    /// Most recognition steps of one read: `classifier.confirmWords` where the text need only
    /// confirm the classifier's rotation or find its mirror (`Lead.confirmsOnly`),
    /// `page.maxWordsPerRead` otherwise.
    private var maxWords: Int {
        lead?.confirmsOnly == true ? rules.calibration.classifier.confirmWords : page.maxWordsPerRead
    }

    /// The look at the whole page before "no text" or "too little text": the region at
    /// `page.longSide` (1,200 pixels, never enlarged: a sign's letters, up to a sixth of the page,
    /// come out under 130 pixels high, and a line of body text, a sixtieth of it, over 13;
    /// Tesseract reads from about 10), light-corrected and read by Tesseract's sparse-text mode
    /// with its own threshold. That mode finds words anywhere, whatever their size (a sign, a line
    /// under a photo, a few big words whose letters touch), and, where the page may hold light
    /// print on a dark panel (`mayHoldLightPrint`), retries lines inverted.
    ///
    /// - Parameter minScore: what the best candidate must score: a text window's
    ///   (`confidence.minScore`) on the paper, `page.minScore` on a whole frame, whose clutter (a
    ///   grid, foliage, a brick wall) reads as a few short "words" in some rotation.
    func look(
        source: borrowing GraySource, region: PixelBox, minScore: Double, skew: Double, alongX: Bool,
        engines: TesseractPool
    ) throws -> Look {
        let image = try page.pageImage(source: source, paper: region, skew: skew)
        let lightPrint = try Self.mayHoldLightPrint(image)
        return try engines.withEngine { engine in
            // Light print on a dark panel (a street sign, an advert's caption) reads only inverted.
            try engine.setVariable("tessedit_do_invert", lightPrint ? "1" : "0")
            defer { try? engine.setVariable("tessedit_do_invert", "0") }
            var reader = try PageReader(
                engine: engine, image: image, weights: rules.calibration.scoring, meter: meter, maxWords: maxWords)
            return try readWholePage(&reader, alongX: alongX, minScore: minScore)
        }
    }

    /// Reads the whole page image in the candidate orientations (`reader`: Tesseract's look at the
    /// page, `PageReader`, or recorded readings): the likelier axis pair first (the tag's, if it has
    /// one), nothing more if it read nothing (`readsNothing`), the other pair unless the first
    /// settled it, then the mirrored pair along the winner's axis unless the winner reads as
    /// dictionary text; and decides.
    func readWholePage<Parts: PartReader & ~Copyable>(
        _ reader: inout Parts, alongX: Bool, minScore: Double
    ) throws -> Look {
        let weights = rules.calibration.scoring
        var look = Look()
        func readPage(_ o: Orientation) throws {
            guard look.evidence[o] == nil else { return }
            try reader.read(o, parts: 1)
            // A candidate the budget starved reads as nothing.
            look.evidence[o] = reader.partEvidence(o).first ?? Evidence()
            look.starved = reader.starved
        }
        /// What was read, in EXIF order (the order ties keep).
        func candidates() -> [Orientation] { look.evidence.keys.sorted { $0.exifValue < $1.exifValue } }
        func ranked() -> [Orientation] {
            CandidatePolicy.ranked(candidates()) { look.evidence[$0]!.score(weights) }
        }
        /// The look with its decision on what it read.
        func concluded() -> Look {
            let read = look.evidence
            look.decision = rules.conclude(
                evidence: { read[$0] ?? Evidence() }, candidates(),
                minScore: minScore, minPlainWords: page.minPlainWords, prior: prior,
                note: "read the page at a coarse scale")
            return look
        }
        var pairs = CandidatePolicy.axisPairs(alongX: alongX)
        if let h = prior?.rotationPart, pairs[1].contains(h) { pairs.swapAt(0, 1) }
        pairs = CandidatePolicy.leading(pairs, with: lead)
        // The classifier may leave one rotation only (`Lead.excludesOthers`): no second pair.
        let (first, second) = (pairs[0], pairs.count > 1 ? pairs[1] : [])
        for o in first { try readPage(o) }
        if readsNothing(first, of: look) { return concluded() }
        var order = ranked()
        let leader = look.evidence[order[0]]!
        let runnerUp = order.count > 1 ? look.evidence[order[1]]!.score(weights) : 0
        let settled =
            CandidatePolicy.leads(
                leader.score(weights), over: runnerUp, score: page.earlyExitScore, ratio: page.earlyExitRatio)
            && rules.readsAsWords(leader)
        if policy.exhaustive || !settled {
            for o in second { try readPage(o) }
            order = ranked()
        }
        let winner = look.evidence[order[0]]!
        // Mirrored print read unmirrored still yields confident non-words: when no rotation read a
        // single confident word, the page holds no print a mirror would make readable. The
        // classifier's rotation alone (`Lead.excludesOthers`) says too little of that: a mirrored
        // sign read nothing as it, the classifier sure of its twin (decision 10).
        let onlyRotation = lead?.excludesOthers == true
        if policy.asksMirrored(prior: prior)
            || (!rules.readsAsWords(winner) && (winner.confidentWords > 0 || onlyRotation))
        {
            for o in policy.mirrored(beside: order[0], prior: prior) { try readPage(o) }
        }
        return concluded()
    }

    /// Whether the look may stop after the likelier pair: neither of its candidates read a single
    /// confident word. After such a pair no later read of the look (the other pair, the mirrored
    /// twins) read as many confident words as an answer rests on
    /// (`DecisionRules.minConfidentWords`) on any set measured; on junk (a drawing, a photo, a
    /// texture, print too small or blurred for this scale) those reads cost four more reads of the
    /// whole page for nothing (decision 3). Not where the classifier left its rotation alone
    /// (`Lead.excludesOthers`): a mirrored sign may read only mirrored (decision 10); nor in
    /// exhaustive mode, which reads everything. (The line and window cascade has no such stop: a
    /// silent first line is often a logo or a mirrored line, and the next lines or the mirrored
    /// twins read the answer.)
    private func readsNothing(_ pair: [Orientation], of look: Look) -> Bool {
        !policy.exhaustive && lead?.excludesOthers != true
            && pair.allSatisfy { (look.evidence[$0]?.confidentWords ?? 0) == 0 }
    }

    /// Whether a page image (light corrected, the paper at 200) may hold light print on a dark
    /// panel, which Tesseract reads only inverted. Asked to, Tesseract retries inverted every line
    /// that reads poorly, which doubles what a page's clutter costs (a photo, a grid, a barcode,
    /// table grain); so the retries are asked for only where light print can be: light print on a
    /// darker panel comes out near white after the correction (`lightPrintLevel`), over at least
    /// the strokes of one short word (`lightPrintMinShare`). The sign and poster pages that read
    /// only inverted have a few hundredths of their pixels there, and about half of all page
    /// images next to none, which skip the retries with no answer changed (decision 3).
    static func mayHoldLightPrint(_ page: borrowing Pix) throws -> Bool {
        try page.share(atLeast: lightPrintLevel) >= lightPrintMinShare
    }

    /// Grey level light print comes out at, or brighter, after the light correction that sets
    /// the paper to 200: near white.
    static let lightPrintLevel = 250
    /// The least share of a page light print covers: the strokes of one short word at the
    /// smallest size Tesseract reads (4 letters 10 pixels high, some 30 stroke pixels each: 120
    /// pixels, about a hundredth of a percent of a 1,200 x 900 page).
    static let lightPrintMinShare = 0.0001
}

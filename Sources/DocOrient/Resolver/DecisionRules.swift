import Foundation

/// The rules that turn what the readers read into a decision: when the evidence suffices, how
/// sure the winner is, when the budget's cut leaves it unfair, how the text and the classifier
/// are weighed. A value holding the calibration and needing no OCR engine or model, so that its
/// decisions are unit-tested on recorded readings.
package struct DecisionRules: Sendable {
    /// Everything fitted on the corpus (`Models/calibration.json`).
    package let calibration: Calibration

    package init(calibration: Calibration) { self.calibration = calibration }

    /// A decision reached when the work budget ran out: it stands when every candidate the
    /// resolver asked to read was read by some stage (the budget only cut deeper reads or a later
    /// stage short); when one went unread in every stage (`starved`) the comparison is not fair,
    /// and the answer is undecidable.
    static func budgeted(_ decision: Decision, starved: Set<Orientation>, part: String, spent: String) -> Decision {
        var decision = decision
        let note = "work budget spent (\(part): \(spent))"
        if decision.isDecided, starved.isEmpty {
            decision.reason = (decision.reason.map { $0 + "; " } ?? "") + note
        } else {
            let unread = starved.map(\.exifValue).sorted().map(String.init).joined(separator: ", ")
            decision.orientation = nil
            decision.reason =
                note + (unread.isEmpty ? "" : " before orientation \(unread) could be read")
                + (decision.reason.map { "; \($0)" } ?? "")
        }
        return decision
    }

    /// Whether the glyph pairs run along one axis so much more than along the other that the
    /// sideways rotations need not be read (Models/calibration.json `cascade.axis*`).
    func axisIsClear(_ image: borrowing AnalysisImage) -> Bool {
        let c = calibration.cascade
        let (more, fewer) = (
            max(image.horizontalPairs, image.verticalPairs), min(image.horizontalPairs, image.verticalPairs)
        )
        return more >= c.axisMinPairs && Double(more + 1) >= c.axisMinRatio * Double(fewer + 1)
    }

    /// Fewest confident words an answer of the text alone rests on: two words may read in two
    /// orientations ("NOON", "SIS", "MOW"), a sign of three does not (decision 2). A page of a word
    /// or two has an up all the same (issue 60): the text answers it with the classifier
    /// (`agreement`).
    static let minConfidentWords = 3

    /// Whether `e` reads as words rather than marks: most of its confident words from the
    /// dictionary and at least one telling word, a long dictionary word or an amount
    /// (`page.mirrorMinDictionaryShare`, `page.mirrorMinTellingWords`). A rotation that reads so
    /// needs no mirrored rival (the page stage), and a mirrored answer that does not is read
    /// again against every rotation (`ImageResolution.run`).
    package func readsAsWords(_ e: Evidence) -> Bool {
        let p = calibration.page
        return e.dictionaryShare >= p.mirrorMinDictionaryShare && e.tellingWords >= p.mirrorMinTellingWords
    }

    /// Whether `e` is too little to answer on: fewer than `minConfidentWords` confident words, or
    /// a score under `minScore` (`conclude`'s first rule).
    func readsTooLittle(_ e: Evidence, minScore: Double) -> Bool {
        e.confidentWords < Self.minConfidentWords || e.score(calibration.scoring) < minScore
    }

    /// The winner among `candidates` and what the confidence model weighs of it (`conclude`).
    package struct Weighing: Sendable {
        /// The best candidate, or the prior when it scores within `confidence.priorMargin` of it.
        package var winner: Orientation
        /// The candidates, best first (ties keep the given order).
        var ranked: [Orientation]
        var best: Double
        var second: Double
        /// The confidence model's inputs (`ConfidenceModel.features`).
        package var features: [Double]
        /// Whether the prior stood against a better-scoring candidate.
        var priorStood: Bool
    }

    /// The winner among `candidates` (nil when there are none) and the confidence model's inputs.
    func weigh(evidence: (Orientation) -> Evidence, _ candidates: [Orientation], prior: Orientation?) -> Weighing? {
        let model = calibration.confidence
        let weights = calibration.scoring
        func score(_ o: Orientation) -> Double { evidence(o).score(weights) }
        let ranked = CandidatePolicy.ranked(candidates, by: score)
        guard var winner = ranked.first else { return nil }
        let topScore = score(winner)
        var priorStood = false
        if let prior, prior != winner, candidates.contains(prior), score(prior) >= topScore * (1 - model.priorMargin) {
            winner = prior
            priorStood = true
        }
        let best = score(winner)
        let second = ranked.filter { $0 != winner }.map { score($0) }.max() ?? 0
        let relation: ConfidenceModel.PriorRelation =
            prior == nil ? .none : (prior == winner ? .agrees : .disagrees)
        return Weighing(
            winner: winner, ranked: ranked, best: best, second: second,
            features: ConfidenceModel.features(
                best: best, second: second, dictionaryWords: evidence(winner).dictionaryWords, prior: relation),
            priorStood: priorStood)
    }

    /// The decision from the evidence gathered: the winner (the prior when it is nearly as good),
    /// its calibrated confidence, or undecidable with the reason.
    func conclude(
        evidence: (Orientation) -> Evidence, _ candidates: [Orientation], minScore: Double, minPlainWords: Int = 0,
        prior: Orientation?, note: String
    ) -> Decision {
        conclude(
            weigh(evidence: evidence, candidates, prior: prior), evidence: evidence, minScore: minScore,
            minPlainWords: minPlainWords, note: note)
    }

    /// `conclude` on the winner already weighed (`weigh` of the same evidence and candidates).
    func conclude(
        _ weighing: Weighing?, evidence: (Orientation) -> Evidence, minScore: Double, minPlainWords: Int = 0,
        note: String
    ) -> Decision {
        let model = calibration.confidence
        let weights = calibration.scoring
        guard let weighing else {
            return Decision(orientation: nil, confidence: 0, margin: 0, reason: "no text found", candidates: [])
        }
        let ranked = weighing.ranked
        let scores = ranked.map { o -> CandidateScore in
            let e = evidence(o)
            return CandidateScore(
                orientation: o, score: (e.score(weights) * 100).rounded() / 100,
                characters: e.confidentCharacters, meanConfidence: (e.meanConfidence * 10).rounded() / 10)
        }
        let (winner, best, second) = (weighing.winner, weighing.best, weighing.second)
        var note = note
        if weighing.priorStood {
            note += "; the tag stands (within \(Int(model.priorMargin * 100))% of the best)"
        }
        let confidence = model.probability(weighing.features)
        let margin = best > 0 ? max(0, (best - second) / best) : 0
        let rounded = (confidence * 1000).rounded() / 1000
        let roundedMargin = (margin * 1000).rounded() / 1000

        if readsTooLittle(evidence(winner), minScore: minScore) {
            let words = evidence(winner).confidentWords
            return Decision(
                orientation: nil, confidence: rounded, margin: roundedMargin,
                reason: "too little readable text (\(words) confident word\(words == 1 ? "" : "s"))",
                candidates: scores)
        }
        let plain = evidence(winner).dictionaryWords + evidence(winner).amounts
        if plain < minPlainWords {
            return Decision(
                orientation: nil, confidence: rounded, margin: roundedMargin,
                reason:
                    "no readable words: \(evidence(winner).confidentWords) confident marks, none a dictionary word "
                    + "or an amount",
                candidates: scores)
        }
        if confidence < model.decideAt {
            let runnerUp = ranked.first { $0 != winner }
            let why =
                margin < 0.5 && runnerUp != nil
                ? "evenly matched: \(winner.exifValue) and \(runnerUp!.exifValue) read about as well"
                : "the text is too unclear to be sure"
            return Decision(
                orientation: nil, confidence: rounded, margin: roundedMargin,
                reason: "\(why) (confidence \(rounded) < \(model.decideAt))", candidates: scores)
        }
        return Decision(
            orientation: winner, confidence: rounded, margin: roundedMargin, reason: note, candidates: scores)
    }

    /// The decision on everything the stages read (`gathered`, per candidate), each word counted
    /// once (`Evidence.distinct`), for when no stage alone read enough: the page's text may have
    /// been read in pieces, a line here, a window there, a heading in the coarse look. The sum is
    /// over reads of different kinds and sizes, which the confidence model was never fitted on,
    /// so the winner must also lead the way the cascade's early exit asks
    /// (`cascade.earlyExitScore` and `earlyExitRatio`): every candidate gathers some confident
    /// clutter over a dozen reads, and without that rule the likeliest clutter won. Undecidable
    /// without a reason otherwise: the last stage's reason stands.
    func concludeTogether(_ gathered: [Orientation: Evidence], prior: Orientation?) -> Decision {
        let undecided = Decision(orientation: nil, confidence: 0, margin: 0, reason: nil, candidates: [])
        let candidates = gathered.keys.sorted { $0.exifValue < $1.exifValue }
        let distinct = gathered.mapValues(\.distinct)
        let weights = calibration.scoring
        let decision = conclude(
            evidence: { distinct[$0] ?? Evidence() }, candidates, minScore: calibration.confidence.minScore,
            minPlainWords: calibration.page.minPlainWords, prior: prior, note: "the stages' readings together")
        guard let winner = decision.orientation else { return undecided }
        let best = distinct[winner]!.score(weights)
        let second = candidates.filter { $0 != winner }.map { distinct[$0]!.score(weights) }.max() ?? 0
        let c = calibration.cascade
        return CandidatePolicy.leads(best, over: second, score: c.earlyExitScore, ratio: c.earlyExitRatio)
            ? decision : undecided
    }

    /// Whether the classifier is sure enough to answer alone where the text does not decide:
    /// at `decideAloneAt`, or, on a page of more letter-like marks than a couple of words make
    /// (`pageMarks`), where it leaves the text its rotation alone (`narrowAt`): a couple of
    /// words, undecidable by definition, is what held its bar at `decideAloneAt`.
    func answersAlone(_ reading: ClassifierReading, marks: Int) -> Bool {
        let p = calibration.classifier
        return reading.bestProbability >= (marks >= p.pageMarks ? p.narrowAt : p.decideAloneAt)
    }

    /// The rotation every stage reads first: the classifier's, when it is sure enough
    /// (`classifier.orderAt`); nil leaves the order to the text's own signs and the tag. Surer
    /// still (`classifier.narrowAt`) and `narrowing`, it is the only rotation read, beside its
    /// mirrored twins (`Lead.excludesOthers`), and where the classifier would answer alone
    /// (`answersAlone`) the text need only confirm it (`Lead.confirmsOnly`).
    package func lead(_ reading: ClassifierReading, marks: Int, narrowing: Bool) -> Lead? {
        let c = calibration.classifier
        guard reading.bestProbability >= c.orderAt else { return nil }
        let excludesOthers = narrowing && reading.bestProbability >= c.narrowAt
        return Lead(
            rotation: reading.best, excludesOthers: excludesOthers,
            confirmsOnly: excludesOthers && answersAlone(reading, marks: marks))
    }

    /// Whether the classifier's answer stands on what the stages read so far, so that no later
    /// stage need read: it leaves the text its rotation alone (`Lead.excludesOthers`), the text did
    /// not decide, Tesseract read its print in some candidate (`confidentWords`), and the
    /// classifier would answer alone on it (`DecisionRules.arbitrate`: sure enough for the page's
    /// marks, both mirrored twins read, neither reading better than its rotation). A later stage
    /// reads the same three candidates and could only confirm the rotation or find the mirror that
    /// the stage just read found no sign of; on handwriting and other scripts, whose lines
    /// Tesseract reads as confident junk every way, it spent the rest of the budget for nothing.
    /// Where the lines read no confident word in any candidate, they may not be the page's text at
    /// all (a poster's graphics, a sign's frame): the windows and the coarse look, which read large
    /// and sparse print the lines miss, still look: they found the mirror of three real mirrored
    /// files (a poster, a newspaper, a sign) that the classifier alone, stopped there, named as
    /// their unmirrored twins (decision 10).
    package func classifierStands(_ a: Arbitration, lead: Lead?) -> Bool {
        guard lead?.excludesOthers == true, !a.text.isDecided, a.read.values.contains(where: { $0.confidentWords > 0 })
        else { return false }
        return arbitrate(a).decidedBy == .classifier
    }

    /// Whether the classifier sees nothing to orient in the image (`classifier.nothingAt`): then
    /// the answer is undecidable and Tesseract reads nothing (`ImageResolution.run`).
    package func seesNothing(_ reading: ClassifierReading) -> Bool {
        (reading.nothing ?? 0) >= calibration.classifier.nothingAt
    }

    /// Whether the classifier is sure enough of its rotation to answer alone with nothing read
    /// (`classifier.trustAt`; `ImageResolution.run` then reads nothing): where it sees nothing to orient it
    /// is never trusted.
    func trusts(_ reading: ClassifierReading) -> Bool {
        !seesNothing(reading) && reading.bestProbability >= calibration.classifier.trustAt
    }

    /// The text's decision weighed with the classifier's reading (`Models/calibration.json`
    /// `classifier`): the one place the two readers meet.
    ///
    /// - Where the classifier sees nothing to orient (`seesNothing`), the answer is undecidable
    ///   whatever the text read (where the guard stopped the stages, it read nothing).
    /// - Where it is sure enough to be trusted (`trusts`), its rotation is the answer whatever the
    ///   text read (where it is trusted, the text is not read), with the confidence of an answer
    ///   alone.
    /// - A text answer at `ocrStandsAt` or more stands. Under it, a classifier that gives another
    ///   rotation `overruleAt` or more makes the answer undecidable: one reader is wrong, and the
    ///   evidence does not say which. A mirrored text answer agrees with a classifier rotation on
    ///   its axis (the model cannot name mirrors) only when that rotation read some confident
    ///   characters: mirrored print read unmirrored always does, and a mirrored reading whose
    ///   unmirrored twin read nothing is no evidence of a mirror.
    /// - Where the text did not decide, the classifier answers alone at `decideAloneAt` or more
    ///   (at `narrowAt` on a page of `pageMarks` letter-like marks or more, `marks`),
    ///   with `aloneConfidence` times its probability as the confidence, unless a mirrored
    ///   candidate read better than the classifier's rotation: the page may be mirrored, which the
    ///   classifier cannot see, or went unread (the work budget may cut the mirrored reads).
    /// - Where neither decides alone, the two answer together (`agreement`, `classifier.agreeAt`)
    ///   when the text reads best, if too little to decide (a word or two), in the classifier's
    ///   rotation, with the confidence of such answers on the fit part (`agreeConfidence`).
    ///
    /// `read`: per candidate any stage read, everything read of it with each word once
    /// (`Evidence.distinct`): all the rules weigh of the text beside its decision, so that a
    /// recording of these inputs replays to the same decision (`Recording`).
    package func arbitrate(
        _ text: Decision, reading: ClassifierReading, read: [Orientation: Evidence], marks: Int
    ) -> Decision {
        let p = calibration.classifier
        var decision = text
        decision.classifier = Dictionary(
            uniqueKeysWithValues: ClassifierReading.rotations.map { ($0, reading.probability($0)) })
        decision.nothing = reading.nothing
        if seesNothing(reading) {
            let percent = Int(((reading.nothing ?? 0) * 100).rounded())
            decision.orientation = nil
            decision.decidedBy = nil
            decision.reason = "the classifier sees nothing to orient (\(percent)%)"
            return decision
        }
        let (seen, sure) = (reading.best, reading.bestProbability)
        let said = "the classifier sees \(seen.exifValue) (\(Int((sure * 100).rounded()))%)"
        if trusts(reading) {
            decision.orientation = seen
            decision.decidedBy = .classifier
            decision.confidence = aloneConfidence(sure)
            decision.reason = "\(said): sure enough to answer without reading (trusted at \(p.trustAt))"
            return decision
        }
        if let answer = text.orientation {
            decision.decidedBy = .text
            guard text.confidence < p.ocrStandsAt, sure >= p.overruleAt else { return decision }
            let agrees =
                answer.isMirrored
                ? answer.quarterTurns % 2 == seen.quarterTurns % 2 && (read[seen]?.confidentCharacters ?? 0) > 0
                : answer == seen
            guard !agrees else { return decision }
            decision.orientation = nil
            decision.decidedBy = nil
            decision.reason =
                "the readers disagree: the text reads as \(answer.exifValue) (confidence \(text.confidence)), \(said)"
            return decision
        }
        guard answersAlone(reading, marks: marks) else {
            guard let lead = agreement(reading, read: read) else { return decision }
            let e = read[seen] ?? Evidence()
            let score = (e.score(calibration.scoring) * 100).rounded() / 100
            decision.orientation = seen
            decision.decidedBy = .both
            decision.confidence = min(p.agreeConfidence, Self.maxAloneConfidence)
            decision.reason =
                "\(said) and the text reads best there (\(e.confidentWords) confident "
                + "word\(e.confidentWords == 1 ? "" : "s"), score \(score), \(lead) times any other reading); "
                + "the text alone did not decide" + (text.reason.map { " (\($0))" } ?? "")
            return decision
        }
        let twins = Self.mirroredTwins(of: seen)
        if let unread = twins.first(where: { read[$0] == nil }) {
            decision.reason = [
                text.reason, "\(said), but orientation \(unread.exifValue), which it cannot tell apart, was not read",
            ]
            .compactMap { $0 }.joined(separator: "; ")
            return decision
        }
        let weights = calibration.scoring
        let rotationScore = read[seen]?.score(weights) ?? 0
        let mirrored = read.filter(\.key.isMirrored).map { (o: $0.key, score: $0.value.score(weights)) }
            .max { $0.score < $1.score }
        if let mirrored, mirrored.score > rotationScore, mirrored.score >= calibration.confidence.minScore {
            decision.reason = [text.reason, "\(said), but the text reads better mirrored (\(mirrored.o.exifValue))"]
                .compactMap { $0 }.joined(separator: "; ")
            return decision
        }
        decision.orientation = seen
        decision.decidedBy = .classifier
        decision.confidence = aloneConfidence(sure)
        decision.reason =
            "\(said); the text did not decide" + (text.reason.map { " (\($0))" } ?? "")
            + "; a mirrored page could not be ruled out"
        return decision
    }

    /// The two mirrored candidates a four-rotation classifier cannot tell from `rotation` (the
    /// transpose pair for a sideways rotation, the flip pair otherwise): the classifier's rotation
    /// may be a mirrored page's twin, and only Tesseract, having read both, can rule that out (the
    /// budget may have cut them).
    static func mirroredTwins(of rotation: Orientation) -> [Orientation] {
        rotation.swapsDimensions ? [.transpose, .transverse] : [.flipHorizontal, .flipVertical]
    }

    /// Whether the text's best reading, too little to decide alone, and the classifier name the
    /// same rotation (`arbitrate`, where the text did not decide and the classifier is not sure
    /// enough alone): two readers that fail differently (the text on handwriting and clutter, the
    /// classifier on a mirrored page and on a word or two) agree. It asks:
    /// - the classifier at `classifier.agreeAt` or more for its rotation, and more than for any
    ///   other (a reading with no favourite, such as the even one of no squares, names none);
    /// - that rotation the text's best-scoring candidate of all read, at `confidence.minScore` or
    ///   more (the least a text answer stands on) and `cascade.earlyExitRatio` times any other
    ///   candidate read (the lead at which the cascade stops reading): clutter reads about as well
    ///   every way, a word or two of print does not;
    /// - both mirrored twins of the rotation read (`mirroredTwins`), each worse by that lead, so
    ///   a mirrored page, which the classifier names as its twin, reads better mirrored instead.
    /// A mirrored lead is no agreement: the classifier cannot see a mirror, so only the text says so.
    /// Returns the lead: the text's score over the best other reading's (both plus one, as
    /// `CandidatePolicy.leads` compares them), rounded to tenths; nil where they do not agree.
    func agreement(_ reading: ClassifierReading, read: [Orientation: Evidence]) -> Double? {
        let seen = reading.best
        guard reading.bestProbability >= calibration.classifier.agreeAt,
            reading.probabilities.filter({ $0 >= reading.bestProbability }).count == 1, let e = read[seen],
            Self.mirroredTwins(of: seen).allSatisfy({ read[$0] != nil })
        else { return nil }
        let weights = calibration.scoring
        let best = e.score(weights)
        let second = read.filter { $0.key != seen }.map { $0.value.score(weights) }.max() ?? 0
        let c = calibration.cascade
        guard CandidatePolicy.leads(best, over: second, score: calibration.confidence.minScore, ratio: c.earlyExitRatio)
        else { return nil }
        return (((best + 1) / (second + 1)) * 10).rounded() / 10
    }

    /// The confidence of an answer of the classifier alone at probability `sure`: its share right
    /// on the fit part (`aloneConfidence`) times it, under `maxAloneConfidence`.
    func aloneConfidence(_ sure: Double) -> Double {
        (min(sure * calibration.classifier.aloneConfidence, Self.maxAloneConfidence) * 1000).rounded() / 1000
    }

    /// The most an answer of the classifier alone is given: under 0.9, since the classifier cannot
    /// tell a mirrored page from its unmirrored twin and the text, which did not decide, did not
    /// rule a mirror out (decision 10).
    package static let maxAloneConfidence = 0.89
}

/// What the rules weigh when the readers meet (`DecisionRules.arbitrate`), for one image.
package struct Arbitration: Sendable, Equatable {
    /// The text's decision, before the classifier's word.
    package var text: Decision
    /// What the classifier said of the image.
    package var reading: ClassifierReading
    /// Per candidate read, everything the stages read of it, each word once (`Evidence.distinct`).
    package var read: [Orientation: Evidence]
    /// The letter-like marks the survey found (`classifier.pageMarks`).
    package var marks: Int

    package init(text: Decision, reading: ClassifierReading, read: [Orientation: Evidence], marks: Int) {
        self.text = text
        self.reading = reading
        self.read = read
        self.marks = marks
    }
}

extension DecisionRules {
    /// `arbitrate` on the inputs of one image (`Arbitration`).
    package func arbitrate(_ a: Arbitration) -> Decision {
        arbitrate(a.text, reading: a.reading, read: a.read, marks: a.marks)
    }
}

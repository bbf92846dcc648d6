import DocOrient
import Foundation

/// Fits how far the classifier's word goes beside the text's (Models/calibration.json
/// `classifier`: `nothingAt`, `decideAloneAt`, `aloneConfidence`, `overruleAt`, `ocrStandsAt`) by
/// replaying recorded readings through `DecisionRules.arbitrate` itself, on the FIT part only, and
/// judges the values on the other parts (Benchmarks/orientation/README.md, "The rule").
///
/// - nothingAt (a model with the class nothing to orient): the lowest probability (0.50-0.99 by
///   hundredths; 0.5: nothing the likeliest class) above the probability of nothing on every
///   fit file that the rules answer right without it, so that the guard loses no right answer of
///   the fit part; recorded with `docorient-lab replay record --without-nothing-guard`, so that every
///   file's text reading is there to replay;
/// - decideAloneAt: the lowest probability (0.50-0.93 by hundredths: the combined reading stays
///   under 0.94) at which the classifier, answering alone where the text did not decide on a page
///   of fewer marks than `pageMarks` (the pages this bar governs, `DecisionRules.answersAlone`), gives no
///   wrong answer on the fit part: mirrored pages, scenes answered with another orientation than
///   their own upright and files without an up answered at all counted as wrong (the project's
///   rule for `confidence.decideAt`);
/// - aloneConfidence: the share of those answers right, by Laplace's rule ((right + 1) / (n + 2)),
///   so that a few right answers do not make an answer certain;
/// - overruleAt, ocrStandsAt: where a text answer the classifier contradicts becomes undecidable:
///   the pair that removes the most wrong text answers and loses no right one;
/// - trustAt: the lowest probability (0.50-0.99 by hundredths, then 0.995 and 0.999) at which the
///   classifier's rotation, answered with nothing read, would be harmless on every file of the fit
///   part (the page's upright, a scene's own upright) that the nothing guard leaves to the rules;
///   never where that bar would lose a fit file the rules answer right without it;
/// - agreeAt: the lowest probability (`agreeGrid`: 0.25-0.93) at which the classifier and the
///   text's best reading, too little alone, answering together (`DecisionRules.agreement`) give no
///   wrong answer on the fit part, counted as for decideAloneAt; agreeConfidence: the share of
///   those answers right, by Laplace's rule. They answer only files the rules left undecided, so
///   lose no right answer.
///
/// What these recordings cannot model: the reads themselves. They hold what the stages read
/// under the calibration they ran with, so narrowing (`narrowAt`), `confirmParts` and the early
/// stop (`DecisionRules.classifierStands`) are as recorded; `narrowFloor` and `pageMarksFloor` say
/// how far `narrowAt` and `pageMarks` are from the fit part's evidence. Recorded reads
/// (`ReadsRecording`) replay those on the text lines and windows (`CascadeFit`,
/// `docorient-lab replay fit-cascade --with`).
package struct ClassifierFit: Sendable {
    /// One recording with its truth.
    package typealias Row = Labelled<Recording>

    /// What a calibration's rules give on a part.
    package struct Tally: Sendable {
        package var decidable = 0
        package var right = 0
        package var wrong = 0
        /// Wrong answers at confidence 0.9 or more.
        package var confidentWrong = 0
        package var undecided = 0
        /// Files without text: scenes (with an up) and files without one.
        package var negatives = 0
        /// Those answered with anything but a scene's own upright (wrong, or a needless change).
        package var negativesAnswered = 0
        /// Scenes answered with their own upright: harmless.
        package var scenesUpright = 0
        /// Right and wrong answers per reader ("text", "classifier").
        package var byReader: [String: (right: Int, wrong: Int)] = [:]
        /// The wrong answers: file, truth, answer, confidence, reader.
        package var wrongFiles: [String] = []
    }

    /// The values fitted.
    package struct Fitted: Sendable, Codable, Equatable {
        package var nothingAt: Double
        package var decideAloneAt: Double
        package var aloneConfidence: Double
        package var overruleAt: Double
        package var ocrStandsAt: Double
        /// Never until `fitTrustAt` fits it.
        package var trustAt: Double = ClassifierFit.never
        /// Never until `fitAgreeAt` fits it, with `agreeConfidence`.
        package var agreeAt: Double = ClassifierFit.never
        package var agreeConfidence: Double = 1
    }

    /// The calibration the fit starts from (every value it does not fit stays).
    let base: Calibration

    package init() { base = .embedded }

    init(base: Calibration) { self.base = base }

    /// A probability no reading reaches: a rule with it never fires.
    static let never = 2.0

    /// The probabilities tried for `decideAloneAt` and `overruleAt`.
    static let grid = (0..<44).map { 0.5 + 0.01 * Double($0) }

    /// The probabilities tried for `agreeAt`: from a quarter, the least a four-way classifier's best
    /// rotation has, so that where the text leads the fit may take the classifier's best rotation
    /// however unsure (the text carries the answer; the classifier need only not name another).
    static let agreeGrid = (0..<69).map { 0.25 + 0.01 * Double($0) }

    /// The probabilities tried for `nothingAt`.
    static let nothingGrid = (0..<50).map { 0.5 + 0.01 * Double($0) }

    /// The probabilities tried for `trustAt`.
    static let trustGrid = nothingGrid + [0.995, 0.999]

    /// The share of `n` answers right when `right` of them were, by Laplace's rule ((right + 1) /
    /// (n + 2)), to thousandths: a few right answers do not make an answer certain.
    static func laplaceShare(_ right: Int, of n: Int) -> Double {
        (Double(right + 1) / Double(n + 2) * 1000).rounded() / 1000
    }

    /// The calibration with the fitted values.
    func calibration(_ f: Fitted) -> Calibration {
        var c = base
        c.classifier.nothingAt = f.nothingAt
        c.classifier.decideAloneAt = f.decideAloneAt
        c.classifier.aloneConfidence = f.aloneConfidence
        c.classifier.overruleAt = f.overruleAt
        c.classifier.ocrStandsAt = f.ocrStandsAt
        c.classifier.trustAt = f.trustAt
        c.classifier.agreeAt = f.agreeAt
        c.classifier.agreeConfidence = f.agreeConfidence
        return c
    }

    /// The text alone: the classifier never answers and never overrules (it still names the
    /// candidates read, as recorded).
    var textAlone: Calibration {
        var c = calibration(
            Fitted(
                nothingAt: Self.never, decideAloneAt: Self.never, aloneConfidence: 1, overruleAt: Self.never,
                ocrStandsAt: Self.never))
        c.classifier.narrowAt = Self.never
        return c
    }

    /// Which thresholds a tally replays with.
    package enum Thresholds: Sendable {
        /// The classifier never answers alone and never overrules the text.
        case textAlone
        /// The shipped calibration (`Models/calibration.json`).
        case shipped
        /// The shipped calibration with the fitted values.
        case fitted(Fitted)
    }

    /// What the rules give on `rows` with `thresholds`.
    package func tally(_ rows: [Row], _ thresholds: Thresholds) -> Tally {
        switch thresholds {
        case .textAlone: tally(rows, textAlone)
        case .shipped: tally(rows, base)
        case .fitted(let f): tally(rows, calibration(f))
        }
    }

    /// What `calibration`'s rules give on `rows`.
    func tally(_ rows: [Row], _ calibration: Calibration) -> Tally {
        var t = Tally()
        for row in rows {
            let d = row.recording.replayed(with: calibration)
            if !row.decidable {
                t.negatives += 1
                if d.orientation != nil {
                    if row.harmless(d.orientation) { t.scenesUpright += 1 } else { t.negativesAnswered += 1 }
                }
                continue
            }
            t.decidable += 1
            guard let answer = d.orientation else {
                t.undecided += 1
                continue
            }
            let reader = d.decidedBy ?? "text"
            var counts = t.byReader[reader] ?? (0, 0)
            if answer == row.truth {
                t.right += 1
                counts.right += 1
            } else {
                t.wrong += 1
                counts.wrong += 1
                if d.confidence >= 0.9 { t.confidentWrong += 1 }
                t.wrongFiles.append(
                    "\(row.recording.path): truth \(row.truth), answer \(answer) at \(d.confidence) by \(reader)")
            }
            t.byReader[reader] = counts
        }
        return t
    }

    /// The values fitted on `rows` (the fit part only).
    package func fit(_ rows: [Row]) -> Fitted {
        let nothingAt = fitNothingAt(rows)
        // The files `decideAloneAt` governs: the text did not decide, and the page has fewer marks
        // than `pageMarks` (from there the classifier answers alone at `narrowAt`, whatever this bar).
        let undecided = rows.filter {
            $0.recording.text.orientation == nil && $0.recording.marks < base.classifier.pageMarks
        }
        func aloneAnswers(_ at: Double) -> [(row: Row, answer: Int?)] {
            let c = calibration(
                Fitted(
                    nothingAt: nothingAt, decideAloneAt: at, aloneConfidence: 1, overruleAt: Self.never,
                    ocrStandsAt: Self.never))
            return undecided.compactMap { row in
                let d = row.recording.replayed(with: c)
                return d.decidedBy == Reader.classifier.rawValue ? (row, d.orientation) : nil
            }
        }
        let alone =
            Self.grid.first { at in
                aloneAnswers(at).allSatisfy { $0.row.harmless($0.answer) }
            } ?? Self.never
        let answered = aloneAnswers(alone)
        let right = answered.filter { $0.row.decidable && $0.answer == $0.row.truth }.count
        let aloneConfidence = Self.laplaceShare(right, of: answered.count)
        // The pair that leaves the fewest wrong answers, then the most right, then the highest bar.
        var best: (key: (Int, Int, Double), overrule: Double, stands: Double)?
        for overrule in Self.grid + [Self.never] {
            for stands in [0.9, 0.95, 0.99, 1.01] {
                let t = tally(
                    rows,
                    calibration(
                        Fitted(
                            nothingAt: nothingAt, decideAloneAt: alone, aloneConfidence: aloneConfidence,
                            overruleAt: overrule, ocrStandsAt: stands)))
                let key = (t.wrong, -t.right, -overrule)
                if best == nil || key < best!.key { best = (key, overrule, stands) }
            }
        }
        let none = tally(
            rows,
            calibration(
                Fitted(
                    nothingAt: nothingAt, decideAloneAt: alone, aloneConfidence: aloneConfidence,
                    overruleAt: Self.never, ocrStandsAt: Self.never)))
        let chosen = tally(
            rows,
            calibration(
                Fitted(
                    nothingAt: nothingAt, decideAloneAt: alone, aloneConfidence: aloneConfidence,
                    overruleAt: best!.overrule, ocrStandsAt: best!.stands)))
        // No pair may lose a right answer against no overruling at all.
        let keep = chosen.right >= none.right && chosen.wrong < none.wrong
        let untrusted = Fitted(
            nothingAt: nothingAt, decideAloneAt: alone, aloneConfidence: aloneConfidence,
            overruleAt: keep ? best!.overrule : Self.never, ocrStandsAt: keep ? best!.stands : 0.9)
        return fitAgreeAt(rows, fitTrustAt(rows, untrusted))
    }

    /// `fitted` with `trustAt`: the lowest bar of `trustGrid` at which every fit file the nothing
    /// guard leaves to the rules and the classifier names at the bar or more takes its rotation
    /// harmlessly (`Labelled.harmless`), unless trusting loses a right answer of the rules, or the
    /// fit files at the bar are too few to show it: their share harmless by Laplace's rule ((n + 1) /
    /// (n + 2), all n harmless) must reach the confidence a trusted answer is given there, so that
    /// a bar resting on a file or two (model 2 reaches 0.93 on 2 files of 1,717) is no bar.
    func fitTrustAt(_ rows: [Row], _ fitted: Fitted) -> Fitted {
        let rules = DecisionRules(calibration: calibration(fitted))
        let readings = rows.map { row in
            (
                row: row,
                reading: ClassifierReading(probabilities: row.recording.classifier, nothing: row.recording.nothing)
            )
        }.filter { !rules.seesNothing($0.reading) }
        guard
            let at = Self.trustGrid.first(where: { at in
                readings.allSatisfy { $0.reading.bestProbability < at || $0.row.harmless($0.reading.best.exifValue) }
            })
        else { return fitted }
        let shown = readings.filter { $0.reading.bestProbability >= at }.count
        let given = min(at * fitted.aloneConfidence, DecisionRules.maxAloneConfidence)
        guard Self.laplaceShare(shown, of: shown) >= given else { return fitted }
        var trusted = fitted
        trusted.trustAt = at
        let before = tally(rows, calibration(fitted))
        let after = tally(rows, calibration(trusted))
        return after.right >= before.right && after.wrong <= before.wrong ? trusted : fitted
    }

    /// `fitted` with `agreeAt` and `agreeConfidence`: the lowest bar of `agreeGrid` at which every fit
    /// file the classifier and the text answer together (`Reader.both`) takes a harmless answer
    /// (`Labelled.harmless`), and the share of those right by Laplace's rule, under 0.9 as an
    /// answer alone (`DecisionRules.maxAloneConfidence`); never where no bar does.
    func fitAgreeAt(_ rows: [Row], _ fitted: Fitted) -> Fitted {
        func together(_ at: Double) -> [(row: Row, answer: Int?)] {
            var trial = fitted
            trial.agreeAt = at
            let c = calibration(trial)
            return rows.compactMap { row in
                let d = row.recording.replayed(with: c)
                return d.decidedBy == Reader.both.rawValue ? (row, d.orientation) : nil
            }
        }
        guard let at = Self.agreeGrid.first(where: { at in together(at).allSatisfy { $0.row.harmless($0.answer) } })
        else { return fitted }
        let answered = together(at)
        let right = answered.filter { $0.row.decidable && $0.answer == $0.row.truth }.count
        var agreed = fitted
        agreed.agreeAt = at
        agreed.agreeConfidence = min(Self.laplaceShare(right, of: answered.count), DecisionRules.maxAloneConfidence)
        return agreed
    }

    /// `nothingAt` on `rows`: never when the recordings' model has no class nothing to orient.
    func fitNothingAt(_ rows: [Row]) -> Double {
        guard rows.contains(where: { $0.recording.nothing != nil }) else { return Self.never }
        var unguarded = base
        unguarded.classifier.nothingAt = Self.never
        let highest =
            rows.filter { row in
                row.decidable && row.recording.replayed(with: unguarded).orientation == row.truth
            }.map { $0.recording.nothing ?? 0 }.max() ?? 0
        return Self.nothingGrid.first { $0 > highest } ?? Self.never
    }

    /// The highest probability at which the classifier named a rotation that is neither the
    /// right one nor, on a mirrored page, one on its axis: `narrowAt` must lie above it, since
    /// from there the text reads that rotation and its twins only (`Lead.excludesOthers`).
    package func narrowFloor(_ rows: [Row]) -> Double {
        rows.filter(\.decidable).reduce(0.0) { worst, row in
            let reading = ClassifierReading(probabilities: row.recording.classifier)
            guard let truth = Orientation(exifValue: row.truth) else { return worst }
            let seen = reading.best
            let consistent = truth.isMirrored ? truth.quarterTurns % 2 == seen.quarterTurns % 2 : truth == seen
            return consistent ? worst : max(worst, reading.bestProbability)
        }
    }

    /// The most letter-like marks the survey found on a hard negative of `rows` that the nothing
    /// guard leaves to the rules (its probability of nothing to orient under `nothingAt`, or no
    /// such class): `pageMarks` must lie above it, since from there the classifier answers alone
    /// at `narrowAt` rather than `decideAloneAt`. A negative the guard stops never reaches that
    /// rule, whatever its paper texture or barcode made of marks.
    package func pageMarksFloor(_ rows: [Row], nothingAt: Double) -> Int {
        rows.filter { !$0.decidable && ($0.recording.nothing ?? 0) < nothingAt }.map(\.recording.marks).max() ?? 0
    }
}

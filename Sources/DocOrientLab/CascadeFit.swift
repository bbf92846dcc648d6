import DocOrient
import Foundation

/// Fits how the text is scored and read (Models/calibration.json `scoring`, the cascade's early
/// exit and plain-text rule, the `confidence` model and its `decideAt`) by replaying recorded reads
/// (`ReadsRecording`: every candidate of every part of the text lines and windows) through the
/// real cascade (`Cascade` with `RecordedParts`), the classifier's lead and the rules
/// (`DecisionRules`), on the FIT part only (Benchmarks/orientation/README.md, "The rule"):
///
/// 1. the scoring weights and the cascade's thresholds, from a grid (`grid`): fewest wrong
///    winners of the decidable files first, then fewest reads (time); the axis rule, the window
///    geometry and the telling-word counts stay as they are (decision 2);
/// 2. the logistic confidence model (Newton's method, light L2 on all but the intercept) on
///    "the winner is right" over every file the stacks concluded on, hard negatives counted as
///    wrong, so that its output is a probability;
/// 3. `decideAt`: the lowest value (0.30-0.95 by hundredths) at which no text answer of the fit
///    part is wrong and at least `negativesKept` of its hard negatives stay undecidable by the text.
///
/// What a replay cannot model: the page stage's coarse look (never recorded: a file no stack
/// decided is left undecided by the text here) and the work budget (a replay reads as far as its
/// rules ask).
package struct CascadeFit: Sendable {
    /// One recording with its truth.
    package typealias Row = Labelled<ReadsRecording>

    /// What replaying one file gave.
    struct Replayed {
        /// The text's decision: the first stack that decided, else the last one read.
        var text: Decision
        /// The winner of the last stack concluded on and the confidence model's inputs.
        var weighing: DecisionRules.Weighing?
        /// The text's decision weighed with the classifier (`DecisionRules.arbitrate`).
        var decision: Decision
        /// Parts read, over every stack and candidate.
        var reads: Int
        /// The stack whose reading gave `text` ("lines", "windows"), nil when none was read.
        var stage: String?
    }

    /// The values fitted.
    package struct Fitted: Sendable, Codable, Equatable {
        package var minWordConfidence: Double
        package var dictionaryWeight: Double
        package var earlyExitScore: Double
        package var earlyExitRatio: Double
        package var singleReadDictionaryWords: Int
        package var singleReadDictionaryShare: Double
        package var singleReadDictionaryCharacters: Double
        /// The confidence model: its intercept, weights and `decideAt` fitted, the rest as shipped.
        package var confidence: ConfidenceModel
    }

    /// What a calibration gives on a part.
    package struct Tally: Sendable {
        package var decidable = 0
        /// The text's answers (before the classifier's word).
        package var right = 0
        package var wrong = 0
        package var confidentWrong = 0
        package var undecided = 0
        package var negatives = 0
        package var negativesAnswered = 0
        /// Wrong winners: the text's best candidate is not the truth, decided or not.
        package var wrongWinners = 0
        /// The answers after the classifier's word (`DecisionRules.arbitrate`).
        package var finalRight = 0
        package var finalWrong = 0
        package var negativesAnsweredFinally = 0
        /// Reads per file.
        package var reads: [Int] = []
        /// Per tenth of confidence: winners right, files (decidable files the stacks concluded on).
        package var bins: [Int: (right: Int, files: Int)] = [:]
        package var wrongFiles: [String] = []
    }

    /// The calibration the fit starts from (every value it does not fit stays).
    let base: Calibration

    package init() { base = .embedded }

    init(base: Calibration) { self.base = base }

    /// The fit from the shipped calibration with `overrides` put in (`Calibration.merging`).
    package init(overrides: String) throws { base = try Calibration.embedded.merging(overrides) }

    /// The values tried for the scoring weights and the cascade's thresholds.
    package struct Grid: Sendable {
        package init() {}
        var minWordConfidence: [Double] = [50, 60, 70]
        var dictionaryWeight: [Double] = [0.5, 1, 2]
        var earlyExitScore: [Double] = [20, 30, 40, 60]
        var earlyExitRatio: [Double] = [2.5, 4, 6]
        var singleReadDictionaryWords: [Int] = [4, 5, 6, 8]
        var singleReadDictionaryShare: [Double] = [0.5, 0.6]
        var singleReadDictionaryCharacters: [Double] = [20, 30, 40]
    }

    /// A grid of the shipped values alone: the fit then fits the confidence model and decideAt
    /// only.
    package var shippedGrid: Grid {
        var g = Grid()
        let (s, c) = (base.scoring, base.cascade)
        (g.minWordConfidence, g.dictionaryWeight) = ([s.minWordConfidence], [s.dictionaryWeight])
        (g.earlyExitScore, g.earlyExitRatio) = ([c.earlyExitScore], [c.earlyExitRatio])
        g.singleReadDictionaryWords = [c.singleReadDictionaryWords]
        g.singleReadDictionaryShare = [c.singleReadDictionaryShare]
        g.singleReadDictionaryCharacters = [c.singleReadDictionaryCharacters]
        return g
    }

    /// The grid with the plain-text rule (`singleReadDictionary*`) kept as shipped: decision 2 set
    /// it to the strictest values under which no wrong candidate passed on two sets, since a fit
    /// on one set loosens it.
    package var gridKeepingThePlainTextRule: Grid {
        var g = Grid()
        let c = base.cascade
        g.singleReadDictionaryWords = [c.singleReadDictionaryWords]
        g.singleReadDictionaryShare = [c.singleReadDictionaryShare]
        g.singleReadDictionaryCharacters = [c.singleReadDictionaryCharacters]
        return g
    }

    /// The decideAt values tried, lowest first.
    static let decideAtGrid = (30...95).map { Double($0) / 100 }
    /// The share of the fit part's hard negatives the text must leave undecidable at the fitted
    /// `decideAt`: nearly all, since a hard negative answered is a file turned for nothing, but not
    /// every one, so that one odd negative does not hold the bar for every page (decision 4).
    static let negativesKept = 0.97

    /// The evidence of each stack of a recording under `weights` (per stack, per candidate, per part).
    static func evidence(_ recording: ReadsRecording, _ weights: ScoringWeights) -> [[Orientation: [Evidence]]] {
        recording.stacks.map { $0.evidence(weights) }
    }

    /// Replays one file's stacks as `ImageResolution` reads them: the lines, then the windows, each by the
    /// cascade with the classifier's lead, stopping at the first that decides or where the
    /// classifier's answer stands (`DecisionRules.classifierStands`); a mirrored answer read with
    /// the classifier's rotation as its only rival that does not read as words is read again
    /// against every candidate (`ImageResolution.run`); then the classifier's word (`arbitrate`).
    func replay(
        _ recording: ReadsRecording, evidence: [[Orientation: [Evidence]]], calibration: Calibration
    ) -> Replayed {
        let rules = DecisionRules(calibration: calibration)
        let reading = recording.reading
        let undecided = Decision(orientation: nil, confidence: 0, margin: 0, reason: "no stack read", candidates: [])
        if rules.seesNothing(reading) {
            let decision = rules.arbitrate(undecided, reading: reading, read: [:], marks: recording.marks)
            return Replayed(text: undecided, weighing: nil, decision: decision, reads: 0, stage: nil)
        }
        var reads = 0
        func readStacks(narrowing: Bool) -> (Replayed, [Orientation: Evidence], Lead?) {
            let lead = rules.lead(reading, marks: recording.marks, narrowing: narrowing)
            var gathered: [Orientation: Evidence] = [:]
            var out = Replayed(text: undecided, weighing: nil, decision: undecided, reads: 0, stage: nil)
            for (stack, stackEvidence) in zip(recording.stacks, evidence) {
                var cascade = Cascade(
                    rules: rules, policy: CandidatePolicy(exhaustive: false, mirror: .auto), layout: stack.layout,
                    reader: RecordedParts(stack, evidence: stackEvidence, weights: calibration.scoring),
                    prior: recording.priorOrientation, lead: lead,
                    trace: Trace(glyphs: 0, textHeight: 0, windows: stack.parts, horizontalPairs: 0, verticalPairs: 0))
                try? cascade.run()  // a recorded reader never throws
                reads += cascade.reader.log.count
                for (o, parts) in cascade.reader.allEvidence {
                    for e in parts { gathered[o, default: Evidence()] = gathered[o, default: Evidence()].adding(e) }
                }
                (out.text, out.weighing, out.stage) = (cascade.trace.decision, cascade.trace.weighing, stack.stage)
                let a = Arbitration(
                    text: out.text, reading: reading, read: gathered.mapValues(\.distinct), marks: recording.marks)
                if out.text.isDecided || rules.classifierStands(a, lead: lead) { break }
            }
            return (out, gathered, lead)
        }
        var (out, gathered, lead) = readStacks(narrowing: true)
        if lead?.excludesOthers == true, let answer = out.text.orientation, answer.isMirrored,
            !rules.readsAsWords(gathered[answer]?.distinct ?? Evidence())
        {
            (out, gathered, _) = readStacks(narrowing: false)
        }
        out.reads = reads
        out.decision = rules.arbitrate(
            out.text, reading: reading, read: gathered.mapValues(\.distinct), marks: recording.marks)
        return out
    }

    /// What the shipped rules give on one recording (`docorient-lab replay reads`).
    package struct ReplayedFile: Sendable, Codable {
        package var path: String
        package var decision: RecordedDecision
        package var stage: String?
        package var reads: Int
    }

    /// The base rules' replay of `recording`.
    package func replayed(_ recording: ReadsRecording) -> ReplayedFile {
        let r = replay(recording, evidence: Self.evidence(recording, base.scoring), calibration: base)
        return ReplayedFile(
            path: recording.path, decision: RecordedDecision(r.decision), stage: r.stage, reads: r.reads)
    }

    /// The calibration with the fitted values.
    func calibration(_ f: Fitted) -> Calibration {
        var c = base
        c.scoring = ScoringWeights(minWordConfidence: f.minWordConfidence, dictionaryWeight: f.dictionaryWeight)
        c.cascade.earlyExitScore = f.earlyExitScore
        c.cascade.earlyExitRatio = f.earlyExitRatio
        c.cascade.singleReadDictionaryWords = f.singleReadDictionaryWords
        c.cascade.singleReadDictionaryShare = f.singleReadDictionaryShare
        c.cascade.singleReadDictionaryCharacters = f.singleReadDictionaryCharacters
        c.confidence = f.confidence
        return c
    }

    /// What the shipped calibration (nil) or the fitted values give on `rows`.
    package func tally(_ rows: [Row], _ fitted: Fitted?) -> Tally {
        tally(rows, fitted.map(calibration) ?? base)
    }

    /// What `calibration` gives on `rows`, the text's answers and the final ones.
    func tally(_ rows: [Row], _ calibration: Calibration) -> Tally {
        var t = Tally()
        for row in rows {
            let r = replay(
                row.recording, evidence: Self.evidence(row.recording, calibration.scoring), calibration: calibration)
            t.reads.append(r.reads)
            let answer = r.text.orientation?.exifValue
            guard row.decidable else {
                t.negatives += 1
                if answer != nil { t.negativesAnswered += 1 }
                if r.decision.orientation != nil { t.negativesAnsweredFinally += 1 }
                continue
            }
            t.decidable += 1
            if let w = r.weighing {
                if w.winner.exifValue != row.truth { t.wrongWinners += 1 }
                let bin = min(9, Int(calibration.confidence.probability(w.features) * 10))
                let old = t.bins[bin] ?? (0, 0)
                t.bins[bin] = (old.right + (w.winner.exifValue == row.truth ? 1 : 0), old.files + 1)
            }
            if let final = r.decision.orientation?.exifValue {
                if final == row.truth { t.finalRight += 1 } else { t.finalWrong += 1 }
            }
            guard let answer else {
                t.undecided += 1
                continue
            }
            if answer == row.truth {
                t.right += 1
            } else {
                t.wrong += 1
                if r.text.confidence >= 0.9 { t.confidentWrong += 1 }
                t.wrongFiles.append(
                    "\(row.recording.path): truth \(row.truth), the text answers \(answer) at \(r.text.confidence) "
                        + "(\(r.stage ?? "no stack"))")
            }
        }
        return t
    }

    /// The values fitted on `rows` (the fit part only).
    package func fit(_ rows: [Row], grid: Grid = Grid()) -> Fitted {
        let params = search(rows, grid: grid)
        var c = calibration(params)
        // 2. The confidence model on every file the stacks concluded on, with the searched values.
        var x: [[Double]] = []
        var y: [Double] = []
        for row in rows {
            let r = replay(row.recording, evidence: Self.evidence(row.recording, c.scoring), calibration: c)
            guard let w = r.weighing else { continue }
            x.append(w.features)
            y.append(row.decidable && w.winner.exifValue == row.truth ? 1 : 0)
        }
        let weights = Self.logistic(x, y)
        var fitted = params
        fitted.confidence.intercept = weights[0]
        fitted.confidence.coefficients = Array(weights[1...])
        // 3. decideAt.
        c = calibration(fitted)
        fitted.confidence.decideAt =
            Self.decideAtGrid.first { at in
                var trial = c
                trial.confidence.decideAt = at
                let t = tally(rows, trial)
                return t.wrong == 0
                    && Double(t.negatives - t.negativesAnswered) >= Self.negativesKept * Double(t.negatives)
            } ?? 0.9
        return fitted
    }

    /// Step 1: the grid's values with the fewest wrong winners of the decidable files, then the
    /// fewest reads; the confidence model and decideAt as they are (they do not change what is read
    /// in a stack, only whether a stack decides).
    func search(_ rows: [Row], grid: Grid) -> Fitted {
        let decidable = rows.filter(\.decidable)
        var best: (key: (Int, Int), values: Fitted)?
        for minConfidence in grid.minWordConfidence {
            for dictionaryWeight in grid.dictionaryWeight {
                let weights = ScoringWeights(minWordConfidence: minConfidence, dictionaryWeight: dictionaryWeight)
                let evidence = decidable.map { Self.evidence($0.recording, weights) }
                for exitScore in grid.earlyExitScore {
                    for exitRatio in grid.earlyExitRatio {
                        for words in grid.singleReadDictionaryWords {
                            for share in grid.singleReadDictionaryShare {
                                for characters in grid.singleReadDictionaryCharacters {
                                    var values = current
                                    (values.minWordConfidence, values.dictionaryWeight) = (
                                        minConfidence, dictionaryWeight
                                    )
                                    (values.earlyExitScore, values.earlyExitRatio) = (exitScore, exitRatio)
                                    values.singleReadDictionaryWords = words
                                    values.singleReadDictionaryShare = share
                                    values.singleReadDictionaryCharacters = characters
                                    let c = calibration(values)
                                    var (wrong, reads) = (0, 0)
                                    for (row, e) in zip(decidable, evidence) {
                                        let r = replay(row.recording, evidence: e, calibration: c)
                                        reads += r.reads
                                        if let w = r.weighing, w.winner.exifValue != row.truth { wrong += 1 }
                                    }
                                    if best == nil || (wrong, reads) < best!.key { best = ((wrong, reads), values) }
                                }
                            }
                        }
                    }
                }
            }
        }
        return best?.values ?? current
    }

    /// The shipped values, as `Fitted`.
    var current: Fitted {
        let s = base.scoring
        let c = base.cascade
        return Fitted(
            minWordConfidence: s.minWordConfidence, dictionaryWeight: s.dictionaryWeight,
            earlyExitScore: c.earlyExitScore, earlyExitRatio: c.earlyExitRatio,
            singleReadDictionaryWords: c.singleReadDictionaryWords,
            singleReadDictionaryShare: c.singleReadDictionaryShare,
            singleReadDictionaryCharacters: c.singleReadDictionaryCharacters, confidence: base.confidence)
    }

    /// Logistic regression by Newton's method: the intercept and one weight per column of `x`,
    /// with an L2 penalty `l2` on the weights (not the intercept), so that a feature constant on
    /// the fit part (no file with a tag: `priorAgrees`) gets 0 rather than no value.
    static func logistic(_ x: [[Double]], _ y: [Double], l2: Double = 0.05, iterations: Int = 60) -> [Double] {
        let n = (x.first?.count ?? 0) + 1
        var w = [Double](repeating: 0, count: n)
        let rows = x.map { [1.0] + $0 }
        for _ in 0..<iterations {
            var gradient = [Double](repeating: 0, count: n)
            var hessian = [[Double]](repeating: [Double](repeating: 0, count: n), count: n)
            for (row, target) in zip(rows, y) {
                let z = zip(w, row).reduce(0) { $0 + $1.0 * $1.1 }
                let p = 1 / (1 + exp(-z))
                for i in 0..<n {
                    gradient[i] += row[i] * (p - target)
                    for j in 0..<n { hessian[i][j] += row[i] * row[j] * p * (1 - p) }
                }
            }
            for i in 0..<n {
                let penalty = i == 0 ? 0 : l2
                gradient[i] += penalty * w[i]
                hessian[i][i] += penalty + 1e-9
            }
            guard let step = solve(hessian, gradient) else { break }
            for i in 0..<n { w[i] -= step[i] }
            if step.map(abs).max() ?? 0 < 1e-8 { break }
        }
        return w
    }

    /// `a` x = `b` by Gaussian elimination with partial pivoting; nil when `a` is singular.
    static func solve(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        var m = zip(a, b).map { $0 + [$1] }
        let n = b.count
        for col in 0..<n {
            guard let pivot = (col..<n).max(by: { abs(m[$0][col]) < abs(m[$1][col]) }), abs(m[pivot][col]) > 1e-300
            else { return nil }
            m.swapAt(col, pivot)
            for r in 0..<n where r != col {
                let f = m[r][col] / m[col][col]
                if f != 0 { for k in col...n { m[r][k] -= f * m[col][k] } }
            }
        }
        return (0..<n).map { m[$0][n] / m[$0][$0] }
    }
}

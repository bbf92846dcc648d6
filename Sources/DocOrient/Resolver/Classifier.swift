import Foundation

/// What the orientation classifier (the resolver's second reader, `Models/classifier`) says of
/// one image: the probability of each of the four rotations. It cannot tell a mirrored page from
/// its unmirrored twin: a mirrored page comes out as some rotation.
struct ClassifierReading: Sendable, Equatable, Codable {
    /// The probability of each rotation (1, 3, 6, 8), in that order; they sum to 1.
    var probabilities: [Double]

    /// The rotations in the order of `probabilities`.
    static let rotations: [Orientation] = [.identity, .rotate180, .rotate90, .rotate270]

    /// The reading of the model's output: class i is the text turned clockwise by 90 x i
    /// degrees, shown upright by turning it back (0 -> 1, 90 -> 8, 180 -> 3, 270 -> 6).
    init(modelOutput classes: [Float]) {
        precondition(classes.count == 4, "the model answers four classes")
        let byClass = classes.map(Double.init)
        let total = byClass.reduce(0, +)
        probabilities = Self.rotations.map { o in byClass[(4 - o.quarterTurns) % 4] / (total > 0 ? total : 1) }
    }

    init(probabilities: [Double]) {
        self.probabilities = probabilities
    }

    /// The probability of rotation `o` (0 for a mirrored orientation, which the model cannot name).
    func probability(_ o: Orientation) -> Double {
        Self.rotations.firstIndex(of: o).map { probabilities[$0] } ?? 0
    }

    /// The likeliest rotation (ties: the first in `rotations`).
    var best: Orientation {
        Self.rotations[
            probabilities.indices.max {
                probabilities[$0] < probabilities[$1] || (probabilities[$0] == probabilities[$1] && $0 > $1)
            }!]
    }

    /// The likeliest rotation's probability.
    var bestProbability: Double { probability(best) }

    /// The mean of several readings (of several squares of one image) in log space, renormalised:
    /// a square the model is sure of counts for more than one it hesitates on, and a rotation
    /// that one square rules out (probability near 0) stays unlikely.
    static func combined(_ readings: [ClassifierReading]) -> ClassifierReading {
        guard readings.count > 1 else {
            return readings.first ?? ClassifierReading(probabilities: [0.25, 0.25, 0.25, 0.25])
        }
        let logs = rotations.indices.map { i in
            readings.map { log(max($0.probabilities[i], 1e-6)) }.reduce(0, +) / Double(readings.count)
        }
        let top = logs.max()!
        let weights = logs.map { exp($0 - top) }
        let total = weights.reduce(0, +)
        return ClassifierReading(probabilities: weights.map { $0 / total })
    }
}

extension Resolver {
    /// The classifier's reading of the stored image: decoded small (halved down to the least size
    /// whose short side still reaches `classifier.shortSide`), resized to that short side, and
    /// `classifier.squares` squares of it classified and combined.
    func classify(_ source: borrowing GraySource) throws -> ClassifierReading {
        let p = calibration.classifier
        let (short, long) = (min(source.storedWidth, source.storedHeight), max(source.storedWidth, source.storedHeight))
        let small = try source.gray(longSide: (long * p.shortSide + short - 1) / short)
        let raster = try small.grayRaster()
        let origins = Self.squareOrigins(
            width: raster.width, height: raster.height, shortSide: p.shortSide, count: p.squares)
        let rows = try classifiers.withEngine { engine in
            try engine.classify(raster, shortSide: p.shortSide, origins: origins).probabilities
        }
        return ClassifierReading.combined(rows.map(ClassifierReading.init(modelOutput:)))
    }

    /// Where the `count` squares lie in the image resized to a short side of `shortSide` (the
    /// sizes rounded as the model's preprocessing rounds them): one in the centre, as the model
    /// was trained; more spread evenly along the long side from end to end, centred across it.
    static func squareOrigins(width: Int, height: Int, shortSide: Int, count: Int) -> [(x: Int, y: Int)] {
        let factor = Double(shortSide) / Double(min(width, height))
        let (w, h) = (Int((Double(width) * factor).rounded()), Int((Double(height) * factor).rounded()))
        let side = ClassifierEngine.side
        let centre = (x: (w - side) / 2, y: (h - side) / 2)
        guard count > 1 else { return [centre] }
        return (0..<count).map { i in
            let along = (max(w, h) - side) * i / (count - 1)
            return w >= h ? (x: along, y: centre.y) : (x: centre.x, y: along)
        }
    }
}

extension Resolver {
    /// The text's decision weighed with the classifier's reading (`Models/calibration.json`
    /// `classifier`): the one place the two readers meet.
    ///
    /// - A text answer at `ocrStandsAt` or more stands. Under it, a classifier that gives another
    ///   rotation `overruleAt` or more makes the answer undecidable: one reader is wrong, and the
    ///   evidence does not say which. A mirrored text answer agrees with a classifier rotation on
    ///   its axis (the model cannot name mirrors) only when that rotation read some confident
    ///   characters: mirrored print read unmirrored always does, and a mirrored reading whose
    ///   unmirrored twin read nothing is no evidence of a mirror.
    /// - Where the text did not decide, the classifier answers alone at `decideAloneAt` or more,
    ///   with `aloneConfidence` times its probability as the confidence, unless a mirrored
    ///   candidate read better than the classifier's rotation: the page may be mirrored, which the
    ///   classifier cannot see.
    func arbitrate(_ text: Decision, reading: ClassifierReading, gathered: [Orientation: Evidence]) -> Decision {
        let p = calibration.classifier
        var decision = text
        decision.classifier = Dictionary(
            uniqueKeysWithValues: ClassifierReading.rotations.map { ($0, reading.probability($0)) })
        let (seen, sure) = (reading.best, reading.bestProbability)
        let said = "the classifier sees \(seen.exifValue) (\(Int((sure * 100).rounded()))%)"
        if let answer = text.orientation {
            decision.decidedBy = .text
            guard text.confidence < p.ocrStandsAt, sure >= p.overruleAt else { return decision }
            let agrees =
                answer.isMirrored
                ? answer.quarterTurns % 2 == seen.quarterTurns % 2 && (gathered[seen]?.confidentCharacters ?? 0) > 0
                : answer == seen
            guard !agrees else { return decision }
            decision.orientation = nil
            decision.decidedBy = nil
            decision.reason =
                "the readers disagree: the text reads as \(answer.exifValue) (confidence \(text.confidence)), \(said)"
            return decision
        }
        guard sure >= p.decideAloneAt else { return decision }
        let weights = calibration.scoring
        let rotationScore = gathered[seen]?.distinct.score(weights) ?? 0
        let mirrored = gathered.filter(\.key.isMirrored).map { (o: $0.key, score: $0.value.distinct.score(weights)) }
            .max { $0.score < $1.score }
        if let mirrored, mirrored.score > rotationScore, mirrored.score >= calibration.confidence.minScore {
            decision.reason = [text.reason, "\(said), but the text reads better mirrored (\(mirrored.o.exifValue))"]
                .compactMap { $0 }.joined(separator: "; ")
            return decision
        }
        decision.orientation = seen
        decision.decidedBy = .classifier
        decision.confidence = (sure * p.aloneConfidence * 1000).rounded() / 1000
        decision.reason = "\(said); the text did not decide" + (text.reason.map { " (\($0))" } ?? "")
        return decision
    }
}

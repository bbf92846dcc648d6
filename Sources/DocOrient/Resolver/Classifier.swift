import Foundation

/// What the orientation classifier (the resolver's second reader, `Models/classifier` or
/// `Models/orientation`) says of one image: the probability of each of the four rotations and,
/// from docorient's own model, the probability that there is nothing to orient. It cannot tell a
/// mirrored page from its unmirrored twin: a mirrored page comes out as some rotation.
package struct ClassifierReading: Sendable, Equatable, Codable {
    /// The probability of each rotation (1, 3, 6, 8), in that order, given that there is a page to
    /// orient; they sum to 1.
    package var probabilities: [Double]
    /// The probability that the image holds nothing to orient (a blank page, a photo without
    /// text, a word or two); nil from a model without that class (PP-LCNet).
    package var nothing: Double?

    /// The rotations in the order of `probabilities`.
    static let rotations: [Orientation] = [.identity, .rotate180, .rotate90, .rotate270]

    /// The reading of the model's output: class i < 4 is the text turned clockwise by 90 x i
    /// degrees, shown upright by turning it back (0 -> 1, 90 -> 8, 180 -> 3, 270 -> 6); class 4,
    /// where the model has it, is nothing to orient.
    init(modelOutput classes: [Float]) {
        precondition(classes.count == 4 || classes.count == 5, "the model answers four or five classes")
        let byClass = classes.prefix(4).map(Double.init)
        let total = byClass.reduce(0, +)
        probabilities = Self.rotations.map { o in byClass[(4 - o.quarterTurns) % 4] / (total > 0 ? total : 1) }
        nothing = classes.count == 5 ? Double(classes[4]) : nil
    }

    package init(probabilities: [Double], nothing: Double? = nil) {
        self.probabilities = probabilities
        self.nothing = nothing
    }

    /// The probability of rotation `o` (0 for a mirrored orientation, which the model cannot name).
    func probability(_ o: Orientation) -> Double {
        Self.rotations.firstIndex(of: o).map { probabilities[$0] } ?? 0
    }

    /// The likeliest rotation (ties: the first in `rotations`).
    package var best: Orientation {
        Self.rotations[
            probabilities.indices.max {
                probabilities[$0] < probabilities[$1] || (probabilities[$0] == probabilities[$1] && $0 > $1)
            }!]
    }

    /// The likeliest rotation's probability.
    package var bestProbability: Double { probability(best) }

    /// The mean of several readings (of several squares of one image) in log space, renormalised:
    /// a square the model is sure of counts for more than one it hesitates on, and a rotation
    /// that one square rules out (probability near 0) stays unlikely. For a model with the class
    /// nothing to orient, the five classes are averaged so (each square's rotations are its
    /// five-class probabilities divided by 1 - nothing, a factor common to its rotations), which
    /// is the model's answer on the squares' mean features: what `Models/orientation/train.py`
    /// trains.
    static func combined(_ readings: [ClassifierReading]) -> ClassifierReading {
        guard readings.count > 1 else {
            return readings.first ?? ClassifierReading(probabilities: [0.25, 0.25, 0.25, 0.25])
        }
        func meanLog(_ values: [Double]) -> Double {
            values.map { log(max($0, 1e-6)) }.reduce(0, +) / Double(values.count)
        }
        let logs = rotations.indices.map { i in meanLog(readings.map { $0.probabilities[i] }) }
        let top = logs.max()!
        let weights = logs.map { exp($0 - top) }
        let total = weights.reduce(0, +)
        var nothing: Double?
        if readings.allSatisfy({ $0.nothing != nil }) {
            let squares = readings.map { $0.nothing! }
            // log of the rotations' share and of nothing's, relative to exp(top).
            let rotationsShare = log(total) + meanLog(squares.map { 1 - $0 })
            let nothingShare = meanLog(squares) - top
            nothing = 1 / (1 + exp(rotationsShare - nothingShare))
        }
        return ClassifierReading(probabilities: weights.map { $0 / total }, nothing: nothing)
    }
}

extension Resolver {
    /// The stored image halved down to the least size whose short side still reaches the text
    /// squares' short side (decode small: the model sees 448 pixels of it at most).
    func classifierImage(_ source: borrowing GraySource) throws -> Pix {
        let p = calibration.classifier
        let shortSide = max(p.centreShortSide, p.textShortSide)
        let (short, long) = (min(source.storedWidth, source.storedHeight), max(source.storedWidth, source.storedHeight))
        return try source.gray(longSide: (long * shortSide + short - 1) / short)
    }

    /// What the classifier is shown of `source` and answers (`ClassifierProbe`).
    func classifierProbe(_ source: borrowing GraySource, keepInput: Bool) throws -> ClassifierProbe {
        let p = calibration.classifier
        let raster = try classifierImage(source).grayRaster()
        let started = ContinuousClock.now
        let squares = try ClassifierSquares(
            raster, centreShortSide: p.centreShortSide, textShortSide: p.textShortSide, textSquares: p.textSquares)
        let (classes, runtime) = try classifier.withEngine { engine in
            (try engine.read(tensor: squares.tensor, count: squares.count), engine.runtime)
        }
        return ClassifierProbe(
            runtime: runtime, width: raster.width, height: raster.height, grey: keepInput ? raster.pixels : [],
            centreShortSide: p.centreShortSide, textShortSide: p.textShortSide, origins: squares.origins,
            input: keepInput ? squares.tensor : [], classes: classes,
            seconds: (ContinuousClock.now - started).milliseconds / 1000)
    }
}

/// What the classifier was shown and answered for one image, for the tests that check it against
/// another runtime (`docorient-lab classify`).
package struct ClassifierProbe: Sendable {
    /// The runtime that ran the model, with its version (`ClassifierEngine.runtime`).
    package var runtime: String
    /// The grey image the squares were cut from, before resizing: width, height, bytes (empty
    /// unless the input was kept).
    package var width: Int
    package var height: Int
    package var grey: [UInt8]
    /// The short sides the image was resized to for the centre square and for the text squares.
    package var centreShortSide: Int
    package var textShortSide: Int
    /// Each square's origin in its resized image: the centre square's first.
    package var origins: [[Int]]
    /// The model's input, squares x 3 x 224 x 224 floats (empty unless kept).
    package var input: [Float]
    /// The model's class probabilities (0, 90, 180, 270 degrees, and nothing to orient from
    /// docorient's own model) for each square.
    package var classes: [[Float]]
    /// Seconds the classifier took: cutting the squares and running the model (decode excluded).
    package var seconds: Double

    /// The combined reading.
    var reading: ClassifierReading { ClassifierReading.combined(classes.map(ClassifierReading.init(modelOutput:))) }
    /// The combined probability of rotations 1, 3, 6, 8.
    package var rotations: [Double] { reading.probabilities }
    /// The combined probability that there is nothing to orient (nil from PP-LCNet).
    package var nothing: Double? { reading.nothing }
}

extension Resolver {
    /// The classifier's probe of an image file's bytes, its input kept (`ClassifierProbe`).
    package func classifierProbe(_ bytes: [UInt8]) throws -> ClassifierProbe {
        let metadata = try ImageMetadata.read(bytes)
        let source = try GraySource(bytes: bytes, metadata: metadata, maxPixels: configuration.maxPixels)
        return try classifierProbe(source, keepInput: true)
    }
}

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
        let (classes, origins, input, runtime) = try classifiers.withEngine { engine in
            let (classes, origins, input) = try engine.read(
                raster, centreShortSide: p.centreShortSide, textShortSide: p.textShortSide,
                textSquares: p.textSquares, keepInput: keepInput)
            return (classes, origins, input, engine.runtime)
        }
        return ClassifierProbe(
            runtime: runtime, width: raster.width, height: raster.height, grey: keepInput ? raster.pixels : [],
            centreShortSide: p.centreShortSide, textShortSide: p.textShortSide, origins: origins, input: input,
            classes: classes)
    }
}

/// What the classifier was shown and answered for one image, for the tests that check it against
/// another runtime (the hidden `docorient classify` command).
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
    /// The model's four class probabilities (0, 90, 180, 270 degrees) for each square.
    package var classes: [[Float]]

    /// The combined reading.
    var reading: ClassifierReading { ClassifierReading.combined(classes.map(ClassifierReading.init(modelOutput:))) }
    /// The combined probability of rotations 1, 3, 6, 8.
    package var rotations: [Double] { reading.probabilities }
}

extension Resolver {
    /// The classifier's probe of an image file's bytes, its input kept (`ClassifierProbe`).
    package func classifierProbe(_ bytes: [UInt8]) throws -> ClassifierProbe {
        let metadata = try ImageMetadata.read(bytes)
        let source = try GraySource(bytes: bytes, metadata: metadata, maxPixels: configuration.maxPixels)
        return try classifierProbe(source, keepInput: true)
    }
}

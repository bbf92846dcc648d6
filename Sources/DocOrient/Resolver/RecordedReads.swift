import Foundation

// What Tesseract read of every candidate of every part of a page's stacks (its text lines, its
// text windows), recorded once in exhaustive mode, and a reader (`RecordedParts`) that hands those
// readings to the real cascade (`Cascade`) as it asks for them: the cascade's rules and the
// confidence model are fitted by replaying the code that applies them (`CascadeFit`), not a copy.
// A read of one part in one candidate does not depend on what was read before, so the replay
// reads what the resolver would have read.

/// What was read of one stack of parts (text lines or text windows), every candidate, every part.
package struct StackReads: Sendable, Codable, Equatable {
    /// "lines" or "windows": the stage that read the stack.
    package var stage: String
    /// The stack's lie, as the analysis found it.
    var alongX: Bool
    var axisIsClear: Bool
    var partsAreLines: Bool
    /// Parts in the stack.
    var parts: Int
    /// Per candidate (EXIF value as a string key), per part, the words read (empty for a line
    /// the candidate shows sideways, which is not read).
    var words: [String: [[RecognizedWord]]]
    /// Leptonica's uprightness of the stack shown as 1 and as 6 (`PartReader.uprightness`).
    var uprightness: [String: Double]

    var layout: StackLayout {
        StackLayout(alongX: alongX, axisIsClear: axisIsClear, partsAreLines: partsAreLines)
    }

    init(
        stage: String, layout: StackLayout, parts: Int, words: [Orientation: [[RecognizedWord]]],
        uprightness: [Orientation: Double]
    ) {
        self.stage = stage
        alongX = layout.alongX
        axisIsClear = layout.axisIsClear
        partsAreLines = layout.partsAreLines
        self.parts = parts
        self.words = Dictionary(uniqueKeysWithValues: words.map { (String($0.key.exifValue), $0.value) })
        self.uprightness = Dictionary(uniqueKeysWithValues: uprightness.map { (String($0.key.exifValue), $0.value) })
    }

    /// The evidence of each part per candidate, scored with `weights`.
    func evidence(_ weights: ScoringWeights) -> [Orientation: [Evidence]] {
        Dictionary(
            uniqueKeysWithValues: words.compactMap { key, parts in
                Int(key).flatMap(Orientation.init(exifValue:)).map { o in
                    (o, parts.map { Evidence(words: $0, weights: weights) })
                }
            })
    }
}

/// Readings per candidate and part, handed out as the cascade asks (a `PartReader` without
/// Tesseract): recorded reads (`StackReads`) or a test's readings. Every read made is logged.
struct RecordedParts: PartReader {
    var readings: [Orientation: [Evidence]]
    var partCount: Int
    /// Reads the budget allows, all when nil.
    var budget: Int?
    var weights: ScoringWeights
    var recordedUprightness: [Orientation: Double] = [:]
    private(set) var starved: Set<Orientation> = []
    private(set) var allEvidence: [Orientation: [Evidence]] = [:]
    var words: [Orientation: [[RecognizedWord]]] { [:] }
    /// Each read made: candidate and part (1 = the first).
    private(set) var log: [(o: Orientation, part: Int)] = []

    init(
        _ readings: [Orientation: [Evidence]], parts: Int, budget: Int? = nil,
        weights: ScoringWeights = Calibration.embedded.scoring
    ) {
        self.readings = readings
        self.partCount = parts
        self.budget = budget
        self.weights = weights
    }

    /// The recorded reads of a stack, scored with `weights` (already turned into evidence by
    /// `StackReads.evidence`, which a fit does once per weighting).
    init(_ stack: StackReads, evidence: [Orientation: [Evidence]], weights: ScoringWeights) {
        self.init(evidence, parts: stack.parts, weights: weights)
        recordedUprightness = Dictionary(
            uniqueKeysWithValues: stack.uprightness.compactMap { key, value in
                Int(key).flatMap(Orientation.init(exifValue:)).map { ($0, value) }
            })
    }

    mutating func read(_ o: Orientation, parts count: Int) throws {
        var list = allEvidence[o] ?? []
        defer { allEvidence[o] = list }
        while list.count < min(count, partCount) {
            if let budget, log.count >= budget {
                starved.insert(o)
                return
            }
            log.append((o, list.count + 1))
            list.append(readings[o]?[safe: list.count] ?? Evidence())
        }
    }

    func uprightness(of o: Orientation) throws -> Double { recordedUprightness[o] ?? 0 }
}

/// One file's reads, every stack, with what the classifier said and the truth left to the
/// manifest: a line of `docorient replay record --reads`.
package struct ReadsRecording: Sendable, Codable, Equatable {
    /// The file, as given.
    package var path: String
    /// The file's own tag (EXIF value), nil when none.
    package var prior: Int?
    /// The classifier's probabilities of rotations 1, 3, 6, 8, and of nothing to orient.
    package var classifier: [Double]
    package var nothing: Double?
    /// The survey's letter-like marks (`classifier.pageMarks`).
    package var marks: Int
    /// The stacks the stages read, in their order (the lines first).
    package var stacks: [StackReads]
    /// The decision of the recording run (the stacks read exhaustively, no page stage): not the
    /// resolver's.
    package var decision: RecordedDecision

    var reading: ClassifierReading { ClassifierReading(probabilities: classifier, nothing: nothing) }
    var priorOrientation: Orientation? { prior.flatMap(Orientation.init(exifValue:)) }
}

extension Resolver {
    /// A resolver that reads every candidate of every part of both stacks, and nothing else (no
    /// page stage), with no budget and no nothing guard, for `recordReads`.
    package static func recordingReads(_ configuration: ResolverConfiguration) throws -> Resolver {
        var configuration = configuration
        configuration.exhaustive = true
        configuration.stacksOnly = true
        configuration.budget = .unlimited
        var calibration = Calibration.embedded
        calibration.classifier.nothingAt = ClassifierFit.never
        calibration.classifier.trustAt = ClassifierFit.never
        return try Resolver(configuration: configuration, calibration: calibration)
    }

    /// Everything Tesseract reads of one image's stacks (`recordingReads`), for `CascadeFit`.
    /// - Parameter path: the name the recording carries.
    package func recordReads(_ bytes: [UInt8], path: String) throws -> ReadsRecording {
        guard configuration.exhaustive else {
            throw DocOrientError(.library, "recordReads needs a resolver made by recordingReads")
        }
        let metadata = try ImageMetadata.read(bytes)
        let prior = metadata.effectiveOrientation
        let trace = try trace(imageBytes: bytes, metadata: metadata, prior: prior)
        guard let arbitration = trace.arbitration else {
            throw DocOrientError(.library, "the resolver recorded no arbitration for \(path)")
        }
        return ReadsRecording(
            path: path, prior: prior?.exifValue, classifier: arbitration.reading.probabilities,
            nothing: arbitration.reading.nothing, marks: arbitration.marks, stacks: trace.stacks,
            decision: RecordedDecision(trace.decision))
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}

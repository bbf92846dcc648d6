import DocOrient
import Foundation

// The classifier's thresholds are fitted by the rules that apply them: what both readers said of a
// file is recorded once (`Recording`), and replayed through `DecisionRules.arbitrate` with other
// thresholds (`ClassifierFit`), so that no copy of the rules in another language can drift from
// them (decision 9). The lab's `docorient-lab replay` command records, checks and fits.

/// One image's arbitration, recorded with the decision it gave: a line of `docorient-lab replay record`.
package struct Recording: Sendable, Codable, Equatable {
    /// The file, as given.
    package var path: String
    /// The text's decision before arbitration, and the final one.
    package var text: RecordedDecision
    package var decision: RecordedDecision
    /// The classifier's probabilities of rotations 1, 3, 6, 8...
    package var classifier: [Double]
    /// ...and of nothing to orient (nil from a model without that class).
    package var nothing: Double?
    /// Per candidate (EXIF value as a string key), the evidence read.
    var read: [String: Evidence]
    /// The survey's letter-like marks.
    package var marks: Int

    init(path: String, arbitration a: Arbitration, decision: Decision) {
        self.path = path
        text = RecordedDecision(a.text)
        self.decision = RecordedDecision(decision)
        classifier = a.reading.probabilities
        nothing = a.reading.nothing
        read = Dictionary(uniqueKeysWithValues: a.read.map { (String($0.key.exifValue), $0.value) })
        marks = a.marks
    }

    /// The arbitration's inputs again.
    var arbitration: Arbitration {
        Arbitration(
            text: text.decision, reading: ClassifierReading(probabilities: classifier, nothing: nothing),
            read: Dictionary(
                uniqueKeysWithValues: read.compactMap { key, e in
                    Int(key).flatMap(Orientation.init(exifValue:)).map { ($0, e) }
                }), marks: marks)
    }

    /// The decision the rules of `calibration` give on the recorded readings.
    func replayed(with calibration: Calibration) -> RecordedDecision {
        let a = arbitration
        return RecordedDecision(
            DecisionRules(calibration: calibration).arbitrate(a))
    }
}

/// A recording (`Recording`, `ReadsRecording`) with the truth of its file, as the fits read it.
package struct Labelled<Recorded: Sendable>: Sendable {
    package var recording: Recorded
    /// The EXIF value that shows the file upright.
    package var truth: Int
    /// False for a file without text (blank, a scene, a barcode): a page of a word or two is
    /// decidable (issue 60).
    package var decidable: Bool
    /// Whether the file has an up: every page, and a textless scene, which `truth` shows upright.
    /// Answering a scene with `truth` changes nothing for the worse; a file without an up (a blank
    /// page, a texture, a barcode) takes no answer.
    package var hasUp: Bool

    package init(recording: Recorded, truth: Int, decidable: Bool, hasUp: Bool? = nil) {
        self.recording = recording
        self.truth = truth
        self.decidable = decidable
        self.hasUp = hasUp ?? decidable
    }

    /// Whether `answer` is harmless: the upright of a file with an up, or no answer.
    package func harmless(_ answer: Int?) -> Bool {
        answer == nil || (hasUp && answer == truth)
    }
}

/// The part of a decision a recording keeps: what the rules decide on and give.
package struct RecordedDecision: Sendable, Codable, Equatable {
    /// The EXIF orientation, nil when undecidable.
    package var orientation: Int?
    package var confidence: Double
    package var margin: Double
    package var reason: String?
    /// "text", "classifier" or nil.
    package var decidedBy: String?

    init(_ d: Decision) {
        orientation = d.orientation?.exifValue
        confidence = d.confidence
        margin = d.margin
        reason = d.reason
        decidedBy = d.decidedBy?.rawValue
    }

    /// The decision again, without candidates (arbitration does not read them).
    var decision: Decision {
        Decision(
            orientation: orientation.flatMap(Orientation.init(exifValue:)), confidence: confidence, margin: margin,
            reason: reason, candidates: [], decidedBy: decidedBy.flatMap(Reader.init(rawValue:)))
    }
}

extension Recording {
    /// The decision the shipped rules (`Calibration.embedded`) give on the recorded readings.
    package func replayed() -> RecordedDecision { replayed(with: .embedded) }
}

extension Resolver {
    /// A resolver whose classifier never stops the stages, for nothing to orient (`nothingAt`
    /// never) or for its own sure answer (`trustAt` never): every file's text reading is recorded,
    /// for `replay fit` to place `nothingAt` and `trustAt` on.
    package static func withoutNothingGuard(
        _ configuration: ResolverConfiguration, calibration: Calibration = .embedded
    ) throws -> Resolver {
        var calibration = calibration
        calibration.classifier.nothingAt = ClassifierFit.never
        calibration.classifier.trustAt = ClassifierFit.never
        return try Resolver(configuration: configuration, calibration: calibration)
    }

    /// Resolves one image as `decide` does, and records what the rules weighed when the readers
    /// met with the decision they gave (`Recording`).
    /// - Parameter path: the name the recording carries.
    package func record(_ bytes: [UInt8], path: String) throws -> Recording {
        let metadata = try ImageMetadata.read(bytes)
        let trace = try trace(imageBytes: bytes, metadata: metadata, prior: metadata.effectiveOrientation)
        guard let arbitration = trace.arbitration else {
            throw DocOrientError(.library, "the resolver recorded no arbitration for \(path)")
        }
        return Recording(path: path, arbitration: arbitration, decision: trace.decision)
    }
}

import DocOrient
import Foundation

// What Tesseract read of every candidate of every part of a page's stacks (its text lines, its
// text windows), recorded once in exhaustive mode (`StackReads`), for the replay that hands those
// readings to the real cascade (`RecordedParts`): the cascade's rules and the confidence model are
// fitted by replaying the code that applies them (`CascadeFit`), not a copy.

/// One file's reads, every stack, with what the classifier said and the truth left to the
/// manifest: a line of `docorient-lab replay record --reads`.
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

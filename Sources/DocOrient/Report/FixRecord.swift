import Foundation

/// What docorient decided and did for one file: one line of `fix --json` and of `--report`.
public struct FixRecord: Sendable, Codable, Equatable {
    /// The file, nil for an image fixed in memory.
    public var path: String?
    /// For a page of a PDF or of a multi-page TIFF, its number (1 for the first); nil for an
    /// image and for such a file's own record. JSON `page`, present only on page records.
    public var page: Int?
    /// For a PDF or a multi-page TIFF, one record per page, in page order (the file's record sums
    /// them up); empty for an image. JSON `pages`, present only when not empty.
    public var pages: [FixRecord] = []
    /// The orientation the file displayed with before (1-8): its usable EXIF tag, else its XMP
    /// `tiff:Orientation` (which some viewers honour alone), nil when it had neither; for HEIF the
    /// orientation its `irot`/`imir` properties display (1 without them); for a PDF page the
    /// orientation its image is shown in (the content stream's placement, then /Rotate); for a
    /// page of a multi-page TIFF its Orientation tag, 1 (TIFF's default) when it has none. The
    /// JSON key is `exif_orientation` for compatibility.
    public var exifOrientation: Int?
    /// The orientation that displays the stored pixels upright, nil when undecidable or failed.
    public var detectedOrientation: Int?
    /// The decision's calibrated probability (0...1) that `detectedOrientation` is right; for an
    /// undecidable file, what the best candidate would have had; 0 when it failed before a decision.
    public var confidence: Double
    /// How far the winning candidate's score leads the runner-up's, (best - second) / best, 0...1;
    /// 0 when it failed before a decision.
    public var margin: Double
    /// How the text relates to the original tag; `.error` until a decision is taken, and when the
    /// file could not be read, decided or written.
    public var verdict: Verdict
    /// What was written (or, in a dry run, would be); `.none` for undecidable and failed files.
    public var action: FixAction
    /// Why a file is undecidable or failed, or a note on the action (e.g. why it was not baked).
    public var reason: String?
    /// What kind of failure, when the verdict is `.error`.
    public var errorCode: DocOrientError.Code?
    /// The system call or C library call that failed underneath, when the verdict is `.error` and
    /// one did. JSON `error_cause`: `{"call", "errno", "message"}`, or null.
    public var errorCause: DocOrientError.Cause?
    /// The failure itself, when this record was failed with one (`fail`), so that `error` gives
    /// it back whole.
    private(set) var failure: DocOrientError?
    /// Every candidate orientation that was read, best first; empty when it failed before a decision.
    public var candidates: [CandidateScore]
    /// Which reader the answer rests on: the text (Tesseract); where the text did not decide, the
    /// orientation classifier alone; or both, where the text read best, if too little to decide
    /// alone, in the rotation the classifier saw; nil when undecidable or failed. JSON `decided_by`.
    public var decidedBy: Reader?
    /// The orientation classifier's probability of each rotation (1, 3, 6, 8); empty when it did
    /// not look. JSON `classifier`, an object keyed by the EXIF value.
    public var classifier: [Orientation: Double] = [:]
    /// The orientation classifier's probability that the image holds nothing to orient; nil from a
    /// model without that class or when it did not look. JSON `nothing`, to 4 digits.
    public var nothing: Double?
    /// The work units the resolver spent (`WorkBudget`): what `--max-work` bounds. JSON `work`.
    public var work = 0
    /// Wall-clock time for this file, in milliseconds: reading, deciding and writing for a file,
    /// deciding and rewriting for an image in memory. JSON `elapsed_ms`, to a tenth of a millisecond.
    public var elapsedMilliseconds: Double

    /// An empty record (verdict `.error` until something is decided) for `path`.
    public init(path: String?) {
        self.path = path
        confidence = 0
        margin = 0
        verdict = .error
        action = .none
        candidates = []
        elapsedMilliseconds = 0
    }

    mutating func take(metadata: ImageMetadata, decision: Decision) {
        take(original: metadata.effectiveOrientation, decision: decision)
    }

    /// Takes the decision about stored pixels that were displayed as `original` (nil: no usable tag).
    mutating func take(original: Orientation?, decision: Decision) {
        exifOrientation = original?.exifValue
        detectedOrientation = decision.orientation?.exifValue
        confidence = decision.confidence
        margin = decision.margin
        candidates = decision.candidates
        decidedBy = decision.decidedBy
        classifier = decision.classifier
        nothing = decision.nothing
        work = decision.work
        reason = decision.reason
        switch (decision.orientation, original) {
        case (nil, _): verdict = .undecidable
        case (_?, nil): verdict = .noTag
        case (let d?, let o?): verdict = d == o ? .agrees : .disagrees
        }
        if verdict != .undecidable { reason = nil }
    }

    mutating func fail(_ error: any Error) {
        verdict = .error
        action = .none
        let failure = error as? DocOrientError ?? DocOrientError(.library, "\(error)")
        reason = failure.explanation
        errorCode = failure.code
        errorCause = failure.cause
        self.failure = failure
    }

    /// The failure as an error naming the record's file, nil unless the verdict is `.error`.
    public var error: DocOrientError? {
        guard verdict == .error else { return nil }
        if let failure { return path.map(failure.at) ?? failure }
        return DocOrientError(errorCode ?? .library, reason ?? "unknown failure", path: path)
    }

    /// The record as one line of JSON (sorted keys): what `--json`, `--report` and the journal hold.
    public var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Whether the report must show this file: a disagreement, an undecidable or an error.
    public var isNoteworthy: Bool { verdict == .disagrees || verdict == .undecidable || verdict == .error }

    /// Whether docorient changed the file (its tag rewritten or added, or its pixels baked); a dry
    /// run's "would" does not count.
    public var changedTheFile: Bool { action.changesTheFile }

    enum Key: String, CodingKey {
        case path, page, pages, confidence, margin, verdict, action, reason, candidates
        case exifOrientation = "exif_orientation"
        case detectedOrientation = "detected_orientation"
        case errorCode = "error_code"
        case errorCause = "error_cause"
        case decidedBy = "decided_by"
        case classifier, nothing, work
        case elapsedMilliseconds = "elapsed_ms"
    }

    /// An EXIF orientation value as a JSON key ("1" ... "8").
    struct ExifKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ o: Orientation) { stringValue = String(o.exifValue) }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    enum CandidateKey: String, CodingKey {
        case orientation, score, characters
        case meanConfidence = "mean_confidence"
    }

    /// Every key is always present, absent values as JSON null, except `page` and `pages`, which
    /// only PDFs' records have.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(path, forKey: .path)
        if let page { try c.encode(page, forKey: .page) }
        if !pages.isEmpty { try c.encode(pages, forKey: .pages) }
        try c.encode(exifOrientation, forKey: .exifOrientation)
        try c.encode(detectedOrientation, forKey: .detectedOrientation)
        try c.encode(rounded(confidence, 4), forKey: .confidence)
        try c.encode(rounded(margin, 4), forKey: .margin)
        try c.encode(verdict.rawValue, forKey: .verdict)
        try c.encode(action.rawValue, forKey: .action)
        try c.encode(reason, forKey: .reason)
        try c.encode(errorCode?.rawValue, forKey: .errorCode)
        try c.encode(errorCause, forKey: .errorCause)
        var list = c.nestedUnkeyedContainer(forKey: .candidates)
        for candidate in candidates {
            var item = list.nestedContainer(keyedBy: CandidateKey.self)
            try item.encode(candidate.orientation.exifValue, forKey: .orientation)
            try item.encode(rounded(candidate.score, 3), forKey: .score)
            try item.encode(candidate.characters, forKey: .characters)
            try item.encode(rounded(candidate.meanConfidence, 2), forKey: .meanConfidence)
        }
        try c.encode(decidedBy?.rawValue, forKey: .decidedBy)
        var probabilities = c.nestedContainer(keyedBy: ExifKey.self, forKey: .classifier)
        for (o, p) in classifier.sorted(by: { $0.key.exifValue < $1.key.exifValue }) {
            try probabilities.encode(rounded(p, 4), forKey: ExifKey(o))
        }
        try c.encode(nothing.map { rounded($0, 4) }, forKey: .nothing)
        try c.encode(work, forKey: .work)
        try c.encode(rounded(elapsedMilliseconds, 1), forKey: .elapsedMilliseconds)
    }

    /// A record as `jsonLine` wrote it, so that a report reads the journal's records as values
    /// (and writes them back the same); a key a record of an older docorient lacks takes the value
    /// an empty record has.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        self.init(path: try c.decodeIfPresent(String.self, forKey: .path))
        page = try c.decodeIfPresent(Int.self, forKey: .page)
        pages = try c.decodeIfPresent([FixRecord].self, forKey: .pages) ?? []
        exifOrientation = try c.decodeIfPresent(Int.self, forKey: .exifOrientation)
        detectedOrientation = try c.decodeIfPresent(Int.self, forKey: .detectedOrientation)
        confidence = try c.decodeIfPresent(Double.self, forKey: .confidence) ?? 0
        margin = try c.decodeIfPresent(Double.self, forKey: .margin) ?? 0
        verdict = try c.decodeIfPresent(String.self, forKey: .verdict).flatMap(Verdict.init(rawValue:)) ?? .error
        action = try c.decodeIfPresent(String.self, forKey: .action).flatMap(FixAction.init(rawValue:)) ?? .none
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        errorCode = try c.decodeIfPresent(String.self, forKey: .errorCode).flatMap(DocOrientError.Code.init)
        errorCause = try c.decodeIfPresent(DocOrientError.Cause.self, forKey: .errorCause)
        if c.contains(.candidates) {
            var list = try c.nestedUnkeyedContainer(forKey: .candidates)
            while !list.isAtEnd {
                let item = try list.nestedContainer(keyedBy: CandidateKey.self)
                guard let orientation = Orientation(exifValue: try item.decode(Int.self, forKey: .orientation)) else {
                    continue
                }
                candidates.append(
                    CandidateScore(
                        orientation: orientation, score: try item.decode(Double.self, forKey: .score),
                        characters: try item.decode(Int.self, forKey: .characters),
                        meanConfidence: try item.decode(Double.self, forKey: .meanConfidence)))
            }
        }
        decidedBy = try c.decodeIfPresent(String.self, forKey: .decidedBy).flatMap(Reader.init(rawValue:))
        if c.contains(.classifier) {
            let probabilities = try c.nestedContainer(keyedBy: ExifKey.self, forKey: .classifier)
            for key in probabilities.allKeys {
                guard let o = Int(key.stringValue).flatMap(Orientation.init(exifValue:)) else { continue }
                classifier[o] = try probabilities.decode(Double.self, forKey: key)
            }
        }
        nothing = try c.decodeIfPresent(Double.self, forKey: .nothing)
        work = try c.decodeIfPresent(Int.self, forKey: .work) ?? 0
        elapsedMilliseconds = try c.decodeIfPresent(Double.self, forKey: .elapsedMilliseconds) ?? 0
    }

    private func rounded(_ v: Double, _ digits: Int) -> Double {
        guard v.isFinite else { return 0 }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        return (v * scale).rounded() / scale
    }

    /// The record as docorient prints it for people, e.g. "photo.jpg: tag 6 is wrong, text says 8
    /// (confidence NN%); tag rewritten"; an image fixed in memory is called "image".
    public var humanLine: String {
        func o(_ v: Int?) -> String { v.map(String.init) ?? "none" }
        let conf = String(Int((confidence * 100).rounded()))
        let path = (self.path ?? "image") + (page.map { " page \($0)" } ?? "")
        // A PDF page has no tag: it shows its image in an orientation, and /Rotate turns it.
        if page != nil {
            switch verdict {
            case .error: return "\(path): error: \(reason ?? "unknown")"
            case .undecidable: return "\(path): undecidable (\(reason ?? "the text does not decide"))"
            case .agrees, .noTag:
                return "\(path): upright as shown (\(o(exifOrientation))) (confidence \(conf)%)"
            case .disagrees:
                let done =
                    action == .tagRewritten
                    ? "; turned by \(reason ?? "/Rotate")"
                    : action == .wouldRewriteTag ? "; would set \(reason ?? "/Rotate") (dry run)" : ""
                return
                    "\(path): shown as \(o(exifOrientation)), \(says) \(o(detectedOrientation)) (confidence "
                    + "\(conf)%)\(done)"
            }
        }
        switch verdict {
        case .error: return "\(path): error: \(reason ?? "unknown")"
        case .undecidable:
            return
                "\(path): undecidable (\(reason ?? "the text does not decide")); tag \(o(exifOrientation)) left alone"
        case .agrees: return "\(path): tag \(o(exifOrientation)) is right (confidence \(conf)%)\(actionText)"
        case .noTag: return "\(path): no tag; \(says) \(o(detectedOrientation)) (confidence \(conf)%)\(actionText)"
        case .disagrees:
            return
                "\(path): tag \(o(exifOrientation)) is wrong, \(says) \(o(detectedOrientation)) (confidence "
                + "\(conf)%)\(actionText)"
        }
    }

    /// Who gave the answer, as the human line says it.
    private var says: String {
        switch decidedBy {
        case .classifier: "the classifier says"
        case .both: "text and the classifier say"
        case .text, nil: "text says"
        }
    }

    private var actionText: String {
        var text: String
        switch action {
        case .none: text = ""
        case .tagRewritten: text = "; tag rewritten"
        case .baked: text = "; baked into the pixels"
        case .wouldRewriteTag: text = "; would rewrite the tag (dry run)"
        case .wouldBake: text = "; would bake (dry run)"
        }
        if let reason, verdict != .undecidable, verdict != .error { text += " (\(reason))" }
        return text
    }
}

/// How the evidence relates to the file's original tag.
public enum Verdict: String, Sendable, Codable {
    /// The text confirms the tag.
    case agrees
    /// The text says the tag is wrong.
    case disagrees
    /// The file had no usable tag; the text decided.
    case noTag = "no_tag"
    /// The text does not decide; nothing is changed.
    case undecidable
    /// The file could not be read, decided or written.
    case error
}

/// How many records of a run ended which way: the one count behind a batch's progress, the
/// command's summary line and its exit code.
public struct FixCounts: Sendable, Equatable {
    /// Records counted.
    public var files = 0
    /// Files whose text confirmed the tag (verdict `.agrees`; a disagreeing XMP copy may still be rewritten).
    public var agreed = 0
    /// Files whose text contradicted the tag (verdict `.disagrees`), changed or not.
    public var disagreed = 0
    /// Files without a usable tag whose text decided (verdict `.noTag`).
    public var noTag = 0
    /// Files whose text did not decide; left unchanged.
    public var undecidable = 0
    /// Files that could not be read, decided or written; the others go on regardless.
    public var failed = 0
    /// Files changed: tag rewritten or added, or pixels baked, whatever the verdict.
    public var fixed = 0
    /// Dry run: files that would have been changed.
    public var wouldFix = 0

    /// No records counted yet.
    public init() {}

    /// Counts `record` under its verdict and action.
    public mutating func count(_ record: FixRecord) {
        files += 1
        switch record.verdict {
        case .agrees: agreed += 1
        case .disagrees: disagreed += 1
        case .noTag: noTag += 1
        case .undecidable: undecidable += 1
        case .error: failed += 1
        }
        if record.changedTheFile { fixed += 1 }
        if record.action == .wouldRewriteTag || record.action == .wouldBake { wouldFix += 1 }
    }
}

/// What was done to the file. The raw values are the `action` field of `fix --json` records.
public enum FixAction: String, Sendable, Codable {
    /// The image was not changed: it already displays upright, the text did not decide, or it
    /// failed. (With a `.directory` destination an unchanged copy is still written there.)
    case none
    /// The orientation tag(s) were rewritten, or added where none was; the pixels are untouched.
    /// For a PDF page: its /Rotate, and for a mirrored one a mirroring wrapper around its content
    /// streams, which stay byte-identical.
    /// Also what a bake falls back to when a lossless JPEG transform is impossible without `trim`.
    case tagRewritten = "tag_rewritten"
    /// The turn was applied to the pixels and every orientation value now says 1.
    case baked
    /// Dry run: the tag would have been rewritten; the file is unchanged.
    case wouldRewriteTag = "would_rewrite_tag"
    /// Dry run with `bake`: the pixels would have been turned; the file is unchanged.
    case wouldBake = "would_bake"

    /// Whether the action wrote the file: a tag rewritten or added, or pixels baked.
    public var changesTheFile: Bool { self == .tagRewritten || self == .baked }
}

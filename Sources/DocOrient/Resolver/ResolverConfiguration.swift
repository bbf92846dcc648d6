import Foundation

/// When the resolver also considers the four mirrored orientations (EXIF 2, 4, 5, 7).
public enum MirrorPolicy: String, Sendable, Codable, CaseIterable {
    /// Only when the file's tag is mirrored, or when no rotation reads as dictionary text
    /// (mirrored print reads as confident non-words in every rotation).
    case auto
    /// Always (the CLI's `--mirror`): front-camera shots, scanners with a flipped paper path.
    case always
}

/// What a `Resolver` reads with and how far it may go. A value type: copy and change freely.
public struct ResolverConfiguration: Sendable, Equatable {
    /// Directory holding `<lang>.traineddata` (the CLI's `--tessdata DIR`). When nil, the resolver
    /// looks in `TESSDATA_PREFIX`, then in Debian's /usr/share/tesseract-ocr/5/tessdata and
    /// /usr/share/tesseract-ocr/4.00/tessdata.
    public var tessdata: String?
    /// The orientation classifier's model file (the CLI's `--classifier FILE`). When nil, the
    /// resolver looks in `$DOCORIENT_MODELS`, `<executable>/../share/docorient`,
    /// `/usr/share/docorient` and the source tree's `Models/orientation` for `docorient_orientation.onnx`.
    public var classifierModel: String?
    /// Tesseract languages joined by "+" (the CLI's `--lang`), e.g. "eng" or "eng+deu".
    public var languages: String
    /// When mirrored orientations are candidates.
    public var mirror: MirrorPolicy
    /// Largest frame (width x height) the resolver decodes; larger files are refused with
    /// `.limitExceeded` before any pixel memory is allocated.
    public var maxPixels: Int

    /// What resolving one image may spend (Tesseract reads, words, pixels); the same image gets
    /// the same answer on any machine and under any load.
    public var budget: WorkBudget
    /// Most Tesseract engines alive at once (each holds the loaded model, tens of megabytes); callers
    /// beyond it wait for an engine. Default: the number of active processors.
    public var maxEngines: Int
    /// An engine unused for this long is freed (its model unloaded), the orientation classifier's
    /// too (one, shared by every caller); the next caller that needs one loads it again (tens of
    /// milliseconds).
    public var engineIdleTimeout: Duration

    /// Read every candidate at every stage instead of stopping once the winner is clear. Slower,
    /// same winner in nearly every case; used to collect evidence for fitting `Models/calibration.json`.
    package var exhaustive: Bool = false
    /// Read the text lines and windows only, never the page stage (`Resolver.recordingReads`: the
    /// replay has no use for the coarse look, which read exhaustively costs most of the time).
    package var stacksOnly: Bool = false

    /// A configuration with the defaults: models found automatically, English, mirrored candidates
    /// when the evidence calls for them, at most 100 megapixels, the standard work budget, one
    /// engine per active processor, freed after 60 s unused.
    public init(
        tessdata: String? = nil, classifierModel: String? = nil, languages: String = "eng",
        mirror: MirrorPolicy = .auto,
        maxPixels: Int = 100_000_000, budget: WorkBudget = .standard,
        maxEngines: Int = ProcessInfo.processInfo.activeProcessorCount, engineIdleTimeout: Duration = .seconds(60)
    ) {
        self.tessdata = tessdata
        self.classifierModel = classifierModel
        self.languages = languages
        self.mirror = mirror
        self.maxPixels = maxPixels
        self.budget = budget
        self.maxEngines = max(1, maxEngines)
        self.engineIdleTimeout = engineIdleTimeout
    }

    /// The codes of a language list ("eng+deu" -> ["eng", "deu"]), each made of ASCII letters,
    /// digits and "_" only, so that none can name a path; the one check behind `languages`.
    /// - Throws: `.invalidRequest` for an empty code or any other character.
    public static func languageCodes(_ value: String) throws -> [String] {
        let parts = value.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        for part in parts {
            let valid =
                !part.isEmpty
                && part.utf8.allSatisfy { c in
                    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
                }
            guard valid else {
                throw DocOrientError(
                    .invalidRequest, "invalid language list '\(value)': use Tesseract codes joined by '+', e.g. eng+deu"
                )
            }
        }
        return parts
    }
}

import ArgumentParser
import DocOrient
import DocOrientBatch
import DocOrientCommandLine
import Foundation

/// Options every file-changing command shares.
struct WriteOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp("Write changed copies into DIR instead of replacing the originals.", valueName: "DIR"))
    var output: String?

    func validate() throws {
        guard let output else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("--output \(output) is not an existing directory")
        }
    }

    var destination: Destination { output.map { .directory($0) } ?? .inPlace }
}

/// The option that points at a missing model, as a hint after the error: the classifier's file or
/// Tesseract's directory.
func missingModelHint(_ error: DocOrientError) -> String {
    guard error.code == .missingModel else { return "" }
    return error.message.contains("orientation classifier") ? " (here: --classifier FILE)" : " (here: --tessdata DIR)"
}

/// How every command that resolves (`fix`, `serve`) finds its models and reads: Tesseract's
/// languages and models, and the orientation classifier's model. The work budget is its own group,
/// `BudgetOptions`, so that each command can title it.
struct ResolverOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Tesseract languages joined by '+'.", valueName: "LANGS"))
    var lang = "eng"

    @Option(
        help: ArgumentHelp(
            "Directory with the <lang>.traineddata models (default: $TESSDATA_PREFIX, then Debian's).", valueName: "DIR"
        ))
    var tessdata: String?

    @Option(
        help: ArgumentHelp(
            "The orientation classifier's model file (default: $DOCORIENT_MODELS, then /usr/share/docorient, then "
                + "the source tree's Models/orientation).",
            valueName: "FILE"))
    var classifier: String?

    func validate() throws {
        do {
            _ = try ResolverConfiguration.languageCodes(lang)
        } catch let error as DocOrientError {
            throw ValidationError("--lang: \(error.explanation)")
        }
    }

    /// The resolver's configuration with these models and `budget`; the rest as given or default.
    func configuration(
        budget: WorkBudget, mirror: MirrorPolicy = .auto, maxPixels: Int = Bake.defaultMaxPixels
    ) -> ResolverConfiguration {
        ResolverConfiguration(
            tessdata: tessdata, classifierModel: classifier, languages: lang, mirror: mirror, maxPixels: maxPixels,
            budget: budget)
    }

    /// The resolver these options configure; a failure to load a model is printed with the option
    /// that points at it, and exits 1.
    func resolver(
        budget: WorkBudget, mirror: MirrorPolicy = .auto, maxPixels: Int = Bake.defaultMaxPixels
    ) throws
        -> Resolver
    {
        do {
            return try Resolver(configuration: configuration(budget: budget, mirror: mirror, maxPixels: maxPixels))
        } catch let error as DocOrientError {
            printError("docorient: \(error)" + missingModelHint(error))
            throw ExitCode(1)
        }
    }
}

/// The resolver's work budget per image (`fix` and `serve`): counted in work, not time, so an
/// image gets the same answer on any machine and under any load.
/// What `fix` and `decide` ask of each image beside the resolver's models: whether the mirrored
/// orientations are candidates, and the most pixels an image may have before it is decoded.
struct ImageOptions: ParsableArguments {
    @Flag(help: "Also consider the four mirrored orientations (front cameras, mirrored scanners).")
    var mirror = false

    @Option(
        help: ArgumentHelp(
            "Refuse images with more pixels than this, before decoding (decompression bombs).", valueName: "N"))
    var maxPixels = Bake.defaultMaxPixels

    var mirrorPolicy: MirrorPolicy { mirror ? .always : .auto }
}

struct BudgetOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Work budget: most Tesseract reads per image.", valueName: "N"))
    var maxReads = WorkBudget.standard.reads

    @Option(
        help: ArgumentHelp(
            "Work budget: most recognition steps Tesseract may start per image (words in its API; with its LSTM "
                + "engine, text lines).",
            valueName: "N"))
    var maxWords = WorkBudget.standard.words

    @Option(help: ArgumentHelp("Work budget: most megapixels handed to Tesseract per image.", valueName: "N"))
    var maxOcrMegapixels = WorkBudget.standard.pixels / 1_000_000

    @Option(
        help: ArgumentHelp(
            "Work budget: most work units per image; a unit is about what Tesseract spends recognising one text line.",
            valueName: "N"))
    var maxWork = WorkBudget.standard.work

    func validate() throws {
        guard maxReads >= 0, maxWords >= 0, maxOcrMegapixels >= 0, maxWork >= 0 else {
            throw ValidationError("--max-reads, --max-words, --max-ocr-megapixels and --max-work take numbers >= 0")
        }
    }

    var budget: WorkBudget {
        WorkBudget(
            reads: maxReads, words: maxWords,
            pixels: maxOcrMegapixels.multipliedReportingOverflow(by: 1_000_000).overflow
                ? .max : maxOcrMegapixels * 1_000_000, work: maxWork)
    }
}

/// An orientation on the command line: its EXIF value, 1-8.
extension Orientation: ExpressibleByArgument {
    /// The orientation whose EXIF value `argument` is ("6"); nil (a usage error) outside 1-8.
    public init?(argument: String) {
        guard let value = Int(argument), let orientation = Orientation(exifValue: value) else { return nil }
        self = orientation
    }
}

/// `--shard K/N`, with 1 <= K <= N.
extension Shard: ExpressibleByArgument {
    /// The shard `argument` names ("2/8"); nil (a usage error) unless 1 <= K <= N.
    public init?(argument: String) { self.init(argument) }
}

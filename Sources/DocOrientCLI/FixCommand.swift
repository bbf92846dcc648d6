import ArgumentParser
import DocOrient
import Foundation

struct FixCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fix",
        abstract: "Read the text of each photo, decide its orientation and fix the file.",
        discussion: """
            For each file docorient reads the text in every candidate orientation (Tesseract), decides
            which one is upright, and rewrites the orientation tag when it is wrong (lossless, instant;
            --bake applies it to the pixels instead). When the text does not decide (blank page,
            photo, a couple of words) the file is reported as undecidable and left alone.

            Disagreements, undecidables and errors are reported on stderr as they happen; a summary
            follows at the end. --json prints one object per file per line on stdout with the keys
            path, exif_orientation, detected_orientation, confidence, verdict (agrees, disagrees,
            no_tag, undecidable, error), action (none, tag_rewritten, baked, would_rewrite_tag,
            would_bake), reason, candidates, elapsed_ms.

            Examples:
              docorient fix scan.jpg
              docorient fix --dry-run --json receipts/*.jpg > decisions.jsonl
              docorient fix --bake --output upright/ --report fixes.jsonl *.jpg
              docorient fix --lang eng+deu --tessdata ~/tessdata rechnung.jpg

            Exit codes: 0 every file handled (undecidable counts as handled), 1 some file failed,
            64 usage error.
            """)

    @Flag(help: "Bake the orientation into the pixels (lossless JPEG transform) instead of rewriting the tag.")
    var bake = false

    @Flag(help: "With --bake: drop partial edge blocks when a perfect lossless transform is impossible.")
    var trim = false

    @Flag(help: "Decide and report, change nothing.")
    var dryRun = false

    @Flag(help: "Print one JSON object per file per line on stdout.")
    var json = false

    @Flag(help: "Also consider the four mirrored orientations (front cameras, mirrored scanners).")
    var mirror = false

    @Option(help: ArgumentHelp("Tesseract languages joined by '+'.", valueName: "LANGS"))
    var lang = "eng"

    @Option(help: ArgumentHelp("Directory with the <lang>.traineddata models (default: $TESSDATA_PREFIX, then Debian's).", valueName: "DIR"))
    var tessdata: String?

    @Option(help: ArgumentHelp("Append a JSON Lines record per file to FILE.", valueName: "FILE"))
    var report: String?

    @Flag(help: "No per-file lines for files that need no attention (errors, disagreements and the summary still print).")
    var quiet = false

    @OptionGroup var write: WriteOptions

    @Argument(help: "Image files (JPEG, PNG, TIFF).")
    var paths: [String]

    func validate() throws {
        if trim && !bake { throw ValidationError("--trim only applies with --bake") }
    }

    func run() throws {
        let configuration = ResolverConfiguration(tessdata: tessdata, languages: lang, mirror: mirror ? .always : .auto)
        let resolver: Resolver
        do {
            resolver = try Resolver(configuration: configuration)
        } catch let error as DocOrientError {
            printError("docorient: \(error)")
            throw ExitCode(1)
        }
        let fixer = Fixer(resolver: resolver)
        let writer = try ReportWriter(json: json, reportPath: report, quiet: quiet)
        let options = FixOptions(bake: bake, trim: trim, dryRun: dryRun, destination: write.destination)
        for path in paths {
            writer.record(fixer.fix(path: path, options: options))
        }
        writer.finish()
        if writer.summary.failed > 0 { throw ExitCode(1) }
    }
}

import ArgumentParser
import DocOrient
import DocOrientBatch
import DocOrientCommandLine
import Foundation

struct FixCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fix",
        abstract: "Read the text of each photo, decide its orientation and fix the file.",
        discussion: """
            For each file docorient reads the text in every candidate orientation (Tesseract), decides \
            which one is upright, and rewrites the orientation tag when it is wrong (lossless, instant; \
            --bake applies it to the pixels instead). When the text does not decide (blank page, \
            photo, a couple of words) the file is reported as undecidable and left alone.

            A PDF is decided page by page (the image each page shows, as its content places it and \
            its /Rotate turns it): a page shown turned gets a new /Rotate, a page that reads \
            mirrored also a small content stream before and after its own (q, a mirroring cm ... Q), \
            every existing content and image stream stays byte-identical, and --json prints one \
            record per page, with its page number. Pages without an image are left alone, and so \
            are mirrored pages with annotations (a content stream does not mirror them).

            Disagreements, undecidables and errors are reported on stderr as they happen; a summary \
            follows at the end. --json prints one object per file per line on stdout with the keys \
            path, exif_orientation, detected_orientation, confidence, verdict (agrees, disagrees, \
            no_tag, undecidable, error), action (none, tag_rewritten, baked, would_rewrite_tag, \
            would_bake), reason, candidates, elapsed_ms. Records come in input order (a folder's \
            files depth first, names sorted), whatever order the files finish in: two runs print \
            the same lines apart from elapsed_ms.

            Folders are walked recursively (hidden entries and non-images skipped, symlink loops \
            detected) and their files fixed in parallel (--jobs). A journal (.docorient.sqlite in the \
            first folder, or --journal PATH) records every file, so a second run skips what is done \
            and a run that was interrupted (Ctrl-C, or killed) finishes the rest when run again. \
            Ctrl-C stops cleanly: files in flight finish, the summary prints; a second Ctrl-C exits \
            at once. Files are only ever replaced atomically.

            Examples:
              docorient fix scan.jpg
              docorient fix --json scan.pdf
              docorient fix --dry-run --json receipts/*.jpg > decisions.jsonl
              docorient fix --bake --output upright/ --report fixes.jsonl *.jpg
              docorient fix --lang eng+deu --tessdata ~/tessdata rechnung.jpg
              docorient fix --jobs 2 --exclude 'archive/*' ~/Receipts
              docorient fix --shard 3/8 --journal shard3.sqlite /mnt/receipts
              docorient report --html review.html ~/Receipts/.docorient.sqlite
              docorient undo ~/Receipts ~/Receipts/2024-03-01.jpg

            Exit codes: 0 every file handled (undecidable counts as handled), 1 some file failed, \
            64 usage error.
            """)

    @Flag(help: "Bake the orientation into the pixels (lossless JPEG transform) instead of rewriting the tag.")
    var bake = false

    @Flag(help: "With --bake: drop partial edge blocks when a perfect lossless transform is impossible.")
    var trim = false

    @Flag(help: "Decide and report, change nothing.")
    var dryRun = false

    @Flag(
        help: ArgumentHelp(
            "Keep no originals for undo (by default the original bytes of every file changed in a way a tag edit "
                + "cannot take back, such as --bake or a tag added, are kept in .docorient-originals beside the "
                + "journal)."))
    var noKeep = false

    @Flag(help: "Print one JSON object per file per line on stdout.")
    var json = false

    @OptionGroup var images: ImageOptions

    @OptionGroup var resolving: ResolverOptions

    @Option(help: ArgumentHelp("Append a JSON Lines record per file to FILE.", valueName: "FILE"))
    var report: String?

    @Flag(
        help: "No per-file lines for files that need no attention (errors, disagreements and the summary still print).")
    var quiet = false

    @Option(
        help: ArgumentHelp(
            "Parallel workers, each with its own Tesseract engine (default: the number of cores).", valueName: "N"))
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(
        help: ArgumentHelp(
            "The journal database (default: .docorient.sqlite in the first folder given; none for single files).",
            valueName: "PATH"))
    var journal: String?

    @Option(help: ArgumentHelp("Only files matching GLOB (relative path or name); repeatable.", valueName: "GLOB"))
    var include: [String] = []

    @Option(help: ArgumentHelp("Skip files and folders matching GLOB; repeatable.", valueName: "GLOB"))
    var exclude: [String] = []

    @Flag(help: "Also walk hidden files and folders.")
    var hidden = false

    @Option(
        help: ArgumentHelp(
            "Take only part K of N of the files, 1 <= K <= N (deterministic by relative path).", valueName: "K/N"))
    var shard: Shard?

    @OptionGroup var write: WriteOptions

    @OptionGroup(title: "Work budget") var budget: BudgetOptions

    @Argument(help: "Image files (JPEG, PNG, TIFF, HEIF), scanned PDFs, and folders of them.")
    var paths: [String]

    /// The mode the flags ask for: --bake, with --trim or not, else a tag rewrite.
    var mode: FixMode { bake ? (trim ? .bakeTrim : .bake) : .tag }

    func validate() throws {
        if trim && !bake { throw ValidationError("--trim only applies with --bake") }
        if jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    func run() throws {
        Interrupts.install()
        Heaps.limit(to: jobs)
        let walker = FileWalker(include: include, exclude: exclude, includeHidden: hidden, shard: shard)
        let found = walker.walk(paths)
        for problem in found.problems { printError("docorient: \(problem)") }
        let folders = paths.filter { (try? FileStatus($0))?.kind == .directory }
        let journalPath = journal ?? folders.first.map(Journal.location)

        let resolver = try resolving.resolver(
            budget: budget.budget, mirror: images.mirrorPolicy, maxPixels: images.maxPixels)
        let openedJournal: Journal?
        do {
            // A dry run changes nothing, not even by creating a journal in the user's folder.
            openedJournal = dryRun ? nil : try journalPath.map { try Journal(path: $0) }
        } catch let error as DocOrientError {
            printError("docorient: \(error)")
            throw ExitCode(1)
        }
        let writer = try ReportWriter(json: json, reportPath: report, quiet: quiet || !folders.isEmpty)
        let options = FixOptions(mode: mode, dryRun: dryRun, destination: write.destination)
        let originals = noKeep ? nil : openedJournal.map { OriginalsStore(besideJournal: $0.path) }
        let runner = BatchRunner(
            fixer: Fixer(resolver: resolver), options: options, jobs: jobs, journal: openedJournal, originals: originals
        )
        var skipped: [String] = []
        if found.skippedNonImages > 0 {
            skipped.append("\(found.skippedNonImages) non-image file\(found.skippedNonImages == 1 ? "" : "s")")
        }
        if found.symlinkLoops > 0 {
            skipped.append("\(found.symlinkLoops) symlink loop\(found.symlinkLoops == 1 ? "" : "s")")
        }
        if found.otherShards > 0 { skipped.append("\(found.otherShards) files of other shards") }
        if !skipped.isEmpty, !quiet { printError("docorient: skipped " + skipped.joined(separator: ", ")) }

        let progress = ProgressLine(enabled: !quiet && (found.files.count > 1))
        let final = try runner.run(
            files: found.files, onRecord: writer.record, onProgress: progress.update,
            shouldStop: { Interrupts.requested })
        progress.finish()
        writer.finish()
        if final.alreadyDone > 0 {
            printError(
                "docorient: \(final.alreadyDone) file\(final.alreadyDone == 1 ? " was" : "s were") already handled "
                    + "(journal \(journalPath ?? "")), skipped"
            )
        }
        if final.stopped {
            printError(
                "docorient: interrupted; \(final.total - final.alreadyDone - final.done) files left for the next run")
            throw ExitCode(130)
        }
        if writer.summary.failed > 0 { throw ExitCode(1) }
    }
}

import ArgumentParser
import DocOrient
import Foundation

/// `docorient decide`: one long-lived resolver answering requests on a pipe, so that a program that
/// asks page after page (the OCRmyPDF plugin, `Packaging/ocrmypdf`) pays for the process start and
/// the model load once, not per page.
struct DecideCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decide",
        abstract: "Decide the images named on standard input, one record a line on standard output.",
        discussion: """
            Reads one file path a line from standard input and answers each, in order, with one \
            line on standard output: the record `fix --dry-run --json` prints for that file. The \
            models are loaded once; nothing is written to any file. A file that cannot be read or \
            decided gets a record with verdict "error" (an empty line too), and the next line is \
            read: every line gets exactly one answer. Ends, exit 0, when standard input ends.

            For programs that keep one docorient running and ask it file after file (the OCRmyPDF \
            plugin, docorient_ocrmypdf); a path cannot contain a newline.

            Example:
              printf '%s\\n' a.jpg b.jpg | docorient decide
            """,
        shouldDisplay: false)

    @OptionGroup var images: ImageOptions

    @OptionGroup var resolving: ResolverOptions

    @OptionGroup(title: "Work budget") var budget: BudgetOptions

    func run() throws {
        let resolver = try resolving.resolver(
            budget: budget.budget, mirror: images.mirrorPolicy, maxPixels: images.maxPixels)
        let fixer = Fixer(resolver: resolver)
        let options = FixOptions(mode: .tag, dryRun: true)
        // Written unbuffered, a line at a time: the caller waits for each answer before asking again.
        let output = FileHandle.standardOutput
        while let path = readLine(strippingNewline: true) {
            var record: FixRecord
            if path.isEmpty {
                record = FixRecord(path: path)
                record.reason = "an empty line: give one file path a line"
                record.errorCode = .invalidRequest
            } else {
                record = fixer.fixFile(path: path, options: options).record
            }
            try output.write(contentsOf: Data((record.jsonLine + "\n").utf8))
        }
    }
}

import ArgumentParser
import DocOrient
import DocOrientBatch
import DocOrientCommandLine
import Foundation

struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Summarise batch journals and list the files that need a look.",
        discussion: """
            Reads one or more journals (several shards merge into one report) and prints the summary \
            and every file a reviewer must see, in three groups: changed (the tag was rewritten or \
            added, or the pixels baked: the file displays differently now), needs a look \
            (undecidable, or a disagreement nothing was written for) and failed. Each changed file \
            comes with the command that gives it back its original bytes (docorient undo). --html writes one \
            self-contained page: a contact sheet with each such file as a viewer showed it before \
            and as docorient shows it now, the old and new orientation, confidence, reason and undo \
            command, with filters by group and by confidence. --json prints the same files as the \
            records of fix --json with two keys added: group (changed, decided_by_person, \
            needs_a_look, failed) and undo_command (null when there is nothing to undo). Files a \
            person turned on the review page (docorient review) are counted apart, as decided by a \
            person; --labels prints those decisions as labelled examples for training (written \
            here only, never sent anywhere).

            Examples:
              docorient report ~/Receipts/.docorient.sqlite
              docorient report --json shard-*.sqlite > attention.jsonl
              docorient report --html review.html ~/Receipts/.docorient.sqlite
              docorient report --labels ~/Receipts > labels.jsonl
            """)

    @Flag(help: "Print the listed files as JSON Lines (the records of fix --json, plus group and undo_command).")
    var json = false

    @Flag(
        help: """
            Print the decisions a person made on the review page as labelled examples, one JSON \
            object a line (path, relative_path, orientation, decided_by, docorient_orientation, hash, \
            decided_at), and nothing else.
            """)
    var labels = false

    @Option(help: ArgumentHelp("Write a self-contained HTML contact sheet to FILE.", valueName: "FILE"))
    var html: String?

    @Option(
        name: .long,
        help: ArgumentHelp("A journal to read (repeatable; the same as listing it as an argument).", valueName: "PATH"))
    var journal: [String] = []

    @Argument(help: "Journal files (.docorient.sqlite) or folders that hold one.")
    var journals: [String] = []

    func validate() throws {
        if journal.isEmpty && journals.isEmpty {
            throw ValidationError("name at least one journal (or a folder that holds .docorient.sqlite)")
        }
    }

    func run() throws {
        let paths = (journal + journals).map(Journal.location)
        let report: BatchReport
        do {
            report = try BatchReport(journals: paths)
        } catch let error as DocOrientError {
            printError("docorient: \(error)")
            throw ExitCode(1)
        }
        if labels {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for example in report.labelledExamples {
                print(String(decoding: try encoder.encode(example), as: UTF8.self))
            }
            return
        }
        if json {
            for (group, entry) in report.noteworthy { print(report.reviewLine(group, entry)) }
        } else {
            print(report.summaryLine)
            for (group, entry) in report.noteworthy {
                let old = entry.exifOrientation.map(String.init) ?? "none"
                let new = entry.detectedOrientation.map(String.init) ?? "-"
                let undo = report.undoCommand(for: entry).map { "\tundo: \($0)" } ?? ""
                print(
                    "\(group.title)\t\(entry.verdict.rawValue)\t\(entry.path)\ttag \(old) -> "
                        + "\(new)\t\(entry.action)\t\(entry.reason ?? "")\(undo)"
                )
            }
        }
        if let html {
            do {
                try FileIO.writeAtomically(Array(try report.html().utf8), to: html, replacing: false)
            } catch let error as DocOrientError {
                printError("docorient: \(error)")
                throw ExitCode(1)
            }
            printError("docorient: wrote \(html) (\(report.noteworthy.count) files to look at)")
        }
    }
}

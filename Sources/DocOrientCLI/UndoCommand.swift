import ArgumentParser
import DocOrient
import DocOrientBatch
import DocOrientCommandLine
import Foundation

struct UndoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Give files a batch changed their original bytes back.",
        discussion: """
            Reads a batch journal and, for the named files (all the journal changed when none is \
            named), puts back the bytes they had before docorient fixed them: from the originals \
            kept in .docorient-originals beside the journal (baked files, added tags), or by \
            editing a rewritten tag back. A file is only restored while it is still exactly what \
            docorient wrote (its content hash); a file edited since is left alone, with the \
            reason. Restored files are marked undone in the journal, so a later fix run leaves \
            them as they are until they change.

            Examples:
              docorient undo ~/Receipts
              docorient undo --dry-run ~/Receipts/.docorient.sqlite ~/Receipts/2024/till-0042.jpg
              docorient undo --json shard3.sqlite > undone.jsonl

            Exit codes: 0 every named file restored (or nothing to undo), 1 some file refused or \
            failed, 64 usage error.
            """)

    @Flag(help: "Say what would be restored, change nothing.")
    var dryRun = false

    @Flag(help: "Print one JSON object per file per line (path, outcome, reason).")
    var json = false

    @Argument(help: "The journal (.docorient.sqlite) or the folder that holds it.")
    var journal: String

    @Argument(help: "Files to restore (default: every file the journal records as changed).")
    var paths: [String] = []

    func run() throws {
        let journalPath = Journal.location(journal)
        guard FileManager.default.fileExists(atPath: journalPath) else {
            printError("docorient: \(journalPath): no journal here (run docorient fix on a folder first)")
            throw ExitCode(1)
        }
        let store = OriginalsStore(besideJournal: journalPath)
        let opened: Journal
        let entries: [String: JournalEntry]
        do {
            opened = try Journal(path: journalPath, readOnly: dryRun)
            entries = try opened.entries()
        } catch let error as DocOrientError {
            printError("docorient: \(error)")
            throw ExitCode(1)
        }
        var chosen: [JournalEntry] = []
        var unknown: [String] = []
        if paths.isEmpty {
            chosen = entries.values.filter(\.changedTheFile).sorted { $0.path < $1.path }
        } else {
            for path in paths {
                let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
                if let entry = entries[absolute] { chosen.append(entry) } else { unknown.append(path) }
            }
        }
        var restored = 0
        var refused = unknown.count
        for path in unknown {
            emit(Undo.Result(path: path, outcome: .refused, reason: "not in the journal"))
        }
        for entry in chosen {
            let (result, updated) = Undo.undo(entry, store: store, dryRun: dryRun)
            if let updated {
                do {
                    try opened.save([updated])
                } catch {
                    printError("docorient: \(entry.path): restored, but the journal could not record it: \(error)")
                }
            }
            switch result.outcome {
            case .restored, .wouldRestore: restored += 1
            case .refused: refused += 1
            case .nothingToUndo: break
            }
            emit(result)
        }
        let verb = dryRun ? "would be restored" : "restored"
        printError("docorient: \(restored) file\(restored == 1 ? "" : "s") \(verb), \(refused) refused")
        if refused > 0 { throw ExitCode(1) }
    }

    func emit(_ result: Undo.Result) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            if let data = try? encoder.encode(result) { print(String(decoding: data, as: UTF8.self)) }
        } else {
            print("\(result.outcome.rawValue)\t\(result.path)" + (result.reason.map { "\t\($0)" } ?? ""))
        }
    }
}

import DocOrient
import Foundation

/// Logs what `fix` decided: a JSON line per file on stdout (`--json`) or a human line, the
/// noteworthy files (disagreements, undecidables, errors) on stderr as they happen, JSON Lines
/// appended to a report file, and a summary at the end.
///
/// Not thread-safe: one writer per run, fed from one task (the batch runner serialises into it).
package final class ReportWriter {
    /// The counts of the records written so far; `summaryLine` prints them.
    package private(set) var summary = FixCounts()
    private let json: Bool
    private let quiet: Bool
    private let report: FileHandle?

    /// - Parameters:
    ///   - json: one JSON object per file per line on stdout.
    ///   - reportPath: append JSON Lines records here (created if missing).
    ///   - quiet: no per-file human lines (errors are still printed).
    package init(json: Bool, reportPath: String?, quiet: Bool = false) throws {
        self.json = json
        self.quiet = quiet
        if let reportPath {
            if !FileManager.default.fileExists(atPath: reportPath) {
                guard FileManager.default.createFile(atPath: reportPath, contents: nil) else {
                    throw DocOrientError(.io, "cannot create the report file", path: reportPath)
                }
            }
            guard let handle = FileHandle(forWritingAtPath: reportPath) else {
                throw DocOrientError(.io, "cannot open the report file for appending", path: reportPath)
            }
            handle.seekToEndOfFile()
            report = handle
        } else {
            report = nil
        }
    }

    deinit { try? report?.close() }

    /// Counts `r` in `summary` and writes it out: on stdout its JSON line (`json`) or, unless it is
    /// noteworthy or `quiet`, its human line; a noteworthy file's human line on stderr at once;
    /// and its JSON line appended to the report file, if any.
    ///
    /// A PDF is written as its pages' records, one line each (with their page number), and
    /// counted once, as one file.
    package func record(_ r: FixRecord) {
        summary.count(r)

        // A PDF that failed as a whole has no page records: its own line says why.
        for r in r.pages.isEmpty ? [r] : r.pages {
            let line = r.jsonLine
            if json { Self.write(line + "\n", to: .standardOutput) }
            if r.isNoteworthy {
                Self.write("docorient: " + r.humanLine + "\n", to: .standardError)
            } else if !json, !quiet {
                Self.write(r.humanLine + "\n", to: .standardOutput)
            }
            report?.write(Data((line + "\n").utf8))
        }
    }

    /// The summary line, e.g. "12 files: 7 agreed, 3 fixed, 1 undecidable, 1 failed".
    package var summaryLine: String {
        let s = summary
        var parts = ["\(s.agreed) agreed", "\(s.fixed) fixed"]
        if s.wouldFix > 0 { parts.append("\(s.wouldFix) would be fixed (dry run)") }
        if s.noTag > 0 { parts.append("\(s.noTag) had no tag") }
        parts += ["\(s.undecidable) undecidable", "\(s.failed) failed"]
        return "\(s.files) file\(s.files == 1 ? "" : "s"): " + parts.joined(separator: ", ")
    }

    /// Prints the summary on stderr.
    package func finish() {
        Self.write("docorient: " + summaryLine + "\n", to: .standardError)
        try? report?.synchronize()
    }

    static func write(_ text: String, to handle: FileHandle) {
        handle.write(Data(text.utf8))
    }
}

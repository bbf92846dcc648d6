import DocOrient
import Foundation

/// What `docorient report` shows: the summary of one or more journals (shards merge) and every
/// file a reviewer must see, grouped: each whose displayed orientation changed (tag rewritten,
/// tag added, pixels baked), each that needs a look (undecidable, or a disagreement left alone),
/// each that failed.
public struct BatchReport: Sendable {
    /// Every journalled file, by path.
    public var entries: [JournalEntry]
    /// The journal each entry was read from, by path: `undo` needs it.
    public var journalOf: [String: String] = [:]

    /// The review groups, in the order the report lists them.
    public enum Group: String, Sendable, CaseIterable, Codable {
        /// The file now displays differently: its tag was rewritten or added, or its pixels baked.
        case changed
        /// A person decided how the file shows, on the review page (`docorient review`).
        case decidedByPerson = "decided_by_person"
        /// The text did not decide (undecidable), or it disagreed and nothing was written.
        case needsALook = "needs_a_look"
        /// docorient could not handle the file.
        case failed

        /// The heading the HTML page and the text listing use.
        public var title: String {
            switch self {
            case .changed: return "changed"
            case .decidedByPerson: return "decided by a person"
            case .needsALook: return "needs a look"
            case .failed: return "failed"
            }
        }
    }

    /// Reads and merges journals; a path present in several keeps its newest entry.
    public init(journals: [String]) throws {
        var merged: [String: JournalEntry] = [:]
        for path in journals {
            guard FileManager.default.fileExists(atPath: path) else {
                throw DocOrientError(
                    .io,
                    "no journal here (a batch over a folder writes one there; name the journal's file if it is "
                        + "elsewhere)",
                    path: path)
            }
            for (key, entry) in try Journal(path: path, readOnly: true).entries() {
                if let old = merged[key], old.updatedAt > entry.updatedAt { continue }
                merged[key] = entry
                journalOf[key] = path
            }
        }
        entries = merged.values.sorted { $0.path < $1.path }
    }

    /// The group of `entry`; nil for files that agreed, or had no tag and needed none.
    public static func group(of entry: JournalEntry) -> Group? {
        if entry.personDecisionStands { return .decidedByPerson }
        if entry.verdict == .error { return .failed }
        if entry.changedTheFile { return .changed }
        if entry.verdict == .undecidable || entry.verdict == .disagrees { return .needsALook }
        return nil
    }

    /// Every file a reviewer must see, by group (changed, decided by a person, needs a look,
    /// failed), then by path.
    public var noteworthy: [(group: Group, entry: JournalEntry)] {
        Group.allCases.flatMap { group in entries.filter { Self.group(of: $0) == group }.map { (group, $0) } }
    }

    /// The shell command that gives the file back the bytes it had before docorient changed it
    /// (`docorient undo JOURNAL FILE`); nil when nothing was changed.
    public func undoCommand(for entry: JournalEntry) -> String? {
        guard entry.changedTheFile else { return nil }
        guard let journal = journalOf[entry.path] else { return Self.undoCommand(for: entry) }
        return "docorient undo \(Self.shellQuoted(journal)) \(Self.shellQuoted(entry.path))"
    }

    /// Without the journal: the commands that give the file back the display it had (a rewritten
    /// or added tag set back, no tag displaying as 1; baked pixels turned back by the inverse
    /// transform, lossless when the bake was a perfect one, and the old tag restored).
    public static func undoCommand(for entry: JournalEntry) -> String? {
        let path = shellQuoted(entry.path)
        let original = entry.exifOrientation ?? 1
        switch entry.action {
        case .fixed(.tagRewritten):
            return "docorient tag \(original) \(path)"
        case .fixed(.baked):
            guard let detected = entry.detectedOrientation.flatMap(Orientation.init(exifValue:)) else { return nil }
            return
                "docorient tag \(detected.inverse.exifValue) \(path) && docorient bake \(path) && docorient tag "
                + "\(original) \(path)"
        default:
            return nil
        }
    }

    /// `text` as one shell word: single-quoted, embedded single quotes closed, escaped, reopened.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// The journalled record (what `fix --json` printed) with the review group and the undo
    /// command added (`group`, `undo_command`): one line of `report --json`.
    public func reviewLine(_ group: Group, _ entry: JournalEntry) -> String {
        let line = ReviewLine(
            record: entry.fixRecord, path: entry.path, group: group, undoCommand: undoCommand(for: entry))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(line)).map { String(decoding: $0, as: UTF8.self) } ?? entry.record
    }

    /// A line of `report --json`: the record's keys (only `path` when the journal holds no
    /// record), then `group` and `undo_command` (null when there is nothing to undo).
    struct ReviewLine: Encodable {
        var record: FixRecord?
        var path: String
        var group: Group
        var undoCommand: String?

        enum Key: String, CodingKey {
            case path, group
            case undoCommand = "undo_command"
        }

        func encode(to encoder: any Encoder) throws {
            try record?.encode(to: encoder)
            var c = encoder.container(keyedBy: Key.self)
            if record == nil { try c.encode(path, forKey: .path) }
            try c.encode(group, forKey: .group)
            try c.encode(undoCommand, forKey: .undoCommand)
        }
    }

    /// One line: how many files agreed, disagreed, were fixed, had no tag, were undecidable,
    /// failed, and how many a person decided (counted apart: "fixed" is docorient's fixes that stand).
    public var summaryLine: String {
        func count(_ f: (JournalEntry) -> Bool) -> Int { entries.filter(f).count }
        let fixed = count { $0.changedTheFile && !$0.personDecisionStands }
        return
            "\(entries.count) files: \(count { $0.verdict == .agrees }) agreed, "
            + "\(count { $0.verdict == .disagrees }) disagreed with their tag, \(fixed) fixed, "
            + "\(count { $0.verdict == .noTag }) had no tag, \(count { $0.verdict == .undecidable }) undecidable, "
            + "\(count { $0.verdict == .error }) failed, \(count(\.personDecisionStands)) decided by a person"
    }

    /// One labelled example: a file and the orientation that shows it upright, as a person
    /// decided it on the review page. A line of `report --labels`, for training; docorient never
    /// sends it anywhere.
    public struct LabelledExample: Sendable, Codable, Equatable {
        /// The file, by the absolute path the journal records.
        public var path: String
        /// The path relative to the journal's folder, nil outside it.
        public var relativePath: String?
        /// The page of a PDF or multi-page TIFF a person turned (1 for the first), nil for a
        /// single image.
        public var page: Int? = nil
        /// The EXIF orientation (1-8) that shows the file (or the page's image) upright.
        public var orientation: Int
        /// Who decided: always `person` here.
        public var decidedBy: JournalEntry.Decider
        /// What docorient had answered (1-8), nil when it found the file undecidable.
        public var docorientOrientation: Int?
        /// The file's content hash (FNV-1a 64) as the person left it.
        public var hash: String
        /// When the person decided, ISO 8601 in UTC.
        public var decidedAt: String

        enum CodingKeys: String, CodingKey {
            case path, page, orientation, hash
            case relativePath = "relative_path"
            case decidedBy = "decided_by"
            case docorientOrientation = "docorient_orientation"
            case decidedAt = "decided_at"
        }
    }

    /// Every decision a person made that still stands, as labelled examples, by path (and a
    /// file's pages by page number).
    public var labelledExamples: [LabelledExample] {
        entries.flatMap { entry -> [LabelledExample] in
            guard entry.personDecisionStands else { return [] }
            func example(page: Int?, _ orientation: Int, docorient: Int?) -> LabelledExample {
                LabelledExample(
                    path: entry.path, relativePath: entry.relativePath, page: page, orientation: orientation,
                    decidedBy: entry.decidedBy, docorientOrientation: docorient, hash: entry.hashAfter,
                    decidedAt: entry.updatedAt)
            }
            if let orientation = entry.personOrientation {
                return [example(page: nil, orientation, docorient: entry.detectedOrientation)]
            }
            let answers = Self.pageAnswers(entry)
            return entry.personPages.sorted { $0.key < $1.key }.map { page, orientation in
                example(page: page, orientation, docorient: answers[page])
            }
        }
    }

    /// docorient's orientation for each page of a file of pages it decided, by page number,
    /// from the entry's record.
    static func pageAnswers(_ entry: JournalEntry) -> [Int: Int] {
        Dictionary(
            entry.pageRecords.compactMap { page in page.record.detectedOrientation.map { (page.number, $0) } },
            uniquingKeysWith: { first, _ in first })
    }
}

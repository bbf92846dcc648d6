import DocOrient
import Foundation
import SystemPackage

/// Runs `Fixer` over many files in parallel, journals every result, and skips what an earlier run
/// already handled. Memory is bounded by the jobs in flight: each worker holds one file at a time.
///
/// `run` is called from one thread; it starts `jobs` worker threads and returns when they finish.
/// A runner runs one batch at a time: a second `run` (or `events`) waits until the first is over.
public final class BatchRunner: @unchecked Sendable {
    /// Counts during and after a run.
    public struct Progress: Sendable, Equatable {
        /// Every file given to the run, those an earlier run already handled included.
        public var total = 0
        /// The records this run delivered so far, counted by verdict and action (not counting `alreadyDone`).
        public var counts = FixCounts()
        /// Files skipped because the journal says they are handled and unchanged.
        public var alreadyDone = 0
        /// Wall-clock seconds since the run started, the journal read included.
        public var elapsedSeconds = 0.0
        /// Whether the run stopped early (interrupted).
        public var stopped = false

        /// Files handled by this run so far (their records delivered): `counts.files`.
        public var done: Int { counts.files }
        /// Files handled per second of this run (`done` / `elapsedSeconds`); 0 before time has passed.
        public var filesPerSecond: Double { elapsedSeconds > 0 ? Double(done) / elapsedSeconds : 0 }
        /// Estimated seconds until the remaining files are handled, at the rate so far; nil until
        /// the first file is done.
        public var etaSeconds: Double? {
            let rate = filesPerSecond
            let left = total - alreadyDone - done
            return rate > 0 ? Double(left) / rate : nil
        }
    }

    /// Decides and fixes each file; its resolver's engines are shared by the workers.
    public let fixer: Fixer
    /// How every file is changed; with `dryRun` nothing is written, the journal included.
    public let options: FixOptions
    /// Worker threads, at least 1: how many files are in flight at once.
    public let jobs: Int
    /// Where each result is recorded and earlier runs' results are read from; nil for none.
    public let journal: Journal?
    /// Where the original bytes of changed files are kept for `undo`; nil keeps none.
    public let originals: OriginalsStore?

    /// - Parameters:
    ///   - jobs: worker threads, each holding one Tesseract engine from the resolver's pool.
    ///   - journal: where results are recorded; nil for none. Dry runs never write it.
    ///   - originals: where originals are kept before a file is changed in place (see
    ///     `OriginalsStore`); nil for none.
    public init(fixer: Fixer, options: FixOptions, jobs: Int, journal: Journal?, originals: OriginalsStore? = nil) {
        self.fixer = fixer
        self.options = options
        self.jobs = max(1, jobs)
        self.journal = journal
        self.originals = options.dryRun ? nil : originals
    }

    /// How files are handled, as the journal records it; a run in another mode redoes them.
    var mode: FixMode { options.mode }

    /// Guards `next`, `emitted`, `results` and `running`; workers wait on it while the reorder
    /// window is full.
    private let condition = NSCondition()
    private var next = 0
    /// Files whose records have been handed to `onRecord` (all of `todo[0..<emitted]`).
    private var emitted = 0
    private var results: [(index: Int, outcome: FileOutcome)] = []
    private var running = 0
    private let signal = DispatchSemaphore(value: 0)
    /// Held for the whole of a run: one batch at a time.
    private let oneRunAtATime = NSLock()

    /// Most files finished ahead of the earliest unfinished one. Records are reported in input
    /// order, so a slow file holds finished ones back; this bounds how many (and the memory they
    /// hold): a worker does not start a file this far ahead of the last one reported.
    public static let reorderWindow = 64
    /// The longest a run goes without reporting progress, in milliseconds: often enough for a
    /// progress line to move, rarely enough to cost nothing beside a file's work.
    public static let progressMilliseconds = 250

    /// Handles `files`.
    /// - Parameters:
    ///   - onRecord: called on the calling thread for each file handled, in the order of `files`
    ///     (for folders, `FileWalker`'s order), whatever order they finish in: two runs over the
    ///     same files print the same records in the same order.
    ///   - onProgress: called on the calling thread after each batch of results and at least every
    ///     `progressMilliseconds`.
    ///   - shouldStop: polled; when it turns true no new file is started, in-flight files finish.
    public func run(
        files: [String], onRecord: (FixRecord) -> Void, onProgress: (Progress) -> Void,
        shouldStop: @escaping @Sendable () -> Bool
    ) throws -> Progress {
        oneRunAtATime.lock()
        defer { oneRunAtATime.unlock() }
        let start = ContinuousClock.now
        var progress = Progress(total: files.count)
        var todo: [String] = []
        let known = (options.dryRun ? nil : try journal?.entries()) ?? [:]
        var relocated: [JournalEntry] = []
        if !known.isEmpty {
            let byRelative = Dictionary(
                known.values.compactMap { e in e.relativePath.map { ($0, e) } },
                uniquingKeysWith: { $0.updatedAt >= $1.updatedAt ? $0 : $1 })
            for path in files {
                if let done = doneEntry(for: path, known: known, byRelative: byRelative) {
                    progress.alreadyDone += 1
                    if let moved = done.relocated { relocated.append(moved) }
                } else {
                    todo.append(path)
                }
            }
            try journal?.save(relocated)
        } else {
            todo = files
        }
        onProgress(progress)
        guard !todo.isEmpty else { return progress }

        next = 0
        emitted = 0
        running = min(jobs, todo.count)
        let queue = todo
        for _ in 0..<running {
            let thread = Thread { [self] in self.work(queue, shouldStop: shouldStop) }
            thread.stackSize = 8 << 20  // Tesseract recurses deeply in layout analysis
            thread.start()
        }
        var pending: [JournalEntry] = []
        var lastSave = ContinuousClock.now
        var waiting: [Int: FileOutcome] = [:]
        var nextToReport = 0
        while true {
            _ = signal.wait(timeout: .now() + .milliseconds(Self.progressMilliseconds))
            condition.lock()
            let arrived = results
            results.removeAll(keepingCapacity: true)
            let finished = running == 0
            condition.unlock()
            for (index, outcome) in arrived { waiting[index] = outcome }
            var batch: [FileOutcome] = []
            while let outcome = waiting.removeValue(forKey: nextToReport) {
                batch.append(outcome)
                nextToReport += 1
            }
            if finished {
                // Workers take files in order and every one they took has arrived, so nothing
                // should be left; if something is, it is reported rather than lost.
                batch += waiting.keys.sorted().map { waiting[$0]! }
                waiting.removeAll()
            }
            if !batch.isEmpty {
                condition.lock()
                emitted = nextToReport
                condition.broadcast()
                condition.unlock()
            }
            for outcome in batch {
                let r = outcome.record
                progress.counts.count(r)
                onRecord(r)
                if !options.dryRun, let entry = journalEntry(outcome) { pending.append(entry) }
            }
            progress.elapsedSeconds = start.duration(to: .now).seconds
            if !pending.isEmpty, finished || pending.count >= 64 || lastSave.duration(to: .now) > .seconds(1) {
                try journal?.save(pending)
                pending.removeAll()
                lastSave = .now
            }
            onProgress(progress)
            if finished, batch.isEmpty { break }
        }
        progress.stopped = progress.done < todo.count
        return progress
    }

    private func work(_ todo: [String], shouldStop: @Sendable () -> Bool) {
        while true {
            condition.lock()
            while next < todo.count, next >= emitted + Self.reorderWindow, !shouldStop() {
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.25))
            }
            guard next < todo.count, !shouldStop() else {
                running -= 1
                condition.unlock()
                signal.signal()
                return
            }
            let index = next
            next += 1
            condition.unlock()
            let outcome = fix(todo[index], hashing: journal != nil && !options.dryRun)
            condition.lock()
            results.append((index, outcome))
            condition.unlock()
            signal.signal()
        }
    }

    /// A file's record with its state before and after, for the journal.
    struct FileOutcome: Sendable {
        var record: FixRecord
        var before: FileFacts?
        var after: FileFacts?
    }

    /// Fixes the file at `path` with the fixer, keeping its original for undo, and notes its state
    /// before (statted before it is read) and after.
    /// - Parameter hashing: whether the facts carry content hashes (only a journal records them:
    ///   hashing a 12 MP photo costs a few milliseconds).
    private func fix(_ path: String, hashing: Bool) -> FileOutcome {
        let statted = FileFacts.stat(path)
        let fixed = fixer.fixFile(
            path: path, options: options,
            keepOriginal: originals.map { store in
                { original, fixed in try store.keep(original: original, fixed: fixed) }
            })
        var outcome = FileOutcome(record: fixed.record)
        // An unreadable file has no facts before or after: the journal stats it as it is.
        guard let original = fixed.original else { return outcome }
        outcome.before = statted
        if hashing { outcome.before?.hash = FileFacts.contentHash(original) }
        outcome.after = FileFacts.stat(path, hash: hashing ? fixed.written : nil)
        if hashing, fixed.written == nil, let before = outcome.before?.hash { outcome.after?.hash = before }
        return outcome
    }

    /// The journal's entry that says `path` is done, with the entry to record when it was found
    /// under another path. A file is done when the journal has it, handled in this mode, by its
    /// path or by its path relative to the journal's folder (the folder was moved or copied with
    /// its journal), and it is unchanged since: the same size, times and inode (nothing read), or
    /// else the same size and content hash as docorient left it (a copy: read, not re-resolved).
    /// A file whose orientation a person decided (and no undo took back) is always done.
    private func doneEntry(
        for path: String, known: [String: JournalEntry], byRelative: [String: JournalEntry]
    ) -> (entry: JournalEntry, relocated: JournalEntry?)? {
        let absolute = Self.absolute(path)
        let relative = relativeToJournal(absolute)
        guard let entry = known[absolute] ?? relative.flatMap({ byRelative[$0] }), let now = FileFacts.stat(path)
        else { return nil }
        // A person's decision (the review page) stands whatever the mode and whatever happened to
        // the file since: fix never decides again over it; only undo takes it back.
        if entry.personDecisionStands {
            guard entry.path != absolute else { return (entry, nil) }
            var moved = entry
            moved.path = absolute
            moved.relativePath = relative
            return (entry, moved)
        }
        guard entry.mode == mode else { return nil }
        var facts = now
        if !entry.facts.sameState(as: now) {
            guard now.size == entry.size, let bytes = try? FileIO.read(path) else { return nil }
            facts.hash = FileFacts.contentHash(bytes)
            guard facts.hash == entry.hashAfter else { return nil }
        } else {
            facts.hash = entry.hashAfter
        }
        guard entry.path != absolute || !entry.facts.sameState(as: now) else { return (entry, nil) }
        var moved = entry
        moved.path = absolute
        moved.relativePath = relative
        moved.size = facts.size
        moved.mtimeNs = facts.modified
        moved.ctimeNs = facts.changed
        moved.inode = Int64(bitPattern: facts.inode)
        return (entry, moved)
    }

    /// `absolute` relative to the journal's folder; nil outside it or without a journal.
    private func relativeToJournal(_ absolute: String) -> String? {
        guard let journal else { return nil }
        var path = FilePath(absolute)
        let root = FilePath(Self.absolute(journal.path)).removingLastComponent()
        return path.removePrefix(root) && !path.isEmpty ? path.string : nil
    }

    /// Errors are journalled too: an unchanged file that failed is not retried by the next run
    /// (it would fail the same way); changing it (even a chmod) makes it new work.
    private func journalEntry(_ outcome: FileOutcome) -> JournalEntry? {
        guard let facts = outcome.after ?? outcome.before ?? FileFacts.stat(outcome.record.path ?? "") else {
            return nil
        }
        let r = outcome.record
        return JournalEntry(
            path: Self.absolute(r.path ?? ""), mode: mode, size: facts.size, mtimeNs: facts.modified,
            ctimeNs: facts.changed,
            inode: Int64(bitPattern: facts.inode), hashBefore: outcome.before?.hash ?? "", hashAfter: facts.hash,
            verdict: r.verdict, action: .fixed(r.action), exifOrientation: r.exifOrientation,
            detectedOrientation: r.detectedOrientation, confidence: r.confidence, reason: r.reason,
            elapsedMs: r.elapsedMilliseconds, record: r.jsonLine,
            updatedAt: ISO8601DateFormatter().string(from: Date()),
            relativePath: relativeToJournal(Self.absolute(r.path ?? "")))
    }

    /// The journal's key for a file: its absolute path, so reports work from any directory.
    static func absolute(_ path: String) -> String {
        var relative = FilePath(path)
        if relative.isAbsolute { return path }
        if relative.components.first?.kind == .currentDirectory { relative.components.removeFirst() }
        return FilePath(FileManager.default.currentDirectoryPath).pushing(relative).string
    }
}

/// Deterministic sharding: `--shard K/N` takes the files whose path hash falls in part K of N,
/// so N workers of an external scheduler split a folder without talking to each other.
public struct Shard: Sendable, Equatable {
    /// K: which part this worker takes, counted from 1 (1...count).
    public var index: Int
    /// N: how many parts the files are split into, at least 1.
    public var count: Int

    /// Parses "K/N" with 1 <= K <= N.
    public init?(_ text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, k >= 1, k <= n else { return nil }
        index = k
        count = n
    }

    /// Whether `path` belongs to this shard. Uses the file's path relative to `root`, so every
    /// worker agrees wherever the share is mounted.
    public func contains(_ relativePath: String) -> Bool {
        let hash = FileFacts.contentHash(Array(relativePath.utf8))
        let value = UInt64(hash, radix: 16) ?? 0
        return Int(value % UInt64(count)) == index - 1
    }
}

import DocOrient
import DocOrientBatch
import Foundation
import Testing

/// The batch as an asynchronous sequence (`BatchRunner.events`), as an ingest service consumes it.
struct BatchEventsTests {
    /// Wrong tags among them (0003, 0005), a blank page (undecidable) and a PNG.
    static let names = [
        "0003_letter.jpg", "0000_receipt.jpg", "0004_receipt.png", "0005_form.jpg", "0007_invoice.jpg",
        "0014_letter.jpg", "0017_blank.jpg", "0013_receipt.jpg",
    ]

    /// Copies of some committed samples in a fresh folder, in the order given.
    static func copies() throws -> (root: URL, files: [String]) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("events-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let samples = CLITests.repoRoot.appendingPathComponent("Corpus/samples")
        let available = Set(try FileManager.default.contentsOfDirectory(atPath: samples.path))
        var files: [String] = []
        for name in names where available.contains(name) {
            let copy = root.appendingPathComponent(name)
            try FileManager.default.copyItem(at: samples.appendingPathComponent(name), to: copy)
            files.append(copy.path)
        }
        return (root, files)
    }

    static let fixer = Result { Fixer(resolver: try Resolver(configuration: ResolverConfiguration(languages: "eng"))) }

    func runner(_ root: URL, jobs: Int) throws -> BatchRunner {
        let journal = try Journal(path: root.appendingPathComponent(Journal.defaultName).path)
        return BatchRunner(fixer: try Self.fixer.get(), options: FixOptions(), jobs: jobs, journal: journal)
    }

    @Test func theStreamGivesEveryRecordInOrderWithTheCLIsAnswersAndEndsWithTheCounts() async throws {
        let (root, files) = try Self.copies()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(files.count == Self.names.count, "the samples named here are committed")
        // What the CLI says about the same files (a dry run leaves them as they are).
        let cli = try CLITests.run(CLITests.binary, ["fix", "--dry-run", "--json"] + files)
        let expected = cli.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }

        var records: [FixRecord] = []
        var progress: [BatchRunner.Progress] = []
        var final: BatchRunner.Progress?
        for try await event in try runner(root, jobs: 2).events(files: files) {
            switch event {
            case .record(let r): records.append(r)
            case .progress(let p): progress.append(p)
            case .finished(let p): final = p
            }
        }
        #expect(records.map(\.path) == files, "one record per file, in the order given")
        #expect(expected.count == files.count)
        for (record, want) in zip(records, expected) {
            #expect(record.detectedOrientation == want["detected_orientation"] as? Int, "\(record.path ?? "")")
            #expect(record.verdict.rawValue == want["verdict"] as? String, "\(record.path ?? "")")
        }
        let done = try #require(final)
        #expect(done.done == files.count && !done.stopped && done.total == files.count)
        #expect(done.counts.fixed == records.filter { $0.action == .tagRewritten }.count && done.counts.fixed >= 1)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.done <= $1.done }, "counts only grow")
    }

    @Test func aConsumerThatStopsReadingStopsTheBatchAndTheNextRunFinishesIt() async throws {
        let (root, samples) = try Self.copies()
        defer { try? FileManager.default.removeItem(at: root) }
        // Two copies of each: enough work that a consumer scheduled late on a busy machine still
        // stops the batch long before its end.
        var files = samples
        for path in samples {
            let copy = root.appendingPathComponent("again-" + URL(fileURLWithPath: path).lastPathComponent).path
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            files.append(copy)
        }
        let runner = try runner(root, jobs: 1)
        // The consumer runs on a thread of its own: other tests may hold Swift's cooperative
        // threads for seconds, and the stop must not wait for one of them.
        let seen = try await withTaskExecutorPreference(OwnThreadExecutor()) {
            var seen: [BatchRunner.Event] = []
            for try await event in runner.events(files: files) {
                seen.append(event)
                break  // the consumer goes away at the first event (the counts before any file)
            }
            return seen
        }
        guard case .progress(let before)? = seen.first else { Issue.record("\(seen)"); return }
        #expect(seen.count == 1 && before.total == files.count && before.done == 0)
        // The same runner waits for the stopped batch to settle, then handles only what is left.
        var second: [String] = []
        var final: BatchRunner.Progress?
        for try await event in runner.events(files: files) {
            if case .record(let r) = event, let path = r.path { second.append(path) }
            if case .finished(let p) = event { final = p }
        }
        let done = try #require(final)
        #expect(done.alreadyDone < files.count / 2, "the first batch stopped early: \(done)")
        #expect(second == Array(files.dropFirst(done.alreadyDone)), "no file handled twice, none left out")
        #expect(done.done + done.alreadyDone == files.count && !done.stopped)
    }
}

/// Runs the jobs of the tasks that prefer it on one dedicated thread (never Swift's shared pool).
/// The thread holds the executor and lives as long as the test process (one per test that makes one).
final class OwnThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    init() {
        let thread = Thread { [self] in
            while true {
                condition.lock()
                while jobs.isEmpty { condition.wait() }
                let job = jobs.removeFirst()
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }
}

import Foundation
import Testing

@testable import DocOrient
@testable import DocOrientBatch

/// Batch mode end to end: a generated folder tree, the real binary, real SQLite, SIGKILL.
@Suite(.serialized)
struct BatchCLITests {
    /// A nested tree: ~130 images (most of them small noise photos with no text, so the suite stays
    /// quick, and real document samples with wrong tags), plus non-images, a symlink loop, a FIFO
    /// named like a JPEG, a read-only file and a corrupt JPEG.
    static func makeTree() throws -> (root: URL, readOnly: String, corrupt: String, fifo: String) {
        let root = try CLITests.temporaryDirectory().appendingPathComponent("receipts")
        let fm = FileManager.default
        var seed: UInt64 = 42
        func next() -> UInt8 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: seed >> 33)
        }
        for folder in 0..<6 {
            let dir = root.appendingPathComponent("2026-\(folder + 1)/batch-\(folder % 2)")
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
            for i in 0..<Self.noisePerFolder {
                let (w, h) = (96 + Int(next() % 4) * 16, 64 + Int(next() % 4) * 16)
                let pixels = (0..<(w * h)).map { _ in 120 &+ next() % 40 }
                let jpeg = try TurboJPEG.encode(pixels, width: w, height: h, subsampling: .gray, quality: 80)
                try Data(jpeg).write(to: dir.appendingPathComponent("photo-\(i).jpg"))
            }
            try Data("not an image".utf8).write(to: dir.appendingPathComponent("notes-\(folder).txt"))
        }
        let samples = try FixCLITests.manifest().filter { $0.decidable && $0.file.hasSuffix(".jpg") }.prefix(8)
        for (i, sample) in samples.enumerated() {
            let target = root.appendingPathComponent("2026-\(i % 6 + 1)/\(sample.file)")
            try fm.copyItem(atPath: CLITests.samples.appendingPathComponent(sample.file).path, toPath: target.path)
        }
        try fm.createSymbolicLink(
            atPath: root.appendingPathComponent("2026-1/batch-0/loop").path, withDestinationPath: "../..")
        try Data("hidden".utf8).write(to: root.appendingPathComponent(".hidden.jpg"))
        let readOnly = root.appendingPathComponent("2026-2/locked.jpg").path
        try fm.copyItem(atPath: CLITests.samples.appendingPathComponent(samples.last!.file).path, toPath: readOnly)
        try fm.setAttributes([.posixPermissions: 0o444], ofItemAtPath: readOnly)
        let corrupt = root.appendingPathComponent("2026-3/corrupt.jpg").path
        let whole = try Data(contentsOf: CLITests.samples.appendingPathComponent(samples.first!.file))
        try whole.prefix(whole.count / 3).write(to: URL(fileURLWithPath: corrupt))
        let fifo = root.appendingPathComponent("2026-4/pipe.jpg").path
        #expect(mkfifo(fifo, 0o644) == 0)
        return (root, readOnly, corrupt, fifo)
    }

    /// Noise photos in each of the six folders: enough that a batch is still running when it is
    /// killed or interrupted (a run over the tree takes seconds in a debug build), few enough
    /// that this suite, which runs the tree a dozen times, is not the test run's long pole.
    static let noisePerFolder = 20
    /// The image files a run handles: the noise photos, eight samples, and the read-only, corrupt
    /// and FIFO files.
    static let handled = 6 * noisePerFolder + 8 + 3

    /// Every regular image file under `root` (hidden entries excluded) and its bytes.
    static func snapshot(_ root: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        let walker = FileWalker()
        for path in walker.walk([root.path]).files where FileFacts.stat(path) != nil {
            var isFile = stat()
            guard stat(path, &isFile) == 0, (isFile.st_mode & S_IFMT) == S_IFREG else { continue }
            result[String(path.dropFirst(root.path.count))] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        return result
    }

    /// The journal appears once the models are loaded and the signal handlers are in place.
    static func waitForJournal(_ root: URL) {
        let path = root.appendingPathComponent(Journal.defaultName).path
        for _ in 0..<200 where !FileManager.default.fileExists(atPath: path) { usleep(50_000) }
    }

    func fix(_ root: URL, _ extra: [String] = []) throws -> CLITests.Output {
        try CLITests.run(CLITests.binary, ["fix", "--jobs", "2", "--json"] + extra + [root.path])
    }

    @Test func aSecondRunHasNoWorkAndTheFirstHandledEverything() throws {
        let tree = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: tree.root.deletingLastPathComponent()) }
        let first = try fix(tree.root)
        #expect(first.status == 1, "the read-only, corrupt and FIFO files fail; the rest is handled")
        let records = first.lines.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(records.count == Self.handled, "\(records.count) records; stderr: \(first.err.suffix(400))")
        let failed = Set(records.filter { $0["verdict"] as? String == "error" }.compactMap { $0["path"] as? String })
        #expect(failed == [tree.readOnly, tree.corrupt, tree.fifo])
        #expect(first.err.contains("skipped 6 non-image files, 1 symlink loop"), "\(first.err.suffix(300))")
        #expect(
            records.filter { $0["action"] as? String == "tag_rewritten" }.count >= 4,
            "the sample documents with wrong tags are fixed")
        #expect(FileManager.default.fileExists(atPath: tree.root.appendingPathComponent(Journal.defaultName).path))
        // The journal's content hashes: before and after for a rewritten file, the same for the rest.
        let entries = try Journal(path: tree.root.appendingPathComponent(Journal.defaultName).path).entries()
        for record in records where record["verdict"] as? String != "error" {
            let path = try #require(record["path"] as? String)
            let entry = try #require(entries[path], "\(path) is journalled")
            let now = FileFacts.contentHash(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))))
            #expect(entry.hashAfter == now, "\(path)")
            if record["action"] as? String == "tag_rewritten" {
                #expect(entry.hashBefore != entry.hashAfter && !entry.hashBefore.isEmpty, "\(path)")
            } else {
                #expect(entry.hashBefore == entry.hashAfter, "\(path)")
            }
        }

        let before = try Self.snapshot(tree.root)
        let second = try fix(tree.root)
        #expect(second.lines.isEmpty, "no file is handled again")
        #expect(second.err.contains("\(Self.handled) files were already handled"), "\(second.err)")
        #expect(second.status == 0)
        #expect(try Self.snapshot(tree.root) == before)

        let report = try CLITests.docorient("report", "--json", tree.root.path)
        let listed = Set(
            report.lines.compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["path"] as? String
            })
        #expect(failed.isSubset(of: listed), "the report lists every error")
        // Every disagreement, undecidable and error, and every file whose tag was added.
        #expect(
            listed.count
                == records.filter {
                    ["disagrees", "undecidable", "error"].contains($0["verdict"] as? String ?? "")
                        || ["tag_rewritten", "baked"].contains($0["action"] as? String ?? "")
                }.count)
    }

    @Test func aRunKilledAtRandomPointsThenResumedEndsLikeAnUninterruptedRun() throws {
        let reference = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: reference.root.deletingLastPathComponent()) }
        _ = try fix(reference.root)
        let expected = try Self.snapshot(reference.root)

        let tree = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: tree.root.deletingLastPathComponent()) }
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<3 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CLITests.binary)
            process.arguments = ["fix", "--jobs", "2", "--quiet", tree.root.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32.random(in: 300_000...2_500_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Whatever the moment, every image decodes (no half-written file).
            for (name, data) in try Self.snapshot(tree.root) where name.hasSuffix(".jpg") && !name.contains("corrupt") {
                #expect((try? ImageMetadata.read([UInt8](data))) != nil, "\(name) is damaged")
            }
        }
        _ = try fix(tree.root)
        let actual = try Self.snapshot(tree.root)
        #expect(actual.keys.sorted() == expected.keys.sorted())
        for (name, data) in expected where actual[name] != data {
            Issue.record("\(name) differs from the uninterrupted run")
        }
    }

    @Test func shardsSplitTheTreeAndTheirJournalsMergeInTheReport() throws {
        let tree = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: tree.root.deletingLastPathComponent()) }
        let dir = tree.root.deletingLastPathComponent()
        var handled: [Set<String>] = []
        for k in 1...3 {
            let journal = dir.appendingPathComponent("shard\(k).sqlite").path
            let out = try fix(tree.root, ["--shard", "\(k)/3", "--journal", journal, "--dry-run"])
            #expect(!FileManager.default.fileExists(atPath: journal), "a dry run writes nothing, not even a journal")
            handled.append(
                Set(
                    out.lines.compactMap {
                        (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["path"] as? String
                    }))
        }
        #expect(
            handled[0].isDisjoint(with: handled[1]) && handled[1].isDisjoint(with: handled[2])
                && handled[0].isDisjoint(with: handled[2]))
        #expect(handled.map(\.count).reduce(0, +) == Self.handled, "together the shards cover every file exactly once")
        for k in 1...3 {
            _ = try fix(
                tree.root, ["--shard", "\(k)/3", "--journal", dir.appendingPathComponent("shard\(k).sqlite").path])
        }
        let merged = try CLITests.docorient(
            "report", dir.appendingPathComponent("shard1.sqlite").path,
            dir.appendingPathComponent("shard2.sqlite").path, dir.appendingPathComponent("shard3.sqlite").path)
        #expect(merged.out.hasPrefix("\(Self.handled) files:"), "\(merged.out.prefix(200))")
    }

    /// `text` as Mustache writes it into a page.
    static func htmlEscaped(_ text: String) -> String {
        let escapes: [Character: String] = ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"]
        return text.map { escapes[$0] ?? String($0) }.joined()
    }

    @Test func theHTMLReportListsEveryDisagreementUndecidableAndError() throws {
        let tree = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: tree.root.deletingLastPathComponent()) }
        _ = try fix(tree.root)
        let page = tree.root.deletingLastPathComponent().appendingPathComponent("review.html").path
        let result = try CLITests.docorient("report", "--html", page, tree.root.path)
        #expect(result.status == 0, "\(result.err)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let listed = try CLITests.docorient("report", "--json", tree.root.path).lines
        #expect(listed.count > 6 * Self.noisePerFolder, "the noise photos are undecidable")
        for line in listed {
            let path = try #require(
                (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["path"] as? String)
            #expect(html.contains(Self.htmlEscaped(path)), "\(path) missing from the page")
        }
        #expect(html.contains("data:image/jpeg;base64,"), "thumbnails are embedded")
        #expect(!html.contains("src=\"http"), "the page is self-contained")
    }

    @Test func ctrlCStopsCleanlyPrintsTheSummaryAndTheNextRunFinishes() throws {
        let tree = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: tree.root.deletingLastPathComponent()) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLITests.binary)
        process.arguments = ["fix", "--jobs", "2", "--quiet", tree.root.path]
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        Self.waitForJournal(tree.root)
        usleep(300_000)
        kill(process.processIdentifier, SIGINT)
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(text.suffix(300))")
        #expect(text.contains("stopping after the files in flight"))
        #expect(text.contains("files:"), "the summary prints")
        #expect(text.contains("files left for the next run"))
        let rest = try fix(tree.root)
        #expect(rest.err.contains("already handled"), "the journal kept what the first run did")
        #expect(!rest.lines.isEmpty, "the second run does the rest")
        #expect(try fix(tree.root).lines.isEmpty, "and then nothing is left")
    }

    /// Both interrupts are sent while the process is stopped, so they reach it back to back, before the
    /// file in flight can finish: the second must quit at once (no summary) where the first alone would
    /// wait for that file. Signals of one kind do not queue, hence Ctrl-C and then a supervisor's SIGTERM;
    /// both go through the same count.
    @Test func aSecondInterruptExitsAtOnce() throws {
        let tree = try Self.makeTree()
        defer { try? FileManager.default.removeItem(at: tree.root.deletingLastPathComponent()) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLITests.binary)
        process.arguments = ["fix", "--jobs", "1", "--quiet", tree.root.path]
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        try process.run()
        Self.waitForJournal(tree.root)
        kill(process.processIdentifier, SIGSTOP)
        kill(process.processIdentifier, SIGINT)
        kill(process.processIdentifier, SIGTERM)
        kill(process.processIdentifier, SIGCONT)
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect([130, 143].contains(process.terminationStatus), "\(text.suffix(300))")
        #expect(!text.contains("left for the next run"), "no summary: it did not wait for the file in flight")
        for (name, data) in try Self.snapshot(tree.root) where name.hasSuffix(".jpg") && !name.contains("corrupt") {
            #expect((try? ImageMetadata.read([UInt8](data))) != nil, "\(name) is damaged")
        }
    }
}

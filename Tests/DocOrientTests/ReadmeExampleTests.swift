import DocOrient
import Foundation
import Testing

// README's library example, compiled and run as written (public API only: no @testable). The
// text between the markers must appear in README.md as it is here (checked below).
// README-EXAMPLE-BEGIN
/// An ingest worker: uploads in, upright images out, the OCR bounded by the resolver's engines.
func ingest(_ uploads: [(name: String, data: Data)], into folder: URL) async throws -> [FixRecord] {
    // One resolver per process: it loads the models once and lends its engines to every call.
    let fixer = Fixer(resolver: try Resolver(configuration: ResolverConfiguration(languages: "eng")))
    return try await withThrowingTaskGroup(of: FixRecord.self) { group in
        for upload in uploads {
            group.addTask {
                do {
                    // Decides from the text, rewrites the tag in memory; cancellable, bounded work.
                    let fixed = try await fixer.fix(upload.data, budget: .standard)
                    try Data(fixed.bytes).write(to: folder.appendingPathComponent(upload.name))
                    return fixed.record
                } catch let error as DocOrientError where error.code == .unsupportedFormat {
                    var skipped = FixRecord(path: upload.name)
                    skipped.reason = error.message  // not an image docorient reads: keep as it came
                    return skipped
                }
            }
        }
        return try await group.reduce(into: []) { $0.append($1) }
    }
}
// README-EXAMPLE-END

struct ReadmeExampleTests {
    @Test func theIngestWorkerFromTheReadmeFixesAnUpload() async throws {
        let letter = try Data(contentsOf: Fixtures.samples.appendingPathComponent("0003_letter.jpg"))
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let records = try await ingest(
            [(name: "letter.jpg", data: letter), (name: "notes.txt", data: Data("not an image".utf8))], into: dir)
        let fixed = try #require(records.first { $0.path == nil })
        #expect(fixed.verdict == .disagrees && fixed.action == .tagRewritten, "tag 6, text says 8")
        let written = try Data(contentsOf: dir.appendingPathComponent("letter.jpg"))
        #expect(try ImageMetadata.read([UInt8](written)).exifOrientation == 8)
        let skipped = try #require(records.first { $0.path == "notes.txt" })
        #expect(skipped.verdict == .error && skipped.reason?.isEmpty == false)
    }

    @Test func theReadmeShowsTheExampleAsTested() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let readme = try String(contentsOf: Fixtures.repoRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let begin = try #require(source.range(of: "// README-EXAMPLE-BEGIN\n"))
        let end = try #require(source.range(of: "// README-EXAMPLE-END"))
        let example = String(source[begin.upperBound..<end.lowerBound])
        #expect(readme.contains(example), "README.md's library example differs from the tested one")
    }

    @Test func theSynchronousFormsGiveTheSameAnswers() throws {
        let upload = try Data(contentsOf: Fixtures.samples.appendingPathComponent("0003_letter.jpg"))
        let fixer = Fixer(resolver: try SharedResolver.get())
        let resolution = try fixer.resolve(upload)
        #expect(resolution.metadata.exifOrientation == 6)
        #expect(resolution.decision.orientation == .rotate270, "the manifest says 8")
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("receipt.jpg")
        try upload.write(to: url)
        let onDisk = try fixer.fix(contentsOf: url, options: FixOptions(bake: true))
        #expect(onDisk.action == .baked && onDisk.path == url.path)
        #expect(try ImageMetadata.read([UInt8](Data(contentsOf: url))).exifOrientation == 1)
    }
}

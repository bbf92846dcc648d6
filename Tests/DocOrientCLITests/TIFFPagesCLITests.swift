import DocOrientTestSupport
import Foundation
import Testing

/// Multi-page TIFFs through the real binary: one record a page, a folder's journal and undo
/// taking the file as one unit, a resumed run writing nothing twice, hostile files refused.
struct TIFFPagesCLITests {
    /// A letter (shown as 1, upright as 8) and a printed page (bilevel G4, shown as 3, upright as 1).
    static func scan(in directory: URL) throws -> String {
        let pages = [
            try ScannedTIFF.page("0003_letter.jpg", .lzw, tag: 1, side: 1200, in: directory),
            try ScannedTIFF.page("0012_pdfpage.jpg", .g4, tag: 3, side: 1700, in: directory),
        ]
        let folder = directory.appendingPathComponent("scans")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("scan.tif").path
        try ScannedTIFF.join(pages, to: path)
        for page in pages { try FileManager.default.removeItem(atPath: page) }
        return path
    }

    static func records(_ output: CLITests.Output) throws -> [[String: Any]] {
        try output.lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test func dryRunJSONAnswersOneRecordForEachPage() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.scan(in: dir)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let output = try CLITests.run(CLITests.binary, ["fix", "--dry-run", "--json", path])
        #expect(output.status == 0, "\(output.err)")
        let records = try Self.records(output)
        #expect(records.map { $0["page"] as? Int } == [1, 2])
        #expect(records.map { $0["exif_orientation"] as? Int } == [1, 3])
        #expect(records.map { $0["detected_orientation"] as? Int } == [8, 1])
        #expect(records.allSatisfy { $0["action"] as? String == "would_rewrite_tag" && $0["path"] as? String == path })
        #expect(output.err.contains("scan.tif page 2: shown as 3, text says 1"), "\(output.err)")
        // --bake turns the pages by their tags too, and says why.
        let bake = try Self.records(CLITests.run(CLITests.binary, ["fix", "--bake", "--dry-run", "--json", path]))
        #expect(
            bake.allSatisfy { ($0["reason"] as? String)?.contains("not baked: the pages of a multi-page TIFF") == true }
        )
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test func aFolderFixIsUndoneByteIdenticalAndAFileFixedBeforeItsJournalIsNotWrittenAgain() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.scan(in: dir)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let original = try Data(contentsOf: URL(fileURLWithPath: path))

        // A run killed after its atomic rename and before its journal line: the file is fixed
        // whole, and the resumed batch finds every page upright and writes nothing.
        let alone = try CLITests.run(CLITests.binary, ["fix", path])
        #expect(alone.status == 0, "\(alone.err)")
        let fixed = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(fixed != original)
        #expect(try ScannedTIFF.orientations(path) == [8, 1])
        let resumed = try CLITests.run(CLITests.binary, ["fix", "--json", folder])
        #expect(resumed.status == 0, "\(resumed.err)")
        #expect(try Self.records(resumed).allSatisfy { $0["action"] as? String == "none" })
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == fixed)

        // The batch itself: the file is one unit in the journal, and undo gives it back whole.
        try original.write(to: URL(fileURLWithPath: path))
        try FileManager.default.removeItem(atPath: folder + "/.docorient.sqlite")
        let batch = try CLITests.run(CLITests.binary, ["fix", "--json", folder])
        #expect(batch.status == 0, "\(batch.err)")
        #expect(try Self.records(batch).map { $0["action"] as? String } == ["tag_rewritten", "tag_rewritten"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == fixed)
        let undo = try CLITests.run(CLITests.binary, ["undo", "--json", folder])
        #expect(undo.status == 0, "\(undo.err)")
        let results = try Self.records(undo)
        #expect(results.count == 1)
        #expect(results.first?["outcome"] as? String == "restored")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original, "undo gives back the original bytes")
        let again = try CLITests.run(CLITests.binary, ["fix", folder])
        #expect(
            again.err.contains("1 files were already handled") || again.err.contains("1 file was already handled"),
            "\(again.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
    }

    @Test func hostileTIFFsAreRefusedWithTheReasonAndNothingWritten() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let valid = dir.appendingPathComponent("valid.tif").path
        try Data(ScannedTIFF.chain(pages: 3)).write(to: URL(fileURLWithPath: valid))
        #expect(try CLITests.run("tiffinfo", [valid]).status == 0, "the builder writes TIFFs libtiff reads")
        let page = try ScannedTIFF.page("0003_letter.jpg", .lzw, tag: 1, side: 300, in: dir)
        let big = dir.appendingPathComponent("big.tif").path
        try ScannedTIFF.join([page, page], options: ["-8"], to: big)
        let cases: [(name: String, bytes: [UInt8]?, code: String, words: String)] = [
            ("loop.tif", ScannedTIFF.chain(pages: 3, next: 8), "malformed", "IFD chain loops"),
            ("pastend.tif", ScannedTIFF.chain(pages: 2, next: 0x7FFF_0000), "malformed", "lies outside"),
            ("thousands.tif", ScannedTIFF.chain(pages: 10_001), "limit_exceeded", "at most 10000"),
            ("big.tif", nil, "unsupported_format", "BigTIFF"),
        ]
        for c in cases {
            let path = c.bytes == nil ? big : dir.appendingPathComponent(c.name).path
            if let bytes = c.bytes { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            for arguments in [["fix", "--json", path], ["tag", "6", path], ["bake", path]] {
                let output = try CLITests.run(CLITests.binary, arguments)
                #expect(output.status == 1, "\(c.name) \(arguments[0]): \(output.err)")
                #expect(output.err.contains(c.words), "\(c.name) \(arguments[0]): \(output.err)")
                if arguments[0] == "fix" {
                    #expect(try Self.records(output).first?["error_code"] as? String == c.code)
                }
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "\(c.name) was written")
        }
    }
}

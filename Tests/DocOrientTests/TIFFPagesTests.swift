import DocOrientTestSupport
import Foundation
import Testing

@testable import DocOrient

/// Multi-page TIFFs, made by ImageMagick, tiffcp and Pillow from the corpus' document photos and
/// read back by libtiff's tiffdump, tiffinfo and tiffcmp: each page decided and turned by its own
/// Orientation tag, every other byte where it was.
struct TIFFPagesTests {
    static let fixer = Result { Fixer(resolver: try Resolver(configuration: ResolverConfiguration(languages: "eng"))) }

    /// Three pages as a scanner writes them: 8-bit grey LZW (letter, shown as 1, upright as 8),
    /// bilevel G4 (a printed page, shown as 1, upright as 6) and RGB JPEG (a printed page,
    /// shown as 3, upright as 1).
    static let scan: [(sample: String, compression: ScannedTIFF.Compression, tag: Int)] = [
        ("0003_letter.jpg", .lzw, 1), ("0011_pdfpage.jpg", .g4, 1), ("0012_pdfpage.jpg", .jpeg, 3),
    ]

    static func makeScan(options: [String] = [], in directory: URL) throws -> String {
        let pages = try scan.map { try ScannedTIFF.page($0.sample, $0.compression, tag: $0.tag, in: directory) }
        let path = directory.appendingPathComponent("scan.tif").path
        try ScannedTIFF.join(pages, options: options, to: path)
        return path
    }

    /// What tiffcmp finds different between two TIFFs, apart from Orientation values or entries:
    /// it compares every page's fields and then its pixels, scanline by scanline.
    static func differencesButOrientation(_ a: String, _ b: String) throws -> [String] {
        try Fixtures.run(["tiffcmp", a, b], allowFailure: true).out.split(separator: "\n").map(String.init)
            .filter { !$0.contains("Orientation") && !$0.hasPrefix("Directory ") }
    }

    @Test func eachPageIsDecidedAndTurnedByItsOwnTagAndNoOtherByteChanges() throws {
        let fixer = try Self.fixer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Self.makeScan(in: dir)
        let original = try FileIO.read(path)
        let upright = try Self.scan.map { try ScannedTIFF.upright($0.sample) }

        let dry = try fixer.fix(contentsOf: URL(fileURLWithPath: path), options: FixOptions(dryRun: true))
        #expect(dry.pages.map(\.page) == [1, 2, 3])
        #expect(dry.pages.map(\.exifOrientation) == Self.scan.map(\.tag))
        #expect(dry.pages.map(\.detectedOrientation) == upright)
        #expect(dry.pages.allSatisfy { $0.action == .wouldRewriteTag })
        #expect(dry.action == .wouldRewriteTag)
        #expect(try FileIO.read(path) == original, "a dry run writes nothing")

        let fixed = try fixer.fix(contentsOf: URL(fileURLWithPath: path))
        #expect(fixed.pages.map(\.action) == [.tagRewritten, .tagRewritten, .tagRewritten])
        #expect(fixed.reason == "3 pages: 3 turned")
        let after = try FileIO.read(path)
        #expect(try ScannedTIFF.orientations(path) == upright)
        let before = dir.appendingPathComponent("before.tif").path
        try Data(original).write(to: URL(fileURLWithPath: before))
        #expect(try ScannedTIFF.entriesButOrientation(path) == ScannedTIFF.entriesButOrientation(before))
        #expect(try Self.differencesButOrientation(before, path) == [])
        // Each page's tag is a SHORT edited in place: two bytes a page at most, nothing else.
        #expect(after.count == original.count)
        #expect(zip(after, original).filter { $0 != $1 }.count <= 2 * Self.scan.count)

        // Run again (as a resumed batch would): every page reads upright as shown; nothing is written.
        let again = try fixer.fix(contentsOf: URL(fileURLWithPath: path))
        #expect(again.pages.allSatisfy { $0.verdict == .agrees && $0.action == FixAction.none })
        #expect(try FileIO.read(path) == after)
    }

    @Test func aFaxPageWithoutAnOrientationEntryGetsACopyOfItsIFDAndNoImageByteMoves() throws {
        let fixer = try Self.fixer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("fax.tif").path
        let samples = ["0011_pdfpage.jpg", "0012_pdfpage.jpg", "0003_letter.jpg"]
        try ScannedTIFF.untaggedFax(samples, to: path)
        #expect(try ScannedTIFF.orientations(path) == [nil, nil, nil])
        let original = try FileIO.read(path)
        let before = dir.appendingPathComponent("before.tif").path
        try Data(original).write(to: URL(fileURLWithPath: before))

        let fixed = try fixer.fix(contentsOf: URL(fileURLWithPath: path))
        // An untagged page is shown as 1, TIFF's default: the upright one keeps having no entry.
        #expect(fixed.pages.map(\.exifOrientation) == [1, 1, 1])
        #expect(try ScannedTIFF.orientations(path) == [6, nil, 8])
        let (entries, offsets) = try ScannedTIFF.directories(path)
        let (oldEntries, oldOffsets) = try ScannedTIFF.directories(before)
        #expect(try ScannedTIFF.entriesButOrientation(path) == ScannedTIFF.entriesButOrientation(before))
        #expect(entries[1] == oldEntries[1])
        #expect(offsets[0] >= original.count && offsets[2] >= original.count, "the turned pages' IFDs are copies")
        #expect(offsets[1] == oldOffsets[1])
        #expect(try Self.differencesButOrientation(before, path) == [])
        #expect(try Fixtures.run(["tiffinfo", "-D", path]).err.isEmpty)
        // Of the original bytes only two links changed: the header's and page 2's next-IFD offset.
        let after = try FileIO.read(path)
        let changed = (0..<original.count).filter { after[$0] != original[$0] }
        #expect(changed.allSatisfy { (4..<8).contains($0) || $0 >= oldOffsets[1] + 2 + oldEntries[1].count * 12 })
        #expect(changed.count <= 8)
    }

    @Test func tagSetsEveryPageOfATiledBigEndianTIFFOfMixedSizesAndDepths() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pages = [
            try ScannedTIFF.page("0011_pdfpage.jpg", .g4, tag: 1, side: 1700, in: dir),
            try ScannedTIFF.page("0003_letter.jpg", .lzw, tag: 5, side: 900, in: dir),
            try ScannedTIFF.page("0012_pdfpage.jpg", .jpeg, tag: 3, side: 640, in: dir),
        ]
        for options in [["-B", "-t"], ["-B"], ["-t"]] {
            let path = dir.appendingPathComponent("mixed\(options.joined()).tif").path
            try ScannedTIFF.join(pages, options: options, to: path)
            let original = try FileIO.read(path)
            #expect(try ImageMetadata.read(original).pageCount == 3)
            let tagged = try TagRewrite.setting(.rotate270, in: original)
            let out = dir.appendingPathComponent("tagged.tif").path
            try Data(tagged).write(to: URL(fileURLWithPath: out))
            #expect(try ScannedTIFF.orientations(out) == [8, 8, 8])
            #expect(try ScannedTIFF.entriesButOrientation(out) == ScannedTIFF.entriesButOrientation(path))
            #expect(tagged.count == original.count)
        }
    }

    @Test func tiledPagesFailWithTheReasonAndNothingIsWritten() throws {
        let fixer = try Self.fixer.get()
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let striped = try ScannedTIFF.page("0003_letter.jpg", .lzw, tag: 1, in: dir)
        let path = dir.appendingPathComponent("tiled.tif").path
        try ScannedTIFF.join([striped, striped], options: ["-t", "-B"], to: path)
        let original = try FileIO.read(path)
        let error = #expect(throws: DocOrientError.self) {
            try fixer.fix(contentsOf: URL(fileURLWithPath: path))
        }
        #expect(error?.message.hasPrefix("2 pages: 2 failed; page 1: the TIFF image is stored in tiles") == true)
        #expect(try FileIO.read(path) == original)
    }

    @Test func aTIFFIsReadAsStoredWhateverItsTag() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try ScannedTIFF.page("0003_letter.jpg", .lzw, tag: 6, side: 800, in: dir)
        let bytes = try FileIO.read(path)
        let metadata = try ImageMetadata.read(bytes)
        #expect((metadata.width, metadata.height) == (800, 600))
        // Leptonica turns a TIFF by its tag as it reads it, which would have the resolver read
        // the pixels as displayed and answer for the wrong ones.
        #expect(try Pix.decode(bytes).width == 600)
        let source = try GraySource(bytes: bytes, metadata: metadata, maxPixels: 100_000_000)
        #expect((source.storedWidth, source.storedHeight) == (800, 600))
    }

    @Test func bakeRefusesAMultiPageTIFFWithTheReason() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = try ScannedTIFF.page("0003_letter.jpg", .lzw, tag: 6, side: 400, in: dir)
        let path = dir.appendingPathComponent("two.tif").path
        try ScannedTIFF.join([page, page], to: path)
        let error = #expect(throws: DocOrientError.self) { try Bake.apply(to: FileIO.read(path)) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("a TIFF of 2 pages is not baked") == true)
    }

    // MARK: Hostile chains, built byte by byte

    @Test func brokenAndOverlongChainsAreRefusedWithTheirReason() throws {
        #expect(try TIFFPages.parse(ScannedTIFF.chain(pages: 3)).pages.count == 3)
        let cases: [([UInt8], DocOrientError.Code, String)] = [
            (ScannedTIFF.chain(pages: 3, next: 8), .malformed, "loops"),
            (ScannedTIFF.chain(pages: 2, next: 122), .malformed, "loops"),
            (ScannedTIFF.chain(pages: 2, next: 0x7FFF_0000), .malformed, "outside"),
            (ScannedTIFF.chain(pages: TIFFPages.maxPages + 1), .limitExceeded, "at most \(TIFFPages.maxPages)"),
        ]
        for (bytes, code, words) in cases {
            let error = #expect(throws: DocOrientError.self) { try ImageMetadata.read(bytes) }
            #expect(error?.code == code)
            #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
            #expect(throws: DocOrientError.self) { try TagRewrite.setting(.rotate90, in: bytes) }
        }
    }

    @Test func bigTIFFIsRefusedWithTheReason() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let page = try ScannedTIFF.page("0003_letter.jpg", .lzw, tag: 1, side: 300, in: dir)
        let path = dir.appendingPathComponent("big.tif").path
        try ScannedTIFF.join([page, page], options: ["-8"], to: path)
        let error = #expect(throws: DocOrientError.self) { try ImageMetadata.read(FileIO.read(path)) }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.message.contains("BigTIFF") == true)
    }
}

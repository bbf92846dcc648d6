import Foundation
import Testing

@testable import DocOrient

/// HEIF files made at run time by libheif's own encoder (`heif-enc`, Debian's libheif-examples)
/// and checked after docorient rewrote them by libheif's tools (`heif-info`, `heif-convert`) and
/// exiftool: the independent witnesses of what a HEIF viewer displays.
enum HEIFFixtures {
    /// The kinds of file the tests cover, each as heif-enc makes it.
    enum Kind: String, CaseIterable, CustomStringConvertible {
        /// 160x96 HEIC, one coded image item, no Exif item.
        case plain
        /// 161x97: not a multiple of the coding block, so heif-enc wraps the coded image in a
        /// grid item (data in `idat`) to crop it; a thumbnail, also a grid.
        case grid
        /// 160x96 with a 48-pixel thumbnail item (`thmb` reference).
        case thumbnail
        /// 160x96 from a JPEG with camera-like EXIF saying 6: heif-enc copies it into an Exif item.
        case exif
        /// 160x96 AVIF (brand avif, AV1 coded).
        case avif

        var description: String { rawValue }
    }

    /// A directory shared by the suite's encoded files: encoding is the slow part.
    static let directory: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("docorient-heif-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    private static let cache = Cache()
    private final class Cache: @unchecked Sendable {
        let lock = NSLock()
        var files: [String: [UInt8]] = [:]
    }

    /// The encoded file of `kind` (made once per run).
    static func file(_ kind: Kind) throws -> [UInt8] {
        cache.lock.lock()
        defer { cache.lock.unlock() }
        if let made = cache.files[kind.rawValue] { return made }
        let (w, h) = kind == .grid ? (161, 97) : (160, 96)
        var source = try TurboJPEG.encode(
            Fixtures.pixels(width: w, height: h, channels: 3), width: w, height: h, subsampling: .s444, quality: 95)
        if kind == .exif {
            // A camera's EXIF layout (maker note, Exif IFD), without the fixture's fake ICC
            // profile, which heif-convert's PNG writer rejects.
            let tiff = Fixtures.exifTIFF(width: w, height: h, orientation: 6, thumbnail: [], bigEndian: true)
            let at = try JPEGStructure.parse(source).insertionOffset(source)
            source.insert(contentsOf: try JPEGEditor.app1(JPEGStructure.exifHeader + tiff), at: at)
        }
        let input = try Fixtures.write(source, "\(kind)-source.jpg", in: directory)
        let output = directory.appendingPathComponent("\(kind).\(kind == .avif ? "avif" : "heic")").path
        var arguments = ["heif-enc", "-q", "90", "-o", output]
        if kind == .thumbnail || kind == .grid { arguments += ["-t", "48"] }
        try Fixtures.run(arguments + [input])
        let bytes = try FileIO.read(output)
        cache.files[kind.rawValue] = bytes
        return bytes
    }

    /// What libheif displays for the file: `heif-convert` to PNG, read back grey.
    static func displayed(_ bytes: [UInt8], name: String) throws -> Raster {
        let path = try Fixtures.write(bytes, name, in: directory)
        let png = path + ".png"
        try Fixtures.run(["heif-convert", path, png])
        defer { try? FileManager.default.removeItem(atPath: png) }
        return try grayImage(Pix.decode(FileIO.read(png)).gray8())
    }

    static func grayImage(_ pix: borrowing Pix) -> Raster {
        var pixels = [UInt8](repeating: 0, count: pix.width * pix.height)
        for y in 0..<pix.height {
            for x in 0..<pix.width { pixels[y * pix.width + x] = UInt8(pix.value(x: x, y: y) & 0xFF) }
        }
        return Raster(width: pix.width, height: pix.height, pixels: pixels)
    }

    /// Mean absolute grey difference; infinity when the sizes differ.
    static func difference(_ a: Raster, _ b: Raster) -> Double {
        guard a.width == b.width, a.height == b.height else { return .infinity }
        var sum = 0
        for i in a.pixels.indices { sum += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
        return Double(sum) / Double(a.pixels.count)
    }

    /// The payload of every top-level `mdat` box, concatenated: the coded image data. The Exif
    /// item's data, which lives there too and whose orientation a rewrite sets to 1, reads as zeros
    /// (its own test compares it byte by byte).
    static func codedData(_ bytes: [UInt8]) throws -> [UInt8] {
        var masked = bytes
        let s = try HEIFStructure.parse(bytes)
        for (id, item) in s.items where item.type == "Exif" {
            if let r = s.dataRange(of: id) { for i in r { masked[i] = 0 } }
        }
        return try ISOBox.children(bytes, in: 0..<bytes.count, topLevel: true, parent: "file")
            .filter { $0.type == "mdat" }.flatMap { masked[$0.payload] }
    }

    /// Each item's data bytes as `iloc` locates them (single-extent items), by item ID.
    static func itemData(_ bytes: [UInt8]) throws -> [Int: [UInt8]] {
        let s = try HEIFStructure.parse(bytes)
        var data: [Int: [UInt8]] = [:]
        for l in s.locations { if let r = s.dataRange(of: l.item) { data[l.item] = Array(bytes[r]) } }
        return data
    }

    /// The properties of every item that does not turn with the primary (grid tiles, and
    /// thumbnails or auxiliary images with a turn of their own), as their box bytes, by item ID.
    static func otherItemsProperties(_ bytes: [UInt8]) throws -> [Int: [[UInt8]]] {
        let s = try HEIFStructure.parse(bytes)
        let turning = s.coOrientedItems(bytes)
        var out: [Int: [[UInt8]]] = [:]
        for e in s.associations.entries where !turning.contains(e.item) {
            out[e.item] = e.associations.filter { $0.index > 0 }.map {
                Array(bytes[s.properties[$0.index - 1].start..<s.properties[$0.index - 1].end])
            }
        }
        return out
    }
}

struct HEIFTests {
    @Test(arguments: HEIFFixtures.Kind.allCases)
    func theFtypBrandSaysHEIFAndInspectReadsTheStoredSize(kind: HEIFFixtures.Kind) throws {
        let bytes = try HEIFFixtures.file(kind)
        #expect(try ImageFormat.detect(bytes) == .heif)
        let m = try ImageMetadata.read(bytes)
        #expect(m.format == .heif)
        #expect(m.heifBrand == (kind == .avif ? "avif" : "heic"))
        #expect(m.width == (kind == .grid ? 161 : 160) && m.height == (kind == .grid ? 97 : 96))
        #expect(m.heifRotation == nil && m.heifMirrorAxis == nil && m.effectiveOrientation == .identity)
        #expect(m.exifOrientation == (kind == .exif ? 6 : nil))
        #expect(m.hasThumbnail == (kind == .thumbnail || kind == .grid))
    }

    /// The resolver's pixels are libheif's, as stored: the luma of what heif-convert shows for a
    /// file without irot/imir (grid images assembled and cropped alike).
    @Test(arguments: HEIFFixtures.Kind.allCases)
    func theDecoderReadsTheStoredLuma(kind: HEIFFixtures.Kind) throws {
        let bytes = try HEIFFixtures.file(kind)
        let stored = try HEIFFixtures.grayImage(Heif.decodeGrayPix(bytes, maxPixels: 1_000_000))
        let shown = try HEIFFixtures.displayed(bytes, name: "\(kind)-decoded.heic")
        // Y is not Leptonica's grey of the RGB picture (other weights, limited range): close, not equal.
        let difference = HEIFFixtures.difference(stored, shown)
        let mirrored = HEIFFixtures.difference(stored, shown.transformed(by: .flipHorizontal))
        #expect(
            difference < 10 && mirrored > 2 * difference,
            "\(kind): \(difference) from heif-convert's picture, \(mirrored) from its mirror")
        #expect(throws: DocOrientError.self) { _ = try Heif.decodeGrayPix(bytes, maxPixels: 1_000) }
    }

    /// The rewrite's mapping checked against libheif: heif-convert of the rewritten file shows the
    /// original's picture turned as asked, for every orientation and every kind of file.
    @Test(arguments: HEIFFixtures.Kind.allCases)
    func everyOrientationDisplaysAsAskedWithTheCodedDataUntouched(kind: HEIFFixtures.Kind) throws {
        let original = try HEIFFixtures.file(kind)
        let upright = try HEIFFixtures.displayed(original, name: "\(kind)-original.heic")
        let stored = try HEIFFixtures.grayImage(Heif.decodeGrayPix(original, maxPixels: 1_000_000))
        let otherItems = try HEIFFixtures.otherItemsProperties(original)
        for target in Orientation.allCases {
            let tagged = try TagRewrite.setting(target, in: original)
            let m = try ImageMetadata.read(tagged)
            #expect(m.effectiveOrientation == target, "\(kind) \(target)")
            #expect(
                try HEIFFixtures.codedData(tagged) == HEIFFixtures.codedData(original),
                "\(kind) \(target): mdat changed")
            let before = try HEIFFixtures.itemData(original), after = try HEIFFixtures.itemData(tagged)
            for (item, data) in before {
                if kind == .exif, try HEIFStructure.parse(original).items[item]?.type == "Exif" { continue }
                #expect(after[item] == data, "\(kind) \(target): item \(item)'s data moved or changed")
            }
            #expect(
                try HEIFFixtures.otherItemsProperties(tagged) == otherItems,
                "\(kind) \(target): another item's properties changed")
            let t = try HEIFStructure.parse(tagged)
            for thumbnail in t.thumbnails {
                #expect(
                    t.displayedOrientation(of: thumbnail, tagged) == target,
                    "\(kind) \(target): the thumbnail turns with the image")
            }
            let shown = try HEIFFixtures.displayed(tagged, name: "\(kind)-\(target.exifValue).heic")
            let expected = upright.transformed(by: target)
            let difference = HEIFFixtures.difference(shown, expected)
            #expect(difference < 3, "\(kind) \(target): heif-convert differs from the turned original by \(difference)")
            // Other orientations must be told apart by that measure, or the check proves nothing.
            let wrong = HEIFFixtures.difference(shown, upright.transformed(by: target.followed(by: .flipHorizontal)))
            #expect(wrong > 10, "\(kind) \(target): the test picture does not tell mirrored from not (\(wrong))")
            // The resolver reads the stored pixels whatever the file says to display.
            #expect(
                try HEIFFixtures.grayImage(Heif.decodeGrayPix(tagged, maxPixels: 1_000_000)).pixels == stored.pixels)
        }
    }

    @Test func heifInfoStillReadsTheRewrittenFilesWithTheirThumbnails() throws {
        for kind in [HEIFFixtures.Kind.thumbnail, .grid] {
            let tagged = try TagRewrite.setting(.rotate90, in: HEIFFixtures.file(kind))
            let path = try Fixtures.write(tagged, "\(kind)-info.heic", in: HEIFFixtures.directory)
            let info = try Fixtures.run(["heif-info", path]).out
            // heif-info prints the displayed size: 96x160 (or 97x161) after a quarter turn.
            #expect(info.contains(kind == .grid ? "97x161" : "96x160"), "\(info)")
            #expect(info.contains("thumbnail:"), "\(info)")
        }
    }

    @Test func rewritingAgainEditsInPlaceAndTheFileStopsGrowing() throws {
        let original = try HEIFFixtures.file(.plain)
        let first = try TagRewrite.setting(.rotate90, in: original)
        #expect(first.count == original.count + 9 + 1, "one irot box appended to ipco and one association")
        let second = try TagRewrite.setting(.rotate270, in: first)
        #expect(second.count == first.count)
        let differing = (0..<first.count).filter { first[$0] != second[$0] }
        #expect(differing.count == 1, "only irot's angle byte changes, changed \(differing)")
        // A cycle through all eight twice: properties no item uses any more are reused.
        var file = original
        var sizes: [Int] = []
        for _ in 0..<2 {
            for target in Orientation.allCases { file = try TagRewrite.setting(target, in: file) }
            sizes.append(file.count)
        }
        #expect(sizes[0] == sizes[1], "sizes after each cycle \(sizes)")
        #expect(try ImageMetadata.read(file).effectiveOrientation == .rotate270)
    }

    /// Camera files give the thumbnail the primary's own irot box (one box, two associations), as
    /// a rewrite does: the box is edited in place and both turn. A thumbnail turned differently
    /// from the primary keeps its own turn.
    @Test func aThumbnailTurnsWithThePrimaryUnlessItHadATurnOfItsOwn() throws {
        let shared = try TagRewrite.setting(.rotate90, in: HEIFFixtures.file(.thumbnail))
        let s = try HEIFStructure.parse(shared)
        let thumbnail = try #require(s.thumbnails.first)
        let irot = try #require(s.primaryProperties.first { $0.box.type == "irot" }?.association.index)
        #expect(s.properties(of: thumbnail).first { $0.box.type == "irot" }?.association.index == irot)
        let tagged = try TagRewrite.setting(.rotate270, in: shared)
        #expect(tagged.count == shared.count, "one shared box edited in place")
        let t = try HEIFStructure.parse(tagged)
        #expect(
            t.displayedOrientation(tagged) == .rotate270 && t.displayedOrientation(of: thumbnail, tagged) == .rotate270)
        let path = try Fixtures.write(tagged, "shared-irot.heic", in: HEIFFixtures.directory)
        let info = try Fixtures.run(["heif-info", path]).out
        #expect(info.contains("96x160") && info.contains("thumbnail: 28x48"), "\(info)")

        // Mirrored, then turned: the imir box is left over. The thumbnail's irot association
        // becomes that imir (same size, nothing moves): it shows mirrored, the primary turned.
        let mirrored = try TagRewrite.setting(.flipHorizontal, in: HEIFFixtures.file(.thumbnail))
        var apart = try TagRewrite.setting(.rotate90, in: mirrored)
        let a = try HEIFStructure.parse(apart)
        let imir = try #require(a.properties.indices.first { a.properties[$0].type == "imir" }) + 1
        let own = try #require(a.properties(of: thumbnail).first { $0.box.type == "irot" }?.association.index)
        var r = BoxReader(apart, a.ipma.payload, box: "ipma")
        let (version, flags) = try r.fullBoxHeader()
        #expect(version == 0 && flags == 0, "the test edits 16-bit item IDs and 8-bit indexes")
        for _ in 0..<(try r.u32()) {
            let item = try r.u16(), n = try r.u8()
            for i in 0..<n where item == thumbnail && Int(apart[r.at + i] & 0x7F) == own {
                apart[r.at + i] = UInt8(0x80 | imir)
            }
            try r.skip(n)
        }
        let before = try HEIFStructure.parse(apart)
        #expect(
            before.displayedOrientation(apart) == .rotate90
                && before.displayedOrientation(of: thumbnail, apart) == .flipHorizontal)
        let apartTagged = try TagRewrite.setting(.rotate180, in: apart)
        let p = try HEIFStructure.parse(apartTagged)
        #expect(
            p.displayedOrientation(apartTagged) == .rotate180
                && p.displayedOrientation(of: thumbnail, apartTagged) == .flipHorizontal)
    }

    /// An alpha image is an auxiliary item with properties of its own, and libheif applies its
    /// own irot/imir to it, not the primary's: turned alone, the primary loses its transparency
    /// (heif-convert showed it opaque). It turns with the primary, checked by heif-convert's alpha.
    @Test func anAlphaImageTurnsWithThePrimary() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("alpha.png").path, heic = dir.appendingPathComponent("alpha.heic").path
        try Fixtures.run([
            "convert", "-size", "160x96", "gradient:white-black", "-alpha", "set", "-channel", "A", "-fx",
            "i/w*0.8+0.1", "+channel", "PNG32:" + png,
        ])
        try Fixtures.run(["heif-enc", "-q", "90", "-o", heic, png])
        let original = try FileIO.read(heic)
        func alpha(_ bytes: [UInt8], _ name: String) throws -> Raster {
            let path = try Fixtures.write(bytes, name + ".heic", in: dir)
            try Fixtures.run(["heif-convert", path, path + ".png"])
            try Fixtures.run(["convert", path + ".png", "-alpha", "extract", "-depth", "8", "gray:" + path + ".raw"])
            let size = try Fixtures.run(["identify", "-format", "%w %h", path + ".png"]).out.split(separator: " ")
                .compactMap { Int($0) }
            return Raster(width: size[0], height: size[1], pixels: try FileIO.read(path + ".raw"))
        }
        let upright = try alpha(original, "original")
        for target in [Orientation.rotate90, .transverse, .rotate180] {
            let shown = try alpha(TagRewrite.setting(target, in: original), "\(target.exifValue)")
            let difference = HEIFFixtures.difference(shown, upright.transformed(by: target))
            #expect(difference < 3, "\(target): the alpha plane differs from the turned original's by \(difference)")
        }
    }

    /// Each item's raw association bytes in a version 0, 8-bit-index ipma, by item ID.
    static func rawAssociations(_ bytes: [UInt8]) throws -> [Int: [UInt8]] {
        let s = try HEIFStructure.parse(bytes)
        var r = BoxReader(bytes, s.ipma.payload, box: "ipma")
        let (version, flags) = try r.fullBoxHeader()
        #expect(version == 0 && flags == 0, "the test reads 16-bit item IDs and 8-bit indexes")
        var out: [Int: [UInt8]] = [:]
        for _ in 0..<(try r.u32()) {
            let item = try r.u16(), n = try r.u8()
            out[item] = Array(bytes[r.at..<(r.at + n)])
            try r.skip(n)
        }
        return out
    }

    /// Association index 0 ("no property") is skipped by readers; a rewrite that re-serialises
    /// ipma keeps it, so the other items' entries stay byte for byte.
    @Test func anotherItemsEmptyAssociationSurvivesTheRewrite() throws {
        var bytes = try HEIFFixtures.file(.thumbnail)
        let thumbnail = try #require(try HEIFStructure.parse(bytes).thumbnails.first)
        var r = BoxReader(bytes, try HEIFStructure.parse(bytes).ipma.payload, box: "ipma")
        _ = try r.fullBoxHeader()
        for _ in 0..<(try r.u32()) {
            let item = try r.u16(), n = try r.u8()
            try r.skip(n)
            if item == thumbnail { bytes[r.at - 1] = 0x00 }
        }
        let before = try Self.rawAssociations(bytes)
        #expect(before[thumbnail]?.last == 0)
        let tagged = try TagRewrite.setting(.rotate180, in: bytes)
        let after = try Self.rawAssociations(tagged)
        // The thumbnail turns with the primary (an irot association added at its end); the empty
        // association stays where it was.
        let kept = try #require(before[thumbnail])
        #expect(after[thumbnail].map { Array($0.prefix(kept.count)) } == kept, "\(after[thumbnail] ?? [])")
        #expect(try ImageMetadata.read(tagged).effectiveOrientation == .rotate180)
    }

    @Test func theExifOrientationInsideBecomesOneByATwoByteEdit() throws {
        let original = try HEIFFixtures.file(.exif)
        let tagged = try TagRewrite.setting(.rotate270, in: original)
        let m = try ImageMetadata.read(tagged)
        #expect(m.exifOrientation == 1 && m.effectiveOrientation == .rotate270)
        let s = try HEIFStructure.parse(original), t = try HEIFStructure.parse(tagged)
        let id = try #require(s.items.first { $0.value.type == "Exif" }?.key)
        let before = Array(original[try #require(s.dataRange(of: id))])
        let after = Array(tagged[try #require(t.dataRange(of: id))])
        let changed = (0..<before.count).filter { before[$0] != after[$0] }
        #expect(changed.count <= 2 && changed.count >= 1, "changed Exif bytes \(changed)")
        let path = try Fixtures.write(tagged, "exif-tagged.heic", in: HEIFFixtures.directory)
        #expect(try Fixtures.exiftool("Orientation", path) == 1)
    }

    /// heif-enc copies a JPEG's XMP into a `mime` item; its tiff:Orientation is informational
    /// like the EXIF, and becomes 1 too (one byte).
    @Test func theXMPItemsOrientationBecomesOne() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpeg = try Fixtures.write(
            Fixtures.cameraJPEG(width: 160, height: 96, orientation: 6, thumbnail: false), "xmp.jpg", in: dir)
        let heic = dir.appendingPathComponent("xmp.heic").path
        try Fixtures.run(["heif-enc", "-q", "50", "-o", heic, jpeg])
        let original = try FileIO.read(heic)
        let m = try ImageMetadata.read(original)
        #expect(m.xmpOrientation == 6 && m.exifOrientation == 6)
        let tagged = try TagRewrite.setting(.rotate90, in: original)
        let t = try ImageMetadata.read(tagged)
        #expect(t.xmpOrientation == 1 && t.exifOrientation == 1 && t.effectiveOrientation == .rotate90)
        let path = try Fixtures.write(tagged, "xmp-tagged.heic", in: dir)
        #expect(try Fixtures.exiftool("XMP-tiff:Orientation", path) == 1)
    }

    @Test func fileActionsTagWritesAndBakeRefusesHEIF() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try HEIFFixtures.file(.thumbnail)
        let path = try Fixtures.write(original, "photo.heic", in: dir)
        let outcome = try FileActions.tag(path, to: .transverse)
        #expect(outcome.wrote)
        #expect(try ImageMetadata.read(FileIO.read(path)).effectiveOrientation == .transverse)
        let again = try FileActions.tag(path, to: .transverse)
        #expect(!again.wrote, "already so: the file is left as it is")
        let before = try FileIO.read(path)
        #expect {
            _ = try FileActions.bake(path)
        } throws: { error in
            let e = error as? DocOrientError
            return e?.code == .invalidRequest && e?.message.contains("re-encoding") == true
        }
        #expect(try FileIO.read(path) == before)
    }

    /// The letter sample's EXIF says 6 and its text says 8: as a HEIC (heif-enc copies the EXIF,
    /// and writes no irot, so HEIF viewers show it stored as it is) the fix sets irot for 8.
    @Test func fixReadsTheStoredPixelsAndSetsTheContainerOrientation() throws {
        let jpeg = Fixtures.samples.appendingPathComponent("0003_letter.jpg").path
        let output = HEIFFixtures.directory.appendingPathComponent("letter.heic").path
        try Fixtures.run(["heif-enc", "-q", "80", "-o", output, jpeg])
        let bytes = try FileIO.read(output)
        #expect(try ImageMetadata.read(bytes).effectiveOrientation == .identity)
        let fixed = try Fixer(resolver: SharedResolver.get()).fix(bytes)
        #expect(fixed.record.detectedOrientation == 8, "\(fixed.record)")
        #expect(fixed.record.action == .tagRewritten)
        let m = try ImageMetadata.read(fixed.bytes)
        #expect(m.effectiveOrientation == .rotate270 && m.heifRotation == 1 && m.heifMirrorAxis == nil)
        #expect(m.exifOrientation == 1)
        #expect(try HEIFFixtures.codedData(fixed.bytes) == HEIFFixtures.codedData(bytes))
        let again = try Fixer(resolver: SharedResolver.get()).fix(fixed.bytes)
        #expect(again.bytes == fixed.bytes, "a fixed file is left alone")
    }

    // MARK: Hostile input

    /// Every prefix of a real file either parses or fails with a DocOrientError, and a rewrite of
    /// what parses never crashes.
    @Test func everyTruncationFailsClearly() throws {
        let original = try HEIFFixtures.file(.grid)
        for length in stride(from: 0, to: original.count, by: 1) {
            let cut = Array(original.prefix(length))
            do {
                _ = try ImageMetadata.read(cut)
                _ = try TagRewrite.setting(.rotate90, in: cut)
            } catch let error as DocOrientError {
                #expect(!error.message.isEmpty)
            }
        }
    }

    /// A broken file: `mutate` edits the original's bytes, given its parsed structure.
    static func broken(
        _ kind: HEIFFixtures.Kind = .thumbnail, _ mutate: (inout [UInt8], HEIFStructure) throws -> Void
    ) throws -> [UInt8] {
        var bytes = try HEIFFixtures.file(kind)
        try mutate(&bytes, HEIFStructure.parse(bytes))
        return bytes
    }

    static func box(_ s: HEIFStructure, _ type: String) -> ISOBox? {
        s.metaChildren.first { $0.type == type } ?? (s.ipma.type == type ? s.ipma : nil)
    }

    @Test func brokenBoxesAndIndexesGiveClearErrorsAndNoOutput() throws {
        let cases: [(String, [UInt8], String)] = [
            (
                "size 0 inside meta",
                try Self.broken { b, s in Bytes.put32(&b, Self.box(s, "iinf")!.start, 0, bigEndian: true) }, "size 0"
            ),
            (
                "size 1 without room",
                try Self.broken { b, s in
                    Bytes.put32(&b, s.ipma.start, 1, bigEndian: true)
                    Bytes.put32(&b, s.ipma.start + 8, 0x7FFF_FFFF, bigEndian: true)
                }, "4 GiB"
            ),
            (
                "size below the header",
                try Self.broken { b, s in Bytes.put32(&b, Self.box(s, "pitm")!.start, 5, bigEndian: true) },
                "smaller than its 8-byte header"
            ),
            (
                "huge size", try Self.broken { b, s in Bytes.put32(&b, s.meta.start, 0xFFFF_FFF0, bigEndian: true) },
                "claims"
            ),
            (
                "ipma index out of range",
                try Self.broken { b, s in
                    // The first association of the first entry: version 0 ipma, 16-bit item IDs, 8-bit indexes.
                    let at = s.ipma.payload.lowerBound + 4 + 4 + 2 + 1
                    b[at] = 0x7F
                }, "property 127, but 'ipco' holds"
            ),
            (
                "iloc with 65535 extents",
                try Self.broken { b, s in
                    let iloc = Self.box(s, "iloc")!
                    let first = s.locations[0]
                    Bytes.put16(&b, first.baseOffsetField.at + first.baseOffsetField.size, 0xFFFF, bigEndian: true)
                    _ = iloc
                }, "extents"
            ),
            (
                "iloc field size 3", try Self.broken { b, s in b[Self.box(s, "iloc")!.payload.lowerBound + 4] = 0x34 },
                "3-byte field"
            ),
            (
                "primary not an item",
                try Self.broken { b, s in
                    Bytes.put16(&b, Self.box(s, "pitm")!.payload.lowerBound + 4, 999, bigEndian: true)
                }, "primary item 999"
            ),
            ("ftyp only", Array(try HEIFFixtures.file(.plain).prefix(28)), "without a still image"),
        ]
        for (name, bytes, expected) in cases {
            #expect(throws: DocOrientError.self, "\(name)") { _ = try TagRewrite.setting(.rotate90, in: bytes) }
            do {
                _ = try ImageMetadata.read(bytes)
                Issue.record("\(name): read without error")
            } catch let error as DocOrientError {
                #expect(error.message.contains(expected), "\(name): \(error.message)")
            }
        }
    }

    /// An iloc whose fields are all 0 bytes wide reads no byte per extent: a count of 65535 such
    /// extents, times 65536 items, would be a hang rather than an error if only the box size bounded it.
    @Test func extentsOfZeroBytesCannotMultiply() throws {
        for sizes: UInt8 in [0x00, 0x44] {
            let body: [UInt8] =
                [0, 0, 0, 0, sizes, 0x00] + Bytes.be16(1) + Bytes.be16(1) + Bytes.be16(0) + Bytes.be16(0xFFFF)
            let iloc = ISOBox.header(type: "iloc", size: 8 + body.count, large: false) + body
            let box = try #require(try ISOBox.children(iloc, in: 0..<iloc.count, parent: "test").first)
            #expect {
                _ = try HEIFStructure.parseLocations(iloc, box)
            } throws: { ($0 as? DocOrientError)?.message.contains("claims 65535 extents") == true }
        }
    }

    /// A grid among its own tiles: libheif 1.15 follows the loop until it runs out of threads and
    /// aborts the process, so the parser refuses it before any decoder sees it.
    @Test func aGridThatDerivesFromItselfIsRefusedBeforeDecoding() throws {
        let bytes = try Self.broken(.grid) { b, s in
            let iref = try #require(Self.box(s, "iref"))
            let dimg = try #require(
                try ISOBox.children(b, in: (iref.payload.lowerBound + 4)..<iref.end, parent: "iref").first {
                    $0.type == "dimg"
                })
            // version 0: from (16 bits), count (16 bits), the first source (16 bits) := from.
            b[dimg.payload.lowerBound + 4] = b[dimg.payload.lowerBound]
            b[dimg.payload.lowerBound + 5] = b[dimg.payload.lowerBound + 1]
        }
        for read in [{ _ = try ImageMetadata.read(bytes) }, { _ = try TagRewrite.setting(.rotate90, in: bytes) }] {
            #expect {
                try read()
            } throws: {
                ($0 as? DocOrientError)?.message.contains("derives from itself through 'dimg' references") == true
            }
        }
        #expect(throws: DocOrientError.self) { _ = try Fixer(resolver: SharedResolver.get()).resolve(bytes) }
    }

    @Test func derivationsEndWithinABoundedDepth() throws {
        func chain(_ n: Int) -> [HEIFStructure.Reference] {
            (1...n).map { HEIFStructure.Reference(type: "dimg", from: $0, to: [$0 + 1]) }
        }
        try HEIFStructure.checkDerivationsEnd(chain(HEIFStructure.maxDerivationDepth))
        #expect(throws: DocOrientError.self) {
            try HEIFStructure.checkDerivationsEnd(chain(HEIFStructure.maxDerivationDepth + 1))
        }
        // A longer loop, and a diamond (two paths to one tile), which is no loop.
        #expect(throws: DocOrientError.self) {
            try HEIFStructure.checkDerivationsEnd(chain(3) + [HEIFStructure.Reference(type: "dimg", from: 4, to: [2])])
        }
        try HEIFStructure.checkDerivationsEnd([
            .init(type: "dimg", from: 1, to: [2, 3]), .init(type: "dimg", from: 2, to: [4]),
            .init(type: "dimg", from: 3, to: [4]),
        ])
    }

    /// Item data said to lie inside the properties being rewritten cannot be moved correctly.
    @Test func dataInsideTheRewrittenBoxesIsRefusedNotMoved() throws {
        let bytes = try Self.broken { b, s in
            let l = s.locations.first { $0.constructionMethod == 0 && $0.baseOffsetField.size == 4 }!
            Bytes.put32(&b, l.baseOffsetField.at, s.ipco.start + 8, bigEndian: true)
        }
        #expect {
            _ = try TagRewrite.setting(.rotate90, in: bytes)
        } throws: { ($0 as? DocOrientError)?.message.contains("inside the 'iprp' box") == true }
    }

    @Test func aMovieBoxAfterMetaIsRefusedWhenOffsetsWouldMove() throws {
        var bytes = try HEIFFixtures.file(.plain)
        bytes += ISOBox.header(type: "moov", size: 16, large: false) + [UInt8](repeating: 0, count: 8)
        #expect {
            _ = try TagRewrite.setting(.rotate90, in: bytes)
        } throws: { ($0 as? DocOrientError)?.message.contains("'moov'") == true }
    }
}

import Foundation
import Testing

@testable import DocOrient

struct TagRewriteTests {
    /// The byte offsets where two equally long files differ.
    func differingOffsets(_ a: [UInt8], _ b: [UInt8]) -> [Int] {
        precondition(a.count == b.count)
        return (0..<a.count).filter { a[$0] != b[$0] }
    }

    @Test(arguments: [true, false])
    func rewritingTheTagChangesOnlyTheOrientationBytes(bigEndian: Bool) throws {
        let original = try Fixtures.cameraJPEG(width: 320, height: 240, orientation: 6, bigEndian: bigEndian)
        let jpeg = try JPEGStructure.parse(original)
        let exif = try #require(jpeg.exif)
        let allowed = Set([
            exif.orientation!.offset, exif.orientation!.offset + 1, exif.ifd1Orientation!.offset,
            exif.ifd1Orientation!.offset + 1, jpeg.xmpOrientation!.digits.lowerBound,
        ])
        for target in Orientation.allCases {
            let rewritten = try TagRewrite.setting(target, in: original)
            #expect(rewritten.count == original.count)
            let changed = Set(differingOffsets(original, rewritten))
            #expect(changed.isSubset(of: allowed), "only orientation bytes may change, changed \(changed.sorted())")
            let m = try ImageMetadata.read(rewritten)
            #expect(
                m.exifOrientation == target.exifValue && m.thumbnailOrientation == target.exifValue
                    && m.xmpOrientation == target.exifValue)
        }
    }

    @Test func exiftoolSeesTheRewrittenTagAndAnIntactMakerNoteAndThumbnail() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = try Fixtures.cameraJPEG(width: 320, height: 240, orientation: 6)
        let path = try Fixtures.write(try TagRewrite.setting(.rotate270, in: original), "tagged.jpg", in: dir)
        #expect(try Fixtures.exiftool("IFD0:Orientation", path) == 8)
        #expect(try Fixtures.exiftool("IFD1:Orientation", path) == 8)
        #expect(try Fixtures.exiftool("XMP-tiff:Orientation", path) == 8)
        #expect(try Fixtures.run(["exiftool", "-s3", "-Make", path]).out.contains("Canon"))
        let thumb = try Fixtures.run(["exiftool", "-b", "-ThumbnailImage", path]).out
        #expect(!thumb.isEmpty, "the thumbnail is still found")
        let warnings = try Fixtures.run(["exiftool", "-validate", "-warning", "-a", path]).out
        #expect(!warnings.contains("Error"), "\(warnings)")
    }

    @Test func aJPEGWithoutExifGetsAMinimalValidBlockAndKeepsItsScan() throws {
        let plain = try Fixtures.plainJPEG(width: 64, height: 48)
        let tagged = try TagRewrite.setting(.rotate90, in: plain)
        let m = try ImageMetadata.read(tagged)
        #expect(m.exifOrientation == 6)
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Fixtures.write(tagged, "noexif.jpg", in: dir)
        #expect(try Fixtures.exiftool("Orientation", path) == 6)
        #expect(try TurboJPEG.decodeFull(tagged, rgb: true).pixels == TurboJPEG.decodeFull(plain, rgb: true).pixels)
        // Everything after the inserted segment is the original file, byte for byte.
        #expect(Array(tagged.suffix(plain.count - 20)) == Array(plain.suffix(plain.count - 20)))
    }

    @Test func anIFD0WithoutAnOrientationEntryGetsOneWithoutMovingAnythingElse() throws {
        var tiff = Fixtures.exifTIFF(width: 10, height: 10, orientation: 1, thumbnail: [], bigEndian: false)
        // Turn the orientation entry into an unrelated tag (0x0131 Software, SHORT): IFD0 then has none.
        let s = try TIFFStructure.parse(tiff, base: 0, end: tiff.count)
        Bytes.put16(&tiff, s.orientation!.offset - 8, 0x0131, bigEndian: false)
        let edited = try TIFFEditor.settingOrientation(3, in: tiff)
        #expect(Array(edited.prefix(4)) == Array(tiff.prefix(4)))
        var old = tiff
        s.ifd1Orientation?.write(&old, 3)  // IFD1's orientation follows IFD0's
        #expect(Array(edited[8..<tiff.count]) == Array(old[8...]), "the old structure is untouched past the header")
        let parsed = try TIFFStructure.parse(edited, base: 0, end: edited.count)
        #expect(parsed.orientation?.read(edited) == 3)
        #expect(parsed.pixelXDimension?.read(edited) == 10, "the Exif IFD is still reachable")
    }

    @Test func pngGetsAnEXIfChunkThatExiftoolReads() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("a.png").path
        try Fixtures.run(["convert", "-size", "40x30", "gradient:white-black", png])
        let original = try FileIO.read(png)
        let tagged = try TagRewrite.setting(.rotate90, in: original)
        let out = try Fixtures.write(tagged, "b.png", in: dir)
        #expect(try Fixtures.exiftool("Orientation", out) == 6)
        let again = try TagRewrite.setting(.rotate180, in: tagged)
        #expect(again.count == tagged.count, "an existing eXIf chunk is edited in place")
        #expect(try ImageMetadata.read(again).exifOrientation == 3)
        let out2 = try Fixtures.write(again, "c.png", in: dir)
        #expect(try Fixtures.exiftool("Orientation", out2) == 3)
        try Fixtures.run(["convert", out2, dir.appendingPathComponent("check.ppm").path])  // the CRC is valid
    }

    @Test func tiffFilesAreRewrittenInPlace() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tif = dir.appendingPathComponent("a.tif").path
        try Fixtures.run(["convert", "-size", "40x30", "gradient:white-black", "-orient", "RightTop", tif])
        let original = try FileIO.read(tif)
        #expect(try ImageMetadata.read(original).exifOrientation == 6)
        let tagged = try TagRewrite.setting(.identity, in: original)
        #expect(tagged.count == original.count)
        let out = try Fixtures.write(tagged, "b.tif", in: dir)
        #expect(try Fixtures.exiftool("Orientation", out) == 1)
    }
}

import Foundation
import Testing

@testable import DocOrient

/// Hostile and broken input through the real binary: each case gets a clear per-file answer and the
/// file is left byte-identical (or, where the input is valid but odd, is handled correctly).
struct BadInputTests {
    static let letter = CLITests.samples.appendingPathComponent("0003_letter.jpg").path  // tag 6, text says 8

    struct Case {
        var name: String
        var bytes: [UInt8]
    }

    static func sample() throws -> [UInt8] { try FileIO.read(letter) }

    /// Replaces IFD0's orientation entry (type, count, value) in the sample's first EXIF block.
    static func patchingOrientationEntry(_ b: [UInt8], type: Int, value: Int) throws -> [UInt8] {
        var out = b
        let jpeg = try JPEGStructure.parse(b)
        let slot = try #require(jpeg.exif?.orientation)
        let entry = slot.offset - 8
        Bytes.put16(&out, entry + 2, type, bigEndian: slot.bigEndian)
        if type == 4 {
            Bytes.put32(&out, slot.offset, value, bigEndian: slot.bigEndian)
        } else {
            Bytes.put16(&out, slot.offset, value, bigEndian: slot.bigEndian)
        }
        return out
    }

    func fixJSON(_ path: String, _ extra: [String] = []) throws -> (record: [String: Any], output: CLITests.Output) {
        let output = try CLITests.run(CLITests.binary, ["fix", "--json"] + extra + [path])
        let line = try #require(output.lines.first, "no record for \(path): \(output.err)")
        return (try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]), output)
    }

    /// Cases that must fail with `expected` in the reason and leave the file untouched, and the C
    /// library call that failed underneath (nil where docorient found the problem itself).
    static func failingCases() throws -> [(Case, String, cause: String?)] {
        let b = try sample()
        let jpeg = try JPEGStructure.parse(b)
        let sos = try #require(jpeg.segments.last?.payload.upperBound)
        let exif = try #require(jpeg.exif)
        var pastEnd = b
        Bytes.put32(&pastEnd, exif.base + 4, 0x7FFF_0000, bigEndian: exif.bigEndian)  // IFD0 offset past the block
        var overflow = b
        Bytes.put16(&overflow, exif.ifd0, 0xFFFF, bigEndian: exif.bigEndian)  // 65535 entries in a small block
        var bomb = b
        let sof = try #require(jpeg.segments.first { $0.marker == 0xC0 || $0.marker == 0xC2 })
        Bytes.put16(&bomb, sof.payload.lowerBound + 1, 65500, bigEndian: true)
        Bytes.put16(&bomb, sof.payload.lowerBound + 3, 65500, bigEndian: true)
        return [
            (Case(name: "empty.jpg", bytes: []), "the file is empty", nil),
            (Case(name: "headers.jpg", bytes: Array(b.prefix(300))), "truncated", nil),
            (Case(name: "scan.jpg", bytes: Array(b.prefix(sos + (b.count - sos) / 2))), "corrupt", "tjDecompress2"),
            (Case(name: "pastend.jpg", bytes: pastEnd), "IFD0 offset", nil),
            (Case(name: "overflow.jpg", bytes: overflow), "IFD0 offset", nil),
            (Case(name: "bomb.jpg", bytes: bomb), "over the limit", nil),
            (Case(name: "text.jpg", bytes: Array("hello, I am not an image".utf8)), "unsupported format", nil),
            (
                Case(
                    name: "movie.jpg",
                    bytes: [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [UInt8](repeating: 0, count: 20)),
                "HEIF file (brand 'heic') without a still image", nil
            ),
        ]
    }

    @Test func brokenFilesFailClearlyAndStayUntouched() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (c, expected, cause) in try Self.failingCases() {
            let path = dir.appendingPathComponent(c.name).path
            try Data(c.bytes).write(to: URL(fileURLWithPath: path))
            let (record, output) = try fixJSON(path)
            #expect(output.status == 1, "\(c.name)")
            #expect(record["verdict"] as? String == "error", "\(c.name)")
            let reason = record["reason"] as? String ?? ""
            #expect(reason.contains(expected), "\(c.name): \(reason)")
            if let cause {
                let found = record["error_cause"] as? [String: Any]
                #expect(found?["call"] as? String == cause, "\(c.name): \(record["error_cause"] ?? "none")")
                #expect(found?["errno"] is NSNull, "\(c.name): a library call sets no errno")
                let said = found?["message"] as? String ?? ""
                #expect(!said.isEmpty && reason.hasSuffix(": \(said)"), "\(c.name): the reason ends with it")
            } else {
                #expect(record["error_cause"] is NSNull, "\(c.name): \(record["error_cause"] ?? "")")
            }
            #expect(try FileIO.read(path) == c.bytes, "\(c.name) was changed")
            #expect(output.err.contains(c.name), "\(c.name): the error names the file")
        }
    }

    @Test(arguments: [0, 9, 65535])
    func anUnusableOrientationValueIsNoTagAndGetsFixed(value: Int) throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("odd.jpg").path
        let bytes = try Self.patchingOrientationEntry(Self.sample(), type: 3, value: value)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let inspect = try CLITests.docorient("inspect", "--json", path)
        #expect(
            inspect.out.contains("\"exif_orientation\":\(value)")
                && inspect.out.contains("\"effective_orientation\":null"))
        let (record, _) = try fixJSON(path)
        #expect(record["verdict"] as? String == "no_tag")
        #expect(record["detected_orientation"] as? Int == 8)
        #expect(try ImageMetadata.read(FileIO.read(path)).exifOrientation == 8)
    }

    @Test func anOrientationStoredAsLongIsReadAndRewrittenInItsOwnWidth() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("long.jpg").path
        let bytes = try Self.patchingOrientationEntry(Self.sample(), type: 4, value: 6)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (record, _) = try fixJSON(path)
        #expect(record["verdict"] as? String == "disagrees" && record["action"] as? String == "tag_rewritten")
        let after = try FileIO.read(path)
        #expect(after.count == bytes.count)
        #expect(try ImageMetadata.read(after).exifOrientation == 8)
    }

    @Test func twoExifBlocksThatDisagreeAreBothRewritten() throws {
        let b = try Self.sample()
        let jpeg = try JPEGStructure.parse(b)
        let first = jpeg.segments[try #require(jpeg.exifSegment)]
        var second = Array(b[first.start..<first.payload.upperBound])
        let tiffStart = first.payload.lowerBound - first.start + 6
        var tiff = Array(second[tiffStart...])
        let s = try TIFFStructure.parse(tiff, base: 0, end: tiff.count)
        s.orientation?.write(&tiff, 3)
        second.replaceSubrange(tiffStart..., with: tiff)
        var bytes = b
        bytes.insert(contentsOf: second, at: first.payload.upperBound)
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("two.jpg").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (record, _) = try fixJSON(path)
        #expect(record["detected_orientation"] as? Int == 8)
        let after = try FileIO.read(path)
        let parsed = try JPEGStructure.parse(after)
        #expect(parsed.exifSegments.count == 2)
        for index in parsed.exifSegments {
            let p = parsed.segments[index].payload
            let t = try TIFFStructure.parse(after, base: p.lowerBound + 6, end: p.upperBound)
            #expect(t.orientation?.read(after) == 8, "every EXIF block says 8")
        }
    }

    @Test func oddButValidJPEGsAreHandled() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cmyk = dir.appendingPathComponent("cmyk.jpg").path,
            progressive = dir.appendingPathComponent("progressive.jpg").path
        let arithmetic = dir.appendingPathComponent("arithmetic.jpg").path,
            tiny = dir.appendingPathComponent("tiny.jpg").path
        try CLITests.run("convert", [Self.letter, "-colorspace", "CMYK", cmyk])
        try CLITests.run("convert", [Self.letter, "-interlace", "JPEG", progressive])
        try CLITests.run("jpegtran", ["-arithmetic", "-copy", "all", "-outfile", arithmetic, Self.letter])
        try CLITests.run("convert", ["-size", "1x1", "xc:white", tiny])
        for path in [cmyk, progressive, arithmetic] {
            let (record, _) = try fixJSON(path, ["--dry-run"])
            #expect(record["detected_orientation"] as? Int == 8, "\(path): \(record["reason"] ?? "")")
        }
        let (record, _) = try fixJSON(tiny)
        #expect(record["verdict"] as? String == "undecidable")
    }

    @Test func aPNGNamedLikeAJPEGAndASixteenBitPNGAreReadByContent() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let misnamed = dir.appendingPathComponent("really-a-png.jpg").path
        let deep = dir.appendingPathComponent("deep.png").path
        try CLITests.run("convert", [Self.letter, "PNG24:" + misnamed])  // PNG has no tag: stored pixels need 8
        try CLITests.run("convert", [Self.letter, "-depth", "16", "PNG48:" + deep])
        let (a, _) = try fixJSON(misnamed, ["--dry-run"])
        #expect(a["detected_orientation"] as? Int == 8, "\(a["reason"] ?? "")")
        let (b, _) = try fixJSON(deep, ["--dry-run"])
        #expect(b["detected_orientation"] as? Int == 8, "\(b["reason"] ?? "")")
    }

    @Test func aFullDiskLeavesTheOriginalIntact() throws {
        guard getuid() == 0 else { return }  // mounting a tiny file system needs root
        let mount = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: mount) }
        guard (try? CLITests.run("mount", ["-t", "tmpfs", "-o", "size=200k", "tmpfs", mount.path]))?.status == 0 else {
            return
        }
        defer { _ = try? CLITests.run("umount", [mount.path]) }
        let path = mount.appendingPathComponent("letter.jpg").path
        try FileManager.default.copyItem(atPath: Self.letter, toPath: path)
        let before = try FileIO.read(path)
        let (record, output) = try fixJSON(path)
        #expect(output.status == 1)
        #expect(record["verdict"] as? String == "error")
        #expect((record["reason"] as? String)?.contains("No space left") == true, "\(record["reason"] ?? "")")
        #expect((record["error_cause"] as? [String: Any])?["errno"] as? Int == Int(ENOSPC))
        #expect(try FileIO.read(path) == before, "the original survives a failed write")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: mount.path)
        #expect(leftovers == ["letter.jpg"], "no temporary file is left: \(leftovers)")
    }

    @Test func ifdLoopsAreFollowedOnceAndTheFileIsStillFixed() throws {
        var b = try Self.sample()
        let jpeg = try JPEGStructure.parse(b)
        let exif = try #require(jpeg.exif)
        let ifd0 = exif.ifd0 - exif.base
        // IFD0's next-IFD pointer back to IFD0 itself: a loop.
        let count = try #require(Bytes.u16(b, exif.ifd0, bigEndian: exif.bigEndian))
        Bytes.put32(&b, exif.ifd0 + 2 + count * 12, ifd0, bigEndian: exif.bigEndian)
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("loop.jpg").path
        try Data(b).write(to: URL(fileURLWithPath: path))
        let (record, output) = try fixJSON(path)
        #expect(output.status == 0, "\(output.err)")
        #expect(record["action"] as? String == "tag_rewritten")
        #expect(try ImageMetadata.read(FileIO.read(path)).exifOrientation == 8)
    }

    @Test func aDirectoryNamedLikeAJPEGIsAnErrorForThatPathOnly() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fake = dir.appendingPathComponent("folder.jpg").path
        try FileManager.default.createDirectory(atPath: fake, withIntermediateDirectories: true)
        let result = try CLITests.docorient("inspect", "--json", fake, Self.letter)
        #expect(result.status == 1)
        #expect(result.lines.count == 2)
        #expect(result.lines[0].contains("a directory, not an image file"))
        #expect(result.lines[1].contains("\"error\":null"))
    }

    @Test func aFileThatDisappearsBeforeTheWriteIsNotBroughtBack() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("gone.jpg").path
        try FileManager.default.copyItem(atPath: Self.letter, toPath: path)
        let bytes = try FileIO.read(path)
        let fixed = try TagRewrite.setting(.rotate270, in: bytes)
        try FileManager.default.removeItem(atPath: path)
        #expect(throws: DocOrientError.self) {
            try FileActions.commit(fixed, original: bytes, path: path, destination: .inPlace)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "no temporary file is left")
    }

    @Test func fixingThroughASymlinkFixesTheFileAndKeepsTheLink() throws {
        let dir = try CLITests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let real = dir.appendingPathComponent("real.jpg").path, link = dir.appendingPathComponent("link.jpg").path
        try FileManager.default.copyItem(atPath: Self.letter, toPath: real)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.jpg")
        let (record, _) = try fixJSON(link)
        #expect(record["action"] as? String == "tag_rewritten")
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.jpg", "the link is still a link")
        #expect(try ImageMetadata.read(FileIO.read(real)).exifOrientation == 8)
    }
}

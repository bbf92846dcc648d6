import Foundation
import Testing

@testable import DocOrient

struct BakeTests {
    static func jpegtranArguments(_ o: Orientation) -> [String] {
        switch o {
        case .identity: return []
        case .flipHorizontal: return ["-flip", "horizontal"]
        case .rotate180: return ["-rotate", "180"]
        case .flipVertical: return ["-flip", "vertical"]
        case .transpose: return ["-transpose"]
        case .rotate90: return ["-rotate", "90"]
        case .transverse: return ["-transverse"]
        case .rotate270: return ["-rotate", "270"]
        }
    }

    @Test(arguments: Orientation.allCases)
    func bakingAnAlignedJPEGEqualsTransformingItsDecodedPixels(orientation: Orientation) throws {
        for subsampling in [TurboJPEG.Subsampling.gray, .s444, .s420] {
            let original = try Fixtures.cameraJPEG(
                width: 320, height: 192, orientation: orientation.exifValue, subsampling: subsampling)
            let result = try Bake.apply(to: original)
            #expect(result.outcome == (orientation == .identity ? .unchanged : .baked(orientation)))
            let rgb = subsampling != .gray
            let expected = try TurboJPEG.decodeFull(original, rgb: rgb).transformed(by: orientation)
            let actual = try TurboJPEG.decodeFull(result.bytes, rgb: rgb)
            #expect(actual.width == expected.width && actual.height == expected.height)
            // libjpeg's integer IDCT rounds asymmetrically, so decoding transformed coefficients
            // can differ from transforming decoded pixels by a few levels: measured at most 3.
            let differences = zip(actual.pixels, expected.pixels).map { abs(Int($0) - Int($1)) }
            let worst = differences.max() ?? 0
            let mean = Double(differences.reduce(0, +)) / Double(max(differences.count, 1))
            #expect(
                worst <= 3 && mean < 0.5, "\(orientation) \(subsampling): pixels differ by up to \(worst), mean \(mean)"
            )
            // Exactly lossless: the same coefficients as jpegtran's transform, decoded identically.
            if orientation != .identity {
                let dir = try Fixtures.temporaryDirectory()
                defer { try? FileManager.default.removeItem(at: dir) }
                let input = try Fixtures.write(original, "in.jpg", in: dir)
                let peer = dir.appendingPathComponent("peer.jpg").path
                try Fixtures.run(
                    ["jpegtran", "-perfect", "-copy", "none"] + Self.jpegtranArguments(orientation) + [
                        "-outfile", peer, input,
                    ])
                #expect(
                    try TurboJPEG.decodeFull(FileIO.read(peer), rgb: rgb).pixels == actual.pixels,
                    "\(orientation) \(subsampling)")
            }
        }
    }

    @Test(arguments: [Orientation.rotate90, .transpose, .rotate180, .flipHorizontal])
    func aBakedFileSaysOneEverywhereWithARotatedThumbnail(orientation: Orientation) throws {
        let original = try Fixtures.cameraJPEG(width: 320, height: 192, orientation: orientation.exifValue)
        let baked = try Bake.apply(to: original).bytes
        let m = try ImageMetadata.read(baked)
        #expect(m.exifOrientation == 1 && m.thumbnailOrientation == 1 && m.xmpOrientation == 1)
        let shown = orientation.displaySize(forStored: Size(width: 320, height: 192))
        #expect(m.width == Int(shown.width) && m.height == Int(shown.height))
        #expect(m.pixelXDimension == m.width && m.pixelYDimension == m.height)
        let exif = try #require(try JPEGStructure.parse(baked).exif)
        let thumbRange = try #require(exif.thumbnailRange(in: baked))
        let thumb = try TurboJPEG.header(Array(baked[thumbRange]))
        let thumbShown = orientation.displaySize(forStored: Size(width: 160, height: 120))
        #expect(thumb.width == Int(thumbShown.width) && thumb.height == Int(thumbShown.height))
        // Every other marker survives: ICC, comment, the maker note bytes.
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = try Fixtures.write(baked, "baked.jpg", in: dir)
        #expect(try Fixtures.run(["exiftool", "-s3", "-Comment", path]).out.contains("docorient test comment"))
        #expect(try Fixtures.run(["exiftool", "-s3", "-Make", path]).out.contains("Canon"))
        #expect(baked.count > 0 && baked.firstRange(of: Array("ICC_PROFILE".utf8)) != nil)
    }

    @Test func aNonAlignedJPEGKeepsItsPixelsUnlessTrimIsGiven() throws {
        // 4:2:0 has 16x16 MCUs; 330x200 leaves partial blocks on both edges.
        let original = try Fixtures.cameraJPEG(width: 330, height: 200, orientation: 6)
        let result = try Bake.apply(to: original)
        guard case .tagRewrittenInstead(.rotate90, _) = result.outcome else {
            Issue.record("expected the tag to be rewritten instead, got \(result.outcome)")
            return
        }
        #expect(
            try TurboJPEG.decodeFull(result.bytes, rgb: true).pixels == TurboJPEG.decodeFull(original, rgb: true).pixels
        )
        #expect(try ImageMetadata.read(result.bytes).exifOrientation == 6)
        let trimmed = try Bake.apply(to: original, trim: true)
        #expect(trimmed.outcome == .baked(.rotate90))
        let m = try ImageMetadata.read(trimmed.bytes)
        #expect(
            m.exifOrientation == 1 && m.width == 192 && m.height == 330,
            "the partial right-edge... bottom blocks are dropped")
    }

    @Test func aFlipNeedsOnlyTheEdgeItMovesToBeAligned() throws {
        // Flipping top-bottom moves the bottom edge only: a width that is not a multiple of 16 is fine.
        let original = try Fixtures.cameraJPEG(width: 330, height: 192, orientation: 4)
        #expect(try Bake.apply(to: original).outcome == .baked(.flipVertical))
    }
}

/// PNG and TIFF bakes re-encode losslessly: ImageMagick, an independent decoder, sees exactly the
/// original pixels turned.
struct LosslessReencodeBakeTests {
    func rgba(_ path: String) throws -> (width: Int, height: Int, pixels: [UInt8]) {
        let size = try Fixtures.run(["identify", "-format", "%w %h", path]).out.split(separator: " ").compactMap {
            Int($0)
        }
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let raw = dir.appendingPathComponent("p.rgba").path
        try Fixtures.run(["convert", path, "-depth", "8", "rgba:\(raw)"])
        return (size[0], size[1], try FileIO.read(raw))
    }

    @Test(arguments: [
        ("png", ["-type", "TrueColorAlpha"]), ("png", ["-type", "Palette"]), ("png", ["-type", "Grayscale"]),
        ("png", ["-type", "Bilevel"]), ("tif", ["-type", "TrueColor"]), ("tif", ["-type", "Bilevel"]),
    ])
    func bakingPNGAndTIFFTurnsThePixelsExactly(format: String, type: [String]) throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("src.\(format)").path
        let target = type.contains("Palette") ? "PNG8:" + source : source
        try Fixtures.run(
            ["convert", "-size", "61x37", "plasma:fractal", "-seed", "3"]
                + (type.contains("Palette") ? ["-colors", "64"] : type) + ["-depth", "8", target])
        let original = try rgba(source)
        for orientation in [Orientation.rotate90, .transpose, .rotate180, .flipHorizontal] {
            let bytes = try TagRewrite.setting(orientation, in: FileIO.read(source))
            let result = try Bake.apply(to: bytes)
            #expect(result.outcome == .baked(orientation))
            let baked = try Fixtures.write(result.bytes, "baked-\(orientation.exifValue).\(format)", in: dir)
            let actual = try rgba(baked)
            let expected = Raster(width: original.width, height: original.height, channels: 4, pixels: original.pixels)
                .transformed(by: orientation)
            #expect(
                actual.width == expected.width && actual.height == expected.height, "\(format) \(type) \(orientation)")
            let same = actual.pixels == expected.pixels
            #expect(same, "\(format) \(type) \(orientation): pixels differ")
            let tag = try ImageMetadata.read(result.bytes).exifOrientation
            #expect(tag == nil || tag == 1, "no orientation other than 1 is left behind")
        }
    }

    @Test func aSixteenBitPNGIsRefusedRatherThanReduced() throws {
        let dir = try Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("deep.png").path
        try Fixtures.run(["convert", "-size", "20x10", "gradient:", "-depth", "16", source])
        #expect(throws: DocOrientError.self) { try Bake.apply(.rotate90, to: FileIO.read(source)) }
    }
}

import Testing

@testable import DocOrient

/// The probe's marks (`Pix.inkComponents`) are Leptonica's: the same pieces of ink, in the same
/// order, as `pixThresholdToBinary` + `pixConnCompBB`, kept to the region asked for.
struct InkComponentsTests {
    /// Grey pixels from rows of characters: "#" ink (0), anything else paper (255).
    static func page(_ rows: [String]) throws -> Pix {
        let width = rows.map(\.count).max() ?? 0
        var pixels = [UInt8](repeating: 255, count: width * rows.count)
        for (y, row) in rows.enumerated() {
            for (x, c) in row.enumerated() where c == "#" { pixels[y * width + x] = 0 }
        }
        return try Pix.gray(Raster(width: width, height: rows.count, pixels: pixels))
    }

    static func frame(_ pix: borrowing Pix) -> PixelBox { PixelBox(x: 0, y: 0, width: pix.width, height: pix.height) }

    /// Leptonica's pieces of the thresholded image inside `box`.
    static func leptonica(_ pix: borrowing Pix, threshold: Int, inside box: PixelBox) throws -> [PixelBox] {
        try pix.thresholded(threshold).componentBoxes().filter { $0.lies(inside: box) }
    }

    /// The pieces of ink `inkComponents` finds on the page drawn by `rows` inside `box` (the whole
    /// page when nil), after checking that they are Leptonica's.
    static func pieces(_ rows: [String], inside box: PixelBox? = nil) throws -> [PixelBox] {
        let pix = try page(rows)
        let region = box ?? frame(pix)
        let found = try pix.inkComponents(darkerThan: 128, inside: region)
        #expect(found == (try leptonica(pix, threshold: 128, inside: region)))
        return found
    }

    @Test func piecesTouchingAtACornerAreOnePiece() throws {
        let found = try Self.pieces([
            "#....",
            ".#...",
            "..#.#",
            "...#.",
        ])
        #expect(found == [PixelBox(x: 0, y: 0, width: 5, height: 4)])
    }

    @Test func aPieceJoinedBelowIsOnePieceFirstWhereItsFirstPixelIs() throws {
        // A U whose arms meet on the last row, beside a dot that starts between them.
        let found = try Self.pieces([
            "#...#.",
            "#.#.#.",
            "#...#.",
            "#####.",
        ])
        #expect(found == [PixelBox(x: 0, y: 0, width: 5, height: 4), PixelBox(x: 2, y: 1, width: 1, height: 1)])
    }

    @Test func aPieceReachingOutOfTheRegionIsLeftOutWhole() throws {
        // The region holds the dot and the first half of the stroke: only the dot is inside.
        let found = try Self.pieces(
            [
                "......",
                ".##...",
                "...##.",
                "......",
                ".#....",
            ], inside: PixelBox(x: 0, y: 0, width: 3, height: 5))
        #expect(found == [PixelBox(x: 1, y: 4, width: 1, height: 1)])
    }

    @Test func onlyPixelsDarkerThanTheThresholdAreInk() throws {
        let pix = try Pix.gray(Raster(width: 3, height: 1, pixels: [99, 100, 101]))
        #expect(
            try pix.inkComponents(darkerThan: 100, inside: Self.frame(pix)) == [
                PixelBox(x: 0, y: 0, width: 1, height: 1)
            ])
        #expect(try pix.inkComponents(darkerThan: 0, inside: Self.frame(pix)).isEmpty)
    }

    /// On each committed sample's light-corrected probe, at the probe's thresholds, over the frame
    /// and over a region inside it: the pieces and their order are Leptonica's.
    @Test(arguments: ResolverSample.all)
    func theSamplesPiecesAreLeptonicas(_ sample: ResolverSample) throws {
        Leptonica.silenced
        let bytes = try sample.bytes()
        let source = try GraySource(bytes: bytes, metadata: try ImageMetadata.read(bytes), maxPixels: 100_000_000)
        let p = Calibration.embedded.analysis
        let gray = try source.gray(longSide: p.probeLongSide)
        let normalized = try gray.backgroundNormalized(tile: max(16, gray.width / 30))
        let (w, h) = (normalized.width, normalized.height)
        let inner = PixelBox(x: w / 7, y: h / 5, width: w * 3 / 5, height: h / 2)
        var pieces = 0
        for threshold in [p.blurProbeThreshold, p.probeThreshold, p.probeMaxThreshold] {
            for box in [Self.frame(normalized), inner] {
                let swift = try normalized.inkComponents(darkerThan: threshold, inside: box)
                #expect(
                    swift == (try Self.leptonica(normalized, threshold: threshold, inside: box)), "\(threshold) \(box)")
                pieces += swift.count
            }
        }
        #expect(pieces > 0)
    }
}

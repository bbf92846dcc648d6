import Foundation
import Testing

@testable import DocOrient

/// The direction of the text lines (docstrum) and the levelling built on it, on a committed
/// letter turned by known angles.
struct LineDirectionTests {
    /// The lines of `pix` as the probe finds them: light corrected, one threshold, components.
    static func lines(of pix: borrowing Pix) throws -> (angle: LineAngle, height: Double?) {
        let normalized = try pix.backgroundNormalized(tile: max(16, pix.width / 30))
        let measure = AnalysisImage.measureGlyphs(try normalized.thresholded(160).componentBoxes(), lines: true)
        return (try #require(measure.lineAngle()), measure.lineHeight(atLeast: 3))
    }

    static func degrees(_ radians: Double) -> Double { radians * 180 / .pi }

    /// 0003_letter is stored with its lines along y (upright orientation 8), 0012_pdfpage along x.
    static func storedGray(_ file: String, longSide: Int = 2000) throws -> Pix {
        let bytes = try [UInt8](Data(contentsOf: ResolverSample.corpus.appendingPathComponent("samples/\(file)")))
        let source = try GraySource(bytes: bytes, metadata: try ImageMetadata.read(bytes), maxPixels: 100_000_000)
        return try source.gray(longSide: longSide)
    }

    @Test(arguments: [("0003_letter.jpg", false), ("0012_pdfpage.jpg", true)], [-14.0, -6.0, 6.0, 14.0])
    func turningAPageByAnAngleTurnsItsMeasuredLinesByThatAngle(_ sample: (String, Bool), _ turn: Double) throws {
        let gray = try Self.storedGray(sample.0)
        let before = try Self.lines(of: gray).angle
        #expect(before.alongX == sample.1)
        #expect(abs(Self.degrees(before.skew)) < 1.5, "a flat capture's lines lie along an axis")
        // Counterclockwise on screen: the lines' clockwise slant falls by the angle.
        let turned = try gray.rotated(counterclockwiseBy: turn * .pi / 180)
        let after = try Self.lines(of: turned).angle
        #expect(after.alongX == sample.1)
        // Within two degrees: across a text window (16 text heights) that is half a line height,
        // and the levelled window is measured again below.
        #expect(abs(Self.degrees(after.skew - before.skew) + turn) < 2, "measured \(Self.degrees(after.skew)) degrees")
    }

    @Test func aLevelledCropOfATurnedPageHasLevelLines() throws {
        let gray = try Self.storedGray("0012_pdfpage.jpg")
        let turned = try gray.rotated(counterclockwiseBy: 12 * .pi / 180)
        let skew = try Self.lines(of: turned).angle.skew
        let box = PixelBox(
            x: turned.width / 4, y: turned.height / 4, width: turned.width / 2, height: turned.height / 2)
        let levelled = try turned.levelledCrop(box, skew: skew)
        #expect(levelled.width == box.width && levelled.height == box.height)
        let left = try Self.lines(of: levelled).angle.skew
        #expect(abs(left) < Pix.minSkew, "measured \(skew), left \(left)")
    }

    @Test func theLineHeightCountsLettersAcrossTheLineWhateverTheSlant() throws {
        let gray = try Self.storedGray("0012_pdfpage.jpg")
        let flat = try #require(try Self.lines(of: gray).height)
        let turned = try #require(try Self.lines(of: try gray.rotated(counterclockwiseBy: 12 * .pi / 180)).height)
        #expect(abs(turned - flat) <= 0.25 * flat, "flat \(flat), turned \(turned)")
    }
}

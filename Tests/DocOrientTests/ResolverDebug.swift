import Foundation
import Testing

@testable import DocOrient

/// Writes the analysis image and its text windows as PNGs to /tmp/resolver-debug-*, for one file
/// named by DOCORIENT_DEBUG_FILE. Off otherwise.
struct ResolverDebug {
    static var file: String? { ProcessInfo.processInfo.environment["DOCORIENT_DEBUG_FILE"] }

    @Test(.enabled(if: file != nil))
    func dumpAnalysisImage() throws {
        let path = try #require(Self.file)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let metadata = try ImageMetadata.read(bytes)
        let calibration = Calibration.embedded
        let clock = ContinuousClock()
        let start = clock.now
        let analysis = try AnalysisImage.make(
            bytes: bytes, metadata: metadata, maxPixels: 100_000_000, parameters: calibration.analysis)
        print("analysis \(clock.now - start): \(analysis.binary.width)x\(analysis.binary.height) text \(analysis.textHeight) glyphs \(analysis.glyphs.count) pairs \(analysis.horizontalPairs)/\(analysis.verticalPairs)")
        analysis.binary.writeDebugPNG("/tmp/resolver-debug-binary.png")
        let c = calibration.cascade
        let windows = analysis.textWindows(count: c.maxWindows, sideInTextHeights: c.windowSideInTextHeights, minGlyphs: c.windowMinGlyphs)
        let engine = try TesseractEngine(datapath: "/usr/share/tesseract-ocr/5/tessdata", languages: "eng")
        for (i, w) in windows.enumerated() {
            let crop = try analysis.binary.cropped(to: w)
            crop.writeDebugPNG("/tmp/resolver-debug-window\(i).png")
            for o in [Orientation.identity, .rotate90, .rotate180, .rotate270] {
                var view = try crop.rotated(quarterTurns: o.quarterTurns)
                view.setResolution(300)
                let t0 = clock.now
                let words = try engine.recognize(view, mode: .singleBlock, deadlineMilliseconds: nil)
                print("window \(i) \(w) as \(o.exifValue): \(clock.now - t0) \(words.map { "\($0.text)/\(Int($0.confidence))\($0.isFromDictionary ? "d" : "")" }.joined(separator: " "))")
                _ = view
            }
        }
    }
}

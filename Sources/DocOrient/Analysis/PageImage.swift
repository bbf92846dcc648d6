// The page for the page stage's coarse look: the paper (found by the probe), or the whole frame,
// light corrected, left grey for Tesseract's own thresholding.

extension AnalysisImage {
    /// The paper alone, as light-corrected grey with a long side of `longSide` (enlarging the
    /// stored pixels at most `maxUpscale` times), for the page stage (the resolver's
    /// `PageParameters` choose the sizes). Not binarised: Tesseract thresholds it itself.
    /// - Parameter skew: the lines' slant (`AnalysisImage.skew`): the page is levelled by it.
    /// - Parameter backgroundTile: tile of the background normalisation, in page-image pixels.
    static func page(
        source: borrowing GraySource, paper: PixelBox, skew: Double = 0, longSide: Int, maxUpscale: Double,
        backgroundTile: Int
    ) throws -> Pix {
        let storedLongSide = max(source.storedWidth, source.storedHeight)
        let paperLongSide = Double(max(paper.width, paper.height))
        let scale = min(Double(longSide) / paperLongSide, maxUpscale)
        let gray = try source.gray(longSide: Int((Double(storedLongSide) * min(1, scale)).rounded(.up)))
        let k = Double(gray.width) / Double(source.storedWidth)
        var part = try gray.cropped(
            to: PixelBox(
                x: Int(Double(paper.x) * k), y: Int(Double(paper.y) * k),
                width: Int(Double(paper.width) * k), height: Int(Double(paper.height) * k)))
        let resize = scale / k
        if abs(resize - 1) > 0.05 { part = try part.scaled(by: resize) }
        if abs(skew) >= Pix.minSkew { part = try part.rotated(counterclockwiseBy: skew) }
        let page = try part.backgroundNormalized(tile: backgroundTile)
        page.setResolution(300)
        return page
    }
}

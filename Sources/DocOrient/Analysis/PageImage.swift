// The whole page for the full-page stage: the paper cropped from the table, light corrected,
// left grey for Tesseract's own thresholding.

extension AnalysisImage {
    /// The paper alone, as light-corrected grey with a long side of `longSide` (enlarging the
    /// stored pixels at most `maxUpscale` times), for the full-page stage (see `PageParameters`).
    /// Not binarised: Tesseract thresholds it itself.
    static func page(
        bytes: [UInt8], metadata: ImageMetadata, maxPixels: Int, parameters p: PageParameters
    ) throws -> Pix {
        let source = try GraySource(bytes: bytes, format: metadata.format, maxPixels: maxPixels)
        let storedLongSide = max(source.storedWidth, source.storedHeight)
        // The paper: the largest bright region of a thumbnail. A dark table around a small page
        // would otherwise take the threshold, and the page's faint text would vanish into white.
        let thumb = try source.gray(longSide: min(storedLongSide, 400))
        let thumbScale = Double(source.storedWidth) / Double(thumb.width)
        let bright = try thumb.thresholded(try thumb.otsuThreshold()).inverted()
        var paper = PixelBox(x: 0, y: 0, width: source.storedWidth, height: source.storedHeight)
        if let largest = try bright.componentBoxes().max(by: { $0.area < $1.area }),
            Double(largest.area) >= 0.05 * Double(thumb.width * thumb.height)
        {
            let margin = 2
            let x0 = max(0, largest.x - margin), y0 = max(0, largest.y - margin)
            let x1 = min(thumb.width, largest.maxX + margin), y1 = min(thumb.height, largest.maxY + margin)
            paper = PixelBox(
                x: Int(Double(x0) * thumbScale), y: Int(Double(y0) * thumbScale),
                width: Int(Double(x1 - x0) * thumbScale), height: Int(Double(y1 - y0) * thumbScale))
        }
        let paperLongSide = Double(max(paper.width, paper.height))
        let scale = min(Double(p.longSide) / paperLongSide, p.maxUpscale)
        let gray = try source.gray(longSide: Int((Double(storedLongSide) * min(1, scale)).rounded(.up)))
        let k = Double(gray.width) / Double(source.storedWidth)
        var part = try gray.cropped(
            to: PixelBox(
                x: Int(Double(paper.x) * k), y: Int(Double(paper.y) * k),
                width: Int(Double(paper.width) * k), height: Int(Double(paper.height) * k)))
        let resize = scale / k
        if abs(resize - 1) > 0.05 { part = try part.scaled(by: resize) }
        let page = try part.backgroundNormalized(tile: p.backgroundTile)
        page.setResolution(300)
        return page
    }
}

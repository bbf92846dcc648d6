// The small binary image the resolver reads: decoded small and grey, light corrected, binarised
// once, at a scale chosen from the size of the text rather than the size of the file.

/// How the analysis image is made. Values come from `Calibration` (Models/calibration.json).
struct AnalysisParameters: Sendable, Codable, Equatable {
    /// Long side of the first, exploratory decode.
    var firstPassLongSide: Int
    /// Median character height (pixels) Tesseract reads best at; the image is rescaled towards it.
    var targetTextHeight: Double
    /// Rescale only when the measured height falls outside this band.
    var minTextHeight: Double
    var maxTextHeight: Double
    /// Ink threshold (0...255, paper at 200) of the first pass, which only measures the text.
    var probeThreshold: Int
    /// Largest enlargement over the stored pixels, for fine print.
    var maxUpscale: Double
    /// Sauvola window half-size, in character heights.
    var sauvolaWindowInTextHeights: Double
    /// Sauvola's k.
    var sauvolaFactor: Double
}

/// One character-like mark on the page, in analysis-image pixels.
struct Glyph: Sendable, Equatable {
    var box: PixelBox
    var centerX: Double { Double(box.x) + Double(box.width) / 2 }
    var centerY: Double { Double(box.y) + Double(box.height) / 2 }
}

extension [Glyph] {
    /// The smallest box holding every glyph, as (x0, y0, x1, y1); nil when there are none.
    var extent: (x0: Int, y0: Int, x1: Int, y1: Int)? {
        guard let first else { return nil }
        var e = (x0: first.box.x, y0: first.box.y, x1: first.box.maxX, y1: first.box.maxY)
        for g in self {
            e = (Swift.min(e.x0, g.box.x), Swift.min(e.y0, g.box.y), Swift.max(e.x1, g.box.maxX), Swift.max(e.y1, g.box.maxY))
        }
        return e
    }
}

/// The binarised page in stored orientation plus what was measured on it.
///
/// Owns its Leptonica image: not copyable, used by one thread.
struct AnalysisImage: ~Copyable {
    /// 1 bpp, ink = 1, stored orientation; components far too large or small to be text removed.
    let binary: Pix
    /// Median height of the glyphs, in `binary` pixels.
    let textHeight: Double
    /// Character-like components (with an aligned neighbour of similar size).
    let glyphs: [Glyph]
    /// Glyph pairs side by side along stored x and along stored y: which way the text lines run.
    let horizontalPairs: Int
    let verticalPairs: Int
    /// Analysis pixels per stored pixel (the image covers only the region with text).
    let scale: Double
}

extension AnalysisImage {
    /// Builds the analysis image from a file's bytes, refusing frames over `maxPixels` before
    /// allocating them. JPEG is DCT-scaled while decoding; PNG and TIFF are decoded by Leptonica.
    static func make(
        bytes: [UInt8], metadata: ImageMetadata, maxPixels: Int, parameters p: AnalysisParameters
    ) throws -> AnalysisImage {
        guard metadata.width > 0, metadata.height > 0 else {
            throw DocOrientError(.malformed, "the image has no pixels")
        }
        guard metadata.width.multipliedReportingOverflow(by: metadata.height).partialValue <= maxPixels,
            metadata.width <= maxPixels, metadata.height <= maxPixels
        else {
            throw DocOrientError(
                .limitExceeded,
                "the image is \(metadata.width)x\(metadata.height), over the limit of \(maxPixels) pixels")
        }
        let storedLongSide = max(metadata.width, metadata.height)
        let source = try GraySource(bytes: bytes, format: metadata.format, maxPixels: maxPixels)

        // Pass 1: a modest size, only to measure the text and find where it is.
        let first = try source.gray(longSide: min(storedLongSide, p.firstPassLongSide))
        let firstScale = Double(first.width) / Double(source.storedWidth)
        // A fixed threshold on the normalised page: enough to measure the text, and unlike a local
        // threshold it does not turn paper grain and sensor noise into specks that pair up.
        let probe = try first.backgroundNormalized(tile: max(16, first.width / 30)).thresholded(p.probeThreshold)
        let measured = measureGlyphs(try probe.componentBoxes())
        guard let firstHeight = measured.textHeight, let bounds = measured.bounds(margin: 3 * firstHeight) else {
            return try finish(probe, textHeight: p.targetTextHeight, scale: firstScale, parameters: p)
        }

        // Pass 2: only the region with text, at a scale where the text (not the file) has the
        // size Tesseract reads well: fine print is enlarged (up to maxUpscale), posters shrunk.
        var scale = firstScale
        if firstHeight < p.minTextHeight || firstHeight > p.maxTextHeight {
            scale = min(p.maxUpscale, firstScale * p.targetTextHeight / firstHeight)
        }
        let gray = try source.gray(longSide: Int((Double(storedLongSide) * min(1, scale)).rounded(.up)))
        let grayScale = Double(gray.width) / Double(source.storedWidth)
        let k = grayScale / firstScale
        let region = PixelBox(
            x: Int(Double(bounds.x) * k), y: Int(Double(bounds.y) * k),
            width: Int(Double(bounds.width) * k), height: Int(Double(bounds.height) * k))
        var part = try gray.cropped(to: region)
        let resize = scale / grayScale
        if abs(resize - 1) > 0.08 { part = try part.scaled(by: resize) }
        let partScale = grayScale * Double(part.width) / Double(max(1, min(region.width, gray.width - region.x)))
        let height = firstHeight * partScale / firstScale
        let binary = try binarize(part, textHeight: height, parameters: p)
        return try finish(
            binary, textHeight: height, scale: partScale, parameters: p)
    }

    /// Keeps the marks that can be characters (drops speckle, page edges, table texture, photos)
    /// and measures the glyphs on what is left.
    private static func finish(
        _ binary: consuming Pix, textHeight h: Double, scale: Double, parameters p: AnalysisParameters
    ) throws -> AnalysisImage {
        let h = max(4, h)
        let cleaned = try binary.keepingComponents(
            minSide: max(2, Int(h * 0.25)), maxWidth: Int(h * 6), maxHeight: Int(h * 3))
        let glyphs = measureGlyphs(try cleaned.componentBoxes())
        return AnalysisImage(
            binary: cleaned, textHeight: glyphs.textHeight ?? h, glyphs: glyphs.glyphs,
            horizontalPairs: glyphs.horizontalPairs, verticalPairs: glyphs.verticalPairs, scale: scale)
    }

    /// Background normalisation, then Sauvola over a window sized to the text.
    private static func binarize(_ gray: borrowing Pix, textHeight h: Double, parameters p: AnalysisParameters)
        throws -> Pix
    {
        let normalized = try gray.backgroundNormalized(tile: max(16, Int(h * 4)))
        let half = max(7, Int(h * p.sauvolaWindowInTextHeights))
        return try normalized.sauvolaBinarized(halfWindow: half, factor: p.sauvolaFactor)
    }

    /// Glyph statistics from component boxes.
    struct GlyphMeasure {
        var glyphs: [Glyph]
        var textHeight: Double?
        var horizontalPairs: Int
        var verticalPairs: Int

        /// The box around all glyphs, grown by `margin` on every side (not clipped).
        func bounds(margin: Double) -> PixelBox? {
            guard let (x0, y0, x1, y1) = glyphs.extent else { return nil }
            let m = Int(margin)
            return PixelBox(x: max(0, x0 - m), y: max(0, y0 - m), width: x1 - max(0, x0 - m) + m, height: y1 - max(0, y0 - m) + m)
        }
    }

    /// Finds the components that sit next to one of similar size, as letters in a word do, and
    /// measures their height. Text lines run the way most such pairs run.
    static func measureGlyphs(_ boxes: [PixelBox]) -> GlyphMeasure {
        let marks = boxes.filter { $0.height >= 3 && $0.width >= 1 && $0.width <= 3 * $0.height + 4 && $0.height <= 400 }
        guard marks.count >= 2 else { return GlyphMeasure(glyphs: [], textHeight: nil, horizontalPairs: 0, verticalPairs: 0) }
        // A coarse grid over the box centres keeps the neighbour search linear.
        let cell = 64
        var grid: [Int: [Int]] = [:]
        for (i, b) in marks.enumerated() {
            grid[key(b.x / cell, b.y / cell), default: []].append(i)
        }
        var isGlyph = [Bool](repeating: false, count: marks.count)
        var horizontal = 0
        var vertical = 0
        for (i, a) in marks.enumerated() {
            let size = max(a.width, a.height)
            let reach = max(1, (size + size / 2) / cell + 1)
            for gx in (a.x / cell - reach)...(a.x / cell + reach) {
                for gy in (a.y / cell - reach)...(a.y / cell + reach) {
                    guard let list = grid[key(gx, gy)] else { continue }
                    for j in list where j > i {
                        let b = marks[j]
                        switch pairing(a, b) {
                        case .horizontal:
                            horizontal += 1
                            isGlyph[i] = true
                            isGlyph[j] = true
                        case .vertical:
                            vertical += 1
                            isGlyph[i] = true
                            isGlyph[j] = true
                        case nil: break
                        }
                    }
                }
            }
        }
        let glyphs = marks.indices.filter { isGlyph[$0] }.map { Glyph(box: marks[$0]) }
        guard glyphs.count >= 2 else {
            return GlyphMeasure(glyphs: [], textHeight: nil, horizontalPairs: horizontal, verticalPairs: vertical)
        }
        // Text height is measured across the line: along y for horizontal lines, along x for vertical.
        let across = glyphs.map { horizontal >= vertical ? $0.box.height : $0.box.width }.sorted()
        let median = Double(across[across.count / 2])
        return GlyphMeasure(
            glyphs: glyphs, textHeight: median, horizontalPairs: horizontal, verticalPairs: vertical)
    }

    private static func key(_ x: Int, _ y: Int) -> Int { (x &* 73_856_093) ^ (y &* 19_349_663) }

    private enum Pairing { case horizontal, vertical }

    /// Two marks are letters of one line when they have about the same size across the line,
    /// overlap mostly across it, and leave only a small gap along it.
    private static func pairing(_ a: PixelBox, _ b: PixelBox) -> Pairing? {
        func similar(_ u: Int, _ v: Int) -> Bool {
            let lo = Double(min(u, v)), hi = Double(max(u, v))
            return lo >= 0.6 * hi
        }
        func overlap(_ a0: Int, _ a1: Int, _ b0: Int, _ b1: Int) -> Int { max(0, min(a1, b1) - max(a0, b0)) }
        // Side by side along x.
        if similar(a.height, b.height) {
            let shared = overlap(a.y, a.maxY, b.y, b.maxY)
            let gap = max(a.x, b.x) - min(a.maxX, b.maxX)
            let h = max(a.height, b.height)
            if Double(shared) >= 0.7 * Double(h), gap >= 0, Double(gap) <= 0.35 * Double(h) { return .horizontal }
        }
        // Side by side along y.
        if similar(a.width, b.width) {
            let shared = overlap(a.x, a.maxX, b.x, b.maxX)
            let gap = max(a.y, b.y) - min(a.maxY, b.maxY)
            let w = max(a.width, b.width)
            if Double(shared) >= 0.7 * Double(w), gap >= 0, Double(gap) <= 0.35 * Double(w) { return .vertical }
        }
        return nil
    }
}

/// Where grey pixels come from: TurboJPEG for JPEG (DCT-scaled, never larger than needed),
/// Leptonica for PNG and TIFF (decoded once, then area-scaled).
enum GraySource: ~Copyable {
    case jpeg(bytes: [UInt8], width: Int, height: Int, maxPixels: Int)
    case decoded(Pix)

    init(bytes: [UInt8], format: ImageFormat, maxPixels: Int) throws {
        switch format {
        case .jpeg:
            let header = try TurboJPEG.header(bytes)
            self = .jpeg(bytes: bytes, width: header.width, height: header.height, maxPixels: maxPixels)
        case .png, .tiff:
            let decoded = try Pix.decode(bytes)
            guard decoded.width.multipliedReportingOverflow(by: decoded.height).partialValue <= maxPixels else {
                throw DocOrientError(.limitExceeded, "the image is over the limit of \(maxPixels) pixels")
            }
            self = .decoded(try decoded.gray8())
        }
    }

    var storedWidth: Int {
        switch self {
        case .jpeg(_, let width, _, _): return width
        case .decoded(let pix): return pix.width
        }
    }

    var storedHeight: Int {
        switch self {
        case .jpeg(_, _, let height, _): return height
        case .decoded(let pix): return pix.height
        }
    }

    /// Grey pixels with a long side of at least `longSide` (JPEG: the next DCT scale up).
    func gray(longSide: Int) throws -> Pix {
        switch self {
        case .jpeg(let bytes, _, _, let maxPixels):
            return try Pix.gray(TurboJPEG.decodeGray(bytes, minimumLongSide: longSide, maxPixels: maxPixels))
        case .decoded(let full):
            let factor = Double(longSide) / Double(max(full.width, full.height))
            return try full.scaled(by: min(1, factor))
        }
    }
}

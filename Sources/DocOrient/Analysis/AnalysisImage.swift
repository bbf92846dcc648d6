import Foundation

// The text the resolver reads: square windows over the densest text, or the page's longest text
// lines, found on a small probe, cut at a scale chosen from the size of the text rather than the
// size of the file, light corrected, and binarised once (for measuring).

/// The densest text of the page, light corrected, in stored orientation, plus what was measured on it.
///
/// Only the text windows are ever prepared at reading size: the whole page is seen only at the
/// probe's size, where finding and measuring the text is cheap.
/// Owns its Leptonica images: not copyable, used by one thread.
struct AnalysisImage: ~Copyable {
    /// The text windows stacked top to bottom as Tesseract reads them: 8 bpp grey, the paper
    /// evened out to 200, stored orientation, letters about `targetTextHeight` high. Grey rather
    /// than binary: Tesseract's LSTM reads the grey line images it is given, and blurred or faded
    /// strokes that a threshold breaks or merges still read (seed 1: 287 -> 288 of 291 right, seed 7
    /// 176 -> 178 of 182, and fewer reads, since upright text reads as plain text sooner).
    let readable: Pix
    /// The same windows binarised (1 bpp, ink = 1), components far too large or small to be text
    /// removed: for Leptonica's uprightness, which counts ascenders and descenders on binary text.
    let strip: Pix
    /// Each window's box in `readable` and `strip`, densest first.
    let windows: [PixelBox]
    /// Median height of the glyphs, in window pixels.
    let textHeight: Double
    /// Character-like components found by the probe (with an aligned neighbour of similar size).
    let glyphs: Int
    /// The paper (the whole frame when none stands out from the table), in stored pixels.
    let paper: PixelBox
    /// How far the page's text lines slant clockwise from the stored axis nearest to them
    /// (radians, `LineAngle.skew`), 0 when no direction was found.
    var skew: Double = 0
    /// Glyph pairs side by side along stored x and along stored y: which way the text lines run.
    /// For an image of text lines, the marks of the lines along each axis.
    let horizontalPairs: Int
    let verticalPairs: Int
    /// For windows that are text lines, whether each runs along stored x (else along y); empty
    /// when the windows are squares of text, read in every orientation.
    var windowAlongX: [Bool] = []
}

/// Which text windows to cut from the page.
struct WindowRequest: Sendable, Equatable {
    /// At most this many windows, densest first.
    var count: Int
    /// Side of the square window, in text heights.
    var sideInTextHeights: Double
    /// Windows holding fewer glyphs are left out.
    var minGlyphs: Int
    /// Each window is read in this many parts, cut across the text lines (1: whole).
    var parts: Int = 1
}

extension AnalysisImage {
    /// The text lines of the page (`GlyphMeasure.textLines(page:)`), the `count` longest, cut
    /// level and each scaled to its own letter size (`lineImage`); nil when the survey found none.
    static func lines(
        source: borrowing GraySource, survey: Survey, parameters p: AnalysisParameters, count: Int
    ) throws -> AnalysisImage? {
        guard let probe = survey.linesProbe, let direction = probe.measure.pageLines else { return nil }
        let lines = Array(probe.measure.textLines(page: direction).prefix(count))
        guard !lines.isEmpty else { return nil }
        return try lineImage(lines, source: source, probe: probe, parameters: p)
    }

    /// Finds the text on a small probe decode, then cuts the densest `request.count` windows from a
    /// decode at the size where the text (not the file) has the height Tesseract reads well (fine
    /// print enlarged up to `maxUpscale`, posters shrunk) and binarises only those. Refuses frames
    /// over `maxPixels` before allocating them. JPEG is DCT-scaled while decoding; PNG and TIFF are
    /// decoded by Leptonica.
    /// - Parameter survey: the probes, when the caller made them already.
    static func make(
        source: borrowing GraySource, parameters p: AnalysisParameters, windows request: WindowRequest,
        survey: Survey? = nil
    ) throws -> AnalysisImage {
        let probe = try (survey ?? Survey(source: source, parameters: p, lines: false)).probe(
            source: source, parameters: p)
        let measure = probe.measure
        guard let glyphHeight = measure.textHeight else {
            return AnalysisImage(
                readable: try Pix.blank(width: 1, height: 1, depth: 8),
                strip: try Pix.blank(width: 1, height: 1, depth: 1), windows: [], textHeight: 0, glyphs: 0,
                paper: probe.storedPaper, horizontalPairs: measure.horizontalPairs, verticalPairs: measure.verticalPairs
            )
        }
        // Twice as many candidates as wanted: a window whose marks do not survive binarisation
        // at reading size as glyphs (texture, a photo, a barcode) gives way to the next.
        var wider = request
        wider.count *= candidateWindowsFactor
        // The glyph pairs' height, unless the marks along the page's lines say otherwise by more
        // than the factor of two between a line's x-height and its capitals: then the pairs
        // measured something else (a heading, where blur ran the body's letters together). Marks
        // under `minProbeTextHeight`, the least the probe measures, do not count.
        var probeHeight = glyphHeight
        if let line = measure.lineHeight(atLeast: p.minProbeTextHeight),
            line > lineHeightDisagreement * glyphHeight || glyphHeight > lineHeightDisagreement * line
        {
            probeHeight = line
        }
        // Windows over the text of the page's majority direction: a minority at a quarter turn
        // (tear-off tabs, a margin note) is not read, and so cannot decide.
        let pageLines = measure.pageLines
        var textGlyphs = measure.glyphs
        if let pageLines, case let aligned = measure.glyphs(alongLinesAt: pageLines.radians),
            aligned.count >= request.minGlyphs
        {
            textGlyphs = aligned
        }
        let boxes = densestWindows(
            of: textGlyphs, width: probe.width, height: probe.height, textHeight: probeHeight, wider)
        guard !boxes.isEmpty else {
            return AnalysisImage(
                readable: try Pix.blank(width: 1, height: 1, depth: 8),
                strip: try Pix.blank(width: 1, height: 1, depth: 1), windows: [], textHeight: probeHeight / probe.scale,
                glyphs: measure.glyphs.count, paper: probe.storedPaper, horizontalPairs: measure.horizontalPairs,
                verticalPairs: measure.verticalPairs)
        }

        // Reading size: analysis pixels per stored pixel.
        let storedHeight = probeHeight / probe.scale
        var scale = 1.0
        if storedHeight < p.minTextHeight || storedHeight > p.maxTextHeight {
            scale = min(p.maxUpscale, p.targetTextHeight / storedHeight)
        }
        let height = storedHeight * scale

        // The windows are cut from the full image and each rescaled on its own (scaling the whole
        // photo first would cost more than the rest of the analysis), light corrected and binarised
        // on its own and pasted under the previous one into the strips, sized generously first and
        // cut to what was used.
        let k = 1 / probe.scale
        let alongX = measure.horizontalPairs >= measure.verticalPairs
        let crops = boxes.map { box in
            PixelBox(
                x: Int(Double(box.x) * k), y: Int(Double(box.y) * k),
                width: Int(Double(box.width) * k), height: Int(Double(box.height) * k))
        }
        let room = max(1, scale) * stripRoom + windowStripExtraRoom
        let stripWidth = Int(Double(crops.map(\.width).max()!) * room) + stripMargin
        let stripHeight =
            Int(Double(crops.map(\.height).sorted(by: >).prefix(request.count).reduce(0, +)) * room) + stripMargin
        let strip = try Pix.blank(width: stripWidth, height: stripHeight, depth: 1)
        let readable = try Pix.blank(width: stripWidth, height: stripHeight, depth: 8)
        readable.fill(gray: paperGray)
        var placed: [PixelBox] = []
        var y = 0
        // Each window levelled by the slant of its own lines (a curled or keystoned page slants
        // differently across the page), else of the page's: a hand-held photo's lines slant by
        // 5-15 degrees, and Tesseract reads a window of them as noise until they are level
        // (0237_letter of the seed-23 set, a window read upright: 26 words, all noise, against
        // 75 plain ones levelled).
        let pageSkew = pageLines?.skew
        let skews = boxes.map { measure.lineAngle(in: $0)?.skew ?? pageSkew ?? 0 }
        func place(checkingGlyphs: Bool) throws {
            for (crop, skew) in zip(crops, skews) {
                let normalized = try readingCrop(
                    of: source.full, crop, skew: skew, scale: scale, textHeight: height)
                let window = try clean(
                    try binarize(normalized, probeThreshold: probe.threshold, parameters: p), textHeight: height,
                    alongX: alongX)
                if checkingGlyphs, measureGlyphs(try window.componentBoxes()).glyphs.count < request.minGlyphs {
                    continue
                }
                strip.paste(window, x: 0, y: y)
                readable.paste(normalized, x: 0, y: y)
                placed.append(PixelBox(x: 0, y: y, width: window.width, height: window.height))
                y += window.height
                if placed.count == request.count { break }
            }
        }
        try place(checkingGlyphs: true)
        if placed.isEmpty, measure.isConvincing(p) {
            // The probe found text beyond doubt, but no window keeps its letters apart at reading
            // size (blurred print merges them into words): read the densest windows as they are.
            try place(checkingGlyphs: false)
        }
        let used = PixelBox(x: 0, y: 0, width: placed.map(\.width).max() ?? 1, height: max(1, y))
        // Parts of a window: a few whole lines each, cut across the lines (the way most glyph
        // pairs run), so that one part may already decide at a fraction of the cost.
        let parts = placed.flatMap { w -> [PixelBox] in
            let n = max(1, request.parts)
            return (0..<n).map { i in
                alongX
                    ? PixelBox(
                        x: w.x, y: w.y + w.height * i / n, width: w.width,
                        height: w.height * (i + 1) / n - w.height * i / n)
                    : PixelBox(
                        x: w.x + w.width * i / n, y: w.y, width: w.width * (i + 1) / n - w.width * i / n,
                        height: w.height)
            }
        }
        return AnalysisImage(
            readable: try readable.cropped(to: used), strip: try strip.cropped(to: used), windows: parts,
            textHeight: height,
            glyphs: measure.glyphs.count, paper: probe.storedPaper, skew: pageSkew ?? 0,
            horizontalPairs: measure.horizontalPairs, verticalPairs: measure.verticalPairs)
    }

    /// How many times as many candidate windows as wanted `make` finds: twice, so that a window
    /// whose marks do not survive binarisation at reading size as glyphs (texture, a photo, a
    /// barcode) gives way to the next. The factor was chosen by hand in session 2 (11e41bd); not
    /// fitted.
    static let candidateWindowsFactor = 2

    /// Ratio of heights by which the marks along the page's lines must disagree with the glyph
    /// pairs before their height is taken instead: two, the factor between a line's x-height and
    /// its capitals; a larger disagreement means the pairs measured something else (a heading,
    /// where blur ran the body's letters together). Session 8 (6dcfeec).
    static let lineHeightDisagreement = 2.0

    /// Room the strips of windows and of lines are allocated with, as a factor of the size
    /// expected of them (both are cut to what was used afterwards; a line that does not fit its
    /// strip is left out): a tenth more. Chosen by hand in session 2 (11e41bd, windows) and kept
    /// for the lines in session 11 (30c31c6); not fitted.
    static let stripRoom = 1.1
    /// Added to the windows' room factor: a hundredth. Chosen by hand in session 2 (11e41bd); not
    /// fitted.
    static let windowStripExtraRoom = 0.01
    /// Pixels added to a strip's width and height, and to each line's thickness in it, beyond the
    /// room: two. Chosen by hand in session 2 (11e41bd, windows) and session 11 (30c31c6, lines);
    /// not fitted.
    static let stripMargin = 2

    /// The part of `gray` in `box`, its lines turned level by `skew`, scaled by `scale` (left as
    /// it is within 8%), light corrected with background tiles of four letter heights
    /// (`textHeight`, after scaling): what Tesseract reads, in windows and lines alike.
    private static func readingCrop(
        of gray: borrowing Pix, _ box: PixelBox, skew: Double, scale: Double, textHeight: Double
    ) throws -> Pix {
        var part = try gray.levelledCrop(box, skew: skew)
        if abs(scale - 1) > unscaledWithin { part = try part.scaled(by: scale) }
        return try part.backgroundNormalized(
            tile: max(minBackgroundTile, Int(textHeight * backgroundTileInTextHeights)), background: paperGray)
    }

    /// A reading crop whose scale is within this fraction of 1 (8%) is read at its stored size,
    /// not resampled. Chosen by hand in session 1 (365b386); not fitted.
    static let unscaledWithin = 0.08
    /// Side of a reading crop's background tiles, in text heights after scaling: four, larger
    /// than the letters (the reason `lineImage` gives for its band). Chosen by hand in session 1
    /// (aaf9fe7); not fitted.
    static let backgroundTileInTextHeights = 4.0
    /// Smallest background tile, in pixels, that a reading crop's or a probe's light correction
    /// asks for (`Pix.backgroundNormalized` shrinks it further, to 4 at least, on an image too
    /// small to hold six tiles each way). Chosen by hand in session 1 (aaf9fe7); not fitted.
    static let minBackgroundTile = 16

    /// The analysis image of text lines: each line cut level from the stored pixels, scaled so
    /// that its marks are `targetTextHeight` high (within `maxUpscale`), light corrected on a
    /// band a dozen heights wide around it (so that the background tiles are larger than its
    /// letters). Lines along stored x are stacked top to bottom, those along stored y side by side
    /// below them.
    private static func lineImage(
        _ lines: [TextLine], source: borrowing GraySource, probe: Probe, parameters p: AnalysisParameters
    ) throws -> AnalysisImage {
        let k = 1 / probe.scale
        let storedLongSide = max(source.storedWidth, source.storedHeight)
        struct Cut {
            var box: PixelBox
            var reduction: Int
            var rest: Double
            var readingHeight: Double
            var thickness: Double
            var length: Double
            var direction: LineAngle
        }
        let cuts = lines.map { line -> Cut in
            let height = line.markHeight * k
            let scale = min(p.maxUpscale, p.targetTextHeight / height)
            // Large letters are cut from a halved image (Leptonica's cheap reductions): the
            // turn and the light correction then work on a few hundred thousand pixels.
            var reduction = 1
            while reduction < maxLineReduction, scale * Double(reduction * 2) <= 1 { reduction *= 2 }
            let r = 1 / Double(reduction)
            let length = min(line.length, TextLine.maxReadLength * line.markHeight) * k * r
            let thickness = line.thickness * k * r
            let band = max(thickness, lineBandInTextHeights * height * r)
            let (w, h) = line.direction.alongX ? (length, band) : (band, length)
            let box = PixelBox(
                x: Int(line.centerX * k * r - w / 2), y: Int(line.centerY * k * r - h / 2), width: Int(w),
                height: Int(h))
            return Cut(
                box: box, reduction: reduction, rest: scale / r, readingHeight: height * scale,
                thickness: thickness * scale / r, length: length * scale / r, direction: line.direction)
        }
        // Sized generously first and cut to what was used.
        let room = stripRoom
        let rows = cuts.filter(\.direction.alongX)
        let columns = cuts.filter { !$0.direction.alongX }
        let margin = Double(stripMargin)
        let rowsWidth = Int(rows.map { $0.length * room }.max() ?? 0) + stripMargin
        let rowsHeight = Int(rows.map { $0.thickness * room + margin }.reduce(0, +)) + stripMargin
        let columnsWidth = Int(columns.map { $0.thickness * room + margin }.reduce(0, +)) + stripMargin
        let columnsHeight = Int(columns.map { $0.length * room }.max() ?? 0) + stripMargin
        let (stripWidth, stripHeight) = (max(rowsWidth, columnsWidth), rowsHeight + columnsHeight)
        let readable = try Pix.blank(width: stripWidth, height: stripHeight, depth: 8)
        readable.fill(gray: paperGray)
        let strip = try Pix.blank(width: stripWidth, height: stripHeight, depth: 1)
        var placed: [PixelBox] = []
        var alongX: [Bool] = []
        var (rowY, columnX) = (0, 0)
        for cut in cuts {
            let gray = try source.gray(longSide: storedLongSide / cut.reduction)
            let normalized = try readingCrop(
                of: gray, cut.box, skew: cut.direction.skew, scale: cut.rest, textHeight: cut.readingHeight)
            // The line itself, out of its band.
            let rows = cut.direction.alongX
            let lineBox =
                rows
                ? PixelBox(
                    x: 0, y: max(0, Int((Double(normalized.height) - cut.thickness) / 2)),
                    width: normalized.width, height: min(normalized.height, Int(cut.thickness.rounded(.up))))
                : PixelBox(
                    x: max(0, Int((Double(normalized.width) - cut.thickness) / 2)), y: 0,
                    width: min(normalized.width, Int(cut.thickness.rounded(.up))), height: normalized.height)
            let image = try normalized.cropped(to: lineBox)
            let binary = try clean(
                try binarize(image, probeThreshold: probe.threshold, parameters: p), textHeight: cut.readingHeight,
                alongX: rows)
            let (x, y) = rows ? (0, rowY) : (columnX, rowsHeight)
            guard x + image.width <= stripWidth, y + image.height <= stripHeight else { continue }
            readable.paste(image, x: x, y: y)
            strip.paste(binary, x: x, y: y)
            placed.append(PixelBox(x: x, y: y, width: image.width, height: image.height))
            alongX.append(rows)
            if rows { rowY += image.height } else { columnX += image.width }
        }
        let used = PixelBox(
            x: 0, y: 0, width: max(1, placed.map(\.maxX).max() ?? 1), height: max(1, placed.map(\.maxY).max() ?? 1))
        let heights = cuts.map(\.readingHeight).sorted()
        // The marks of the lines along each axis stand for the glyph pairs: which way most of
        // the text runs.
        let marksAlongX = zip(lines, cuts).filter { $0.1.direction.alongX }.map(\.0.marks).reduce(0, +)
        let marksAlongY = lines.map(\.marks).reduce(0, +) - marksAlongX
        var image = AnalysisImage(
            readable: try readable.cropped(to: used), strip: try strip.cropped(to: used), windows: placed,
            textHeight: heights[heights.count / 2],
            glyphs: max(probe.measure.glyphs.count, lines.map(\.marks).reduce(0, +)), paper: probe.storedPaper,
            skew: lines[0].direction.skew, horizontalPairs: marksAlongX, verticalPairs: marksAlongY)
        image.windowAlongX = alongX
        return image
    }

    /// Largest reduction a text line is cut from (1/8): large letters are cut from a halved image
    /// (Leptonica's cheap reductions), so that the turn and the light correction work on a few
    /// hundred thousand pixels. The bound was chosen by hand in session 11 (30c31c6); not fitted.
    static let maxLineReduction = 8
    /// Width of the band a text line is light corrected on, in its letter heights: a dozen, so
    /// that the background tiles are larger than its letters (`Pix.backgroundNormalized` shrinks
    /// a tile until the image holds six each way, which on a band of twelve letter heights, along
    /// a line at least as long, leaves tiles of two). Session 11 (30c31c6).
    static let lineBandInTextHeights = 12.0

    /// Keeps the marks that can be characters (drops speckle, page edges, table texture, photos):
    /// up to six text heights along the lines (blurred letters merge into words) and three across.
    private static func clean(_ binary: consuming Pix, textHeight h: Double, alongX: Bool) throws -> Pix {
        let h = max(cleanMinTextHeight, h)
        let (along, across) = (Int(h * markMaxLengthInTextHeights), Int(h * markMaxThicknessInTextHeights))
        return try binary.keepingComponents(
            minSide: max(markMinSide, Int(h * markMinSideInTextHeights)), maxWidth: alongX ? along : across,
            maxHeight: alongX ? across : along)
    }

    /// Least text height, in pixels, that `clean` sizes its filter for: four. Chosen by hand in
    /// session 1 (aaf9fe7); not fitted.
    static let cleanMinTextHeight = 4.0
    /// Longest a kept component may run along the lines, in text heights: six, since blurred
    /// letters merge into words. The value was chosen by hand in session 1 (aaf9fe7); not fitted.
    static let markMaxLengthInTextHeights = 6.0
    /// Longest a kept component may run across the lines, in text heights: three. Chosen by hand
    /// in session 1 (aaf9fe7); not fitted.
    static let markMaxThicknessInTextHeights = 3.0
    /// Shortest side a kept component may have, in text heights (a quarter) and in pixels (two):
    /// shorter marks are speckle. Chosen by hand in session 1 (aaf9fe7); not fitted.
    static let markMinSideInTextHeights = 0.25
    static let markMinSide = 2

    /// Grey level of the paper once light corrected (`Pix.backgroundNormalized`).
    static let paperGray = 200

    /// One Otsu threshold for a light-corrected window (bounded by the probe's). A window is a
    /// few lines of text under nearly even light once normalised: a global threshold keeps thin,
    /// faint or blurred strokes whole where Sauvola's local one broke them into specks.
    private static func binarize(
        _ normalized: borrowing Pix, probeThreshold: Int, parameters p: AnalysisParameters
    ) throws -> Pix {
        let otsu = try normalized.otsuThreshold()
        return try normalized.thresholded(
            min(max(otsu, probeThreshold - p.windowThresholdBelowProbe), p.windowMaxThreshold))
    }
}

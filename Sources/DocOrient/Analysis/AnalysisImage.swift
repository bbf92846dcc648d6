import Foundation

// The text the resolver reads: square windows over the densest text, or the page's longest text
// lines, found on a small probe, cut at a scale chosen from the size of the text rather than the
// size of the file, light corrected, and binarised once (for measuring).

/// The densest text of the page, light corrected, in stored orientation, plus what was measured on it.
///
/// Only the text windows are ever prepared at reading size: the whole page is seen only at the
/// probe's size, where finding and measuring the text is cheap.
/// Owns its Leptonica images: not copyable, used by one thread.
package struct AnalysisImage: ~Copyable {
    /// The text windows stacked top to bottom as Tesseract reads them: 8 bpp grey, the paper evened
    /// out to 200, stored orientation, letters about `targetTextHeight` high. Grey rather than
    /// binary: Tesseract's LSTM reads the grey line images it is given, and blurred or faded
    /// strokes that a threshold breaks or merges still read; upright text then reads as plain text
    /// sooner (decision 1).
    package let readable: Pix
    /// The same windows binarised (1 bpp, ink = 1), components far too large or small to be text
    /// removed: for Leptonica's uprightness, which counts ascenders and descenders on binary text.
    package let strip: Pix
    /// Each window's box in `readable` and `strip`, densest first.
    package let windows: [PixelBox]
    /// Median height of the glyphs, in window pixels.
    package let textHeight: Double
    /// Character-like components found by the probe (with an aligned neighbour of similar size).
    package let glyphs: Int
    /// The paper (the whole frame when none stands out from the table), in stored pixels.
    package let paper: PixelBox
    /// How far the page's text lines slant clockwise from the stored axis nearest to them
    /// (radians, `LineAngle.skew`), 0 when no direction was found.
    package var skew: Double = 0
    /// Glyph pairs side by side along stored x and along stored y: which way the text lines run.
    /// For an image of text lines, the marks of the lines along each axis.
    package let horizontalPairs: Int
    package let verticalPairs: Int
    /// For windows that are text lines, whether each runs along stored x (else along y); empty
    /// when the windows are squares of text, read in every orientation.
    package var windowAlongX: [Bool] = []
}

/// Which text windows to cut from the page.
package struct WindowRequest: Sendable, Equatable {
    /// At most this many windows, densest first.
    var count: Int
    /// Side of the square window, in text heights.
    var sideInTextHeights: Double
    /// Windows holding fewer glyphs are left out.
    var minGlyphs: Int
    /// Each window is read in this many parts, cut across the text lines (1: whole).
    var parts: Int = 1

    package init(count: Int, sideInTextHeights: Double, minGlyphs: Int, parts: Int = 1) {
        self.count = count
        self.sideInTextHeights = sideInTextHeights
        self.minGlyphs = minGlyphs
        self.parts = parts
    }
}

extension AnalysisImage {
    /// The text lines of the page (`GlyphMeasure.textLines(page:)`), the `count` longest, cut
    /// level and each scaled to its own letter size (`lineImage`); nil when the survey found none.
    package static func lines(
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
    package static func make(
        source: borrowing GraySource, parameters p: AnalysisParameters, windows request: WindowRequest,
        survey: Survey? = nil
    ) throws -> AnalysisImage {
        let probe = try (survey ?? Survey(source: source, parameters: p, lines: false)).probe(
            source: source, parameters: p)
        let measure = probe.measure
        guard let glyphHeight = measure.textHeight else { return try withoutWindows(probe, textHeight: 0, glyphs: 0) }
        let probeHeight = probeTextHeight(measure, glyphHeight: glyphHeight, parameters: p)
        // Twice as many candidates as wanted: a window whose marks do not survive binarisation
        // at reading size as glyphs (texture, a photo, a barcode) gives way to the next.
        var wider = request
        wider.count *= candidateWindowsFactor
        let boxes = densestWindows(
            of: majorityGlyphs(measure, atLeast: request.minGlyphs), width: probe.width, height: probe.height,
            textHeight: probeHeight, wider)
        guard !boxes.isEmpty else {
            return try withoutWindows(probe, textHeight: probeHeight / probe.scale, glyphs: measure.glyphs.count)
        }

        // Reading size: analysis pixels per stored pixel.
        let storedHeight = probeHeight / probe.scale
        var scale = 1.0
        if storedHeight < p.minTextHeight || storedHeight > p.maxTextHeight {
            scale = min(p.maxUpscale, p.targetTextHeight / storedHeight)
        }
        // Each window levelled by the slant of its own lines (a curled or keystoned page slants
        // differently across the page), else of the page's: a hand-held photo's lines slant by 5-15
        // degrees, and Tesseract reads a window of them as noise until they are level (decision 1).
        let pageSkew = measure.pageLines?.skew
        let k = 1 / probe.scale
        let windows = boxes.map { box in
            WindowCut(
                crop: PixelBox(
                    x: Int(Double(box.x) * k), y: Int(Double(box.y) * k), width: Int(Double(box.width) * k),
                    height: Int(Double(box.height) * k)),
                skew: measure.lineAngle(in: box)?.skew ?? pageSkew ?? 0)
        }
        let reading = WindowReading(
            scale: scale, textHeight: storedHeight * scale, alongX: measure.horizontalPairs >= measure.verticalPairs,
            probeThreshold: probe.threshold, parameters: p)
        var strips = try windowStrips(for: windows.map(\.crop), scale: scale, count: request.count)
        try placeWindows(windows, from: source.full, into: &strips, reading, request, checkingGlyphs: true)
        if strips.placed.isEmpty, measure.isConvincing(p) {
            // The probe found text beyond doubt, but no window keeps its letters apart at reading
            // size (blurred print merges them into words): read the densest windows as they are.
            try placeWindows(windows, from: source.full, into: &strips, reading, request, checkingGlyphs: false)
        }
        return AnalysisImage(
            readable: try strips.usedReadable(), strip: try strips.usedBinary(),
            windows: parts(of: strips.placed, count: request.parts, alongX: reading.alongX),
            textHeight: reading.textHeight, glyphs: measure.glyphs.count, paper: probe.storedPaper,
            skew: pageSkew ?? 0, horizontalPairs: measure.horizontalPairs, verticalPairs: measure.verticalPairs)
    }

    /// An analysis image without windows (the probe found no text, or no window over it): blank
    /// 1 x 1 strips and what the probe measured.
    private static func withoutWindows(_ probe: Probe, textHeight: Double, glyphs: Int) throws -> AnalysisImage {
        AnalysisImage(
            readable: try Pix.blank(width: 1, height: 1, depth: 8), strip: try Pix.blank(width: 1, height: 1, depth: 1),
            windows: [], textHeight: textHeight, glyphs: glyphs, paper: probe.storedPaper,
            horizontalPairs: probe.measure.horizontalPairs, verticalPairs: probe.measure.verticalPairs)
    }

    /// The text height windows are sized by, in probe pixels: the glyph pairs' height, unless the
    /// marks along the page's lines say otherwise by more than the factor of two between a line's
    /// x-height and its capitals: then the pairs measured something else (a heading, where blur
    /// ran the body's letters together). Marks under `minProbeTextHeight`, the least the probe
    /// measures, do not count.
    private static func probeTextHeight(
        _ measure: GlyphMeasure, glyphHeight: Double, parameters p: AnalysisParameters
    ) -> Double {
        if let line = measure.lineHeight(atLeast: p.minProbeTextHeight),
            line > lineHeightDisagreement * glyphHeight || glyphHeight > lineHeightDisagreement * line
        {
            return line
        }
        return glyphHeight
    }

    /// The glyphs windows are laid over: those of the page's majority direction, when at least
    /// `minGlyphs` run along it, else all. A minority at a quarter turn (tear-off tabs, a margin
    /// note) is not read, and so cannot decide.
    private static func majorityGlyphs(_ measure: GlyphMeasure, atLeast minGlyphs: Int) -> [Glyph] {
        if let pageLines = measure.pageLines, case let aligned = measure.glyphs(alongLinesAt: pageLines.radians),
            aligned.count >= minGlyphs
        {
            return aligned
        }
        return measure.glyphs
    }

    /// A text window to cut: its box in stored pixels and the slant its lines are levelled by.
    private struct WindowCut {
        var crop: PixelBox
        var skew: Double
    }

    /// How every window of one page is read: scaled by `scale` (analysis pixels per stored pixel)
    /// so that its letters are `textHeight` high, binarised against the probe's threshold, and
    /// cleaned for lines along stored x (`alongX`) or y.
    private struct WindowReading {
        var scale: Double
        var textHeight: Double
        var alongX: Bool
        var probeThreshold: Int
        var parameters: AnalysisParameters
    }

    /// The strips the windows are stacked in top to bottom: as wide as the widest crop and as
    /// high as the `count` highest, at reading scale, with room to spare.
    private static func windowStrips(for crops: [PixelBox], scale: Double, count: Int) throws -> StripBuilder {
        let room = max(1, scale) * stripRoom + windowStripExtraRoom
        let width = Int(Double(crops.map(\.width).max()!) * room) + stripMargin
        let height = Int(Double(crops.map(\.height).sorted(by: >).prefix(count).reduce(0, +)) * room) + stripMargin
        return try StripBuilder(width: width, height: height)
    }

    /// Cuts each window from the full image (each rescaled on its own: scaling the whole photo
    /// first would cost more than the rest of the analysis), light corrects and binarises it on its
    /// own and pastes it under the previous one, until `request.count` are placed.
    /// - Parameter checkingGlyphs: leave out a window whose binarised marks hold fewer than
    ///   `request.minGlyphs` glyphs.
    private static func placeWindows(
        _ windows: [WindowCut], from gray: borrowing Pix, into strips: inout StripBuilder, _ reading: WindowReading,
        _ request: WindowRequest, checkingGlyphs: Bool
    ) throws {
        for window in windows {
            let normalized = try readingCrop(
                of: gray, window.crop, skew: window.skew, scale: reading.scale, textHeight: reading.textHeight)
            let binary = try clean(
                try binarize(normalized, probeThreshold: reading.probeThreshold, parameters: reading.parameters),
                textHeight: reading.textHeight, alongX: reading.alongX)
            if checkingGlyphs, measureGlyphs(try binary.componentBoxes()).glyphs.count < request.minGlyphs {
                continue
            }
            strips.paste(gray: normalized, binary: binary, x: 0, y: strips.placed.last?.maxY ?? 0)
            if strips.placed.count == request.count { break }
        }
    }

    /// The parts each placed window is read in: `count` (at least one) of a few whole lines each,
    /// cut across the lines (the way most glyph pairs run), so that one part may already decide at
    /// a fraction of the cost.
    private static func parts(of placed: [PixelBox], count: Int, alongX: Bool) -> [PixelBox] {
        placed.flatMap { w -> [PixelBox] in
            let n = max(1, count)
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
    }

    /// How many times as many candidate windows as wanted `make` finds: twice, so that a window
    /// whose marks do not survive binarisation at reading size as glyphs (texture, a photo, a
    /// barcode) gives way to the next. Chosen by hand, not fitted (decision 1).
    static let candidateWindowsFactor = 2

    /// Ratio of heights by which the marks along the page's lines must disagree with the glyph
    /// pairs before their height is taken instead: two, the factor between a line's x-height and
    /// its capitals; a larger disagreement means the pairs measured something else (a heading,
    /// where blur ran the body's letters together). Chosen by hand, not fitted (decision 1).
    static let lineHeightDisagreement = 2.0

    /// Room the strips of windows and of lines are allocated with, as a factor of the size expected
    /// of them (both are cut to what was used afterwards; a line that does not fit its strip is
    /// left out): a tenth more. Chosen by hand, not fitted (decision 1).
    static let stripRoom = 1.1
    /// Added to the windows' room factor: a hundredth. Chosen by hand, not fitted (decision 1).
    static let windowStripExtraRoom = 0.01
    /// Pixels added to a strip's width and height, and to each line's thickness in it, beyond the
    /// room: two. Chosen by hand, not fitted (decision 1).
    static let stripMargin = 2

    /// The part of `gray` in `box`, its lines turned level by `skew`, scaled by `scale` (left as
    /// it is within `unscaledWithin`), light corrected with background tiles of four letter heights
    /// (`textHeight`, after scaling): what Tesseract reads, in windows and lines alike.
    private static func readingCrop(
        of gray: borrowing Pix, _ box: PixelBox, skew: Double, scale: Double, textHeight: Double
    ) throws -> Pix {
        var part = try gray.levelledCrop(box, skew: skew)
        if abs(scale - 1) > unscaledWithin { part = try part.scaled(by: scale) }
        return try part.backgroundNormalized(
            tile: max(minBackgroundTile, Int(textHeight * backgroundTileInTextHeights)), background: paperGray)
    }

    /// A reading crop whose scale is within this fraction of 1 is read at its stored size, not
    /// resampled. Chosen by hand, not fitted (decision 1).
    static let unscaledWithin = 0.08
    /// Side of a reading crop's background tiles, in text heights after scaling: four, larger than
    /// the letters (the reason `lineImage` gives for its band). Chosen by hand, not fitted
    /// (decision 1).
    static let backgroundTileInTextHeights = 4.0
    /// Smallest background tile, in pixels, that a reading crop's or a probe's light correction
    /// asks for (`Pix.backgroundNormalized` shrinks it further, to 4 at least, on an image too
    /// small to hold six tiles each way). Chosen by hand, not fitted (decision 1).
    static let minBackgroundTile = 16

    /// The analysis image of text lines: each line cut level from the stored pixels, scaled so
    /// that its marks are `targetTextHeight` high (within `maxUpscale`), light corrected on a
    /// band a dozen heights wide around it (so that the background tiles are larger than its
    /// letters). Lines along stored x are stacked top to bottom, those along stored y side by side
    /// below them.
    private static func lineImage(
        _ lines: [TextLine], source: borrowing GraySource, probe: Probe, parameters p: AnalysisParameters
    ) throws -> AnalysisImage {
        let cuts = lines.map { LineCut($0, probeScale: probe.scale, parameters: p) }
        let rows = cuts.filter(\.direction.alongX)
        let columns = cuts.filter { !$0.direction.alongX }
        let rowsHeight = stackedThickness(of: rows)
        let columnsWidth = stackedThickness(of: columns)
        var strips = try StripBuilder(
            width: max(longestLength(of: rows), columnsWidth), height: rowsHeight + longestLength(of: columns))
        let storedLongSide = max(source.storedWidth, source.storedHeight)
        var alongX: [Bool] = []
        var (rowY, columnX) = (0, 0)
        for cut in cuts {
            let gray = try source.gray(longSide: storedLongSide / cut.reduction)
            let isRow = cut.direction.alongX
            guard
                let box = try placeLine(
                    cut, from: gray, into: &strips, x: isRow ? 0 : columnX, y: isRow ? rowY : rowsHeight,
                    probeThreshold: probe.threshold, parameters: p)
            else { continue }
            alongX.append(isRow)
            if isRow { rowY += box.height } else { columnX += box.width }
        }
        let heights = cuts.map(\.readingHeight).sorted()
        // The marks of the lines along each axis stand for the glyph pairs: which way most of
        // the text runs.
        let marksAlongX = zip(lines, cuts).filter { $0.1.direction.alongX }.map(\.0.marks).reduce(0, +)
        let marksAlongY = lines.map(\.marks).reduce(0, +) - marksAlongX
        var image = AnalysisImage(
            readable: try strips.usedReadable(), strip: try strips.usedBinary(), windows: strips.placed,
            textHeight: heights[heights.count / 2],
            glyphs: max(probe.measure.glyphs.count, lines.map(\.marks).reduce(0, +)), paper: probe.storedPaper,
            skew: lines[0].direction.skew, horizontalPairs: marksAlongX, verticalPairs: marksAlongY)
        image.windowAlongX = alongX
        return image
    }

    /// A text line to cut: its band's box in the image reduced by `reduction`, the scale from
    /// there to reading size (`rest`), and its letter height, thickness and length at reading size.
    private struct LineCut {
        var box: PixelBox
        var reduction: Int
        var rest: Double
        var readingHeight: Double
        var thickness: Double
        var length: Double
        var direction: LineAngle

        /// The cut of `line`, found on a probe of `probeScale` probe pixels per stored pixel.
        init(_ line: TextLine, probeScale: Double, parameters p: AnalysisParameters) {
            let k = 1 / probeScale
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
            box = PixelBox(
                x: Int(line.centerX * k * r - w / 2), y: Int(line.centerY * k * r - h / 2), width: Int(w),
                height: Int(h))
            self.reduction = reduction
            rest = scale / r
            readingHeight = height * scale
            self.thickness = thickness * scale / r
            self.length = length * scale / r
            direction = line.direction
        }
    }

    /// Room, in strip pixels, for `lines` stacked across their direction: the sum of their
    /// thicknesses, each with its room and margin (sized generously; the strips are cut to what
    /// was used).
    private static func stackedThickness(of lines: [LineCut]) -> Int {
        let margin = Double(stripMargin)
        return Int(lines.map { $0.thickness * stripRoom + margin }.reduce(0, +)) + stripMargin
    }

    /// Room, in strip pixels, for the longest of `lines` along its direction.
    private static func longestLength(of lines: [LineCut]) -> Int {
        Int(lines.map { $0.length * stripRoom }.max() ?? 0) + stripMargin
    }

    /// Cuts the line out of its band of `gray` (the image reduced by `cut.reduction`), levelled,
    /// scaled and light corrected, binarises it and pastes both at (x, y); the pasted box, or nil
    /// when the line does not fit the strips (it is left out).
    private static func placeLine(
        _ cut: LineCut, from gray: borrowing Pix, into strips: inout StripBuilder, x: Int, y: Int,
        probeThreshold: Int, parameters p: AnalysisParameters
    ) throws -> PixelBox? {
        let normalized = try readingCrop(
            of: gray, cut.box, skew: cut.direction.skew, scale: cut.rest, textHeight: cut.readingHeight)
        // The line itself, out of its band.
        let isRow = cut.direction.alongX
        let lineBox =
            isRow
            ? PixelBox(
                x: 0, y: max(0, Int((Double(normalized.height) - cut.thickness) / 2)),
                width: normalized.width, height: min(normalized.height, Int(cut.thickness.rounded(.up))))
            : PixelBox(
                x: max(0, Int((Double(normalized.width) - cut.thickness) / 2)), y: 0,
                width: min(normalized.width, Int(cut.thickness.rounded(.up))), height: normalized.height)
        let image = try normalized.cropped(to: lineBox)
        let binary = try clean(
            try binarize(image, probeThreshold: probeThreshold, parameters: p), textHeight: cut.readingHeight,
            alongX: isRow)
        guard strips.fits(width: image.width, height: image.height, x: x, y: y) else { return nil }
        strips.paste(gray: image, binary: binary, x: x, y: y)
        return strips.placed.last
    }

    /// Largest reduction a text line is cut from (1/8): large letters are cut from a halved image
    /// (Leptonica's cheap reductions), so that the turn and the light correction work on a few
    /// hundred thousand pixels. Chosen by hand, not fitted (decision 1).
    static let maxLineReduction = 8
    /// Width of the band a text line is light corrected on, in its letter heights: a dozen, so that
    /// the background tiles are larger than its letters (`Pix.backgroundNormalized` shrinks a tile
    /// until the image holds six each way, which on a band of twelve letter heights, along a line
    /// at least as long, leaves tiles of two). Chosen by hand, not fitted (decision 1).
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

    /// Least text height, in pixels, that `clean` sizes its filter for: four. Chosen by hand, not
    /// fitted (decision 1).
    static let cleanMinTextHeight = 4.0
    /// Longest a kept component may run along the lines, in text heights: six, since blurred
    /// letters merge into words. Chosen by hand, not fitted (decision 1).
    static let markMaxLengthInTextHeights = 6.0
    /// Longest a kept component may run across the lines, in text heights: three. Chosen by hand,
    /// not fitted (decision 1).
    static let markMaxThicknessInTextHeights = 3.0
    /// Shortest side a kept component may have, in text heights (a quarter) and in pixels (two):
    /// shorter marks are speckle. Chosen by hand, not fitted (decision 1).
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

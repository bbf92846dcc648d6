// The first look at the page: a small grey decode, the paper found on a thumbnail of it, one ink
// threshold chosen on the paper (or an alternative when the first does not convince), and the
// glyphs measured. The windows and the text lines are both cut where a probe found the text.

extension AnalysisImage {
    /// The first look at the page: grey at a small size, light corrected, one threshold for the
    /// paper, the glyphs measured. One threshold on the normalised page is enough to find and
    /// measure the text, and unlike a local threshold it does not turn paper grain and sensor noise
    /// into specks that pair up.
    package struct Probe {
        package var width: Int
        package var height: Int
        /// Probe pixels per stored pixel.
        var scale: Double
        package var measure: GlyphMeasure
        /// The ink threshold used (on the light-corrected grey, paper at 200).
        package var threshold: Int
        /// The paper (the whole frame when none stands out), in probe pixels.
        package var paper: PixelBox

        /// The paper in stored pixels.
        var storedPaper: PixelBox {
            let k = 1 / scale
            let x0 = Int(Double(paper.x) * k), y0 = Int(Double(paper.y) * k)
            let x1 = Int((Double(paper.maxX) * k).rounded(.up)), y1 = Int((Double(paper.maxY) * k).rounded(.up))
            return PixelBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }

        /// - Parameter previous: another probe of the same image (the lines probe, or a smaller
        ///   one), whose paper is taken (scaled) rather than found again: it is judged on a
        ///   thumbnail of the same size either way.
        init(
            source: borrowing GraySource, longSide: Int, parameters p: AnalysisParameters, paperOf previous: Probe?
        ) throws {
            let gray = try source.gray(longSide: longSide)
            let normalized = try Self.lightCorrected(gray)
            width = gray.width
            height = gray.height
            scale = Double(gray.width) / Double(source.storedWidth)
            // Table texture (fabric, wood grain, stone) makes regular marks that pair up like
            // letters: only marks on the paper count, and only the paper sets the threshold.
            let frame = PixelBox(x: 0, y: 0, width: width, height: height)
            if let previous {
                let k = Double(width) / Double(previous.width)
                let (x0, y0) = (Int(Double(previous.paper.x) * k), Int(Double(previous.paper.y) * k))
                let (x1, y1) = (
                    min(width, Int(Double(previous.paper.maxX) * k)), min(height, Int(Double(previous.paper.maxY) * k))
                )
                paper =
                    previous.paper == PixelBox(x: 0, y: 0, width: previous.width, height: previous.height)
                    ? frame : PixelBox(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            } else {
                paper = try AnalysisImage.paper(in: gray) ?? frame
            }
            let otsu = try normalized.otsuThreshold(in: paper, step: Self.otsuSampleStep)
            func glyphs(at threshold: Int, in box: PixelBox, lines: Bool = true) throws -> GlyphMeasure {
                measureGlyphs(try normalized.inkComponents(darkerThan: threshold, inside: box), lines: lines)
            }
            func bounded(_ otsu: Int) -> Int { min(max(otsu, p.probeThreshold), p.probeMaxThreshold) }
            threshold = bounded(otsu)
            measure = try glyphs(at: threshold, in: paper)
            guard !measure.isConvincing(p) else { return }
            var alternatives = [(p.probeMaxThreshold, paper), (p.blurProbeThreshold, paper)]
            alternatives.removeAll { $0 == (threshold, paper) }
            // The whole frame at its own threshold: when the paper found is not the page (the lit
            // side of a table can be brighter than a small page on it), the paper's threshold was
            // set by the table and can lose the page's letters (decision 1).
            if paper != frame {
                alternatives.append(
                    (bounded(try normalized.otsuThreshold(in: frame, step: Self.otsuSampleStep)), frame))
            }
            // The alternatives are judged by their glyphs alone, so the neighbour links, the
            // costly part on a grainy page, are made for the one chosen only.
            var best: (glyphs: Int, threshold: Int, box: PixelBox)? = nil
            for (t, box) in alternatives {
                let m = try glyphs(at: t, in: box, lines: false)
                if m.isConvincing(p), m.glyphs.count > best?.glyphs ?? 0 { best = (m.glyphs.count, t, box) }
            }
            if let best { (measure, threshold) = (try glyphs(at: best.threshold, in: best.box), best.threshold) }
        }

        /// Background tiles across the probe's width in its light correction: thirty (the text
        /// height is not known yet, so the tile follows the image). Chosen by hand, not fitted
        /// (decision 1).
        static let backgroundTilesAcross = 30

        /// `gray` light corrected as a probe sees it: background tiles of a thirtieth of its width
        /// (`backgroundTilesAcross`), `AnalysisImage.minBackgroundTile` at least.
        package static func lightCorrected(_ gray: borrowing Pix) throws -> Pix {
            try gray.backgroundNormalized(
                tile: max(AnalysisImage.minBackgroundTile, gray.width / backgroundTilesAcross))
        }
        /// Otsu's threshold of the paper and of the frame is taken from every second pixel of every
        /// second row, the histogram read in place without copying the region: the same answers as
        /// every pixel (decision 1).
        static let otsuSampleStep = 2
    }

    /// The paper: the bounding box of the brightest of the bright regions that cover at least a
    /// fiftieth of the image (`paperMinShare`); nil when there is none (the page fills the frame,
    /// or no region stands out). Judged on a thumbnail: the paper is many thumbnail pixels, and a
    /// dark table around a small page would otherwise hold marks and take thresholds. The
    /// brightest, not the largest: the light streaks of a wood grain table can outgrow a receipt
    /// lying on it (decision 1).
    package static func paper(in gray: borrowing Pix) throws -> PixelBox? {
        let side = max(gray.width, gray.height)
        let factor = side > paperThumbnailSide ? Double(paperThumbnailSide) / Double(side) : 1
        let thumb = try gray.scaled(by: factor)
        // Holes filled: a framed box or a photo on the page is enclosed by the paper, not a
        // region of its own.
        let bright = try thumb.thresholded(try thumb.otsuThreshold()).inverted().holesFilled()
        let minArea = paperMinShare * Double(thumb.width * thumb.height)
        var brightest: (box: PixelBox, mean: Double)? = nil
        for box in try bright.componentBoxes() where Double(box.area) >= minArea {
            let mean = try thumb.cropped(to: box).meanGray()
            if mean > brightest?.mean ?? -1 { brightest = (box, mean) }
        }
        guard let paper = brightest?.box else { return nil }
        let k = Double(gray.width) / Double(thumb.width)
        let margin = paperMargin
        let x0 = max(0, paper.x - margin), y0 = max(0, paper.y - margin)
        let x1 = min(thumb.width, paper.maxX + margin), y1 = min(thumb.height, paper.maxY + margin)
        return PixelBox(
            x: Int(Double(x0) * k), y: Int(Double(y0) * k),
            width: min(gray.width, Int((Double(x1 - x0) * k).rounded(.up))),
            height: min(gray.height, Int((Double(y1 - y0) * k).rounded(.up))))
    }

    /// Least share of the frame a region must cover to be the paper: a fiftieth. A strip of paper
    /// with one line on it, shot whole from a phone's distance, covers a few hundredths of the
    /// frame, and below a twentieth the paper was missed and the table's
    /// grain set the page's line direction (decision 1).
    static let paperMinShare = 0.02
    /// Long side, in pixels, of the thumbnail the paper is judged on (the paper is many pixels even
    /// at this size). Chosen by hand, not fitted (decision 1).
    static let paperThumbnailSide = 400
    /// Thumbnail pixels the paper's box is grown by on every side: two. Chosen by hand, not fitted
    /// (decision 1).
    static let paperMargin = 2
}

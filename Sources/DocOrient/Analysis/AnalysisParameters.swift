// How the analysis image is made: the sizes and ink thresholds of the probe and of the reading
// crops, held in the calibration (Models/calibration.json) rather than in code.

/// How the analysis image is made. Values come from `Calibration` (Models/calibration.json); why
/// each is what it is: docs/decisions (decision 1).
package struct AnalysisParameters: Sendable, Codable, Equatable {
    /// Long side of the first probe decode, which finds and measures the text.
    var probeLongSide: Int
    /// When the probe's text is shorter than `minProbeTextHeight` pixels (fine print) or it finds
    /// no text, it is decoded again at twice the size, up to this long side.
    var firstPassLongSide: Int
    var minProbeTextHeight: Double
    /// Median character height (pixels) Tesseract reads best at; the windows are rescaled towards it.
    var targetTextHeight: Double
    /// Rescale only when the measured height falls outside this band.
    var minTextHeight: Double
    var maxTextHeight: Double
    /// Ink threshold (0...255, paper at 200) of the probe, which only finds and measures the text:
    /// Otsu's threshold of the light-corrected paper, kept within `probeThreshold...probeMaxThreshold`
    /// (faded thermal print is lighter than 160; above the ceiling paper grain turns to ink).
    var probeThreshold: Int
    var probeMaxThreshold: Int
    /// The text found is convincing when at least this many glyphs pair up, `convincingAxisRatio`
    /// times as often along one axis as along the other (blank paper's grain, photos and barcodes
    /// pair up too, but every which way). When it is not, the probe also tries, and keeps the
    /// convincing one with most glyphs of: `probeMaxThreshold` (faint thermal print on a receipt
    /// whose bounding box takes in dark table, so that Otsu's threshold falls between table and
    /// paper), `blurProbeThreshold` (blurred print, whose letters merge into words at the paper's
    /// threshold), and the whole frame instead of the paper (when the paper found is a highlight
    /// on the page, or leaves part of it out).
    var convincingGlyphs: Int
    var convincingAxisRatio: Double
    var blurProbeThreshold: Int
    /// Largest enlargement over the stored pixels, for fine print.
    var maxUpscale: Double
    /// Each text window is thresholded at its own Otsu threshold, but never more than this many
    /// levels below the probe's (a dark table edge in the window would otherwise set it and leave
    /// faint letters in pieces)...
    var windowThresholdBelowProbe: Int
    /// ...nor above this (paper at 200).
    var windowMaxThreshold: Int
}

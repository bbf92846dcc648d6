// The probes of one image, made once and shared by the line stage and the windows: the lines
// probe at the first pass's size, which finds the paper, and the windows' probe, made only when
// the windows are read.

extension AnalysisImage {
    /// What the probes found on the page, made once per image and shared by the line stage and the
    /// windows.
    package struct Survey {
        /// The probe the lines are found on, at the first pass's size: at the windows' probe size,
        /// fine print beside a larger heading or stamp runs together (the probe measured the
        /// heading's letters). It finds the paper. Nil unless asked for.
        let linesProbe: Probe?

        package init(source: borrowing GraySource, parameters p: AnalysisParameters, lines: Bool) throws {
            linesProbe =
                lines
                ? try Probe(source: source, longSide: Self.firstPass(source, p), parameters: p, paperOf: nil) : nil
        }

        /// The probe that measures the text for the windows: small, then twice the size while the
        /// text is too small to measure (the lines probe, when there is one, at that size). Made
        /// only when the windows are read: the lines decide most pages first.
        package func probe(source: borrowing GraySource, parameters p: AnalysisParameters) throws -> Probe {
            let firstPass = Self.firstPass(source, p)
            var side = min(max(source.storedWidth, source.storedHeight), p.probeLongSide)
            if let linesProbe, side >= firstPass { return linesProbe }
            var probe = try Probe(source: source, longSide: side, parameters: p, paperOf: linesProbe)
            while side < firstPass, (probe.measure.textHeight ?? 0) < p.minProbeTextHeight {
                side = min(firstPass, side * Self.probeGrowth)
                if let linesProbe, side >= firstPass { return linesProbe }
                probe = try Probe(source: source, longSide: side, parameters: p, paperOf: probe)
            }
            return probe
        }

        /// Factor a probe too small to measure its text is enlarged by, up to the first pass's
        /// size: two (`AnalysisParameters.firstPassLongSide`), doubled for fine print. Chosen by
        /// hand, not fitted (decision 1).
        static let probeGrowth = 2

        private static func firstPass(_ source: borrowing GraySource, _ p: AnalysisParameters) -> Int {
            min(max(source.storedWidth, source.storedHeight), p.firstPassLongSide)
        }
    }
}

import Foundation

// Measuring the marks of a binarised image: which components pair up as the letters of one line
// do, how high they are, and (for the probe) the docstrum links to each mark's nearest neighbours
// of similar size, from which the page's line direction and line height follow.

extension AnalysisImage {
    /// Glyph statistics from component boxes.
    package struct GlyphMeasure {
        package var glyphs: [Glyph]
        package var textHeight: Double?
        package var horizontalPairs: Int
        package var verticalPairs: Int
        /// Each mark's links to its nearest neighbours of similar size (only when asked for).
        package var links: [NeighbourLink] = []
        /// The marks the links join (only when links were asked for).
        var marks: [PixelBox] = []
        /// Marks too wide to be letters (words whose letters touch), not linked.
        var wideMarks: [PixelBox] = []
        /// The direction of the page's lines, `lineAngle()` over all links.
        package var pageLines: LineAngle? = nil
        /// Heights across the lines of the marks linked along the page's line direction (letters,
        /// or words whose letters touch), ascending; empty without a direction.
        var lineMarkHeights: [Double] = []

        /// The median of `lineMarkHeights` at least `floor` high (form dashes, dots and specks link
        /// along the lines too, and are thinner than any letter that can be measured); nil when
        /// fewer than `minLinksForAngle` are.
        func lineHeight(atLeast floor: Double) -> Double? {
            let tall = lineMarkHeights.drop { $0 < floor }
            return tall.count >= Self.minLinksForAngle ? tall[tall.startIndex + tall.count / 2] : nil
        }

        /// The direction the text lines run in, from the links whose midpoint lies in `box` (all
        /// when nil): the peak of their angles, to the nearest degree and then refined by the mean
        /// of the angles within `lineAngleReach` of it. Nil with fewer than `minLinksForAngle`
        /// links. Any direction: a page photographed askew by 35 degrees has no glyph pairs
        /// along either axis, but its letters still neighbour along the lines.
        func lineAngle(in box: PixelBox? = nil) -> LineAngle? {
            let inside = links.filter { link in
                box.map {
                    Double($0.x) <= link.x && link.x < Double($0.maxX) && Double($0.y) <= link.y
                        && link.y < Double($0.maxY)
                } ?? true
            }
            guard inside.count >= Self.minLinksForAngle else { return nil }
            var histogram = [Int](repeating: 0, count: 180)
            for link in inside { histogram[min(179, Int(link.angle * 180 / .pi))] += 1 }
            // Smoothed over five degrees, around the circle of directions.
            let smoothed = (0..<180).map { i in
                (-Self.angleSmoothingReach...Self.angleSmoothingReach).reduce(0) {
                    $0 + histogram[(i + $1 + 180) % 180]
                }
            }
            let peak =
                Double(
                    smoothed.indices.max { smoothed[$0] < smoothed[$1] || (smoothed[$0] == smoothed[$1] && $0 > $1) }!)
                + 0.5
            // Circular mean (over doubled angles) of the links near the peak, each weighted by its
            // length: centres lie on a pixel grid, so a short link's angle is coarse (two letters
            // 10 pixels apart can only slant by 0 or 5.7 degrees).
            var (sx, sy) = (0.0, 0.0)
            for link in inside {
                var d = link.angle * 180 / .pi - peak
                d -= 180 * (d / 180).rounded()
                guard abs(d) <= Self.lineAngleReach else { continue }
                sx += link.length * cos(2 * link.angle)
                sy += link.length * sin(2 * link.angle)
            }
            var angle = atan2(sy, sx) / 2
            if angle < 0 { angle += .pi }
            return LineAngle(radians: angle)
        }

        /// The glyphs of lines running within π/8 of `angle`: nearer that direction than the
        /// diagonal between it and the other axis. The page's majority direction leaves out
        /// minority text at a quarter turn (tear-off tabs, rotated headers, margin notes).
        func glyphs(alongLinesAt angle: Double) -> [Glyph] {
            glyphs.filter {
                $0.direction.map { NeighbourLink.difference($0, angle) <= Self.alongLinesTolerance } ?? false
            }
        }

        /// Fewest links a direction is taken from: the letters of one short line.
        static let minLinksForAngle = 8
        /// Degrees either side of the peak that the refinement averages over.
        package static let lineAngleReach = 4.0
        /// Degrees either side that the histogram of link angles is smoothed over before its peak
        /// is taken: two, a window of five degrees. Chosen by hand, not fitted (decision 1).
        static let angleSmoothingReach = 2
        /// Largest angle, in radians, between a mark's direction and the page's lines for the mark
        /// to be on those lines: π/8, half of the π/4 to the diagonal, so that a mark belongs to
        /// the direction it is nearer than the diagonal between it and the other axis (decision 1).
        static let alongLinesTolerance = Double.pi / 8

        /// Enough glyphs, pairing up along one axis clearly more than along the other
        /// (`AnalysisParameters.convincing*`).
        func isConvincing(_ p: AnalysisParameters) -> Bool {
            let (more, fewer) = (max(horizontalPairs, verticalPairs), min(horizontalPairs, verticalPairs))
            return glyphs.count >= p.convincingGlyphs && Double(more) >= p.convincingAxisRatio * Double(fewer + 1)
        }

        /// The box around all glyphs, grown by `margin` on every side (not clipped).
        func bounds(margin: Double) -> PixelBox? {
            guard let (x0, y0, x1, y1) = glyphs.extent else { return nil }
            let m = Int(margin)
            return PixelBox(
                x: max(0, x0 - m), y: max(0, y0 - m), width: x1 - max(0, x0 - m) + m, height: y1 - max(0, y0 - m) + m)
        }
    }

    /// Finds the components that sit next to one of similar size, as letters in a word do, and
    /// measures their height. Text lines run the way most such pairs run.
    /// - Parameter lines: also link the marks to their neighbours and measure the page's line
    ///   direction and line height (the probe; a window's glyph count does not need them).
    package static func measureGlyphs(_ boxes: [PixelBox], lines: Bool = false) -> GlyphMeasure {
        let marks = boxes.filter {
            $0.height >= minMarkHeight && $0.width >= 1
                && $0.width <= maxMarkWidthInHeights * $0.height + markWidthAllowance && $0.height <= maxMarkHeight
        }
        guard marks.count >= 2 else {
            return GlyphMeasure(glyphs: [], textHeight: nil, horizontalPairs: 0, verticalPairs: 0)
        }
        // A coarse grid over the box centres keeps the neighbour search linear.
        let cell = gridCell
        var grid: [Int: [Int]] = [:]
        for (i, b) in marks.enumerated() {
            grid[key(b.x / cell, b.y / cell), default: []].append(i)
        }
        let pairs = pairUp(marks, grid: grid, cell: cell)
        let links = lines ? neighbourLinks(marks, grid: grid, cell: cell) : []
        var direction = [Double?](repeating: nil, count: marks.count)
        // Links come nearest first for each mark.
        for link in links where direction[link.mark] == nil { direction[link.mark] = link.angle }
        var measure = GlyphMeasure(
            glyphs: [], textHeight: nil, horizontalPairs: pairs.horizontal, verticalPairs: pairs.vertical,
            links: links)
        if lines {
            measure.marks = marks
            // Words whose letters touch, too wide for a letter: they chain into lines too.
            measure.wideMarks = boxes.filter {
                $0.width > maxMarkWidthInHeights * $0.height + markWidthAllowance && $0.height >= minWideMarkHeight
                    && $0.height <= maxMarkHeight
            }
        }
        measure.pageLines = measure.lineAngle()
        if let lines = measure.pageLines {
            measure.lineMarkHeights = heightsAcross(lines, of: marks, direction: direction)
        }
        let glyphs = marks.indices.filter { pairs.isGlyph[$0] }.map {
            Glyph(box: marks[$0], direction: direction[$0])
        }
        guard glyphs.count >= 2 else { return measure }
        // Text height is measured across the line: along y for horizontal lines, along x for vertical.
        let across = glyphs.map { pairs.horizontal >= pairs.vertical ? $0.box.height : $0.box.width }.sorted()
        let median = Double(across[across.count / 2])
        measure.glyphs = glyphs
        measure.textHeight = median
        return measure
    }

    /// Every pair of `marks` that sit side by side like letters (`pairing`), found through `grid`
    /// (mark indices by `cell`-sized square): how many pairs run along stored x and along y, and
    /// which marks are in any pair (the glyphs).
    private static func pairUp(
        _ marks: [PixelBox], grid: [Int: [Int]], cell: Int
    ) -> (isGlyph: [Bool], horizontal: Int, vertical: Int) {
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
        return (isGlyph, horizontal, vertical)
    }

    /// The height across the page's `lines` of each mark whose nearest neighbour (`direction`)
    /// lies along them, sorted: letters, or whole words where blur has run the letters together
    /// and no two glyphs pair up. A box turned by θ shows (W cos θ + H sin θ) by
    /// (W sin θ + H cos θ); H follows from the two.
    private static func heightsAcross(
        _ lines: LineAngle, of marks: [PixelBox], direction: [Double?]
    ) -> [Double] {
        let (c, s) = (cos(lines.skew), sin(abs(lines.skew)))
        return marks.indices.compactMap { i -> Double? in
            guard let d = direction[i],
                NeighbourLink.difference(d, lines.radians) <= GlyphMeasure.alongLinesTolerance
            else { return nil }
            let (along, other) =
                lines.alongX
                ? (Double(marks[i].width), Double(marks[i].height))
                : (Double(marks[i].height), Double(marks[i].width))
            return (other * c - along * s) / (c * c - s * s)
        }.filter { $0 > 0 }.sorted()
    }

    /// Shortest mark, in pixels, that can be a letter: three. Chosen by hand, not fitted
    /// (decision 1).
    static let minMarkHeight = 3
    /// A mark can be a letter when it is at most this many heights wide, plus `markWidthAllowance`
    /// pixels; wider marks are words whose letters touch (`wideMarks`). Chosen by hand, not fitted
    /// (decision 1).
    static let maxMarkWidthInHeights = 3
    /// Pixels of width a letter may have beyond `maxMarkWidthInHeights` heights: four. Chosen by
    /// hand, not fitted (decision 1).
    static let markWidthAllowance = 4
    /// Tallest mark, in pixels, that can be a letter or a word: 400. Chosen by hand, not fitted
    /// (decision 1).
    static let maxMarkHeight = 400
    /// Shortest mark, in pixels, that can be a word whose letters touch: four. Chosen by hand, not
    /// fitted (decision 1).
    static let minWideMarkHeight = 4
    /// Side, in pixels, of the cells of the coarse grid that keeps the neighbour search linear: 64.
    /// Chosen by hand, not fitted (decision 1).
    static let gridCell = 64

    /// Links each mark to its `linksPerMark` nearest neighbours of similar size (sides within a
    /// factor of two) no further than two sizes away: letters of a word, or words of a line,
    /// since lines lie further apart than letters do.
    private static func neighbourLinks(_ marks: [PixelBox], grid: [Int: [Int]], cell: Int) -> [NeighbourLink] {
        var links: [NeighbourLink] = []
        for (i, a) in marks.enumerated() {
            let size = Double(max(a.width, a.height))
            let (ax, ay) = (Double(a.x) + Double(a.width) / 2, Double(a.y) + Double(a.height) / 2)
            let reach = Int(linkReachInSizes * size) / cell + 1
            var nearest: [(distance: Double, index: Int)] = []
            for gx in (a.x / cell - reach)...(a.x / cell + reach) {
                for gy in (a.y / cell - reach)...(a.y / cell + reach) {
                    guard let list = grid[key(gx, gy)] else { continue }
                    for j in list where j != i {
                        let b = marks[j]
                        let other = Double(max(b.width, b.height))
                        guard other <= linkSizeRatio * size, size <= linkSizeRatio * other else { continue }
                        let (bx, by) = (Double(b.x) + Double(b.width) / 2, Double(b.y) + Double(b.height) / 2)
                        let d = ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)).squareRoot()
                        guard d <= linkReachInSizes * max(size, other) else { continue }
                        nearest.append((d, j))
                    }
                }
            }
            nearest.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.index < $1.index }
            for (distance, j) in nearest.prefix(linksPerMark) {
                let b = marks[j]
                let (bx, by) = (Double(b.x) + Double(b.width) / 2, Double(b.y) + Double(b.height) / 2)
                var angle = atan2(by - ay, bx - ax)
                if angle < 0 { angle += .pi }
                if angle >= .pi { angle -= .pi }
                links.append(
                    NeighbourLink(
                        x: (ax + bx) / 2, y: (ay + by) / 2, angle: angle, mark: i, other: j, length: distance))
            }
        }
        return links
    }

    /// Neighbours linked per mark: two, the letters before and after it in its line.
    static let linksPerMark = 2
    /// Largest ratio between the sizes (longer sides) of two marks that link: two, "similar size".
    /// Chosen by hand, not fitted (decision 1).
    static let linkSizeRatio = 2.0
    /// Farthest a linked neighbour's centre may lie, in sizes of the larger of the two marks (the
    /// search reaches as many of the mark's own sizes, plus a grid cell): two, which takes in the
    /// letters of a word or the words of a line, since lines lie further apart than letters do.
    /// Chosen by hand, not fitted (decision 1).
    static let linkReachInSizes = 2.0

    private static func key(_ x: Int, _ y: Int) -> Int { (x &* 73_856_093) ^ (y &* 19_349_663) }

    private enum Pairing { case horizontal, vertical }

    /// Two marks are letters of one line when they have about the same size across the line,
    /// overlap mostly across it, and leave only a small gap along it.
    private static func pairing(_ a: PixelBox, _ b: PixelBox) -> Pairing? {
        func similar(_ u: Int, _ v: Int) -> Bool {
            let lo = Double(min(u, v)), hi = Double(max(u, v))
            return lo >= pairSizeRatio * hi
        }
        func overlap(_ a0: Int, _ a1: Int, _ b0: Int, _ b1: Int) -> Int { max(0, min(a1, b1) - max(a0, b0)) }
        // Side by side along x.
        if similar(a.height, b.height) {
            let shared = overlap(a.y, a.maxY, b.y, b.maxY)
            let gap = max(a.x, b.x) - min(a.maxX, b.maxX)
            let h = max(a.height, b.height)
            if Double(shared) >= pairMinOverlap * Double(h), gap >= 0, Double(gap) <= pairMaxGap * Double(h) {
                return .horizontal
            }
        }
        // Side by side along y.
        if similar(a.width, b.width) {
            let shared = overlap(a.x, a.maxX, b.x, b.maxX)
            let gap = max(a.y, b.y) - min(a.maxY, b.maxY)
            let w = max(a.width, b.width)
            if Double(shared) >= pairMinOverlap * Double(w), gap >= 0, Double(gap) <= pairMaxGap * Double(w) {
                return .vertical
            }
        }
        return nil
    }

    /// Least ratio between two paired marks' sides across the line (the smaller over the larger):
    /// 0.6. Chosen by hand, not fitted (decision 1).
    static let pairSizeRatio = 0.6
    /// Least overlap across the line of two paired marks, as a share of the larger side across:
    /// 0.7. Chosen by hand, not fitted (decision 1).
    static let pairMinOverlap = 0.7
    /// Widest gap along the line between two paired marks, as a share of the larger side across:
    /// 0.35. Chosen by hand, not fitted (decision 1).
    static let pairMaxGap = 0.35
}

import Foundation

// Text lines found before any OCR, the docstrum way: every mark is linked to its nearest
// neighbours of similar size, and the links that run along the page's line direction chain the
// marks of one line together, whatever the size of its letters. A line is then read on its own,
// scaled so that its letters have the height Tesseract reads best: a sign's words and a
// receipt's fine print are each just a line at another scale.

/// One line of text found on the probe, in probe pixels.
struct TextLine: Sendable, Equatable {
    /// Centre of the line.
    var centerX: Double
    var centerY: Double
    /// Extent along the line and across it, margins included.
    var length: Double
    var thickness: Double
    /// Median height of its marks across the line: its letters, or its words where they touch.
    var markHeight: Double
    /// Marks chained into the line.
    var marks: Int
    /// The direction the line runs in.
    var direction: LineAngle

    /// Most of a line read, in heights of its marks, about its middle: some 8-10 words, more
    /// than the plain-text rule asks of a read (`cascade.singleReadDictionaryWords`, 5). A whole
    /// line of a letter, 50 heights and more, costs twice as much to read and rarely decides
    /// where its middle does not.
    static let maxReadLength = 32.0
}

extension AnalysisImage.GlyphMeasure {
    /// Gap along a line, in heights of its marks, that still joins two marks (or words whose
    /// letters touch) into one line: word spaces are a third to half a height, columns further.
    static let maxGapInHeights = 1.2

    /// The text lines of the page: each mark is given to the direction of its nearest neighbour
    /// (`direction` or the one across it: a margin note's letters neighbour along the note,
    /// a paragraph's along its lines), marks without one to `direction`; marks of similar height
    /// that sit on one line across and close along it are chained into a line. Lines at least
    /// `minLineLength` heights long, of marks at least `minMarkShare` of the page's letters high,
    /// longest first (ties top to bottom, then left to right, so the order is a function of the
    /// page alone).
    func textLines(page direction: LineAngle) -> [TextLine] {
        guard !marks.isEmpty else { return [] }
        let across = LineAngle(radians: (direction.radians + .pi / 2).truncatingRemainder(dividingBy: .pi))
        var nearest = [Double?](repeating: nil, count: marks.count)
        for link in links where nearest[link.mark] == nil { nearest[link.mark] = link.angle }
        let (ux, uy) = (abs(cos(direction.radians)), abs(sin(direction.radians)))
        /// A mark at least twice as long along the page's lines as across them is a word whose
        /// letters touch (or a dash), and runs along them whatever its nearest neighbour: in
        /// bold or blurred print the word below is nearer, centre to centre, than the next word.
        func runsAlong(_ m: PixelBox) -> Bool {
            let (w, h) = (Double(m.width), Double(m.height))
            return w * ux + h * uy >= Self.wordMinAspect * (w * uy + h * ux)
        }
        let acrossMarks = marks.indices.filter { i in
            guard !runsAlong(marks[i]) else { return false }
            return nearest[i].map { NeighbourLink.difference($0, direction.radians) > .pi / 4 } ?? false
        }
        let acrossSet = Set(acrossMarks)
        let all = marks + wideMarks
        let alongMarks = all.indices.filter { !acrossSet.contains($0) }
        let lowest = (textHeight ?? 0) * Self.minMarkShare
        return (chain(alongMarks, of: all, along: direction) + chain(acrossMarks, of: all, along: across))
            .filter { $0.markHeight >= lowest }
            .sorted(by: Self.longestFirst)
    }

    /// Least height of a line's marks, against the page's letters (`textHeight`, the glyph pairs'
    /// median), for the line to be text. A row of dots or short dashes (a leader, a dotted rule) or
    /// of specks of grain chains into a line that is long in heights of its own marks, so it came
    /// first among the longest: on one generated page the first line read, in six orientations, was
    /// a dotted rule of 41 marks a third of its letters' height. A dot or speck is under a third of
    /// a letter's height, blurred; the smallest print worth reading on a page, a footnote or a
    /// receipt's small print, is about half the height of its body text. On the generated and real
    /// sets no line under this share read five confident characters in any orientation
    /// (decision 2). Where leaders outnumber the letters, the glyph pairs measure the dots and this
    /// does not tell them apart (a menu of dotted leaders). The height of the marks along the lines
    /// does not serve instead: on some held-out and real pages it is two to three times the glyph
    /// pairs', and lines that read 6 to 38 confident characters fell under the share of it.
    static let minMarkShare = 0.4

    /// Least length over height of a mark that is a word (letters touching) rather than a letter:
    /// the widest letters ("m", "w") are about one and a half times as wide as high.
    static let wordMinAspect = 2.0

    /// Fewest heights a line is long: a word of four letters.
    static let minLineLength = 3.0

    /// Most heights a line of one mark is long: a word whose letters touch, of up to about 14
    /// letters at a little over half a height each. A longer lone mark is a rule, a bar or a box's
    /// edge; ranked by its length over its thickness it came first and pushed the text out of the
    /// lines read (on a form, five of the eight lines read were its rules).
    static let maxLoneMarkLength = 8.0

    /// A line of at least `dashedMinMarks` marks, each longer along the line than `dashedMinAspect`
    /// of its height across (not letters: words whose letters touch, or dashes), whose lengths
    /// differ by less than `dashedMaxLengthVariation` of their mean (standard deviation over mean),
    /// is a dashed or dotted rule: a form's leaders, a table of contents' dots. Words differ in
    /// length by about half their mean, leaders by far less; a form's leaders, read in four
    /// orientations, cost more than its words (decision 2).
    static let dashedMinMarks = 6
    static let dashedMinAspect = 1.5
    static let dashedMaxLengthVariation = 0.15

    /// Whether marks of these lengths along a line and heights across it are a dashed rule.
    static func isDashed(lengths: [Double], heights: [Double]) -> Bool {
        guard lengths.count >= dashedMinMarks else { return false }
        let aspects = zip(lengths, heights).map { $0 / max($1, 1) }.sorted()
        guard aspects[aspects.count / 2] >= dashedMinAspect else { return false }
        let mean = lengths.reduce(0, +) / Double(lengths.count)
        let variance = lengths.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(lengths.count)
        return variance.squareRoot() < dashedMaxLengthVariation * mean
    }

    /// Chains the marks `members` into lines running along `direction`.
    private func chain(_ members: [Int], of marks: [PixelBox], along direction: LineAngle) -> [TextLine] {
        guard !members.isEmpty else { return [] }
        let (ux, uy) = (cos(direction.radians), sin(direction.radians))
        let (nx, ny) = (-uy, ux)
        // Each mark along (a) and across (b) the lines: centre and half extents.
        struct Projected { var a: Double; var b: Double; var halfAlong: Double; var height: Double }
        let projected = members.map { i -> Projected in
            let m = marks[i]
            let (cx, cy) = (Double(m.x) + Double(m.width) / 2, Double(m.y) + Double(m.height) / 2)
            let (w, h) = (Double(m.width), Double(m.height))
            return Projected(
                a: cx * ux + cy * uy, b: cx * nx + cy * ny, halfAlong: (w * abs(ux) + h * abs(uy)) / 2,
                height: w * abs(uy) + h * abs(ux))
        }
        let order = projected.indices.sorted { projected[$0].b < projected[$1].b }
        var parent = Array(projected.indices)
        func root(_ i: Int) -> Int {
            var i = i
            while parent[i] != i {
                parent[i] = parent[parent[i]]
                i = parent[i]
            }
            return i
        }
        for (k, i) in order.enumerated() {
            let p = projected[i]
            for j in order[(k + 1)...] {
                let q = projected[j]
                // Centres within half the taller mark's height across: beyond the mark's own
                // height, no partner can be similar enough.
                if q.b - p.b > p.height { break }
                let tall = max(p.height, q.height)
                guard min(p.height, q.height) * 2 >= tall, q.b - p.b <= tall / 2 else { continue }
                let gap = abs(q.a - p.a) - p.halfAlong - q.halfAlong
                guard gap <= Self.maxGapInHeights * tall else { continue }
                let (x, y) = (root(i), root(j))
                if x != y { parent[max(x, y)] = min(x, y) }
            }
        }
        var groups: [Int: [Int]] = [:]
        for i in projected.indices { groups[root(i), default: []].append(i) }
        var lines: [TextLine] = []
        for group in groups.values {
            var (a0, a1, b0, b1) = (Double.infinity, -Double.infinity, Double.infinity, -Double.infinity)
            for i in group {
                let p = projected[i]
                a0 = min(a0, p.a - p.halfAlong)
                a1 = max(a1, p.a + p.halfAlong)
                b0 = min(b0, p.b - p.height / 2)
                b1 = max(b1, p.b + p.height / 2)
            }
            let heights = group.map { projected[$0].height }.sorted()
            let height = heights[heights.count / 2]
            guard height >= 4, (a1 - a0) >= Self.minLineLength * height,
                group.count > 1 || (a1 - a0) <= Self.maxLoneMarkLength * height,
                !Self.isDashed(
                    lengths: group.map { 2 * projected[$0].halfAlong }, heights: group.map { projected[$0].height })
            else { continue }
            let (a, b) = ((a0 + a1) / 2, (b0 + b1) / 2)
            lines.append(
                TextLine(
                    centerX: a * ux + b * nx, centerY: a * uy + b * ny, length: a1 - a0 + 2 * height,
                    thickness: b1 - b0 + height, markHeight: height, marks: group.count, direction: direction))
        }
        return lines
    }

    /// Longest first, in heights (about characters).
    private static func longestFirst(_ a: TextLine, _ b: TextLine) -> Bool {
        let (la, lb) = (a.length / a.markHeight, b.length / b.markHeight)
        if la != lb { return la > lb }
        if a.centerY != b.centerY { return a.centerY < b.centerY }
        return a.centerX < b.centerX
    }
}

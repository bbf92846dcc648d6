// Where to read: square windows over the densest text, so that Tesseract spends its time on a
// few lines of text instead of on a whole photo. Square, because the line direction is unknown
// until the candidates have been read.

extension AnalysisImage {
    /// Up to `request.count` non-overlapping square windows of side `request.sideInTextHeights`
    /// text heights, densest first, in the pixels of the `width` x `height` image the glyphs were
    /// found on. Windows holding fewer than `request.minGlyphs` glyphs are left out.
    static func densestWindows(
        of glyphs: [Glyph], width: Int, height: Int, textHeight: Double, _ request: WindowRequest
    ) -> [PixelBox] {
        let count = request.count
        guard !glyphs.isEmpty, count > 0 else { return [] }
        let side = max(16, Int(textHeight * request.sideInTextHeights))
        let cell = max(2, side / 6)
        let cols = (width + cell - 1) / cell
        let rows = (height + cell - 1) / cell
        var density = [Int](repeating: 0, count: cols * rows)
        for g in glyphs {
            let cx = min(cols - 1, max(0, Int(g.centerX) / cell))
            let cy = min(rows - 1, max(0, Int(g.centerY) / cell))
            density[cy * cols + cx] += 1
        }
        // Summed-area table: any window's glyph count in O(1).
        var sat = [Int](repeating: 0, count: (cols + 1) * (rows + 1))
        for y in 0..<rows {
            var rowSum = 0
            for x in 0..<cols {
                rowSum += density[y * cols + x]
                sat[(y + 1) * (cols + 1) + x + 1] = sat[y * (cols + 1) + x + 1] + rowSum
            }
        }
        func sum(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> Int {
            sat[y1 * (cols + 1) + x1] - sat[y0 * (cols + 1) + x1] - sat[y1 * (cols + 1) + x0]
                + sat[y0 * (cols + 1) + x0]
        }
        let span = max(1, min(side / cell, max(cols, rows)))
        let spanX = min(span, cols)
        let spanY = min(span, rows)
        var taken: [PixelBox] = []
        var used = [Bool](repeating: false, count: cols * rows)
        for _ in 0..<count {
            var best = (count: 0, x: 0, y: 0)
            for y in 0...(rows - spanY) {
                for x in 0...(cols - spanX) {
                    let n = sum(x, y, x + spanX, y + spanY)
                    guard n > best.count else { continue }
                    // Skip windows that overlap one already taken.
                    var overlaps = false
                    for cy in stride(from: y, to: y + spanY, by: max(1, spanY - 1)) where !overlaps {
                        for cx in stride(from: x, to: x + spanX, by: max(1, spanX - 1)) where used[cy * cols + cx] {
                            overlaps = true
                            break
                        }
                    }
                    if !overlaps { best = (n, x, y) }
                }
            }
            guard best.count >= request.minGlyphs else { break }
            for cy in best.y..<(best.y + spanY) {
                for cx in best.x..<(best.x + spanX) { used[cy * cols + cx] = true }
            }
            let box = PixelBox(
                x: best.x * cell, y: best.y * cell,
                width: min(spanX * cell, width - best.x * cell),
                height: min(spanY * cell, height - best.y * cell))
            taken.append(box)
        }
        return taken
    }
}

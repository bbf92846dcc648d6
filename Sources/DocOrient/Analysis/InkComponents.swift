// The letter-like marks of a grey page: its ink (pixels darker than a threshold) in 8-connected
// pieces, found in one pass over the grey pixels instead of a thresholded copy and a seed fill
// per piece (`pixThresholdToBinary` + `pixConnCompBB`, which the probe spent a sixth of its time
// in before any read), and only inside the region the caller keeps marks of.

extension Pix {
    /// The bounding boxes of the 8-connected pieces of ink (pixels darker than `threshold`) that
    /// lie wholly inside `box`, in the order Leptonica's `pixConnCompBB` gives them on the
    /// thresholded image (by each piece's first pixel in reading order): the same boxes as
    /// `thresholded(threshold).componentBoxes()` filtered to `box`, for one pass over `box`.
    ///
    /// Only `box` grown by one pixel is scanned: a piece inside `box` has its whole border of
    /// paper inside the grown box, so it is a piece of the grown box too, and a piece of the grown
    /// box that lies inside `box` is one of the page (its border, paper, is scanned).
    package func inkComponents(darkerThan threshold: Int, inside box: PixelBox) throws -> [PixelBox] {
        let x0 = max(0, box.x - 1), y0 = max(0, box.y - 1)
        let x1 = min(width, box.maxX + 1), y1 = min(height, box.maxY + 1)
        guard x0 < x1, y0 < y1 else { return [] }
        var labelling = RunLabelling()
        let level = UInt8(clamping: threshold)
        try withPackedGrayRows { rows, pitch in
            for y in y0..<y1 {
                let row = rows + y * pitch
                var x = x0
                while x < x1 {
                    while x < x1, row[Pix.byteIndex(x)] >= level { x += 1 }
                    guard x < x1 else { break }
                    let start = x
                    while x < x1, row[Pix.byteIndex(x)] < level { x += 1 }
                    labelling.add(y: y, from: start, to: x - 1)
                }
                labelling.endRow()
            }
        }
        return labelling.boxes().filter { $0.lies(inside: box) }
    }
}

/// 8-connected pieces of a binary image given as its runs of ink, row by row in reading order:
/// each run joins the runs of the row above that touch it, corners included (union-find over
/// runs, the earliest run of a piece its root).
struct RunLabelling {
    private var runY: [Int32] = []
    private var runStart: [Int32] = []
    private var runEnd: [Int32] = []
    private var parent: [Int32] = []
    /// The runs of the row above (indices), and of the row being added.
    private var above: Range<Int> = 0..<0
    private var rowStart = 0
    /// The first run of the row above not yet passed by the runs of this row.
    private var cursor = 0

    /// Adds the run of ink from `start` to `end` (inclusive) in row `y`, runs of a row left to right.
    mutating func add(y: Int, from start: Int, to end: Int) {
        let index = Int32(runY.count)
        runY.append(Int32(y))
        runStart.append(Int32(start))
        runEnd.append(Int32(end))
        parent.append(index)
        // Runs of the row above ending left of this run's left neighbour touch no later run either.
        while cursor < above.upperBound, Int(runEnd[cursor]) < start - 1 { cursor += 1 }
        var i = cursor
        while i < above.upperBound, Int(runStart[i]) <= end + 1 {
            union(Int32(i), index)
            i += 1
        }
    }

    /// Ends the row being added: its runs become the row above.
    mutating func endRow() {
        above = rowStart..<runY.count
        rowStart = runY.count
        cursor = above.lowerBound
    }

    /// Each piece's bounding box, pieces in the order of their first run.
    mutating func boxes() -> [PixelBox] {
        var boxOfRoot = [Int32](repeating: -1, count: runY.count)
        var boxes: [(minX: Int32, minY: Int32, maxX: Int32, maxY: Int32)] = []
        for i in 0..<runY.count {
            let root = Int(find(Int32(i)))
            if boxOfRoot[root] < 0 {
                // A root is its piece's first run, met before any other run of the piece.
                boxOfRoot[root] = Int32(boxes.count)
                boxes.append((runStart[i], runY[i], runEnd[i], runY[i]))
            } else {
                let b = Int(boxOfRoot[root])
                boxes[b].minX = min(boxes[b].minX, runStart[i])
                boxes[b].maxX = max(boxes[b].maxX, runEnd[i])
                boxes[b].maxY = max(boxes[b].maxY, runY[i])
            }
        }
        return boxes.map {
            PixelBox(
                x: Int($0.minX), y: Int($0.minY), width: Int($0.maxX - $0.minX) + 1,
                height: Int($0.maxY - $0.minY) + 1)
        }
    }

    private mutating func find(_ i: Int32) -> Int32 {
        var root = i
        while parent[Int(root)] != root { root = parent[Int(root)] }
        var j = i
        while parent[Int(j)] != root {
            let next = parent[Int(j)]
            parent[Int(j)] = root
            j = next
        }
        return root
    }

    /// Joins the pieces of runs a and b, the earlier root the root of both.
    private mutating func union(_ a: Int32, _ b: Int32) {
        let (ra, rb) = (find(a), find(b))
        if ra < rb { parent[Int(rb)] = ra } else if rb < ra { parent[Int(ra)] = rb }
    }
}

// The squares the orientation classifier is shown of one grey image, cut and resized here in Swift
// (and Leptonica's grey closing), so that the model's runtime, onnxruntime, is the only library the
// classifier needs. The arithmetic is the one the model was trained behind (PaddleClas's
// preprocessing in OpenCV: Lanczos for the centre square, area averaging for the text squares,
// both in OpenCV's fixed point), so that the squares are those docorient cut with OpenCV before:
// Models/classifier/test_classifier.py checks them against OpenCV's Python build.

import Foundation

/// The model's input for one image: the squares it is shown, as normalised planes.
///
/// - square 0, the model's own view: the image resized so that its short side is
///   `centreShortSide` (Lanczos, 8 taps), its centre `side` square;
/// - then up to `textSquares` squares where the text is densest: the image resized (area) to a
///   short side of `textShortSide`, its dark strokes measured by a 9x9 black-hat (values of 20 or
///   less dropped), and the squares on a quarter-square grid (and the last row and column) with
///   the most of it taken greedily, each overlapping those taken by at most half.
///
/// Each square's grey value v goes to all three channels as (v / 255 - mean[c]) / std[c] with
/// ImageNet's mean and std.
struct ClassifierSquares: Sendable {
    /// Side of the square the model reads.
    static let side = 224

    /// The squares, `count` x 3 x `side` x `side` floats.
    var tensor: [Float]
    /// Each square's origin (x, y) in its resized image: the centre square's first.
    var origins: [[Int]]
    /// How many squares were cut.
    var count: Int { origins.count }

    /// Cuts the squares of the grey `image`.
    /// - Throws: `.invalidRequest` for an empty image or a short side under the model's side;
    ///   `.library` when Leptonica fails.
    init(_ image: Raster, centreShortSide: Int, textShortSide: Int, textSquares: Int) throws {
        precondition(image.channels == 1, "the classifier's squares are cut from grey rasters")
        let side = Self.side
        guard image.width > 0, image.height > 0, textSquares >= 0, centreShortSide >= side, textShortSide >= side
        else {
            throw DocOrientError(.invalidRequest, "an empty image, or a short side under the model's side")
        }
        let (cw, ch) = Self.resizedSize(image, shortSide: centreShortSide)
        let centreOrigin = [(cw - side) / 2, (ch - side) / 2]
        var squares = [
            Resampling.lanczosWindow(
                image, width: cw, height: ch, x: centreOrigin[0], y: centreOrigin[1], side: side)
        ]
        var origins = [centreOrigin]
        if textSquares > 0 {
            let (tw, th) = Self.resizedSize(image, shortSide: textShortSide)
            let text = Resampling.area(image, width: tw, height: th)
            for origin in try Self.densestSquares(text, count: textSquares) {
                squares.append(text.window(x: origin[0], y: origin[1], side: side))
                origins.append(origin)
            }
        }
        tensor = Self.normalised(squares)
        self.origins = origins
    }

    /// Both sides scaled by the short side's factor, rounded half away from zero (PaddleClas's
    /// ResizeImage with resize_short).
    static func resizedSize(_ image: Raster, shortSide: Int) -> (width: Int, height: Int) {
        let factor = Double(shortSide) / Double(min(image.width, image.height))
        return (
            Int((Double(image.width) * factor).rounded(.toNearestOrAwayFromZero)),
            Int((Double(image.height) * factor).rounded(.toNearestOrAwayFromZero))
        )
    }

    // ImageNet's mean and std, the normalisation PaddleClas trained the model with.
    private static let mean: [Float] = [0.485, 0.456, 0.406]
    private static let std: [Float] = [0.229, 0.224, 0.225]

    /// Each square's grey values as the model's three normalised planes.
    static func normalised(_ squares: [[UInt8]]) -> [Float] {
        let plane = side * side
        var out = [Float](repeating: 0, count: squares.count * 3 * plane)
        let scale: Float = 1 / 255
        let (m0, m1, m2, s0, s1, s2) = (mean[0], mean[1], mean[2], std[0], std[1], std[2])
        out.withUnsafeMutableBufferPointer { out in
            let out = out.baseAddress!
            for (i, square) in squares.enumerated() {
                let (r, g, b) = ((i * 3) * plane, (i * 3 + 1) * plane, (i * 3 + 2) * plane)
                square.withUnsafeBufferPointer { square in
                    let square = square.baseAddress!
                    for p in 0..<plane {
                        let v = Float(square[p]) * scale
                        out[r + p] = (v - m0) / s0
                        out[g + p] = (v - m1) / s1
                        out[b + p] = (v - m2) / s2
                    }
                }
            }
        }
        return out
    }

    /// The origins of up to `count` squares where dark strokes are densest: a 9x9 black-hat (what
    /// is darker than its surroundings by up to a stroke's width: print and handwriting, not
    /// shadows or the table), values of 20 or less dropped as paper grain; squares on a grid of a
    /// quarter square plus the last row and column, most ink first (ties: lower, then further
    /// right), each kept when it overlaps those kept by at most half a square.
    static func densestSquares(_ image: Raster, count: Int) throws -> [[Int]] {
        let side = Self.side, step = side / 4
        guard image.width >= side, image.height >= side else { return [] }
        let grey = try Pix.gray(image)
        let hat = try grey.closedGray(size: 9).subtractingGray(grey).grayRaster()
        // Summed-area table of the black-hat, one row and column of zeros first.
        let (w, h) = (image.width, image.height)
        var sums = [Double](repeating: 0, count: (w + 1) * (h + 1))
        hat.pixels.withUnsafeBufferPointer { hat in
            let hat = hat.baseAddress!
            sums.withUnsafeMutableBufferPointer { sums in
                let sums = sums.baseAddress!
                for y in 0..<h {
                    var row = 0.0
                    for x in 0..<w {
                        let v = hat[y * w + x]
                        row += v > 20 ? Double(v) : 0
                        sums[(y + 1) * (w + 1) + x + 1] = sums[y * (w + 1) + x + 1] + row
                    }
                }
            }
        }
        func steps(_ length: Int) -> [Int] {
            var at = Array(stride(from: 0, through: length - side, by: step))
            if at.last != length - side { at.append(length - side) }
            return at
        }
        func ink(_ x: Int, _ y: Int) -> Double {
            let (top, bottom) = (y * (w + 1), (y + side) * (w + 1))
            return sums[bottom + x + side] - sums[top + x + side] - sums[bottom + x] + sums[top + x]
        }
        var all: [(ink: Double, y: Int, x: Int)] = []
        for y in steps(h) { for x in steps(w) { all.append((ink(x, y), y, x)) } }
        all.sort { a, b in a.ink != b.ink ? a.ink > b.ink : (a.y != b.y ? a.y > b.y : a.x > b.x) }
        var kept: [[Int]] = []
        for square in all {
            if kept.count == count { break }
            let apart = kept.allSatisfy { p in
                let overlap = max(0, side - abs(square.y - p[1])) * max(0, side - abs(square.x - p[0]))
                return Double(overlap) <= 0.5 * Double(side * side)
            }
            if apart { kept.append([square.x, square.y]) }
        }
        return kept
    }
}

extension Raster {
    /// The `side` x `side` grey pixels at (x, y), rows in reading order.
    func window(x: Int, y: Int, side: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: side * side)
        for row in 0..<side {
            let from = (y + row) * width + x
            out.replaceSubrange(row * side..<(row + 1) * side, with: pixels[from..<from + side])
        }
        return out
    }
}

/// Grey resizing in OpenCV's arithmetic for 8-bit images (the model's training preprocessing):
/// separable filters with weights in fixed point (1/2048), a horizontal then a vertical pass,
/// results rounded to the nearest grey level. The loops run over flat buffers: the suite runs a
/// debug build, where anything else costs a tenth of a second an image.
enum Resampling {
    /// Fixed-point weights: 11 bits.
    static let weightScale: Float = 2048

    /// The taps of each destination pixel along one side: `width` source pixels and their weights,
    /// `first` of them from `index[d * width]`.
    struct Taps<Weight> {
        var width: Int
        var index: [Int]
        var weight: [Weight]
        var count: Int { width == 0 ? 0 : index.count / width }

        /// Calls `body` with the taps' indices and weights as pointers (the resampling loops'
        /// inner reads, unchecked).
        func withPointers<R>(_ body: (UnsafePointer<Int>, UnsafePointer<Weight>) -> R) -> R {
            index.withUnsafeBufferPointer { i in
                weight.withUnsafeBufferPointer { w in body(i.baseAddress!, w.baseAddress!) }
            }
        }
    }

    /// The `side` x `side` window at (x, y) of `image` resized to `width` x `height` with an
    /// 8-tap Lanczos filter (a = 4), computing only that window.
    static func lanczosWindow(_ image: Raster, width: Int, height: Int, x: Int, y: Int, side: Int) -> [UInt8] {
        let columns = lanczosTaps(source: image.width, destination: width, from: x, count: side)
        let rows = lanczosTaps(source: image.height, destination: height, from: y, count: side)
        // The horizontal pass, for the band of source rows the window needs.
        let top = rows.index.min() ?? 0, bottom = rows.index.max() ?? 0
        var horizontal = [Int](repeating: 0, count: (bottom - top + 1) * side)
        var out = [UInt8](repeating: 0, count: side * side)
        image.pixels.withUnsafeBufferPointer { pixels in
            let pixels = pixels.baseAddress!
            columns.withPointers { ci, cw in
                horizontal.withUnsafeMutableBufferPointer { h in
                    let h = h.baseAddress!
                    for r in top...bottom {
                        let line = r * image.width, at = (r - top) * side
                        for i in 0..<side {
                            var sum = 0
                            for k in 0..<8 { sum += Int(pixels[line + ci[i * 8 + k]]) * cw[i * 8 + k] }
                            h[at + i] = sum
                        }
                    }
                }
            }
            horizontal.withUnsafeBufferPointer { h in
                let h = h.baseAddress!
                rows.withPointers { ri, rw in
                    out.withUnsafeMutableBufferPointer { out in
                        let out = out.baseAddress!
                        for j in 0..<side {
                            for i in 0..<side {
                                var sum = 0
                                for k in 0..<8 { sum += h[(ri[j * 8 + k] - top) * side + i] * rw[j * 8 + k] }
                                out[j * side + i] = clamped((sum + (1 << 21)) >> 22)
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// `image` resized to `width` x `height` by area: each destination pixel the mean of the source
    /// area it covers (fractional pixels weighted by their share). Enlarging, each destination
    /// pixel covers at most two source pixels a side: the same weights in fixed point.
    static func area(_ image: Raster, width: Int, height: Int) -> Raster {
        if width == image.width && height == image.height { return image }
        let scaleX = 1 / (Double(width) / Double(image.width))
        let scaleY = 1 / (Double(height) / Double(image.height))
        guard scaleX >= 1 && scaleY >= 1 else { return areaEnlarged(image, width: width, height: height) }
        if scaleX == scaleX.rounded() && scaleY == scaleY.rounded() {
            return areaWhole(image, factorX: Int(scaleX), factorY: Int(scaleY), width: width, height: height)
        }
        let columns = areaTaps(source: image.width, destination: width, scale: scaleX)
        let rows = areaTaps(source: image.height, destination: height, scale: scaleY)
        // Each destination pixel sums its taps in order from 0, as OpenCV does; the rows' pass
        // adds one source row at a time across the whole destination row (the same sums, in the
        // same order, for each pixel), and the padding taps (weight 0) are never visited.
        let columnsUsed = columns.used, rowsUsed = rows.used
        var horizontal = [Float](repeating: 0, count: image.height * width)
        var out = [UInt8](repeating: 0, count: width * height)
        image.pixels.withUnsafeBufferPointer { pixels in
            let pixels = pixels.baseAddress!
            columns.withPointers { ci, cw in
                horizontal.withUnsafeMutableBufferPointer { h in
                    let h = h.baseAddress!
                    let taps = columns.width
                    for r in 0..<image.height {
                        let line = pixels + r * image.width
                        let target = h + r * width
                        for d in 0..<width {
                            var sum: Float = 0
                            for k in d * taps..<d * taps + columnsUsed[d] {
                                sum += Float(line[ci[k]]) * cw[k]
                            }
                            target[d] = sum
                        }
                    }
                }
            }
        }
        var sums = [Float](repeating: 0, count: width)
        horizontal.withUnsafeBufferPointer { h in
            let h = h.baseAddress!
            sums.withUnsafeMutableBufferPointer { sums in
                let sums = sums.baseAddress!
                out.withUnsafeMutableBufferPointer { out in
                    let out = out.baseAddress!
                    let taps = rows.width
                    for d in 0..<height {
                        sums.update(repeating: 0, count: width)
                        for k in d * taps..<d * taps + rowsUsed[d] {
                            let (source, w) = (h + rows.index[k] * width, rows.weight[k])
                            for i in 0..<width { sums[i] += source[i] * w }
                        }
                        let target = out + d * width
                        for i in 0..<width { target[i] = clamped(Int(sums[i].rounded(.toNearestOrEven))) }
                    }
                }
            }
        }
        return Raster(width: width, height: height, pixels: out)
    }

    /// Shrinking by whole factors: the mean of each block, rounded half up.
    private static func areaWhole(_ image: Raster, factorX: Int, factorY: Int, width: Int, height: Int) -> Raster {
        var out = [UInt8](repeating: 0, count: width * height)
        let block = factorX * factorY
        image.pixels.withUnsafeBufferPointer { pixels in
            let pixels = pixels.baseAddress!
            for y in 0..<height {
                for x in 0..<width {
                    var sum = 0
                    for dy in 0..<factorY {
                        let line = (y * factorY + dy) * image.width + x * factorX
                        for dx in 0..<factorX { sum += Int(pixels[line + dx]) }
                    }
                    out[y * width + x] = clamped((sum + block / 2) / block)
                }
            }
        }
        return Raster(width: width, height: height, pixels: out)
    }

    /// Enlarging: two taps a side, the share of the destination pixel beyond the first source
    /// pixel going to the second, in fixed point; the vertical pass rounds as OpenCV's vector
    /// code does (the horizontal sums scaled down by 16, each product by 65536, the total by 4).
    private static func areaEnlarged(_ image: Raster, width: Int, height: Int) -> Raster {
        let columns = enlargingTaps(source: image.width, destination: width)
        let rows = enlargingTaps(source: image.height, destination: height)
        var horizontal = [Int](repeating: 0, count: image.height * width)
        var out = [UInt8](repeating: 0, count: width * height)
        image.pixels.withUnsafeBufferPointer { pixels in
            let pixels = pixels.baseAddress!
            for r in 0..<image.height {
                let line = r * image.width
                for d in 0..<width {
                    horizontal[r * width + d] =
                        Int(pixels[line + columns.index[2 * d]]) * columns.weight[2 * d]
                        + Int(pixels[line + columns.index[2 * d + 1]]) * columns.weight[2 * d + 1]
                }
            }
        }
        horizontal.withUnsafeBufferPointer { h in
            let h = h.baseAddress!
            for d in 0..<height {
                let (first, second) = (rows.index[2 * d] * width, rows.index[2 * d + 1] * width)
                let (a, b) = (rows.weight[2 * d], rows.weight[2 * d + 1])
                for i in 0..<width {
                    let sum = (((h[first + i] >> 4) * a) >> 16) + (((h[second + i] >> 4) * b) >> 16)
                    out[d * width + i] = clamped((sum + 2) >> 2)
                }
            }
        }
        return Raster(width: width, height: height, pixels: out)
    }

    /// A weight in fixed point, rounded to the nearest (ties to even).
    private static func fixed(_ weight: Float) -> Int { Int((weight * weightScale).rounded(.toNearestOrEven)) }

    /// The 8 taps of destination pixels `from..<from + count` along a side of `source` pixels
    /// resized to `destination`: sinc(x) sinc(x / 4) at the taps' distances, normalised.
    static func lanczosTaps(source: Int, destination: Int, from: Int, count: Int) -> Taps<Int> {
        let scale = 1 / (Double(destination) / Double(source))
        var taps = Taps<Int>(width: 8, index: [], weight: [])
        for d in from..<from + count {
            let centre = Float((Double(d) + 0.5) * scale - 0.5)
            let first = centre.rounded(.down)
            let fraction = Double(centre - first)
            var raw = [Float](repeating: 1, count: 8)
            var total: Float = 0
            for k in 0..<8 {
                let x = fraction + 3 - Double(k)
                if abs(x) > 1e-9 {
                    let (a, b) = (Double.pi * x, Double.pi * x / 4)
                    raw[k] = Float(sin(a) / a * (sin(b) / b))
                }
                total += raw[k]
            }
            let inverse = 1 / total
            for k in 0..<8 {
                taps.index.append(min(max(Int(first) - 3 + k, 0), source - 1))
                taps.weight.append(fixed(raw[k] * inverse))
            }
        }
        return taps
    }

    /// The source pixels each destination pixel covers when shrinking by `scale` (>= 1), each
    /// weighted by the share of the destination pixel it covers; rows padded with weight 0.
    static func areaTaps(source: Int, destination: Int, scale: Double) -> Taps<Float> {
        let width = Int(scale.rounded(.up)) + 1
        var taps = Taps<Float>(width: width, index: [], weight: [])
        for d in 0..<destination {
            let start = Double(d) * scale, end = start + scale
            let cell = min(scale, Double(source) - start)
            var used = 0
            for s in Int(start.rounded(.down))..<min(Int(end.rounded(.up)), source) {
                let overlap = min(end, Double(s + 1)) - max(start, Double(s))
                if overlap > 0 {
                    taps.index.append(s)
                    taps.weight.append(Float(overlap / cell))
                    used += 1
                }
            }
            for _ in used..<width {
                taps.index.append(0)
                taps.weight.append(0)
            }
        }
        return taps
    }

    /// Two taps per destination pixel when enlarging a side of `source` pixels to `destination`.
    static func enlargingTaps(source: Int, destination: Int) -> Taps<Int> {
        let inverseScale = Double(destination) / Double(source)
        let scale = 1 / inverseScale
        var taps = Taps<Int>(width: 2, index: [], weight: [])
        for d in 0..<destination {
            var first = Int((Double(d) * scale).rounded(.down))
            var beyond = Float(Double(d + 1) - Double(first + 1) * inverseScale)
            beyond = beyond <= 0 ? 0 : beyond - beyond.rounded(.down)
            if first >= source - 1 { (first, beyond) = (source - 1, 0) }
            taps.index += [first, min(first + 1, source - 1)]
            taps.weight += [fixed(1 - beyond), fixed(beyond)]
        }
        return taps
    }

    private static func clamped(_ value: Int) -> UInt8 { UInt8(min(max(value, 0), 255)) }
}

extension Resampling.Taps where Weight == Float {
    /// Per destination pixel, how many of its taps are used: those before the padding (weight 0)
    /// that `Resampling.areaTaps` fills each row up with.
    var used: [Int] {
        (0..<count).map { d in
            var n = 0
            while n < width, weight[d * width + n] > 0 { n += 1 }
            return n
        }
    }
}

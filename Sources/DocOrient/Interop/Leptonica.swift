internal import CLeptonica

/// An axis-aligned box in integer pixel coordinates (Leptonica's BOX, as a value).
package struct PixelBox: Sendable, Equatable {
    package var x: Int
    package var y: Int
    package var width: Int
    package var height: Int

    package init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    var maxX: Int { x + width }
    var maxY: Int { y + height }
    var area: Int { width * height }

    /// Whether the box lies wholly inside `other` (edges may touch).
    func lies(inside other: PixelBox) -> Bool {
        x >= other.x && y >= other.y && maxX <= other.maxX && maxY <= other.maxY
    }
}

/// One owned Leptonica image (`PIX *`), destroyed exactly once when the value ends.
///
/// Every operation returns a new image and leaves `self` untouched. A `Pix` is used by one thread
/// at a time (it is not `Sendable`); Leptonica itself keeps no shared mutable state on these paths.
package struct Pix: ~Copyable {
    /// The owned pointer. Borrowed by C calls only for their duration.
    let raw: UnsafeMutablePointer<PIX>

    /// Takes ownership of a pointer a Leptonica function returned; nil means that function failed.
    init(taking raw: UnsafeMutablePointer<PIX>?, _ operation: String) throws {
        guard let raw else { throw DocOrientError(.library, "Leptonica \(operation) failed") }
        self.raw = raw
    }

    deinit {
        var pointer: UnsafeMutablePointer<PIX>? = raw
        pixDestroy(&pointer)
    }

    package var width: Int { Int(pixGetWidth(raw)) }
    package var height: Int { Int(pixGetHeight(raw)) }
    /// Bits per pixel: 1 (binary, 1 = black ink), 8 (grey) or 32 (RGB).
    var depth: Int { Int(pixGetDepth(raw)) }

    // MARK: Construction

    /// A white image (0 everywhere; for 1 bpp, 0 is background). Stands for `pixCreate`.
    static func blank(width: Int, height: Int, depth: Int) throws -> Pix {
        try Pix(taking: pixCreate(Int32(width), Int32(height), Int32(depth)), "pixCreate")
    }

    /// An 8-bit grey image holding `image`'s pixels (one channel).
    package static func gray(_ image: Raster) throws -> Pix {
        precondition(image.channels == 1, "Pix.gray takes a one-channel raster")
        return try gray(width: image.width, height: image.height) { rows, pitch in
            image.pixels.withUnsafeBytes { src in
                guard let base = src.baseAddress else { return }
                for y in 0..<image.height {
                    (rows + y * pitch).update(
                        from: base.assumingMemoryBound(to: UInt8.self) + y * image.width, count: image.width)
                }
            }
        }
    }

    /// An 8-bit grey image whose pixels `fill` writes one byte each, rows in reading order and
    /// `pitch` bytes apart (a decoder can write them straight in). Stands for `pixCreateNoInit` +
    /// `pixEndianByteSwap` + `pixSetPadBits`.
    static func gray(
        width: Int, height: Int, fill: (_ rows: UnsafeMutablePointer<UInt8>, _ pitch: Int) throws -> Void
    ) throws -> Pix {
        let pix = try Pix(taking: pixCreateNoInit(Int32(width), Int32(height), 8), "pixCreateNoInit")
        guard let data = pixGetData(pix.raw) else { throw DocOrientError(.library, "Leptonica pixGetData failed") }
        try fill(UnsafeMutableRawPointer(data).assumingMemoryBound(to: UInt8.self), Int(pixGetWpl(pix.raw)) * 4)
        // Leptonica packs pixels big-endian inside native 32-bit words (the SET_DATA_BYTE macro):
        // rows written in reading order are put right with one word-wise swap (none on big-endian hosts).
        guard pixEndianByteSwap(pix.raw) == 0 else {
            throw DocOrientError(.library, "Leptonica pixEndianByteSwap failed")
        }
        // The bytes past each row's end were never written.
        _ = pixSetPadBits(pix.raw, LeptonicaArgument.padWithZeros)
        return pix
    }

    /// Decodes PNG, TIFF (or anything Leptonica reads) from memory. Stands for `pixReadMem`.
    static func decode(_ bytes: [UInt8]) throws -> Pix {
        let raw = bytes.withUnsafeBufferPointer { pixReadMem($0.baseAddress, $0.count) }
        guard let raw else { throw DocOrientError(.malformed, "the image data could not be decoded") }
        return try Pix(taking: raw, "pixReadMem")
    }

    // MARK: Conversions

    /// The 8-bit grey pixels in reading order, one byte each (what a library outside Leptonica
    /// reads). Stands for `pixEndianByteSwapNew`, which undoes Leptonica's word packing (see
    /// `gray(width:height:fill:)`).
    func grayRaster() throws -> Raster {
        precondition(depth == 8, "grayRaster reads 8-bit images")
        let swapped = try Pix(taking: pixEndianByteSwapNew(raw), "pixEndianByteSwapNew")
        guard let data = pixGetData(swapped.raw) else { throw DocOrientError(.library, "Leptonica pixGetData failed") }
        let (w, h, pitch) = (width, height, Int(pixGetWpl(swapped.raw)) * 4)
        let rows = UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self)
        var pixels = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<h { (out.baseAddress! + y * w).update(from: rows + y * pitch, count: w) }
        }
        return Raster(width: w, height: h, pixels: pixels)
    }

    /// Reads an 8-bit grey image's pixels in place, no copy: `body` gets the first row and the
    /// bytes from one row to the next. Pixel x of a row is byte `x ^ 3` on a little-endian host
    /// (Leptonica packs four pixels big-endian in each native 32-bit word: its GET_DATA_BYTE
    /// macro), byte x on a big-endian one: `Pix.byteIndex`. Stands for `pixGetData` + `pixGetWpl`.
    func withPackedGrayRows<R>(_ body: (_ rows: UnsafePointer<UInt8>, _ pitch: Int) throws -> R) throws -> R {
        precondition(depth == 8, "withPackedGrayRows reads 8-bit images")
        guard let data = pixGetData(raw) else { throw DocOrientError(.library, "Leptonica pixGetData failed") }
        return try body(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), Int(pixGetWpl(raw)) * 4)
    }

    /// Where pixel x of a row packed by Leptonica lies among the row's bytes
    /// (`withPackedGrayRows`).
    @inline(__always) static func byteIndex(_ x: Int) -> Int {
        #if _endian(little)
            x ^ 3
        #else
            x
        #endif
    }

    /// The image as 8-bit grey (colour maps removed, RGB to luminance). Stands for `pixConvertTo8`.
    func gray8() throws -> Pix {
        try Pix(taking: pixConvertTo8(raw, LeptonicaArgument.noColormap), "pixConvertTo8")
    }

    /// Scaled by `factor`; area-mapped when shrinking grey so thin strokes average instead of vanishing.
    /// Stands for `pixScaleAreaMap` / `pixScale`.
    package func scaled(by factor: Double) throws -> Pix {
        let f = Float(factor)
        if depth == 8 && factor < 0.7 {
            return try Pix(taking: pixScaleAreaMap(raw, f, f), "pixScaleAreaMap")
        }
        return try Pix(taking: pixScale(raw, f, f), "pixScale")
    }

    /// Grey closing (dilation, then erosion) by a `size` x `size` square (odd); what lies outside
    /// the image counts for neither. Stands for `pixCloseGray`.
    func closedGray(size: Int) throws -> Pix {
        try Pix(taking: pixCloseGray(raw, Int32(size), Int32(size)), "pixCloseGray")
    }

    /// This grey image less `other` (the same size), pixel by pixel, at least 0. Stands for
    /// `pixSubtractGray`.
    func subtractingGray(_ other: borrowing Pix) throws -> Pix {
        try Pix(taking: pixSubtractGray(nil, raw, other.raw), "pixSubtractGray")
    }

    /// Grey with uneven illumination flattened: the estimated background is mapped to `background`.
    /// Stands for `pixBackgroundNorm`.
    ///
    /// The tile shrinks (to no less than 4 pixels) so that the image holds at least 6 tiles each
    /// way: with fewer than 5, Leptonica cannot smooth its background map and silently returns
    /// the image unchanged (a 16-text-height window with 4-text-height tiles was never normalised).
    package func backgroundNormalized(tile: Int, background: Int = 200) throws -> Pix {
        let side = max(4, min(tile, min(width, height) / 6))
        return try Pix(
            taking: pixBackgroundNorm(raw, nil, nil, Int32(side), Int32(side), 100, 50, Int32(background), 2, 1),
            "pixBackgroundNorm")
    }

    /// Background normalisation to white, then one Otsu threshold for the whole image: flattens uneven
    /// light without turning paper grain and sensor noise into ink. Stands for
    /// `pixOtsuThreshOnBackgroundNorm`.
    package func otsuOnNormalizedBackground(tile: Int) throws -> Pix {
        var threshold: Int32 = 0
        return try Pix(
            taking: pixOtsuThreshOnBackgroundNorm(
                raw, nil, Int32(tile), Int32(tile), 100, 50, 255, 2, 2, 0.1, &threshold),
            "pixOtsuThreshOnBackgroundNorm")
    }

    /// Otsu's threshold between the dark and the bright pixels of a grey image (sampling every
    /// `step`th pixel). Stands for `pixSplitDistributionFgBg`.
    package func otsuThreshold(step: Int = 1) throws -> Int {
        var threshold: Int32 = 0
        guard
            pixSplitDistributionFgBg(raw, LeptonicaArgument.otsuSplit, Int32(max(1, step)), &threshold, nil, nil, nil)
                == 0
        else {
            throw DocOrientError(.library, "Leptonica pixSplitDistributionFgBg failed")
        }
        return Int(threshold)
    }

    /// Otsu's threshold of the pixels inside `box`, sampling every `step`th pixel of every
    /// `step`th row: no copy of the region. Stands for `pixGetGrayHistogramInRect` +
    /// `numaSplitDistribution` (what `pixSplitDistributionFgBg` does on a whole image).
    func otsuThreshold(in box: PixelBox, step: Int) throws -> Int {
        let histogram = try withBox(box) { b in pixGetGrayHistogramInRect(raw, b, Int32(max(1, step))) }
        guard let histogram else { throw DocOrientError(.library, "Leptonica pixGetGrayHistogramInRect failed") }
        defer {
            var owned: UnsafeMutablePointer<NUMA>? = histogram
            numaDestroy(&owned)
        }
        var threshold: Int32 = 0
        guard numaSplitDistribution(histogram, LeptonicaArgument.otsuSplit, &threshold, nil, nil, nil, nil, nil) == 0
        else {
            throw DocOrientError(.library, "Leptonica numaSplitDistribution failed")
        }
        return Int(threshold)
    }

    /// Share of the pixels of an 8 bpp image at `level` or brighter. Stands for `pixGetGrayHistogram`.
    func share(atLeast level: Int) throws -> Double {
        guard let histogram = pixGetGrayHistogram(raw, 1) else {
            throw DocOrientError(.library, "Leptonica pixGetGrayHistogram failed")
        }
        defer {
            var owned: UnsafeMutablePointer<NUMA>? = histogram
            numaDestroy(&owned)
        }
        var total: Float = 0
        var bright: Float = 0
        for i in 0..<256 {
            var v: Float = 0
            numaGetFValue(histogram, Int32(i), &v)
            total += v
            if i >= level { bright += v }
        }
        return total > 0 ? Double(bright / total) : 0
    }

    /// Mean grey level of an 8 bpp image. Stands for `pixGetAverageMasked` (no mask).
    func meanGray() throws -> Double {
        var mean: Float = 0
        guard pixGetAverageMasked(raw, nil, 0, 0, LeptonicaArgument.everyPixel, Int32(L_MEAN_ABSVAL), &mean) == 0 else {
            throw DocOrientError(.library, "Leptonica pixGetAverageMasked failed")
        }
        return Double(mean)
    }

    /// Binary image: ink where the pixel was background and background where it was ink. Stands for `pixInvert`.
    func inverted() throws -> Pix {
        try Pix(taking: pixInvert(nil, raw), "pixInvert")
    }

    /// Binary image: pixels darker than `threshold` become ink. Stands for `pixThresholdToBinary`.
    package func thresholded(_ threshold: Int) throws -> Pix {
        try Pix(taking: pixThresholdToBinary(raw, Int32(threshold)), "pixThresholdToBinary")
    }

    // MARK: Geometry (cheap on 1 bpp)

    /// Another owner of the same pixels (a reference-count bump, no copy). Stands for `pixClone`.
    func cloned() throws -> Pix {
        try Pix(taking: pixClone(raw), "pixClone")
    }

    /// Rotated clockwise by `quarterTurns` quarter turns. Stands for `pixRotateOrth`.
    package func rotated(quarterTurns: Int) throws -> Pix {
        try Pix(taking: pixRotateOrth(raw, Int32(((quarterTurns % 4) + 4) % 4)), "pixRotateOrth")
    }

    /// Turned counterclockwise by `radians` about the image centre (the size kept, white brought
    /// in at the corners), area-mapped so strokes stay smooth. Stands for `pixRotate`, whose
    /// own angle runs clockwise.
    func rotated(counterclockwiseBy radians: Double) throws -> Pix {
        try Pix(
            taking: pixRotate(raw, Float(-radians), Int32(L_ROTATE_AREA_MAP), Int32(L_BRING_IN_WHITE), 0, 0),
            "pixRotate")
    }

    /// Mirrored left-right. Stands for `pixFlipLR`.
    func flippedLeftRight() throws -> Pix {
        try Pix(taking: pixFlipLR(nil, raw), "pixFlipLR")
    }

    /// The pixels as a viewer shows them under `orientation` (the one place that composes it):
    /// mirrored left-right first, then turned clockwise by its quarter turns; `self` when there is
    /// nothing to do. Stands for `pixFlipLR` + `pixRotateOrth`.
    consuming func oriented(_ orientation: Orientation) throws -> Pix {
        _ = Leptonica.silenced
        var view = orientation.isMirrored ? try flippedLeftRight() : self
        if orientation.quarterTurns != 0 { view = try view.rotated(quarterTurns: orientation.quarterTurns) }
        return view
    }

    /// The part of the image inside `box` (clipped to the image). Stands for `pixClipRectangle`.
    package func cropped(to box: PixelBox) throws -> Pix {
        try Pix(taking: withBox(box) { b in pixClipRectangle(raw, b, nil) }, "pixClipRectangle")
    }

    /// Sets every pixel of an 8 bpp image to `gray`. Stands for `pixSetAllGray`.
    func fill(gray: Int) {
        _ = pixSetAllGray(raw, Int32(gray))
    }

    /// Copies `source` into this image with its top-left corner at (`x`, `y`). Stands for `pixRasterop`.
    func paste(_ source: borrowing Pix, x: Int, y: Int) {
        _ = pixRasterop(
            raw, Int32(x), Int32(y), Int32(source.width), Int32(source.height), PIX_SRC, source.raw, 0, 0)
    }

    // MARK: Morphology and components (1 bpp)

    /// Ink with its holes filled: background enclosed by ink (not reachable from the image edge)
    /// becomes ink. Stands for `pixFillClosedBorders`.
    func holesFilled() throws -> Pix {
        try Pix(taking: pixFillClosedBorders(raw, LeptonicaArgument.fourConnected), "pixFillClosedBorders")
    }

    /// Keeps the connected components whose width and height are both within the limits.
    /// Stands for two `pixSelectBySize` passes.
    func keepingComponents(minSide: Int, maxWidth: Int, maxHeight: Int) throws -> Pix {
        let small = try Pix(
            taking: pixSelectBySize(
                raw, Int32(maxWidth), Int32(maxHeight), 8, Int32(L_SELECT_IF_BOTH),
                Int32(L_SELECT_IF_LTE), nil),
            "pixSelectBySize")
        return try Pix(
            taking: pixSelectBySize(
                small.raw, Int32(minSide), Int32(minSide), 8, Int32(L_SELECT_IF_EITHER),
                Int32(L_SELECT_IF_GTE), nil),
            "pixSelectBySize")
    }

    /// Bounding boxes of the 8-connected components. Stands for `pixConnCompBB` + `boxaGetBoxGeometry`.
    package func componentBoxes() throws -> [PixelBox] {
        guard let boxa = pixConnCompBB(raw, LeptonicaArgument.eightConnected) else {
            throw DocOrientError(.library, "Leptonica pixConnCompBB failed")
        }
        defer {
            var owned: UnsafeMutablePointer<BOXA>? = boxa
            boxaDestroy(&owned)
        }
        let count = Int(boxaGetCount(boxa))
        var boxes: [PixelBox] = []
        boxes.reserveCapacity(count)
        for i in 0..<count {
            var x: Int32 = 0, y: Int32 = 0, w: Int32 = 0, h: Int32 = 0
            if boxaGetBoxGeometry(boxa, Int32(i), &x, &y, &w, &h) == 0 {
                boxes.append(PixelBox(x: Int(x), y: Int(y), width: Int(w), height: Int(h)))
            }
        }
        return boxes
    }

    /// Leptonica's ascender/descender count on 1 bpp text with horizontal lines: positive when the
    /// text is upright, negative when upside down, near 0 when it cannot tell. Cheap (a few
    /// hit-miss transforms) and only a hint. Stands for `pixOrientDetect` (the "up" confidence).
    func uprightness() -> Double {
        var up: Float = 0
        guard pixOrientDetect(raw, &up, nil, LeptonicaArgument.defaultMinimumCount, LeptonicaArgument.noDebug) == 0
        else { return 0 }
        return Double(up)
    }

    /// One pixel's value. Stands for `pixGetPixel`.
    func value(x: Int, y: Int) -> UInt32 {
        var v: UInt32 = 0
        _ = pixGetPixel(raw, Int32(x), Int32(y), &v)
        return v
    }

    /// Declares the resolution Tesseract should assume. Stands for `pixSetResolution`.
    package func setResolution(_ ppi: Int) {
        _ = pixSetResolution(raw, Int32(ppi), Int32(ppi))
    }
}

/// Runs `body` with a Leptonica BOX for `box`, destroyed when it returns (the one place that
/// creates and frees one). Stands for `boxCreate` + `boxDestroy`.
private func withBox<R>(_ box: PixelBox, _ body: (UnsafeMutablePointer<BOX>) throws -> R) throws -> R {
    guard let b = boxCreate(Int32(box.x), Int32(box.y), Int32(box.width), Int32(box.height)) else {
        throw DocOrientError(.library, "Leptonica boxCreate failed")
    }
    defer {
        var owned: UnsafeMutablePointer<BOX>? = b
        boxDestroy(&owned)
    }
    return try body(b)
}

/// Process-wide Leptonica settings.
enum Leptonica {
    /// Leptonica prints "Error in ..." lines to stderr for conditions the resolver handles, e.g.
    /// `pixBackgroundNorm` on a page with no bright background ("numaGetIValue: index not valid"
    /// from `pixFillMapHoles`, after which it returns a copy of its input). docorient reports real
    /// failures as `DocOrientError`, so the messages only garble the CLI's output. The severity is
    /// process-wide (`setMsgSeverity`); it is set once, before the first resolver runs.
    static let silenced: Void = {
        _ = setMsgSeverity(Int32(L_SEVERITY_NONE))
    }()
}

/// The constant arguments docorient passes to Leptonica, named by what they select (each is the
/// value Leptonica's documentation gives for that meaning).
enum LeptonicaArgument {
    /// `pixSetPadBits`: the bits past each row's end become 0.
    static let padWithZeros: Int32 = 0
    /// `pixConvertTo8`: a colour-mapped image becomes plain grey, without a colour map.
    static let noColormap: Int32 = 0
    /// `pixSplitDistributionFgBg`, `numaSplitDistribution`: score fraction 0, the split at the
    /// maximum of the between-class variance (Otsu).
    static let otsuSplit: Float = 0
    /// `pixGetAverageMasked`: sampling factor 1, every pixel counts.
    static let everyPixel: Int32 = 1
    /// Connectivity: only the 4 edge neighbours join (hole filling: a hole touching ink only at
    /// a corner is still a hole).
    static let fourConnected: Int32 = 4
    /// Connectivity: diagonal neighbours join too (the marks of a glyph stroke).
    static let eightConnected: Int32 = 8
    /// `pixOrientDetect`: 0 asks for its default minimum count of matches.
    static let defaultMinimumCount: Int32 = 0
    /// `pixOrientDetect`: no debug output.
    static let noDebug: Int32 = 0
    /// `pixWriteMemPng`: gamma 0, no gAMA chunk is written.
    static let noGamma: Float = 0
}

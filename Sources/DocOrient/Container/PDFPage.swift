// What a PDF viewer shows of a scanned page: the image's stored samples, placed by the content
// stream's transform at its `Do`, then turned by the page's /Rotate (../shared/DOMAIN.md section 3). Both
// steps are elements of the same group as the EXIF orientations, so what the page shows, and the
// /Rotate that would show it upright, are compositions.

/// The bounds a PDF is read within, and how one is recognised.
enum PDFPages {
    /// Most pages docorient reads in one PDF (checked on the page tree's /Count before it is walked).
    static let maxPages = 10_000
    /// Most bytes one page's content streams may decode to (a scanned page's are a few hundred).
    static let maxContentBytes = 64 << 20
    /// Bytes a page image's decoded samples may exceed their dimensions by (a trailing newline
    /// or a filter's padding) before the decoding is stopped as a bomb.
    static let sampleSlackBytes = 64 << 10
    /// Least share of the area of all images a page paints that its largest must cover to be
    /// the page's image: a scan with a logo stamped on it is still a scan; a collage is not.
    static let minDominantShare = 0.5

    /// Whether `bytes` are a PDF: the header `%PDF-` within the first 1024 bytes, where readers look.
    static func isPDF(_ bytes: [UInt8]) -> Bool {
        let header = Array("%PDF-".utf8)
        let end = min(bytes.count, 1024) - header.count
        guard end >= 0 else { return false }
        return (0...end).contains { Bytes.hasPrefix(bytes, header, at: $0) }
    }
}

/// How a PDF page shows its image: the content stream's placement and the page's /Rotate.
struct PDFPlacement: Sendable, Equatable {
    /// What the transform at the image's `Do` does to the stored samples (first row at the top).
    var placement: Orientation
    /// The page's /Rotate: a clockwise turn of everything the content draws.
    var rotation: Orientation

    /// The orientation a viewer shows the stored samples in: the placement, then /Rotate.
    var shown: Orientation { placement.followed(by: rotation) }

    /// What shows the stored samples as `target`: a new /Rotate and, when the page shows them
    /// mirrored against the target (which /Rotate cannot undo), a mirror drawn around the page's
    /// content before /Rotate turns it. Of the two mirrors, the one that keeps the page's /Rotate
    /// if either does, else the left-right one.
    func turn(showing target: Orientation) -> PDFTurn {
        // What must follow the placement: the mirror (its own inverse) and then the new /Rotate.
        let needed = placement.inverse.followed(by: target)
        guard needed.isMirrored else { return PDFTurn(rotation: needed, mirror: nil) }
        let turns = [Orientation.flipHorizontal, .flipVertical].map {
            PDFTurn(rotation: $0.followed(by: needed), mirror: $0)
        }
        return turns.first { $0.rotation == rotation } ?? turns[0]
    }

    /// The orientation a transform `a b c d e f` (image space, the unit square with the first
    /// sample row at the top, to user space, y up) gives the image on a screen whose y runs down;
    /// nil when it turns the image by an angle that is not a multiple of 90 degrees, skews it or
    /// flattens it. The translation does not matter.
    static func placement(ofMatrix m: [Double]) -> Orientation? {
        guard m.count == 6, m.allSatisfy(\.isFinite) else { return nil }
        let (a, b, c, d) = (m[0], m[1], m[2], m[3])
        let scale = max(abs(a), abs(b), abs(c), abs(d))
        guard scale > 0 else { return nil }
        // Numbers in content streams are written with few decimals: a turn of a quarter leaves
        // rounding noise of a few thousandths of the scale at most.
        let noise = scale * 1e-3
        func sign(_ v: Double) -> Int { abs(v) <= noise ? 0 : (v > 0 ? 1 : -1) }
        let upright = sign(b) == 0 && sign(c) == 0 && sign(a) != 0 && sign(d) != 0
        let sideways = sign(a) == 0 && sign(d) == 0 && sign(b) != 0 && sign(c) != 0
        guard upright || sideways else { return nil }
        // Moving right along a stored row moves by (a, b) in user space, (a, -b) on screen;
        // moving down a stored column moves the unit square's y down: (-c, -d) in user space,
        // (-c, d) on screen.
        let along = (sign(a), sign(-b))
        let down = (sign(-c), sign(d))
        let size = Size(width: 4, height: 4)
        for o in Orientation.allCases {
            let origin = o.displayPoint(fromStored: Point(x: 1, y: 1), storedSize: size)
            let right = o.displayPoint(fromStored: Point(x: 2, y: 1), storedSize: size)
            let below = o.displayPoint(fromStored: Point(x: 1, y: 2), storedSize: size)
            func direction(_ to: Point) -> (Int, Int) {
                (Int((to.x - origin.x).rounded()), Int((to.y - origin.y).rounded()))
            }
            if direction(right) == along, direction(below) == down {
                return o
            }
        }
        return nil
    }

    /// The clockwise turn of a /Rotate value (any multiple of 90, negative ones included); nil
    /// for others, which the PDF standard does not allow.
    static func rotation(degrees: Int) -> Orientation? {
        Orientation(degreesClockwise: degrees)
    }
}

/// How a page is turned to show its image as decided (`PDFPlacement.turn(showing:)`).
struct PDFTurn: Sendable, Equatable {
    /// The page's new /Rotate (never mirrored).
    var rotation: Orientation
    /// `.flipHorizontal` or `.flipVertical`: the mirror drawn around the page's content, in the
    /// page's own frame (before /Rotate); nil when the page needs none.
    var mirror: Orientation?

    /// The `cm` matrix (a b c d e f) that draws the page's content mirrored by `mirror` about the
    /// centre of what the page shows: its crop box clipped to its media box (ISO 32000-1, 14.11.2),
    /// wherever their origin lies, so that the mirrored content fills the same area. Nil when there
    /// is no mirror, or no such area (no media box, or a crop box outside it).
    static func mirrorMatrix(_ mirror: Orientation, mediaBox: [Double]?, cropBox: [Double]?) -> [Double]? {
        guard let media = mediaBox, media.count == 4, media.allSatisfy(\.isFinite) else { return nil }
        let crop = cropBox ?? media
        guard crop.count == 4, crop.allSatisfy(\.isFinite) else { return nil }
        // Corners may be stored in either order.
        let left = max(min(media[0], media[2]), min(crop[0], crop[2]))
        let right = min(max(media[0], media[2]), max(crop[0], crop[2]))
        let bottom = max(min(media[1], media[3]), min(crop[1], crop[3]))
        let top = min(max(media[1], media[3]), max(crop[1], crop[3]))
        guard left < right, bottom < top else { return nil }
        switch mirror {
        case .flipHorizontal: return [-1, 0, 0, 1, left + right, 0]
        case .flipVertical: return [1, 0, 0, -1, 0, bottom + top]
        default: return nil
        }
    }
}

/// An image XObject's decoded samples as the grey pixels the resolver reads.
enum PDFSamples {
    /// Grey pixels (0 black) from `data`, rows of `width` samples padded to whole bytes, as
    /// PDF stores them: 1, 2, 4, 8 or 16 bits of one component (grey, or a stencil mask whose 0
    /// paints), or 8 bits of three (RGB) or four (CMYK).
    /// - Throws: `.malformed` when the data is shorter than the dimensions say; nil is never
    ///   returned: a layout docorient does not read throws `.unsupportedFormat` with the reason.
    static func gray(
        _ data: [UInt8], width: Int, height: Int, bitsPerComponent bits: Int, components: Int, inverted: Bool
    ) throws -> Raster {
        guard width > 0, height > 0 else { throw DocOrientError(.malformed, "the page's image has no pixels") }
        guard let rowBytes = rowBytes(width: width, bitsPerComponent: bits, components: components) else {
            throw DocOrientError(
                .unsupportedFormat,
                "the page's image has "
                    + "\(components == 0 ? "a colour space docorient does not read" : "\(components) components") at "
                    + "\(bits) bits"
            )
        }
        guard data.count >= rowBytes * height else {
            throw DocOrientError(
                .malformed, "the page's image holds \(data.count) bytes, fewer than its \(width)x\(height) samples need"
            )
        }
        var pixels = [UInt8](repeating: 0, count: width * height)
        data.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let row = y * rowBytes
                    let o = y * width
                    switch (components, bits) {
                    case (1, 8):
                        for x in 0..<width { out[o + x] = src[row + x] }
                    case (1, 16):
                        for x in 0..<width { out[o + x] = src[row + 2 * x] }
                    case (1, _):
                        let maxValue = (1 << bits) - 1
                        for x in 0..<width {
                            let bit = x * bits
                            let value = (Int(src[row + bit / 8]) >> (8 - bits - bit % 8)) & maxValue
                            out[o + x] = UInt8(value * 255 / maxValue)
                        }
                    case (3, _):
                        for x in 0..<width {
                            let p = row + 3 * x
                            let (r, g, b) = (Int(src[p]), Int(src[p + 1]), Int(src[p + 2]))
                            let luma: Int = 299 * r + 587 * g + 114 * b
                            out[o + x] = UInt8(luma / 1000)
                        }
                    default:
                        for x in 0..<width {
                            let p = row + 4 * x
                            let (cyan, magenta, yellow) = (Int(src[p]), Int(src[p + 1]), Int(src[p + 2]))
                            let colour: Int = (30 * cyan + 59 * magenta + 11 * yellow) / 100
                            let ink = colour + Int(src[p + 3])
                            out[o + x] = UInt8(255 - min(255, ink))
                        }
                    }
                    if inverted, components == 1 {
                        for x in 0..<width { out[o + x] = 255 - out[o + x] }
                    }
                }
            }
        }
        return Raster(width: width, height: height, pixels: pixels)
    }

    /// Bytes per row of samples, nil for a layout docorient does not read.
    static func rowBytes(width: Int, bitsPerComponent bits: Int, components: Int) -> Int? {
        switch (components, bits) {
        case (1, 1), (1, 2), (1, 4), (1, 8), (1, 16): return (width * bits + 7) / 8
        case (3, 8): return width * 3
        case (4, 8): return width * 4
        default: return nil
        }
    }

    /// A one-strip TIFF (little-endian) holding Group 4 fax-coded rows as a PDF stores them
    /// (`/CCITTFaxDecode`, /K < 0), so that Leptonica (through libtiff) decodes them: `width` x
    /// `height` pixels. The rows' coding already says which runs are white, so /BlackIs1 true is
    /// TIFF's BlackIsZero and false its WhiteIsZero (checked against img2pdf's pages, which set it:
    /// Tests/PDF).
    static func faxTIFF(_ data: [UInt8], width: Int, height: Int, blackIs1: Bool) -> [UInt8] {
        let entries: [(tag: UInt16, type: UInt16, value: UInt32)] = [
            (256, 4, UInt32(width)),  // ImageWidth
            (257, 4, UInt32(height)),  // ImageLength
            (258, 3, 1),  // BitsPerSample
            (259, 3, 4),  // Compression: CCITT Group 4
            (262, 3, blackIs1 ? 1 : 0),  // PhotometricInterpretation
            (273, 4, 0),  // StripOffsets, set below
            (277, 3, 1),  // SamplesPerPixel
            (278, 4, UInt32(height)),  // RowsPerStrip
            (279, 4, UInt32(data.count)),  // StripByteCounts
            (293, 4, 0),  // T6Options
        ]
        let dataOffset = 8 + 2 + entries.count * 12 + 4
        var out: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
        func u16(_ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) {
            out += [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
        }
        u16(UInt16(entries.count))
        for entry in entries {
            u16(entry.tag)
            u16(entry.type)
            u32(1)
            let value = entry.tag == 273 ? UInt32(dataOffset) : entry.value
            if entry.type == 3 { u16(UInt16(value)); u16(0) } else { u32(value) }
        }
        u32(0)
        return out + data
    }
}

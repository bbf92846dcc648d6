// The eight EXIF orientations as the dihedral group D4.
//
// Every value is "mirror left-right first (or not), then rotate clockwise by a number of quarter
// turns". Composition, inverses, point and rect mapping are all derived from that pair, so the
// tables in ../shared/DOMAIN.md are consequences (checked by the tests), not hand-written switches.
// This file imports nothing: every other layer builds on it.

/// An EXIF orientation (TIFF tag 274): how a viewer must transform the stored pixels to display them.
///
/// Value semantics, `Sendable`, and cheap to copy.
public enum Orientation: Int, CaseIterable, Sendable, Codable, CustomStringConvertible {
    /// 1: display the stored pixels as they are.
    case identity = 1
    /// 2: flip left-right.
    case flipHorizontal = 2
    /// 3: rotate 180 degrees.
    case rotate180 = 3
    /// 4: flip top-bottom.
    case flipVertical = 4
    /// 5: transpose (mirror across the main diagonal).
    case transpose = 5
    /// 6: rotate 90 degrees clockwise.
    case rotate90 = 6
    /// 7: transverse (mirror across the anti-diagonal).
    case transverse = 7
    /// 8: rotate 90 degrees counter-clockwise (270 clockwise).
    case rotate270 = 8

    /// The orientation for an EXIF number, or nil for values that are not a usable tag (0, 9 and up).
    public init?(exifValue: Int) {
        self.init(rawValue: exifValue)
    }

    /// The EXIF number, 1...8.
    public var exifValue: Int { rawValue }

    /// Builds the element "mirror left-right first if `mirrored`, then rotate clockwise".
    /// - Parameter quarterTurns: clockwise quarter turns; any integer, taken modulo 4.
    public init(mirrored: Bool, quarterTurns: Int) {
        let turns = ((quarterTurns % 4) + 4) % 4
        switch (mirrored, turns) {
        case (false, 0): self = .identity
        case (false, 1): self = .rotate90
        case (false, 2): self = .rotate180
        case (false, _): self = .rotate270
        case (true, 0): self = .flipHorizontal
        case (true, 1): self = .transverse
        case (true, 2): self = .flipVertical
        case (true, _): self = .transpose
        }
    }

    /// Builds an orientation from a clockwise rotation in degrees (a multiple of 90, any sign).
    /// Returns nil when `degrees` is not a multiple of 90.
    public init?(degreesClockwise degrees: Int, mirrored: Bool = false) {
        guard degrees % 90 == 0 else { return nil }
        self.init(mirrored: mirrored, quarterTurns: degrees / 90)
    }

    /// Whether the transform includes a mirror (values 2, 4, 5, 7).
    public var isMirrored: Bool {
        switch self {
        case .flipHorizontal, .flipVertical, .transpose, .transverse: return true
        default: return false
        }
    }

    /// Clockwise quarter turns applied after the optional left-right mirror.
    public var quarterTurns: Int {
        switch self {
        case .identity, .flipHorizontal: return 0
        case .rotate90, .transverse: return 1
        case .rotate180, .flipVertical: return 2
        case .rotate270, .transpose: return 3
        }
    }

    /// Clockwise rotation in degrees applied after the optional mirror: 0, 90, 180 or 270.
    public var degreesClockwise: Int { quarterTurns * 90 }

    /// The rotation part alone (the mirror dropped).
    public var rotationPart: Orientation { Orientation(mirrored: false, quarterTurns: quarterTurns) }

    /// Whether width and height swap when the transform is applied.
    public var swapsDimensions: Bool { quarterTurns % 2 == 1 }

    /// The transform that applies `self` first and `next` second.
    ///
    /// With R a clockwise quarter turn and F a left-right mirror, F R = R^-1 F, so
    /// (R^b F^n)(R^a F^m) = R^(b + (n ? -a : a)) F^(m xor n).
    public func followed(by next: Orientation) -> Orientation {
        let turns = next.quarterTurns + (next.isMirrored ? -quarterTurns : quarterTurns)
        return Orientation(mirrored: isMirrored != next.isMirrored, quarterTurns: turns)
    }

    /// The transform that undoes `self`: mirrors are their own inverse, rotations turn back.
    public var inverse: Orientation {
        isMirrored ? self : Orientation(mirrored: false, quarterTurns: -quarterTurns)
    }

    /// The UIImageOrientation raw value with the same meaning (up 0, down 1, left 2, right 3,
    /// upMirrored 4, downMirrored 5, leftMirrored 6, rightMirrored 7).
    public var uiImageOrientationRawValue: Int {
        switch self {
        case .identity: return 0
        case .rotate180: return 1
        case .rotate270: return 2
        case .rotate90: return 3
        case .flipHorizontal: return 4
        case .flipVertical: return 5
        case .transpose: return 6
        case .transverse: return 7
        }
    }

    /// The orientation for a UIImageOrientation raw value, or nil outside 0...7.
    public init?(uiImageOrientationRawValue raw: Int) {
        guard let match = Orientation.allCases.first(where: { $0.uiImageOrientationRawValue == raw }) else {
            return nil
        }
        self = match
    }

    /// The name of the libjpeg-turbo lossless transform that performs this orientation.
    var turboJPEGOperationName: String {
        switch self {
        case .identity: return "TJXOP_NONE"
        case .flipHorizontal: return "TJXOP_HFLIP"
        case .rotate180: return "TJXOP_ROT180"
        case .flipVertical: return "TJXOP_VFLIP"
        case .transpose: return "TJXOP_TRANSPOSE"
        case .rotate90: return "TJXOP_ROT90"
        case .transverse: return "TJXOP_TRANSVERSE"
        case .rotate270: return "TJXOP_ROT270"
        }
    }

    /// The EXIF number and what it does, as docorient's messages print it: "6 (rotate 90 cw)".
    public var description: String {
        switch self {
        case .identity: return "1 (upright)"
        case .flipHorizontal: return "2 (mirrored left-right)"
        case .rotate180: return "3 (rotate 180)"
        case .flipVertical: return "4 (mirrored top-bottom)"
        case .transpose: return "5 (transpose)"
        case .rotate90: return "6 (rotate 90 cw)"
        case .transverse: return "7 (transverse)"
        case .rotate270: return "8 (rotate 90 ccw)"
        }
    }
}

/// A point in continuous pixel coordinates (pixel centres at +0.5).
public struct Point: Equatable, Sendable {
    /// Distance from the image's left edge, in pixels.
    public var x: Double
    /// Distance from the image's top edge, in pixels (y grows downwards, as in the stored rows).
    public var y: Double
    /// A point `x` pixels from the left edge and `y` pixels from the top edge.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A size in pixels.
public struct Size: Equatable, Sendable {
    /// Horizontal extent, in pixels.
    public var width: Double
    /// Vertical extent, in pixels.
    public var height: Double
    /// A size of `width` by `height` pixels.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
    /// The size with width and height exchanged.
    public var transposed: Size { Size(width: height, height: width) }
}

/// An axis-aligned rectangle in continuous pixel coordinates.
public struct Rect: Equatable, Sendable {
    /// The left edge, in pixels from the image's left edge.
    public var x: Double
    /// The top edge, in pixels from the image's top edge (y grows downwards).
    public var y: Double
    /// Horizontal extent, in pixels.
    public var width: Double
    /// Vertical extent, in pixels.
    public var height: Double
    /// The rectangle whose top-left corner is (`x`, `y`), `width` by `height` pixels.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

extension Orientation {
    /// The size of the displayed image for stored pixels of `storedSize`.
    public func displaySize(forStored storedSize: Size) -> Size {
        swapsDimensions ? storedSize.transposed : storedSize
    }

    /// Where a stored-space point appears on display, for stored pixels of `storedSize`.
    public func displayPoint(fromStored point: Point, storedSize: Size) -> Point {
        var p = point
        var size = storedSize
        if isMirrored { p.x = size.width - p.x }
        for _ in 0..<quarterTurns {
            // One clockwise quarter turn of a W x H image: (x, y) -> (H - y, x), size becomes H x W.
            p = Point(x: size.height - p.y, y: p.x)
            size = size.transposed
        }
        return p
    }

    /// Where a display-space point lies in the stored pixels of `storedSize`.
    public func storedPoint(fromDisplay point: Point, storedSize: Size) -> Point {
        inverse.displayPoint(fromStored: point, storedSize: displaySize(forStored: storedSize))
    }

    /// Maps a rectangle seen on display to the stored (raw) pixels of `storedSize`.
    public func storedRect(fromDisplay rect: Rect, storedSize: Size) -> Rect {
        inverse.mapRect(rect, in: displaySize(forStored: storedSize))
    }

    /// Maps a rectangle in the stored pixels of `storedSize` to where it is shown on display.
    public func displayRect(fromStored rect: Rect, storedSize: Size) -> Rect {
        mapRect(rect, in: storedSize)
    }

    private func mapRect(_ rect: Rect, in size: Size) -> Rect {
        let a = displayPoint(fromStored: Point(x: rect.x, y: rect.y), storedSize: size)
        let b = displayPoint(
            fromStored: Point(x: rect.x + rect.width, y: rect.y + rect.height), storedSize: size)
        return Rect(x: min(a.x, b.x), y: min(a.y, b.y), width: abs(a.x - b.x), height: abs(a.y - b.y))
    }
}

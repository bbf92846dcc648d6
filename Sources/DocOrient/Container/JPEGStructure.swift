/// One marker segment of a JPEG file, as found before the first scan.
struct JPEGSegment: Sendable {
    /// The byte after 0xFF (0xE1 for APP1, 0xC0 for SOF0, ...).
    var marker: UInt8
    /// Absolute offset of the 0xFF that starts the segment.
    var start: Int
    /// Absolute range of the payload (after the 2-byte length).
    var payload: Range<Int>
}

/// The segments of a JPEG up to its first scan, and where orientation lives in them.
struct JPEGStructure: Sendable {
    static let exifHeader: [UInt8] = Array("Exif\0\0".utf8)
    static let xmpHeader: [UInt8] = Array("http://ns.adobe.com/xap/1.0/\0".utf8)

    var segments: [JPEGSegment]
    var width: Int
    var height: Int
    /// Number of colour components in the frame (1 grey, 3 YCbCr, 4 CMYK).
    var components: Int
    /// The SOF marker: 0xC0 baseline, 0xC2 progressive, 0xC9... arithmetic.
    var frameMarker: UInt8
    /// Index in `segments` of the first EXIF APP1 and its parsed TIFF structure.
    var exifSegment: Int?
    var exif: TIFFStructure?
    /// Index in `segments` of the XMP APP1 and where its tiff:Orientation digits are.
    var xmpSegment: Int?
    var xmpOrientation: XMPOrientation?
    /// Indices in `segments` of every EXIF APP1 (more than one is unusual; readers use the first,
    /// docorient rewrites the orientation in all of them so none is left disagreeing).
    var exifSegments: [Int] = []

    /// Walks the marker segments of `b` up to the first SOS.
    /// - Throws: `.malformed` naming what is broken, `.unsupportedFormat` if it is not a JPEG.
    static func parse(_ b: [UInt8]) throws -> JPEGStructure {
        guard Bytes.hasPrefix(b, [0xFF, 0xD8]) else {
            throw DocOrientError(.unsupportedFormat, "not a JPEG (no SOI marker)")
        }
        var segments: [JPEGSegment] = []
        var frame: (width: Int, height: Int, components: Int, marker: UInt8)?
        var at = 2
        var sawScan = false
        while at < b.count {
            guard b[at] == 0xFF else {
                throw DocOrientError(
                    .malformed, "JPEG marker expected at byte \(at), found 0x\(String(b[at], radix: 16))")
            }
            var m = at + 1
            while m < b.count, b[m] == 0xFF { m += 1 }  // fill bytes
            guard m < b.count else { break }
            let marker = b[m]
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                at = m + 1
                continue
            }
            if marker == 0xD9 { break }
            guard let length = Bytes.u16(b, m + 1, bigEndian: true), length >= 2, m + 1 + length <= b.count else {
                throw DocOrientError(
                    .malformed,
                    "JPEG segment 0xFF\(String(marker, radix: 16, uppercase: true)) at byte \(at) is truncated")
            }
            let payload = (m + 3)..<(m + 1 + length)
            segments.append(JPEGSegment(marker: marker, start: at, payload: payload))
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                guard payload.count >= 6, let h = Bytes.u16(b, payload.lowerBound + 1, bigEndian: true),
                    let w = Bytes.u16(b, payload.lowerBound + 3, bigEndian: true)
                else { throw DocOrientError(.malformed, "JPEG frame header is truncated") }
                if frame == nil { frame = (w, h, Int(b[payload.lowerBound + 5]), marker) }
            }
            if marker == 0xDA {
                sawScan = true
                break
            }
            at = payload.upperBound
        }
        guard let frame else { throw DocOrientError(.malformed, "JPEG has no frame header (SOF)") }
        guard sawScan else {
            throw DocOrientError(.malformed, "JPEG has no image data (no SOS marker); the file is truncated")
        }
        guard frame.width > 0, frame.height > 0 else {
            throw DocOrientError(.malformed, "JPEG frame header gives a \(frame.width)x\(frame.height) image")
        }
        var s = JPEGStructure(
            segments: segments, width: frame.width, height: frame.height, components: frame.components,
            frameMarker: frame.marker)
        for (i, seg) in segments.enumerated() where seg.marker == 0xE1 {
            if Bytes.hasPrefix(b, exifHeader, at: seg.payload.lowerBound) {
                s.exifSegments.append(i)
                if s.exifSegment == nil {
                    s.exifSegment = i
                    s.exif = try TIFFStructure.parse(b, base: seg.payload.lowerBound + 6, end: seg.payload.upperBound)
                }
            } else if s.xmpSegment == nil, Bytes.hasPrefix(b, xmpHeader, at: seg.payload.lowerBound) {
                s.xmpSegment = i
                s.xmpOrientation = XMPOrientation.find(
                    in: b, range: (seg.payload.lowerBound + xmpHeader.count)..<seg.payload.upperBound)
            }
        }
        return s
    }

    /// Where a new APP1 goes: after SOI and any JFIF/JFXX APP0 segments, before everything else.
    func insertionOffset(_ b: [UInt8]) -> Int {
        var offset = 2
        for seg in segments {
            guard seg.marker == 0xE0, seg.start == offset else { break }
            offset = seg.payload.upperBound
        }
        return offset
    }
}

/// The digits of an XMP `tiff:Orientation` value (attribute or element form).
struct XMPOrientation: Sendable {
    /// Absolute range of the value text (usually a single digit).
    var digits: Range<Int>

    func read(_ b: [UInt8]) -> Int? {
        guard digits.count <= 6 else { return nil }
        var v = 0
        for i in digits { v = v * 10 + Int(b[i] - 0x30) }
        return v
    }

    static func find(in b: [UInt8], range: Range<Int>) -> XMPOrientation? {
        let name = Array("tiff:Orientation".utf8)
        var i = range.lowerBound
        while i + name.count < range.upperBound {
            guard b[i] == name[0], Bytes.hasPrefix(b, name, at: i) else {
                i += 1
                continue
            }
            var j = i + name.count
            // Attribute form: tiff:Orientation="6"; element form: <tiff:Orientation>6</...>
            while j < range.upperBound, b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0A || b[j] == 0x0D { j += 1 }
            guard j < range.upperBound else { return nil }
            if b[j] == UInt8(ascii: "=") {
                j += 1
                while j < range.upperBound, b[j] == 0x20 || b[j] == 0x09 { j += 1 }
                guard j < range.upperBound, b[j] == UInt8(ascii: "\"") || b[j] == UInt8(ascii: "'") else { return nil }
                j += 1
            } else if b[j] == UInt8(ascii: ">") {
                j += 1
                while j < range.upperBound, b[j] == 0x20 || b[j] == 0x09 || b[j] == 0x0A || b[j] == 0x0D { j += 1 }
            } else {
                i = j
                continue
            }
            var k = j
            while k < range.upperBound, (0x30...0x39).contains(b[k]) { k += 1 }
            return k > j ? XMPOrientation(digits: j..<k) : nil
        }
        return nil
    }
}

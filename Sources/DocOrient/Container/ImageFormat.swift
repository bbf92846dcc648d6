/// The file formats docorient reads and writes.
public enum ImageFormat: String, Sendable, Codable {
    /// JPEG (JFIF or Exif): orientation in the APP1 Exif IFD0 and IFD1 and in APP1 XMP.
    case jpeg
    /// PNG: orientation in an `eXIf` chunk (a TIFF header and IFDs, as in JPEG's Exif).
    case png
    /// TIFF, either byte order: orientation in IFD0's own Orientation entry.
    case tiff
    /// HEIF still image (HEIC, AVIF; told by the `ftyp` brands): orientation in the primary
    /// image's `irot` and `imir` properties, which viewers apply; the EXIF inside is informational.
    case heif

    /// Identifies the format from the first bytes of a file.
    /// - Throws: `.unsupportedFormat` naming what was detected (WebP, GIF, PDF, video, ...).
    public static func detect(_ b: [UInt8]) throws -> ImageFormat {
        if b.isEmpty { throw DocOrientError(.unsupportedFormat, "unsupported format: the file is empty") }
        if Bytes.hasPrefix(b, [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if Bytes.hasPrefix(b, PNGStructure.signature) { return .png }
        if Bytes.hasPrefix(b, [0x49, 0x49, 0x2A, 0x00]) || Bytes.hasPrefix(b, [0x4D, 0x4D, 0x00, 0x2A]) {
            return .tiff
        }
        if isHEIF(b) { return .heif }
        throw DocOrientError(
            .unsupportedFormat,
            "unsupported format: \(describeUnsupported(b)); docorient handles JPEG, PNG, TIFF and HEIF (HEIC, AVIF)")
    }

    /// Whether the file starts with an `ftyp` box whose major or compatible brands name HEIF images.
    static func isHEIF(_ b: [UInt8]) -> Bool {
        guard b.count >= 16, Bytes.hasPrefix(b, Array("ftyp".utf8), at: 4), let size = Bytes.u32(b, 0, bigEndian: true),
            size >= 16, size <= min(b.count, 4096)
        else { return false }
        var brands = [ISOBox.fourCC(b, 8)]
        for at in stride(from: 16, to: size - 3, by: 4) { brands.append(ISOBox.fourCC(b, at)) }
        return brands.contains { HEIFStructure.imageBrands.contains($0) }
    }

    static func describeUnsupported(_ b: [UInt8]) -> String {
        func ascii(_ range: Range<Int>) -> String {
            guard range.upperBound <= b.count else { return "" }
            return String(decoding: b[range], as: UTF8.self)
        }
        if ascii(4..<8) == "ftyp" {
            let brand = ascii(8..<12)
            switch brand {
            case "msf1", "avis", "hevs": return "HEIF image sequence (brand '\(brand)')"
            default: return "ISO media file (brand '\(brand)')"
            }
        }
        if ascii(0..<4) == "RIFF", ascii(8..<12) == "WEBP" { return "WebP image" }
        if ascii(0..<4) == "GIF8" { return "GIF image" }
        if ascii(0..<5) == "%PDF-" { return "PDF document" }
        if Bytes.hasPrefix(b, [0x49, 0x49, 0x2B, 0x00]) || Bytes.hasPrefix(b, [0x4D, 0x4D, 0x00, 0x2B]) {
            // Its 64-bit offsets are a different directory layout from the one docorient edits in place.
            return
                "BigTIFF (64-bit offsets), which docorient does not edit; a file under 4 GB can be converted to "
                + "classic TIFF (tiffcp in.tif out.tif)"
        }
        if ascii(0..<2) == "BM" { return "BMP image" }
        if Bytes.hasPrefix(b, [0xFF, 0xD8]) { return "JPEG without a valid first marker" }
        if Bytes.hasPrefix(b, [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50]) { return "JPEG 2000 image" }
        return "not an image (unrecognised signature)"
    }
}

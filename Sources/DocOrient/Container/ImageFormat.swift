/// The file formats docorient reads and writes.
public enum ImageFormat: String, Sendable, Codable {
    /// JPEG (JFIF or Exif): orientation in the APP1 Exif IFD0 and IFD1 and in APP1 XMP.
    case jpeg
    /// PNG: orientation in an `eXIf` chunk (a TIFF header and IFDs, as in JPEG's Exif).
    case png
    /// TIFF, either byte order: orientation in IFD0's own Orientation entry.
    case tiff

    /// Identifies the format from the first bytes of a file.
    /// - Throws: `.unsupportedFormat` naming what was detected (HEIC, WebP, GIF, PDF, ...).
    public static func detect(_ b: [UInt8]) throws -> ImageFormat {
        if b.isEmpty { throw DocOrientError(.unsupportedFormat, "unsupported format: the file is empty") }
        if Bytes.hasPrefix(b, [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if Bytes.hasPrefix(b, PNGStructure.signature) { return .png }
        if Bytes.hasPrefix(b, [0x49, 0x49, 0x2A, 0x00]) || Bytes.hasPrefix(b, [0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        throw DocOrientError(.unsupportedFormat, "unsupported format: \(describeUnsupported(b)); docorient handles JPEG, PNG and TIFF")
    }

    static func describeUnsupported(_ b: [UInt8]) -> String {
        func ascii(_ range: Range<Int>) -> String {
            guard range.upperBound <= b.count else { return "" }
            return String(decoding: b[range], as: UTF8.self)
        }
        if ascii(4..<8) == "ftyp" {
            let brand = ascii(8..<12)
            switch brand {
            case "heic", "heix", "hevc", "heim", "heis", "mif1", "msf1": return "HEIC/HEIF image (brand '\(brand)')"
            case "avif", "avis": return "AVIF image"
            default: return "ISO media file (brand '\(brand)')"
            }
        }
        if ascii(0..<4) == "RIFF", ascii(8..<12) == "WEBP" { return "WebP image" }
        if ascii(0..<4) == "GIF8" { return "GIF image" }
        if ascii(0..<5) == "%PDF-" { return "PDF document" }
        if ascii(0..<2) == "BM" { return "BMP image" }
        if Bytes.hasPrefix(b, [0xFF, 0xD8]) { return "JPEG without a valid first marker" }
        if Bytes.hasPrefix(b, [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50]) { return "JPEG 2000 image" }
        return "not an image (unrecognised signature)"
    }
}

/// The chunks of a PNG file that concern orientation.
struct PNGStructure: Sendable {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    struct Chunk: Sendable {
        var type: String
        /// Absolute offset of the chunk's length field.
        var start: Int
        /// Absolute range of the chunk data.
        var data: Range<Int>
    }

    var chunks: [Chunk]
    var width: Int
    var height: Int
    var bitDepth: Int
    var colorType: Int
    /// Index of the eXIf chunk and its parsed TIFF structure.
    var exifChunk: Int?
    var exif: TIFFStructure?
    /// Index of the first IDAT chunk (an eXIf chunk must come before it).
    var firstIDAT: Int

    static func parse(_ b: [UInt8]) throws -> PNGStructure {
        guard Bytes.hasPrefix(b, signature) else { throw DocOrientError(.unsupportedFormat, "not a PNG") }
        var chunks: [Chunk] = []
        var at = 8
        while at + 12 <= b.count {
            guard let length = Bytes.u32(b, at, bigEndian: true), length <= b.count - at - 12 else {
                throw DocOrientError(.malformed, "PNG chunk at byte \(at) runs past the end of the file")
            }
            let type = String(decoding: b[(at + 4)..<(at + 8)], as: UTF8.self)
            chunks.append(Chunk(type: type, start: at, data: (at + 8)..<(at + 8 + length)))
            at += 12 + length
            if type == "IEND" { break }
        }
        guard let ihdr = chunks.first, ihdr.type == "IHDR", ihdr.data.count >= 13,
            let w = Bytes.u32(b, ihdr.data.lowerBound, bigEndian: true),
            let h = Bytes.u32(b, ihdr.data.lowerBound + 4, bigEndian: true), w > 0, h > 0
        else { throw DocOrientError(.malformed, "PNG does not start with a valid IHDR chunk") }
        guard let idat = chunks.firstIndex(where: { $0.type == "IDAT" }) else {
            throw DocOrientError(.malformed, "PNG has no image data (no IDAT chunk); the file is truncated")
        }
        var s = PNGStructure(
            chunks: chunks, width: w, height: h, bitDepth: Int(b[ihdr.data.lowerBound + 8]),
            colorType: Int(b[ihdr.data.lowerBound + 9]), firstIDAT: idat)
        if let i = chunks.firstIndex(where: { $0.type == "eXIf" }) {
            s.exifChunk = i
            s.exif = try TIFFStructure.parse(b, base: chunks[i].data.lowerBound, end: chunks[i].data.upperBound)
        }
        return s
    }

    /// A complete chunk (length, type, data, CRC) ready to splice into a file.
    static func chunk(type: String, data: [UInt8]) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        return Bytes.be32(data.count) + typeBytes + data + Bytes.be32(Int(crc32(typeBytes + data)))
    }

    /// Recomputes the CRC of the chunk at `index` after its data changed in place.
    func updateCRC(_ b: inout [UInt8], chunk index: Int) {
        let c = chunks[index]
        let crc = PNGStructure.crc32(Array(b[(c.start + 4)..<c.data.upperBound]))
        Bytes.put32(&b, c.data.upperBound, Int(crc), bigEndian: true)
    }

    private static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

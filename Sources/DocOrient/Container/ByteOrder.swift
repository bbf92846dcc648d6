/// Bounded big- and little-endian reads and writes over a byte array.
///
/// Every read checks its bounds and returns nil instead of trapping, because every byte docorient
/// parses comes from an untrusted file.
struct Bytes {
    static func u8(_ b: [UInt8], _ at: Int) -> Int? {
        guard at >= 0, at < b.count else { return nil }
        return Int(b[at])
    }

    static func u16(_ b: [UInt8], _ at: Int, bigEndian: Bool) -> Int? {
        guard at >= 0, at <= b.count - 2 else { return nil }
        let (x, y) = (Int(b[at]), Int(b[at + 1]))
        return bigEndian ? (x << 8 | y) : (y << 8 | x)
    }

    static func u32(_ b: [UInt8], _ at: Int, bigEndian: Bool) -> Int? {
        guard at >= 0, at <= b.count - 4 else { return nil }
        let v = (0..<4).map { Int(b[at + $0]) }
        return bigEndian
            ? (v[0] << 24 | v[1] << 16 | v[2] << 8 | v[3])
            : (v[3] << 24 | v[2] << 16 | v[1] << 8 | v[0])
    }

    static func put16(_ b: inout [UInt8], _ at: Int, _ value: Int, bigEndian: Bool) {
        let hi = UInt8((value >> 8) & 0xFF), lo = UInt8(value & 0xFF)
        b[at] = bigEndian ? hi : lo
        b[at + 1] = bigEndian ? lo : hi
    }

    static func put32(_ b: inout [UInt8], _ at: Int, _ value: Int, bigEndian: Bool) {
        for i in 0..<4 {
            let shift = bigEndian ? (3 - i) * 8 : i * 8
            b[at + i] = UInt8((value >> shift) & 0xFF)
        }
    }

    static func be16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }

    static func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> ((3 - $0) * 8)) & 0xFF) } }

    static func hasPrefix(_ b: [UInt8], _ prefix: [UInt8], at: Int = 0) -> Bool {
        guard at >= 0, at + prefix.count <= b.count else { return false }
        for i in 0..<prefix.count where b[at + i] != prefix[i] { return false }
        return true
    }
}

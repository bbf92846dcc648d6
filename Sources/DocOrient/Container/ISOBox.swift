/// One box of an ISO base media file (HEIF, AVIF): where its header, payload and end lie.
///
/// Every size comes from an untrusted file: `ISOBox.children` checks each against the bytes that
/// enclose it, so a box found here always lies inside its parent and inside the file.
struct ISOBox: Sendable, Equatable {
    /// The four-character type, e.g. "meta", "ipco", "irot".
    var type: String
    /// Absolute offset of the box's 32-bit size field.
    var start: Int
    /// Bytes of header before the payload: 8, 16 with a 64-bit `largesize`, 16 more for "uuid".
    var headerSize: Int
    /// Absolute end (exclusive).
    var end: Int
    /// Whether the size is stored in the 64-bit `largesize` field (size field 1).
    var usesLargeSize: Bool

    /// Absolute range of the payload (after the header; a FullBox's version and flags included).
    var payload: Range<Int> { (start + headerSize)..<end }
    /// The box's whole length in bytes.
    var size: Int { end - start }

    /// The most boxes docorient reads inside one container: real files hold a few dozen; the
    /// bound keeps a hostile file from costing more than a bounded walk.
    static let maxChildren = 100_000

    /// Reads the boxes that fill `b[range]`, in order.
    /// - Parameter topLevel: a size of 0 ("to the end of the file") is allowed only at the file's top level.
    /// - Throws: `.malformed` naming the box and offset when a size is below its header, runs past
    ///   the enclosing bytes, or a header is cut off.
    static func children(_ b: [UInt8], in range: Range<Int>, topLevel: Bool = false, parent: String) throws -> [ISOBox]
    {
        guard range.lowerBound >= 0, range.upperBound <= b.count else {
            throw DocOrientError(.malformed, "the \(parent) box lies outside the file")
        }
        var boxes: [ISOBox] = []
        var at = range.lowerBound
        while at < range.upperBound {
            guard boxes.count < maxChildren else {
                throw DocOrientError(.limitExceeded, "the \(parent) box holds more than \(maxChildren) boxes")
            }
            let left = range.upperBound - at
            guard left >= 8, let size32 = Bytes.u32(b, at, bigEndian: true) else {
                throw DocOrientError(
                    .malformed, "a box header at byte \(at) inside \(parent) is cut off (\(left) bytes left)")
            }
            let type = fourCC(b, at + 4)
            var headerSize = 8
            var size = size32
            var large = false
            if size32 == 1 {
                guard left >= 16, let high = Bytes.u32(b, at + 8, bigEndian: true),
                    let low = Bytes.u32(b, at + 12, bigEndian: true)
                else {
                    throw DocOrientError(.malformed, "the '\(type)' box at byte \(at) has a cut-off 64-bit size")
                }
                guard high < 0x8000 else {
                    throw DocOrientError(
                        .malformed, "the '\(type)' box at byte \(at) claims \(high) x 4 GiB, past the end of the file")
                }
                size = high << 32 | low
                headerSize = 16
                large = true
            } else if size32 == 0 {
                guard topLevel else {
                    throw DocOrientError(
                        .malformed,
                        "the '\(type)' box at byte \(at) inside \(parent) has size 0 (allowed only for the file's "
                            + "last box)"
                    )
                }
                size = left
            }
            if type == "uuid" { headerSize += 16 }
            guard size >= headerSize else {
                throw DocOrientError(
                    .malformed,
                    "the '\(type)' box at byte \(at) has size \(size32), smaller than its \(headerSize)-byte header")
            }
            guard size <= left else {
                throw DocOrientError(
                    .malformed, "the '\(type)' box at byte \(at) claims \(size) bytes, but \(parent) has \(left) left")
            }
            boxes.append(ISOBox(type: type, start: at, headerSize: headerSize, end: at + size, usesLargeSize: large))
            at += size
        }
        return boxes
    }

    /// The four bytes at `at` as text (non-ASCII bytes shown as "?"), e.g. "ftyp".
    static func fourCC(_ b: [UInt8], _ at: Int) -> String {
        guard at >= 0, at + 4 <= b.count else { return "????" }
        return String(b[at..<(at + 4)].map { (0x20..<0x7F).contains($0) ? Character(UnicodeScalar($0)) : "?" })
    }

    /// The big-endian bytes of a box header of `size` bytes and `type` (32-bit size, or the
    /// 64-bit form when `large`).
    static func header(type: String, size: Int, large: Bool) -> [UInt8] {
        let typeBytes = Array(type.utf8.prefix(4))
        if large { return Bytes.be32(1) + typeBytes + Bytes.be32(size >> 32) + Bytes.be32(size & 0xFFFF_FFFF) }
        return Bytes.be32(size) + typeBytes
    }
}

/// A bounded big-endian reader over one box's payload: every read throws `.malformed`, naming
/// the box, instead of running past it.
struct BoxReader {
    let bytes: [UInt8]
    /// Absolute offset of the next read.
    private(set) var at: Int
    /// Absolute end (exclusive) of what may be read.
    let end: Int
    /// The box being read, for messages.
    let box: String

    init(_ bytes: [UInt8], _ range: Range<Int>, box: String) {
        self.bytes = bytes
        self.at = range.lowerBound
        self.end = min(range.upperBound, bytes.count)
        self.box = box
    }

    var remaining: Int { max(0, end - at) }

    /// Reads an unsigned big-endian integer of `size` bytes (0, 1, 2, 4 or 8; 0 reads nothing and gives 0).
    mutating func uint(_ size: Int) throws -> Int {
        guard size >= 0, size <= 8, at + size <= end else {
            throw DocOrientError(.malformed, "the '\(box)' box is cut off at byte \(at)")
        }
        var v = 0
        for i in 0..<size {
            guard v >> 55 == 0 else {
                throw DocOrientError(.malformed, "the '\(box)' box holds a value over 2^63 at byte \(at)")
            }
            v = v << 8 | Int(bytes[at + i])
        }
        at += size
        return v
    }

    mutating func u8() throws -> Int { try uint(1) }
    mutating func u16() throws -> Int { try uint(2) }
    mutating func u32() throws -> Int { try uint(4) }

    mutating func skip(_ n: Int) throws {
        guard n >= 0, at + n <= end else {
            throw DocOrientError(.malformed, "the '\(box)' box is cut off at byte \(at)")
        }
        at += n
    }

    /// Skips a NUL-terminated string (infe's names); a missing NUL at the box end is tolerated.
    mutating func skipString() {
        while at < end, bytes[at] != 0 { at += 1 }
        if at < end { at += 1 }
    }

    /// Reads a NUL-terminated string (at most to the box end) as UTF-8.
    mutating func string() -> String {
        let start = at
        skipString()
        let end = at > start && bytes[at - 1] == 0 ? at - 1 : at
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    /// Reads a FullBox's version (8 bits) and flags (24 bits).
    mutating func fullBoxHeader() throws -> (version: Int, flags: Int) {
        let version = try u8()
        return (version, try uint(3))
    }
}

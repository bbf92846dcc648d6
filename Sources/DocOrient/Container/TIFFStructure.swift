/// Where a numeric TIFF value lives in a byte array, so it can be read and rewritten in place.
struct TIFFValueSlot: Equatable, Sendable {
    /// Absolute offset of the value in the containing byte array.
    var offset: Int
    /// LONG (4 bytes) rather than SHORT (2 bytes).
    var isLong: Bool
    var bigEndian: Bool

    func read(_ b: [UInt8]) -> Int? {
        isLong ? Bytes.u32(b, offset, bigEndian: bigEndian) : Bytes.u16(b, offset, bigEndian: bigEndian)
    }

    func write(_ b: inout [UInt8], _ value: Int) {
        if isLong {
            Bytes.put32(&b, offset, value, bigEndian: bigEndian)
        } else {
            Bytes.put16(&b, offset, value, bigEndian: bigEndian)
        }
    }
}

/// The parts of a TIFF structure (a TIFF file, or the EXIF block of a JPEG or PNG) that concern
/// orientation: IFD0's orientation, the thumbnail in IFD1 and the Exif IFD's pixel dimensions.
///
/// Offsets inside a TIFF structure count from its header at `base`; every slot here is absolute.
struct TIFFStructure: Sendable {
    enum Tag {
        static let newSubfileType = 0x00FE
        static let imageWidth = 0x0100
        static let imageLength = 0x0101
        static let bitsPerSample = 0x0102
        static let samplesPerPixel = 0x0115
        static let orientation = 0x0112
        static let exifIFD = 0x8769
        static let tileWidth = 0x0142
        static let thumbnailOffset = 0x0201
        static let thumbnailLength = 0x0202
        static let pixelXDimension = 0xA002
        static let pixelYDimension = 0xA003
    }

    /// Absolute offset of the "II*\0" / "MM\0*" header.
    let base: Int
    /// Absolute end (exclusive) of the bytes that belong to this structure.
    let end: Int
    let bigEndian: Bool
    /// Absolute offset of IFD0's entry count, and where the header points to it.
    var ifd0: Int
    var ifd0EntryCount: Int
    var orientation: TIFFValueSlot?
    var imageWidth: TIFFValueSlot?
    var imageLength: TIFFValueSlot?
    /// Bits per sample of the first channel (inline SHORT, or the first of an out-of-line list).
    var bitsPerSample: Int?
    var samplesPerPixel: TIFFValueSlot?
    var pixelXDimension: TIFFValueSlot?
    var pixelYDimension: TIFFValueSlot?
    var ifd1Orientation: TIFFValueSlot?
    var thumbnailOffset: TIFFValueSlot?
    var thumbnailLength: TIFFValueSlot?
    /// Whether IFD0's image is stored in tiles (it has a TileWidth) rather than strips.
    var isTiled = false

    /// Absolute byte range of the IFD1 thumbnail JPEG, when it is present and inside the structure.
    func thumbnailRange(in b: [UInt8]) -> Range<Int>? {
        guard let offset = thumbnailOffset?.read(b), let length = thumbnailLength?.read(b), length > 0,
            offset < end - base, length <= end - base - offset
        else { return nil }
        return (base + offset)..<(base + offset + length)
    }

    /// Parses the TIFF structure in `b[base..<end]`.
    /// - Throws: `.malformed` when the header or IFD0 is broken. Broken secondary directories
    ///   (IFD1, Exif IFD) are ignored, as every EXIF reader must on real camera files.
    static func parse(_ b: [UInt8], base: Int, end: Int) throws -> TIFFStructure {
        guard base >= 0, end <= b.count, end - base >= 8 else {
            throw DocOrientError(.malformed, "TIFF structure is shorter than its 8-byte header")
        }
        let bigEndian: Bool
        if Bytes.hasPrefix(b, [0x4D, 0x4D, 0x00, 0x2A], at: base) {
            bigEndian = true
        } else if Bytes.hasPrefix(b, [0x49, 0x49, 0x2A, 0x00], at: base) {
            bigEndian = false
        } else {
            throw DocOrientError(.malformed, "TIFF header is neither 'II*' nor 'MM*'")
        }
        guard let first = Bytes.u32(b, base + 4, bigEndian: bigEndian) else {
            throw DocOrientError(.malformed, "TIFF header is truncated")
        }
        var s = TIFFStructure(base: base, end: end, bigEndian: bigEndian, ifd0: base + first, ifd0EntryCount: 0)
        guard let ifd0 = s.directory(b, at: first) else {
            throw DocOrientError(.malformed, "IFD0 offset \(first) lies outside the \(end - base)-byte TIFF structure")
        }
        s.ifd0EntryCount = ifd0.entries.count
        var exifIFDOffset: Int?
        for e in ifd0.entries {
            switch e.tag {
            case Tag.orientation: s.orientation = e.slot
            case Tag.imageWidth: s.imageWidth = e.slot
            case Tag.imageLength: s.imageLength = e.slot
            case Tag.exifIFD: exifIFDOffset = e.slot?.read(b)
            case Tag.samplesPerPixel: s.samplesPerPixel = e.slot
            case Tag.tileWidth: s.isTiled = true
            case Tag.bitsPerSample where e.type == 3:
                // Count 1 or 2 fits inline; more lives at the offset in the value field.
                let at =
                    e.count <= 2 ? e.at + 8 : (Bytes.u32(b, e.at + 8, bigEndian: bigEndian).map { base + $0 } ?? -1)
                s.bitsPerSample = at + 2 <= end ? Bytes.u16(b, at, bigEndian: bigEndian) : nil
            default: break
            }
        }
        var visited: Set<Int> = [first]
        if let offset = exifIFDOffset, visited.insert(offset).inserted, let exif = s.directory(b, at: offset) {
            for e in exif.entries {
                if e.tag == Tag.pixelXDimension { s.pixelXDimension = e.slot }
                if e.tag == Tag.pixelYDimension { s.pixelYDimension = e.slot }
            }
        }
        if ifd0.next != 0, visited.insert(ifd0.next).inserted, let ifd1 = s.directory(b, at: ifd0.next) {
            for e in ifd1.entries {
                switch e.tag {
                case Tag.orientation: s.ifd1Orientation = e.slot
                case Tag.thumbnailOffset: s.thumbnailOffset = e.slot
                case Tag.thumbnailLength: s.thumbnailLength = e.slot
                default: break
                }
            }
        }
        return s
    }

    struct Entry {
        var tag: Int
        var type: Int
        var count: Int
        /// Absolute offset of the entry's 12 bytes.
        var at: Int
        /// The inline SHORT or LONG value of a count-1 entry; nil for any other shape.
        var slot: TIFFValueSlot?
    }

    struct Directory {
        var entries: [Entry]
        /// The next IFD's offset relative to `base`, 0 when none.
        var next: Int
    }

    /// Reads the directory at `offset` (relative to `base`), or nil if it does not fit.
    func directory(_ b: [UInt8], at offset: Int) -> Directory? {
        let start = base + offset
        guard offset >= 8, start < end, let count = Bytes.u16(b, start, bigEndian: bigEndian),
            start + 2 + count * 12 + 4 <= end
        else { return nil }
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for i in 0..<count {
            let at = start + 2 + i * 12
            guard let tag = Bytes.u16(b, at, bigEndian: bigEndian),
                let type = Bytes.u16(b, at + 2, bigEndian: bigEndian),
                let n = Bytes.u32(b, at + 4, bigEndian: bigEndian)
            else { return nil }
            var slot: TIFFValueSlot?
            if n == 1, type == 3 || type == 4 {
                slot = TIFFValueSlot(offset: at + 8, isLong: type == 4, bigEndian: bigEndian)
            }
            entries.append(Entry(tag: tag, type: type, count: n, at: at, slot: slot))
        }
        let next = Bytes.u32(b, start + 2 + count * 12, bigEndian: bigEndian) ?? 0
        return Directory(entries: entries, next: next)
    }
}

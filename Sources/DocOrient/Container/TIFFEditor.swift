/// Sets orientation values inside a TIFF structure, changing no other byte that is in use.
enum TIFFEditor {
    /// Returns `tiff` (a standalone TIFF structure, header at 0) with IFD0's orientation set to
    /// `value` and IFD1's too when it has one.
    ///
    /// An existing entry is a 2-byte (or 4-byte, if stored as LONG) edit. When IFD0 has no
    /// orientation entry, a copy of IFD0 with the entry added is appended and the header pointed
    /// at it: every offset in the structure stays valid, so maker notes and thumbnails survive.
    static func settingOrientation(
        _ value: Int, in tiff: [UInt8], pixelDimensions: (x: Int, y: Int)? = nil
    ) throws -> [UInt8] {
        var out = tiff
        var s = try TIFFStructure.parse(out, base: 0, end: out.count)
        if s.orientation == nil {
            out = try appendingOrientationEntry(to: out, structure: s)
            s = try TIFFStructure.parse(out, base: 0, end: out.count)
        }
        s.orientation?.write(&out, value)
        s.ifd1Orientation?.write(&out, value)
        if let pixelDimensions {
            s.pixelXDimension?.write(&out, pixelDimensions.x)
            s.pixelYDimension?.write(&out, pixelDimensions.y)
        }
        return out
    }

    private static func appendingOrientationEntry(to tiff: [UInt8], structure s: TIFFStructure) throws -> [UInt8] {
        guard let ifd0 = s.directory(tiff, at: s.ifd0 - s.base) else {
            throw DocOrientError(.malformed, "IFD0 cannot be read")
        }
        var out = tiff
        if out.count % 2 == 1 { out.append(0) }  // IFDs start on a word boundary
        let newOffset = out.count
        var entries: [[UInt8]] = ifd0.entries.map { Array(tiff[$0.at..<($0.at + 12)]) }
        var entry = [UInt8](repeating: 0, count: 12)
        Bytes.put16(&entry, 0, TIFFStructure.Tag.orientation, bigEndian: s.bigEndian)
        Bytes.put16(&entry, 2, 3, bigEndian: s.bigEndian)  // SHORT
        Bytes.put32(&entry, 4, 1, bigEndian: s.bigEndian)
        let position = ifd0.entries.firstIndex { $0.tag > TIFFStructure.Tag.orientation } ?? entries.count
        entries.insert(entry, at: position)
        var table = [UInt8](repeating: 0, count: 2)
        Bytes.put16(&table, 0, entries.count, bigEndian: s.bigEndian)
        table += entries.flatMap { $0 }
        var next = [UInt8](repeating: 0, count: 4)
        Bytes.put32(&next, 0, ifd0.next, bigEndian: s.bigEndian)
        out += table + next
        Bytes.put32(&out, 4, newOffset, bigEndian: s.bigEndian)
        return out
    }
}

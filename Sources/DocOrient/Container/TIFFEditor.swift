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

    /// `tiff` (a TIFF file) as its first image is stored: a copy whose IFD0 Orientation says 1,
    /// or `tiff` itself when it already does or has none, for readers that turn the pixels by
    /// the tag (Leptonica's `pixReadMem`).
    static func storedPixels(_ tiff: [UInt8]) throws -> [UInt8] {
        let s = try TIFFStructure.parse(tiff, base: 0, end: tiff.count)
        guard let slot = s.orientation, slot.read(tiff) != 1 else { return tiff }
        var out = tiff
        slot.write(&out, 1)
        return out
    }

    private static func appendingOrientationEntry(to tiff: [UInt8], structure s: TIFFStructure) throws -> [UInt8] {
        var out = tiff
        _ = try appendingCopy(ofDirectoryAt: s.ifd0 - s.base, linkedFrom: 4, orientation: 1, in: s, to: &out)
        return out
    }

    /// Returns the TIFF file `tiff` with the Orientation of each page in `values` (page index,
    /// 0-based, to EXIF value) set, and every other byte as it was except where a page has no
    /// Orientation entry to edit: that page's IFD is copied, with the entry added, to the end of
    /// the file and the link that pointed at it (the header's, or the previous IFD's next-IFD
    /// field) points at the copy. No strip, tile or out-of-line value moves, so every offset in
    /// every page stays valid; the old IFD is left behind, unreferenced.
    static func settingOrientations(_ values: [Int: Int], in tiff: [UInt8], pages: TIFFPages) throws -> [UInt8] {
        let s = try TIFFStructure.parse(tiff, base: 0, end: tiff.count)
        let byDirectory = Dictionary(uniqueKeysWithValues: values.map { (pages.pages[$0.key], $0.value) })
        var out = tiff
        // Where the next-IFD field of each directory copied so far now is.
        var movedNext: [Int: Int] = [:]
        for (index, directory) in pages.directories.enumerated() {
            guard let value = byDirectory[index] else { continue }
            if let slot = directory.orientation {
                slot.write(&out, value)
                continue
            }
            let link = index == 0 ? directory.link : (movedNext[index - 1] ?? directory.link)
            movedNext[index] = try appendingCopy(
                ofDirectoryAt: directory.offset, linkedFrom: link, orientation: value, in: s, to: &out)
        }
        return out
    }

    /// Appends to `out` a copy of the IFD at `offset` (relative to `s.base`, which must be 0 in
    /// `out`) whose Orientation entry is one SHORT `value` (in place of any it had, of any
    /// shape), with the same next-IFD offset, and points the 4 bytes at `link` at it.
    /// - Returns: the absolute offset of the copy's next-IFD field.
    /// - Throws: `.malformed` when the IFD cannot be read, `.limitExceeded` when the copy would
    ///   lie past what a TIFF's 32-bit offsets reach.
    private static func appendingCopy(
        ofDirectoryAt offset: Int, linkedFrom link: Int, orientation value: Int, in s: TIFFStructure,
        to out: inout [UInt8]
    ) throws -> Int {
        guard let directory = s.directory(out, at: offset) else {
            throw DocOrientError(.malformed, "the IFD at offset \(offset) cannot be read")
        }
        var entries: [[UInt8]] = directory.entries.filter { $0.tag != TIFFStructure.Tag.orientation }
            .map { Array(out[$0.at..<($0.at + 12)]) }
        var entry = [UInt8](repeating: 0, count: 12)
        Bytes.put16(&entry, 0, TIFFStructure.Tag.orientation, bigEndian: s.bigEndian)
        Bytes.put16(&entry, 2, 3, bigEndian: s.bigEndian)  // SHORT
        Bytes.put32(&entry, 4, 1, bigEndian: s.bigEndian)
        Bytes.put16(&entry, 8, value, bigEndian: s.bigEndian)
        let position =
            directory.entries.filter { $0.tag != TIFFStructure.Tag.orientation }
            .firstIndex { $0.tag > TIFFStructure.Tag.orientation } ?? entries.count
        entries.insert(entry, at: position)
        if out.count % 2 == 1 { out.append(0) }  // IFDs start on a word boundary
        let newOffset = out.count
        guard newOffset + 2 + entries.count * 12 + 4 <= Int(UInt32.max) else {
            throw DocOrientError(
                .limitExceeded, "an IFD appended to the TIFF would lie past the 4 GB its offsets reach")
        }
        var table = [UInt8](repeating: 0, count: 2)
        Bytes.put16(&table, 0, entries.count, bigEndian: s.bigEndian)
        table += entries.flatMap { $0 }
        var next = [UInt8](repeating: 0, count: 4)
        Bytes.put32(&next, 0, directory.next, bigEndian: s.bigEndian)
        out += table + next
        Bytes.put32(&out, s.base + link, newOffset - s.base, bigEndian: s.bigEndian)
        return newOffset + 2 + entries.count * 12
    }
}

/// Sets the orientation tag of a file without touching its pixels: the default fix.
public enum TagRewrite {
    /// Returns `bytes` with every orientation value (EXIF IFD0, IFD1 and XMP `tiff:Orientation`)
    /// set to `orientation`. Outside those values every byte is unchanged, except where a value
    /// has to be added: a JPEG or PNG without EXIF gets a minimal block, an IFD0 without an
    /// orientation entry gets an extended copy appended (so no existing offset moves), and a PNG
    /// chunk's CRC follows its data.
    ///
    /// A TIFF of several pages gets `orientation` on every page, each page's tag edited in place
    /// (or its IFD copied with the tag added, `TIFFEditor.settingOrientations`).
    ///
    /// HEIF (HEIC, AVIF): the primary image's `irot`/`imir` properties are set so that viewers
    /// display it as `orientation`, and the informational EXIF orientation inside becomes 1; every
    /// coded byte is kept (see `HEIFEditor` for what may move).
    /// - Throws: `DocOrientError` for unsupported or malformed input, and for HEIF layouts that
    ///   cannot be edited safely (then naming what was found).
    public static func setting(_ orientation: Orientation, in bytes: [UInt8]) throws -> [UInt8] {
        let value = orientation.exifValue
        switch try ParsedImage.parse(bytes) {
        case .jpeg(let jpeg):
            return try JPEGEditor.setting(value, in: bytes, jpeg: jpeg)
        case .png(let png):
            var out = bytes
            if let index = png.exifChunk {
                let chunk = png.chunks[index]
                let edited = try TIFFEditor.settingOrientation(value, in: Array(bytes[chunk.data]))
                if edited.count == chunk.data.count {
                    out.replaceSubrange(chunk.data, with: edited)
                    png.updateCRC(&out, chunk: index)
                } else {
                    out.replaceSubrange(
                        chunk.start..<(chunk.data.upperBound + 4), with: PNGStructure.chunk(type: "eXIf", data: edited))
                }
            } else {
                let tiff = try ExifBlock.minimalTIFF(orientation: orientation)
                out.insert(
                    contentsOf: PNGStructure.chunk(type: "eXIf", data: tiff), at: png.chunks[png.firstIDAT].start)
            }
            return out
        case .tiff:
            let pages = try TIFFPages.parse(bytes)
            guard pages.pages.count > 1 else { return try TIFFEditor.settingOrientation(value, in: bytes) }
            let every = Dictionary(uniqueKeysWithValues: pages.pages.indices.map { ($0, value) })
            return try TIFFEditor.settingOrientations(every, in: bytes, pages: pages)
        case .heif:
            return try HEIFEditor.setting(orientation, in: bytes)
        }
    }
}

/// Edits the orientation-bearing segments of a JPEG.
enum JPEGEditor {
    /// Sets EXIF (IFD0 and IFD1) and XMP orientation to `value`; optionally also the Exif IFD pixel
    /// dimensions and the IFD1 thumbnail, as a bake needs.
    static func setting(
        _ value: Int, in bytes: [UInt8], jpeg: JPEGStructure, pixelDimensions: (x: Int, y: Int)? = nil,
        thumbnail: (([UInt8]) throws -> [UInt8])? = nil
    ) throws -> [UInt8] {
        var out = bytes
        // Edits run from the end of the file backwards, so earlier offsets stay valid.
        var edits: [(range: Range<Int>, bytes: [UInt8])] = []
        if let xmp = jpeg.xmpOrientation {
            edits.append(xmpEdit(xmp, value: value, in: bytes))
        }
        for index in jpeg.exifSegments.dropFirst() {
            let payload = jpeg.segments[index].payload
            // A later block is only patched in place; a broken one is left as it is (readers ignore it).
            if let other = try? TIFFStructure.parse(bytes, base: payload.lowerBound + 6, end: payload.upperBound) {
                other.orientation?.write(&out, value)
                other.ifd1Orientation?.write(&out, value)
            }
        }
        if let index = jpeg.exifSegment, let exif = jpeg.exif {
            let segment = jpeg.segments[index]
            var tiff = try TIFFEditor.settingOrientation(
                value, in: Array(bytes[exif.base..<exif.end]), pixelDimensions: pixelDimensions)
            if let thumbnail {
                tiff = try replacingThumbnail(in: tiff, with: thumbnail)
            }
            if tiff.count == exif.end - exif.base {
                edits.append((exif.base..<exif.end, tiff))
            } else {
                edits.append((segment.start..<segment.payload.upperBound, try app1(JPEGStructure.exifHeader + tiff)))
            }
        } else {
            let tiff = try ExifBlock.minimalTIFF(orientation: Orientation(exifValue: value) ?? .identity)
            let at = jpeg.insertionOffset(bytes)
            edits.append((at..<at, try app1(JPEGStructure.exifHeader + tiff)))
        }
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            out.replaceSubrange(edit.range, with: edit.bytes)
        }
        return out
    }

    static func app1(_ payload: [UInt8]) throws -> [UInt8] {
        guard payload.count + 2 <= 0xFFFF else {
            throw DocOrientError(.limitExceeded, "the EXIF block would exceed the 64 KB a JPEG segment can hold")
        }
        return [0xFF, 0xE1] + Bytes.be16(payload.count + 2) + payload
    }

    /// Replaces the XMP digits, keeping the segment length: a shorter value is followed by
    /// spaces after its closing quote or tag, which XML ignores.
    static func xmpEdit(_ xmp: XMPOrientation, value: Int, in bytes: [UInt8]) -> (Range<Int>, [UInt8]) {
        let digits = Array(String(value).utf8)
        let extra = xmp.digits.count - digits.count
        guard extra > 0, xmp.digits.upperBound < bytes.count else { return (xmp.digits, digits) }
        let closing = bytes[xmp.digits.upperBound]
        if closing == UInt8(ascii: "\"") || closing == UInt8(ascii: "'") {
            return (
                xmp.digits.lowerBound..<(xmp.digits.upperBound + 1),
                digits + [closing] + Array(repeating: 0x20, count: extra)
            )
        }
        return (xmp.digits, digits + Array(repeating: 0x20, count: extra))
    }

    /// Passes the IFD1 thumbnail through `transform` and puts the result back: in place when it
    /// fits, or at the end of the structure when the thumbnail was the last thing in it.
    static func replacingThumbnail(in tiff: [UInt8], with transform: ([UInt8]) throws -> [UInt8]) throws -> [UInt8] {
        let s = try TIFFStructure.parse(tiff, base: 0, end: tiff.count)
        guard let range = s.thumbnailRange(in: tiff), let lengthSlot = s.thumbnailLength else { return tiff }
        let rotated = try transform(Array(tiff[range]))
        var out = tiff
        if range.upperBound == tiff.count {
            out.replaceSubrange(range, with: rotated)
        } else if rotated.count <= range.count {
            out.replaceSubrange(range.lowerBound..<(range.lowerBound + rotated.count), with: rotated)
            for i in (range.lowerBound + rotated.count)..<range.upperBound { out[i] = 0 }
        } else {
            throw DocOrientError(.invalidRequest, "the rotated EXIF thumbnail does not fit where the old one was")
        }
        lengthSlot.write(&out, rotated.count)
        return out
    }
}

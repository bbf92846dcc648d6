/// Applies an orientation to the pixels themselves and leaves orientation 1 behind.
public enum Bake {
    /// The default pixel limit for decoding and transforming: 100 megapixels.
    public static let defaultMaxPixels = 100_000_000

    /// What a bake did to a file.
    public enum Outcome: Equatable, Sendable {
        /// The pixels were transformed losslessly; every orientation value now says 1.
        case baked(Orientation)
        /// The pixels already display upright and every tag says so: nothing changed.
        case unchanged
        /// A perfect lossless transform was impossible (partial MCU blocks on an edge that moves),
        /// so the pixels were left alone and the tag rewritten to `Orientation` instead.
        case tagRewrittenInstead(Orientation, reason: String)
    }

    /// A bake's output: the new file bytes and what was done to produce them.
    public struct Result: Sendable {
        /// The whole file to write: the input itself when `outcome` is `.unchanged`.
        public var bytes: [UInt8]
        /// Whether the pixels were turned, left alone, or only the tag rewritten (and why).
        public var outcome: Outcome
    }

    /// Bakes `orientation` (default: the file's own effective tag) into the pixels.
    ///
    /// JPEG: TurboJPEG's lossless DCT-domain transform; every marker is kept; EXIF IFD0, IFD1 and
    /// XMP orientation become 1, the IFD1 thumbnail is transformed too, and PixelXDimension/
    /// PixelYDimension follow the new frame. Unless `trim` is set, a transform that would move
    /// partial MCU blocks is not done: the tag is rewritten instead, which displays the same.
    ///
    /// PNG and TIFF: decoded, turned exactly and re-encoded with lossless compression (PNG
    /// deflate; TIFF deflate, or G4 for 1-bit). PNG keeps its colour, text and time chunks (pHYs
    /// turned with the image, eXIf set to 1); a TIFF keeps its pixels and resolution, not its other
    /// tags. 16-bit images are refused rather than reduced to 8 bits; so is a TIFF of several
    /// pages (`.invalidRequest`: its pages are turned by their tags). HEIF is refused
    /// (`.invalidRequest`): its pixels cannot be turned without re-encoding them.
    /// - Throws: `DocOrientError` for unsupported, malformed or corrupt input.
    /// - Parameter maxPixels: frames larger than this are refused before any pixel memory is
    ///   allocated (a 65500x65500 header in a small file is a decompression bomb).
    public static func apply(
        _ orientation: Orientation? = nil, to bytes: [UInt8], trim: Bool = false, maxPixels: Int = defaultMaxPixels
    ) throws -> Result {
        let parsed = try ParsedImage.parse(bytes)
        let metadata = try parsed.metadata(bytes)
        let pixels = metadata.width.multipliedReportingOverflow(by: metadata.height)
        guard !pixels.overflow, pixels.partialValue <= maxPixels else {
            throw DocOrientError(
                .limitExceeded,
                "the image is \(metadata.width)x\(metadata.height), over the limit of \(maxPixels) pixels; raise the "
                    + "pixel limit to read it"
            )
        }
        let target = orientation ?? metadata.effectiveOrientation ?? .identity
        let jpeg: JPEGStructure
        switch parsed {
        case .jpeg(let j): jpeg = j
        case .png(let png): return try bakePNG(bytes, png: png, metadata: metadata, target: target)
        case .tiff(let tiff): return try bakeTIFF(bytes, tiff: tiff, metadata: metadata, target: target)
        case .heif:
            throw DocOrientError(
                .invalidRequest,
                "a HEIF image cannot be baked without re-encoding it (lossy); rewrite its orientation (irot/imir) "
                    + "instead, which every HEIF viewer applies"
            )
        }
        if target == .identity {
            let allUpright = [metadata.exifOrientation, metadata.xmpOrientation, metadata.thumbnailOrientation]
                .allSatisfy { $0 == nil || $0 == 1 }
            if allUpright { return Result(bytes: bytes, outcome: .unchanged) }
            return Result(bytes: try JPEGEditor.setting(1, in: bytes, jpeg: jpeg), outcome: .baked(.identity))
        }
        let transformed: [UInt8]
        do {
            transformed = try TurboJPEG.transform(bytes, orientation: target, edges: trim ? .trim : .perfect)
        } catch let error as DocOrientError where error.code == .imperfectTransform {
            let header = try TurboJPEG.header(bytes)
            let reason =
                "\(metadata.width)x\(metadata.height) is not a multiple of the "
                + "\(header.mcuWidth)x\(header.mcuHeight) MCU on an edge the transform moves; trimming drops the "
                + "partial blocks (a few edge pixels)"
            return Result(
                bytes: try TagRewrite.setting(target, in: bytes), outcome: .tagRewrittenInstead(target, reason: reason))
        }
        let out = try JPEGStructure.parse(transformed)
        let hasPixelDimensions = metadata.pixelXDimension != nil || metadata.pixelYDimension != nil
        guard out.exif != nil || out.xmpOrientation != nil else {
            return Result(bytes: transformed, outcome: .baked(target))
        }
        let fixed = try JPEGEditor.setting(
            1, in: transformed, jpeg: out,
            pixelDimensions: hasPixelDimensions ? (out.width, out.height) : nil,
            thumbnail: { try rotatedThumbnail($0, by: target) })
        return Result(bytes: fixed, outcome: .baked(target))
    }

    /// The IFD1 thumbnail turned like the main image: losslessly when its size allows, otherwise
    /// decoded, turned and re-encoded, so that it keeps every pixel and its exact shape (it is a
    /// 160x120 preview; one more lossy generation does not matter, lost edge rows would).
    static func rotatedThumbnail(_ thumbnail: [UInt8], by orientation: Orientation) throws -> [UInt8] {
        do {
            return try TurboJPEG.transform(thumbnail, orientation: orientation, edges: .perfect)
        } catch let error as DocOrientError where error.code == .imperfectTransform {
            let decoded = try TurboJPEG.decodeFull(thumbnail, rgb: true)
            let turned = decoded.transformed(by: orientation)
            return try TurboJPEG.encode(
                turned.pixels, width: turned.width, height: turned.height, subsampling: .s420, quality: 90)
        }
    }

    static func bakePNG(
        _ bytes: [UInt8], png: PNGStructure, metadata: ImageMetadata, target: Orientation
    ) throws -> Result {
        guard target != .identity || metadata.exifOrientation.map({ $0 != 1 }) == true else {
            return Result(bytes: bytes, outcome: .unchanged)
        }
        guard png.bitDepth <= 8 else {
            throw DocOrientError(
                .invalidRequest, "baking a \(png.bitDepth)-bit PNG would reduce it to 8 bits; rewrite its tag instead")
        }
        let encoded = try Pix.decode(bytes).oriented(target).encodedPNG()
        let fresh = try PNGStructure.parse(encoded)
        func chunk(_ c: PNGStructure.Chunk, in b: [UInt8]) -> [UInt8] { Array(b[c.start..<(c.data.upperBound + 4)]) }
        // Ancillary chunks worth keeping, transformed where the turn changes their meaning.
        var colour: [UInt8] = [], physical: [UInt8] = [], exif: [UInt8] = [], text: [UInt8] = []
        for c in png.chunks {
            let data = Array(bytes[c.data])
            switch c.type {
            case "iCCP", "sRGB", "gAMA", "cHRM": colour += chunk(c, in: bytes)
            case "tEXt", "zTXt", "iTXt", "tIME": text += chunk(c, in: bytes)
            case "pHYs" where data.count == 9:
                let swapped = target.swapsDimensions ? Array(data[4..<8]) + Array(data[0..<4]) + [data[8]] : data
                physical = PNGStructure.chunk(type: "pHYs", data: swapped)
            case "eXIf":
                exif = PNGStructure.chunk(type: "eXIf", data: try TIFFEditor.settingOrientation(1, in: data))
            default: break
            }
        }
        var out = PNGStructure.signature + chunk(fresh.chunks[0], in: encoded) + colour + physical + exif
        for c in fresh.chunks.dropFirst() where ["PLTE", "tRNS", "IDAT"].contains(c.type) {
            out += chunk(c, in: encoded)
        }
        out += text + PNGStructure.chunk(type: "IEND", data: [])
        return Result(bytes: out, outcome: .baked(target))
    }

    static func bakeTIFF(
        _ bytes: [UInt8], tiff: TIFFStructure, metadata: ImageMetadata, target: Orientation
    ) throws -> Result {
        let pages = try TIFFPages.parse(bytes).pages.count
        guard pages == 1 else {
            throw DocOrientError(
                .invalidRequest,
                "a TIFF of \(pages) pages is not baked: \(TIFFPages.notBakedReason); rewrite the tags instead (fix "
                    + "without --bake, or tag)"
            )
        }
        guard target != .identity || metadata.exifOrientation.map({ $0 != 1 }) == true else {
            return Result(bytes: bytes, outcome: .unchanged)
        }
        if let bits = tiff.bitsPerSample, bits > 8, (tiff.samplesPerPixel?.read(bytes) ?? 1) > 1 || bits > 16 {
            throw DocOrientError(
                .invalidRequest, "baking a \(bits)-bit-per-sample TIFF would lose precision; use the tag rewrite")
        }
        // Leptonica applies a TIFF's orientation tag while reading: read it as stored (tag 1), so
        // that `target`, which is relative to the stored pixels, is applied exactly once.
        let stored = try TIFFEditor.settingOrientation(1, in: bytes)
        let encoded = try Pix.decode(stored).oriented(target).encodedTIFF()
        return Result(bytes: encoded, outcome: .baked(target))
    }
}

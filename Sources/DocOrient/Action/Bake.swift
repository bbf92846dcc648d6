/// Applies an orientation to the pixels themselves and leaves orientation 1 behind.
public enum Bake {
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

    public struct Result: Sendable {
        public var bytes: [UInt8]
        public var outcome: Outcome
    }

    /// Bakes `orientation` (default: the file's own effective tag) into the pixels.
    ///
    /// JPEG: TurboJPEG's lossless DCT-domain transform; every marker is kept; EXIF IFD0, IFD1 and
    /// XMP orientation become 1, the IFD1 thumbnail is transformed too, and PixelXDimension/
    /// PixelYDimension follow the new frame. Unless `trim` is set, a transform that would move
    /// partial MCU blocks is not done: the tag is rewritten instead, which displays the same.
    /// - Throws: `DocOrientError` for unsupported, malformed or corrupt input, and
    ///   `.invalidRequest` for PNG and TIFF, whose bake is not implemented yet.
    public static func apply(_ orientation: Orientation? = nil, to bytes: [UInt8], trim: Bool = false) throws -> Result {
        let parsed = try ParsedImage.parse(bytes)
        let metadata = try parsed.metadata(bytes)
        let target = orientation ?? metadata.effectiveOrientation ?? .identity
        guard case .jpeg(let jpeg) = parsed else {
            throw DocOrientError(.invalidRequest, "baking \(metadata.format.rawValue.uppercased()) files is not supported yet; use the tag rewrite")
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
                "\(metadata.width)x\(metadata.height) is not a multiple of the \(header.mcuWidth)x\(header.mcuHeight) MCU on an edge the transform moves; pass --trim to drop the partial blocks"
            return Result(bytes: try TagRewrite.setting(target, in: bytes), outcome: .tagRewrittenInstead(target, reason: reason))
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
            let turned = decoded.transformed(by: orientation, channels: 3)
            return try TurboJPEG.encode(turned.pixels, width: turned.width / 3, height: turned.height, subsampling: .s420, quality: 90)
        }
    }
}

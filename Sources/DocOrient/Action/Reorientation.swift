/// Turning one image so that it shows a chosen orientation: what `fix` does once the text has
/// decided, and what a person's click on the review page does (`docorient review`). One place, so
/// that both change a file the same way.
public enum Reorientation {
    /// One change to an image's bytes.
    public struct Change: Sendable, Equatable {
        /// The image as it will be (the input itself for a dry run).
        public var bytes: [UInt8]
        /// What the change is: a tag rewritten (or added), pixels baked, or their dry-run forms.
        public var action: FixAction
        /// Why the change is not the one asked for ("not baked: ..."), nil when it is.
        public var note: String?
    }

    /// The change that makes the single image in `bytes` show `target`, nil when it already does
    /// (every orientation value consistent). `tag` rewrites the orientation values in place and
    /// keeps every other byte; the bake modes turn a JPEG's pixels losslessly, or rewrite the tag
    /// when that cannot be done (`note` says why).
    /// - Parameters:
    ///   - metadata: what `ImageMetadata.read` found in `bytes` (one image: not a PDF, nor a TIFF
    ///     of several pages).
    ///   - maxPixels: the largest image a bake decodes.
    /// - Throws: `DocOrientError` when the image cannot be changed safely; nothing is written.
    public static func change(
        showing target: Orientation, metadata: ImageMetadata, bytes: [UInt8], mode: FixMode, dryRun: Bool = false,
        maxPixels: Int = Bake.defaultMaxPixels
    ) throws -> Change? {
        let current = metadata.effectiveOrientation ?? .identity
        // HEIF shows its container's orientation; the EXIF inside is informational and is kept at 1.
        let tagValue = metadata.format == .heif ? 1 : target.exifValue
        let tagsConsistent = [metadata.exifOrientation, metadata.xmpOrientation, metadata.thumbnailOrientation]
            .allSatisfy { $0 == nil || $0 == tagValue }
        let wantsBake = mode != .tag && target != .identity
        if !wantsBake, current == target, tagsConsistent { return nil }
        if dryRun {
            return Change(bytes: bytes, action: wantsBake ? .wouldBake : .wouldRewriteTag)
        }
        if wantsBake {
            let result = try Bake.apply(target, to: bytes, trim: mode == .bakeTrim, maxPixels: maxPixels)
            switch result.outcome {
            case .baked: return Change(bytes: result.bytes, action: .baked)
            case .unchanged: return nil
            case .tagRewrittenInstead(_, let reason):
                // The tag already said so: nothing was written, and nothing displays differently.
                return Change(
                    bytes: result.bytes, action: result.bytes == bytes ? .none : .tagRewritten,
                    note: "not baked: \(reason)")
            }
        }
        return Change(bytes: try TagRewrite.setting(target, in: bytes), action: .tagRewritten)
    }
}

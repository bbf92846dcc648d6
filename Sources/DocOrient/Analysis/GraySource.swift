// The stored image as grey pixels: decoded once at full size, whatever its format, and scaled
// down from there to each size a probe or a reading crop asks for, so that no decode is paid twice.

/// Where grey pixels come from: the stored image decoded once at full size, grey (TurboJPEG for
/// JPEG, Leptonica for PNG and TIFF), then area-scaled to whatever size is asked for.
///
/// Once, at full size: a JPEG's entropy decoding has to run through the whole file at any DCT
/// scale, and it is most of the cost of large, noisy or progressive files (a scaled decode costs
/// nearly a full one), so a small probe decode followed by a reading decode paid it twice; the
/// scaled IDCTs other than 1/2, 1/4 and 1/8 (5/8, 3/4) are even slower than full size (decision 1).
package struct GraySource: ~Copyable {
    package let full: Pix
    /// The halvings made of `full` so far, kept for the image's life: the classifier, the probes,
    /// every text line and the page stage ask for the same few sizes.
    private let halvings = Halvings()

    /// Decodes `bytes` once, refusing frames over `maxPixels` (by the metadata, before any pixel
    /// memory is allocated).
    package init(bytes: [UInt8], metadata: ImageMetadata, maxPixels: Int) throws {
        guard metadata.width > 0, metadata.height > 0 else {
            throw DocOrientError(.malformed, "the image has no pixels")
        }
        guard metadata.width.multipliedReportingOverflow(by: metadata.height).partialValue <= maxPixels,
            metadata.width <= maxPixels, metadata.height <= maxPixels
        else {
            throw DocOrientError(
                .limitExceeded,
                "the image is \(metadata.width)x\(metadata.height), over the limit of \(maxPixels) pixels")
        }
        try self.init(bytes: bytes, format: metadata.format, maxPixels: maxPixels)
    }

    package init(bytes: [UInt8], format: ImageFormat, maxPixels: Int) throws {
        switch format {
        case .jpeg:
            full = try TurboJPEG.decodeGrayPix(bytes, maxPixels: maxPixels)
        case .png, .tiff:
            if format == .tiff, try TIFFStructure.parse(bytes, base: 0, end: bytes.count).isTiled {
                throw DocOrientError(
                    .unsupportedFormat,
                    "the TIFF image is stored in tiles, which docorient's TIFF decoder (Leptonica) does not read; "
                        + "store it in strips (tiffcp -s in.tif out.tif), or set its tag with docorient tag"
                )
            }
            // Leptonica turns a TIFF by its Orientation tag while reading; the resolver reads stored pixels.
            let decoded = try Pix.decode(format == .tiff ? TIFFEditor.storedPixels(bytes) : bytes)
            guard decoded.width.multipliedReportingOverflow(by: decoded.height).partialValue <= maxPixels else {
                throw DocOrientError(.limitExceeded, "the image is over the limit of \(maxPixels) pixels")
            }
            full = try decoded.gray8()
        case .heif:
            full = try Heif.decodeGrayPix(bytes, maxPixels: maxPixels)
        }
    }

    var storedWidth: Int { full.width }
    var storedHeight: Int { full.height }

    /// Grey pixels with a long side of at least `longSide`: the full image halved as often as
    /// that allows (Leptonica's area map by 1/2, 1/4, 1/8 costs about a tenth of any other
    /// factor's, decision 1), or the full image itself (shared, not copied).
    package func gray(longSide: Int) throws -> Pix {
        var reduction = 1
        while reduction < Self.maxReduction, max(full.width, full.height) / (reduction * 2) >= longSide {
            reduction *= 2
        }
        return try halvings.reduced(full, by: reduction)
    }

    /// Largest reduction `gray(longSide:)` makes (1/16). Chosen by hand, not fitted (decision 1).
    static let maxReduction = 16
}

/// The reductions of one image by 2, 4, 8 and 16, each made once, from the one before it:
/// Leptonica's area map by 1/4 (1/8, 1/16) is its area map by 1/2 applied twice (three, four
/// times), so each is the same pixels `full.scaled(by:)` gives, for one halving's cost.
private final class Halvings {
    /// One reduction, held for the image's life.
    private final class Made {
        let pix: Pix
        init(_ pix: consuming Pix) { self.pix = pix }
    }

    private var made: [Int: Made] = [:]

    /// `full` reduced by `reduction` (a power of two), shared (`Pix.cloned`), not copied.
    func reduced(_ full: borrowing Pix, by reduction: Int) throws -> Pix {
        if reduction == 1 { return try full.cloned() }
        if let done = made[reduction] { return try done.pix.cloned() }
        let done = Made(try reduced(full, by: reduction / 2).scaled(by: 0.5))
        made[reduction] = done
        return try done.pix.cloned()
    }
}

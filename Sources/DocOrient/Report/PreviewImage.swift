import Foundation

/// A small RGB preview of an image's stored pixels, for the review report's thumbnails.
package struct PreviewImage: Sendable {
    /// RGB, three bytes per pixel.
    private var image: Raster

    private init(image: Raster) { self.image = image }

    /// Most pixels an image a preview is made of may have.
    static let maxPixels = 200_000_000

    /// Decodes `bytes` (JPEG and HEIF in colour, PNG and TIFF in grey through Leptonica; the
    /// first image of a TIFF) as stored, small: the long side about `side` pixels.
    package init(_ bytes: [UInt8], metadata: ImageMetadata, side: Int) throws {
        var image: Raster
        switch metadata.format {
        case .jpeg:
            image = try TurboJPEG.decodeScaled(bytes, minimumLongSide: side, maxPixels: Self.maxPixels, rgb: true)
        case .heif: image = try Heif.decodeRGB(bytes, maxPixels: Self.maxPixels)
        case .png, .tiff:
            guard metadata.width.multipliedReportingOverflow(by: metadata.height).partialValue <= Self.maxPixels else {
                throw DocOrientError(.limitExceeded, "the image is over the limit of \(Self.maxPixels) pixels")
            }
            // Leptonica turns a TIFF by its Orientation tag while reading; a preview starts from the stored pixels.
            let stored = metadata.format == .tiff ? try TIFFEditor.storedPixels(bytes) : bytes
            image = try Self.grayAsRGB(Pix.decode(stored), side: side)
        }
        // Shrink further by whole steps so the page stays small.
        let w = image.width
        let step = max(1, max(w, image.height) / side)
        if step > 1 {
            let ow = w / step, oh = image.height / step
            var out = [UInt8](repeating: 0, count: ow * oh * 3)
            for y in 0..<oh {
                for x in 0..<ow {
                    for c in 0..<3 { out[(y * ow + x) * 3 + c] = image.pixels[((y * step) * w + x * step) * 3 + c] }
                }
            }
            image = Raster(width: ow, height: oh, channels: 3, pixels: out)
        }
        self.image = image
    }

    /// Previews of pages of the PDF in `bytes`, by page number (1 for the first) of those
    /// `pages` names: each page's image as docorient reads it to decide (its stored samples,
    /// `PDFPageImage`; no renderer), with the orientation the page shows it in now. A page
    /// docorient does not read an image of, or whose image does not decode, is absent.
    package static func pdfPages(
        _ bytes: [UInt8], pages: [Int], side: Int
    ) -> [Int: (stored: PreviewImage, shown: Orientation)] {
        guard let document = try? PDFDocument(bytes: bytes, maxPages: PDFPages.maxPages) else { return [:] }
        var previews: [Int: (stored: PreviewImage, shown: Orientation)] = [:]
        for page in pages where page >= 1 && page <= document.pageCount {
            guard let content = try? document.describePage(page - 1, maxContentBytes: PDFPages.maxContentBytes),
                case .read(let placement) = PDFPageImage.placement(of: content),
                case .read(let jpeg)? = try? PDFPageImage.jpeg(
                    of: content, page: page - 1, in: document, maxPixels: 200_000_000),
                let metadata = try? ImageMetadata.read(jpeg),
                let stored = try? PreviewImage(jpeg, metadata: metadata, side: side)
            else { continue }
            previews[page] = (stored, placement.shown)
        }
        return previews
    }

    /// The preview of page `page` (1 for the first) of the PDF or multi-page TIFF in `bytes`
    /// (`pdfPages`, `tiffPage`), with the orientation the page shows it in now.
    /// - Throws: `DocOrientError` when the file has no such page, or no preview of it can be made
    ///   (a PDF page whose image docorient does not read).
    package static func page(
        _ page: Int, of bytes: [UInt8], side: Int
    ) throws -> (stored: PreviewImage, shown: Orientation) {
        guard PDFPages.isPDF(bytes) else { return try tiffPage(bytes, page: page, side: side) }
        guard let preview = pdfPages(bytes, pages: [page], side: side)[page] else {
            throw DocOrientError(.unsupportedFormat, "docorient reads no image of page \(page) to show")
        }
        return preview
    }

    /// The preview of page `page` (1 for the first) of the multi-page TIFF in `bytes`: its
    /// stored pixels, with the orientation its own tag shows them in (1 when it has none).
    /// - Throws: `DocOrientError` when the TIFF has no such page or the page does not decode.
    package static func tiffPage(
        _ bytes: [UInt8], page: Int, side: Int
    ) throws -> (stored: PreviewImage, shown: Orientation) {
        let pages = try TIFFPages.parse(bytes)
        guard (1...pages.pages.count).contains(page) else {
            throw DocOrientError(.invalidRequest, "the TIFF has \(pages.pages.count) pages, no page \(page)")
        }
        // The page as the first image of a copy of the file, its tag set to 1: its stored pixels.
        let decoded = try Pix.decode(pages.stored(page: page - 1, of: bytes))
        guard decoded.width.multipliedReportingOverflow(by: decoded.height).partialValue <= Self.maxPixels else {
            throw DocOrientError(.limitExceeded, "page \(page) is over the limit of \(Self.maxPixels) pixels")
        }
        let shown = pages.page(page - 1).orientation?.read(bytes).flatMap(Orientation.init(exifValue:)) ?? .identity
        return (PreviewImage(image: try grayAsRGB(decoded, side: side)), shown)
    }

    /// `pix` in grey, scaled down to a long side of about `side`, as RGB.
    private static func grayAsRGB(_ pix: borrowing Pix, side: Int) throws -> Raster {
        let long = max(pix.width, pix.height)
        var gray = try pix.gray8()
        if long > side { gray = try gray.scaled(by: Double(side) / Double(long)) }
        let raster = try gray.grayRaster()
        var rgb = [UInt8](repeating: 0, count: raster.pixels.count * 3)
        for (i, value) in raster.pixels.enumerated() {
            rgb[3 * i] = value
            rgb[3 * i + 1] = value
            rgb[3 * i + 2] = value
        }
        return Raster(width: raster.width, height: raster.height, channels: 3, pixels: rgb)
    }

    /// The preview as it looks after applying `orientation` (how a viewer displays it).
    package func transformed(by orientation: Orientation) -> PreviewImage {
        PreviewImage(image: image.transformed(by: orientation))
    }

    /// The preview as a base64 JPEG (quality 80), nil when encoding fails.
    package var jpegBase64: String? { jpeg.map { Data($0).base64EncodedString() } }

    /// The preview as JPEG bytes (quality 80), nil when encoding fails.
    package var jpeg: [UInt8]? {
        try? TurboJPEG.encode(image.pixels, width: image.width, height: image.height, subsampling: .s420, quality: 80)
    }
}

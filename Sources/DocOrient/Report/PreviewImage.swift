import Foundation

/// A small RGB preview of an image's stored pixels, for the review report's thumbnails.
package struct PreviewImage: Sendable {
    /// RGB, three bytes per pixel.
    private var image: Raster

    private init(image: Raster) { self.image = image }

    /// Decodes `bytes` (JPEG, or HEIF through libheif, as stored) small: the long side about `side` pixels.
    package init(_ bytes: [UInt8], metadata: ImageMetadata, side: Int) throws {
        var image: Raster
        switch metadata.format {
        case .jpeg: image = try TurboJPEG.decodeScaled(bytes, minimumLongSide: side, maxPixels: 200_000_000, rgb: true)
        case .heif: image = try Heif.decodeRGB(bytes, maxPixels: 200_000_000)
        case .png, .tiff: throw DocOrientError(.invalidRequest, "previews are made for JPEG and HEIF only")
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

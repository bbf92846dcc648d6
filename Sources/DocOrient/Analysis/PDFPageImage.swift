// A scanned page's image as docorient reads it: where the page shows it (its placement and
// /Rotate), and its pixels as a JPEG file, the one form the resolver and the review page's
// previews both take. Either step may find the page is not one docorient reads: that is a
// reason, not an error.

/// What a step of reading a PDF page found: the value, or why the page is left alone.
enum PDFPageReading<Value> {
    case read(Value)
    /// The page is not one docorient reads (no image, a filter it does not decode, ...): why,
    /// ending in "left alone".
    case leftAlone(String)
}

/// Reading a PDF page's image (`PDFDocument.describePage` first).
enum PDFPageImage {
    /// How the page shows its dominant image: the placement at its `Do` and the page's /Rotate.
    static func placement(of content: PDFPageContent) -> PDFPageReading<PDFPlacement> {
        guard content.rotateIsInteger, let rotation = PDFPlacement.rotation(degrees: content.rotate) else {
            return .leftAlone("the page's /Rotate is not a multiple of 90: left alone")
        }
        guard let matrix = content.matrix else {
            if content.forms > 0 {
                return .leftAlone(
                    "the page draws through form XObjects, which docorient does not look into: left alone")
            }
            if content.images > 0 { return .leftAlone("the page's only images are inline images: left alone") }
            return .leftAlone("the page shows no image (text or drawings): left alone")
        }
        guard content.dominantShare >= PDFPages.minDominantShare else {
            return .leftAlone("the page paints \(content.images) images, none over half of their area: left alone")
        }
        guard let placed = PDFPlacement.placement(ofMatrix: matrix) else {
            return .leftAlone(
                "the page's image is placed at an angle that is not a multiple of 90 degrees: left alone")
        }
        return .read(PDFPlacement(placement: placed, rotation: rotation))
    }

    /// The dominant image of page `index` (described as `content`) as a JPEG file of its stored
    /// samples: the page's own JPEG for `/DCTDecode`; samples and Group 4 fax-coded rows as a grey
    /// JPEG (quality 95).
    /// - Throws: `.limitExceeded` past `maxPixels` or when the data decodes to more than the
    ///   image's dimensions hold; `.malformed` when it does not decode to them.
    static func jpeg(
        of content: PDFPageContent, page index: Int, in document: borrowing PDFDocument, maxPixels: Int
    ) throws -> PDFPageReading<[UInt8]> {
        let (pixels, overflow) = content.width.multipliedReportingOverflow(by: content.height)
        guard content.width > 0, content.height > 0 else {
            throw DocOrientError(.malformed, "the page's image has no /Width or /Height")
        }
        guard !overflow, pixels <= maxPixels else {
            throw DocOrientError(
                .limitExceeded,
                "the page's image is \(content.width)x\(content.height), over the limit of \(maxPixels) pixels")
        }
        switch content.filter {
        case .dct:
            return .read(try document.imageData(page: index, maxBytes: FileIO.defaultMaxFileBytes))
        case .samples:
            let components = content.imageMask ? 1 : content.components
            let bits = content.imageMask ? 1 : content.bitsPerComponent
            guard
                let rowBytes = PDFSamples.rowBytes(width: content.width, bitsPerComponent: bits, components: components)
            else {
                let what =
                    components == 0
                    ? "a colour space docorient does not read" : "\(components) components at \(bits) bits"
                return .leftAlone("the page's image has \(what): left alone")
            }
            let data = try document.imageData(
                page: index, maxBytes: rowBytes * content.height + PDFPages.sampleSlackBytes)
            let raster = try PDFSamples.gray(
                data, width: content.width, height: content.height, bitsPerComponent: bits, components: components,
                inverted: content.decodeInverted)
            return .read(
                try TurboJPEG.encode(
                    raster.pixels, width: raster.width, height: raster.height, subsampling: .gray, quality: 95))
        case .ccitt(let fax):
            guard fax.k < 0, !fax.byteAligned else {
                return .leftAlone(
                    "the page's image is Group 3 fax-coded (or byte-aligned), which docorient does not decode: left "
                        + "alone"
                )
            }
            let data = try document.imageData(page: index, maxBytes: FileIO.defaultMaxFileBytes)
            let tiff = PDFSamples.faxTIFF(data, width: content.width, height: content.height, blackIs1: fax.blackIs1)
            let raster: Raster
            do {
                raster = try Pix.decode(tiff).gray8().grayRaster()
            } catch {
                throw DocOrientError(.malformed, "the page's fax-coded image cannot be decoded")
            }
            guard raster.width == content.width, raster.height == content.height else {
                throw DocOrientError(.malformed, "the page's fax-coded image does not decode to its /Width and /Height")
            }
            return .read(
                try TurboJPEG.encode(
                    raster.pixels, width: raster.width, height: raster.height, subsampling: .gray, quality: 95))
        case .other(let name):
            return .leftAlone(
                "the page's image is compressed with \(name), which docorient does not decode: left alone")
        case .none:
            return .leftAlone("the page shows no image (text or drawings): left alone")
        }
    }
}

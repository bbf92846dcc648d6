// One page of a file of pages (a PDF, or a TIFF of several pages) turned to show a chosen
// orientation: the change `fix` makes to the pages it decides (a PDF page's /Rotate, a TIFF page's
// own Orientation tag), for one page a person turns on the review page.

extension Reorientation {
    /// The orientation page `page` (1 for the first) of the PDF or multi-page TIFF in `bytes`
    /// shows its image in now: for a PDF page, the image's stored samples placed by the content
    /// stream's transform and turned by the page's /Rotate (what `fix` records as the page's
    /// `exif_orientation`); for a TIFF page, its own Orientation tag (1, TIFF's default, when it
    /// has none or an unusable one).
    /// - Throws: `DocOrientError` `.invalidRequest` when `bytes` are neither, or have no such
    ///   page; `.unsupportedFormat` with the reason when docorient does not read the PDF page's
    ///   image (it paints none, or several, or at an angle).
    public static func shown(page: Int, in bytes: [UInt8]) throws -> Orientation {
        switch try PagedFile(bytes, page: page) {
        case .pdf:
            let document = try PDFDocument(bytes: bytes, maxPages: PDFPages.maxPages)
            return try placement(of: page, in: document).placement.shown
        case .tiff(let pages):
            return pages.page(page - 1).orientation?.read(bytes).flatMap(Orientation.init(exifValue:)) ?? .identity
        }
    }

    /// The change that makes page `page` (1 for the first) of the PDF or multi-page TIFF in
    /// `bytes` show its image as `target`, nil when it already does: a PDF page's /Rotate (and,
    /// for a mirror /Rotate cannot express, a mirror drawn around its content, as `fix` draws
    /// it), or a TIFF page's Orientation tag. Every other page, stream and strip keeps its bytes.
    /// - Throws: `DocOrientError`: `.invalidRequest` when `bytes` are no file of pages or have
    ///   no such page; `.unsupportedFormat` with the reason when the page cannot be turned so
    ///   (its image is not one docorient reads; a mirror its annotations or content would not
    ///   follow); the library's error when the result does not read back as turned. Nothing is
    ///   written either way: the caller writes `bytes` of the change.
    public static func change(page: Int, showing target: Orientation, in bytes: [UInt8]) throws -> Change? {
        switch try PagedFile(bytes, page: page) {
        case .pdf:
            let document = try PDFDocument(bytes: bytes, maxPages: PDFPages.maxPages)
            let (content, placement) = try placement(of: page, in: document)
            guard placement.shown != target else { return nil }
            let mirrored =
                "page \(page) would show mirrored (shown as \(placement.shown.exifValue), to show as "
                + "\(target.exifValue))"
            switch PDFPageChange.planned(
                page - 1, content: content, placement: placement, target: target, mirrored: mirrored)
            {
            case .leftAlone(let reason): throw DocOrientError(.unsupportedFormat, reason)
            case .read(let change):
                return Change(bytes: try PDFPageChange.written([change], to: document), action: .tagRewritten)
            }
        case .tiff(let pages):
            guard pages.page(page - 1).orientation?.read(bytes) != target.exifValue,
                pages.page(page - 1).orientation != nil || target != .identity
            else { return nil }
            let output = try TIFFPages.settingOrientations([page - 1: target.exifValue], in: bytes, pages: pages)
            return Change(bytes: output, action: .tagRewritten)
        }
    }

    /// Page `page`'s (1 for the first) content and how it shows its image, or why docorient
    /// does not read it.
    private static func placement(
        of page: Int, in document: borrowing PDFDocument
    ) throws -> (content: PDFPageContent, placement: PDFPlacement) {
        guard (1...max(1, document.pageCount)).contains(page), document.pageCount > 0 else {
            throw DocOrientError(.invalidRequest, "the PDF has \(document.pageCount) pages, no page \(page)")
        }
        let content = try document.describePage(page - 1, maxContentBytes: PDFPages.maxContentBytes)
        switch PDFPageImage.placement(of: content) {
        case .read(let placement): return (content, placement)
        case .leftAlone(let reason): throw DocOrientError(.unsupportedFormat, "page \(page): \(reason)")
        }
    }
}

/// A file of pages, recognised from its bytes; a TIFF's page number checked against its chain.
private enum PagedFile {
    case pdf
    case tiff(TIFFPages)

    init(_ bytes: [UInt8], page: Int) throws {
        // A PDF's page number is checked once it is open (`placement(of:in:)`).
        if PDFPages.isPDF(bytes) {
            self = .pdf
            return
        }
        guard (try? ImageFormat.detect(bytes)) == .tiff else {
            throw DocOrientError(.invalidRequest, "pages are turned in PDFs and multi-page TIFFs only")
        }
        let pages = try TIFFPages.parse(bytes)
        guard pages.pages.count > 1 else {
            throw DocOrientError(.invalidRequest, "the TIFF has one page: turn it as an image")
        }
        guard (1...pages.pages.count).contains(page) else {
            throw DocOrientError(.invalidRequest, "the TIFF has \(pages.pages.count) pages, no page \(page)")
        }
        self = .tiff(pages)
    }
}

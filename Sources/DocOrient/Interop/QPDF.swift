internal import CQPDF

/// One PDF parsed by qpdf (`docorient_pdf_open`), its pages described, turned by /Rotate and
/// written back with every stream's bytes as they were. Owns its qpdf document and frees it when
/// it goes; use it from one thread.
struct PDFDocument: ~Copyable {
    private let handle: OpaquePointer

    /// Parses `bytes` (copied) without repairing them. Stands for `docorient_pdf_open`
    /// (`QPDF::processMemoryFile`, recovery off, warnings refused).
    /// - Throws: `.encrypted`, `.unsupportedFormat` for a signed PDF, `.malformed` (truncated,
    ///   damaged, a loop in the page tree), `.limitExceeded` past `maxPages`.
    init(bytes: [UInt8], maxPages: Int) throws {
        var status = DOCORIENT_PDF_OK
        var message = [CChar](repeating: 0, count: 512)
        let opened = bytes.withUnsafeBufferPointer { buffer in
            docorient_pdf_open(buffer.baseAddress, buffer.count, maxPages, &status, &message, message.count)
        }
        guard let opened else { throw Self.error(status, message, "docorient_pdf_open") }
        handle = opened
    }

    deinit { docorient_pdf_close(handle) }

    /// Pages, in order. Stands for `docorient_pdf_page_count`.
    var pageCount: Int { docorient_pdf_page_count(handle) }

    /// What page `index` (0-based) shows: its effective /Rotate and the image it paints largest.
    /// Stands for `docorient_pdf_describe_page`.
    func describePage(_ index: Int, maxContentBytes: Int) throws -> PDFPageContent {
        var page = docorient_pdf_page()
        var message = [CChar](repeating: 0, count: 512)
        let status = docorient_pdf_describe_page(handle, index, maxContentBytes, &page, &message, message.count)
        guard status == DOCORIENT_PDF_OK else { throw Self.error(status, message, "docorient_pdf_describe_page") }
        let filter: PDFPageContent.Filter
        switch page.filter {
        case DOCORIENT_PDF_FILTER_SAMPLES: filter = .samples
        case DOCORIENT_PDF_FILTER_DCT: filter = .dct
        case DOCORIENT_PDF_FILTER_CCITT:
            filter = .ccitt(
                PDFPageContent.FaxParameters(
                    k: page.ccitt_k, columns: page.ccitt_columns, rows: page.ccitt_rows,
                    blackIs1: page.ccitt_black_is_1 != 0, byteAligned: page.ccitt_byte_align != 0))
        case DOCORIENT_PDF_FILTER_OTHER:
            filter = .other(
                withUnsafeBytes(of: page.filter_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        default: filter = .none
        }
        let m = page.matrix
        let media = page.media_box
        let crop = page.crop_box
        return PDFPageContent(
            rotate: page.rotate, rotateIsInteger: page.rotate_invalid == 0, images: Int(page.images),
            forms: Int(page.forms), dominantShare: page.dominant_share,
            matrix: page.dominant >= 0 ? [m.0, m.1, m.2, m.3, m.4, m.5] : nil, width: page.width,
            height: page.height, bitsPerComponent: page.bits_per_component, components: Int(page.components),
            imageMask: page.image_mask != 0, decodeInverted: page.decode_inverted != 0, filter: filter,
            mediaBox: page.has_media_box != 0 ? [media.0, media.1, media.2, media.3] : nil,
            cropBox: page.has_media_box != 0 ? [crop.0, crop.1, crop.2, crop.3] : nil,
            annotations: Int(page.annotations), unbalancedRestores: Int(page.unbalanced_restores))
    }

    /// The stream data of the image `describePage(index)` chose: the JPEG file itself for `.dct`,
    /// the fax-coded rows for `.ccitt`, the decoded samples for `.samples`, at most `maxBytes`.
    /// Stands for `docorient_pdf_image_data`.
    /// - Throws: `.limitExceeded` when the data decodes to more than `maxBytes` (decoding stops there).
    func imageData(page index: Int, maxBytes: Int) throws -> [UInt8] {
        var data: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 512)
        let status = docorient_pdf_image_data(handle, index, maxBytes, &data, &length, &message, message.count)
        defer { docorient_pdf_free(data) }
        guard status == DOCORIENT_PDF_OK else { throw Self.error(status, message, "docorient_pdf_image_data") }
        guard let data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    /// Sets page `index`'s own /Rotate to `degrees` clockwise. Stands for `docorient_pdf_set_rotate`.
    func setRotate(page index: Int, degrees: Int) throws {
        var message = [CChar](repeating: 0, count: 512)
        let status = docorient_pdf_set_rotate(handle, index, degrees, &message, message.count)
        guard status == DOCORIENT_PDF_OK else { throw Self.error(status, message, "docorient_pdf_set_rotate") }
    }

    /// Draws page `index`'s content under `matrix` (a b c d e f, finite): a new stream `q ... cm`
    /// before the page's content streams, one with `Q` after them, those streams kept as they are.
    /// Stands for `docorient_pdf_transform_contents`.
    func transformContents(page index: Int, matrix: [Double]) throws {
        guard matrix.count == 6 else { throw DocOrientError(.library, "a transform has six numbers") }
        var message = [CChar](repeating: 0, count: 512)
        let status = matrix.withUnsafeBufferPointer {
            docorient_pdf_transform_contents(handle, index, $0.baseAddress, &message, message.count)
        }
        guard status == DOCORIENT_PDF_OK else { throw Self.error(status, message, "docorient_pdf_transform_contents") }
    }

    /// The document as a new file, every stream's data copied byte for byte. Stands for
    /// `docorient_pdf_write` (`QPDFWriter`, no decoding or recompression, deterministic /ID).
    func written() throws -> [UInt8] {
        var data: UnsafeMutablePointer<UInt8>?
        var length = 0
        var message = [CChar](repeating: 0, count: 512)
        let status = docorient_pdf_write(handle, &data, &length, &message, message.count)
        defer { docorient_pdf_free(data) }
        guard status == DOCORIENT_PDF_OK else { throw Self.error(status, message, "docorient_pdf_write") }
        guard let data else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    /// The error for `status`, which `call` returned with `message` (qpdf's words, or the C
    /// API's own where it stopped before qpdf): the cause of the errors that carry it.
    private static func error(_ status: docorient_pdf_status, _ message: [CChar], _ call: String) -> DocOrientError {
        let cause = DocOrientError.Cause.library(
            call, message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        switch status {
        case DOCORIENT_PDF_ENCRYPTED:
            return DocOrientError(
                .encrypted,
                "the PDF is encrypted; docorient does not rewrite encrypted PDFs (decrypt a copy first: qpdf "
                    + "--decrypt in.pdf out.pdf)"
            )
        case DOCORIENT_PDF_SIGNED:
            return DocOrientError(
                .unsupportedFormat,
                "the PDF is digitally signed; docorient leaves signed PDFs alone (a rewrite would break the signature)")
        case DOCORIENT_PDF_LIMIT: return DocOrientError(.limitExceeded, "the PDF is over a limit", cause: cause)
        case DOCORIENT_PDF_MALFORMED:
            return DocOrientError(
                .malformed,
                "the PDF cannot be read without repairing it (repair a copy first, e.g. qpdf in.pdf out.pdf)",
                cause: cause)
        default: return DocOrientError(.library, "qpdf failed", cause: cause)
        }
    }
}

/// What a PDF page shows, as far as deciding its orientation needs (`PDFDocument.describePage`).
struct PDFPageContent: Sendable, Equatable {
    /// How the page's dominant image is compressed.
    enum Filter: Sendable, Equatable {
        /// The page paints no image XObject.
        case none
        /// Raw samples once qpdf has decoded the stream (Flate, LZW, ASCIIHex, ASCII85, RunLength, none).
        case samples
        /// A JPEG file (`/DCTDecode` alone).
        case dct
        /// Fax-coded bilevel rows (`/CCITTFaxDecode` alone).
        case ccitt(FaxParameters)
        /// A filter docorient does not decode, by its name ("/JBIG2Decode", "/JPXDecode", ...).
        case other(String)
    }

    /// A `/CCITTFaxDecode` image's /DecodeParms.
    struct FaxParameters: Sendable, Equatable {
        /// /K: negative for Group 4 (the only coding docorient reads), 0 or more for Group 3.
        var k: Int
        /// /Columns and /Rows, 0 when absent.
        var columns: Int
        var rows: Int
        /// /BlackIs1: whether 1 bits are black.
        var blackIs1: Bool
        /// /EncodedByteAlign: whether each row starts on a byte.
        var byteAligned: Bool
    }

    /// The effective /Rotate as stored (any integer; 0 when absent or not an integer).
    var rotate: Int
    /// Whether /Rotate, where present, is an integer.
    var rotateIsInteger: Bool
    /// Images painted by the page's own content, inline images included.
    var images: Int
    /// Form XObjects painted by the page's content (not looked into).
    var forms: Int
    /// The dominant image's share of the area of all images painted.
    var dominantShare: Double
    /// The transform at the dominant image's `Do` (a b c d e f), nil when the page paints no image XObject.
    var matrix: [Double]?
    /// The dominant image's samples per row and rows.
    var width: Int
    var height: Int
    /// Its bits per component.
    var bitsPerComponent: Int
    /// Its colour components (1, 3, 4; 0 for colour spaces docorient does not read).
    var components: Int
    /// Whether it is a stencil mask.
    var imageMask: Bool
    /// Whether its /Decode array inverts its one component.
    var decodeInverted: Bool
    /// How its stream is compressed.
    var filter: Filter
    /// The page's effective /MediaBox and /CropBox (x y x' y' as stored; the crop box is the
    /// media box when it has none), nil when it has no /MediaBox of four numbers.
    var mediaBox: [Double]?
    var cropBox: [Double]?
    /// Entries of the page's /Annots.
    var annotations: Int
    /// `Q` operators in its content restoring a state that content did not save.
    var unbalancedRestores: Int
}

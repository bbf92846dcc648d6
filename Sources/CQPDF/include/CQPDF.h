// PDF pages as docorient reads and turns them, through qpdf's C++ library behind a C API, so that
// no C++ or qpdf type reaches Swift. Every function catches qpdf's exceptions and reports them as
// a status and a message in `error` (NUL-terminated, at most `size` bytes). One document is used
// by one thread at a time.
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What a call ended with.
typedef enum {
    DOCORIENT_PDF_OK = 0,
    /// The file is no PDF qpdf reads without repairing it (truncated, damaged, a loop in its page tree).
    DOCORIENT_PDF_MALFORMED = 1,
    /// The file is encrypted (with or without a user password).
    DOCORIENT_PDF_ENCRYPTED = 2,
    /// A bound was passed: pages, decompressed bytes.
    DOCORIENT_PDF_LIMIT = 3,
    /// qpdf failed in a way that says nothing about the file (memory, an internal error).
    DOCORIENT_PDF_LIBRARY = 4,
    /// The file is digitally signed (/AcroForm /SigFlags): any rewrite would break its signatures.
    DOCORIENT_PDF_SIGNED = 5,
} docorient_pdf_status;

/// How the page's image stream is compressed.
typedef enum {
    /// No page image.
    DOCORIENT_PDF_FILTER_NONE = 0,
    /// Uncompressed, or filters qpdf decodes (Flate, LZW, ASCIIHex, ASCII85, RunLength): raw samples.
    DOCORIENT_PDF_FILTER_SAMPLES = 1,
    /// `/DCTDecode` alone: the stream is a JPEG file.
    DOCORIENT_PDF_FILTER_DCT = 2,
    /// Anything else (JBIG2, JPX, a chain ending in DCT): its name is in `filter_name`.
    DOCORIENT_PDF_FILTER_OTHER = 3,
    /// `/CCITTFaxDecode` alone: fax-coded bilevel rows, as described by the `ccitt_` fields.
    DOCORIENT_PDF_FILTER_CCITT = 4,
} docorient_pdf_filter;

/// One open PDF; free with `docorient_pdf_close`.
typedef struct docorient_pdf docorient_pdf;

/// What a page shows, as far as docorient needs it.
typedef struct {
    /// The page's effective /Rotate (its own, else inherited from the page tree), as stored:
    /// any integer; 0 when absent.
    long rotate;
    /// Whether /Rotate is present but no integer (a real, a name): then `rotate` is 0.
    int rotate_invalid;
    /// Image XObjects painted by the page's own content (`Do`), inline images (`BI`) counted too.
    int images;
    /// Form XObjects painted by the page's content (not looked into).
    int forms;
    /// Index (0-based, in painting order) of the image painted largest, -1 when none; an
    /// inline image is never chosen.
    int dominant;
    /// The dominant image's share of the area of all images painted (0...1).
    double dominant_share;
    /// The transform in force at the dominant image's `Do`: a b c d e f, image space (unit
    /// square, first sample row at the top) to default user space.
    double matrix[6];
    /// The dominant image's /Width, /Height, /BitsPerComponent (0 when absent).
    long width, height, bits_per_component;
    /// Colour components of its /ColorSpace: 1 DeviceGray or CalGray, 3 DeviceRGB, CalRGB, 4
    /// DeviceCMYK, an ICCBased space's /N; 0 for others (Indexed, Separation, Lab, none).
    int components;
    /// Whether it is an /ImageMask (a stencil, no colour of its own).
    int image_mask;
    /// Whether its /Decode array inverts a one-component image ([1 0]).
    int decode_inverted;
    /// How its stream is compressed.
    docorient_pdf_filter filter;
    /// The last filter's name when `filter` is DOCORIENT_PDF_FILTER_OTHER, e.g. "/JBIG2Decode".
    char filter_name[48];
    /// For DOCORIENT_PDF_FILTER_CCITT, its /DecodeParms: /K (negative: Group 4), /Columns and
    /// /Rows (0 when absent), /BlackIs1, /EncodedByteAlign.
    long ccitt_k, ccitt_columns, ccitt_rows;
    int ccitt_black_is_1, ccitt_byte_align;
    /// The page's effective /MediaBox and /CropBox (own or inherited; the crop box is the media
    /// box when absent), as stored: x y x' y' in default user space, corners in any order.
    /// `has_media_box` is 0 when /MediaBox is missing or not four numbers (then both are zeros);
    /// a /CropBox that is not four numbers counts as absent.
    double media_box[4], crop_box[4];
    int has_media_box;
    /// Entries of the page's /Annots array (0 when absent).
    int annotations;
    /// `Q` operators in the page's content that restore a state no `q` of that content saved:
    /// content that would pop a wrapper's state before it ends.
    int unbalanced_restores;
} docorient_pdf_page;

/// Parses `length` bytes of a PDF (copied: the caller's buffer may go) without repairing it,
/// refusing encrypted and signed files and page trees of more than `max_pages` pages or with loops.
/// NULL with a status and a message on failure.
docorient_pdf *docorient_pdf_open(
    const uint8_t *bytes, size_t length, long max_pages, docorient_pdf_status *status, char *error, size_t size);

/// Frees a document opened by `docorient_pdf_open` (NULL is allowed).
void docorient_pdf_close(docorient_pdf *pdf);

/// Pages of the document, in order.
long docorient_pdf_page_count(const docorient_pdf *pdf);

/// Describes page `index` (0-based): its effective /Rotate and the image it paints largest, its
/// content streams decoded into at most `max_content_bytes` bytes and parsed (`q`/`Q`, `cm`, `Do`).
docorient_pdf_status docorient_pdf_describe_page(
    docorient_pdf *pdf, long index, size_t max_content_bytes, docorient_pdf_page *page, char *error, size_t size);

/// The dominant image's stream data of page `index`: the JPEG file itself for
/// DOCORIENT_PDF_FILTER_DCT, the fax-coded data for DOCORIENT_PDF_FILTER_CCITT, the decoded
/// samples for DOCORIENT_PDF_FILTER_SAMPLES, at most
/// `max_bytes` (decoding stops past it: DOCORIENT_PDF_LIMIT). `*data` is malloc'ed: free it with
/// `docorient_pdf_free`.
docorient_pdf_status docorient_pdf_image_data(
    docorient_pdf *pdf, long index, size_t max_bytes, uint8_t **data, size_t *length, char *error, size_t size);

/// Sets page `index`'s own /Rotate to `degrees` (a multiple of 90, 0...270), overriding any inherited value.
docorient_pdf_status docorient_pdf_set_rotate(docorient_pdf *pdf, long index, long degrees, char *error, size_t size);

/// Draws page `index`'s content under the transform `matrix` (a b c d e f): a new stream
/// `q a b c d e f cm` before the page's own content streams and a stream `Q` after them, /Contents
/// becoming an array of the same stream objects, each left as it is.
docorient_pdf_status docorient_pdf_transform_contents(
    docorient_pdf *pdf, long index, const double matrix[6], char *error, size_t size);

/// Writes the document to memory (QPDFWriter) with every stream's data copied as it is (no
/// decoding, recompression or content normalisation; object streams preserved; deterministic
/// /ID; a linearized file linearized again, with new hint streams). `*data` is malloc'ed: free it with `docorient_pdf_free`.
docorient_pdf_status docorient_pdf_write(docorient_pdf *pdf, uint8_t **data, size_t *length, char *error, size_t size);

/// Frees memory handed out by this API (NULL is allowed).
void docorient_pdf_free(void *data);

#ifdef __cplusplus
}
#endif

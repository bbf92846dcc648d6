// qpdf behind CQPDF.h's C API: see there for what each function does.
#include "CQPDF.h"

// qpdf 11 asks its users to say they no longer rely on PointerHolder.
#define POINTERHOLDER_TRANSITION 4

#include <qpdf/Constants.h>
#include <qpdf/Pipeline.hh>
#include <qpdf/QPDF.hh>
#include <qpdf/QPDFExc.hh>
#include <qpdf/QPDFObjectHandle.hh>
#include <qpdf/QPDFWriter.hh>
#include <qpdf/QUtil.hh>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

struct docorient_pdf {
    // Declared before `qpdf`, which reads from it, so that it is destroyed after.
    std::string bytes;
    QPDF qpdf;
    std::vector<QPDFObjectHandle> pages;
    // Each described page's dominant image, for docorient_pdf_image_data.
    std::map<long, QPDFObjectHandle> images;
};

namespace {

// Most levels of /Parent followed for an inherited attribute: page trees are a few levels
// deep; a cycle stops here (or at the first object seen twice) rather than looping.
constexpr int maxTreeDepth = 256;
// Most nested `q` kept: deeper saves are still counted so that `Q` pairs with them.
constexpr size_t maxSavedStates = 4096;
// Most operands kept before an operator: more are no content stream's.
constexpr size_t maxOperands = 64;

void report(char *error, size_t size, std::string const &message) {
    if (error == nullptr || size == 0) return;
    size_t n = std::min(size - 1, message.size());
    std::memcpy(error, message.data(), n);
    error[n] = 0;
}

// Collects stream data up to a bound; past it, it stops the decoding (qpdf catches the
// exception and reports the stream as not decoded) and remembers why.
class BoundedBuffer : public Pipeline {
  public:
    BoundedBuffer(size_t max) : Pipeline("docorient bounded buffer", nullptr), max(max) {}
    void write(unsigned char const *data, size_t len) override {
        if (len > max - data_.size()) {
            over = true;
            throw std::length_error("over docorient's limit");
        }
        data_.append(reinterpret_cast<char const *>(data), len);
    }
    void finish() override {}
    std::string data_;
    size_t max;
    bool over = false;
};

struct Failure {
    docorient_pdf_status status;
    std::string message;
};

// Runs `body`, turning qpdf's exceptions into a status and a message.
template <typename Body>
docorient_pdf_status guarded(char *error, size_t size, Body body) {
    try {
        body();
        return DOCORIENT_PDF_OK;
    } catch (Failure const &f) {
        report(error, size, f.message);
        return f.status;
    } catch (QPDFExc const &e) {
        report(error, size, e.getMessageDetail().empty() ? std::string(e.what()) : e.getMessageDetail());
        return e.getErrorCode() == qpdf_e_password ? DOCORIENT_PDF_ENCRYPTED : DOCORIENT_PDF_MALFORMED;
    } catch (std::bad_alloc const &) {
        report(error, size, "out of memory");
        return DOCORIENT_PDF_LIBRARY;
    } catch (std::exception const &e) {
        // qpdf throws runtime_error and logic_error for structure it cannot follow (loops in the
        // page tree, objects of the wrong type where it needs a dictionary).
        report(error, size, e.what());
        return DOCORIENT_PDF_MALFORMED;
    } catch (...) {
        report(error, size, "unknown failure in qpdf");
        return DOCORIENT_PDF_LIBRARY;
    }
}

void refuseWarnings(QPDF &qpdf) {
    if (!qpdf.anyWarnings()) return;
    auto warnings = qpdf.getWarnings();
    std::string first = warnings.empty() ? std::string("damaged") : std::string(warnings.front().what());
    throw Failure{DOCORIENT_PDF_MALFORMED, "the PDF is damaged (qpdf: " + first + ")"};
}

// The page's own value of `key`, else the nearest ancestor's; null when none has it.
QPDFObjectHandle inherited(QPDFObjectHandle node, std::string const &key) {
    std::set<QPDFObjGen> seen;
    for (int depth = 0; depth < maxTreeDepth && node.isDictionary(); ++depth) {
        if (node.isIndirect() && !seen.insert(node.getObjGen()).second) break;
        if (node.hasKey(key)) return node.getKey(key);
        node = node.getKey("/Parent");
    }
    return QPDFObjectHandle::newNull();
}

struct Matrix {
    double a = 1, b = 0, c = 0, d = 1, e = 0, f = 0;
    // `this` applied first, then `n` (PDF's `cm`: CTM' = M x CTM).
    Matrix then(Matrix const &n) const {
        return Matrix{a * n.a + b * n.c,       a * n.b + b * n.d,       c * n.a + d * n.c,
                      c * n.b + d * n.d,       e * n.a + f * n.c + n.e, e * n.b + f * n.d + n.f};
    }
    double area() const { return std::fabs(a * d - b * c); }
};

struct Painted {
    Matrix ctm;
    QPDFObjectHandle image;  // null for an inline image
};

// Follows q, Q, cm and Do through the page's content, collecting the images painted.
class ContentWalker : public QPDFObjectHandle::ParserCallbacks {
  public:
    ContentWalker(QPDFObjectHandle xobjects) : xobjects(xobjects) {}
    void handleObject(QPDFObjectHandle object) override {
        if (object.isInlineImage()) {
            painted.push_back(Painted{ctm, QPDFObjectHandle::newNull()});
            operands.clear();
            return;
        }
        if (!object.isOperator()) {
            if (operands.size() < maxOperands) operands.push_back(object);
            return;
        }
        std::string op = object.getOperatorValue();
        if (op == "q") {
            if (saved.size() < maxSavedStates) saved.push_back(ctm);
            else ++unsaved;
        } else if (op == "Q") {
            if (unsaved > 0) --unsaved;
            else if (!saved.empty()) { ctm = saved.back(); saved.pop_back(); }
            else ++unbalanced;
        } else if (op == "cm" && operands.size() == 6) {
            double v[6];
            bool numbers = true;
            for (int i = 0; i < 6; ++i) {
                if (!operands[i].isNumber()) { numbers = false; break; }
                v[i] = operands[i].getNumericValue();
            }
            if (numbers) ctm = Matrix{v[0], v[1], v[2], v[3], v[4], v[5]}.then(ctm);
        } else if (op == "Do" && operands.size() == 1 && operands[0].isName() && xobjects.isDictionary()) {
            QPDFObjectHandle x = xobjects.getKey(operands[0].getName());
            if (x.isStream()) {
                QPDFObjectHandle subtype = x.getDict().getKey("/Subtype");
                if (subtype.isName() && subtype.getName() == "/Image") painted.push_back(Painted{ctm, x});
                else if (subtype.isName() && subtype.getName() == "/Form") ++forms;
            }
        }
        operands.clear();
    }
    void handleEOF() override {}

    QPDFObjectHandle xobjects;
    Matrix ctm;
    std::vector<Matrix> saved;
    size_t unsaved = 0;
    std::vector<QPDFObjectHandle> operands;
    std::vector<Painted> painted;
    int forms = 0;
    int unbalanced = 0;
};

// `box` as four finite numbers into `out`; false (and `out` untouched) when it is not.
bool readBox(QPDFObjectHandle box, double out[4]) {
    if (!box.isArray() || box.getArrayNItems() != 4) return false;
    double v[4];
    for (int i = 0; i < 4; ++i) {
        QPDFObjectHandle item = box.getArrayItem(i);
        if (!item.isNumber()) return false;
        v[i] = item.getNumericValue();
        if (!std::isfinite(v[i])) return false;
    }
    std::memcpy(out, v, sizeof v);
    return true;
}

long integerOr(QPDFObjectHandle value, long fallback) {
    if (value.isInteger()) return long(value.getIntValue());
    return fallback;
}

bool isGeneralizedFilter(std::string const &name) {
    static const std::set<std::string> names = {
        "/FlateDecode", "/Fl", "/LZWDecode", "/LZW", "/ASCIIHexDecode", "/AHx",
        "/ASCII85Decode", "/A85", "/RunLengthDecode", "/RL"};
    return names.count(name) > 0;
}

void describeFilter(QPDFObjectHandle dict, docorient_pdf_page *page) {
    QPDFObjectHandle filter = dict.getKey("/Filter");
    std::vector<std::string> names;
    if (filter.isName()) {
        names.push_back(filter.getName());
    } else if (filter.isArray()) {
        for (auto &item : filter.getArrayAsVector()) names.push_back(item.isName() ? item.getName() : "?");
    }
    bool samples = true;
    for (auto &n : names) samples = samples && isGeneralizedFilter(n);
    if (samples) {
        page->filter = DOCORIENT_PDF_FILTER_SAMPLES;
    } else if (names.size() == 1 && (names[0] == "/DCTDecode" || names[0] == "/DCT")) {
        page->filter = DOCORIENT_PDF_FILTER_DCT;
    } else if (names.size() == 1 && (names[0] == "/CCITTFaxDecode" || names[0] == "/CCF")) {
        page->filter = DOCORIENT_PDF_FILTER_CCITT;
        QPDFObjectHandle parms = dict.getKey("/DecodeParms");
        if (parms.isArray() && parms.getArrayNItems() == 1) parms = parms.getArrayItem(0);
        if (parms.isDictionary()) {
            page->ccitt_k = integerOr(parms.getKey("/K"), 0);
            page->ccitt_columns = integerOr(parms.getKey("/Columns"), 0);
            page->ccitt_rows = integerOr(parms.getKey("/Rows"), 0);
            QPDFObjectHandle black = parms.getKey("/BlackIs1");
            page->ccitt_black_is_1 = black.isBool() && black.getBoolValue() ? 1 : 0;
            QPDFObjectHandle align = parms.getKey("/EncodedByteAlign");
            page->ccitt_byte_align = align.isBool() && align.getBoolValue() ? 1 : 0;
        }
    } else {
        page->filter = DOCORIENT_PDF_FILTER_OTHER;
        std::string last = names.empty() ? std::string("?") : names.back();
        report(page->filter_name, sizeof page->filter_name, last);
    }
}

int componentsOf(QPDFObjectHandle space, QPDFObjectHandle resources) {
    if (space.isName() && resources.isDictionary()) {
        QPDFObjectHandle named = resources.getKey("/ColorSpace");
        if (named.isDictionary() && named.hasKey(space.getName())) space = named.getKey(space.getName());
    }
    if (space.isName()) {
        std::string n = space.getName();
        if (n == "/DeviceGray" || n == "/G") return 1;
        if (n == "/DeviceRGB" || n == "/RGB") return 3;
        if (n == "/DeviceCMYK" || n == "/CMYK") return 4;
        return 0;
    }
    if (space.isArray() && space.getArrayNItems() >= 1 && space.getArrayItem(0).isName()) {
        std::string family = space.getArrayItem(0).getName();
        if (family == "/CalGray") return 1;
        if (family == "/CalRGB") return 3;
        if (family == "/ICCBased" && space.getArrayNItems() >= 2 && space.getArrayItem(1).isStream()) {
            QPDFObjectHandle n = space.getArrayItem(1).getDict().getKey("/N");
            if (n.isInteger()) {
                long long v = n.getIntValue();
                if (v == 1 || v == 3 || v == 4) return int(v);
            }
        }
    }
    return 0;
}

// The stream's data decoded at `level` into at most `max` bytes.
std::string boundedData(QPDFObjectHandle stream, qpdf_stream_decode_level_e level, size_t max) {
    BoundedBuffer buffer(max);
    bool attempted = false;
    bool ok = stream.pipeStreamData(&buffer, &attempted, 0, level, true, false);
    if (buffer.over) {
        throw Failure{DOCORIENT_PDF_LIMIT, "a stream decodes to more than " + std::to_string(max) + " bytes"};
    }
    if (!ok) throw Failure{DOCORIENT_PDF_MALFORMED, "a stream's data cannot be decoded"};
    if (level != qpdf_dl_none && !attempted && stream.getDict().hasKey("/Filter")) {
        QPDFObjectHandle filter = stream.getDict().getKey("/Filter");
        bool none = filter.isArray() && filter.getArrayNItems() == 0;
        if (!none) throw Failure{DOCORIENT_PDF_MALFORMED, "a stream's filters cannot be applied"};
    }
    return buffer.data_;
}

char *copied(std::string const &s) {
    char *p = static_cast<char *>(std::malloc(s.empty() ? 1 : s.size()));
    if (p == nullptr) throw std::bad_alloc();
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    return p;
}

}  // namespace

extern "C" docorient_pdf *docorient_pdf_open(
    const uint8_t *bytes, size_t length, long max_pages, docorient_pdf_status *status, char *error, size_t size) {
    docorient_pdf *pdf = nullptr;
    docorient_pdf_status result = guarded(error, size, [&] {
        pdf = new docorient_pdf();
        pdf->bytes.assign(reinterpret_cast<char const *>(bytes), length);
        pdf->qpdf.setSuppressWarnings(true);
        pdf->qpdf.setAttemptRecovery(false);
        pdf->qpdf.processMemoryFile("PDF", pdf->bytes.data(), pdf->bytes.size());
        if (pdf->qpdf.isEncrypted()) {
            throw Failure{DOCORIENT_PDF_ENCRYPTED, "the PDF is encrypted"};
        }
        // Bit 1 of /SigFlags: the document holds at least one signature, over byte ranges that
        // QPDFWriter's rewrite would move.
        // (Keys are looked up only where they exist: qpdf warns about lookups in null objects.)
        QPDFObjectHandle form = pdf->qpdf.getRoot().getKey("/AcroForm");
        QPDFObjectHandle flags =
            form.isDictionary() ? form.getKey("/SigFlags") : QPDFObjectHandle::newNull();
        if (flags.isInteger() && (flags.getIntValue() & 1)) {
            throw Failure{DOCORIENT_PDF_SIGNED, "the PDF is digitally signed"};
        }
        // The page tree's own count, checked before qpdf walks (and flattens) it.
        QPDFObjectHandle count = pdf->qpdf.getRoot().getKey("/Pages").getKey("/Count");
        if (count.isInteger() && count.getIntValue() > max_pages) {
            throw Failure{DOCORIENT_PDF_LIMIT, "the PDF has " + std::to_string(count.getIntValue()) +
                                                   " pages, over the limit of " + std::to_string(max_pages)};
        }
        pdf->pages = pdf->qpdf.getAllPages();
        if (long(pdf->pages.size()) > max_pages) {
            throw Failure{DOCORIENT_PDF_LIMIT, "the PDF has " + std::to_string(pdf->pages.size()) +
                                                   " pages, over the limit of " + std::to_string(max_pages)};
        }
        refuseWarnings(pdf->qpdf);
    });
    if (status != nullptr) *status = result;
    if (result != DOCORIENT_PDF_OK) {
        delete pdf;
        return nullptr;
    }
    return pdf;
}

extern "C" void docorient_pdf_close(docorient_pdf *pdf) { delete pdf; }

extern "C" long docorient_pdf_page_count(const docorient_pdf *pdf) { return long(pdf->pages.size()); }

extern "C" docorient_pdf_status docorient_pdf_describe_page(
    docorient_pdf *pdf, long index, size_t max_content_bytes, docorient_pdf_page *page, char *error, size_t size) {
    return guarded(error, size, [&] {
        if (index < 0 || index >= long(pdf->pages.size())) throw std::out_of_range("no such page");
        std::memset(page, 0, sizeof *page);
        page->dominant = -1;
        QPDFObjectHandle node = pdf->pages[size_t(index)];

        QPDFObjectHandle rotate = inherited(node, "/Rotate");
        if (rotate.isInteger()) {
            page->rotate = long(rotate.getIntValue());
        } else if (!rotate.isNull()) {
            page->rotate_invalid = 1;
        }

        // The content, each stream decoded within what is left of the bound, then parsed as one.
        QPDFObjectHandle contents = node.getKey("/Contents");
        std::vector<QPDFObjectHandle> streams;
        if (contents.isStream()) streams.push_back(contents);
        else if (contents.isArray()) streams = contents.getArrayAsVector();
        std::string content;
        for (auto &s : streams) {
            if (!s.isStream()) continue;
            content += boundedData(s, qpdf_dl_specialized, max_content_bytes - content.size());
            if (content.size() < max_content_bytes) content += "\n";
        }
        if (readBox(inherited(node, "/MediaBox"), page->media_box)) {
            page->has_media_box = 1;
            if (!readBox(inherited(node, "/CropBox"), page->crop_box)) {
                std::memcpy(page->crop_box, page->media_box, sizeof page->crop_box);
            }
        }
        QPDFObjectHandle annots = node.getKey("/Annots");
        if (annots.isArray()) page->annotations = annots.getArrayNItems();

        QPDFObjectHandle resources = inherited(node, "/Resources");
        QPDFObjectHandle xobjects =
            resources.isDictionary() ? resources.getKey("/XObject") : QPDFObjectHandle::newNull();
        ContentWalker walker(xobjects);
        if (!content.empty()) {
            QPDF scratch;
            scratch.emptyPDF();
            scratch.setSuppressWarnings(true);
            QPDFObjectHandle::parseContentStream(QPDFObjectHandle::newStream(&scratch, content), &walker);
        }
        page->unbalanced_restores = walker.unbalanced;
        page->images = int(walker.painted.size());
        page->forms = walker.forms;
        double total = 0, best = -1;
        for (size_t i = 0; i < walker.painted.size(); ++i) {
            double area = walker.painted[i].ctm.area();
            total += area;
            if (!walker.painted[i].image.isNull() && area > best) {
                best = area;
                page->dominant = int(i);
            }
        }
        if (page->dominant < 0) return;
        Painted chosen = walker.painted[size_t(page->dominant)];
        page->dominant_share = total > 0 ? best / total : 1;
        Matrix const &m = chosen.ctm;
        double values[6] = {m.a, m.b, m.c, m.d, m.e, m.f};
        std::memcpy(page->matrix, values, sizeof values);
        QPDFObjectHandle dict = chosen.image.getDict();
        page->width = integerOr(dict.getKey("/Width"), 0);
        page->height = integerOr(dict.getKey("/Height"), 0);
        page->bits_per_component = integerOr(dict.getKey("/BitsPerComponent"), 0);
        QPDFObjectHandle mask = dict.getKey("/ImageMask");
        page->image_mask = mask.isBool() && mask.getBoolValue() ? 1 : 0;
        page->components = page->image_mask ? 1 : componentsOf(dict.getKey("/ColorSpace"), resources);
        QPDFObjectHandle decode = dict.getKey("/Decode");
        if (decode.isArray() && decode.getArrayNItems() == 2 && decode.getArrayItem(0).isNumber() &&
            decode.getArrayItem(1).isNumber()) {
            page->decode_inverted =
                decode.getArrayItem(0).getNumericValue() > decode.getArrayItem(1).getNumericValue() ? 1 : 0;
        }
        describeFilter(dict, page);
        pdf->images[index] = chosen.image;
    });
}

extern "C" docorient_pdf_status docorient_pdf_image_data(
    docorient_pdf *pdf, long index, size_t max_bytes, uint8_t **data, size_t *length, char *error, size_t size) {
    *data = nullptr;
    *length = 0;
    return guarded(error, size, [&] {
        auto found = pdf->images.find(index);
        if (found == pdf->images.end()) throw std::logic_error("the page was not described, or has no image");
        QPDFObjectHandle image = found->second;
        // A JPEG or fax-coded image comes as it is stored; anything else decoded by qpdf.
        docorient_pdf_page described;
        std::memset(&described, 0, sizeof described);
        describeFilter(image.getDict(), &described);
        bool raw = described.filter == DOCORIENT_PDF_FILTER_DCT || described.filter == DOCORIENT_PDF_FILTER_CCITT;
        std::string bytes = boundedData(image, raw ? qpdf_dl_none : qpdf_dl_specialized, max_bytes);
        *length = bytes.size();
        *data = reinterpret_cast<uint8_t *>(copied(bytes));
    });
}

extern "C" docorient_pdf_status docorient_pdf_set_rotate(
    docorient_pdf *pdf, long index, long degrees, char *error, size_t size) {
    return guarded(error, size, [&] {
        if (index < 0 || index >= long(pdf->pages.size())) throw std::out_of_range("no such page");
        pdf->pages[size_t(index)].replaceKey("/Rotate", QPDFObjectHandle::newInteger(degrees));
    });
}

extern "C" docorient_pdf_status docorient_pdf_transform_contents(
    docorient_pdf *pdf, long index, const double matrix[6], char *error, size_t size) {
    return guarded(error, size, [&] {
        if (index < 0 || index >= long(pdf->pages.size())) throw std::out_of_range("no such page");
        QPDFObjectHandle node = pdf->pages[size_t(index)];
        std::string cm = "q";
        for (int i = 0; i < 6; ++i) {
            // PDF numbers have no exponent: fixed notation, trailing zeros trimmed.
            if (!std::isfinite(matrix[i])) throw std::invalid_argument("the transform is not finite");
            cm += " " + QUtil::double_to_string(matrix[i], 6);
        }
        cm += " cm\n";
        // The array is built here, not by QPDFObjectHandle::addPageContents, which drops (with a
        // warning) whatever in /Contents is not a stream: every item stays as it was.
        QPDFObjectHandle contents = node.getKey("/Contents");
        std::vector<QPDFObjectHandle> items;
        items.push_back(QPDFObjectHandle::newStream(&pdf->qpdf, cm));
        if (contents.isArray()) {
            for (auto &item : contents.getArrayAsVector()) items.push_back(item);
        } else if (!contents.isNull()) {
            items.push_back(contents);
        }
        items.push_back(QPDFObjectHandle::newStream(&pdf->qpdf, "\nQ\n"));
        node.replaceKey("/Contents", QPDFObjectHandle::newArray(items));
    });
}

extern "C" docorient_pdf_status docorient_pdf_write(
    docorient_pdf *pdf, uint8_t **data, size_t *length, char *error, size_t size) {
    *data = nullptr;
    *length = 0;
    return guarded(error, size, [&] {
        QPDFWriter writer(pdf->qpdf);
        writer.setOutputMemory();
        writer.setDecodeLevel(qpdf_dl_none);
        writer.setCompressStreams(false);
        writer.setObjectStreamMode(qpdf_o_preserve);
        writer.setContentNormalization(false);
        writer.setDeterministicID(true);
        // A linearized file (fast web view) stays linearized: its hint streams are qpdf's to
        // rewrite, as they index the objects where they now are.
        if (pdf->qpdf.isLinearized()) writer.setLinearization(true);
        writer.write();
        refuseWarnings(pdf->qpdf);
        auto buffer = writer.getBufferSharedPointer();
        std::string bytes(reinterpret_cast<char const *>(buffer->getBuffer()), buffer->getSize());
        *length = bytes.size();
        *data = reinterpret_cast<uint8_t *>(copied(bytes));
    });
}

extern "C" void docorient_pdf_free(void *data) { std::free(data); }

"""Hostile PDFs, written object by object with a correct cross-reference table, so that each is
exactly the hazard it names and nothing else."""

import io
import zlib

import pikepdf

CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"


def raw_pdf(objects):
    """A PDF of `objects` (object 1 the catalog), numbered from 1, with its xref and trailer."""
    out = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return out


def stream(dictionary, data):
    return b"<< %s /Length %d >>\nstream\n" % (dictionary, len(data)) + data + b"\nendstream"


def image_page(image_stream, content=b"q 100 0 0 100 0 0 cm /Im0 Do Q"):
    """Catalog, page tree, one page painting object 5 as /Im0."""
    return raw_pdf(
        [
            CATALOG,
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            (
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Contents 4 0 R"
                b" /Resources << /XObject << /Im0 5 0 R >> >> >>"
            ),
            stream(b"", content),
            image_stream,
        ]
    )


def kids_loop():
    """The page tree's root lists itself among its kids."""
    return raw_pdf(
        [
            CATALOG,
            b"<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 2 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>",
        ]
    )


def parent_loop():
    """The page's /Parent chain runs in a circle (2 -> 4 -> 2), and no node has /Rotate."""
    return raw_pdf(
        [
            CATALOG,
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 4 0 R >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] >>",
            b"<< /Type /Pages /Kids [2 0 R] /Count 1 /Parent 2 0 R >>",
        ]
    )


def parent_loop_off_tree():
    """The page tree is sound, but the page's /Parent leads into a circle of nodes outside it
    (4 -> 5 -> 4), none with /Rotate: only the walk for inherited attributes meets it."""
    return raw_pdf(
        [
            CATALOG,
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 4 0 R /MediaBox [0 0 100 100] >>",
            b"<< /Type /Pages /Kids [] /Count 0 /Parent 5 0 R >>",
            b"<< /Type /Pages /Kids [] /Count 0 /Parent 4 0 R >>",
        ]
    )


def grey_image_page(width, height, flate_data):
    """A page painting one grey image that says it is `width` x `height` samples, whatever its
    Flate data decodes to."""
    return image_page(
        stream(
            b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray"
            b" /BitsPerComponent 8 /Filter /FlateDecode" % (width, height),
            flate_data,
        )
    )


def huge_dimensions():
    """An image that says it is 200000 x 200000 grey samples (a few bytes of data)."""
    return grey_image_page(200000, 200000, zlib.compress(b"\0" * 1000))


def image_bomb(megabytes=200):
    """A 100 x 100 grey image whose Flate data decodes to `megabytes` MB of zeros."""
    return grey_image_page(100, 100, zlib.compress(b"\0" * (megabytes << 20), 9))


def content_bomb(megabytes=200):
    """A page whose content stream decodes to `megabytes` MB of spaces."""
    data = zlib.compress(b" " * (megabytes << 20), 9)
    return raw_pdf(
        [
            CATALOG,
            b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 100 100] /Contents 4 0 R >>",
            stream(b"/Filter /FlateDecode", data),
        ]
    )


def truncated(data):
    """The first 60% of a PDF."""
    return data[: len(data) * 6 // 10]


def encrypted(data, user=""):
    """The PDF encrypted (AES-256) with an owner password and `user` as the user password."""
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(data)) as pdf:
        pdf.save(out, encryption=pikepdf.Encryption(owner="owner", user=user))
    return out.getvalue()


def signed(data):
    """The PDF with an /AcroForm saying it holds a signature (/SigFlags 3)."""
    out = io.BytesIO()
    with pikepdf.open(io.BytesIO(data)) as pdf:
        pdf.Root.AcroForm = pikepdf.Dictionary(Fields=pikepdf.Array(), SigFlags=3)
        pdf.save(out)
    return out.getvalue()

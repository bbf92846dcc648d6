"""Scanned PDFs made from a corpus's images, for the PDF tests (Tests/PDF, Tests/Paperless,
Tests/OCRmyPDF) and benchmarks (Benchmarks/pdf), and the witnesses that check what docorient or
another tool wrote: how a page renders (pdftoppm), `qpdf --check`, and every stream's bytes (pikepdf).

img2pdf embeds a JPEG as it is (DCTDecode) and turns the page by /Rotate when the JPEG's EXIF tag
says so; pikepdf sets /Rotate (on the page or inherited from the page tree) and the image's
placement matrix.
"""

import csv
import hashlib
import io
import os
import subprocess

import img2pdf
import pikepdf
from PIL import Image

from .orientation import DISPLAY_OP
from .shared import ROOT

SAMPLES = os.path.join(ROOT, "Corpus", "samples")


def decidable_images(manifest, limit=0):
    """The folder of an image manifest (Corpus/samples', shared/real's) and its decidable JPEG and
    PNG rows, the first `limit` of them (0: all): the pages the PDF benchmarks make."""
    with open(manifest, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("decidable", "1") == "1" and r["file"].endswith((".jpg", ".png"))]
    return os.path.dirname(os.path.abspath(manifest)), rows[:limit] if limit else rows


def upright(name):
    """The EXIF orientation that shows the sample's stored pixels upright (manifest.csv)."""
    with open(os.path.join(SAMPLES, "manifest.csv"), newline="") as f:
        for row in csv.DictReader(f):
            if row["file"] == name:
                return int(row["upright_orientation"])
    raise KeyError(name)


def sample(name):
    return os.path.join(SAMPLES, name)


def image_pdf(jpeg):
    """One page showing the JPEG as img2pdf embeds it (its EXIF tag becomes /Rotate)."""
    return img2pdf.convert(jpeg)


def gray_flate_pdf(jpeg):
    """One page showing the JPEG's stored pixels as 8-bit grey samples, Flate compressed (a PNG
    embedded by img2pdf, with a PNG predictor), no /Rotate."""
    buffer = io.BytesIO()
    Image.open(jpeg).convert("L").save(buffer, format="PNG")
    return img2pdf.convert(buffer.getvalue(), rotation=img2pdf.Rotation.none)


def g4_pdf(jpeg):
    """One page showing the JPEG's stored pixels thresholded to black and white, CCITT Group 4
    coded (a Group 4 TIFF embedded by img2pdf, which sets /BlackIs1), no /Rotate."""
    buffer = io.BytesIO()
    Image.open(jpeg).convert("L").point(lambda v: 255 if v > 128 else 0).convert("1").save(
        buffer, format="TIFF", compression="group4"
    )
    return img2pdf.convert(buffer.getvalue(), rotation=img2pdf.Rotation.none)


def text_pdf():
    """One born-digital page: text, no image."""
    pdf = pikepdf.new()
    pdf.add_blank_page(page_size=(612, 792))
    page = pdf.pages[0]
    font = pikepdf.Dictionary(Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica)
    page.obj.Resources = pikepdf.Dictionary(Font=pikepdf.Dictionary(F1=font))
    page.obj.Contents = pdf.make_stream(b"BT /F1 24 Tf 72 700 Td (An invoice, born digital.) Tj ET")
    return saved(pdf)


def saved(pdf):
    out = io.BytesIO()
    pdf.save(out)
    return out.getvalue()


def with_rotate(data, degrees, inherited=False):
    """The PDF with every page's /Rotate set to `degrees`, or (inherited) set on the page tree's
    root and removed from the pages."""
    pdf = pikepdf.open(io.BytesIO(data))
    if inherited:
        pdf.Root.Pages.Rotate = degrees
        for page in pdf.pages:
            if "/Rotate" in page.obj:
                del page.obj["/Rotate"]
    else:
        for page in pdf.pages:
            page.obj.Rotate = degrees
    return saved(pdf)


def placed_sideways(data):
    """The first page's image drawn turned a quarter clockwise by its `cm` matrix (the content
    stream rewritten, the MediaBox swapped), /Rotate removed."""
    pdf = pikepdf.open(io.BytesIO(data))
    page = pdf.pages[0]
    _, _, w, h = [float(v) for v in page.MediaBox]
    page.obj.MediaBox = [0, 0, h, w]
    # The unit square's x (along a stored row) runs down the page, its y (up the image) to the right.
    page.obj.Contents = pdf.make_stream(b"q 0 -%.4f %.4f 0 0 %.4f cm /Im0 Do Q" % (w, h, w))
    if "/Rotate" in page.obj:
        del page.obj["/Rotate"]
    return saved(pdf)


def placed_mirrored(
    data, mirror="left-right", rotate=0, origin=(0, 0), margin=(0, 0, 0, 0), split=False, annotated=False
):
    """The first page's image drawn mirrored by its `cm` matrix, `mirror` "left-right" or
    "top-bottom", in a crop box of the image's size at `origin` inside a media box `margin` (left,
    bottom, right, top) larger, then turned by `rotate`; `split` draws it from two content
    streams (the matrix in one, the `Do` in the other), `annotated` adds a link annotation."""
    pdf = pikepdf.open(io.BytesIO(data))
    page = pdf.pages[0]
    _, _, w, h = [float(v) for v in page.MediaBox]
    x, y = origin
    left, bottom, right, top = margin
    page.obj.MediaBox = [x - left, y - bottom, x + w + right, y + h + top]
    if any(margin):
        page.obj.CropBox = [x, y, x + w, y + h]
    if mirror == "left-right":
        matrix = b"-%.4f 0 0 %.4f %.4f %.4f cm" % (w, h, x + w, y)
    else:
        matrix = b"%.4f 0 0 -%.4f %.4f %.4f cm" % (w, h, x, y + h)
    if split:
        page.obj.Contents = pikepdf.Array([pdf.make_stream(b"q " + matrix), pdf.make_stream(b"/Im0 Do Q")])
    else:
        page.obj.Contents = pdf.make_stream(b"q " + matrix + b" /Im0 Do Q")
    if rotate:
        page.obj.Rotate = rotate
    elif "/Rotate" in page.obj:
        del page.obj["/Rotate"]
    if annotated:
        link = pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Link, Rect=[x, y, x + 72, y + 72])
        page.obj.Annots = pdf.make_indirect(pikepdf.Array([link]))
    return saved(pdf)


def with_contents(data, content):
    """The first page drawn by one content stream `content`, in which `{w}` and `{h}` stand for
    its media box's width and height."""
    pdf = pikepdf.open(io.BytesIO(data))
    page = pdf.pages[0]
    _, _, w, h = [float(v) for v in page.MediaBox]
    page.obj.Contents = pdf.make_stream(content.replace(b"{w}", b"%.4f" % w).replace(b"{h}", b"%.4f" % h))
    return saved(pdf)


def combined(*documents):
    """One PDF with the pages of each document in turn."""
    pdf = pikepdf.new()
    for data in documents:
        other = pikepdf.open(io.BytesIO(data))
        pdf.pages.extend(other.pages)
    return saved(pdf)


# What a viewer applies to the stored pixels for each EXIF value: the corpus's own D4 definitions
# (Corpus/corpusgen/orientation.py), independent of docorient's geometry.
TRANSPOSE = {1: None, **DISPLAY_OP}


def render(path, page, long_side=320):
    """Page `page` (1-based) as poppler renders it, grey: its crop box, what viewers show."""
    out = subprocess.run(
        ["pdftoppm", "-cropbox", "-f", str(page), "-l", str(page), "-scale-to", str(long_side), "-gray", "-png", path],
        capture_output=True,
        check=True,
    ).stdout
    return Image.open(io.BytesIO(out)).convert("L")


def difference(path, page, jpeg, orientation):
    """How far (mean absolute grey difference, 0-255) what the page renders as is from the JPEG's
    stored pixels transformed by `orientation` and scaled to the page; None when their aspects differ."""
    return image_difference(render(path, page), jpeg, orientation)


def image_difference(shown, jpeg, orientation):
    """How far the image `shown` (PIL, any mode) is from the JPEG's stored pixels transformed by
    `orientation` and scaled to it; None when their aspects differ."""
    shown = shown.convert("L")
    op = TRANSPOSE[orientation]
    stored = Image.open(jpeg).convert("L")
    candidate = stored if op is None else stored.transpose(op)
    if (candidate.width > candidate.height) != (shown.width > shown.height):
        return None
    candidate = candidate.resize(shown.size, Image.Resampling.BOX)
    return sum(abs(a - b) for a, b in zip(candidate.tobytes(), shown.tobytes())) / (shown.width * shown.height)


def orientation_of(shown, jpeg):
    """The EXIF orientation whose transform of the JPEG's stored pixels looks most like the image
    `shown`; None when none has its aspect."""
    differences = [(d, o) for o in TRANSPOSE if (d := image_difference(shown, jpeg, o)) is not None]
    return min(differences)[1] if differences else None


def shown_orientation(path, page, jpeg):
    """The EXIF orientation whose transform of the JPEG's stored pixels looks most like what the
    page renders as: the witness of what a viewer shows, independent of docorient's geometry."""
    return orientation_of(render(path, page), jpeg)


def qpdf_check(path):
    result = subprocess.run(["qpdf", "--check", path], capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def stream_digests(path):
    """The SHA-256 of every stream's raw (still encoded) bytes in the file, sorted."""
    with pikepdf.open(path) as pdf:
        return sorted(
            hashlib.sha256(o.read_raw_bytes()).hexdigest() for o in pdf.objects if isinstance(o, pikepdf.Stream)
        )


def page_streams(path):
    """Per page: the raw bytes of its content streams and of each XObject it names."""
    pages = []
    with pikepdf.open(path) as pdf:
        for page in pdf.pages:
            contents = page.obj.get("/Contents")
            parts = [contents] if isinstance(contents, pikepdf.Stream) else list(contents or [])
            xobjects = page.obj.get("/Resources", {}).get("/XObject", {})
            pages.append(
                (
                    [c.read_raw_bytes() for c in parts],
                    {str(k): xobjects[k].read_raw_bytes() for k in xobjects},
                )
            )
    return pages


def page_keys(path):
    """Per page: its keys other than /Rotate with their values' text, and its effective /Rotate."""
    out = []
    with pikepdf.open(path) as pdf:
        for page in pdf.pages:
            keys = {
                str(k): str(page.obj[k]) for k in page.obj if k not in ("/Rotate", "/Parent", "/Contents", "/Resources")
            }
            out.append((keys, inherited_rotate(page.obj)))
    return out


def inherited_rotate(node):
    while node is not None:
        if "/Rotate" in node:
            return int(node.Rotate)
        node = node.get("/Parent")
    return 0


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()

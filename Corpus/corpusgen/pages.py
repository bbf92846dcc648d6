"""The first document kinds (receipt, letter, form, invoice, fineprint, mixed, pdfpage) and the hard
negatives (blank, twowords, barcode, photo), rendered upright as greyscale "ink on paper"."""

from __future__ import annotations

import gzip
import io
import os
import shutil
import subprocess
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw

from .fonts import FONTS, LEGACY_FAMILY, font, font_name, overriding_family
from .text import ITEMS, PRODUCTS, STORES, WORDS, address_lines, date_str, paragraph, person, sentence, wrap

# Real documents that Debian packages install (package in parentheses; all are
# listed in Corpus/apt-packages.txt).  Compressed ones are unpacked to a temp dir.
PDF_SOURCES = [
    "/usr/share/doc/bzip2/manual.pdf.gz",  # bzip2-doc
    "/usr/share/doc/fontconfig/fontconfig-user.pdf.gz",  # fontconfig
    "/usr/share/doc/libimage-exiftool-perl/html/MIE1.1-20070121.pdf",  # libimage-exiftool-perl
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf",  # libtasn1-doc
    "/usr/share/doc/nettle-dev/nettle.pdf.gz",  # nettle-dev
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",  # shared-mime-info
    "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz",  # zlib1g-dev
]


@dataclass
class Doc:
    image: Image.Image  # L, 255 = paper
    body_px: float  # body font size in doc pixels (legibility control)
    min_final_px: float  # smallest acceptable body size in the final photo
    tags: list = field(default_factory=list)
    source: str = ""
    family: str = ""  # the family of the body text, when the maker knows it


def new_page(w, h):
    img = Image.new("L", (w, h), 255)
    return img, ImageDraw.Draw(img)


def draw_barcode(draw, rng, x, y, w, h, ink=0):
    pos = x
    while pos < x + w - 4:
        bw = int(rng.integers(1, 5)) * max(1, w // 220)
        if rng.random() < 0.55:
            draw.rectangle([pos, y, min(pos + bw - 1, x + w), y + h], fill=ink)
        pos += bw


def doc_letter(rng) -> Doc:
    W, H = 1654, 2339  # A4 at 200 dpi
    img, d = new_page(W, H)
    fi = int(rng.integers(3))
    size = int(rng.integers(26, 34))
    f = font("serif", fi, size)
    fb = font("serif-bold", fi, int(size * 1.5))
    m = int(rng.integers(150, 230))
    y = m
    d.text((m, y), STORES[int(rng.integers(len(STORES)))].title() + " Ltd", font=fb, fill=20)
    y += int(size * 2.4)
    for line in address_lines(rng) + [f"Tel. {int(rng.integers(100, 999))} {int(rng.integers(1000000, 9999999))}"]:
        d.text((m, y), line, font=f, fill=30)
        y += int(size * 1.35)
    y += size * 2
    d.text((W - m - d.textlength("Date: 00/00/2000", font=f), y), f"Date: {date_str(rng)}", font=f, fill=20)
    y += size * 2
    name = person(rng)
    d.text((m, y), f"Dear {name.split()[0]},", font=f, fill=15)
    y += size * 2
    lead = 1.3 + 0.25 * rng.random()
    for _ in range(int(rng.integers(3, 7))):
        for line in wrap(d, paragraph(rng), f, W - 2 * m):
            if y > H - m - size * 5:
                break
            d.text((m, y), line, font=f, fill=15)
            y += int(size * lead)
        y += size
    if y < H - m - size * 4:
        d.text((m, y), "Yours sincerely,", font=f, fill=15)
        d.text((m, y + size * 3), person(rng), font=f, fill=15)
    return Doc(img, size, 17, [f"font:{font_name('serif', fi)}"])


def doc_receipt(rng) -> Doc:
    W = int(rng.integers(520, 640))  # 80 mm paper at ~180 dpi
    nitems = int(rng.integers(3, 16))
    H = int(W * 1.1) + nitems * 90 + int(rng.integers(300, 700))
    img, d = new_page(W, H)
    style = ["mono", "condensed", "mono"][int(rng.integers(3))]
    fi = int(rng.integers(3))
    size = int(rng.integers(22, 28))
    f = font(style, fi, size)
    fb = font(style + "-bold", fi, int(size * 1.35))
    m = 24
    ink = int(rng.integers(0, 60))
    y = 40

    def centre(text, fnt, yy):
        d.text(((W - d.textlength(text, font=fnt)) / 2, yy), text, font=fnt, fill=ink)

    centre(STORES[int(rng.integers(len(STORES)))], fb, y)
    y += int(size * 2.2)
    for line in address_lines(rng):
        centre(line, f, y)
        y += int(size * 1.3)
    y += int(size * 1.5)
    d.text((m, y), f"{date_str(rng)}  {int(rng.integers(6, 22)):02d}:{int(rng.integers(60)):02d}", font=f, fill=ink)
    y += int(size * 1.3)
    d.text((m, y), f"TRANS {int(rng.integers(1000, 9999))}  CASHIER {int(rng.integers(1, 20))}", font=f, fill=ink)
    y += int(size * 2.5)
    total = 0.0
    sparse = rng.random() < 0.6
    for _ in range(nitems):
        item = ITEMS[int(rng.integers(len(ITEMS)))]
        price = float(rng.integers(49, 2999)) / 100
        total += price
        d.text((m, y), item, font=f, fill=ink)
        p = f"{price:.2f}"
        d.text((W - m - d.textlength(p, font=f), y), p, font=f, fill=ink)
        y += int(size * (2.1 if sparse else 1.4))
    y += size
    d.line([(m, y), (W - m, y)], fill=ink, width=2)
    y += size
    tax = round(total * 0.08, 2)
    for label, val in [("SUBTOTAL", total), ("TAX 8%", tax), ("TOTAL", total + tax)]:
        fnt = fb if label == "TOTAL" else f
        d.text((m, y), label, font=fnt, fill=ink)
        v = f"{val:.2f}"
        d.text((W - m - d.textlength(v, font=fnt), y), v, font=fnt, fill=ink)
        y += int(size * 1.8)
    y += size
    d.text((m, y), f"VISA **** {int(rng.integers(1000, 9999))}", font=f, fill=ink)
    y += int(size * 2.5)
    centre("THANK YOU FOR SHOPPING", f, y)
    y += int(size * 2)
    if rng.random() < 0.5 and y + 120 < H:
        draw_barcode(d, rng, W // 6, y, W * 2 // 3, 90, ink)
    tags = [f"font:{font_name(style, fi)}"]
    img = img.crop((0, 0, W, min(H, y + 160)))
    if rng.random() < 0.55:  # faded thermal print: lighter ink, uneven fade
        a = np.asarray(img, dtype=np.float32)
        fade = 0.3 + 0.3 * rng.random()
        ramp = np.linspace(0, 1, a.shape[0], dtype=np.float32)[:, None]
        if rng.random() < 0.5:
            ramp = ramp[::-1]
        strength = fade * (0.6 + 0.4 * ramp)
        a = 255 - (255 - a) * (1 - strength)
        img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
        tags.append(f"faint:{fade:.2f}")
    return Doc(img, size, 17, tags)


def doc_form(rng) -> Doc:
    W, H = 1654, 2339
    img, d = new_page(W, H)
    fi = int(rng.integers(3))
    style = "sans" if rng.random() < 0.7 else "condensed"
    size = int(rng.integers(26, 32))
    f = font(style, fi, size)
    fb = font("sans-bold", fi, int(size * 1.6))
    m = 140
    y = m
    title = [
        "APPLICATION FORM",
        "REGISTRATION FORM",
        "CLAIM FORM",
        "CHANGE OF ADDRESS",
        "EMPLOYEE DETAILS",
        "PATIENT INTAKE FORM",
    ][int(rng.integers(6))]
    d.text((m, y), title, font=fb, fill=0)
    y += int(size * 3)
    d.text((m, y), sentence(rng, 8, 14), font=f, fill=40)
    y += int(size * 2.5)
    labels = [
        "Surname",
        "First name",
        "Date of birth",
        "Address",
        "Postcode",
        "Telephone",
        "Email",
        "Reference number",
        "Account number",
        "Employer",
        "Signature",
        "Date",
    ]
    dashed = rng.random() < 0.5
    for i in range(int(rng.integers(6, 11))):
        lab = labels[i % len(labels)]
        d.text((m, y), lab, font=f, fill=0)
        bx = m + 420
        if dashed:
            for x in range(bx, W - m, 24):
                d.line([(x, y + size + 4), (x + 12, y + size + 4)], fill=60, width=2)
        else:
            d.rectangle([bx, y - 8, W - m, y + size + 12], outline=40, width=2)
        if rng.random() < 0.4:
            d.text((bx + 16, y), person(rng) if i < 2 else date_str(rng), font=font("italic", fi, size), fill=70)
        y += int(size * 2.4)
    y += size
    for opt in ["Yes", "No", "Prefer not to say"]:
        d.rectangle([m, y, m + size, y + size], outline=0, width=2)
        d.text((m + size * 2, y - 2), opt, font=f, fill=0)
        y += int(size * 1.8)
    y += size
    # a small table
    cols = 4
    cw = (W - 2 * m) // cols
    heads = ["Item", "Description", "Quantity", "Amount"]
    for r in range(int(rng.integers(4, 8))):
        for c in range(cols):
            d.rectangle([m + c * cw, y, m + (c + 1) * cw, y + int(size * 1.9)], outline=30, width=2)
            txt = (
                heads[c]
                if r == 0
                else (
                    str(r) if c == 0 else (WORDS[int(rng.integers(len(WORDS)))] if c == 1 else f"{rng.integers(1, 99)}")
                )
            )
            d.text((m + c * cw + 12, y + 8), txt, font=f, fill=0)
        y += int(size * 1.9)
        if y > H - m - 200:
            break
    y += size * 2
    for line in wrap(d, paragraph(rng, 2, 4), font(style, fi, int(size * 0.8)), W - 2 * m):
        if y > H - m:
            break
        d.text((m, y), line, font=font(style, fi, int(size * 0.8)), fill=40)
        y += int(size * 1.1)
    return Doc(img, size, 17, [f"font:{font_name(style, fi)}", "dashed" if dashed else "boxes"])


def doc_invoice(rng) -> Doc:
    W, H = 1654, 2339
    img, d = new_page(W, H)
    fi = int(rng.integers(3))
    style = ["sans", "serif", "condensed"][int(rng.integers(3))]
    size = int(rng.integers(25, 31))
    f = font(style, fi, size)
    fb = font(style + "-bold" if style != "condensed" else "condensed-bold", fi, int(size * 1.8))
    fm = font("mono", fi, size)
    m = 140
    y = m
    d.text((m, y), "INVOICE", font=fb, fill=0)
    d.text((W - m - 520, y), STORES[int(rng.integers(len(STORES)))].title(), font=f, fill=0)
    for i, line in enumerate(address_lines(rng)):
        d.text((W - m - 520, y + int(size * 1.4) * (i + 1)), line, font=f, fill=30)
    y += int(size * 5)
    for lab, val in [
        ("Invoice no.", f"{int(rng.integers(10000, 99999))}"),
        ("Date", date_str(rng)),
        ("Due date", date_str(rng)),
        ("Customer ID", f"C-{int(rng.integers(1000, 9999))}"),
    ]:
        d.text((m, y), lab, font=f, fill=0)
        d.text((m + 330, y), val, font=fm, fill=0)
        y += int(size * 1.5)
    y += size
    d.text((m, y), "Bill to: " + person(rng), font=f, fill=0)
    y += int(size * 3)
    cx = [m, m + 120, m + 800, m + 1000, W - m]
    for c, h in enumerate(["No.", "Description", "Qty", "Unit", "Amount"]):
        if c < 4:
            d.text((cx[c], y), h, font=f, fill=0)
    d.text((W - m - d.textlength("Amount", font=f), y), "Amount", font=f, fill=0)
    y += int(size * 1.5)
    d.line([(m, y), (W - m, y)], fill=0, width=3)
    y += size // 2
    total = 0.0
    for r in range(int(rng.integers(8, 22))):
        q = int(rng.integers(1, 40))
        unit = float(rng.integers(100, 99999)) / 100
        amt = q * unit
        total += amt
        d.text((cx[0], y), f"{r + 1}", font=fm, fill=0)
        d.text((cx[1], y), PRODUCTS[int(rng.integers(len(PRODUCTS)))], font=f, fill=0)
        d.text((cx[2], y), f"{q}", font=fm, fill=0)
        d.text((cx[3], y), f"{unit:,.2f}", font=fm, fill=0)
        a = f"{amt:,.2f}"
        d.text((W - m - d.textlength(a, font=fm), y), a, font=fm, fill=0)
        y += int(size * 1.45)
        if y > H - 600:
            break
    d.line([(m, y), (W - m, y)], fill=0, width=2)
    y += size
    for lab, val in [("Subtotal", total), ("VAT 20%", total * 0.2), ("Total due", total * 1.2)]:
        d.text((cx[3] - 150, y), lab, font=f, fill=0)
        v = f"{val:,.2f}"
        d.text((W - m - d.textlength(v, font=fm), y), v, font=fm, fill=0)
        y += int(size * 1.6)
    y += size * 2
    small = font(style, fi, int(size * 0.75))
    for line in wrap(d, "Payment terms: " + paragraph(rng, 2, 4), small, W - 2 * m):
        if y > H - m:
            break
        d.text((m, y), line, font=small, fill=30)
        y += int(size * 1.05)
    return Doc(img, size, 17, [f"font:{font_name(style, fi)}"])


def doc_fineprint(rng) -> Doc:
    W, H = 1654, 2339
    img, d = new_page(W, H)
    fi = int(rng.integers(3))
    style = ["serif", "sans", "condensed"][int(rng.integers(3))]
    size = int(rng.integers(18, 23))
    f = font(style, fi, size)
    fb = font("sans-bold", fi, int(size * 1.6))
    m = 110
    ncol = 2 if rng.random() < 0.6 else 1
    gap = 50
    cw = (W - 2 * m - gap * (ncol - 1)) // ncol
    y0 = m
    d.text((m, y0), "TERMS AND CONDITIONS", font=fb, fill=0)
    y0 += int(size * 3)
    clause = 1
    for c in range(ncol):
        x = m + c * (cw + gap)
        y = y0
        while y < H - m - size * 2:
            lines = wrap(d, f"{clause}. " + paragraph(rng, 2, 5), f, cw)
            for line in lines:
                if y > H - m - size:
                    break
                d.text((x, y), line, font=f, fill=25)
                y += int(size * 1.2)
            y += size // 2
            clause += 1
    return Doc(img, size, 14, [f"font:{font_name(style, fi)}", f"columns:{ncol}"])


def doc_mixed(rng) -> Doc:
    W, H = 1654, 2339
    img, d = new_page(W, H)
    fi = int(rng.integers(3))
    m = 130
    y = m
    head = font("sans-bold", fi, int(rng.integers(70, 110)))
    title = " ".join(WORDS[int(i)] for i in rng.integers(0, len(WORDS), 3)).title()
    d.text((m, y), title, font=head, fill=0)
    y += int(head.size * 1.5)
    sub = font("italic", fi, int(rng.integers(36, 46)))
    for line in wrap(d, sentence(rng, 6, 12), sub, W - 2 * m):
        d.text((m, y), line, font=sub, fill=30)
        y += int(sub.size * 1.3)
    y += 30
    size = int(rng.integers(25, 31))
    styles = ["serif", "sans", "condensed", "mono"]
    body_styles = [styles[int(i)] for i in rng.permutation(4)[:2]]
    col_w = (W - 2 * m - 60) // 2
    ystart = y
    for c, st in enumerate(body_styles):
        f = font(st, fi, size)
        x = m + c * (col_w + 60)
        y = ystart
        for _ in range(int(rng.integers(2, 5))):
            for line in wrap(d, paragraph(rng, 2, 5), f, col_w):
                if y > H - 520:
                    break
                d.text((x, y), line, font=f, fill=10)
                y += int(size * 1.3)
            y += size
    y = max(y, H - 480)
    d.rectangle([m, y, W - m, y + 300], outline=0, width=4)
    bf = font("mono-bold", fi, int(size * 1.2))
    yy = y + 30
    for _ in range(3):
        d.text((m + 30, yy), sentence(rng, 4, 7).upper()[:44], font=bf, fill=0)
        yy += int(size * 2)
    fam = (
        overriding_family().name
        if overriding_family()
        else LEGACY_FAMILY.get(FONTS[body_styles[0]][fi % len(FONTS[body_styles[0]])][1].rsplit(".", 1)[0], "")
    )
    return Doc(img, size, 17, ["fonts:" + "+".join(body_styles)], family=fam)


_pdf_paths: list = []  # the unpacked PDFs (prepare_pdfs), set in every process by use_pdfs
_pdf_pages: dict = {}


def prepare_pdfs(workdir: str) -> list:
    """Unpack the fixed PDF list into workdir; return paths in PDF_SOURCES order."""
    out = []
    for i, src in enumerate(PDF_SOURCES):
        if not os.path.exists(src):
            raise SystemExit(f"{src} missing: install the packages in Corpus/apt-packages.txt")
        dst = os.path.join(workdir, f"pdf{i}.pdf")
        if src.endswith(".gz"):
            with gzip.open(src, "rb") as fi, open(dst, "wb") as fo:
                shutil.copyfileobj(fi, fo)
        else:
            shutil.copyfile(src, dst)
        out.append(dst)
    return out


def use_pdfs(paths: list) -> None:
    """The PDFs that pdfpage draws from in this process (prepare_pdfs' paths)."""
    global _pdf_paths
    _pdf_paths = paths


def pdf_page_count(path: str) -> int:
    if path not in _pdf_pages:
        info = subprocess.run(["pdfinfo", path], capture_output=True, text=True, check=True).stdout
        _pdf_pages[path] = int(next(l.split()[1] for l in info.splitlines() if l.startswith("Pages:")))
    return _pdf_pages[path]


def doc_pdfpage(rng) -> Doc:
    for _ in range(40):
        k = int(rng.integers(len(_pdf_paths)))
        path = _pdf_paths[k]
        page = int(rng.integers(1, pdf_page_count(path) + 1))
        txt = subprocess.run(
            ["pdftotext", "-f", str(page), "-l", str(page), "-layout", path, "-"], capture_output=True, text=True
        ).stdout
        letters = sum(ch.isalpha() for ch in txt)
        if letters >= 600:
            break
    png = subprocess.run(
        ["pdftoppm", "-f", str(page), "-l", str(page), "-r", "200", "-gray", "-png", path],
        capture_output=True,
        check=True,
    ).stdout
    img = Image.open(io.BytesIO(png)).convert("L")
    # pdf manuals use ~10 pt body text: 10 pt at 200 dpi is ~28 px
    src = os.path.basename(PDF_SOURCES[k])
    return Doc(img, 28, 16, [f"pdf:{src}#p{page}"], source=f"{PDF_SOURCES[k]}#page={page}")


# Hard negatives: no readable text, truth "undecidable".


def doc_blank(rng) -> Doc:
    W, H = (1654, 2339) if rng.random() < 0.8 else (560, 1400)
    a = np.full((H, W), 250, np.float32)
    if rng.random() < 0.5:  # a fold crease
        x = int(rng.integers(W // 4, 3 * W // 4))
        a[:, x : x + 3] -= 18
    img = Image.fromarray(a.astype(np.uint8))
    return Doc(img, 30, 0, ["crease"] if a.min() < 240 else [])


def doc_twowords(rng) -> Doc:
    W, H = 1654, 2339
    img, d = new_page(W, H)
    pairs = ["Thank you", "Draft copy", "Page two", "Not used", "See over", "Void copy", "Hello there", "Keep this"]
    text = pairs[int(rng.integers(len(pairs)))]
    f = font(["sans", "serif", "condensed"][int(rng.integers(3))], int(rng.integers(3)), int(rng.integers(40, 90)))
    x = int(rng.integers(150, W - 150 - d.textlength(text, font=f)))
    y = int(rng.integers(200, H - 300))
    d.text((x, y), text, font=f, fill=20)
    return Doc(img, f.size, 0, [f"words:{text.replace(' ', '_')}"])


def doc_barcode(rng) -> Doc:
    W = int(rng.integers(500, 640))
    H = int(rng.integers(500, 900))
    img, d = new_page(W, H)
    n = int(rng.integers(1, 3))
    y = 60
    for _ in range(n):
        bh = int(rng.integers(120, 220))
        draw_barcode(d, rng, 40, y, W - 80, bh, 10)
        y += bh + int(rng.integers(60, 160))
    if rng.random() < 0.5:
        d.line([(30, y), (W - 30, y)], fill=40, width=3)
    return Doc(img.crop((0, 0, W, min(H, y + 60))), 30, 0, [f"barcodes:{n}"])


def scene_photo(rng, size) -> Image.Image:
    """A photo with no text: sky gradient, ground texture, blobs and shapes."""
    W, H = size
    h4, w4 = H // 4, W // 4
    yy, xx = np.mgrid[0:h4, 0:w4].astype(np.float32)
    top = rng.uniform(120, 230, 3).astype(np.float32)
    bot = rng.uniform(20, 160, 3).astype(np.float32)
    t = (yy / h4)[..., None]
    a = top * (1 - t) + bot * t
    horizon = rng.uniform(0.4, 0.75) * h4
    ground = rng.uniform(30, 140, 3).astype(np.float32)
    noise = rng.standard_normal((h4 // 8 + 1, w4 // 8 + 1)).astype(np.float32)
    nimg = np.asarray(Image.fromarray(noise).resize((w4, h4), Image.BICUBIC))
    gm = (yy > horizon + 10 * np.sin(xx / 37.0))[..., None]
    a = np.where(gm, ground + 25 * nimg[..., None], a)
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).resize((W, H), Image.BICUBIC)
    d = ImageDraw.Draw(img)
    for _ in range(int(rng.integers(4, 12))):
        col = tuple(int(c) for c in rng.integers(0, 255, 3))
        x0, y0 = int(rng.integers(0, W)), int(rng.integers(0, H))
        r = int(rng.integers(W // 30, W // 6))
        if rng.random() < 0.5:
            d.ellipse([x0 - r, y0 - r, x0 + r, y0 + r], fill=col)
        else:
            d.polygon([(x0 + int(rng.integers(-r, r)), y0 + int(rng.integers(-r, r))) for _ in range(4)], fill=col)
    return img

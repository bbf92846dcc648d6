#!/usr/bin/env python3
"""Generate phone-capture-like document photos whose true orientation is known.

Every file is built the same way: render a document upright (or a hard negative
with no readable text), "photograph" it (table texture, perspective, skew, light,
shadow, blur, noise), then store the pixels in one of the 8 EXIF orientations and
write an EXIF tag that is right, wrong (flat-shot style), or absent; some files
are PNGs with no orientation at all.  A manifest.csv beside the files records the
truth.

Orientation semantics (see Corpus/README.md): ``upright_orientation`` = u means
that applying EXIF u's display transform to the *stored* pixels gives the upright
document.  So the generator stores ``inverse(display(u))`` of the upright photo.

Determinism: every random choice comes from numpy Generators seeded from
(seed, file index) or from the fixed samples profile; fonts and PDFs come from
fixed, sorted path lists; nothing depends on time, hash order or worker count.
The same seed, count and installed packages give byte-identical files.

Usage:
    python3 Corpus/generate.py --seed 1 --count 320 --out /tmp/bench-set
    python3 Corpus/generate.py --samples            # rewrites Corpus/samples/
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import math
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES_DIR = os.path.join(HERE, "samples")

MANIFEST_COLUMNS = [
    "file", "upright_orientation", "decidable", "exif_orientation", "kind",
    "degradations", "format", "width", "height", "seed", "source",
]

# ---------------------------------------------------------------------------
# Orientation model
# ---------------------------------------------------------------------------

# EXIF value -> PIL transpose op that a viewer applies to the stored pixels to
# display them (PIL's ROTATE_* turn counter-clockwise, so "rotate 90 clockwise"
# for tag 6 is ROTATE_270).  Matches PIL.ImageOps.exif_transpose and DOMAIN.md.
DISPLAY_OP = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
# Inverse of each display op: every element of D4 here is its own inverse
# except the quarter turns 6 and 8, which invert each other.
INVERSE_OF = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6}


def store_for_upright(upright: Image.Image, u: int) -> Image.Image:
    """Pixels to store so that EXIF u's display transform shows `upright`."""
    inv = INVERSE_OF[u]
    return upright if inv == 1 else upright.transpose(DISPLAY_OP[inv])


def display(stored: Image.Image, u: int) -> Image.Image:
    return stored if u == 1 else stored.transpose(DISPLAY_OP[u])


# ---------------------------------------------------------------------------
# Fixed resources: fonts and PDFs (sorted, fixed paths: never globbed)
# ---------------------------------------------------------------------------

FONT_DIRS = {
    "dejavu": "/usr/share/fonts/truetype/dejavu",
    "liberation2": "/usr/share/fonts/truetype/liberation2",
    "liberation": "/usr/share/fonts/truetype/liberation",
    "freefont": "/usr/share/fonts/truetype/freefont",
}
FONTS = {
    "serif": [
        ("dejavu", "DejaVuSerif.ttf"), ("freefont", "FreeSerif.ttf"),
        ("liberation2", "LiberationSerif-Regular.ttf"),
    ],
    "serif-bold": [
        ("dejavu", "DejaVuSerif-Bold.ttf"), ("freefont", "FreeSerifBold.ttf"),
        ("liberation2", "LiberationSerif-Bold.ttf"),
    ],
    "sans": [
        ("dejavu", "DejaVuSans.ttf"), ("freefont", "FreeSans.ttf"),
        ("liberation2", "LiberationSans-Regular.ttf"),
    ],
    "sans-bold": [
        ("dejavu", "DejaVuSans-Bold.ttf"), ("freefont", "FreeSansBold.ttf"),
        ("liberation2", "LiberationSans-Bold.ttf"),
    ],
    "mono": [
        ("dejavu", "DejaVuSansMono.ttf"), ("freefont", "FreeMono.ttf"),
        ("liberation2", "LiberationMono-Regular.ttf"),
    ],
    "mono-bold": [
        ("dejavu", "DejaVuSansMono-Bold.ttf"), ("freefont", "FreeMonoBold.ttf"),
        ("liberation2", "LiberationMono-Bold.ttf"),
    ],
    "condensed": [
        ("dejavu", "DejaVuSansCondensed.ttf"), ("dejavu", "DejaVuSerifCondensed.ttf"),
        ("liberation", "LiberationSansNarrow-Regular.ttf"),
    ],
    "condensed-bold": [
        ("dejavu", "DejaVuSansCondensed-Bold.ttf"),
        ("liberation", "LiberationSansNarrow-Bold.ttf"),
    ],
    "italic": [
        ("dejavu", "DejaVuSerif-Italic.ttf"), ("liberation2", "LiberationSerif-Italic.ttf"),
    ],
}

# Real documents that Debian packages install (package in parentheses; all are
# listed in Corpus/apt-packages.txt).  Compressed ones are unpacked to a temp dir.
PDF_SOURCES = [
    "/usr/share/doc/bzip2/manual.pdf.gz",                               # bzip2-doc
    "/usr/share/doc/fontconfig/fontconfig-user.pdf.gz",                 # fontconfig
    "/usr/share/doc/libimage-exiftool-perl/html/MIE1.1-20070121.pdf",   # libimage-exiftool-perl
    "/usr/share/doc/libtasn1-doc/libtasn1.pdf",                         # libtasn1-doc
    "/usr/share/doc/nettle-dev/nettle.pdf.gz",                          # nettle-dev
    "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",        # shared-mime-info
    "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz",                     # zlib1g-dev
]

_font_cache: dict = {}


def font(style: str, index: int, size: int) -> ImageFont.FreeTypeFont:
    choices = FONTS[style]
    d, name = choices[index % len(choices)]
    key = (d, name, size)
    if key not in _font_cache:
        path = os.path.join(FONT_DIRS[d], name)
        if not os.path.exists(path):
            raise SystemExit(f"font {path} missing: install the packages in Corpus/apt-packages.txt")
        _font_cache[key] = ImageFont.truetype(path, size)
    return _font_cache[key]


def font_name(style: str, index: int) -> str:
    return FONTS[style][index % len(FONTS[style])][1].rsplit(".", 1)[0]


# ---------------------------------------------------------------------------
# Text content
# ---------------------------------------------------------------------------

WORDS = """the of and to in is that for it as was with be by on not he this are or his
from at which but have an they you were her she there would their we him been has when
who will more no if out so said what up its about into than them can only other new some
could time these two may then do first any my now such like our over man me even most made
after also did many before must through back years where much your way well down should
because each just those people how too little state good very make world still own see men
work long get here between both life being under never day same another know while last
might us great old year off come since against go came right used take three states himself
few house use during without again place american around however home small found thought
went say part once general high upon school every does got united left number course war
until always away something fact though water less public put think almost hand enough far
took head yet government system better set told nothing night end why called didn find look
going asked later knew point next program city business give group toward young days let
room president side social given present several order national possible rather second face
per among form important often things looked early white case john become large big need
four within felt along children saw best church ever least power development light seemed
family interest want members mind country area others done turned although open problem
service certain kind different thus began door help means sense whole matter perhaps itself
york times law human line above name example action company hands local show whether five
history gave today either act feet across taken past quite anything seen having death week
experience body word half really field am car words already themselves information tell
together college shall money period held keep sure free seems real behind cannot miss
political air question office brought whose special heard major problems ago became federal
account policy payment invoice customer balance delivery contract agreement notice please
regarding request attached meeting schedule report review provide received address total
amount due date signature reference statement period terms conditions service charges
""".split()

SURNAMES = ["Anderson", "Baker", "Carter", "Dawson", "Ellis", "Fischer", "Garcia", "Hughes",
            "Ingram", "Jensen", "Keller", "Lambert", "Morgan", "Nolan", "Owens", "Parker",
            "Quinn", "Reyes", "Sullivan", "Turner", "Vaughn", "Walsh", "Young", "Zimmer"]
FIRSTNAMES = ["Alice", "Brian", "Clara", "David", "Emma", "Frank", "Grace", "Henry", "Irene",
              "James", "Karen", "Louis", "Maria", "Nathan", "Olivia", "Peter", "Rachel",
              "Samuel", "Teresa", "Victor", "Wendy"]
STREETS = ["Oak Street", "Maple Avenue", "Station Road", "High Street", "Park Lane",
           "Mill Road", "Church Street", "Elm Drive", "River Road", "Harbour Way"]
CITIES = ["Springfield", "Riverton", "Lakewood", "Fairview", "Georgetown", "Madison",
          "Ashford", "Brookfield", "Clayton", "Milton"]
STORES = ["FRESH MARKET", "CORNER GROCERY", "CITY PHARMACY", "BEAN & LEAF CAFE",
          "HARDWARE PLUS", "SUNRISE BAKERY", "QUICK STOP", "GREEN VALLEY FOODS",
          "THE BOOK NOOK", "METRO FUEL"]
ITEMS = ["MILK 1L", "BREAD WHOLE", "EGGS 12PK", "BANANAS", "COFFEE BEANS", "APPLES",
         "CHEDDAR 200G", "TOMATOES", "PASTA 500G", "OLIVE OIL", "RICE 1KG", "YOGURT",
         "ORANGE JUICE", "BUTTER", "CHICKEN BREAST", "LETTUCE", "SPARKLING WATER",
         "CHOCOLATE BAR", "TEA BAGS", "DISH SOAP", "BATTERIES AA", "NOTEBOOK A5",
         "CROISSANT", "LATTE LARGE", "SCREWS 4X40", "PAPER TOWELS", "SHAMPOO", "ONIONS"]
PRODUCTS = ["Consulting services", "Software licence", "Support hours", "Office chairs",
            "Printer toner", "Network cable", "Installation fee", "Travel expenses",
            "Monitor stand", "Annual maintenance", "Training session", "Desk lamp",
            "Design review", "Shipping and handling", "Storage boxes", "Cloud hosting"]


def sentence(rng: np.random.Generator, lo=6, hi=16) -> str:
    n = int(rng.integers(lo, hi))
    words = [WORDS[int(i)] for i in rng.integers(0, len(WORDS), n)]
    s = " ".join(words)
    return s[0].upper() + s[1:] + "."


def paragraph(rng, lo=3, hi=7) -> str:
    return " ".join(sentence(rng) for _ in range(int(rng.integers(lo, hi))))


def person(rng) -> str:
    return f"{FIRSTNAMES[int(rng.integers(len(FIRSTNAMES)))]} {SURNAMES[int(rng.integers(len(SURNAMES)))]}"


def address_lines(rng) -> list:
    return [f"{int(rng.integers(1, 300))} {STREETS[int(rng.integers(len(STREETS)))]}",
            f"{CITIES[int(rng.integers(len(CITIES)))]} {int(rng.integers(10000, 99999))}"]


def date_str(rng) -> str:
    return f"{int(rng.integers(1, 29)):02d}/{int(rng.integers(1, 13)):02d}/20{int(rng.integers(19, 26))}"


def wrap(draw: ImageDraw.ImageDraw, text: str, fnt, width: int) -> list:
    lines, cur = [], ""
    for w in text.split():
        t = w if not cur else cur + " " + w
        if draw.textlength(t, font=fnt) <= width:
            cur = t
        else:
            if cur:
                lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    return lines


# ---------------------------------------------------------------------------
# Documents (rendered upright, greyscale "ink on paper" as an L image)
# ---------------------------------------------------------------------------

@dataclass
class Doc:
    image: Image.Image          # L, 255 = paper
    body_px: float              # body font size in doc pixels (legibility control)
    min_final_px: float         # smallest acceptable body size in the final photo
    tags: list = field(default_factory=list)
    source: str = ""


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
    W = int(rng.integers(520, 640))   # 80 mm paper at ~180 dpi
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
    if rng.random() < 0.55:      # faded thermal print: lighter ink, uneven fade
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
    title = ["APPLICATION FORM", "REGISTRATION FORM", "CLAIM FORM", "CHANGE OF ADDRESS",
             "EMPLOYEE DETAILS", "PATIENT INTAKE FORM"][int(rng.integers(6))]
    d.text((m, y), title, font=fb, fill=0)
    y += int(size * 3)
    d.text((m, y), sentence(rng, 8, 14), font=f, fill=40)
    y += int(size * 2.5)
    labels = ["Surname", "First name", "Date of birth", "Address", "Postcode", "Telephone",
              "Email", "Reference number", "Account number", "Employer", "Signature", "Date"]
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
            txt = heads[c] if r == 0 else (str(r) if c == 0 else (WORDS[int(rng.integers(len(WORDS)))] if c == 1 else f"{rng.integers(1, 99)}"))
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
    for lab, val in [("Invoice no.", f"{int(rng.integers(10000, 99999))}"), ("Date", date_str(rng)),
                     ("Due date", date_str(rng)), ("Customer ID", f"C-{int(rng.integers(1000, 9999))}")]:
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
    return Doc(img, size, 17, ["fonts:" + "+".join(body_styles)])


_pdf_paths: list = []          # filled by prepare_pdfs() in every process
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
        txt = subprocess.run(["pdftotext", "-f", str(page), "-l", str(page), "-layout", path, "-"],
                             capture_output=True, text=True).stdout
        letters = sum(ch.isalpha() for ch in txt)
        if letters >= 600:
            break
    png = subprocess.run(["pdftoppm", "-f", str(page), "-l", str(page), "-r", "200", "-gray",
                          "-png", path], capture_output=True, check=True).stdout
    img = Image.open(io.BytesIO(png)).convert("L")
    # pdf manuals use ~10 pt body text: 10 pt at 200 dpi is ~28 px
    src = os.path.basename(PDF_SOURCES[k])
    return Doc(img, 28, 16, [f"pdf:{src}#p{page}"], source=f"{PDF_SOURCES[k]}#page={page}")


# Hard negatives: no readable text, truth "undecidable".

def doc_blank(rng) -> Doc:
    W, H = (1654, 2339) if rng.random() < 0.8 else (560, 1400)
    a = np.full((H, W), 250, np.float32)
    if rng.random() < 0.5:   # a fold crease
        x = int(rng.integers(W // 4, 3 * W // 4))
        a[:, x:x + 3] -= 18
    img = Image.fromarray(a.astype(np.uint8))
    return Doc(img, 30, 0, ["crease"] if a.min() < 240 else [])


def doc_twowords(rng) -> Doc:
    W, H = 1654, 2339
    img, d = new_page(W, H)
    pairs = ["Thank you", "Draft copy", "Page two", "Not used", "See over", "Void copy",
             "Hello there", "Keep this"]
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


DOC_MAKERS = {
    "receipt": doc_receipt, "letter": doc_letter, "form": doc_form, "invoice": doc_invoice,
    "fineprint": doc_fineprint, "mixed": doc_mixed, "pdfpage": doc_pdfpage,
    "blank": doc_blank, "twowords": doc_twowords, "barcode": doc_barcode,
}
UNDECIDABLE = {"blank", "photo", "twowords", "barcode"}

# ---------------------------------------------------------------------------
# The camera: table, placement, perspective, light, blur, noise
# ---------------------------------------------------------------------------

SIZES = [1024, 1280, 1600, 2016, 2592, 3264, 4032]
ANALYSIS_SIDE = 1800   # long side at which legibility is judged (DOMAIN.md: ~1800 px analysis images)


def smooth_noise(rng, shape, cells):
    h, w = shape
    g = rng.standard_normal((cells[1], cells[0])).astype(np.float32)
    return np.asarray(Image.fromarray(g).resize((w, h), Image.BICUBIC))


def table_texture(rng, W, H) -> tuple:
    """Table surface at 1/4 resolution, upscaled; returns (image, name)."""
    w, h = max(8, W // 4), max(8, H // 4)
    kind = ["wood", "laminate", "fabric", "stone", "dark"][int(rng.integers(5))]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "wood":
        base = rng.uniform([110, 60, 25], [190, 130, 80]).astype(np.float32)
        warp = smooth_noise(rng, (h, w), (6, 4)) * 20
        ang = rng.uniform(0, math.pi)
        coord = xx * math.cos(ang) + yy * math.sin(ang) + warp
        grain = np.sin(coord / rng.uniform(3, 9)) * 0.5 + 0.5 * np.sin(coord / rng.uniform(17, 31))
        a = base * (0.82 + 0.18 * grain)[..., None]
    elif kind == "laminate":
        base = rng.uniform(150, 235, 3).astype(np.float32)
        a = base * (0.96 + 0.04 * smooth_noise(rng, (h, w), (12, 9)))[..., None]
    elif kind == "fabric":
        base = rng.uniform(40, 200, 3).astype(np.float32)
        p = rng.uniform(2.0, 4.0)
        weave = 0.5 + 0.25 * np.sin(xx * p) + 0.25 * np.sin(yy * p)
        a = base * (0.85 + 0.15 * weave)[..., None]
    elif kind == "stone":
        base = rng.uniform(90, 200, 3).astype(np.float32)
        speck = rng.standard_normal((h, w)).astype(np.float32)
        a = base * (0.9 + 0.05 * speck + 0.06 * smooth_noise(rng, (h, w), (20, 15)))[..., None]
    else:
        base = rng.uniform(20, 70, 3).astype(np.float32)
        a = base * (0.9 + 0.1 * smooth_noise(rng, (h, w), (8, 6)))[..., None]
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).resize((W, H), Image.BILINEAR)
    return img, kind


def perspective_coeffs(dst_pts, src_pts):
    """PIL PERSPECTIVE coefficients mapping output (dst) points to input (src) points."""
    A, b = [], []
    for (x, y), (u, v) in zip(dst_pts, src_pts):
        A.append([x, y, 1, 0, 0, 0, -u * x, -u * y]); b.append(u)
        A.append([0, 0, 0, x, y, 1, -v * x, -v * y]); b.append(v)
    return np.linalg.solve(np.array(A, np.float64), np.array(b, np.float64)).tolist()


@dataclass
class Shot:
    landscape: bool
    long_side: int
    occupancy: float
    skew_deg: float
    persp: float
    blur: float
    noise: float
    light: float
    shadow: bool
    vignette: float
    quality: int
    mild: bool = False


def photograph(doc: Doc, shot: Shot, rng, undecidable: bool) -> tuple:
    """Place the document on a table and apply the camera; returns (RGB image, tags)."""
    tags = []
    dw, dh = doc.image.size
    long_side = shot.long_side
    W, H = (long_side, long_side * 3 // 4) if shot.landscape else (long_side * 3 // 4, long_side)
    occ = shot.occupancy
    # scale so the (rotated) page fits the frame at the wanted occupancy
    fit = min(W / dw, H / dh)
    s = occ * fit
    if not undecidable:
        # Legibility floor, measured at ANALYSIS_SIDE (a reader that shrinks big photos
        # to about that long side must still see body text of min_final_px): grow the
        # frame up to ANALYSIS_SIDE, then the page's share of it.
        def legible(ls, scale):
            return doc.body_px * scale * min(1.0, ANALYSIS_SIDE / ls) >= doc.min_final_px
        while not legible(long_side, s) and long_side < ANALYSIS_SIDE:
            long_side = next(x for x in SIZES if x > long_side)
            W, H = (long_side, long_side * 3 // 4) if shot.landscape else (long_side * 3 // 4, long_side)
            fit = min(W / dw, H / dh)
            s = occ * fit
        if not legible(long_side, s):
            need = doc.min_final_px / (doc.body_px * min(1.0, ANALYSIS_SIDE / long_side))
            occ = min(0.97, need / fit)
            s = occ * fit
    tags.append(f"frame:{W}x{H}")
    table, tname = table_texture(rng, W, H)
    tags.append(f"table:{tname}")

    # paper: tint + faint fibre texture, ink from the document
    sw, sh = max(1, int(round(dw * s))), max(1, int(round(dh * s)))
    small = doc.image.resize((sw, sh), Image.LANCZOS) if (sw, sh) != (dw, dh) else doc.image
    paper_rgb = rng.uniform([235, 232, 222], [252, 250, 246]).astype(np.float32)
    ink = np.asarray(small, np.float32) / 255.0
    fibre = 1 - 0.02 * np.abs(smooth_noise(rng, (sh, sw), (max(2, sw // 40), max(2, sh // 40))))
    page = (ink * fibre)[..., None] * paper_rgb
    page_img = Image.fromarray(np.clip(page, 0, 255).astype(np.uint8)).convert("RGBA")

    # corners in the frame: rotate by skew about the centre, jitter for perspective
    cx = W / 2 + rng.uniform(-0.5, 0.5) * max(0, W - sw) * 0.8
    cy = H / 2 + rng.uniform(-0.5, 0.5) * max(0, H - sh) * 0.8
    th = math.radians(shot.skew_deg)
    corners = []
    for (px, py) in [(-sw / 2, -sh / 2), (sw / 2, -sh / 2), (sw / 2, sh / 2), (-sw / 2, sh / 2)]:
        jx = rng.uniform(-shot.persp, shot.persp) * sw
        jy = rng.uniform(-shot.persp, shot.persp) * sh
        x = cx + (px + jx) * math.cos(th) - (py + jy) * math.sin(th)
        y = cy + (px + jx) * math.sin(th) + (py + jy) * math.cos(th)
        corners.append((x, y))
    tags.append(f"skew:{shot.skew_deg:+.1f}")
    tags.append(f"perspective:{shot.persp:.3f}")
    xs = [p[0] for p in corners]; ys = [p[1] for p in corners]
    x0, y0 = max(0, int(math.floor(min(xs)))), max(0, int(math.floor(min(ys))))
    x1, y1 = min(W, int(math.ceil(max(xs))) + 1), min(H, int(math.ceil(max(ys))) + 1)
    local = [(x - x0, y - y0) for x, y in corners]
    coeffs = perspective_coeffs(local, [(0, 0), (sw, 0), (sw, sh), (0, sh)])
    warped = page_img.transform((x1 - x0, y1 - y0), Image.PERSPECTIVE, coeffs, Image.BICUBIC)
    alpha = warped.getchannel("A")

    # drop shadow of the sheet on the table
    sh_off = int(max(2, 0.006 * long_side))
    shadow = Image.new("L", (W, H), 0)
    shadow.paste(alpha, (x0 + sh_off, y0 + sh_off))
    shadow = shadow.filter(ImageFilter.BoxBlur(max(1, sh_off * 2)))
    frame = Image.composite(Image.new("RGB", (W, H), (0, 0, 0)), table,
                            shadow.point(lambda v: int(v * 0.45)))
    frame.paste(warped.convert("RGB"), (x0, y0), alpha)

    # light: gradient + vignette + optional hand/phone shadow, at low resolution
    lw, lh = 96, 72 if shot.landscape else 96
    lw, lh = (96, 72) if shot.landscape else (72, 96)
    yy, xx = np.mgrid[0:lh, 0:lw].astype(np.float32)
    xx /= lw; yy /= lh
    ang = rng.uniform(0, 2 * math.pi)
    grad = (xx - 0.5) * math.cos(ang) + (yy - 0.5) * math.sin(ang)
    field_ = 1.0 + shot.light * grad * 2
    tags.append(f"light:{shot.light:.2f}")
    r2 = (xx - 0.5) ** 2 + (yy - 0.5) ** 2
    field_ *= 1.0 - shot.vignette * r2 * 2
    if shot.vignette > 0:
        tags.append(f"vignette:{shot.vignette:.2f}")
    if shot.shadow:
        sm = Image.new("L", (lw, lh), 0)
        sd = ImageDraw.Draw(sm)
        edge = int(rng.integers(4))
        depth = rng.uniform(0.25, 0.5) if not shot.mild else rng.uniform(0.15, 0.3)
        reach = rng.uniform(0.25, 0.55)
        pts = {0: [(0, 0), (lw * reach, 0), (lw * reach * rng.uniform(0.5, 1.3), lh), (0, lh)],
               1: [(lw, 0), (lw * (1 - reach), 0), (lw * (1 - reach * rng.uniform(0.5, 1.3)), lh), (lw, lh)],
               2: [(0, 0), (lw, 0), (lw, lh * reach * rng.uniform(0.5, 1.3)), (0, lh * reach)],
               3: [(0, lh), (lw, lh), (lw, lh * (1 - reach * rng.uniform(0.5, 1.3))), (0, lh * (1 - reach))]}[edge]
        sd.polygon(pts, fill=255)
        sm = sm.filter(ImageFilter.GaussianBlur(rng.uniform(1.5, 5)))
        field_ *= 1.0 - depth * np.asarray(sm, np.float32) / 255.0
        tags.append(f"shadow:{depth:.2f}")
    warm = rng.uniform([0.96, 0.96, 0.88], [1.04, 1.02, 1.04]).astype(np.float32)
    exposure = rng.uniform(0.85, 1.08)
    field_img = Image.fromarray(field_.astype(np.float32)).resize((W, H), Image.BILINEAR)
    a = np.asarray(frame, np.float32)
    a *= (np.asarray(field_img, np.float32) * exposure)[..., None]
    a *= warm

    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if shot.blur > 0:
        # defocus in proportion to the text, not the frame: legible, never a smear
        if undecidable:
            radius = shot.blur * long_side / 2000.0
        else:
            radius = shot.blur * 0.045 * doc.body_px * s
        img = img.filter(ImageFilter.GaussianBlur(radius))
        tags.append(f"blur:{radius:.2f}")
    if shot.noise > 0:
        a = np.asarray(img, np.float32)
        luma = rng.standard_normal((H, W, 1), dtype=np.float32) * shot.noise
        chroma = rng.standard_normal((H, W, 3), dtype=np.float32) * (shot.noise * 0.35)
        a = a + luma + chroma
        img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
        tags.append(f"noise:{shot.noise:.1f}")
    return img, tags


def random_shot(rng, kind: str, mild: bool) -> Shot:
    sizes_w = [0.12, 0.15, 0.18, 0.18, 0.12, 0.10, 0.15]
    long_side = int(rng.choice(SIZES, p=sizes_w))
    if kind == "fineprint" or kind == "pdfpage":
        long_side = max(long_side, 2016)
    landscape = rng.random() < (0.3 if kind != "receipt" else 0.2)
    if kind == "receipt":
        occ = rng.uniform(0.45, 0.9)
    elif kind in UNDECIDABLE:
        occ = rng.uniform(0.5, 0.9)
    else:
        occ = rng.uniform(0.6, 0.93)
    if mild:
        return Shot(landscape, long_side, max(occ, 0.75), rng.uniform(-2, 2), rng.uniform(0.0, 0.02),
                    rng.uniform(0.3, 0.8), rng.uniform(1.0, 2.2), rng.uniform(0.05, 0.2),
                    bool(rng.random() < 0.4), rng.uniform(0.0, 0.2), int(rng.integers(76, 87)), mild=True)
    return Shot(landscape, long_side, occ,
                rng.uniform(-4.5, 4.5), rng.uniform(0.0, 0.045),
                rng.uniform(0.4, 2.0), rng.uniform(2.0, 7.0), rng.uniform(0.05, 0.35),
                bool(rng.random() < 0.5), rng.uniform(0.0, 0.35), int(rng.integers(70, 96)))


# ---------------------------------------------------------------------------
# Storing: orientation, tag, container
# ---------------------------------------------------------------------------

TAG_HELD = [6, 1, 3, 8]           # how a phone is usually held (portrait first)
TAG_HELD_P = [0.5, 0.3, 0.12, 0.08]


@dataclass
class Spec:
    index: int
    kind: str
    upright: int
    tag_mode: str                 # right | wrong | absent | png
    seed: int
    mild: bool = False
    long_side: int | None = None  # fixed frame long side (samples profile)
    landscape: bool | None = None
    wrong_tag: int | None = None  # fixed wrong tag (samples profile)
    quality: int | None = None


def exif_bytes(tag: int, rng) -> bytes:
    ex = Image.Exif()
    model = ["iPhone 12", "iPhone 14 Pro", "Pixel 7", "Galaxy S22"][int(rng.integers(4))]
    ex[0x010F] = "Google" if model.startswith("Pixel") else ("samsung" if model.startswith("Galaxy") else "Apple")
    ex[0x0110] = model
    ex[0x0131] = "docorient corpus generator"
    ex[0x0132] = f"20{int(rng.integers(19, 26))}:{int(rng.integers(1, 13)):02d}:{int(rng.integers(1, 29)):02d} 12:00:00"
    ex[0x0112] = tag
    return ex.tobytes()


def make_file(spec: Spec, out_dir: str) -> dict:
    rng = np.random.default_rng(spec.seed)
    kind = spec.kind
    undecidable = kind in UNDECIDABLE
    shot = random_shot(rng, kind, spec.mild)
    if spec.long_side:
        shot.long_side = spec.long_side
    if spec.landscape is not None:
        shot.landscape = spec.landscape
    if spec.quality:
        shot.quality = spec.quality
    source = ""
    if kind == "photo":
        W, H = (shot.long_side, shot.long_side * 3 // 4) if shot.landscape else (shot.long_side * 3 // 4, shot.long_side)
        upright = scene_photo(rng, (W, H))
        a = np.asarray(upright.filter(ImageFilter.GaussianBlur(shot.blur)), np.float32)
        a += rng.standard_normal(a.shape, dtype=np.float32) * shot.noise
        upright = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
        tags = [f"frame:{W}x{H}", "scene", f"noise:{shot.noise:.1f}"]
    else:
        doc = DOC_MAKERS[kind](rng)
        source = doc.source
        upright, tags = photograph(doc, shot, rng, undecidable)
        tags = doc.tags + tags
    stored = store_for_upright(upright, spec.upright)

    name = f"{spec.index:04d}_{kind}"
    if spec.tag_mode == "png":
        name += ".png"
        grey = rng.random() < 0.5
        if grey or spec.mild:     # samples: grey PNGs keep the committed set small
            stored = stored.convert("L")
            tags.append("grey")
        stored.save(os.path.join(out_dir, name), format="PNG", compress_level=6)
        tag = ""
        tags.append("png")
    else:
        name += ".jpg"
        kwargs = dict(format="JPEG", quality=shot.quality, subsampling=2 if shot.quality < 90 else 1,
                      optimize=False, progressive=bool(rng.random() < 0.1))
        if spec.tag_mode == "absent":
            tag = ""
        elif spec.tag_mode == "right":
            tag = spec.upright
        else:
            tag = spec.wrong_tag
            while tag is None or tag == spec.upright:
                tag = int(rng.choice(TAG_HELD, p=TAG_HELD_P))
        if tag != "":
            kwargs["exif"] = exif_bytes(int(tag), rng)
        stored.save(os.path.join(out_dir, name), **kwargs)
        tags.append(f"jpeg:{shot.quality}")
        if kwargs.get("progressive"):
            tags.append("progressive")
    tags.append(f"tag:{spec.tag_mode}")
    return {
        "file": name, "upright_orientation": spec.upright, "decidable": 0 if undecidable else 1,
        "exif_orientation": tag, "kind": kind, "degradations": ";".join(tags),
        "format": "png" if name.endswith(".png") else "jpeg", "width": stored.size[0],
        "height": stored.size[1], "seed": spec.seed, "source": source,
    }


# ---------------------------------------------------------------------------
# Plans: the benchmark set (seeded, stratified) and the fixed samples profile
# ---------------------------------------------------------------------------

KIND_WEIGHTS = [("receipt", 0.22), ("letter", 0.12), ("form", 0.11), ("invoice", 0.12),
                ("fineprint", 0.10), ("mixed", 0.10), ("pdfpage", 0.14),
                ("blank", 0.025), ("photo", 0.025), ("twowords", 0.02), ("barcode", 0.02)]
ORIENT_WEIGHTS = [(1, 0.22), (3, 0.20), (6, 0.23), (8, 0.22), (2, 0.0325), (4, 0.0325), (5, 0.0325), (7, 0.0325)]
TAG_WEIGHTS = [("right", 0.25), ("wrong", 0.50), ("absent", 0.15), ("png", 0.10)]


def quota(items, n, rng):
    """Exactly-rounded quotas (largest remainder), then shuffled: stable proportions."""
    raw = [(k, w * n) for k, w in items]
    base = [(k, int(math.floor(x))) for k, x in raw]
    left = n - sum(c for _, c in base)
    order = sorted(range(len(raw)), key=lambda i: (-(raw[i][1] - base[i][1]), i))
    counts = [c for _, c in base]
    for i in order[:left]:
        counts[i] += 1
    out = [k for (k, _), c in zip(items, counts) for _ in range(c)]
    return [out[int(i)] for i in rng.permutation(len(out))]


def bench_plan(seed: int, count: int) -> list:
    rng = np.random.default_rng([seed, 0xC0FFEE])
    kinds = quota(KIND_WEIGHTS, count, rng)
    orients = quota(ORIENT_WEIGHTS, count, rng)
    tags = quota(TAG_WEIGHTS, count, rng)
    specs = []
    for i in range(count):
        fseed = int(np.random.SeedSequence([seed, i]).generate_state(1)[0])
        mode = tags[i]
        specs.append(Spec(i, kinds[i], orients[i], mode, fseed))
    return specs


# Fixed samples profile: every orientation, tag right/wrong/absent, PNG, every
# hard negative, one large (4032 px) JPEG.  Mild degradations so that every
# decidable sample stays clearly readable.
SAMPLES = [
    # kind,      upright, tag mode, wrong tag, long side, landscape
    ("receipt",   1, "wrong",  6,    1280, False),
    ("receipt",   3, "right",  None, 1280, False),
    ("receipt",   6, "absent", None, 1024, True),
    ("letter",    8, "wrong",  6,    1600, False),
    ("receipt",   1, "png",    None, 1024, False),
    ("form",      6, "right",  None, 1280, False),
    ("form",      3, "wrong",  1,    1600, False),
    ("invoice",   8, "absent", None, 1600, True),
    ("invoice",   6, "wrong",  1,    4032, False),
    ("fineprint", 1, "right",  None, 2016, False),
    ("mixed",     3, "wrong",  8,    1600, False),
    ("pdfpage",   6, "wrong",  8,    1600, False),
    ("pdfpage",   1, "absent", None, 1600, True),
    ("receipt",   2, "wrong",  1,    1280, False),
    ("letter",    4, "right",  None, 1280, False),
    ("form",      5, "absent", None, 1280, True),
    ("invoice",   7, "wrong",  6,    1280, False),
    ("blank",     6, "wrong",  1,    1280, False),
    ("photo",     1, "right",  None, 1280, True),
    ("twowords",  3, "wrong",  6,    1280, False),
    ("barcode",   8, "png",    None, 1024, False),
]
SAMPLES_SEED = 20240601


def samples_plan() -> list:
    specs = []
    for i, (kind, u, mode, wrong, ls, land) in enumerate(SAMPLES):
        fseed = int(np.random.SeedSequence([SAMPLES_SEED, i]).generate_state(1)[0])
        specs.append(Spec(i, kind, u, mode, fseed, mild=True, long_side=ls, landscape=land,
                          wrong_tag=wrong, quality=80 if ls >= 3000 else None))
    return specs


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def _init_worker(pdf_paths):
    global _pdf_paths
    _pdf_paths = pdf_paths
    os.environ["OMP_THREAD_LIMIT"] = "1"


def _work(args):
    spec, out_dir = args
    return make_file(spec, out_dir)


def generate(specs: list, out_dir: str, jobs: int) -> list:
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="docorient-corpus-")
    try:
        pdfs = prepare_pdfs(work)
        tasks = [(s, out_dir) for s in specs]
        if jobs <= 1:
            _init_worker(pdfs)
            rows = [_work(t) for t in tasks]
        else:
            ctx = multiprocessing.get_context("fork")
            with ctx.Pool(jobs, initializer=_init_worker, initargs=(pdfs,)) as pool:
                rows = pool.map(_work, tasks, chunksize=1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows.sort(key=lambda r: r["file"])
    with open(os.path.join(out_dir, "manifest.csv"), "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=MANIFEST_COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1, help="master seed of the benchmark set")
    ap.add_argument("--count", type=int, default=320, help="number of files in the benchmark set")
    ap.add_argument("--out", help="output directory (created; existing files of the same name are overwritten)")
    ap.add_argument("--samples", action="store_true",
                    help="generate the fixed samples profile (default output: Corpus/samples)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (output does not depend on it)")
    args = ap.parse_args(argv)
    if args.samples:
        specs = samples_plan()
        out = args.out or SAMPLES_DIR
    else:
        if not args.out:
            ap.error("--out is required (or pass --samples)")
        specs = bench_plan(args.seed, args.count)
        out = args.out
    t0 = time.monotonic()
    rows = generate(specs, out, args.jobs)
    dt = time.monotonic() - t0
    undec = sum(1 for r in rows if r["decidable"] == 0)
    print(f"wrote {len(rows)} files ({undec} undecidable) + manifest.csv to {out} in {dt:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

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

Three axes are named, seeded and recorded in the manifest: the typeface family
(FAMILIES, --fonts; columns family and font_class), the document kind (--kinds)
and the capture profile (CAPTURES, --captures; column capture).  The split
column (fit|holdout) follows Corpus/splits.json: by family and by kind, never by file.

Usage:
    python3 Corpus/generate.py --seed 1 --count 320 --out /tmp/bench-set
    python3 Corpus/generate.py --seed 2 --count 40 --out /tmp/hw --fonts handwriting --captures handheld
    python3 Corpus/generate.py --samples            # rewrites Corpus/samples/
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
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
from PIL import Image, ImageChops, ImageDraw, ImageFilter, ImageFont

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES_DIR = os.path.join(HERE, "samples")

MANIFEST_COLUMNS = [
    "file",
    "upright_orientation",
    "decidable",
    "exif_orientation",
    "kind",
    "degradations",
    "format",
    "width",
    "height",
    "seed",
    "source",
    "family",
    "font_class",
    "capture",
    "split",
    "paper",
]
SPLITS_PATH = os.path.join(HERE, "splits.json")

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


def transposed_point(op: Image.Transpose, x: float, y: float, w: int, h: int) -> tuple:
    """Where the point (x, y) of a w x h image lands after `image.transpose(op)` (continuous
    coordinates: a pixel's centre is at +0.5)."""
    T = Image.Transpose
    return {
        T.FLIP_LEFT_RIGHT: (w - x, y),
        T.FLIP_TOP_BOTTOM: (x, h - y),
        T.ROTATE_180: (w - x, h - y),
        T.ROTATE_90: (y, w - x),
        T.ROTATE_270: (h - y, x),
        T.TRANSPOSE: (y, x),
        T.TRANSVERSE: (h - y, w - x),
    }[op]


def stored_points(points, size: tuple, u: int) -> list:
    """The points of the upright frame (of `size`) in the pixels stored for EXIF u
    (`store_for_upright`)."""
    inv = INVERSE_OF[u]
    if inv == 1:
        return list(points)
    return [transposed_point(DISPLAY_OP[inv], x, y, size[0], size[1]) for x, y in points]


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
        ("dejavu", "DejaVuSerif.ttf"),
        ("freefont", "FreeSerif.ttf"),
        ("liberation2", "LiberationSerif-Regular.ttf"),
    ],
    "serif-bold": [
        ("dejavu", "DejaVuSerif-Bold.ttf"),
        ("freefont", "FreeSerifBold.ttf"),
        ("liberation2", "LiberationSerif-Bold.ttf"),
    ],
    "sans": [
        ("dejavu", "DejaVuSans.ttf"),
        ("freefont", "FreeSans.ttf"),
        ("liberation2", "LiberationSans-Regular.ttf"),
    ],
    "sans-bold": [
        ("dejavu", "DejaVuSans-Bold.ttf"),
        ("freefont", "FreeSansBold.ttf"),
        ("liberation2", "LiberationSans-Bold.ttf"),
    ],
    "mono": [
        ("dejavu", "DejaVuSansMono.ttf"),
        ("freefont", "FreeMono.ttf"),
        ("liberation2", "LiberationMono-Regular.ttf"),
    ],
    "mono-bold": [
        ("dejavu", "DejaVuSansMono-Bold.ttf"),
        ("freefont", "FreeMonoBold.ttf"),
        ("liberation2", "LiberationMono-Bold.ttf"),
    ],
    "condensed": [
        ("dejavu", "DejaVuSansCondensed.ttf"),
        ("dejavu", "DejaVuSerifCondensed.ttf"),
        ("liberation", "LiberationSansNarrow-Regular.ttf"),
    ],
    "condensed-bold": [
        ("dejavu", "DejaVuSansCondensed-Bold.ttf"),
        ("liberation", "LiberationSansNarrow-Bold.ttf"),
    ],
    "italic": [
        ("dejavu", "DejaVuSerif-Italic.ttf"),
        ("liberation2", "LiberationSerif-Italic.ttf"),
    ],
}

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

_font_cache: dict = {}


# ---------------------------------------------------------------------------
# Typeface families (the --fonts axis).  One family sets every text of a file;
# the old document kinds, when given a family, use its regular face where they
# used "serif"/"sans"/"mono"/"condensed", its bold for "*-bold", its italic for
# "italic".  `effect` renders the page through a printer: "dots" samples the
# strokes into round dots (a 9-pin dot-matrix printer; no Debian font package
# has a dot-matrix face), "pixels" into square printhead cells (thermal).
# The order is fixed; the plan draws from it with the file's own Generator.
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Family:
    name: str
    cls: str  # serif|sans|mono|condensed|display|dotmatrix|thermal|handwriting
    package: str
    regular: str
    bold: str | None = None
    italic: str | None = None
    effect: str = ""


_DV, _L2, _L1, _FF = (
    FONT_DIRS["dejavu"] + "/",
    FONT_DIRS["liberation2"] + "/",
    FONT_DIRS["liberation"] + "/",
    FONT_DIRS["freefont"] + "/",
)
_URW = "/usr/share/fonts/opentype/urw-base35/"
_NOTO = "/usr/share/fonts/truetype/noto/"
_GY = "/usr/share/texmf/fonts/opentype/public/tex-gyre/"
_OS = "/usr/share/fonts/truetype/open-sans/"
_CX = "/usr/share/fonts/truetype/crosextra/"
_LL = "/usr/share/fonts/opentype/linux-libertine/"

FAMILIES = [
    # today's families (the resolver was fitted on them)
    Family(
        "DejaVu Serif",
        "serif",
        "fonts-dejavu-core",
        _DV + "DejaVuSerif.ttf",
        _DV + "DejaVuSerif-Bold.ttf",
        _DV + "DejaVuSerif-Italic.ttf",
    ),
    Family(
        "DejaVu Sans",
        "sans",
        "fonts-dejavu-core",
        _DV + "DejaVuSans.ttf",
        _DV + "DejaVuSans-Bold.ttf",
        _DV + "DejaVuSans-Oblique.ttf",
    ),
    Family(
        "DejaVu Sans Mono",
        "mono",
        "fonts-dejavu-core",
        _DV + "DejaVuSansMono.ttf",
        _DV + "DejaVuSansMono-Bold.ttf",
        _DV + "DejaVuSansMono-Oblique.ttf",
    ),
    Family(
        "DejaVu Sans Condensed",
        "condensed",
        "fonts-dejavu-extra",
        _DV + "DejaVuSansCondensed.ttf",
        _DV + "DejaVuSansCondensed-Bold.ttf",
        _DV + "DejaVuSansCondensed-Oblique.ttf",
    ),
    Family(
        "DejaVu Serif Condensed",
        "condensed",
        "fonts-dejavu-extra",
        _DV + "DejaVuSerifCondensed.ttf",
        _DV + "DejaVuSerifCondensed-Bold.ttf",
        _DV + "DejaVuSerifCondensed-Italic.ttf",
    ),
    Family(
        "Liberation Serif",
        "serif",
        "fonts-liberation2",
        _L2 + "LiberationSerif-Regular.ttf",
        _L2 + "LiberationSerif-Bold.ttf",
        _L2 + "LiberationSerif-Italic.ttf",
    ),
    Family(
        "Liberation Sans",
        "sans",
        "fonts-liberation2",
        _L2 + "LiberationSans-Regular.ttf",
        _L2 + "LiberationSans-Bold.ttf",
        _L2 + "LiberationSans-Italic.ttf",
    ),
    Family(
        "Liberation Mono",
        "mono",
        "fonts-liberation2",
        _L2 + "LiberationMono-Regular.ttf",
        _L2 + "LiberationMono-Bold.ttf",
        _L2 + "LiberationMono-Italic.ttf",
    ),
    Family(
        "Liberation Sans Narrow",
        "condensed",
        "fonts-liberation",
        _L1 + "LiberationSansNarrow-Regular.ttf",
        _L1 + "LiberationSansNarrow-Bold.ttf",
        _L1 + "LiberationSansNarrow-Italic.ttf",
    ),
    Family(
        "FreeSerif",
        "serif",
        "fonts-freefont-ttf",
        _FF + "FreeSerif.ttf",
        _FF + "FreeSerifBold.ttf",
        _FF + "FreeSerifItalic.ttf",
    ),
    Family(
        "FreeSans",
        "sans",
        "fonts-freefont-ttf",
        _FF + "FreeSans.ttf",
        _FF + "FreeSansBold.ttf",
        _FF + "FreeSansOblique.ttf",
    ),
    Family(
        "FreeMono",
        "mono",
        "fonts-freefont-ttf",
        _FF + "FreeMono.ttf",
        _FF + "FreeMonoBold.ttf",
        _FF + "FreeMonoOblique.ttf",
    ),
    # serif
    Family(
        "Nimbus Roman",
        "serif",
        "fonts-urw-base35",
        _URW + "NimbusRoman-Regular.otf",
        _URW + "NimbusRoman-Bold.otf",
        _URW + "NimbusRoman-Italic.otf",
    ),
    Family(
        "C059", "serif", "fonts-urw-base35", _URW + "C059-Roman.otf", _URW + "C059-Bold.otf", _URW + "C059-Italic.otf"
    ),
    Family(
        "P052", "serif", "fonts-urw-base35", _URW + "P052-Roman.otf", _URW + "P052-Bold.otf", _URW + "P052-Italic.otf"
    ),
    Family(
        "URW Bookman",
        "serif",
        "fonts-urw-base35",
        _URW + "URWBookman-Light.otf",
        _URW + "URWBookman-Demi.otf",
        _URW + "URWBookman-LightItalic.otf",
    ),
    Family(
        "TeX Gyre Pagella",
        "serif",
        "fonts-texgyre",
        _GY + "texgyrepagella-regular.otf",
        _GY + "texgyrepagella-bold.otf",
        _GY + "texgyrepagella-italic.otf",
    ),
    Family(
        "Caladea",
        "serif",
        "fonts-crosextra-caladea",
        _CX + "Caladea-Regular.ttf",
        _CX + "Caladea-Bold.ttf",
        _CX + "Caladea-Italic.ttf",
    ),
    Family(
        "EB Garamond",
        "serif",
        "fonts-ebgaramond",
        "/usr/share/fonts/opentype/ebgaramond/EBGaramond12-Regular.otf",
        "/usr/share/fonts/opentype/ebgaramond/EBGaramond12-Bold.otf",
        "/usr/share/fonts/opentype/ebgaramond/EBGaramond12-Italic.otf",
    ),
    Family(
        "Noto Serif",
        "serif",
        "fonts-noto-core",
        _NOTO + "NotoSerif-Regular.ttf",
        _NOTO + "NotoSerif-Bold.ttf",
        _NOTO + "NotoSerif-Italic.ttf",
    ),
    Family(
        "Linux Libertine",
        "serif",
        "fonts-linuxlibertine",
        _LL + "LinLibertine_R.otf",
        _LL + "LinLibertine_RB.otf",
        _LL + "LinLibertine_RI.otf",
    ),
    # sans
    Family(
        "Nimbus Sans",
        "sans",
        "fonts-urw-base35",
        _URW + "NimbusSans-Regular.otf",
        _URW + "NimbusSans-Bold.otf",
        _URW + "NimbusSans-Italic.otf",
    ),
    Family(
        "URW Gothic",
        "sans",
        "fonts-urw-base35",
        _URW + "URWGothic-Book.otf",
        _URW + "URWGothic-Demi.otf",
        _URW + "URWGothic-BookOblique.otf",
    ),
    Family(
        "Carlito",
        "sans",
        "fonts-crosextra-carlito",
        _CX + "Carlito-Regular.ttf",
        _CX + "Carlito-Bold.ttf",
        _CX + "Carlito-Italic.ttf",
    ),
    Family(
        "Cantarell",
        "sans",
        "fonts-cantarell",
        "/usr/share/fonts/opentype/cantarell/Cantarell-Regular.otf",
        "/usr/share/fonts/opentype/cantarell/Cantarell-Bold.otf",
    ),
    Family(
        "Open Sans",
        "sans",
        "fonts-open-sans",
        _OS + "OpenSans-Regular.ttf",
        _OS + "OpenSans-Bold.ttf",
        _OS + "OpenSans-Italic.ttf",
    ),
    Family(
        "Noto Sans",
        "sans",
        "fonts-noto-core",
        _NOTO + "NotoSans-Regular.ttf",
        _NOTO + "NotoSans-Bold.ttf",
        _NOTO + "NotoSans-Italic.ttf",
    ),
    Family(
        "Lato",
        "sans",
        "fonts-lato",
        "/usr/share/fonts/truetype/lato/Lato-Regular.ttf",
        "/usr/share/fonts/truetype/lato/Lato-Bold.ttf",
        "/usr/share/fonts/truetype/lato/Lato-Italic.ttf",
    ),
    Family(
        "Linux Biolinum",
        "sans",
        "fonts-linuxlibertine",
        _LL + "LinBiolinum_R.otf",
        _LL + "LinBiolinum_RB.otf",
        _LL + "LinBiolinum_RI.otf",
    ),
    # mono (GNU Typewriter: an old typewriter's worn type)
    Family(
        "Nimbus Mono PS",
        "mono",
        "fonts-urw-base35",
        _URW + "NimbusMonoPS-Regular.otf",
        _URW + "NimbusMonoPS-Bold.otf",
        _URW + "NimbusMonoPS-Italic.otf",
    ),
    Family(
        "Noto Sans Mono", "mono", "fonts-noto-mono", _NOTO + "NotoSansMono-Regular.ttf", _NOTO + "NotoSansMono-Bold.ttf"
    ),
    Family("Inconsolata", "mono", "fonts-inconsolata", "/usr/share/fonts/truetype/inconsolata/Inconsolata.otf"),
    Family(
        "TeX Gyre Cursor",
        "mono",
        "fonts-texgyre",
        _GY + "texgyrecursor-regular.otf",
        _GY + "texgyrecursor-bold.otf",
        _GY + "texgyrecursor-italic.otf",
    ),
    Family(
        "GNU Typewriter", "mono", "fonts-gnutypewriter", "/usr/share/fonts/truetype/gnutypewriter/GNUTypewriter.ttf"
    ),
    # condensed
    Family(
        "Nimbus Sans Narrow",
        "condensed",
        "fonts-urw-base35",
        _URW + "NimbusSansNarrow-Regular.otf",
        _URW + "NimbusSansNarrow-Bold.otf",
        _URW + "NimbusSansNarrow-Oblique.otf",
    ),
    Family(
        "TeX Gyre Heros Cn",
        "condensed",
        "fonts-texgyre",
        _GY + "texgyreheroscn-regular.otf",
        _GY + "texgyreheroscn-bold.otf",
        _GY + "texgyreheroscn-italic.otf",
    ),
    Family(
        "Open Sans Condensed",
        "condensed",
        "fonts-open-sans",
        _OS + "OpenSans-CondLight.ttf",
        _OS + "OpenSans-CondBold.ttf",
        _OS + "OpenSans-CondLightItalic.ttf",
    ),
    # display / heading faces
    Family(
        "Bebas Neue",
        "display",
        "fonts-bebas-neue",
        "/usr/share/fonts/opentype/bebas-neue/BebasNeue-Regular.otf",
        "/usr/share/fonts/opentype/bebas-neue/BebasNeue-Bold.otf",
    ),
    Family(
        "League Spartan",
        "display",
        "fonts-league-spartan",
        "/usr/share/fonts/opentype/league-spartan/LeagueSpartan-Bold.otf",
        "/usr/share/fonts/opentype/league-spartan/LeagueSpartan-Black.otf",
    ),
    Family("Lobster", "display", "fonts-lobster", "/usr/share/fonts/opentype/lobster/lobster.otf"),
    Family(
        "Noto Sans Display",
        "display",
        "fonts-noto-core",
        _NOTO + "NotoSansDisplay-Bold.ttf",
        _NOTO + "NotoSansDisplay-Bold.ttf",
        _NOTO + "NotoSansDisplay-BoldItalic.ttf",
    ),
    # handwriting and script
    Family("Humor Sans", "handwriting", "fonts-humor-sans", "/usr/share/fonts/truetype/humor-sans/Humor-Sans.ttf"),
    Family(
        "Dancing Script",
        "handwriting",
        "fonts-dancingscript",
        "/usr/share/fonts/opentype/dancingscript/DancingScript-Regular.otf",
        "/usr/share/fonts/opentype/dancingscript/DancingScript-Bold.otf",
    ),
    Family(
        "Comic Neue",
        "handwriting",
        "fonts-comic-neue",
        "/usr/share/fonts/opentype/comic-neue/ComicNeue-Regular.otf",
        "/usr/share/fonts/opentype/comic-neue/ComicNeue-Bold.otf",
        "/usr/share/fonts/opentype/comic-neue/ComicNeue-Italic.otf",
    ),
    Family("Kristi", "handwriting", "fonts-kristi", "/usr/share/fonts/truetype/kristi/Kristi.ttf"),
    Family("Breip", "handwriting", "fonts-breip", "/usr/share/fonts/truetype/breip/Breip.ttf"),
    Family(
        "DKG Handwriting",
        "handwriting",
        "fonts-dkg-handwriting",
        "/usr/share/fonts/truetype/fifthhorseman/dkg.ttf",
        "/usr/share/fonts/truetype/fifthhorseman/dkgBd.ttf",
        "/usr/share/fonts/truetype/fifthhorseman/dkgIt.ttf",
    ),
    Family("Femke Klaver", "handwriting", "fonts-femkeklaver", "/usr/share/fonts/truetype/femkeklaver/femkeklaver.ttf"),
    Family(
        "Because We Learn", "handwriting", "fonts-bwht", "/usr/share/fonts/opentype/bwht/BecauseWeLearn-Regular.otf"
    ),
    Family(
        "Kaushan Script",
        "handwriting",
        "fonts-kaushanscript",
        "/usr/share/fonts/opentype/kaushanscript/KaushanScript-Regular.otf",
    ),
    Family("Z003", "handwriting", "fonts-urw-base35", _URW + "Z003-MediumItalic.otf"),
    # printers: dot-matrix (rendering effect over a mono face) and thermal
    Family(
        "Dotmatrix Inconsolata",
        "dotmatrix",
        "fonts-inconsolata",
        "/usr/share/fonts/truetype/inconsolata/Inconsolata.otf",
        effect="dots",
    ),
    Family("Dotmatrix Nimbus Mono PS", "dotmatrix", "fonts-urw-base35", _URW + "NimbusMonoPS-Bold.otf", effect="dots"),
    Family(
        "Thermal DejaVu Sans Mono",
        "thermal",
        "fonts-dejavu-core",
        _DV + "DejaVuSansMono.ttf",
        _DV + "DejaVuSansMono-Bold.ttf",
        effect="pixels",
    ),
    Family(
        "DotGothic16", "thermal", "fonts-dotgothic16", "/usr/share/fonts/truetype/dotgothic16/DotGothic16-Regular.ttf"
    ),
]
FAMILY_BY_NAME = {f.name: f for f in FAMILIES}
FONT_CLASSES = ["serif", "sans", "mono", "condensed", "display", "dotmatrix", "thermal", "handwriting"]
# today's font files (FONTS) -> family, for the files made without a chosen family (samples 0-20)
LEGACY_FAMILY = {os.path.basename(f.regular).rsplit(".", 1)[0]: f.name for f in FAMILIES[:12]}

_family_override: Family | None = None  # set by make_file around an old document maker


def family_font(fam: Family, weight: str, size: int) -> ImageFont.FreeTypeFont:
    path = {"bold": fam.bold, "italic": fam.italic}.get(weight) or fam.regular
    key = (path, size)
    if key not in _font_cache:
        if not os.path.exists(path):
            raise SystemExit(f"font {path} missing ({fam.package}): install the packages in Corpus/apt-packages.txt")
        _font_cache[key] = ImageFont.truetype(path, size)
    return _font_cache[key]


def font(style: str, index: int, size: int) -> ImageFont.FreeTypeFont:
    if _family_override is not None:
        weight = "bold" if style.endswith("-bold") else ("italic" if style == "italic" else "regular")
        return family_font(_family_override, weight, size)
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
    if _family_override is not None:
        return _family_override.name.replace(" ", "")
    return FONTS[style][index % len(FONTS[style])][1].rsplit(".", 1)[0]


# ---------------------------------------------------------------------------
# Text content
# ---------------------------------------------------------------------------

WORDS = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "they",
    "you",
    "were",
    "her",
    "she",
    "there",
    "would",
    "their",
    "we",
    "him",
    "been",
    "has",
    "when",
    "who",
    "will",
    "more",
    "no",
    "if",
    "out",
    "so",
    "said",
    "what",
    "up",
    "its",
    "about",
    "into",
    "than",
    "them",
    "can",
    "only",
    "other",
    "new",
    "some",
    "could",
    "time",
    "these",
    "two",
    "may",
    "then",
    "do",
    "first",
    "any",
    "my",
    "now",
    "such",
    "like",
    "our",
    "over",
    "man",
    "me",
    "even",
    "most",
    "made",
    "after",
    "also",
    "did",
    "many",
    "before",
    "must",
    "through",
    "back",
    "years",
    "where",
    "much",
    "your",
    "way",
    "well",
    "down",
    "should",
    "because",
    "each",
    "just",
    "those",
    "people",
    "how",
    "too",
    "little",
    "state",
    "good",
    "very",
    "make",
    "world",
    "still",
    "own",
    "see",
    "men",
    "work",
    "long",
    "get",
    "here",
    "between",
    "both",
    "life",
    "being",
    "under",
    "never",
    "day",
    "same",
    "another",
    "know",
    "while",
    "last",
    "might",
    "us",
    "great",
    "old",
    "year",
    "off",
    "come",
    "since",
    "against",
    "go",
    "came",
    "right",
    "used",
    "take",
    "three",
    "states",
    "himself",
    "few",
    "house",
    "use",
    "during",
    "without",
    "again",
    "place",
    "american",
    "around",
    "however",
    "home",
    "small",
    "found",
    "thought",
    "went",
    "say",
    "part",
    "once",
    "general",
    "high",
    "upon",
    "school",
    "every",
    "does",
    "got",
    "united",
    "left",
    "number",
    "course",
    "war",
    "until",
    "always",
    "away",
    "something",
    "fact",
    "though",
    "water",
    "less",
    "public",
    "put",
    "think",
    "almost",
    "hand",
    "enough",
    "far",
    "took",
    "head",
    "yet",
    "government",
    "system",
    "better",
    "set",
    "told",
    "nothing",
    "night",
    "end",
    "why",
    "called",
    "didn",
    "find",
    "look",
    "going",
    "asked",
    "later",
    "knew",
    "point",
    "next",
    "program",
    "city",
    "business",
    "give",
    "group",
    "toward",
    "young",
    "days",
    "let",
    "room",
    "president",
    "side",
    "social",
    "given",
    "present",
    "several",
    "order",
    "national",
    "possible",
    "rather",
    "second",
    "face",
    "per",
    "among",
    "form",
    "important",
    "often",
    "things",
    "looked",
    "early",
    "white",
    "case",
    "john",
    "become",
    "large",
    "big",
    "need",
    "four",
    "within",
    "felt",
    "along",
    "children",
    "saw",
    "best",
    "church",
    "ever",
    "least",
    "power",
    "development",
    "light",
    "seemed",
    "family",
    "interest",
    "want",
    "members",
    "mind",
    "country",
    "area",
    "others",
    "done",
    "turned",
    "although",
    "open",
    "problem",
    "service",
    "certain",
    "kind",
    "different",
    "thus",
    "began",
    "door",
    "help",
    "means",
    "sense",
    "whole",
    "matter",
    "perhaps",
    "itself",
    "york",
    "times",
    "law",
    "human",
    "line",
    "above",
    "name",
    "example",
    "action",
    "company",
    "hands",
    "local",
    "show",
    "whether",
    "five",
    "history",
    "gave",
    "today",
    "either",
    "act",
    "feet",
    "across",
    "taken",
    "past",
    "quite",
    "anything",
    "seen",
    "having",
    "death",
    "week",
    "experience",
    "body",
    "word",
    "half",
    "really",
    "field",
    "am",
    "car",
    "words",
    "already",
    "themselves",
    "information",
    "tell",
    "together",
    "college",
    "shall",
    "money",
    "period",
    "held",
    "keep",
    "sure",
    "free",
    "seems",
    "real",
    "behind",
    "cannot",
    "miss",
    "political",
    "air",
    "question",
    "office",
    "brought",
    "whose",
    "special",
    "heard",
    "major",
    "problems",
    "ago",
    "became",
    "federal",
    "account",
    "policy",
    "payment",
    "invoice",
    "customer",
    "balance",
    "delivery",
    "contract",
    "agreement",
    "notice",
    "please",
    "regarding",
    "request",
    "attached",
    "meeting",
    "schedule",
    "report",
    "review",
    "provide",
    "received",
    "address",
    "total",
    "amount",
    "due",
    "date",
    "signature",
    "reference",
    "statement",
    "period",
    "terms",
    "conditions",
    "service",
    "charges",
]

SURNAMES = [
    "Anderson",
    "Baker",
    "Carter",
    "Dawson",
    "Ellis",
    "Fischer",
    "Garcia",
    "Hughes",
    "Ingram",
    "Jensen",
    "Keller",
    "Lambert",
    "Morgan",
    "Nolan",
    "Owens",
    "Parker",
    "Quinn",
    "Reyes",
    "Sullivan",
    "Turner",
    "Vaughn",
    "Walsh",
    "Young",
    "Zimmer",
]
FIRSTNAMES = [
    "Alice",
    "Brian",
    "Clara",
    "David",
    "Emma",
    "Frank",
    "Grace",
    "Henry",
    "Irene",
    "James",
    "Karen",
    "Louis",
    "Maria",
    "Nathan",
    "Olivia",
    "Peter",
    "Rachel",
    "Samuel",
    "Teresa",
    "Victor",
    "Wendy",
]
STREETS = [
    "Oak Street",
    "Maple Avenue",
    "Station Road",
    "High Street",
    "Park Lane",
    "Mill Road",
    "Church Street",
    "Elm Drive",
    "River Road",
    "Harbour Way",
]
CITIES = [
    "Springfield",
    "Riverton",
    "Lakewood",
    "Fairview",
    "Georgetown",
    "Madison",
    "Ashford",
    "Brookfield",
    "Clayton",
    "Milton",
]
STORES = [
    "FRESH MARKET",
    "CORNER GROCERY",
    "CITY PHARMACY",
    "BEAN & LEAF CAFE",
    "HARDWARE PLUS",
    "SUNRISE BAKERY",
    "QUICK STOP",
    "GREEN VALLEY FOODS",
    "THE BOOK NOOK",
    "METRO FUEL",
]
ITEMS = [
    "MILK 1L",
    "BREAD WHOLE",
    "EGGS 12PK",
    "BANANAS",
    "COFFEE BEANS",
    "APPLES",
    "CHEDDAR 200G",
    "TOMATOES",
    "PASTA 500G",
    "OLIVE OIL",
    "RICE 1KG",
    "YOGURT",
    "ORANGE JUICE",
    "BUTTER",
    "CHICKEN BREAST",
    "LETTUCE",
    "SPARKLING WATER",
    "CHOCOLATE BAR",
    "TEA BAGS",
    "DISH SOAP",
    "BATTERIES AA",
    "NOTEBOOK A5",
    "CROISSANT",
    "LATTE LARGE",
    "SCREWS 4X40",
    "PAPER TOWELS",
    "SHAMPOO",
    "ONIONS",
]
PRODUCTS = [
    "Consulting services",
    "Software licence",
    "Support hours",
    "Office chairs",
    "Printer toner",
    "Network cable",
    "Installation fee",
    "Travel expenses",
    "Monitor stand",
    "Annual maintenance",
    "Training session",
    "Desk lamp",
    "Design review",
    "Shipping and handling",
    "Storage boxes",
    "Cloud hosting",
]


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
    return [
        f"{int(rng.integers(1, 300))} {STREETS[int(rng.integers(len(STREETS)))]}",
        f"{CITIES[int(rng.integers(len(CITIES)))]} {int(rng.integers(10000, 99999))}",
    ]


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
        _family_override.name
        if _family_override
        else LEGACY_FAMILY.get(FONTS[body_styles[0]][fi % len(FONTS[body_styles[0]])][1].rsplit(".", 1)[0], "")
    )
    return Doc(img, size, 17, ["fonts:" + "+".join(body_styles)], family=fam)


_pdf_paths: list = []  # filled by prepare_pdfs() in every process
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


# ---------------------------------------------------------------------------
# Corpus 2 layouts: each takes the file's Generator and its Family.  The
# layouts with some vertical text (flyer tabs, vertical labels, rotated column
# headers, margin notes and stamps, a label's side code) keep most of the
# page's text upright; `vertical:F` records the vertical share of the letters.
# ---------------------------------------------------------------------------

FLYER_HEADS = [
    "BAKE SALE",
    "GARAGE SALE",
    "LOST CAT",
    "PIANO LESSONS",
    "ROOM FOR RENT",
    "YOGA CLASSES",
    "GUITAR LESSONS",
    "DOG WALKER",
    "BIKE FOR SALE",
    "BABYSITTER",
    "MATHS TUTOR",
    "BOOK SWAP",
    "FOUND KEYS",
    "CHOIR NIGHT",
    "FLAT TO LET",
    "FREE SOFA",
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
SIGNS = [
    "NO PARKING",
    "PLEASE KNOCK",
    "OUT OF ORDER",
    "STAFF ONLY",
    "WET PAINT",
    "KEEP DOOR CLOSED",
    "FRESH COFFEE",
    "OPEN SUNDAYS",
    "BACK IN TEN MINUTES",
    "PLEASE WAIT HERE",
    "NO ENTRY",
    "DELIVERIES AT REAR",
    "MIND THE STEP",
    "CASH ONLY",
    "PRIVATE PROPERTY",
    "CLOSED FOR LUNCH",
    "EXIT ONLY",
    "PLEASE RING BELL",
    "SALE TODAY",
    "QUIET PLEASE",
]
DISHES = [
    "Tomato soup",
    "Garlic bread",
    "Caesar salad",
    "Grilled salmon",
    "Roast chicken",
    "Beef burger",
    "Mushroom risotto",
    "Fish and chips",
    "Vegetable curry",
    "Lamb stew",
    "Apple pie",
    "Cheesecake",
    "Chocolate mousse",
    "Ice cream",
    "Pancakes",
    "Lemon tart",
    "Spaghetti carbonara",
    "Falafel wrap",
    "Club sandwich",
    "Onion rings",
    "Prawn cocktail",
    "Fruit salad",
]
TABLE_HEADS = [
    "Attendance",
    "Homework",
    "Midterm exam",
    "Final exam",
    "Project",
    "Participation",
    "Quiz average",
    "Total score",
    "Lab reports",
    "Presentation",
    "Reading log",
    "Grade",
]
NOTES = [
    "Approved, pay by Friday",
    "See attached copy",
    "Checked and filed",
    "Call back on Monday",
    "Please sign and return",
    "Copy sent to accounts",
    "Query raised with supplier",
    "Urgent, reply today",
]
STAMPS = ["RECEIVED", "PAID", "APPROVED", "COPY", "FILED", "ENTERED"]


def stamp_patch(img: Image.Image, patch: Image.Image, x: int, y: int) -> None:
    """Darken img with patch (white = nothing) at (x, y), clipped to the page."""
    W, H = img.size
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + patch.width), min(H, y + patch.height)
    if x1 <= x0 or y1 <= y0:
        return
    p = patch.crop((x0 - x, y0 - y, x1 - x, y1 - y))
    img.paste(ImageChops.darker(img.crop((x0, y0, x1, y1)), p), (x0, y0))


def text_patch(text: str, fnt, fill: int, pad: int = 4) -> Image.Image:
    _l, _t, r, b = fnt.getbbox(text)
    patch = Image.new("L", (r + 2 * pad, b + 2 * pad), 255)
    ImageDraw.Draw(patch).text((pad, pad), text, font=fnt, fill=fill)
    return patch


def vertical_text(img, x, y, text, fnt, fill, up=True) -> tuple:
    """Text turned a quarter: up=True reads bottom-to-top (the usual spine/tab direction)."""
    p = text_patch(text, fnt, fill).transpose(Image.Transpose.ROTATE_90 if up else Image.Transpose.ROTATE_270)
    stamp_patch(img, p, x, y)
    return p.size


def letters(text: str) -> int:
    return sum(ch.isalnum() for ch in text)


def fit_size(d, text, fam, weight, width, start, lo=20):
    size = start
    while size > lo and d.textlength(text, font=family_font(fam, weight, size)) > width:
        size -= 4
    return size


def phone(rng) -> str:
    return f"07{int(rng.integers(100, 999))} {int(rng.integers(100000, 999999))}"


def fam_tag(fam: Family) -> str:
    return "font:" + fam.name.replace(" ", "")


def doc_flyer(rng, fam: Family) -> Doc:
    W, H = 1654, 2339
    img, d = new_page(W, H)
    m = int(rng.integers(110, 170))
    ink = int(rng.integers(0, 40))
    head = FLYER_HEADS[int(rng.integers(len(FLYER_HEADS)))]
    hs = fit_size(d, head, fam, "bold", W - 2 * m, int(rng.integers(220, 330)))
    fh = family_font(fam, "bold", hs)
    y = m
    d.text(((W - d.textlength(head, font=fh)) / 2, y), head, font=fh, fill=ink)
    y += int(hs * 1.35)
    up = letters(head)
    big = [
        f"{DAYS[int(rng.integers(7))]} {int(rng.integers(1, 29))} {MONTHS[int(rng.integers(12))]}",
        f"{STREETS[int(rng.integers(len(STREETS)))]}, {CITIES[int(rng.integers(len(CITIES)))]}",
    ]
    ls = int(rng.integers(84, 120))
    for line in big:
        s_ = fit_size(d, line, fam, "regular", W - 2 * m, ls)
        fl = family_font(fam, "regular", s_)
        d.text(((W - d.textlength(line, font=fl)) / 2, y), line, font=fl, fill=ink)
        y += int(s_ * 1.4)
        up += letters(line)
    y += 50
    size = int(rng.integers(44, 58))
    fb = family_font(fam, "regular", size)
    tab_h = int(rng.integers(360, 460))
    for line in wrap(d, paragraph(rng, 4, 7), fb, W - 2 * m):
        if y > H - tab_h - size * 3:
            break
        d.text((m, y), line, font=fb, fill=ink)
        y += int(size * 1.35)
        up += letters(line)
    contact = f"Call {person(rng).split()[0]} on {phone(rng)}"
    if y < H - tab_h - size * 2:
        d.text((m, y + size // 2), contact, font=fb, fill=ink)
        up += letters(contact)
    # tear-off tabs: dashed cuts, a phone number running up each tab
    ntab = int(rng.integers(6, 10))
    tw = W // ntab
    ty = H - tab_h
    for x in range(0, W, 28):
        d.line([(x, ty), (x + 14, ty)], fill=90, width=2)
    num = phone(rng)
    label = head.split()[0].title() if rng.random() < 0.5 else person(rng).split()[0]
    ts = int(rng.integers(28, 36))
    while ts > 18 and family_font(fam, "regular", ts).getlength(f"{label} {num}") > tab_h - 50:
        ts -= 2
    ft = family_font(fam, "regular", ts)
    # keep the tabs a clear minority of the letters (at most 30%): phone number only, fewer tabs
    text = f"{label} {num}"
    if ntab * letters(text) > 0.43 * up:
        text = num
    ntab = max(4, min(ntab, int(0.43 * up / letters(text))))
    tw = W // ntab
    vert = 0
    for i in range(ntab):
        x = i * tw
        if i:
            for yy in range(ty, H, 26):
                d.line([(x, yy), (x, yy + 13)], fill=90, width=2)
        pw, ph = ft.getbbox(text)[3] + 8, int(ft.getlength(text)) + 8
        vertical_text(img, x + (tw - pw) // 2, ty + (tab_h - ph) // 2, text, ft, ink, up=True)
        vert += letters(text)
    return Doc(img, size, 17, [fam_tag(fam), f"tabs:{ntab}", f"vertical:{vert / (vert + up):.2f}"])


def doc_menu(rng, fam: Family) -> Doc:
    W, H = 1240, 1754
    img, d = new_page(W, H)
    m = 110
    ink = int(rng.integers(0, 50))
    title = f"{['The', 'Cafe', 'Chez', 'Old'][int(rng.integers(4))]} {SURNAMES[int(rng.integers(len(SURNAMES)))]}"
    ts = fit_size(d, title, fam, "bold", W - 2 * m, int(rng.integers(90, 130)))
    ft = family_font(fam, "bold", ts)
    y = m
    d.text(((W - d.textlength(title, font=ft)) / 2, y), title, font=ft, fill=ink)
    y += int(ts * 1.6)
    size = int(rng.integers(30, 38))
    f = family_font(fam, "regular", size)
    fs = family_font(fam, "bold", int(size * 1.3))
    fi = family_font(fam, "italic", int(size * 0.8))
    order = rng.permutation(len(DISHES))
    k = 0
    for sec in ["Starters", "Mains", "Desserts"]:
        if y > H - m - size * 4:
            break
        d.text(((W - d.textlength(sec, font=fs)) / 2, y), sec, font=fs, fill=ink)
        y += int(size * 2.0)
        for _ in range(int(rng.integers(3, 6))):
            if y > H - m - size * 2:
                break
            dish = DISHES[int(order[k % len(order)])]
            k += 1
            price = f"{int(rng.integers(4, 24))}.{['00', '50', '95'][int(rng.integers(3))]}"
            d.text((m, y), dish, font=f, fill=ink)
            pw = d.textlength(price, font=f)
            d.text((W - m - pw, y), price, font=f, fill=ink)
            x0 = m + d.textlength(dish, font=f) + 16
            for x in range(int(x0), int(W - m - pw - 16), 14):
                d.ellipse([x, y + size * 0.75, x + 3, y + size * 0.75 + 3], fill=ink + 60)
            y += int(size * 1.3)
            if rng.random() < 0.4:
                desc = sentence(rng, 4, 8).lower()
                d.text((m + 20, y), desc, font=fi, fill=ink + 40)
                y += int(size * 1.2)
            y += size // 3
        y += size
    return Doc(img, size, 17, [fam_tag(fam)])


def doc_label(rng, fam: Family) -> Doc:
    W, H = 800, 1200  # 4 x 6 in at 200 dpi
    img, d = new_page(W, H)
    ink = 0
    d.rectangle([10, 10, W - 11, H - 11], outline=ink, width=4)
    size = int(rng.integers(24, 30))
    f = family_font(fam, "regular", size)
    fb = family_font(fam, "bold", int(size * 1.5))
    y = 40
    up = 0
    d.text((40, y), "FROM:", font=f, fill=ink)
    y += int(size * 1.3)
    for line in [STORES[int(rng.integers(len(STORES)))].title()] + address_lines(rng):
        d.text((40, y), line, font=f, fill=ink)
        y += int(size * 1.25)
        up += letters(line)
    y += 20
    d.line([(10, y), (W - 10, y)], fill=ink, width=4)
    svc = ["PRIORITY", "EXPRESS", "STANDARD", "NEXT DAY"][int(rng.integers(4))]
    y += 20
    d.rectangle([40, y, 40 + int(d.textlength(svc, font=fb)) + 40, y + int(fb.size * 1.4)], fill=ink)
    d.text((60, y + fb.size * 0.15), svc, font=fb, fill=255)
    y += int(fb.size * 1.4) + 30
    d.text((40, y), "SHIP TO:", font=f, fill=ink)
    y += int(size * 1.4)
    fto = family_font(fam, "bold", int(size * 1.6))
    for line in [person(rng).upper()] + [a.upper() for a in address_lines(rng)]:
        d.text((60, y), line, font=fto, fill=ink)
        y += int(fto.size * 1.3)
        up += letters(line)
    y += 20
    d.line([(10, y), (W - 10, y)], fill=ink, width=4)
    y += 30
    draw_barcode(d, rng, 60, y, W - 200, 200, ink)
    track = f"{int(rng.integers(1000, 9999))} {int(rng.integers(1000, 9999))} {int(rng.integers(1000, 9999))} {int(rng.integers(10, 99))}"
    y += 215
    d.text((60, y), track, font=f, fill=ink)
    up += letters(track)
    y += int(size * 1.6)
    for line in [f"Weight: {float(rng.integers(2, 250)) / 10:.1f} kg", f"Ref: {int(rng.integers(100000, 999999))}"]:
        d.text((60, y), line, font=f, fill=ink)
        y += int(size * 1.3)
        up += letters(line)
    side = f"LBL {int(rng.integers(100000, 999999))}"
    fs = family_font(fam, "regular", int(size * 0.8))
    vertical_text(img, W - 30 - fs.getbbox(side)[3] - 8, 380, side, fs, ink, up=bool(rng.random() < 0.5))
    v = letters(side)
    return Doc(img, size, 17, [fam_tag(fam), f"vertical:{v / (v + up):.2f}"])


def doc_vlabels(rng, fam: Family) -> Doc:
    """A form whose sections are named by vertical labels in a left bar."""
    W, H = 1654, 2339
    img, d = new_page(W, H)
    m = 130
    size = int(rng.integers(26, 32))
    f = family_font(fam, "regular", size)
    fb = family_font(fam, "bold", int(size * 1.6))
    title = ["APPLICATION FORM", "MEMBERSHIP FORM", "ENROLMENT FORM", "GRANT APPLICATION"][int(rng.integers(4))]
    y = m
    d.text((m, y), title, font=fb, fill=0)
    up = letters(title)
    y += int(size * 3)
    intro = sentence(rng, 10, 16)
    for line in wrap(d, intro, f, W - 2 * m):
        d.text((m, y), line, font=f, fill=30)
        y += int(size * 1.3)
        up += letters(line)
    y += size
    sections = [
        ["APPLICANT", ["Surname", "First name", "Date of birth", "Telephone"]],
        ["ADDRESS", ["Street", "Town", "Postcode", "Country"]],
        ["EMPLOYER", ["Company", "Position", "Start date"]],
        ["DECLARATION", ["Signature", "Date"]],
    ]
    bar = int(size * 2.2)
    vert = 0
    fv = family_font(fam, "bold", int(size * 1.05))
    filled = rng.random() < 0.5
    for name, fields in sections:
        h = int(len(fields) * size * 2.3 + size)
        if y + h > H - m:
            break
        d.rectangle([m, y, W - m, y + h], outline=0, width=3)
        d.rectangle([m, y, m + bar, y + h], fill=225, outline=0, width=3)
        fvs = fv
        while fvs.size > 14 and fvs.getlength(name) > h - 24:  # the label stays inside its section
            fvs = family_font(fam, "bold", fvs.size - 2)
        pw, ph = fvs.getbbox(name)[3] + 8, int(fvs.getlength(name)) + 8
        vertical_text(img, m + (bar - pw) // 2, y + max(4, (h - ph) // 2), name, fvs, 0, up=True)
        vert += letters(name)
        yy = y + size // 2 + 4
        for lab in fields:
            d.text((m + bar + 20, yy), lab, font=f, fill=0)
            up += letters(lab)
            bx = m + bar + 20 + 360
            d.line([(bx, yy + size + 6), (W - m - 30, yy + size + 6)], fill=60, width=2)
            if filled and lab != "Signature":
                val = person(rng) if "name" in lab.lower() else f"{int(rng.integers(10, 9999))}"
                d.text((bx + 10, yy - 2), val, font=family_font(fam, "italic", size), fill=60)
                up += letters(val)
            yy += int(size * 2.3)
        y += h + size
    for line in wrap(d, paragraph(rng, 2, 4), family_font(fam, "regular", int(size * 0.8)), W - 2 * m):
        if y > H - m:
            break
        d.text((m, y), line, font=family_font(fam, "regular", int(size * 0.8)), fill=40)
        y += int(size * 1.1)
        up += letters(line)
    return Doc(img, size, 17, [fam_tag(fam), f"vertical:{vert / (vert + up):.2f}"])


def doc_rotheads(rng, fam: Family) -> Doc:
    """A table whose column headers are turned 90 degrees (read bottom-to-top)."""
    W, H = 1654, 2339
    img, d = new_page(W, H)
    m = 120
    size = int(rng.integers(26, 32))
    f = family_font(fam, "regular", size)
    fb = family_font(fam, "bold", int(size * 1.5))
    y = m
    title = ["Class results", "Quarterly figures", "Team scores", "Survey summary"][
        int(rng.integers(4))
    ] + f" {2019 + int(rng.integers(7))}"
    d.text((m, y), title, font=fb, fill=0)
    up = letters(title)
    y += int(size * 2.6)
    for line in wrap(d, paragraph(rng, 2, 4), f, W - 2 * m):
        d.text((m, y), line, font=f, fill=20)
        y += int(size * 1.3)
        up += letters(line)
    y += size
    ncol = int(rng.integers(5, 9))
    heads = [TABLE_HEADS[int(i)] for i in rng.permutation(len(TABLE_HEADS))[:ncol]]
    namew = 430
    cw = (W - 2 * m - namew) // ncol
    fh = family_font(fam, "bold", size)
    head_h = int(max(fh.getlength(h) for h in heads)) + 30
    vert = 0
    for c, h in enumerate(heads):
        x = m + namew + c * cw
        pw = fh.getbbox(h)[3] + 8
        vertical_text(img, x + (cw - pw) // 2, y + head_h - int(fh.getlength(h)) - 16, h, fh, 0, up=True)
        vert += letters(h)
    d.text((m, y + head_h - size - 10), "Name", font=fh, fill=0)
    up += 4
    y += head_h
    d.line([(m, y), (W - m, y)], fill=0, width=3)
    rows = int(rng.integers(12, 26))
    for r in range(rows):
        if y > H - m - size * 5:
            break
        name = person(rng)
        d.text((m, y + 8), name, font=f, fill=0)
        up += letters(name)
        for c in range(ncol):
            v = f"{int(rng.integers(0, 100))}"
            x = m + namew + c * cw
            d.text((x + (cw - d.textlength(v, font=f)) / 2, y + 8), v, font=f, fill=0)
            up += len(v)
        y += int(size * 1.6)
        d.line([(m, y), (W - m, y)], fill=150, width=1)
    y += size
    for line in wrap(d, "Notes: " + paragraph(rng, 1, 3), f, W - 2 * m):
        if y > H - m:
            break
        d.text((m, y), line, font=f, fill=30)
        y += int(size * 1.3)
        up += letters(line)
    return Doc(img, size, 17, [fam_tag(fam), f"vertical:{vert / (vert + up):.2f}"])


def doc_marginnote(rng, fam: Family) -> Doc:
    """A typed page with a note in the margin or a rubber stamp, turned 90 degrees."""
    W, H = 1654, 2339
    img, d = new_page(W, H)
    ml, mr = 300, 150
    size = int(rng.integers(27, 33))
    f = family_font(fam, "regular", size)
    fb = family_font(fam, "bold", int(size * 1.5))
    y = 160
    head = STORES[int(rng.integers(len(STORES)))].title() + " Ltd"
    d.text((ml, y), head, font=fb, fill=15)
    up = letters(head)
    y += int(size * 3)
    for _ in range(int(rng.integers(3, 6))):
        for line in wrap(d, paragraph(rng), f, W - ml - mr):
            if y > H - 200:
                break
            d.text((ml, y), line, font=f, fill=15)
            y += int(size * 1.4)
            up += letters(line)
        y += size
    what = ["note", "stamp", "both"][int(rng.integers(3))]
    vert = 0
    tags = [fam_tag(fam)]
    if what in ("note", "both"):
        note = NOTES[int(rng.integers(len(NOTES)))]
        nf = family_font(fam, "italic", int(size * 1.2))
        upw = bool(rng.random() < 0.5)
        vertical_text(img, int(rng.integers(40, 120)), int(rng.integers(300, 900)), note, nf, 70, up=upw)
        vert += letters(note)
        tags.append(f"note:{90 if upw else 270}")
    if what in ("stamp", "both"):
        word = STAMPS[int(rng.integers(len(STAMPS)))]
        sf = family_font(fam, "bold", int(size * 2.2))
        sd = f"{int(rng.integers(1, 29))} {MONTHS[int(rng.integers(12))][:3].upper()} 20{int(rng.integers(19, 26))}"
        sf2 = family_font(fam, "regular", int(size * 1.1))
        pw = int(max(sf.getlength(word), sf2.getlength(sd))) + 60
        ph = int(sf.size * 1.3 + sf2.size * 1.5) + 40
        patch = Image.new("L", (pw, ph), 255)
        pd = ImageDraw.Draw(patch)
        pd.rectangle([4, 4, pw - 5, ph - 5], outline=90, width=6)
        pd.text(((pw - pd.textlength(word, font=sf)) / 2, 20), word, font=sf, fill=90)
        pd.text(((pw - pd.textlength(sd, font=sf2)) / 2, 30 + sf.size * 1.2), sd, font=sf2, fill=90)
        upw = bool(rng.random() < 0.5)
        patch = patch.transpose(Image.Transpose.ROTATE_90 if upw else Image.Transpose.ROTATE_270)
        stamp_patch(
            img,
            patch,
            W - mr - patch.width + int(rng.integers(40, 120)),
            int(rng.integers(H // 3, H - patch.height - 150)),
        )
        vert += letters(word + sd)
        tags.append(f"stamp:{90 if upw else 270}")
    tags.append(f"vertical:{vert / (vert + up):.2f}")
    return Doc(img, size, 17, tags)


def doc_spread(rng, fam: Family) -> Doc:
    """An open book: two pages side by side with a dark gutter."""
    PW, H = 1100, 1600
    W = 2 * PW
    img, d = new_page(W, H)
    size = int(rng.integers(28, 34))
    f = family_font(fam, "regular", size)
    fr = family_font(fam, "italic", int(size * 0.8))
    book = " ".join(WORDS[int(i)] for i in rng.integers(0, len(WORDS), 3)).title()
    first = int(rng.integers(10, 300)) * 2
    for p in range(2):
        x0 = p * PW + (140 if p == 0 else 110)
        x1 = (p + 1) * PW - (110 if p == 0 else 140)
        y = 110
        run = book if p == 0 else f"Chapter {int(rng.integers(1, 20))}"
        d.text(((x0 + x1 - d.textlength(run, font=fr)) / 2, y), run, font=fr, fill=40)
        y += int(size * 2.2)
        if p == 1 and rng.random() < 0.4:
            ch = family_font(fam, "bold", int(size * 1.8))
            d.text((x0, y + size), f"{int(rng.integers(2, 20))}", font=ch, fill=10)
            y += int(size * 4)
        while y < H - 200:
            for line in wrap(d, paragraph(rng, 3, 6), f, x1 - x0):
                if y > H - 200:
                    break
                d.text((x0, y), line, font=f, fill=15)
                y += int(size * 1.4)
            y += size // 2
        pn = f"{first + p}"
        d.text(((x0 + x1 - d.textlength(pn, font=f)) / 2, H - 120), pn, font=f, fill=30)
    a = np.asarray(img, np.float32)
    xx = np.abs(np.arange(W, dtype=np.float32) - PW) / 90.0
    a *= (1 - 0.45 * np.exp(-(xx**2)))[None, :]
    return Doc(Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)), size, 17, [fam_tag(fam)])


def doc_oneline(rng, fam: Family) -> Doc:
    size = int(rng.integers(44, 64))
    f = family_font(fam, "regular", size)
    text = sentence(rng, 5, 9)
    W = int(f.getlength(text)) + int(rng.integers(120, 300))
    H = int(size * rng.uniform(3.0, 5.0))
    img, d = new_page(W, H)
    d.text(
        (int(rng.integers(50, W - int(f.getlength(text)) - 50)), (H - size) // 2 - size // 5),
        text,
        font=f,
        fill=int(rng.integers(0, 50)),
    )
    return Doc(img, size, 17, [fam_tag(fam), f"words:{len(text.split())}"])


def doc_sign(rng, fam: Family) -> Doc:
    """A few large real words (a notice on a door)."""
    text = SIGNS[int(rng.integers(len(SIGNS)))]
    if rng.random() < 0.35:
        text = text.title()
    W, H = (1654, 1169) if rng.random() < 0.6 else (1169, 1654)
    img, d = new_page(W, H)
    m = 100
    words = text.split()
    size = int(rng.integers(240, 400))
    while True:
        fb = family_font(fam, "bold", size)
        lines = wrap(d, text, fb, W - 2 * m)
        if (
            len(lines) * size * 1.25 <= H - 2 * m and all(d.textlength(w, font=fb) <= W - 2 * m for w in words)
        ) or size <= 60:
            break
        size -= 10
    y = (H - len(lines) * size * 1.25) / 2
    ink = int(rng.integers(0, 60))
    for line in lines:
        d.text(((W - d.textlength(line, font=fb)) / 2, y), line, font=fb, fill=ink)
        y += size * 1.25
    if rng.random() < 0.5:
        d.rectangle([40, 40, W - 41, H - 41], outline=ink, width=int(rng.integers(6, 16)))
    return Doc(img, size * 0.7, 17, [fam_tag(fam), "words:" + text.replace(" ", "_")])


def logo_image(rng, size: int) -> Image.Image:
    img = Image.new("L", (size, size), 255)
    d = ImageDraw.Draw(img)
    c = size / 2
    shape = int(rng.integers(3))
    g = int(rng.integers(20, 120))
    if shape == 0:
        for k in range(int(rng.integers(1, 4))):
            r = c * (0.95 - 0.25 * k)
            d.ellipse([c - r, c - r, c + r, c + r], outline=g, width=int(size * 0.05))
        d.ellipse([c - c * 0.2, c - c * 0.2, c + c * 0.2, c + c * 0.2], fill=g)
    elif shape == 1:
        d.ellipse([0, 0, size - 1, size - 1], fill=g)
        d.polygon([(c, size * 0.15), (size * 0.85, size * 0.75), (size * 0.15, size * 0.75)], fill=235)
    else:
        for k in range(6):
            a0 = k * math.pi / 3 + rng.uniform(0, 0.3)
            d.pieslice([0, 0, size - 1, size - 1], math.degrees(a0), math.degrees(a0) + 40, fill=g)
    return img


def doc_phototext(rng, fam: Family) -> Doc:
    """A dominant photo or logo with a little text beside or under it."""
    W, H = 1654, 2339
    img, d = new_page(W, H)
    m = 120
    size = int(rng.integers(32, 44))
    f = family_font(fam, "regular", size)
    fb = family_font(fam, "bold", int(size * 1.7))
    layout = ["photo-top", "logo-top", "photo-left"][int(rng.integers(3))]
    if layout == "photo-top":
        ph = int(H * rng.uniform(0.5, 0.62))
        photo = scene_photo(rng, (W - 2 * m, ph)).convert("L")
        img.paste(photo, (m, m))
        y, x0, x1 = m + ph + 50, m, W - m
    elif layout == "logo-top":
        ls = int(W * rng.uniform(0.5, 0.7))
        img.paste(logo_image(rng, ls), ((W - ls) // 2, m + 60))
        y, x0, x1 = m + 60 + ls + 80, m, W - m
    else:
        pw = int(W * 0.55)
        photo = scene_photo(rng, (pw, H - 2 * m)).convert("L")
        img.paste(photo, (m, m))
        y, x0, x1 = m + 40, m + pw + 50, W - m
    head = " ".join(WORDS[int(i)] for i in rng.integers(0, len(WORDS), 2)).title()
    hs = fit_size(d, head, fam, "bold", x1 - x0, fb.size)
    d.text((x0, y), head, font=family_font(fam, "bold", hs), fill=0)
    y += int(hs * 1.5)
    n = int(rng.integers(1, 4)) if layout != "logo-top" else 1
    for line in wrap(d, " ".join(sentence(rng, 6, 12) for _ in range(n)), f, x1 - x0):
        if y > H - m - size:
            break
        d.text((x0, y), line, font=f, fill=20)
        y += int(size * 1.35)
    return Doc(img, size, 17, [fam_tag(fam), layout])


def doc_handnote(rng, fam: Family) -> Doc:
    """A handwritten note: uneven baseline, lines drifting, maybe ruled paper."""
    W, H = (1240, 1754) if rng.random() < 0.6 else (1100, 1100)
    img, d = new_page(W, H)
    size = int(rng.integers(50, 70))
    f = family_font(fam, "regular", size)
    ruled = rng.random() < 0.5
    step = int(size * rng.uniform(1.5, 1.8))
    if ruled:
        for yy in range(160 + step, H - 60, step):
            d.line([(40, yy), (W - 40, yy)], fill=200, width=2)
    ink = int(rng.integers(10, 70))
    m = int(rng.integers(80, 140))
    y = 160
    text = [f"Dear {FIRSTNAMES[int(rng.integers(len(FIRSTNAMES)))]},"] if rng.random() < 0.5 else []
    text += wrap(d, " ".join(sentence(rng, 4, 9) for _ in range(int(rng.integers(3, 7)))), f, W - 2 * m - size)
    text.append(f"- {FIRSTNAMES[int(rng.integers(len(FIRSTNAMES)))]}")
    for line in text:
        if y + step > H - 80:
            break
        x = m + int(rng.integers(-15, 25))
        # each word on its own baseline; the whole line turned a little
        lw = int(f.getlength(line)) + 80
        patch = Image.new("L", (lw, int(size * 2.2)), 255)
        pd = ImageDraw.Draw(patch)
        px = 20
        for w in line.split():
            pd.text((px, int(size * 0.5 + rng.normal(0, 0.06) * size)), w, font=f, fill=ink)
            px += int(f.getlength(w + " ") * rng.uniform(0.95, 1.1))
        patch = patch.rotate(rng.uniform(-2.0, 2.0), resample=Image.BICUBIC, expand=True, fillcolor=255)
        stamp_patch(img, patch, x, y - int(size * 0.9))
        y += step
    return Doc(img, size * 0.8, 17, [fam_tag(fam), "ruled" if ruled else "plain"])


def doc_printer_receipt(rng, fam: Family) -> Doc:
    """A receipt from a dot-matrix or thermal printer: the old layout in the printer's face."""
    global _family_override
    _family_override = fam
    try:
        return doc_receipt(rng)
    finally:
        _family_override = None


def apply_printer(doc: Doc, fam: Family, kind: str, rng) -> Doc:
    """Render the page through the family's printer effect, then ribbon/printhead banding."""
    a = 1.0 - np.asarray(doc.image, np.float32) / 255.0  # ink coverage
    H, W = a.shape
    tags = []
    if fam.effect:
        p = max(3, int(round(doc.body_px * (0.12 if fam.effect == "dots" else 0.09))))
        gh, gw = H // p, W // p
        cov = np.asarray(Image.fromarray(a[: gh * p, : gw * p]).resize((gw, gh), Image.BOX))
        on = (cov > 0.2).astype(np.float32) * np.clip(cov * 2.2, 0, 1)
        yy, xx = np.mgrid[0:p, 0:p].astype(np.float32) + 0.5 - p / 2
        cell = np.clip(0.46 * p + 0.5 - np.hypot(yy, xx), 0, 1) if fam.effect == "dots" else np.ones((p, p), np.float32)
        out = np.zeros_like(a)
        out[: gh * p, : gw * p] = np.kron(on, cell)
        a = out
        tags.append(f"{fam.effect}:{p}")
    if kind in ("dotmatrix", "thermal") or fam.effect:
        if fam.cls == "dotmatrix":  # a worn ribbon: print lines of uneven strength
            band = 0.7 + 0.3 * np.abs(np.sin(np.arange(H, dtype=np.float32) / rng.uniform(40, 90) + rng.uniform(0, 6)))
            a *= band[:, None]
        else:  # a thermal head with weak elements: faint vertical streaks
            col = np.ones(W, np.float32)
            for _ in range(int(rng.integers(2, 7))):
                x = int(rng.integers(0, W - 4))
                col[x : x + int(rng.integers(2, 6))] = rng.uniform(0.55, 0.8)
            a *= col[None, :]
        tags.append("banded")
    if kind == "thermal" and not any(t.startswith("faint:") for t in doc.tags):
        fade = rng.uniform(0.3, 0.55)
        a *= 1 - fade * np.linspace(0.6, 1.0, H, dtype=np.float32)[:: 1 if rng.random() < 0.5 else -1][:, None]
        tags.append(f"faint:{fade:.2f}")
    return Doc(
        Image.fromarray(np.clip(255 * (1 - a), 0, 255).astype(np.uint8)),
        doc.body_px,
        doc.min_final_px,
        doc.tags + tags,
        doc.source,
        doc.family,
    )


NEW_MAKERS = {
    "flyer": doc_flyer,
    "menu": doc_menu,
    "label": doc_label,
    "vlabels": doc_vlabels,
    "rotheads": doc_rotheads,
    "marginnote": doc_marginnote,
    "spread": doc_spread,
    "oneline": doc_oneline,
    "sign": doc_sign,
    "phototext": doc_phototext,
    "handnote": doc_handnote,
    "dotmatrix": doc_printer_receipt,
    "thermal": doc_printer_receipt,
}
# the font classes each kind may be set in (the plan draws a family among them)
KIND_CLASSES = {
    "receipt": ["mono", "condensed", "dotmatrix", "thermal"],
    "letter": ["serif", "sans", "mono"],
    "form": ["sans", "condensed", "serif"],
    "invoice": ["sans", "serif", "condensed", "mono", "dotmatrix"],
    "fineprint": ["serif", "sans", "condensed"],
    "mixed": ["serif", "sans", "condensed"],
    "flyer": ["display", "sans", "serif", "condensed"],
    "menu": ["serif", "sans", "display", "handwriting"],
    "label": ["sans", "mono", "condensed", "thermal"],
    "vlabels": ["sans", "condensed", "serif"],
    "rotheads": ["sans", "serif", "condensed"],
    "marginnote": ["serif", "sans", "mono"],
    "spread": ["serif", "sans"],
    "oneline": ["serif", "sans", "mono", "condensed", "handwriting", "display"],
    "sign": ["display", "condensed", "sans"],
    "phototext": ["sans", "serif", "display"],
    "handnote": ["handwriting"],
    "dotmatrix": ["dotmatrix"],
    "thermal": ["thermal"],
}
NO_AMPERSAND = {"GNU Typewriter"}  # its font has no '&' (the store names use one)


def families_for(kind: str, allowed: list) -> list:
    out = [f for f in allowed if f.cls in KIND_CLASSES.get(kind, [])]
    if kind in ("receipt", "dotmatrix", "thermal", "label", "letter", "marginnote", "invoice"):
        out = [f for f in out if f.name not in NO_AMPERSAND]
    return out


DOC_MAKERS = {
    "receipt": doc_receipt,
    "letter": doc_letter,
    "form": doc_form,
    "invoice": doc_invoice,
    "fineprint": doc_fineprint,
    "mixed": doc_mixed,
    "pdfpage": doc_pdfpage,
    "blank": doc_blank,
    "twowords": doc_twowords,
    "barcode": doc_barcode,
}
UNDECIDABLE = {"blank", "photo", "twowords", "barcode"}


def is_decidable(kind: str, tags: list) -> bool:
    """Whether the document's text fixes its orientation: not for the hard negatives, and not
    for a sign of a couple of words. Issue 14 counts "a couple of words" among the negatives with
    blank pages and photos (two words may read in two orientations), and `twowords` is one; a
    sign of two words ("NO PARKING") is the same evidence in larger letters. Only the label says
    so: the sign is made and photographed like any other."""
    if kind in UNDECIDABLE:
        return False
    words = next((t[len("words:") :] for t in tags if t.startswith("words:")), None)
    return not (kind == "sign" and words is not None and len(words.split("_")) <= 2)


# ---------------------------------------------------------------------------
# The camera: table, placement, perspective, light, blur, noise
# ---------------------------------------------------------------------------

SIZES = [1024, 1280, 1600, 2016, 2592, 3264, 4032]
ANALYSIS_SIDE = 1800  # long side at which legibility is judged (DOMAIN.md: ~1800 px analysis images)


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
        A.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        b.append(u)
        A.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b.append(v)
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
    # capture profiles other than "flat" (defaults: no effect, no random draw)
    keystone: float = 0.0  # far edge narrower by this fraction of the page width
    keystone_edge: int = 0  # 0 top, 1 bottom, 2 left, 3 right (of the upright page)
    curl: float = 0.0  # page curl strength
    shadow_depth: tuple = ()  # (lo, hi) of the hand shadow's darkening
    glare: float = 0.0  # specular glare: added light at the blob's centre, 0-1
    motion: float = 0.0  # motion blur length as a fraction of the body text size
    fixed_frame: bool = False  # keep the frame size; grow only the page's share of it
    legible_full: bool = False  # judge legibility at full resolution (page small in a big frame)


def photograph(doc: Doc, shot: Shot, rng, undecidable: bool) -> tuple:
    """Place the document on a table and apply the camera; returns (RGB image, tags, the sheet's
    four corners in the frame: top left, top right, bottom right, bottom left of the page)."""
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
            shrink = 1.0 if shot.legible_full else min(1.0, ANALYSIS_SIDE / ls)
            return doc.body_px * scale * shrink >= doc.min_final_px

        if shot.fixed_frame and not legible(long_side, 0.97 * fit):
            shot.fixed_frame = False
        while not legible(long_side, s) and long_side < ANALYSIS_SIDE and not shot.fixed_frame:
            long_side = next(x for x in SIZES if x > long_side)
            W, H = (long_side, long_side * 3 // 4) if shot.landscape else (long_side * 3 // 4, long_side)
            fit = min(W / dw, H / dh)
            s = occ * fit
        if not legible(long_side, s):
            need = doc.min_final_px / (
                doc.body_px * (1.0 if shot.legible_full else min(1.0, ANALYSIS_SIDE / long_side))
            )
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
    if shot.curl > 0:
        page_img, ctag = curl_page(page_img, shot.curl, rng)
        tags.append(ctag)

    # corners in the frame: rotate by skew about the centre, jitter for perspective
    cx = W / 2 + rng.uniform(-0.5, 0.5) * max(0, W - sw) * 0.8
    cy = H / 2 + rng.uniform(-0.5, 0.5) * max(0, H - sh) * 0.8
    th = math.radians(shot.skew_deg)
    corners = []
    base = [(-sw / 2, -sh / 2), (sw / 2, -sh / 2), (sw / 2, sh / 2), (-sw / 2, sh / 2)]
    if shot.keystone > 0:
        base = keystone_corners(base, sw, sh, shot.keystone, shot.keystone_edge)
    for px, py in base:
        jx = rng.uniform(-shot.persp, shot.persp) * sw
        jy = rng.uniform(-shot.persp, shot.persp) * sh
        x = cx + (px + jx) * math.cos(th) - (py + jy) * math.sin(th)
        y = cy + (px + jx) * math.sin(th) + (py + jy) * math.cos(th)
        corners.append((x, y))
    tags.append(f"skew:{shot.skew_deg:+.1f}")
    tags.append(f"perspective:{shot.persp:.3f}")
    if shot.keystone > 0:
        tags.append(f"keystone:{shot.keystone:.2f}@{'tblr'[shot.keystone_edge]}")
    if shot.keystone > 0:  # hand-held: slide the turned page back into the frame where it fits
        xs = [p[0] for p in corners]
        ys = [p[1] for p in corners]
        dx = (-min(xs) if min(xs) < 0 else min(0.0, W - 1 - max(xs))) if max(xs) - min(xs) < W else 0.0
        dy = (-min(ys) if min(ys) < 0 else min(0.0, H - 1 - max(ys))) if max(ys) - min(ys) < H else 0.0
        corners = [(x + dx, y + dy) for x, y in corners]
    xs = [p[0] for p in corners]
    ys = [p[1] for p in corners]
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
    frame = Image.composite(Image.new("RGB", (W, H), (0, 0, 0)), table, shadow.point(lambda v: int(v * 0.45)))
    frame.paste(warped.convert("RGB"), (x0, y0), alpha)

    # light: gradient + vignette + optional hand/phone shadow, at low resolution
    lw, lh = 96, 72 if shot.landscape else 96
    lw, lh = (96, 72) if shot.landscape else (72, 96)
    yy, xx = np.mgrid[0:lh, 0:lw].astype(np.float32)
    xx /= lw
    yy /= lh
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
        if shot.shadow_depth:
            depth = rng.uniform(*shot.shadow_depth)
        reach = rng.uniform(0.25, 0.55)
        pts = {
            0: [(0, 0), (lw * reach, 0), (lw * reach * rng.uniform(0.5, 1.3), lh), (0, lh)],
            1: [(lw, 0), (lw * (1 - reach), 0), (lw * (1 - reach * rng.uniform(0.5, 1.3)), lh), (lw, lh)],
            2: [(0, 0), (lw, 0), (lw, lh * reach * rng.uniform(0.5, 1.3)), (0, lh * reach)],
            3: [(0, lh), (lw, lh), (lw, lh * (1 - reach * rng.uniform(0.5, 1.3))), (0, lh * (1 - reach))],
        }[edge]
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
    if shot.glare > 0:
        gx, gy = rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.8)
        gs = rng.uniform(0.08, 0.18)
        blob = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * gs * gs)).astype(np.float32)
        blob_img = Image.fromarray(blob).resize((W, H), Image.BILINEAR)
        a += 255.0 * shot.glare * np.asarray(blob_img, np.float32)[..., None]
        tags.append(f"glare:{shot.glare:.2f}")

    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if shot.motion > 0 and not undecidable:
        length = shot.motion * doc.body_px * s
        img = motion_blur(img, length, rng.uniform(0, math.pi))
        tags.append(f"motion:{length:.1f}")
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
    return img, tags, corners


def keystone_corners(base, sw, sh, k, edge):
    """Shrink the far edge by k of its length and shorten the page a little (seen at a slant)."""
    out = [list(p) for p in base]
    if edge in (0, 1):
        far = (0, 1) if edge == 0 else (2, 3)
        for i in far:
            out[i][0] *= 1 - k
            out[i][1] += (0.35 * k * sh) * (1 if edge == 0 else -1)
    else:
        far = (0, 3) if edge == 2 else (1, 2)
        for i in far:
            out[i][1] *= 1 - k
            out[i][0] += (0.35 * k * sw) * (1 if edge == 2 else -1)
    return [tuple(p) for p in out]


def curl_page(page: Image.Image, amount: float, rng) -> tuple:
    """Page curl: lines bow, and one edge lifts and rolls away (foreshortened, shaded)."""
    edge = int(rng.integers(4))  # 0 right, 1 left, 2 bottom, 3 top
    pre = {0: None, 1: Image.Transpose.FLIP_LEFT_RIGHT, 2: Image.Transpose.TRANSPOSE, 3: Image.Transpose.TRANSVERSE}[
        edge
    ]
    im = page.transpose(pre) if pre is not None else page
    w, h = im.size
    bow = amount * 0.25 * rng.uniform(0.5, 1.0) * (1 if rng.random() < 0.5 else -1)
    u0 = 1 - rng.uniform(1.0, 2.0) * amount
    k = rng.uniform(0.6, 1.0)
    nx, ny = 24, 32

    def src(u, v):
        su = u if u <= u0 else u0 + (u - u0) * (1 + k * (u - u0) / (1 - u0))
        lift = 0.0 if u <= u0 else ((u - u0) / (1 - u0)) ** 2 * amount * 0.6
        sv = v - bow * 4 * u * (1 - u) * 0.2 - lift * (v - 0.5)
        return su * w, sv * h

    mesh = []
    for j in range(ny):
        for i in range(nx):
            ua, ub = i / nx, (i + 1) / nx
            va, vb = j / ny, (j + 1) / ny
            box = (int(round(ua * w)), int(round(va * h)), int(round(ub * w)), int(round(vb * h)))
            quad = src(ua, va) + src(ua, vb) + src(ub, vb) + src(ub, va)
            mesh.append((box, quad))
    out = im.transform((w, h), Image.MESH, mesh, Image.BICUBIC)
    u = np.arange(w, dtype=np.float32) / w
    shade = 1 - 0.3 * np.clip((u - u0) / (1 - u0), 0, 1) ** 1.5
    rgb = np.asarray(out, np.float32)
    rgb[..., :3] *= shade[None, :, None]
    out = Image.fromarray(np.clip(rgb, 0, 255).astype(np.uint8), "RGBA")
    if pre is not None:
        out = out.transpose(pre)
    return out, f"curl:{amount:.2f}@{'rlbt'[edge]}"


def motion_blur(img: Image.Image, length: float, angle: float) -> Image.Image:
    n = max(3, int(math.ceil(length)) + 1)
    a = np.asarray(img, np.float32)
    acc = np.zeros_like(a)
    for t in np.linspace(-length / 2, length / 2, n):
        dx, dy = int(round(t * math.cos(angle))), int(round(t * math.sin(angle)))
        acc += np.roll(a, (dy, dx), axis=(0, 1))
    return Image.fromarray(np.clip(acc / n, 0, 255).astype(np.uint8))


# Capture profiles (the --captures axis).  "flat" is the original camera; the
# others change it after random_shot, drawing only from the file's Generator.
CAPTURES = ["flat", "handheld", "curled", "shadowed", "blurred", "lowq", "distant"]
CAPTURE_WEIGHTS = [
    ("flat", 0.28),
    ("handheld", 0.16),
    ("curled", 0.11),
    ("shadowed", 0.11),
    ("blurred", 0.11),
    ("lowq", 0.11),
    ("distant", 0.12),
]
FRAME_12MP, FRAME_2MP = 4032, 1632  # 4032x3024 and 1632x1224


def apply_capture(shot: Shot, capture: str, rng, kind: str) -> Shot:
    if capture == "flat":
        return shot
    if capture == "handheld":  # on a table, shot by hand: 5-15 degrees off, keystoned
        shot.skew_deg = float(rng.uniform(5.0, 15.0) * (1 if rng.random() < 0.5 else -1))
        shot.keystone = float(rng.uniform(0.15, 0.25))
        shot.keystone_edge = int(rng.choice(4, p=[0.6, 0.2, 0.1, 0.1]))
        shot.persp = float(rng.uniform(0.0, 0.02))
        shot.long_side = int(rng.choice([FRAME_12MP, 3264, FRAME_2MP]))
        shot.occupancy = float(rng.uniform(0.5, 0.72))  # room for the turned, keystoned page
    elif capture == "curled":
        shot.curl = float(rng.uniform(0.08, 0.2))
        shot.skew_deg = float(rng.uniform(-6, 6))
    elif capture == "shadowed":
        shot.shadow = True
        shot.shadow_depth = (0.4, 0.65)
        shot.glare = float(rng.uniform(0.25, 0.55))
    elif capture == "blurred":
        if rng.random() < 0.5:
            shot.motion = float(rng.uniform(0.15, 0.3))
        else:
            shot.blur = float(rng.uniform(2.4, 3.3))
    elif capture == "lowq":
        shot.quality = int(rng.integers(60, 71))
        shot.long_side = FRAME_2MP
        shot.fixed_frame = True
        shot.noise = float(rng.uniform(4.0, 9.0))
    elif capture == "distant":  # the page small in a 12 MP frame, legible at full resolution
        shot.long_side = FRAME_12MP
        shot.occupancy = float(rng.uniform(0.28, 0.45))
        shot.legible_full = True
    else:
        raise ValueError(f"unknown capture profile {capture!r}")
    return shot


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
        return Shot(
            landscape,
            long_side,
            max(occ, 0.75),
            rng.uniform(-2, 2),
            rng.uniform(0.0, 0.02),
            rng.uniform(0.3, 0.8),
            rng.uniform(1.0, 2.2),
            rng.uniform(0.05, 0.2),
            bool(rng.random() < 0.4),
            rng.uniform(0.0, 0.2),
            int(rng.integers(76, 87)),
            mild=True,
        )
    return Shot(
        landscape,
        long_side,
        occ,
        rng.uniform(-4.5, 4.5),
        rng.uniform(0.0, 0.045),
        rng.uniform(0.4, 2.0),
        rng.uniform(2.0, 7.0),
        rng.uniform(0.05, 0.35),
        bool(rng.random() < 0.5),
        rng.uniform(0.0, 0.35),
        int(rng.integers(70, 96)),
    )


# ---------------------------------------------------------------------------
# Storing: orientation, tag, container
# ---------------------------------------------------------------------------

TAG_HELD = [6, 1, 3, 8]  # how a phone is usually held (portrait first)
TAG_HELD_P = [0.5, 0.3, 0.12, 0.08]


@dataclass
class Spec:
    index: int
    kind: str
    upright: int
    tag_mode: str  # right | wrong | absent | png
    seed: int
    mild: bool = False
    long_side: int | None = None  # fixed frame long side (samples profile)
    landscape: bool | None = None
    wrong_tag: int | None = None  # fixed wrong tag (samples profile)
    quality: int | None = None
    family: str | None = None  # typeface family; None = the old per-kind choice among FONTS
    capture: str = "flat"  # capture profile (CAPTURES)
    heic: bool = False  # also write NAME.heic from the JPEG (--heic)


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
    global _family_override
    rng = np.random.default_rng(spec.seed)
    kind = spec.kind
    undecidable = kind in UNDECIDABLE
    fam = FAMILY_BY_NAME[spec.family] if spec.family else None
    shot = random_shot(rng, kind, spec.mild)
    shot = apply_capture(shot, spec.capture, rng, kind)
    if spec.long_side:
        shot.long_side = spec.long_side
    if spec.landscape is not None:
        shot.landscape = spec.landscape
    elif kind in ("spread", "oneline"):
        shot.landscape = True
    if spec.quality:
        shot.quality = spec.quality
    if kind in ("dotmatrix", "thermal") and shot.curl == 0 and rng.random() < 0.5:
        shot.curl = float(rng.uniform(0.06, 0.15))  # a slip that remembers its roll
    source = ""
    doc_family = ""
    corners = []
    if kind == "photo":
        W, H = (
            (shot.long_side, shot.long_side * 3 // 4) if shot.landscape else (shot.long_side * 3 // 4, shot.long_side)
        )
        upright = scene_photo(rng, (W, H))
        a = np.asarray(upright.filter(ImageFilter.GaussianBlur(shot.blur)), np.float32)
        a += rng.standard_normal(a.shape, dtype=np.float32) * shot.noise
        upright = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
        tags = [f"frame:{W}x{H}", "scene", f"noise:{shot.noise:.1f}"]
    else:
        if kind in NEW_MAKERS:
            if fam is None:
                raise ValueError(f"kind {kind} needs a family")
            doc = NEW_MAKERS[kind](rng, fam)
        else:
            _family_override = fam
            try:
                doc = DOC_MAKERS[kind](rng)
            finally:
                _family_override = None
        if fam is not None and (fam.effect or kind in ("dotmatrix", "thermal")):
            doc = apply_printer(doc, fam, kind, rng)
        source = doc.source
        doc_family = doc.family
        upright, tags, corners = photograph(doc, shot, rng, undecidable)
        tags = doc.tags + tags
    stored = store_for_upright(upright, spec.upright)
    # The sheet's corners where they are stored, in whole pixels (a curled page bulges past them
    # by a little; a photo has no sheet).
    paper = " ".join(f"{round(v)}" for p in stored_points(corners, upright.size, spec.upright) for v in p)

    name = f"{spec.index:04d}_{kind}"
    if spec.tag_mode == "png":
        name += ".png"
        grey = rng.random() < 0.5
        if grey or spec.mild:  # samples: grey PNGs keep the committed set small
            stored = stored.convert("L")
            tags.append("grey")
        stored.save(os.path.join(out_dir, name), format="PNG", compress_level=6)
        tag = ""
        tags.append("png")
    else:
        name += ".jpg"
        kwargs = {
            "format": "JPEG",
            "quality": shot.quality,
            "subsampling": 2 if shot.quality < 90 else 1,
            "optimize": False,
            "progressive": bool(rng.random() < 0.1),
        }
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
    family = file_family(spec, kind, tags, doc_family)
    fcls = FAMILY_BY_NAME[family].cls if family in FAMILY_BY_NAME else ""
    return {
        "file": name,
        "upright_orientation": spec.upright,
        "decidable": int(is_decidable(kind, tags)),
        "exif_orientation": tag,
        "kind": kind,
        "degradations": ";".join(tags),
        "format": "png" if name.endswith(".png") else "jpeg",
        "width": stored.size[0],
        "height": stored.size[1],
        "seed": spec.seed,
        "source": source,
        "family": family,
        "font_class": fcls,
        "capture": spec.capture,
        "split": split_of(family, kind),
        "paper": paper,
    }


HEIC_QUALITY = 60


def make_heic_twin(row: dict, out_dir: str) -> dict:
    """NAME.heic from the JPEG NAME.jpg with heif-enc (libheif-examples): the same stored pixels
    (re-encoded, lossy), the JPEG's EXIF copied, no irot/imir, so a HEIF reader displays the stored
    pixels as they are. Its row: the JPEG's, with format heic, exif_orientation 1 (the orientation a
    HEIF reader applies, as docorient reports it), and the tokens heic:Q and twin:NAME.jpg before a
    final tag:heic."""
    jpg = row["file"]
    name = os.path.splitext(jpg)[0] + ".heic"
    enc = shutil.which("heif-enc")
    if enc is None:
        raise SystemExit("heif-enc missing: install the packages in Corpus/apt-packages.txt (libheif-examples)")
    p = subprocess.run(
        [enc, "-q", str(HEIC_QUALITY), "-o", os.path.join(out_dir, name), os.path.join(out_dir, jpg)],
        capture_output=True,
        text=True,
    )
    if p.returncode != 0:
        raise SystemExit(f"heif-enc failed on {jpg}: {p.stderr.strip() or p.stdout.strip()}")
    tags = row["degradations"].split(";")[:-1] + [f"heic:{HEIC_QUALITY}", f"twin:{jpg}", "tag:heic"]
    return {**row, "file": name, "exif_orientation": 1, "degradations": ";".join(tags), "format": "heic"}


def choose_heic(specs: list, fraction: float, seed: int) -> list:
    """--heic: mark that fraction of the JPEG files (exact count, rounded) for a HEIC twin. The
    choice draws from its own stream ([seed, 0x4845], nothing when the fraction is 0), so the
    plan and every file are the same as without the option."""
    if not 0.0 <= fraction <= 1.0:
        raise SystemExit(f"--heic {fraction}: the fraction must be within 0 and 1")
    if fraction == 0:
        return specs
    jpegs = [s for s in specs if s.tag_mode != "png"]
    k = int(math.floor(fraction * len(jpegs) + 0.5))
    rng = np.random.default_rng([seed, 0x4845])
    for i in rng.permutation(len(jpegs))[:k]:
        jpegs[int(i)].heic = True
    return specs


def file_family(spec: Spec, kind: str, tags: list, doc_family: str) -> str:
    """The family column: the chosen family, else the one the old maker picked (from its font: tag)."""
    if kind in UNDECIDABLE or kind == "pdfpage":
        return ""
    if spec.family:
        return spec.family
    for t in tags:
        if t.startswith("font:"):
            return LEGACY_FAMILY.get(t[5:], "")
    return doc_family


_splits: dict = {}


def load_splits() -> dict:
    if not _splits:
        with open(SPLITS_PATH) as fh:
            data = json.load(fh)
        _splits["families"] = set(data["holdout_families"])
        _splits["kinds"] = set(data["holdout_kinds"])
        unknown = _splits["families"] - set(FAMILY_BY_NAME)
        if unknown:
            raise SystemExit(f"splits.json names unknown families: {sorted(unknown)}")
    return _splits


def split_of(family: str, kind: str) -> str:
    sp = load_splits()
    return "holdout" if family in sp["families"] or kind in sp["kinds"] else "fit"


# ---------------------------------------------------------------------------
# Plans: the benchmark set (seeded, stratified) and the fixed samples profile
# ---------------------------------------------------------------------------

NEW_KINDS = [
    "flyer",
    "menu",
    "label",
    "vlabels",
    "rotheads",
    "marginnote",
    "spread",
    "oneline",
    "sign",
    "phototext",
    "handnote",
    "dotmatrix",
    "thermal",
]
KIND_WEIGHTS = (
    [
        ("receipt", 0.09),
        ("letter", 0.06),
        ("form", 0.05),
        ("invoice", 0.06),
        ("fineprint", 0.05),
        ("mixed", 0.04),
        ("pdfpage", 0.08),
    ]
    + [(k, 0.49 / len(NEW_KINDS)) for k in NEW_KINDS]
    + [("blank", 0.02), ("photo", 0.02), ("twowords", 0.02), ("barcode", 0.02)]
)
KINDS = [k for k, _ in KIND_WEIGHTS]
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


def select_families(fonts: list | None) -> list:
    """--fonts: family names or class names; None = every family (FAMILIES order)."""
    if not fonts:
        return list(FAMILIES)
    unknown = [f for f in fonts if f not in FAMILY_BY_NAME and f not in FONT_CLASSES]
    if unknown:
        raise SystemExit(f"unknown font families or classes: {unknown} (classes: {FONT_CLASSES})")
    return [f for f in FAMILIES if f.name in fonts or f.cls in fonts]


def needs_family(kind: str) -> bool:
    return kind not in UNDECIDABLE and kind != "pdfpage"


def bench_plan(
    seed: int, count: int, kinds: list | None = None, fonts: list | None = None, captures: list | None = None
) -> list:
    """The benchmark set: kinds, orientations, tag modes and capture profiles by exact quotas;
    families drawn per kind, spread evenly over the kind's font classes."""
    fams = select_families(fonts)
    for k in kinds or []:
        if k not in KINDS:
            raise SystemExit(f"unknown kind {k!r} (kinds: {KINDS})")
    for c in captures or []:
        if c not in CAPTURES:
            raise SystemExit(f"unknown capture profile {c!r} (profiles: {CAPTURES})")
    kind_w = [
        (k, w) for k, w in KIND_WEIGHTS if (not kinds or k in kinds) and (not needs_family(k) or families_for(k, fams))
    ]
    if not kind_w:
        raise SystemExit("no kind is left: no chosen font family fits any chosen kind")
    total = sum(w for _, w in kind_w)
    kind_w = [(k, w / total) for k, w in kind_w]
    cap_w = [(c, w) for c, w in CAPTURE_WEIGHTS if not captures or c in captures]
    total = sum(w for _, w in cap_w)
    cap_w = [(c, w / total) for c, w in cap_w]
    rng = np.random.default_rng([seed, 0xC0FFEE])
    kind_list = quota(kind_w, count, rng)
    orients = quota(ORIENT_WEIGHTS, count, rng)
    tags = quota(TAG_WEIGHTS, count, rng)
    caps = quota(cap_w, count, rng)
    family = [None] * count
    for k, _ in kind_w:
        if not needs_family(k):
            continue
        fk = families_for(k, fams)
        classes = [c for c in KIND_CLASSES[k] if any(f.cls == c for f in fk)]
        corder = [classes[int(i)] for i in rng.permutation(len(classes))]
        byclass = {c: [fk_ for fk_ in fk if fk_.cls == c] for c in classes}
        perm = {c: [byclass[c][int(i)] for i in rng.permutation(len(byclass[c]))] for c in classes}
        slots = [i for i in range(count) if kind_list[i] == k]
        for j, i in enumerate(slots):
            c = corder[j % len(corder)]
            family[i] = perm[c][(j // len(corder)) % len(perm[c])].name
    specs = []
    for i in range(count):
        fseed = int(np.random.SeedSequence([seed, i]).generate_state(1)[0])
        specs.append(Spec(i, kind_list[i], orients[i], tags[i], fseed, family=family[i], capture=caps[i]))
    return specs


# Fixed samples profile: every orientation, tag right/wrong/absent, PNG, every
# hard negative, one large (4032 px) JPEG.  Mild degradations so that every
# decidable sample stays clearly readable.
SAMPLES = [
    # kind,      upright, tag mode, wrong tag, long side, landscape
    ("receipt", 1, "wrong", 6, 1280, False),
    ("receipt", 3, "right", None, 1280, False),
    ("receipt", 6, "absent", None, 1024, True),
    ("letter", 8, "wrong", 6, 1600, False),
    ("receipt", 1, "png", None, 1024, False),
    ("form", 6, "right", None, 1280, False),
    ("form", 3, "wrong", 1, 1600, False),
    ("invoice", 8, "absent", None, 1600, True),
    ("invoice", 6, "wrong", 1, 4032, False),
    ("fineprint", 1, "right", None, 2016, False),
    ("mixed", 3, "wrong", 8, 1600, False),
    ("pdfpage", 6, "wrong", 8, 1600, False),
    ("pdfpage", 1, "absent", None, 1600, True),
    ("receipt", 2, "wrong", 1, 1280, False),
    ("letter", 4, "right", None, 1280, False),
    ("form", 5, "absent", None, 1280, True),
    ("invoice", 7, "wrong", 6, 1280, False),
    ("blank", 6, "wrong", 1, 1280, False),
    ("photo", 1, "right", None, 1280, True),
    ("twowords", 3, "wrong", 6, 1280, False),
    ("barcode", 8, "png", None, 1024, False),
]
# Corpus 2 samples (appended: the 21 above keep their bytes): one of each new kind,
# in chosen families (fit and holdout) and capture profiles; JPEG quality 70 to stay small.
SAMPLES_2 = [
    # kind,        upright, tag mode, wrong, long side, landscape, family, capture
    ("flyer", 6, "wrong", 1, 1600, False, "Bebas Neue", "flat"),
    ("menu", 3, "absent", None, 1280, False, "TeX Gyre Pagella", "flat"),
    ("label", 8, "wrong", 6, 1280, False, "Nimbus Sans", "flat"),
    ("vlabels", 1, "right", None, 1600, False, "Carlito", "flat"),
    ("rotheads", 6, "absent", None, 1600, False, "Noto Serif", "flat"),
    ("marginnote", 3, "wrong", 6, 1600, False, "Nimbus Roman", "flat"),
    ("spread", 1, "wrong", 6, 1600, True, "Caladea", "flat"),
    ("oneline", 8, "absent", None, 1024, True, "Open Sans", "flat"),
    ("sign", 3, "wrong", 1, 1024, True, "League Spartan", "distant"),
    ("phototext", 6, "right", None, 1280, False, "Lato", "shadowed"),
    ("handnote", 1, "absent", None, 1280, False, "Humor Sans", "curled"),
    ("dotmatrix", 8, "wrong", 1, 1280, False, "Dotmatrix Inconsolata", "flat"),
    ("thermal", 3, "absent", None, 1280, False, "Thermal DejaVu Sans Mono", "blurred"),
    ("invoice", 6, "wrong", 1, 1600, False, "C059", "handheld"),
    ("handnote", 6, "wrong", 1, None, False, "Kristi", "lowq"),
]
SAMPLES_SEED = 20240601


def samples_plan() -> list:
    specs = []
    for i, (kind, u, mode, wrong, ls, land) in enumerate(SAMPLES):
        fseed = int(np.random.SeedSequence([SAMPLES_SEED, i]).generate_state(1)[0])
        specs.append(
            Spec(
                i,
                kind,
                u,
                mode,
                fseed,
                mild=True,
                long_side=ls,
                landscape=land,
                wrong_tag=wrong,
                quality=80 if ls >= 3000 else None,
            )
        )
    for j, (kind, u, mode, wrong, ls, land, fam, cap) in enumerate(SAMPLES_2):
        i = len(SAMPLES) + j
        fseed = int(np.random.SeedSequence([SAMPLES_SEED, i]).generate_state(1)[0])
        specs.append(
            Spec(
                i,
                kind,
                u,
                mode,
                fseed,
                mild=True,
                long_side=ls,
                landscape=land,
                wrong_tag=wrong,
                quality=None if cap == "lowq" else 70,
                family=fam,
                capture=cap,
            )
        )
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
    row = make_file(spec, out_dir)
    return [row, make_heic_twin(row, out_dir)] if spec.heic else [row]


def generate(specs: list, out_dir: str, jobs: int) -> list:
    os.makedirs(out_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix="docorient-corpus-")
    try:
        pdfs = prepare_pdfs(work)
        tasks = [(s, out_dir) for s in specs]
        if jobs <= 1:
            _init_worker(pdfs)
            rows = [r for t in tasks for r in _work(t)]
        else:
            ctx = multiprocessing.get_context("fork")
            with ctx.Pool(jobs, initializer=_init_worker, initargs=(pdfs,)) as pool:
                rows = [r for rs in pool.map(_work, tasks, chunksize=1) for r in rs]
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
    ap.add_argument(
        "--samples", action="store_true", help="generate the fixed samples profile (default output: Corpus/samples)"
    )
    ap.add_argument("--kinds", help=f"comma-separated document kinds (default: all): {','.join(KINDS)}")
    ap.add_argument(
        "--fonts",
        help="comma-separated typeface families or classes (default: all; see FAMILIES): " + ",".join(FONT_CLASSES),
    )
    ap.add_argument("--captures", help=f"comma-separated capture profiles (default: all): {','.join(CAPTURES)}")
    ap.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (output does not depend on it)"
    )
    ap.add_argument(
        "--heic",
        type=float,
        default=0.0,
        metavar="FRACTION",
        help="for this fraction of the JPEG files (chosen from the seed), also write NAME.heic "
        "with heif-enc: the same stored pixels, no irot/imir, a manifest row of its own naming "
        "the JPEG twin (default 0: no HEIC, output unchanged)",
    )
    args = ap.parse_args(argv)
    if args.samples:
        specs = choose_heic(samples_plan(), args.heic, SAMPLES_SEED)
        out = args.out or SAMPLES_DIR
    else:
        if not args.out:
            ap.error("--out is required (or pass --samples)")
        split = lambda v: [x.strip() for x in v.split(",") if x.strip()] if v else None
        specs = bench_plan(
            args.seed, args.count, kinds=split(args.kinds), fonts=split(args.fonts), captures=split(args.captures)
        )
        specs = choose_heic(specs, args.heic, args.seed)
        out = args.out
    t0 = time.monotonic()
    rows = generate(specs, out, args.jobs)
    dt = time.monotonic() - t0
    undec = sum(1 for r in rows if r["decidable"] == 0)
    heic = sum(1 for r in rows if r["format"] == "heic")
    print(
        f"wrote {len(rows)} files ({undec} undecidable"
        + (f", {heic} HEIC twins" if heic else "")
        + f") + manifest.csv to {out} in {dt:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

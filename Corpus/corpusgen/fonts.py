"""Fonts and typeface families (the --fonts axis): the fixed font files of the old document
kinds, the families with their classes and printer effects, and the font lookup that a family
chosen for a file overrides."""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass

from PIL import ImageFont

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
_font_cache: dict = {}

# Typeface families (the --fonts axis).  One family sets every text of a file;
# the old document kinds, when given a family, use its regular face where they
# used "serif"/"sans"/"mono"/"condensed", its bold for "*-bold", its italic for
# "italic".  `effect` renders the page through a printer: "dots" samples the
# strokes into round dots (a 9-pin dot-matrix printer; no Debian font package
# has a dot-matrix face), "pixels" into square printhead cells (thermal).
# The order is fixed; the plan draws from it with the file's own Generator.


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

_family_override: Family | None = None  # set around an old document maker (family_override)


@contextlib.contextmanager
def family_override(fam: Family | None):
    """While the block runs, the old document kinds set every text in `fam` (None: their own fonts)."""
    global _family_override
    _family_override = fam
    try:
        yield
    finally:
        _family_override = None


def overriding_family() -> Family | None:
    """The family an old document maker is being set in, if any."""
    return _family_override


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

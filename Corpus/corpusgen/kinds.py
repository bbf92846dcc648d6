"""The page kinds: which maker renders each, which font classes it may be set in, and which kinds
no tool can decide."""

from __future__ import annotations

from .layouts import (
    doc_flyer,
    doc_handnote,
    doc_label,
    doc_marginnote,
    doc_menu,
    doc_oneline,
    doc_phototext,
    doc_printer_receipt,
    doc_rotheads,
    doc_sign,
    doc_spread,
    doc_vlabels,
)
from .pages import (
    doc_barcode,
    doc_blank,
    doc_fineprint,
    doc_form,
    doc_invoice,
    doc_letter,
    doc_mixed,
    doc_pdfpage,
    doc_receipt,
    doc_twowords,
)

# The kinds laid out by layouts.py, each maker given the file's typeface family (the others are set
# in it through `family_override`).
LAYOUT_MAKERS = {
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
# The kinds made and photographed as hard negatives (capture.py, plans.py, output.py).
UNDECIDABLE = {"blank", "photo", "twowords", "barcode"}
# Those with no text at all. A scene photo has an up but nothing to read; a blank page and a
# barcode have no up. A page of one or two words is not among them: it has an up (issue 60).
TEXTLESS = {"blank", "photo", "barcode"}


def is_decidable(kind: str, tags: list) -> bool:
    """Whether the document's text fixes its orientation: every page with text does, a two-word
    page or sign included (answering it upright is right, any other answer wrong: issue 60); the
    textless hard negatives do not. `tags` is kept for the callers: the label depends on the kind."""
    del tags
    return kind not in TEXTLESS


# The textless kinds that still have an up: the generated scene (`photo`) and the kinds of the real
# photos with nothing to orient (../shared/real/nothing, the training set's `nothing` photos). The
# others (blank, barcode, texture, the real set's blank graph paper) have none.
SCENE_KINDS = {"photo", "scene", "object", "food", "animal"}

# What a judged file is, for what counts as right (issue 60, section 1).
PAGE = "page"  # it has text: only its upright is right; abstaining leaves it undecided
SCENE = "scene"  # no text but an up: abstaining or its own upright is right, another answer wrong
NO_UP = "no up"  # no text, no up: only abstaining is right; an answer is a needless change


def has_up_without_text(kind: str) -> bool:
    """A textless file that still has an up (a scene, an animal, a cup): answering its own upright
    is harmless, any other answer is wrong. A blank page, a barcode or a texture has none: only
    abstaining is right."""
    return kind in SCENE_KINDS


def judged_as(kind: str, decidable: bool) -> str:
    """PAGE, SCENE or NO_UP: how the benchmarks judge a file of this kind. A decidable file is a
    page whatever its kind (a real page's kind may be `other`, as the real set's blank graph paper's
    is); "nothing to orient" means no text at all, never a little text."""
    if decidable:
        return PAGE
    return SCENE if has_up_without_text(kind) else NO_UP

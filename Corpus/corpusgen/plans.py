"""Plans: the benchmark set (seeded, stratified over kinds, orientations, tags, families and
captures) and the fixed samples profile."""

from __future__ import annotations

import math

import numpy as np

from .capture import CAPTURE_WEIGHTS, CAPTURES, OPT_IN_CAPTURES
from .fonts import FAMILIES, FAMILY_BY_NAME, FONT_CLASSES
from .kinds import KIND_CLASSES, LAYOUT_MAKERS, UNDECIDABLE, families_for
from .output import Spec

LAYOUT_KINDS = list(LAYOUT_MAKERS)
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
    + [(k, 0.49 / len(LAYOUT_KINDS)) for k in LAYOUT_KINDS]
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
    cap_w = [
        (c, w)
        for c, w in CAPTURE_WEIGHTS + OPT_IN_CAPTURES
        if (c in captures if captures else (c, w) in CAPTURE_WEIGHTS)
    ]
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
# The layout kinds' samples (after the 21 above, whose bytes stay as they are): one of each
# layout kind, in chosen families (fit and holdout) and capture profiles; JPEG quality 70 to stay small.
LAYOUT_SAMPLES = [
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
    # Both tables as one: the first in the old per-kind typefaces, flat, JPEG quality 80 where large;
    # the layout kinds' at quality 70 (lowq sets its own).
    rows = [(*row, None, "flat", 80 if row[4] >= 3000 else None) for row in SAMPLES]
    rows += [(*row, None if row[7] == "lowq" else 70) for row in LAYOUT_SAMPLES]
    specs = []
    for i, (kind, u, mode, wrong, ls, land, fam, cap, quality) in enumerate(rows):
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
                quality=quality,
                family=fam,
                capture=cap,
            )
        )
    return specs

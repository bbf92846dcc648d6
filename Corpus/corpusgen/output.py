"""Output and manifest: storing a file (orientation, tag, container, HEIC twin), the manifest's
columns and splits, and the driver that makes a set in worker processes."""

from __future__ import annotations

import csv
import json
import math
import multiprocessing
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageFilter

from .capture import apply_capture, pen_marks, photograph, random_shot
from .fonts import FAMILY_BY_NAME, LEGACY_FAMILY, family_override
from .kinds import DOC_MAKERS, LAYOUT_MAKERS, UNDECIDABLE, is_decidable
from .layouts import apply_printer
from .orientation import store_for_upright, stored_points
from .pages import prepare_pdfs, scene_photo, use_pdfs

# Corpus/, the folder of generate.py
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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
        if kind in LAYOUT_MAKERS:
            if fam is None:
                raise ValueError(f"kind {kind} needs a family")
            doc = LAYOUT_MAKERS[kind](rng, fam)
        else:
            with family_override(fam):
                doc = DOC_MAKERS[kind](rng)
        if fam is not None and (fam.effect or kind in ("dotmatrix", "thermal")):
            doc = apply_printer(doc, fam, kind, rng)
        if shot.pen_marks and not undecidable:
            doc = pen_marks(doc, rng)
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


def _init_worker(pdf_paths):
    use_pdfs(pdf_paths)
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
        if jobs <= 1:  # the worker's set-up here, its OMP_THREAD_LIMIT not left to the caller
            limit = os.environ.get("OMP_THREAD_LIMIT")
            try:
                _init_worker(pdfs)
                rows = [r for t in tasks for r in _work(t)]
            finally:
                if limit is None:
                    os.environ.pop("OMP_THREAD_LIMIT", None)
                else:
                    os.environ["OMP_THREAD_LIMIT"] = limit
        else:
            ctx = multiprocessing.get_context("fork")
            with ctx.Pool(jobs, initializer=_init_worker, initargs=(pdfs,)) as pool:
                rows = [r for rs in pool.map(_work, tasks, chunksize=1) for r in rs]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows.sort(key=lambda r: r["file"])
    write_manifest(os.path.join(out_dir, "manifest.csv"), MANIFEST_COLUMNS, rows)
    return rows


def write_manifest(path, columns: list, rows: list) -> str:
    """Writes `rows` to the CSV file `path` under the header `columns`, a value a row lacks left
    empty: the generator's manifests (MANIFEST_COLUMNS), and the small manifests the benchmarks'
    tests write. A row is a dictionary, or a tuple of the first columns' values in their order (a
    test's rows, written as a table). Returns the path, as a string."""
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=columns, lineterminator="\n")
        w.writeheader()
        for r in rows:
            given = r if isinstance(r, dict) else dict(zip(columns, r, strict=False))
            w.writerow({c: given.get(c, "") for c in columns})
    return str(path)

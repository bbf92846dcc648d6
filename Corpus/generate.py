#!/usr/bin/env python3
"""Generate phone-capture-like document photos whose true orientation is known.

Every file is built the same way: render a document upright (or a hard negative
with no readable text), "photograph" it (table texture, perspective, skew, light,
shadow, blur, noise), then store the pixels in one of the 8 EXIF orientations and
write an EXIF tag that is right, wrong (flat-shot style), or absent; some files
are PNGs with no orientation at all.  A manifest.csv beside the files records the
truth.

Orientation semantics (see Corpus/README.md): ``upright_orientation`` = u means
that applying EXIF u's display transform to the *stored* pixels gives the upright
document.  So the generator stores ``inverse(display(u))`` of the upright photo.

Determinism: every random choice comes from numpy Generators seeded from
(seed, file index) or from the fixed samples profile; fonts and PDFs come from
fixed, sorted path lists; nothing depends on time, hash order or worker count.
The same seed, count and installed packages give byte-identical files.

The generator itself is the corpusgen package beside this file, one module per concern:
orientation (the D4 model), fonts (typeface families, the --fonts axis), text (word lists),
pages and layouts (the document kinds), kinds (which maker renders which kind), capture (the
camera and the --captures axis), output (storing a file, the manifest, the worker driver) and
plans (the benchmark set and the samples profile).  This file is its command line; the tests and
benchmarks import the package (Scripts/bootstrap.sh installs it: Corpus/pyproject.toml).

Three axes are named, seeded and recorded in the manifest: the typeface family
(FAMILIES, --fonts; columns family and font_class), the document kind (--kinds)
and the capture profile (CAPTURES, --captures; column capture).  The split
column (fit|holdout) follows Corpus/splits.json: by family and by kind, never by file.

Usage:
    python3 Corpus/generate.py --seed 1 --count 320 --out /tmp/bench-set
    python3 Corpus/generate.py --seed 2 --count 40 --out /tmp/hw --fonts handwriting --captures handheld
    python3 Corpus/generate.py --samples            # rewrites Corpus/samples/
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from corpusgen.capture import CAPTURES, DEFAULT_CAPTURES
from corpusgen.fonts import FONT_CLASSES
from corpusgen.output import SAMPLES_DIR, choose_heic, generate
from corpusgen.plans import KINDS, SAMPLES_SEED, bench_plan, samples_plan


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1, help="master seed of the benchmark set")
    ap.add_argument("--count", type=int, default=320, help="number of files in the benchmark set")
    ap.add_argument("--out", help="output directory (created; existing files of the same name are overwritten)")
    ap.add_argument(
        "--samples", action="store_true", help="generate the fixed samples profile (default output: Corpus/samples)"
    )
    ap.add_argument("--kinds", help=f"comma-separated document kinds (default: all): {','.join(KINDS)}")
    ap.add_argument(
        "--fonts",
        help="comma-separated typeface families or classes (default: all; see FAMILIES): " + ",".join(FONT_CLASSES),
    )
    ap.add_argument(
        "--captures",
        help=f"comma-separated capture profiles (default: {','.join(DEFAULT_CAPTURES)}; "
        f"made only when named: {','.join(sorted(set(CAPTURES) - set(DEFAULT_CAPTURES)))})",
    )
    ap.add_argument(
        "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (output does not depend on it)"
    )
    ap.add_argument(
        "--heic",
        type=float,
        default=0.0,
        metavar="FRACTION",
        help="for this fraction of the JPEG files (chosen from the seed), also write NAME.heic "
        "with heif-enc: the same stored pixels, no irot/imir, a manifest row of its own naming "
        "the JPEG twin (default 0: no HEIC, output unchanged)",
    )
    args = ap.parse_args(argv)
    if args.samples:
        specs = choose_heic(samples_plan(), args.heic, SAMPLES_SEED)
        out = args.out or SAMPLES_DIR
    else:
        if not args.out:
            ap.error("--out is required (or pass --samples)")
        split = lambda v: [x.strip() for x in v.split(",") if x.strip()] if v else None
        specs = bench_plan(
            args.seed, args.count, kinds=split(args.kinds), fonts=split(args.fonts), captures=split(args.captures)
        )
        specs = choose_heic(specs, args.heic, args.seed)
        out = args.out
    t0 = time.monotonic()
    rows = generate(specs, out, args.jobs)
    dt = time.monotonic() - t0
    undec = sum(1 for r in rows if r["decidable"] == 0)
    heic = sum(1 for r in rows if r["format"] == "heic")
    print(
        f"wrote {len(rows)} files ({undec} undecidable"
        + (f", {heic} HEIC twins" if heic else "")
        + f") + manifest.csv to {out} in {dt:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

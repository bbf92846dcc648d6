#!/usr/bin/env python3
"""Time per page of a scanned PDF against the same image as a JPEG file, in the same run.

Each JPEG of the manifest becomes a one-page PDF embedding it as it is (img2pdf: /DCTDecode, its
EXIF orientation as the page's /Rotate, so that both show the same thing and docorient starts
from the same prior), or (--embed flate) its pixels as 8-bit grey Flate samples, as a scanner
writes them, under the same /Rotate. `docorient fix --dry-run --json --jobs 1` then decides the JPEGs and the
PDFs, one process each, alternating for --rounds rounds. Reported: wall-clock and CPU (user +
system) seconds per file (the median round), the ratios PDF / JPEG, and the records' own elapsed_ms summed (the decision of
each file or page; a PDF's page records leave out qpdf's parse of the file). Every page must get
the decision its JPEG got.

Usage: python3 Benchmarks/pdf/time_pdf.py [--docorient BIN] [--manifest Corpus/samples/manifest.csv]
           [--rounds 3] [--out DIR] [--embed jpeg|flate]
"""

import argparse
import csv
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

import img2pdf
import pikepdf

from corpusgen import built, pdfs

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(binary, files):
    """Wall-clock and CPU seconds (user + system, which other processes' load disturbs far less)
    of one docorient process deciding `files`, and its records."""
    args = [binary, "fix", "--dry-run", "--json", "--jobs", "1", "--no-keep", *files]
    start, cpu = time.monotonic(), cpu_seconds()
    result = subprocess.run(args, capture_output=True, text=True)
    seconds, cpu = time.monotonic() - start, cpu_seconds() - cpu
    if result.returncode != 0:
        sys.exit(f"docorient failed ({result.returncode}): {result.stderr[-2000:]}")
    records = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return seconds, cpu, records


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", default=os.path.join(ROOT, "Corpus", "samples", "manifest.csv"))
    parser.add_argument("--docorient", default=built.docorient())
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", default="/tmp/time-pdf")
    parser.add_argument(
        "--embed",
        choices=["jpeg", "flate"],
        default="jpeg",
        help="the page's image: the JPEG as it is (/DCTDecode), or its pixels as 8-bit grey Flate samples",
    )
    args = parser.parse_args()

    folder = os.path.dirname(os.path.abspath(args.manifest))
    with open(args.manifest, newline="") as f:
        names = [r["file"] for r in csv.DictReader(f) if r["file"].lower().endswith((".jpg", ".jpeg"))]
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    jpegs, documents = [], []
    for name in names:
        image = os.path.join(folder, name)
        try:
            data = img2pdf.convert(image)
            if args.embed == "flate":
                with pikepdf.open(io.BytesIO(data)) as pdf:
                    rotate = int(pdf.pages[0].obj.get("/Rotate", 0))
                data = pdfs.gray_flate_pdf(image)
                data = pdfs.with_rotate(data, rotate) if rotate else data
        except Exception as error:  # noqa: BLE001 - img2pdf refuses mirrored EXIF orientations
            print(f"skipped {name}: {error}", file=sys.stderr)
            continue
        target = os.path.join(args.out, os.path.splitext(name)[0] + ".pdf")
        with open(target, "wb") as f:
            f.write(data)
        jpegs.append(image)
        documents.append(target)

    walls = {"jpeg": [], "pdf": []}
    cpus = {"jpeg": [], "pdf": []}
    elapsed = {"jpeg": [], "pdf": []}
    decisions = {}
    for _ in range(args.rounds):
        for kind, files in (("jpeg", jpegs), ("pdf", documents)):
            seconds, cpu, records = run(args.docorient, files)
            walls[kind].append(seconds)
            cpus[kind].append(cpu)
            elapsed[kind].append(sum(r["elapsed_ms"] for r in records))
            decisions[kind] = [r.get("detected_orientation") for r in records]
    n = len(jpegs)
    same = sum(1 for a, b in zip(decisions["jpeg"], decisions["pdf"]) if a == b)
    jpeg_wall, pdf_wall = statistics.median(walls["jpeg"]), statistics.median(walls["pdf"])
    jpeg_ms, pdf_ms = statistics.median(elapsed["jpeg"]), statistics.median(elapsed["pdf"])
    print(f"{n} JPEGs of {args.manifest} and the same as one-page PDFs; {args.rounds} rounds, alternating")
    print(f"docorient: {args.docorient}")
    print(f"rounds, wall s: JPEG {[round(w, 2) for w in walls['jpeg']]}, PDF {[round(w, 2) for w in walls['pdf']]}")
    print(
        f"wall per file (median round): JPEG {jpeg_wall / n:.3f} s, PDF {pdf_wall / n:.3f} s, "
        f"ratio {pdf_wall / jpeg_wall:.3f}"
    )
    jpeg_cpu, pdf_cpu = statistics.median(cpus["jpeg"]), statistics.median(cpus["pdf"])
    print(f"rounds, CPU s: JPEG {[round(c, 2) for c in cpus['jpeg']]}, PDF {[round(c, 2) for c in cpus['pdf']]}")
    print(
        f"CPU per file (median round): JPEG {jpeg_cpu / n:.3f} s, PDF {pdf_cpu / n:.3f} s, ratio {pdf_cpu / jpeg_cpu:.3f}"
    )
    print(
        f"records' elapsed_ms summed (median round): JPEG {jpeg_ms:.0f}, PDF {pdf_ms:.0f}, ratio {pdf_ms / jpeg_ms:.3f}"
    )
    print(f"same decision: {same} of {n}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""docorient against OCRmyPDF --rotate-pages on one-page scanned PDFs made from a corpus's images.

Each image of the manifest (JPEG embedded as it is, PNG as Flate samples, by img2pdf, its EXIF tag
ignored) becomes a one-page PDF shown in one of five ways, in turn: /Rotate 0, 90, 180, 270, or
the image placed sideways by its cm matrix. docorient fixes them (one process, --jobs 1);
OCRmyPDF runs on each (`--rotate-pages --output-type pdf --optimize 0`, its OCR included: it reads
orientation with Tesseract OSD, and its rotation cannot run without its OCR). What each output
page shows is judged by rendering it (pdftoppm) and matching the image's eight transforms
(Corpus/corpusgen/pdfs.py), not by either tool's report. The same images as files (`docorient fix
--dry-run`) give the accuracy and the time the PDF path is compared with.

Usage: python3 Benchmarks/pdf/bench_pdf.py [--manifest Corpus/samples/manifest.csv] [--limit N]
           [--out DIR] [--no-ocrmypdf]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import img2pdf

from corpusgen import built, pdfs

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

VARIANTS = ["rotate0", "rotate90", "rotate180", "rotate270", "sideways"]


def make_pdf(image, variant):
    data = img2pdf.convert(image, rotation=img2pdf.Rotation.none)
    if variant == "sideways":
        return pdfs.placed_sideways(data)
    degrees = int(variant[len("rotate") :])
    return pdfs.with_rotate(data, degrees) if degrees else data


def judge(path, image, truth, before):
    """right: shows the truth; left alone: shows what it showed before (not the truth); wrong otherwise."""
    shown = pdfs.shown_orientation(path, 1, image)
    if shown == truth:
        return "right", shown
    return ("left_alone" if shown == before else "wrong"), shown


def run_docorient(binary, files, dry_run):
    args = [binary, "fix", "--json", "--jobs", "1", "--no-keep"] + (["--dry-run"] if dry_run else []) + files
    start = time.monotonic()
    result = subprocess.run(args, capture_output=True, text=True)
    seconds = time.monotonic() - start
    records = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    return {r["path"]: r for r in records}, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", default=os.path.join(ROOT, "Corpus", "samples", "manifest.csv"))
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--out", default="/tmp/bench-pdf")
    parser.add_argument("--docorient", default=built.docorient())
    parser.add_argument("--no-ocrmypdf", action="store_true")
    args = parser.parse_args()

    folder, rows = pdfs.decidable_images(args.manifest, args.limit)
    shutil.rmtree(args.out, ignore_errors=True)
    for sub in ("source", "docorient", "ocrmypdf"):
        os.makedirs(os.path.join(args.out, sub))

    cases = []
    for i, row in enumerate(rows):
        image = os.path.join(folder, row["file"])
        variant = VARIANTS[i % len(VARIANTS)]
        name = os.path.splitext(row["file"])[0] + ".pdf"
        source = os.path.join(args.out, "source", name)
        try:
            data = make_pdf(image, variant)
        except Exception as error:  # noqa: BLE001 - img2pdf refuses some PNGs (alpha, palette): not a page
            print(f"skipped {row['file']}: {error}", file=sys.stderr)
            continue
        with open(source, "wb") as f:
            f.write(data)
        before = pdfs.shown_orientation(source, 1, image)
        cases.append(
            {
                "file": row["file"],
                "image": image,
                "variant": variant,
                "truth": int(row["upright_orientation"]),
                "before": before,
                "source": source,
                "name": name,
            }
        )

    # The same images as files, and the PDFs, decided without writing: the time comparison.
    images, image_seconds = run_docorient(args.docorient, [c["image"] for c in cases], dry_run=True)
    _, pdf_dry_seconds = run_docorient(args.docorient, [c["source"] for c in cases], dry_run=True)
    # The fix itself, on copies.
    copies = []
    for c in cases:
        copy = os.path.join(args.out, "docorient", c["name"])
        shutil.copyfile(c["source"], copy)
        copies.append(copy)
    pages, pdf_fix_seconds = run_docorient(args.docorient, copies, dry_run=False)

    results = []
    ocr_seconds = 0.0
    for c, copy in zip(cases, copies):
        record = pages.get(copy, {})
        photo = images.get(c["image"], {})
        verdict, shown = judge(copy, c["image"], c["truth"], c["before"])
        check = subprocess.run(["qpdf", "--check", copy], capture_output=True).returncode
        out = {
            "file": c["file"],
            "variant": c["variant"],
            "truth": c["truth"],
            "before": c["before"],
            "docorient": verdict,
            "docorient_shown": shown,
            "docorient_confidence": record.get("confidence"),
            "docorient_detected": record.get("detected_orientation"),
            "qpdf_check": check,
            "photo_detected": photo.get("detected_orientation"),
            "photo_confidence": photo.get("confidence"),
        }
        if not args.no_ocrmypdf:
            target = os.path.join(args.out, "ocrmypdf", c["name"])
            start = time.monotonic()
            run = subprocess.run(
                ["ocrmypdf", "-q", "--rotate-pages", "--output-type", "pdf", "--optimize", "0", c["source"], target],
                capture_output=True,
                text=True,
            )
            seconds = time.monotonic() - start
            ocr_seconds += seconds
            if run.returncode == 0 and os.path.exists(target):
                out["ocrmypdf"], out["ocrmypdf_shown"] = judge(target, c["image"], c["truth"], c["before"])
            else:
                out["ocrmypdf"] = "failed"
            out["ocrmypdf_seconds"] = round(seconds, 2)
        results.append(out)
        print(json.dumps(out), flush=True)

    n = len(results)

    def count(key, value):
        return sum(1 for r in results if r.get(key) == value)

    photo_right = sum(1 for r in results if r["photo_detected"] == r["truth"])
    wrong_sure = sum(1 for r in results if r["docorient"] == "wrong" and (r["docorient_confidence"] or 0) >= 0.9)
    print()
    print(f"{n} one-page PDFs from {args.manifest} (variants {', '.join(VARIANTS)} in turn)")
    print("| | right | wrong | left alone | s per page |")
    print("|---|---|---|---|---|")
    print(
        f"| docorient fix (PDF) | {count('docorient', 'right')} | {count('docorient', 'wrong')} "
        f"| {count('docorient', 'left_alone')} | {pdf_fix_seconds / max(n, 1):.2f} |"
    )
    if not args.no_ocrmypdf:
        print(
            f"| OCRmyPDF --rotate-pages (OCR included) | {count('ocrmypdf', 'right')} | {count('ocrmypdf', 'wrong')} "
            f"| {count('ocrmypdf', 'left_alone')} | {ocr_seconds / max(n, 1):.2f} |"
        )
    print(f"| docorient on the same images as files | {photo_right} | | | {image_seconds / max(n, 1):.2f} (dry run) |")
    print(
        f"docorient wrong at confidence >= 0.9: {wrong_sure}; qpdf --check failures: "
        f"{sum(1 for r in results if r['qpdf_check'] != 0)}"
    )
    print(
        f"time, dry run, one process each: PDFs {pdf_dry_seconds:.1f} s, the images as files {image_seconds:.1f} s "
        f"(ratio {pdf_dry_seconds / image_seconds:.2f})"
    )


if __name__ == "__main__":
    main()

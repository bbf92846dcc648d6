#!/usr/bin/env python3
"""OCRmyPDF's --rotate-pages alone (Tesseract's OSD) against the same with docorient's plugin
(Packaging/ocrmypdf), and docorient's own `fix`, on the same PDFs in the same run.

The decidable images of a manifest (default ../shared/real, the real photos and scans beside the
checkout) become PDFs of --per-pdf pages each (img2pdf: a JPEG embedded as it is, a PNG as samples;
its EXIF tag ignored), page i shown with /Rotate 0, 90, 180, 270 in turn. Each PDF goes through
`ocrmypdf --rotate-pages` without and with `--plugin docorient_ocrmypdf`, OCR off
(`--tesseract-timeout 0 --output-type pdf --optimize 0`: the rotation is what is compared; OCRmyPDF
14 also skips its OSD under --tesseract-timeout 0, so use 17), the two alternating PDF by PDF, and
through `docorient fix` (one process, copies). Every output page is judged by rendering it
(Corpus/corpusgen/pdfs.py): **right** shows the image upright, **left alone** as before, **wrong** otherwise.

Then the cost of a page: OCRmyPDF's own page images (its previews, kept with -k from a run with
the plugin on the first --cost PDFs) decided by `docorient fix --dry-run --json` in one process, by
the plugin's `get_orientation` (one long-lived `docorient decide`), and by one docorient process per
page (what a plugin without the pipe would pay).

Usage: python3 Benchmarks/pdf/bench_ocrmypdf.py [--manifest M] [--limit N] [--per-pdf 4] [--jobs 1]
           [--cost 4] [--docorient BIN] [--ocrmypdf 'python3 -m ocrmypdf'] [--out DIR]
"""

import argparse
import glob
import importlib.util
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import types

import img2pdf

from corpusgen import built, pdfs

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PLUGIN = os.path.join(ROOT, "Packaging", "ocrmypdf")

ROTATIONS = [0, 90, 180, 270]


def checkout_plugin():
    """The OCRmyPDF plugin of this checkout (Packaging/ocrmypdf/docorient_ocrmypdf.py), loaded from its
    file: the module the runs above hand OCRmyPDF on PYTHONPATH, not one installed elsewhere."""
    spec = importlib.util.spec_from_file_location("docorient_ocrmypdf", os.path.join(PLUGIN, "docorient_ocrmypdf.py"))
    plugin = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(plugin)
    return plugin


def judge(path, page, image, truth, before):
    shown = pdfs.shown_orientation(path, page, image)
    if shown == truth:
        return "right"
    return "left_alone" if shown == before else "wrong"


def ocrmypdf(command, source, target, plugin, jobs, docorient, extra=(), env=None):
    argv = shlex.split(command) + ["-q", "--rotate-pages", "--output-type", "pdf", "--optimize", "0"]
    argv += ["--tesseract-timeout", "0", "-j", str(jobs), *extra]
    argv += ["--plugin", "docorient_ocrmypdf"] if plugin else []
    environment = dict(os.environ, **(env or {}))
    if plugin:
        environment.update(PYTHONPATH=PLUGIN, DOCORIENT_COMMAND=docorient)
    start = time.monotonic()
    run = subprocess.run([*argv, source, target], capture_output=True, text=True, env=environment)
    return run, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", default=os.path.join(os.path.dirname(ROOT), "shared", "real", "manifest.csv"))
    parser.add_argument("--limit", type=int, default=0, help="at most N images (0: all)")
    parser.add_argument("--per-pdf", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=1, help="OCRmyPDF's -j")
    parser.add_argument("--cost", type=int, default=4, help="PDFs whose page images time a page")
    parser.add_argument("--docorient", default=built.docorient())
    parser.add_argument("--ocrmypdf", default=f"{sys.executable} -m ocrmypdf")
    parser.add_argument("--out", default="/tmp/bench-ocrmypdf")
    args = parser.parse_args()
    if not os.path.exists(args.manifest):
        sys.exit(f"{args.manifest} not found: the real photos live in shared/real beside the checkout (or --manifest)")
    if not args.docorient:
        sys.exit("docorient is not built (swift build -c release), or pass --docorient")
    docorient = os.path.abspath(args.docorient)

    folder, rows = pdfs.decidable_images(args.manifest, args.limit)
    shutil.rmtree(args.out, ignore_errors=True)
    for sub in ("source", "alone", "plugin", "fix", "previews", "kept"):
        os.makedirs(os.path.join(args.out, sub))

    # The PDFs: pages in groups, each page one image shown with the next rotation.
    pages = []
    for row in rows:
        image = os.path.join(folder, row["file"])
        rotate = ROTATIONS[len(pages) % len(ROTATIONS)]
        try:
            data = img2pdf.convert(image, rotation=img2pdf.Rotation.none)
        except Exception as error:  # noqa: BLE001 - img2pdf refuses some PNGs (alpha): not a page
            print(f"skipped {row['file']}: {error}", file=sys.stderr)
            continue
        pages.append({"file": row["file"], "image": image, "truth": int(row["upright_orientation"]), "rotate": rotate})
        pages[-1]["data"] = pdfs.with_rotate(data, rotate) if rotate else data
    documents = []
    for n, start in enumerate(range(0, len(pages), args.per_pdf)):
        group = pages[start : start + args.per_pdf]
        name = f"{n:03d}.pdf"
        source = os.path.join(args.out, "source", name)
        with open(source, "wb") as f:
            f.write(pdfs.combined(*(p.pop("data") for p in group)))
        for number, p in enumerate(group, start=1):
            p.update(pdf=name, page=number, before=pdfs.shown_orientation(source, number, p["image"]))
        documents.append((name, source, group))

    # OCRmyPDF alone and with the plugin, alternating; then docorient fix on copies.
    seconds = {"alone": 0.0, "plugin": 0.0}
    failed = {"alone": 0, "plugin": 0}
    for name, source, _ in documents:
        for kind in ("alone", "plugin"):
            run, took = ocrmypdf(
                args.ocrmypdf, source, os.path.join(args.out, kind, name), kind == "plugin", args.jobs, docorient
            )
            seconds[kind] += took
            if run.returncode != 0:
                failed[kind] += 1
                print(f"{kind} {name}: exit {run.returncode}: {run.stderr.strip()[-400:]}", file=sys.stderr)
    copies = []
    for name, source, _ in documents:
        copies.append(os.path.join(args.out, "fix", name))
        shutil.copyfile(source, copies[-1])
    start = time.monotonic()
    fix = subprocess.run(
        [docorient, "fix", "--json", "--jobs", "1", "--no-keep", *copies], capture_output=True, text=True
    )
    seconds["fix"] = time.monotonic() - start
    fixed = {(os.path.basename(r["path"]), r.get("page")): r for r in map(json.loads, fix.stdout.splitlines())}

    for name, _, group in documents:
        for p in group:
            for kind in ("alone", "plugin", "fix"):
                target = os.path.join(args.out, kind, name)
                p[kind] = (
                    judge(target, p["page"], p["image"], p["truth"], p["before"])
                    if os.path.exists(target)
                    else "failed"
                )
            p["fix_detected"] = fixed.get((name, p["page"]), {}).get("detected_orientation")
            print(json.dumps({k: v for k, v in p.items() if k != "image"}), flush=True)

    n = len(pages)

    def count(kind, verdict):
        return sum(1 for p in pages if p[kind] == verdict)

    print()
    print(f"{n} pages from {args.manifest}, {len(documents)} PDFs of {args.per_pdf} (/Rotate 0, 90, 180, 270 in turn)")
    print(
        f"OCRmyPDF: {args.ocrmypdf} ({subprocess.run([*shlex.split(args.ocrmypdf), '--version'], capture_output=True, text=True).stdout.strip()}), -j {args.jobs}"
    )
    print("| | right | wrong | left alone | s | s per page |")
    print("|---|---|---|---|---|---|")
    for kind, label in (
        ("alone", "OCRmyPDF --rotate-pages (Tesseract OSD)"),
        ("plugin", "OCRmyPDF --rotate-pages --plugin docorient_ocrmypdf"),
        ("fix", "docorient fix (one process)"),
    ):
        print(
            f"| {label} | {count(kind, 'right')} | {count(kind, 'wrong')} | {count(kind, 'left_alone')} "
            f"| {seconds[kind]:.1f} | {seconds[kind] / max(n, 1):.2f} |"
        )
    worse = [p for p in pages if p["plugin"] == "wrong" or (p["before"] == p["truth"] and p["plugin"] != "right")]
    fix_right_plugin_not = [p for p in pages if p["fix"] == "right" and p["plugin"] != "right"]
    print(
        f"plugin: pages made worse {len(worse)}; right under fix but not under the plugin {len(fix_right_plugin_not)}"
        f" {[(p['pdf'], p['page'], p['file']) for p in fix_right_plugin_not]}; failed runs {failed}"
    )
    cost(args, documents, docorient)


def cost(args, documents, docorient):
    """A page's cost: OCRmyPDF's own page images, decided three ways."""
    kept = os.path.join(args.out, "kept")
    for name, source, _ in documents[: args.cost]:
        ocrmypdf(
            args.ocrmypdf,
            source,
            os.path.join(kept, name),
            True,
            1,
            docorient,
            extra=["-k"],
            env={"TMPDIR": kept},
        )
    previews = []
    for i, path in enumerate(sorted(glob.glob(os.path.join(kept, "ocrmypdf.io.*", "*rasterize_preview.jpg")))):
        copy = os.path.join(args.out, "previews", f"{i:03d}.jpg")
        shutil.copyfile(path, copy)
        previews.append(copy)
    if not previews:
        print("no page images kept (OCRmyPDF's -k): no cost figures")
        return
    n = len(previews)
    start = time.monotonic()
    one = subprocess.run(
        [docorient, "fix", "--dry-run", "--json", "--jobs", "1", *previews], capture_output=True, text=True
    )
    one_seconds = time.monotonic() - start
    resolver_ms = [json.loads(line)["elapsed_ms"] for line in one.stdout.splitlines()]

    plugin = checkout_plugin()
    os.environ["DOCORIENT_COMMAND"] = docorient
    options = types.SimpleNamespace(languages=["eng"], tesseract=types.SimpleNamespace(non_ocr_timeout=180.0))
    asked = []
    for path in previews:
        start = time.monotonic()
        plugin.get_orientation(path, options)
        asked.append(time.monotonic() - start)
    plugin.DECIDERS.close_all()

    per_process = []
    for path in previews:
        start = time.monotonic()
        subprocess.run([docorient, "fix", "--dry-run", "--json", path], capture_output=True)
        per_process.append(time.monotonic() - start)

    print()
    sizes = sorted(
        {subprocess.run(["identify", "-format", "%wx%h", p], capture_output=True, text=True).stdout for p in previews}
    )
    print(
        f"a page's cost, on OCRmyPDF's {n} page images of the first {args.cost} PDFs (grey JPEGs, {', '.join(sizes[:4])} ...):"
    )
    print(
        f"- docorient fix --dry-run, one process for all: {one_seconds / n:.3f} s a page "
        f"(its records' elapsed_ms: mean {statistics.mean(resolver_ms) / 1000:.3f} s)"
    )
    print(
        f"- the plugin (one docorient decide): {sum(asked) / n:.3f} s a page, "
        f"{statistics.mean(asked[1:]) if n > 1 else asked[0]:.3f} s after the first "
        f"(the first, with the start and model load, {asked[0]:.3f} s); "
        f"{sum(asked) / one_seconds:.2f}x fix"
    )
    print(
        f"- a docorient process per page: {statistics.mean(per_process):.3f} s a page ({sum(per_process) / one_seconds:.2f}x fix)"
    )


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Per-process time of the commands that never read text, beside jhead and exiftool.

Each tool works on its own fresh copy of the same photo, so every run really writes. hyperfine
(Debian `hyperfine`) times the whole process, start-up included; figures are medians, and the
ratio column is against jhead measured in the same run.

    python3 Benchmarks/startup/startup.py [--docorient BIN] [--runs N] [--image FILE]

Build the binary as it is installed: `swift build -c release --static-swift-stdlib --product docorient`.
"""

import argparse
import json
import os
import shutil
import subprocess
import tempfile

from corpusgen import built

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--docorient", default=built.docorient())
    ap.add_argument("--image", default=os.path.join(ROOT, "Corpus", "samples", "0003_letter.jpg"))
    ap.add_argument("--runs", type=int, default=40)
    a = ap.parse_args()
    for tool in ("hyperfine", "jhead", "exiftool", "exiftran"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is not installed (Scripts/bootstrap.sh installs it)")
    with tempfile.TemporaryDirectory(prefix="startup-") as tmp:
        photo = os.path.join(tmp, "photo.jpg")
        shutil.copy(a.image, photo)
        out = os.path.join(tmp, "out")
        os.mkdir(out)
        d = a.docorient
        # name, command (a copy is prepared before each run where the tool edits in place)
        cases = [
            ("jhead -norot (clear the tag, in place)", f"jhead -q -norot {tmp}/w.jpg", f"cp {photo} {tmp}/w.jpg"),
            ("docorient tag 6 (in place)", f"{d} tag 6 {tmp}/w.jpg", f"cp {photo} {tmp}/w.jpg"),
            (
                "exiftool -Orientation=6 (in place)",
                f"exiftool -q -n -overwrite_original -Orientation=6 {tmp}/w.jpg",
                f"cp {photo} {tmp}/w.jpg",
            ),
            ("docorient inspect", f"{d} inspect {photo}", None),
            ("jhead (print the header)", f"jhead {photo}", None),
            ("docorient bake (in place)", f"{d} bake {tmp}/w.jpg", f"cp {photo} {tmp}/w.jpg && {d} tag 6 {tmp}/w.jpg"),
            (
                "exiftran -ai (bake, in place)",
                f"exiftran -ai {tmp}/w.jpg",
                f"cp {photo} {tmp}/w.jpg && {d} tag 6 {tmp}/w.jpg",
            ),
        ]
        medians = {}
        for name, command, prepare in cases:
            report = os.path.join(tmp, "r.json")
            args = ["hyperfine", "-N", "--style", "none", "-w", "3", "-r", str(a.runs), "--export-json", report]
            if prepare:
                args = [
                    "hyperfine",
                    "--style",
                    "none",
                    "-w",
                    "3",
                    "-r",
                    str(a.runs),
                    "--export-json",
                    report,
                    "--prepare",
                    prepare,
                ]
            subprocess.run(args + [command], check=True, stdout=subprocess.DEVNULL)
            medians[name] = json.load(open(report))["results"][0]["median"] * 1000
        jhead = medians[cases[0][0]]
        print(f"{'command':42} {'median ms':>10} {'x jhead':>8}")
        for name, ms in medians.items():
            print(f"{name:42} {ms:10.2f} {ms / jhead:8.1f}")


if __name__ == "__main__":
    main()

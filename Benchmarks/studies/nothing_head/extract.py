#!/usr/bin/env python3
"""Per-square backbone features for the model-3 experiment (a per-square "nothing" head).

train.py keeps only the mean of an example's square features; a per-square head needs each
square's own. This cuts the squares exactly as train.py does (`docorient classify --dump` on the
posed image), runs PP-LCNet's frozen backbone (train.backbone_session) and saves, per chunk of
examples, every square's 1280 features (float32) with the number of squares of each example.

Sets (each a folder under --out, a checkpoint per chunk, resumable):
  renders  train.py's fit renders (its work folder's renders/manifest.csv), 8 poses each
  photos   the real training photos ("set B", --photos manifest), 8 poses each
  set23    a generated set as stored (its manifest's rows, fit and held out)
  real     the real set's stored variants (NAME.uK.jpg/png; truth from Corpus/real/manifest.csv)
  nothing  the real photos with nothing to orient, as stored variants (u1, u3) and posed u6

    OMP_NUM_THREADS=1 nice -n 19 python3 Benchmarks/studies/nothing_head/extract.py --out /tmp/m3/feat \\
        --docorient /tmp/bin/docorient-m2b --sets set23,real,nothing,renders,photos
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "Models", "orientation")
)  # train.py
import train

CHUNK = 32
_SESSION = None


def _session():
    global _SESSION
    if _SESSION is None:
        _SESSION = train.backbone_session()
    return _SESSION


def render_rows(work: str) -> list[dict]:
    """train.render()'s rows, read without re-rendering or re-checking (the folder is read-only)."""
    out = os.path.join(work, "renders")
    with open(os.path.join(out, "manifest.csv"), newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["split"] == "fit"]
    return [
        {"path": os.path.join(out, r["file"]), "upright": int(r["upright_orientation"]), "page": r["decidable"] == "1"}
        for r in rows
    ]


def photo_rows(manifest: str) -> list[dict]:
    base = os.path.dirname(manifest)
    with open(manifest, newline="") as fh:
        return [
            {
                "path": os.path.join(base, r["file"]),
                "upright": int(r.get("upright_orientation") or 1),
                "page": r["decidable"] == "1",
            }
            for r in csv.DictReader(fh)
        ]


def items(name: str, args) -> list[dict]:
    """Every example of a set: the source, the pose to write it in (None: use the file as stored),
    and what is known of it (page: decidable; part; pose)."""
    if name == "renders":
        return [
            {"path": s["path"], "upright": s["upright"], "pose": p, "page": s["page"], "part": "renders"}
            for s in render_rows(args.work)
            for p in range(1, 9)
        ]
    if name == "photos":
        return [
            {"path": s["path"], "upright": s["upright"], "pose": p, "page": s["page"], "part": "photos"}
            for s in photo_rows(args.photos)
            for p in range(1, 9)
        ]
    if name == "set23":
        base = os.path.dirname(args.set23)
        with open(args.set23, newline="") as fh:
            return [
                {
                    "path": os.path.join(base, r["file"]),
                    "pose": None,
                    "truth": int(r["upright_orientation"]),
                    "page": r["decidable"] == "1",
                    "part": r["split"],
                    "kind": r["kind"],
                }
                for r in csv.DictReader(fh)
            ]
    if name == "real":
        with open(os.path.join(train.ROOT, "Corpus", "real", "manifest.csv"), newline="") as fh:
            real = {os.path.splitext(r["file"])[0]: r for r in csv.DictReader(fh)}
        out = []
        for f in sorted(os.listdir(args.real_dir)):
            m = re.match(r"(.*)\.u(\d)\.(jpg|png)$", f)
            if not m or m.group(1) not in real:
                continue
            r = real[m.group(1)]
            out.append(
                {
                    "path": os.path.join(args.real_dir, f),
                    "pose": None,
                    "truth": int(m.group(2)),
                    "page": r["decidable"] == "1",
                    "part": "real",
                    "kind": r["kind"],
                }
            )
        return out
    if name == "nothing":
        base = os.path.dirname(args.nothing)
        with open(args.nothing, newline="") as fh:
            rows = list(csv.DictReader(fh))
        out = []
        for r in rows:
            stem = os.path.splitext(r["file"])[0]
            for u in (1, 3):
                path = os.path.join(args.real_dir, "nothing", f"{stem}.u{u}.jpg")
                out.append({"path": path, "pose": None, "truth": u, "page": False, "part": f"nothing u{u}"})
            out.append(
                {
                    "path": os.path.join(base, r["file"]),
                    "upright": int(r["upright_orientation"] or 1),
                    "pose": 6,
                    "truth": 6,
                    "page": False,
                    "part": "nothing u6",
                }
            )
        return out
    raise SystemExit(f"unknown set {name}")


def chunk_features(job: tuple) -> str:
    binary, chunk, out = job
    session = _session()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for k, ex in enumerate(chunk):
            if ex["pose"] is None:
                ext = os.path.splitext(ex["path"])[1]
                path = os.path.join(tmp, f"{k:03d}{ext}")
                os.symlink(ex["path"], path)
            else:
                path = os.path.join(tmp, f"{k:03d}.jpg")
                train.posed(ex, ex["pose"], path)
            paths.append(path)
        dump = os.path.join(tmp, "dump")
        os.mkdir(dump)
        run = subprocess.run([binary, "classify", "--dump", dump, *paths], capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"docorient classify failed: {run.stderr.strip()[-400:]}")
        shipped = {}
        for line in run.stdout.splitlines():
            rec = json.loads(line)
            shipped[os.path.basename(rec["path"])] = rec.get("nothing")
        feats, counts, nothing = [], [], []
        for path in paths:
            squares = np.fromfile(os.path.join(dump, os.path.basename(path) + ".input.f32"), dtype=np.float32)
            f = session.run([train.FEATURES], {"x": squares.reshape(-1, 3, 224, 224)})[0]
            feats.append(f)
            counts.append(len(f))
            nothing.append(np.nan if shipped.get(os.path.basename(path)) is None else shipped[os.path.basename(path)])
    np.savez(
        out + ".tmp.npz",
        features=np.concatenate(feats).astype(np.float32),
        counts=np.array(counts),
        shipped_nothing=np.array(nothing, dtype=np.float64),
    )
    os.replace(out + ".tmp.npz", out)
    return out


def extract(name: str, args) -> None:
    exs = items(name, args)
    folder = os.path.join(args.out, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "items.json"), "w") as fh:
        json.dump(exs, fh)
    chunks = [exs[i : i + CHUNK] for i in range(0, len(exs), CHUNK)]
    outs = [os.path.join(folder, f"chunk{i:04d}.npz") for i in range(len(chunks))]
    todo = [(args.docorient, c, o) for c, o in zip(chunks, outs) if not os.path.exists(o)]
    print(f"{name}: {len(exs)} examples, {len(chunks)} chunks, {len(todo)} to do", flush=True)
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        for done, _ in enumerate(pool.map(chunk_features, todo), start=1):
            if done % 5 == 0 or done == len(todo):
                print(f"{name}: chunk {done}/{len(todo)} ({time.monotonic() - started:.0f} s)", flush=True)


def load(folder: str) -> tuple[list[dict], np.ndarray, np.ndarray, np.ndarray]:
    """A set's items, all squares' features (S x 1280, float64), the example of each square and
    the shipped model's combined nothing probability per example (what docorient said)."""
    with open(os.path.join(folder, "items.json")) as fh:
        exs = json.load(fh)
    n = (len(exs) + CHUNK - 1) // CHUNK
    data = [np.load(os.path.join(folder, f"chunk{i:04d}.npz")) for i in range(n)]
    feats = np.concatenate([d["features"] for d in data]).astype(np.float64)
    counts = np.concatenate([d["counts"] for d in data])
    shipped = np.concatenate([d["shipped_nothing"] for d in data])
    owner = np.repeat(np.arange(len(exs)), counts)
    return exs, feats, owner, shipped


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--docorient", default="/tmp/bin/docorient-m2b")
    ap.add_argument("--out", default="/tmp/m3/feat")
    ap.add_argument("--sets", default="set23,real,nothing,renders,photos")
    ap.add_argument("--work", default="/work/main/Models/orientation/work", help="train.py's work folder (renders)")
    ap.add_argument("--photos", default="/tmp/dc/Models/orientation/photos/manifest.csv")
    ap.add_argument("--set23", default="/tmp/SET23/manifest.csv")
    ap.add_argument("--real-dir", default="/tmp/real-variants")
    ap.add_argument("--nothing", default="/tmp/dc/Corpus/nothing/manifest.csv")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args(argv)
    for name in args.sets.split(","):
        extract(name, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())

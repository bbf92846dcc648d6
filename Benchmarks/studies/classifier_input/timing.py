#!/usr/bin/env python3
"""Cost per image (one thread): preprocessing from the decoded grey + inference, per recipe.
OMP_NUM_THREADS=1 python3 timing.py [N]
"""

import csv
import os
import sys
import time

os.environ["OMP_NUM_THREADS"] = "1"
import cv2
import extract as E
import numpy as np

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20
if os.path.exists("/work/set23/manifest.csv"):
    rows = [
        r for r in csv.DictReader(open("/work/set23/manifest.csv")) if r["split"] == "fit" and r["format"] != "heic"
    ][:N]
else:  # provisional: plan + files present
    have = {f.rsplit(".", 1)[0]: f for f in os.listdir("/work/set23") if f.endswith((".jpg", ".png"))}
    rows = [
        dict(r, file=have[r["stem"]], paper="")
        for r in csv.DictReader(open("/work/study/plan23.csv"))
        if r["split"] == "fit" and r["stem"] in have
    ][:N]
sess = E.session()
t = time.perf_counter()
imgs = [E.load_grey("/work/set23/" + r["file"]) for r in rows]
dec = (time.perf_counter() - t) / N * 1000


def G(S, idx):
    def f(g, s, paper):
        cr = E.grid_crops(E.resize_short(g, S), 3)
        h, w = g.shape
        row = [3, 4, 5] if w >= h else [1, 4, 7]
        ii = {"1": [4], "3": row, "5": [0, 2, 4, 6, 8], "9": list(range(9))}[idx]
        return [cr[i] for i in ii]

    return f


def T(S, k):
    return lambda g, s, paper: E.textness_crops(E.resize_short(g, S, cv2.INTER_AREA), k)


def P(fn):
    def f(g, s, paper):
        b = E.paper_box(g, s, paper)
        return fn(b if b is not None else g, s, paper)

    return f


def rot(fn):
    def f(g, s, paper):
        c = fn(g, s, paper)
        return c + [np.ascontiguousarray(np.rot90(x, q)) for q in (1, 2, 3) for x in c]

    return f


recipes = {
    "A": G(256, "1"),
    "B": lambda g, s, p: [cv2.resize(g, (224, 224), interpolation=cv2.INTER_AREA)],
    "C": lambda g, s, p: [cv2.resize(E.pad_square(g), (224, 224), interpolation=cv2.INTER_AREA)],
}
for S in (256, 384, 448, 576, 768):
    for n in ("3", "5", "9"):
        recipes[f"G{S}.{n}"] = G(S, n)
        recipes[f"PG{S}.{n}"] = P(G(S, n))
for S in (384, 448, 576):
    for k in (3, 5):
        recipes[f"T{S}.{k}"] = T(S, k)


def D(fn):
    def f(g, s, paper):
        b = E.detect_paper(g)
        return fn(b if b is not None else g, s, paper)

    return f


for S in (384, 448, 576):
    for k in (3, 5):
        recipes[f"DT{S}.{k}"] = D(T(S, k))
recipes["DA"] = D(G(256, "1"))
recipes["DT448.3+rot"] = rot(D(T(448, 3)))
recipes["DT448.5+rot"] = rot(D(T(448, 5)))


def DA_DT(k):
    def f(g, s, p):
        d = E.detect_paper(g) if E.detect_paper(g) is not None else g
        return [E.grid_crops(E.resize_short(d, 256), 3)[4]] + E.textness_crops(
            E.resize_short(d, 448, cv2.INTER_AREA), k
        )

    return f


recipes["DA+DT448.5"] = DA_DT(5)
recipes["DA+DT448.3"] = DA_DT(3)
recipes["A+T448.5"] = lambda g, s, p: (
    [E.grid_crops(E.resize_short(g, 256), 3)[4]] + E.textness_crops(E.resize_short(g, 448, cv2.INTER_AREA), 5)
)
recipes["A+rot"] = rot(G(256, "1"))
recipes["G448.5+rot"] = rot(G(448, "5"))
recipes["T448.5+rot"] = rot(T(448, 5))
only = sys.argv[2].split(",") if len(sys.argv) > 2 else None
print(f"decode (PIL draft grey, long side >= {E.DECODE_LONG}): {dec:.1f} ms/image over {N} images")
for name, fn in recipes.items():
    if only and name not in only:
        continue
    tp = ti = 0.0
    for (g, s), r in zip(imgs, rows):
        t0 = time.perf_counter()
        x = E.to_tensor(fn(g, s, r["paper"]))
        t1 = time.perf_counter()
        sess.run(None, {"x": x})
        t2 = time.perf_counter()
        tp += t1 - t0
        ti += t2 - t1
    print(
        f"{name:12s} prep {tp / N * 1000:6.1f} ms  infer {ti / N * 1000:6.1f} ms  total {(tp + ti) / N * 1000:6.1f} ms"
    )

"""How well detect_paper (v2) finds the manifest's sheet (bounding boxes, stored pixels)."""

import csv
import sys

import extract as E
import numpy as np

rows = [r for r in csv.DictReader(open("/work/set23/manifest.csv")) if r["split"] == sys.argv[1] and r["paper"]]
ious = []
for r in rows:
    g, s = E.load_grey("/work/set23/" + r["file"])
    v = [float(t) * s for t in r["paper"].split()]
    h, w = g.shape
    P = (max(0, min(v[0::2])), max(0, min(v[1::2])), min(w, max(v[0::2])), min(h, max(v[1::2])))
    E_box = [None]
    orig = E.detect_paper
    d = E.detect_paper(g)
    if d is None:
        D = (0, 0, w, h)
    else:  # recover the box: detect_paper returns a view of g
        off = d.__array_interface__["data"][0] - g.__array_interface__["data"][0]
        y0, x0 = divmod(off, g.strides[0])
        D = (x0, y0, x0 + d.shape[1], y0 + d.shape[0])
    ix = max(0, min(P[2], D[2]) - max(P[0], D[0])) * max(0, min(P[3], D[3]) - max(P[1], D[1]))
    u = (P[2] - P[0]) * (P[3] - P[1]) + (D[2] - D[0]) * (D[3] - D[1]) - ix
    ious.append(ix / u)
ious = np.array(ious)
print(
    f"{sys.argv[1]}: n={len(ious)} IoU median {np.median(ious):.2f}; >=0.8 {np.mean(ious >= 0.8):.2f}; >=0.5 {np.mean(ious >= 0.5):.2f}; <0.3 {np.mean(ious < 0.3):.2f}"
)

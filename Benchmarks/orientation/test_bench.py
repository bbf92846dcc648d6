"""Unit checks of the benchmark's orientation arithmetic and scoring.

Run: python3 -m pytest -q Benchmarks/orientation
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bench  # noqa: E402


def test_composition_follows_the_dihedral_group():
    assert bench.compose(6, 6) == 3          # two quarter turns clockwise
    assert bench.compose(6, 8) == 1          # 6 and 8 are each other's inverse
    assert bench.compose(3, 3) == 1
    for u in (2, 4, 5, 7):                   # mirrors are their own inverses
        assert bench.compose(u, u) == 1
    assert bench.compose(1, 2) == 2
    assert bench.compose(3, 2) == 4          # turn 180 then flip left-right = flip top-bottom
    assert bench.compose(6, 2) == 5          # turn clockwise then flip = transpose
    assert bench.compose(8, 2) == 7


def test_every_peer_mapping_covers_the_four_rotations():
    for table in (bench.TESS_ROTATE_TO_EXIF, bench.TESS_ORIENT_DEG_TO_EXIF,
                  bench.LEPT_ORIENT_TO_EXIF, bench.RAPID_LABEL_TO_EXIF):
        assert sorted(table.values()) == [1, 3, 6, 8]
    # Tesseract's "Rotate" R and "Orientation in degrees" D are related by R = 360 - D
    for d, u in bench.TESS_ORIENT_DEG_TO_EXIF.items():
        assert bench.TESS_ROTATE_TO_EXIF[(360 - d) % 360] == u


def test_summary_counts_abstentions_and_wrong_answers():
    recs = [
        {"decidable": True, "correct": True, "abstained": False, "seconds": 1.0},
        {"decidable": True, "correct": False, "abstained": False, "seconds": 2.0},
        {"decidable": True, "correct": False, "abstained": True, "seconds": 3.0},
        {"decidable": False, "correct": False, "abstained": True, "seconds": 4.0},
        {"decidable": False, "correct": False, "abstained": False, "seconds": 5.0},
    ]
    s = bench.summarize(recs)
    assert (s["correct"], s["wrong"], s["abst_dec"], s["abst_und"], s["wrong_und"]) == (1, 1, 1, 1, 1)
    assert abs(s["acc"] - 100 / 3) < 1e-9
    assert s["median"] == 3.0


def test_breakdown_time_tail_gives_the_share_of_the_slowest_tenth():
    import breakdown
    t = breakdown.time_tail([1.0] * 9 + [91.0])
    assert t["max"] == 91.0 and t["total"] == 100.0
    assert abs(t["slowest10"] - 0.91) < 1e-9
    assert t["median"] == 1.0


def test_breakdown_reliability_bins_count_answered_decidable_files_only():
    import breakdown
    recs = [
        {"decidable": True, "abstained": False, "correct": True, "confidence": 0.995},
        {"decidable": True, "abstained": False, "correct": False, "confidence": 0.992},
        {"decidable": True, "abstained": False, "correct": True, "confidence": 0.85},
        {"decidable": True, "abstained": True, "correct": False, "confidence": 0.3},
        {"decidable": False, "abstained": False, "correct": False, "confidence": 0.97},
    ]
    bins = {label: (n, share) for label, n, share in breakdown.reliability(recs)}
    assert bins[">=0.99"] == (2, 50.0)
    assert bins["0.80-0.90"] == (1, 100.0)
    assert bins["0.00-0.50"][0] == 0


def test_breakdown_parts_follow_the_manifest_split():
    import breakdown
    recs = [{"peer": "docorient", "file": "a.jpg"}, {"peer": "docorient", "file": "b.jpg"}]
    rows = [{"file": "a.jpg", "split": "holdout", "family": "Nimbus Roman", "font_class": "serif", "capture": "handheld"},
            {"file": "b.jpg"}]
    out = breakdown.attach(recs, rows)
    assert out[0]["part"] == "holdout" and out[0]["capture"] == "handheld"
    assert out[1]["part"] == "fit" and out[1]["capture"] == "flat"

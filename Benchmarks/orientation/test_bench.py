"""Unit checks of the benchmark's orientation arithmetic and scoring.

Run: python3 -m pytest -q Benchmarks/orientation
"""

import os

import bench
import peers
import report
import scoring

from corpusgen import kinds, output
from corpusgen.output import MANIFEST_COLUMNS, write_manifest
from corpusgen.shared import REAL_COLUMNS


def test_composition_follows_the_dihedral_group():
    assert peers.compose(6, 6) == 3  # two quarter turns clockwise
    assert peers.compose(6, 8) == 1  # 6 and 8 are each other's inverse
    assert peers.compose(3, 3) == 1
    for u in (2, 4, 5, 7):  # mirrors are their own inverses
        assert peers.compose(u, u) == 1
    assert peers.compose(1, 2) == 2
    assert peers.compose(3, 2) == 4  # turn 180 then flip left-right = flip top-bottom
    assert peers.compose(6, 2) == 5  # turn clockwise then flip = transpose
    assert peers.compose(8, 2) == 7


def test_every_peer_mapping_covers_the_four_rotations():
    for table in (
        peers.TESS_ROTATE_TO_EXIF,
        peers.TESS_ORIENT_DEG_TO_EXIF,
        peers.LEPT_ORIENT_TO_EXIF,
        peers.RAPID_LABEL_TO_EXIF,
    ):
        assert sorted(table.values()) == [1, 3, 6, 8]
    # Tesseract's "Rotate" R and "Orientation in degrees" D are related by R = 360 - D
    for d, u in peers.TESS_ORIENT_DEG_TO_EXIF.items():
        assert peers.TESS_ROTATE_TO_EXIF[(360 - d) % 360] == u


# ---------------------------------------------------------------------------
# Parts, summaries, reliability, time distribution, real-set expansion
# ---------------------------------------------------------------------------

import csv
import math

import pytest
from PIL import Image

# A manifest from before the typeface, capture and split columns.
UNSPLIT_COLUMNS = MANIFEST_COLUMNS[: MANIFEST_COLUMNS.index("family")]
# The columns every manifest the tests write begins with (a row is a tuple of values in this order).
TRUTH = ["file", "upright_orientation", "decidable", "kind"]


def rec(
    part="fit",
    decidable=True,
    truth=1,
    answer=1,
    seconds=1.0,
    confidence=None,
    kind="letter",
    font_class="serif",
    capture="flat",
    peer="docorient",
    path=None,
):
    """One record as scoring.score makes it; an undecidable file is a scene or has no up by its kind."""
    judged = kinds.judged_as(kind, decidable)
    outcome = scoring.outcome(judged, truth, answer)
    r = {
        "peer": peer,
        "part": part,
        "decidable": decidable,
        "judged": judged,
        "truth": truth,
        "answer": answer,
        "abstained": answer is None,
        "outcome": outcome,
        "correct": outcome == scoring.RIGHT,
        "seconds": seconds,
        "kind": kind,
        "font_class": font_class,
        "capture": capture,
        "family": "",
        "file": path or "f",
        "path": path or "f",
    }
    if confidence is not None:
        r["confidence"] = confidence
    return r


def test_a_manifest_without_split_columns_is_all_fit_with_the_font_token_as_family(tmp_path):
    m = write_manifest(
        tmp_path / "manifest.csv",
        UNSPLIT_COLUMNS,
        [
            ("0000_receipt.jpg", "6", "1", "", "receipt", "font:DejaVuSansCondensed;faint:0.33;jpeg:83"),
            ("0001_blank.jpg", "3", "0", "1", "blank", "crease;jpeg:80"),
        ],
    )
    a, b = scoring.generated_entries(m)
    assert (a["part"], a["family"], a["capture"], a["font_class"]) == ("fit", "DejaVuSansCondensed", "flat", "")
    assert (a["truth"], a["decidable"], a["exif_orientation"]) == (6, True, None)
    assert (b["part"], b["family"], b["decidable"], b["exif_orientation"]) == ("fit", "", False, 1)
    assert a["path"] == os.path.join(str(tmp_path), "0000_receipt.jpg")


def test_the_split_column_decides_the_part(tmp_path):
    m = write_manifest(
        tmp_path / "manifest.csv",
        TRUTH + ["degradations", "family", "font_class", "capture", "split"],
        [
            ("a.jpg", "1", "1", "letter", "font:X", "Nimbus Roman", "serif", "curled", "holdout"),
            ("b.jpg", "8", "1", "letter", "font:Y", "DejaVu Sans", "sans", "handheld", "fit"),
        ],
    )
    a, b = scoring.generated_entries(m)
    assert (a["part"], a["family"], a["font_class"], a["capture"]) == ("holdout", "Nimbus Roman", "serif", "curled")
    assert (b["part"], b["family"], b["capture"]) == ("fit", "DejaVu Sans", "handheld")
    bad = write_manifest(tmp_path / "bad.csv", TRUTH + ["split"], [("c.jpg", "1", "1", "letter", "test")])
    with pytest.raises(SystemExit):
        scoring.generated_entries(bad)


def test_the_slowest_tenth_share_and_percentiles_of_the_time_distribution():
    even = scoring.time_distribution([1.0] * 20)
    assert even["slowest10"] == pytest.approx(0.1)  # 2 of 20 files, 2 of 20 seconds
    skewed = scoring.time_distribution([1.0] * 18 + [41.0, 41.0])
    assert skewed["slowest10"] == pytest.approx(82 / 100)
    assert (skewed["median"], skewed["max"], skewed["total"]) == (1.0, 41.0, 100.0)
    assert skewed["p99"] == pytest.approx(41.0)
    assert skewed["p90"] == pytest.approx(1.0 + 40.0 * 0.1)  # between the 18th and 19th value
    few = scoring.time_distribution([3.0, 1.0, None])  # under ten files: the slowest one
    assert few["slowest10"] == pytest.approx(0.75)
    assert math.isnan(scoring.time_distribution([None])["median"])


def test_summary_counts_abstentions_and_wrong_answers():
    recs = [
        rec(answer=1, seconds=1.0),
        rec(answer=3, seconds=2.0),
        rec(answer=None, seconds=3.0),
        rec(kind="blank", decidable=False, answer=None, seconds=4.0),
        rec(kind="blank", decidable=False, answer=1, seconds=5.0),
    ]
    s = scoring.summarize(recs)
    assert (s["correct"], s["wrong"], s["abst_dec"], s["needless"], s["right"]) == (1, 1, 1, 1, 2)
    assert abs(s["acc"] - 100 / 3) < 1e-9
    assert s["median"] == 3.0
    assert (s["textless_median"], s["textless_max"]) == (4.5, 5.0)


# Issue 60, section 1: a user wants every file shown the right way up and none turned wrong.


def test_a_scene_answered_upright_or_left_alone_is_right_and_answered_sideways_is_wrong():
    assert scoring.outcome(kinds.SCENE, 3, 3) == scoring.RIGHT  # its own upright: shown as it should be
    assert scoring.outcome(kinds.SCENE, 3, None) == scoring.RIGHT
    assert scoring.outcome(kinds.SCENE, 3, 6) == scoring.WRONG
    assert scoring.outcome(kinds.SCENE, 1, 3) == scoring.WRONG
    recs = [
        rec(kind="animal", decidable=False, truth=3, answer=3),
        rec(kind="photo", decidable=False, truth=1, answer=None),
        rec(kind="scene", decidable=False, truth=1, answer=6, confidence=0.95),
    ]
    s = scoring.summarize(recs)
    assert (s["scenes"], s["scene_abstained"], s["scene_upright"], s["scene_wrong"]) == (3, 1, 1, 1)
    assert (s["right"], s["wrong"], s["wrong_confident"], s["dec"], s["no_up"]) == (2, 1, 1, 0, 0)
    assert report._scenes(s) == "1/1/1 of 3"
    assert [r["answer"] for r in scoring.misses(recs)] == [6]


def test_an_answer_on_a_file_with_no_up_is_a_needless_change_and_not_a_wrong_answer():
    for truth, answer in ((1, 1), (3, 1), (6, None)):
        assert scoring.outcome(kinds.NO_UP, truth, answer) == (scoring.RIGHT if answer is None else scoring.NEEDLESS)
    recs = [rec(kind="barcode", decidable=False, answer=1, confidence=0.99)] + [
        rec(kind=k, decidable=False, answer=None) for k in ("blank", "texture", "other") * 6 + ("blank",)
    ]
    s = scoring.summarize(recs)
    assert (s["no_up"], s["needless"], s["wrong"], s["right"]) == (20, 1, 0, 19)
    assert s["needless_share"] == pytest.approx(0.05)
    assert report._needless(s) == "1/20 (5.0%)"
    assert [r["kind"] for r in scoring.misses(recs)] == ["barcode"]
    bins = {b["bin"]: b for b in scoring.reliability(recs)}
    assert (bins[">=0.99"]["n"], bins[">=0.99"]["needless"]) == (0, 1)


def test_a_two_word_page_is_decidable_right_when_upright_and_wrong_otherwise(tmp_path):
    # A set generated before issue 60 labels its two-word pages undecidable: bench judges by the kind.
    m = write_manifest(
        tmp_path / "manifest.csv",
        TRUTH + ["split"],
        [(f"{i}.jpg", "6", "0", kind, "holdout") for i, kind in enumerate(("twowords", "sign", "photo", "barcode"))],
    )
    entries = scoring.generated_entries(m)
    assert [(e["decidable"], e["judged"]) for e in entries] == [
        (True, "page"),
        (True, "page"),
        (False, "scene"),
        (False, "no up"),
    ]
    res = {entries[0]["path"]: {"answer": 6}, entries[1]["path"]: {"answer": 8}, entries[2]["path"]: {"answer": 6}}
    res[entries[3]["path"]] = {"answer": 1, "confidence": 0.4}
    recs = scoring.score(entries, "docorient", res)
    assert [r["outcome"] for r in recs] == ["right", "wrong", "right", "needless"]
    assert [r["correct"] for r in recs] == [True, False, True, False]
    assert [r.get("miss") for r in recs] == [None, "wrong", None, "needless"]
    s = scoring.summarize(recs)
    assert (s["correct"], s["dec"], s["wrong"], s["scene_upright"], s["needless"]) == (1, 2, 1, 1, 1)
    unanswered = scoring.score(entries, "docorient", {})
    assert [r["outcome"] for r in unanswered] == ["undecided", "undecided", "right", "right"]


def test_real_and_nothing_manifests_give_pages_scenes_and_files_without_an_up(tmp_path):
    for name in ("a.jpg", "b.jpg", "c.jpg"):
        Image.new("RGB", (8, 6), (200, 200, 200)).save(tmp_path / name)
    real = write_manifest(
        tmp_path / "real.csv",
        TRUTH,
        [("a.jpg", "1", "1", "other"), ("b.jpg", "1", "0", "other")],  # b: graph paper
    )
    got = {(e["source_file"], e["judged"]) for e in scoring.real_entries(real, str(tmp_path / "r"))}
    assert got == {("a.jpg", "page"), ("b.jpg", "no up")}
    nothing = write_manifest(tmp_path / "nothing.csv", ["file", "kind"], [("c.jpg", "food")])
    entries = scoring.real_entries(nothing, str(tmp_path / "n"), part="nothing", orientations=lambda _: [1, 3])
    assert [(e["truth"], e["judged"]) for e in entries] == [(1, "scene"), (3, "scene")]


def test_summary_counts_confident_wrong_answers_only_at_or_above_0_9():
    recs = [
        rec(answer=3, confidence=0.95),
        rec(answer=3, confidence=0.9),
        rec(answer=3, confidence=0.89),
        rec(answer=3),
        rec(answer=1, confidence=0.99),
    ]
    s = scoring.summarize(recs)
    assert (s["wrong"], s["wrong_confident"], s["correct"]) == (4, 2, 1)


def test_headline_rows_keep_the_parts_apart_and_compare_time_with_osd_on_the_same_files():
    records = [
        rec(part="fit", path="a", seconds=1.0),
        rec(part="fit", path="b", seconds=1.0, answer=None),
        rec(part="holdout", path="c", seconds=4.0, answer=6, confidence=0.97),
        rec(part="real", path="d", seconds=2.0, kind="blank", decidable=False, answer=None),
        rec(part="fit", path="a", seconds=2.0, peer="osd-inprocess"),
        rec(part="fit", path="b", seconds=2.0, peer="osd-inprocess"),
        rec(part="holdout", path="c", seconds=1.0, peer="osd-inprocess"),
        rec(part="real", path="d", seconds=2.0, kind="blank", decidable=False, answer=1, peer="osd-inprocess"),
    ]
    names = ["osd-inprocess", "docorient"]
    col = {h: i for i, h in enumerate(report.HEADLINE)}
    fit = {r[0]: r for r in report.headline_rows(records, names, "fit")}
    assert fit["docorient"][col["decidable right"]] == "1/2 (50.0%)"
    assert fit["docorient"][col["files right"]] == "1/2 (50.0%)"
    assert fit["docorient"][col["undecidable on decidable"]] == "1/2"
    assert fit["docorient"][col["total / OSD"]] == "0.50"
    held = {r[0]: r for r in report.headline_rows(records, names, "holdout")}
    assert held["docorient"][col["decidable right"]] == "0/1 (0.0%)"
    assert held["docorient"][col["wrong (conf >= 0.9)"]] == "1 (1)"
    assert held["osd-inprocess"][col["wrong (conf >= 0.9)"]] == "0 (-)"  # OSD's confidence is no probability
    assert held["docorient"][col["median / OSD"]] == "4.00"
    real = {r[0]: r for r in report.headline_rows(records, names, "real")}
    assert real["docorient"][col[report.NO_UP_COLUMN]] == "0/1 (0.0%)"
    assert real["osd-inprocess"][col[report.NO_UP_COLUMN]] == "1/1 (100.0%)"  # a needless change
    assert real["osd-inprocess"][col["wrong (conf >= 0.9)"]] == "0 (-)"  # and not a wrong answer
    assert real["docorient"][col["files right"]] == "1/1 (100.0%)"
    assert real["docorient"][col["textless max s"]] == "2.000"
    assert fit["docorient"][col["textless max s"]] == "-"  # no textless file in this part
    assert fit["docorient"][col[report.SCENES_COLUMN]] == "-"
    everything = {r[0]: r for r in report.headline_rows(records, names, "all")}
    assert everything["docorient"][col["files"]] == 4
    assert everything["docorient"][col["total / OSD"]] == f"{8 / 7:.2f}"


def test_breakdown_puts_the_worst_group_first():
    recs = (
        [rec(kind="letter")] * 4
        + [rec(kind="flyer", answer=3), rec(kind="flyer")]
        + [rec(kind="blank", decidable=False, answer=None), rec(kind="label", answer=None), rec(kind="label")]
        + [rec(kind="barcode", decidable=False, answer=1), rec(kind="barcode", decidable=False, answer=None)]
        + [rec(kind="photo", decidable=False, answer=3), rec(kind="photo", decidable=False, answer=None)]
    )
    order = [k for k, _ in scoring.breakdown(recs, "kind")]
    assert set(order[-2:]) == {"blank", "letter"}  # all handled right
    # half right each; a wrong answer or a needless change ranks worse than an undecided page
    assert order[:4] == ["barcode", "flyer", "photo", "label"]


def test_reliability_bins_count_answers_on_pages_and_scenes_and_needless_changes_apart():
    recs = [
        rec(confidence=0.995),
        rec(confidence=0.99),
        rec(confidence=0.991, answer=3),
        rec(confidence=0.92),
        rec(confidence=0.3, answer=6),
        rec(confidence=0.5),
        rec(confidence=0.7, answer=None),  # abstained: not counted
        rec(confidence=0.96, kind="barcode", decidable=False, answer=1),  # a needless change
        rec(confidence=0.8, kind="scene", decidable=False, answer=1),  # a scene answered upright
        rec(confidence=0.85, kind="scene", decidable=False, answer=6),  # and sideways
    ]
    bins = {b["bin"]: b for b in scoring.reliability(recs)}
    assert list(bins) == ["<0.5", "0.5-0.7", "0.7-0.8", "0.8-0.9", "0.9-0.95", "0.95-0.99", ">=0.99"]
    assert (bins[">=0.99"]["n"], bins[">=0.99"]["right"]) == (3, 2)
    assert bins[">=0.99"]["share"] == pytest.approx(2 / 3)
    assert (bins["0.9-0.95"]["n"], bins["0.9-0.95"]["right"]) == (1, 1)
    assert (bins["<0.5"]["n"], bins["<0.5"]["right"]) == (1, 0)
    assert bins["0.5-0.7"]["n"] == 1  # a bin holds its lower edge
    assert bins["0.7-0.8"]["n"] == 0
    assert (bins["0.8-0.9"]["n"], bins["0.8-0.9"]["right"]) == (2, 1)
    assert (bins["0.95-0.99"]["n"], bins["0.95-0.99"]["needless"]) == (0, 1)


def test_misses_list_confident_wrong_answers_first_then_undecidables_then_needless_changes():
    recs = [
        rec(path="ok"),
        rec(path="w1", answer=3, confidence=0.6),
        rec(path="u", answer=None),
        rec(path="w2", answer=6, confidence=0.97),
        rec(path="neg", kind="blank", decidable=False, answer=None),
        rec(path="n", kind="blank", decidable=False, answer=1, confidence=0.99),
        rec(path="s", kind="photo", decidable=False, answer=None),
        rec(path="ws", kind="photo", decidable=False, answer=8, confidence=0.7),
    ]
    assert [r["path"] for r in scoring.misses(recs)] == ["w2", "ws", "w1", "u", "n"]


def test_about_a_third_of_the_real_files_get_one_mirrored_variant():
    names = [f"img/{i:03d}.jpg" for i in range(300)]
    variants = [scoring.real_orientations(n) for n in names]
    assert all(v[:4] == [1, 3, 6, 8] and len(v) in (4, 5) for v in variants)
    mirrored = [v[4] for v in variants if len(v) == 5]
    assert 70 <= len(mirrored) <= 130
    assert set(mirrored) == {2, 4, 5, 7}
    assert variants == [scoring.real_orientations(n) for n in names]  # the same every run


# A 3x2 upright image with six distinct colours; the display transform of each EXIF value
# (peers._apply, written from ../shared/DOMAIN.md's table and independent of PIL and generate.py)
# applied to the stored pixels must give it back.
UPRIGHT = ((1, 2, 3), (4, 5, 6))
COLOURS = {1: (250, 0, 0), 2: (0, 250, 0), 3: (0, 0, 250), 4: (250, 250, 0), 5: (0, 250, 250), 6: (250, 0, 250)}


def grid_of(im):
    w, h = im.size
    back = {v: k for k, v in COLOURS.items()}
    return tuple(tuple(back[im.getpixel((x, y))[:3]] for x in range(w)) for y in range(h))


def test_real_files_are_stored_so_each_orientation_displays_them_upright(tmp_path):
    src = tmp_path / "real"
    (src / "img").mkdir(parents=True)
    small = Image.new("RGB", (3, 2))
    for y, row in enumerate(UPRIGHT):
        for x, v in enumerate(row):
            small.putpixel((x, y), COLOURS[v])
    small.save(src / "img" / "page.png")
    m = write_manifest(
        src / "manifest.csv",
        REAL_COLUMNS,
        [("img/page.png", "1", "1", "book", "scan")],
    )
    out = tmp_path / "variants"
    entries = scoring.real_entries(m, str(out))
    assert [e["truth"] for e in entries] == scoring.real_orientations("img/page.png")
    for e in entries:
        assert (e["part"], e["kind"], e["capture"], e["source_file"]) == ("real", "book", "scan", "img/page.png")
        with Image.open(e["path"]) as im:
            assert im.format == "PNG"
            assert 0x0112 not in im.getexif()
            stored = grid_of(im.convert("RGB"))
        assert peers._apply(e["truth"], stored) == UPRIGHT, e["truth"]
    stored_6 = next(e for e in entries if e["truth"] == 6)
    with Image.open(stored_6["path"]) as im:
        # EXIF 6 displays the stored pixels turned 90 degrees clockwise, so they are the page
        # turned counter-clockwise: its right column on top.
        assert grid_of(im.convert("RGB")) == ((3, 6), (2, 5), (1, 4))


def test_real_jpeg_files_are_written_as_jpeg_without_exif_and_alpha_is_flattened(tmp_path):
    src = tmp_path / "real"
    src.mkdir()
    page = Image.new("RGB", (64, 32), (255, 255, 255))
    page.paste((0, 0, 0), (0, 0, 16, 16))  # dark block at the top left
    page.save(src / "p.jpg", quality=95)
    Image.new("RGBA", (8, 8), (0, 0, 0, 0)).save(src / "t.png")
    Image.new("LA", (8, 8)).save(src / "la.png")
    m = write_manifest(
        src / "manifest.csv",
        TRUTH + ["capture"],
        [("p.jpg", "1", "1", "x", "photo"), ("t.png", "1", "0", "y", "scan"), ("la.png", "1", "0", "y", "scan")],
    )
    entries = scoring.real_entries(m, str(tmp_path / "out"))
    jpegs = [e for e in entries if e["source_file"] == "p.jpg"]
    for e in jpegs:
        with Image.open(e["path"]) as im:
            assert im.format == "JPEG" and 0x0112 not in im.getexif()
            assert im.size == ((64, 32) if e["truth"] in (1, 2, 3, 4) else (32, 64))
            g = im.convert("L")
            # the corner the dark block is stored in must display at the top left
            w, h = g.size
            dark = min(
                ((cx, cy) for cx in (0, 1) for cy in (0, 1)),
                key=lambda c: g.getpixel((4 + c[0] * (w - 9), 4 + c[1] * (h - 9))),
            )
            stored = [[0, 0], [0, 0]]
            stored[dark[1]][dark[0]] = 1
            upright = peers._apply(e["truth"], tuple(tuple(r) for r in stored))
            assert upright[0][0] == 1, e["truth"]
    assert {e["decidable"] for e in entries if e["source_file"] != "p.jpg"} == {False}
    for e in entries:
        if e["source_file"] != "p.jpg":
            with Image.open(e["path"]) as im:
                assert im.format == "PNG"


# ---------------------------------------------------------------------------
# HEIC twins (Corpus/generate.py --heic): docorient reads the HEIC, the others its JPEG twin
# ---------------------------------------------------------------------------

import json
import shutil
import subprocess
import sys


def test_twin_summary_compares_each_heic_answer_with_its_jpegs():
    h1 = {**rec(path="a.heic", answer=6, truth=6, confidence=0.97, seconds=2.0), "file": "a.heic", "twin": "a.jpg"}
    j1 = {**rec(path="a.jpg", answer=6, truth=6, confidence=0.95, seconds=1.0), "file": "a.jpg"}
    h2 = {**rec(path="b.heic", answer=None, truth=3, seconds=4.0), "file": "b.heic", "twin": "b.jpg"}
    j2 = {**rec(path="b.jpg", answer=3, truth=3, confidence=0.6, seconds=3.0), "file": "b.jpg"}
    lone = {**rec(path="c.heic"), "file": "c.heic", "twin": "c.jpg"}  # twin not in the run
    pairs = scoring.twin_pairs([h1, j1, h2, j2, lone])
    assert [(h["file"], j["file"]) for h, j in pairs] == [("a.heic", "a.jpg"), ("b.heic", "b.jpg")]
    s = scoring.twin_summary(pairs)
    assert (s["pairs"], s["same_answer"], s["right_heic"], s["right_jpeg"]) == (2, 1, 1, 2)
    assert s["max_conf_diff"] == pytest.approx(0.02)
    assert (s["median_heic"], s["median_jpeg"], s["total_heic"], s["total_jpeg"]) == (3.0, 2.0, 6.0, 4.0)
    assert [h["file"] for h, _ in s["differ"]] == ["b.heic"]
    assert "b.heic" in report.twin_table(pairs)


@pytest.mark.skipif(shutil.which("heif-enc") is None, reason="libheif-examples not installed")
def test_a_generated_set_with_heic_twins_gives_the_other_peers_the_jpeg_and_docorient_the_heic(docorient, tmp_path):
    # two small pages (about 1 s each to make): a sign and a one-line strip, mild camera
    specs = [
        output.Spec(0, "sign", 6, "wrong", 31, long_side=640, wrong_tag=1, family="DejaVu Sans", heic=True, mild=True),
        output.Spec(1, "oneline", 1, "absent", 32, long_side=640, family="DejaVu Sans", heic=True, mild=True),
    ]
    output.generate(specs, str(tmp_path / "set"), jobs=1)
    manifest = str(tmp_path / "set" / "manifest.csv")
    entries = {e["file"]: e for e in scoring.generated_entries(manifest)}
    assert sorted(entries) == ["0000_sign.heic", "0000_sign.jpg", "0001_oneline.heic", "0001_oneline.jpg"]
    h = entries["0000_sign.heic"]
    assert (h["format"], h["twin"], h["truth"], h["exif_orientation"]) == ("heic", "0000_sign.jpg", 6, 1)
    assert peers.peer_path(h, "osd-inprocess") == entries["0000_sign.jpg"]["path"]
    assert peers.peer_path(h, "docorient") == h["path"]
    names = ["osd-inprocess", "docorient"]
    jsonl, md = tmp_path / "b.jsonl", tmp_path / "b.md"
    argv = ["--manifest", manifest, "--peers", ",".join(names), "--jsonl", str(jsonl), "--markdown", str(md)]
    argv += ["--docorient", docorient]
    assert bench.main(argv) == 0
    recs = {(r["peer"], r["file"]): r for r in map(json.loads, open(jsonl))}
    assert len(recs) == 4 * len(names)
    for name in ("0000_sign", "0001_oneline"):
        osd_h, osd_j = recs[("osd-inprocess", name + ".heic")], recs[("osd-inprocess", name + ".jpg")]
        assert osd_h["read_twin"] and "read_twin" not in osd_j
        assert osd_h.get("note") not in ("unreadable", "missing")
        assert (osd_h["answer"], osd_h["seconds"]) == (osd_j["answer"], osd_j["seconds"])  # the one reading
        assert osd_h["format"] == "heic" and osd_h["truth"] == osd_j["truth"]
    text = md.read_text()
    assert "by format" in text
    for name in ("0000_sign", "0001_oneline"):
        d_h, d_j = recs[("docorient", name + ".heic")], recs[("docorient", name + ".jpg")]
        assert "read_twin" not in d_h and d_h.get("note") != "missing" and d_h.get("verdict")
        assert d_h["answer"] == d_j["answer"], name  # the same stored pixels
    assert "docorient on HEIC twins vs the same captures as JPEG" in text


def test_the_paper_finder_measure_tells_a_box_on_the_sheet_from_one_beside_it():
    import paper_finder

    quad = [(100, 100), (300, 110), (290, 400), (90, 390)]
    on = paper_finder.overlap(quad, (80, 90, 240, 330), 400, 500)
    assert on[0] > 0.98 and on[1] > 0.7
    beside = paper_finder.overlap(quad, (300, 0, 100, 500), 400, 500)
    assert beside[0] < 0.05 and beside[1] < 0.05
    half = paper_finder.overlap(quad, (80, 90, 240, 160), 400, 500)
    assert 0.4 < half[0] < 0.6


def test_the_worker_process_imports_only_the_peers_module():
    # A worker's peak memory is what bench.py reports for an in-process peer: the scoring, the
    # tables and what they import (PIL, corpusgen) stay out of that process.
    here = os.path.dirname(os.path.abspath(__file__))
    code = "import sys, peers; print(' '.join(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": here}
    loaded = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    modules = set(loaded.stdout.split())
    assert "peers" in modules
    assert not modules & {"bench", "scoring", "report", "corpusgen", "PIL", "numpy"}


def test_the_floor_peer_times_docorient_before_any_text_is_read(docorient, tmp_path):
    specs = [output.Spec(0, "letter", 6, "wrong", 41, long_side=900, wrong_tag=1, family="DejaVu Sans", mild=True)]
    output.generate(specs, str(tmp_path / "set"), jobs=1)
    jsonl, md = tmp_path / "b.jsonl", tmp_path / "b.md"
    argv = ["--manifest", str(tmp_path / "set" / "manifest.csv"), "--peers", "docorient-floor,docorient"]
    argv += ["--jsonl", str(jsonl), "--markdown", str(md), "--docorient", docorient]
    assert bench.main(argv) == 0
    recs = {r["peer"]: r for r in map(json.loads, open(jsonl))}
    # the product reads the letter's text; the floor spends its budget before the first read
    assert recs["docorient"]["decided_by"] == "text" and recs["docorient"]["correct"]
    assert recs["docorient-floor"].get("decided_by") != "text"
    assert "work budget spent (work: 0 reads" in recs["docorient-floor"]["reason"]
    assert recs["docorient-floor"]["seconds"] is not None
    assert "| docorient-floor |" in md.read_text()


TRAIN = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))), "shared", "train"
)


def test_the_training_photos_part_is_the_fold_train_py_holds_aside_named_as_replay_fit_reads_it(tmp_path):
    if not os.path.isdir(TRAIN):
        message = f"{TRAIN} not found (the training photos live in shared/ beside the checkout)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message} (CI=true: the suite must run it)")
        pytest.skip(message)
    train = scoring.train_module()
    with open(os.path.join(TRAIN, "manifest.csv"), newline="") as fh:
        rows = list(csv.DictReader(fh))
    # Three photos of each set held aside and three trained on, in a manifest of their own.
    chosen = []
    for kind in ("docs", "nothing"):
        for held in (True, False):
            chosen += [r for r in rows if r["set"] == kind and train.in_validation_fold(r["file"]) == held][:3]
    for folder in ("docs", "nothing"):
        (tmp_path / folder).symlink_to(os.path.join(TRAIN, folder))
    manifest = tmp_path / "manifest.csv"
    write_manifest(manifest, list(rows[0]), chosen)

    entries = scoring.train_entries(str(manifest), str(tmp_path / "variants"))
    held_aside = {r["file"]: r["set"] for r in chosen if train.in_validation_fold(r["file"])}
    assert {e["source_file"] for e in entries} == set(held_aside)
    for e in entries:
        page = held_aside[e["source_file"]] == "docs"
        stem = os.path.splitext(e["source_file"])[0].replace("/", "__")
        assert e["part"] == "train" and e["decidable"] == page
        # What `docorient-lab replay fit --train-manifest` matches: FOLDER__NAME.uT.EXT, T the truth.
        assert os.path.basename(e["path"]) == f"{stem}.u{e['truth']}.jpg" and os.path.exists(e["path"])
    for source, kind in held_aside.items():
        truths = sorted(e["truth"] for e in entries if e["source_file"] == source)
        assert truths == (sorted(scoring.real_orientations(source)) if kind == "docs" else [1, 3])


def test_the_reader_of_an_answer_tells_the_trusted_classifier_from_the_classifier_after_reading():
    assert report.reader_of({"decided_by": "classifier", "candidates_read": 0}) == "classifier, nothing read"
    assert report.reader_of({"decided_by": "classifier", "candidates_read": 3}) == "classifier after reading"
    assert report.reader_of({"decided_by": "text", "candidates_read": 4}) == "text"
    assert report.reader_of({"decided_by": "both", "candidates_read": 6}) == "both"
    assert report.reader_of({"decided_by": None}) == "undecided"

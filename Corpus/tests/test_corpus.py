"""Checks of the corpus generator and the committed samples.

Run: python3 -m pytest -q Corpus/tests
"""

import csv
import filecmp
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

CORPUS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(CORPUS, "samples")
sys.path.insert(0, CORPUS)

import generate  # noqa: E402

REQUIRED_COLUMNS = ["file", "upright_orientation", "decidable", "exif_orientation", "kind", "degradations"]


def read_manifest(directory):
    with open(os.path.join(directory, "manifest.csv"), newline="") as fh:
        return list(csv.DictReader(fh))


def exiftool_orientations(paths):
    """`exiftool -n -Orientation` per file; '' when the file has no tag."""
    out = subprocess.run(["exiftool", "-n", "-T", "-FileName", "-Orientation", *paths],
                         capture_output=True, text=True, check=True).stdout
    result = {}
    for line in out.splitlines():
        name, value = line.split("\t")
        result[name] = "" if value == "-" else value
    return result


def same_tree(a, b):
    names_a, names_b = sorted(os.listdir(a)), sorted(os.listdir(b))
    assert names_a == names_b
    _, mismatch, errors = filecmp.cmpfiles(a, b, names_a, shallow=False)
    assert mismatch == [] and errors == [], f"differing files: {mismatch + errors}"


def test_same_seed_gives_identical_files_and_manifest(tmp_path):
    specs = generate.bench_plan(seed=7, count=6)
    # keep the test quick: the plan is the real one, only the frames are capped
    for s in specs:
        s.long_side = 1280
    a, b = tmp_path / "a", tmp_path / "b"
    generate.generate(specs, str(a), jobs=1)
    generate.generate(specs, str(b), jobs=2)   # worker count must not matter
    same_tree(a, b)
    assert len(read_manifest(a)) == 6


def test_different_seeds_differ(tmp_path):
    a = generate.bench_plan(seed=1, count=20)
    b = generate.bench_plan(seed=2, count=20)
    assert [(s.kind, s.upright, s.tag_mode, s.seed) for s in a] != [(s.kind, s.upright, s.tag_mode, s.seed) for s in b]


def test_manifest_has_the_columns_later_tooling_relies_on():
    with open(os.path.join(SAMPLES, "manifest.csv"), newline="") as fh:
        header = next(csv.reader(fh))
    assert header[: len(REQUIRED_COLUMNS)] == REQUIRED_COLUMNS


def test_exiftool_reads_the_manifest_orientation_from_every_sample():
    rows = read_manifest(SAMPLES)
    seen = exiftool_orientations([os.path.join(SAMPLES, r["file"]) for r in rows])
    for r in rows:
        assert seen[r["file"]] == r["exif_orientation"], r["file"]


def test_samples_cover_every_case():
    rows = read_manifest(SAMPLES)
    assert {int(r["upright_orientation"]) for r in rows} == set(range(1, 9))
    decidable = [r for r in rows if r["decidable"] == "1"]
    assert {int(r["upright_orientation"]) for r in decidable} == set(range(1, 9))
    modes = {r["degradations"].rsplit("tag:", 1)[1] for r in rows}
    assert modes == {"right", "wrong", "absent", "png"}
    assert any(r["exif_orientation"] == r["upright_orientation"] for r in rows)
    assert any(r["exif_orientation"] not in ("", r["upright_orientation"]) for r in rows)
    assert any(r["file"].endswith(".png") and r["decidable"] == "1" for r in rows)
    assert {r["kind"] for r in rows if r["decidable"] == "0"} == {"blank", "photo", "twowords", "barcode"}
    assert any(max(int(r["width"]), int(r["height"])) >= 3000 for r in rows if r["file"].endswith(".jpg"))
    total = sum(os.path.getsize(os.path.join(SAMPLES, r["file"])) for r in rows)
    assert total < 5 * 1024 * 1024


def test_manifest_sizes_match_the_stored_pixels():
    for r in read_manifest(SAMPLES):
        with Image.open(os.path.join(SAMPLES, r["file"])) as im:
            assert im.size == (int(r["width"]), int(r["height"])), r["file"]


@pytest.mark.skipif(shutil.which("convert") is None, reason="ImageMagick not installed")
def test_imagemagick_auto_orient_shows_the_upright_page_when_the_tag_is_right(tmp_path):
    rows = [r for r in read_manifest(SAMPLES) if r["exif_orientation"] == r["upright_orientation"]]
    assert rows
    for r in rows:
        path = os.path.join(SAMPLES, r["file"])
        out = tmp_path / (r["file"] + ".png")
        subprocess.run(["convert", path, "-auto-orient", str(out)], check=True)
        with Image.open(path) as stored:
            ours = np.asarray(generate.display(stored, int(r["upright_orientation"])).convert("L"), np.float32)
        theirs = np.asarray(Image.open(out).convert("L"), np.float32)
        assert theirs.shape == ours.shape, r["file"]
        assert np.abs(theirs - ours).mean() < 2.0, r["file"]


def test_regenerating_the_samples_profile_reproduces_the_committed_bytes(tmp_path):
    generate.generate(generate.samples_plan(), str(tmp_path), jobs=2)
    same_tree(SAMPLES, tmp_path)

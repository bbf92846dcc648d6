"""Checks of the real document set (`../shared/real`, beside the checkout) against its manifest.

The benchmark turns each file into its rotations and trusts that the stored pixels are upright, so a
file carrying an EXIF orientation, a file the manifest does not list, or a row without a licence makes
every figure measured on the set wrong or the set unfit to judge by. No network is needed. Where
`../shared` is not beside the clone these tests skip, saying so (in CI they fail).

Run: python3 -m pytest -q Corpus/tests/test_real.py
"""

import csv
import hashlib
import os
import re

import pytest
from PIL import Image

from corpusgen.shared import REAL, REAL_COLUMNS, require

CORPUS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KINDS = {
    "receipt",
    "book",
    "letter",
    "form",
    "table",
    "sign",
    "poster",
    "label",
    "handwriting",
    "typewriter",
    "newspaper",
    "map",
    "slide",
    "menu",
    "screenshot",
    "other",
}
# An independent check of the project uses these sources' images; the real set must not share any.
FORBIDDEN_SOURCES = {
    "ocrmypdf/ocrmypdf",
    "jbarlow83/ocrmypdf",
    "scikit-image/scikit-image",
    "sirfz/tesserocr",
    "mzucker/page_dewarp",
}
MAX_SIDE = 1600
MIN_ROWS = 60
EXIF_ORIENTATION = 0x0112


def read_rows():
    if not os.path.exists(REAL):
        return []
    with open(os.path.join(REAL, "manifest.csv"), newline="") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == REAL_COLUMNS
        return list(reader)


ROWS = read_rows()
IMAGE_FILES = sorted(f for f in os.listdir(REAL) if f.lower().endswith((".jpg", ".jpeg", ".png"))) if ROWS else []


@pytest.fixture(autouse=True)
def real_set_here(request):
    if request.node.name != "test_the_real_set_is_not_in_the_tree":
        require(REAL)


def test_the_real_set_is_not_in_the_tree():
    assert not os.path.exists(os.path.join(CORPUS, "real")), "the real set lives in ../shared/real only"


def test_the_set_has_enough_rows_and_every_row_is_a_file_of_the_set():
    assert len(ROWS) >= MIN_ROWS
    listed = [row["file"] for row in ROWS]
    assert len(set(listed)) == len(listed), "a file is listed twice"
    assert sorted(listed) == IMAGE_FILES, "manifest and folder disagree"


def test_every_line_splits_on_plain_commas():
    # Tests/DocOrientTests reads manifests by splitting lines on "," and skips a row whose field count
    # differs from the header's, so a quoted field with a comma would silently drop that file.
    with open(os.path.join(REAL, "manifest.csv")) as fh:
        for line in fh.read().splitlines():
            assert len(line.split(",")) == len(REAL_COLUMNS), line


def test_rows_are_sorted_and_named_number_kind_short():
    listed = [row["file"] for row in ROWS]
    assert listed == sorted(listed)
    for number, row in enumerate(ROWS, 1):
        match = re.fullmatch(r"(\d{3})_([a-z]+)_[a-z0-9_]+\.(jpg|png)", row["file"])
        assert match, row["file"]
        assert int(match.group(1)) == number, row["file"]
        assert match.group(2) == row["kind"], row["file"]


@pytest.mark.parametrize("row", ROWS, ids=[row["file"] for row in ROWS])
def test_row_fields_are_valid_and_licensed(row):
    assert row["upright_orientation"] == "1", "files are stored upright; the benchmark makes the rotations"
    assert row["decidable"] in {"0", "1"}
    assert row["kind"] in KINDS
    assert row["capture"] in {"photo", "scan"}
    assert row["language"].strip()
    for column in ("source", "commit", "path", "licence"):
        assert row[column].strip(), f"{column} is empty"
    assert row["source"].lower() not in FORBIDDEN_SOURCES


@pytest.mark.parametrize("name", IMAGE_FILES)
def test_file_is_stored_upright_without_metadata_and_small(name):
    path = os.path.join(REAL, name)
    with Image.open(path) as image:
        assert image.format == ("PNG" if name.endswith(".png") else "JPEG")
        assert EXIF_ORIENTATION not in image.getexif(), "an EXIF orientation would turn the stored pixels"
        assert "exif" not in image.info and "xmp" not in image.info and "icc_profile" not in image.info
        if image.format == "PNG":
            assert not image.text, "PNG text chunks must be stripped"
        assert max(image.size) <= MAX_SIDE
        image.load()  # the whole file decodes, not only its header


def test_the_set_holds_no_duplicates():
    digests = {}
    for name in IMAGE_FILES:
        with open(os.path.join(REAL, name), "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        assert digest not in digests, f"{name} duplicates {digests.get(digest)}"
        digests[digest] = name


def test_every_source_has_its_licence_text_alongside():
    licence_files = os.listdir(os.path.join(REAL, "LICENSES"))
    for source in sorted({row["source"] for row in ROWS}):
        slug = source.replace("/", "+").replace(":", "-")
        assert any(name.startswith(slug + "--") for name in licence_files), f"no licence text for {source}"

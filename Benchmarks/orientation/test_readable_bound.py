"""Checks of readable_bound.py on a sheet of print it renders: read upright, and not read the
wrong way up.

Run: python3 -m pytest -q Benchmarks/orientation
"""

import readable_bound
from PIL import Image, ImageDraw, ImageFont

from corpusgen.orientation import store_for_upright

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def sheet_on_table(tmp_path, stored_as):
    """A white sheet of three printed lines on a grey table, stored so that EXIF orientation
    `stored_as` shows it upright; the path and the sheet's corners in stored pixels."""
    upright = Image.new("L", (900, 700), 90)
    draw = ImageDraw.Draw(upright)
    draw.rectangle((100, 100, 800, 600), fill=245)
    font = ImageFont.truetype(FONT, 36)
    for i, line in enumerate(["Please return the signed form", "before the end of March", "to the front office"]):
        draw.text((140, 160 + 120 * i), line, fill=20, font=font)
    stored = store_for_upright(upright, stored_as)
    path = tmp_path / "sheet.png"
    stored.save(path)
    # The sheet's corners, upright, carried to the stored pixels by the inverse display.
    box = Image.new("L", upright.size, 0)
    ImageDraw.Draw(box).rectangle((100, 100, 800, 600), fill=255)
    x0, y0, x1, y1 = store_for_upright(box, stored_as).getbbox()
    return str(path), f"{x0} {y0} {x1} {y0} {x1} {y1} {x0} {y1}"


def test_a_sheet_shown_upright_reads_its_words(tmp_path):
    path, paper = sheet_on_table(tmp_path, 6)
    words, _, _ = readable_bound.best_read(path, {"upright_orientation": "6", "paper": paper})
    assert len(words) >= readable_bound.MIN_WORDS, words
    assert "signed" in words


def test_the_same_sheet_shown_the_wrong_way_up_reads_fewer(tmp_path):
    path, paper = sheet_on_table(tmp_path, 6)
    right, _, _ = readable_bound.best_read(path, {"upright_orientation": "6", "paper": paper})
    wrong, _, _ = readable_bound.best_read(path, {"upright_orientation": "8", "paper": paper})
    assert len(wrong) < len(right), (wrong, right)


def test_the_sheet_is_the_paper_corners_bounding_box_else_the_frame():
    image = Image.new("L", (400, 300), 0)
    assert readable_bound.sheet(image, "10 20 110 25 105 220 12 215").size == (100, 200)
    assert readable_bound.sheet(image, "").size == (400, 300)

"""`docorient fix` on scanned PDFs made in the test from Corpus/samples: each page decided, the
turned ones shown upright by a new /Rotate, every stream byte-identical, `qpdf --check` clean,
and `docorient undo` giving the original bytes back.

Run: python3 -m pytest -q Tests/PDF   (needs a built docorient, qpdf, poppler-utils, pikepdf, img2pdf)
"""

import json
import os
import shutil
import subprocess

import pytest

from corpusgen import built, pdfs

# A module-wide docorient, for the helpers below that run it (the tests' `docorient` fixture finds
# it the same way).
BIN = built.docorient("debug", "release")
pytestmark = pytest.mark.skipif(not built.is_built(BIN), reason="docorient is not built (swift build)")


def docorient(*args, cwd=None):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def records(result):
    return [json.loads(line) for line in result.stdout.splitlines() if line.strip()]


# Page by page: what it is made from, and the orientation it shows before the fix.
INVOICE = pdfs.sample("0007_invoice.jpg")  # no EXIF tag; upright as 8
FORM = pdfs.sample("0005_form.jpg")  # EXIF 6, right: img2pdf writes /Rotate 90
LETTER = pdfs.sample("0003_letter.jpg")  # EXIF 6, wrong; upright as 8


@pytest.fixture(scope="module")
def scan(tmp_path_factory):
    """Five pages: an invoice shown sideways (/Rotate 0), a form img2pdf already turned right
    (/Rotate 90), the invoice placed sideways by its cm matrix, a letter as Flate grey samples
    shown upside down by /Rotate 90, and a born-digital text page."""
    folder = tmp_path_factory.mktemp("scan")
    data = pdfs.combined(
        pdfs.image_pdf(INVOICE),
        pdfs.image_pdf(FORM),
        pdfs.placed_sideways(pdfs.image_pdf(INVOICE)),
        pdfs.with_rotate(pdfs.gray_flate_pdf(LETTER), 90),
        pdfs.text_pdf(),
    )
    path = folder / "scan.pdf"
    path.write_bytes(data)
    return path


PAGE_IMAGES = [INVOICE, FORM, INVOICE, LETTER, None]


def test_the_orientation_each_page_is_shown_in_is_what_poppler_renders(scan):
    result = docorient("fix", "--dry-run", "--json", str(scan))
    assert result.returncode == 0, result.stderr
    pages = records(result)
    assert [r["page"] for r in pages] == [1, 2, 3, 4, 5]
    for record, image in zip(pages, PAGE_IMAGES):
        if image is None:
            continue
        assert record["exif_orientation"] == pdfs.shown_orientation(str(scan), record["page"], image), record


def test_fixing_shows_every_decided_page_upright_and_changes_only_rotate(scan, tmp_path):
    path = tmp_path / "scan.pdf"
    shutil.copyfile(scan, path)
    before_streams = pdfs.stream_digests(str(path))
    before_pages = pdfs.page_streams(str(path))
    before_keys = pdfs.page_keys(str(path))

    result = docorient("fix", "--json", str(path))
    assert result.returncode == 0, result.stderr
    pages = records(result)
    assert [r["page"] for r in pages] == [1, 2, 3, 4, 5]
    assert all(r["path"] == str(path) for r in pages)

    # The invoice, the form and the letter are decided; the text page is left alone.
    assert [r["detected_orientation"] is not None for r in pages[:4]] == [True] * 4, pages
    assert pages[1]["verdict"] == "agrees" and pages[1]["action"] == "none"
    assert pages[0]["action"] == "tag_rewritten" and pages[2]["action"] == "tag_rewritten"
    assert pages[3]["action"] == "tag_rewritten"
    assert pages[4]["verdict"] == "undecidable" and "no image" in pages[4]["reason"]
    for record, image in zip(pages, PAGE_IMAGES):
        if image is not None:
            shown = pdfs.shown_orientation(str(path), record["page"], image)
            assert shown == pdfs.upright(os.path.basename(image)), record

    rc, out = pdfs.qpdf_check(str(path))
    assert rc == 0, out
    assert pdfs.stream_digests(str(path)) == before_streams
    assert pdfs.page_streams(str(path)) == before_pages
    after_keys = pdfs.page_keys(str(path))
    assert [k for k, _ in after_keys] == [k for k, _ in before_keys]
    assert [r for _, r in after_keys] != [r for _, r in before_keys]
    assert all(r % 90 == 0 and 0 <= r < 360 for _, r in after_keys)

    # A second run finds every page upright and writes nothing.
    again = docorient("fix", "--json", str(path))
    assert again.returncode == 0, again.stderr
    assert all(r["action"] == "none" for r in records(again))


def test_an_inherited_rotate_is_read_and_the_page_gets_its_own(tmp_path):
    path = tmp_path / "inherited.pdf"
    path.write_bytes(pdfs.with_rotate(pdfs.image_pdf(INVOICE), 180, inherited=True))
    assert pdfs.shown_orientation(str(path), 1, INVOICE) == 3
    result = docorient("fix", "--json", str(path))
    assert result.returncode == 0, result.stderr
    (page,) = records(result)
    assert page["exif_orientation"] == 3 and page["action"] == "tag_rewritten"
    assert pdfs.shown_orientation(str(path), 1, INVOICE) == pdfs.upright("0007_invoice.jpg")
    assert pdfs.qpdf_check(str(path))[0] == 0


def test_a_group_4_fax_coded_page_is_decoded_and_turned(tmp_path):
    path = tmp_path / "bilevel.pdf"
    path.write_bytes(pdfs.g4_pdf(INVOICE))  # img2pdf writes this one linearized
    before = pdfs.page_streams(str(path))
    result = docorient("fix", "--json", str(path))
    assert result.returncode == 0, result.stderr
    (page,) = records(result)
    assert page["decided_by"] == "text" and page["action"] == "tag_rewritten", page
    assert pdfs.shown_orientation(str(path), 1, INVOICE) == pdfs.upright("0007_invoice.jpg")
    rc, out = pdfs.qpdf_check(str(path))
    assert rc == 0 and "File is linearized" in out, out
    assert pdfs.page_streams(str(path)) == before


# Mirrored pages: the placement's mirror, then /Rotate, showing each of the four mirrored
# orientations (each case checks by rendering that it shows what it says). Some sit in a crop box
# away from the origin, inside a larger media box (the mirror must be about the crop box's
# centre); one draws from two content streams.
MIRRORED = [
    ("left-right", 0, {}, 2),
    ("top-bottom", 0, {"origin": (-50, 30)}, 4),
    ("left-right", 90, {"split": True}, 7),
    ("left-right", 270, {"origin": (100, 200), "margin": (40, 30, 400, 300)}, 5),
    ("top-bottom", 180, {"origin": (100, 200), "margin": (40, 30, 400, 300)}, 2),
]


@pytest.mark.parametrize("mirror,rotate,layout,shown", MIRRORED)
def test_a_mirrored_page_is_drawn_mirrored_back_around_its_own_streams_and_undo_restores_it(
    tmp_path, mirror, rotate, layout, shown
):
    folder = tmp_path / "scans"
    folder.mkdir()
    path = folder / "mirrored.pdf"
    path.write_bytes(pdfs.placed_mirrored(pdfs.image_pdf(INVOICE), mirror, rotate, **layout))
    digest = pdfs.sha(str(path))
    assert pdfs.shown_orientation(str(path), 1, INVOICE) == shown
    (before_contents, before_xobjects) = pdfs.page_streams(str(path))[0]
    before_streams = pdfs.stream_digests(str(path))

    result = docorient("fix", "--json", str(folder))  # a folder: journalled, for undo
    assert result.returncode == 0, result.stderr
    (page,) = [r for r in records(result) if r.get("page")]
    assert page["exif_orientation"] == shown and page["action"] == "tag_rewritten", page
    assert "drawn mirrored" in page["reason"], page
    assert pdfs.shown_orientation(str(path), 1, INVOICE) == pdfs.upright("0007_invoice.jpg")
    # Not only the nearest of the eight: the crop box shows the whole image, where it was (a mirror
    # about the media box's centre instead differs by 75 to 150 here).
    assert pdfs.difference(str(path), 1, INVOICE, pdfs.upright("0007_invoice.jpg")) < 10
    rc, out = pdfs.qpdf_check(str(path))
    assert rc == 0, out
    # The page's own streams and its image, byte for byte, between the two new ones.
    (contents, xobjects) = pdfs.page_streams(str(path))[0]
    assert contents[1:-1] == before_contents and xobjects == before_xobjects
    assert contents[0].startswith(b"q ") and contents[0].rstrip().endswith(b" cm") and contents[-1].strip() == b"Q"
    after_streams = pdfs.stream_digests(str(path))
    for d in before_streams:
        assert d in after_streams
    assert len(after_streams) == len(before_streams) + 2

    again = docorient("fix", "--dry-run", "--json", str(path))
    assert again.returncode == 0, again.stderr
    assert records(again)[0]["verdict"] == "agrees" and records(again)[0]["action"] == "none"

    undone = docorient("undo", str(folder))
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert pdfs.sha(str(path)) == digest


@pytest.mark.parametrize(
    "build,reason",
    [
        (lambda d: pdfs.placed_mirrored(d, annotated=True), "annotation(s) would not be mirrored"),
        (lambda d: pdfs.with_contents(pdfs.placed_mirrored(d), b"q -{w} 0 0 {h} {w} 0 cm /Im0 Do Q Q"), "did not save"),
    ],
)
def test_a_mirrored_page_a_wrapper_cannot_mirror_whole_is_left_alone_with_the_reason(tmp_path, build, reason):
    path = tmp_path / "mirrored.pdf"
    path.write_bytes(build(pdfs.image_pdf(INVOICE)))
    digest = pdfs.sha(str(path))
    assert pdfs.shown_orientation(str(path), 1, INVOICE) == 2
    result = docorient("fix", "--json", str(path))
    assert result.returncode == 0, result.stderr
    (page,) = records(result)
    assert page["exif_orientation"] == 2 and page["verdict"] == "undecidable", page
    assert reason in page["reason"] and "left alone" in page["reason"], page
    assert pdfs.sha(str(path)) == digest


def test_dry_run_and_output_folder_leave_the_pdf_as_it_was(scan, tmp_path):
    path = tmp_path / "scan.pdf"
    shutil.copyfile(scan, path)
    digest = pdfs.sha(str(path))
    dry = docorient("fix", "--dry-run", "--json", str(path))
    assert dry.returncode == 0, dry.stderr
    assert records(dry)[0]["action"] == "would_rewrite_tag"
    assert pdfs.sha(str(path)) == digest

    out = tmp_path / "upright"
    out.mkdir()
    copy = docorient("fix", "--output", str(out), str(path))
    assert copy.returncode == 0, copy.stderr
    assert pdfs.sha(str(path)) == digest
    assert pdfs.qpdf_check(str(out / "scan.pdf"))[0] == 0
    assert pdfs.shown_orientation(str(out / "scan.pdf"), 1, INVOICE) == pdfs.upright("0007_invoice.jpg")


def test_the_review_page_shows_each_page_read_before_and_after_from_the_image_docorient_decoded(scan, tmp_path):
    """`report --html` after a batch: the PDF's row holds, for each page with an image, a preview
    before and after; each looks like the page's image shown as the page showed it before the fix
    and upright after. The text page has none."""
    import base64
    import io
    import re

    from PIL import Image

    folder = tmp_path / "scans"
    folder.mkdir()
    path = folder / "scan.pdf"
    shutil.copyfile(scan, path)
    shown_before = {
        page: pdfs.shown_orientation(str(path), page, image) for page, image in enumerate(PAGE_IMAGES, 1) if image
    }
    fixed = docorient("fix", str(folder))
    assert fixed.returncode == 0, fixed.stderr
    review = tmp_path / "review.html"
    report = docorient("report", "--html", str(review), str(folder))
    assert report.returncode == 0, report.stderr
    html = review.read_text()
    assert html.count('<tr class="row ') == 1 and 'data-group="changed"' in html
    figures = re.findall(
        r'<figure class=page data-page="(\d+)"><img alt="(before|after)" src="data:image/jpeg;base64,([^"]+)">', html
    )
    assert sorted({int(page) for page, _, _ in figures}) == [1, 2, 3, 4]
    assert len(figures) == 8
    for page, which, data in figures:
        image = PAGE_IMAGES[int(page) - 1]
        preview = Image.open(io.BytesIO(base64.b64decode(data)))
        expected = shown_before[int(page)] if which == "before" else pdfs.upright(os.path.basename(image))
        assert pdfs.orientation_of(preview, image) == expected, (page, which)
        assert pdfs.image_difference(preview, image, expected) < 20, (page, which)


def test_undo_gives_back_the_original_bytes_of_a_fixed_pdf(scan, tmp_path):
    folder = tmp_path / "scans"
    folder.mkdir()
    path = folder / "scan.pdf"
    shutil.copyfile(scan, path)
    digest = pdfs.sha(str(path))
    fixed = docorient("fix", str(folder))
    assert fixed.returncode == 0, fixed.stderr
    assert pdfs.sha(str(path)) != digest
    undone = docorient("undo", str(folder))
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert pdfs.sha(str(path)) == digest


def test_a_batch_killed_half_way_over_pdfs_resumes_without_redoing_or_damaging_a_page(tmp_path):
    """Twelve sideways scans in a folder; the batch is SIGKILLed once the journal holds two of them,
    then run again: every PDF ends upright and `qpdf --check` clean, and the files the first run
    finished are neither rewritten nor counted again. Twelve, not six: on a loaded machine the
    poll below can be held off long enough for six quick files to finish before it looks."""
    import signal
    import sqlite3
    import time

    folder = tmp_path / "scans"
    folder.mkdir()
    files = 12
    for i in range(files):
        (folder / f"scan-{i}.pdf").write_bytes(pdfs.with_rotate(pdfs.image_pdf(INVOICE), (90 * i) % 360))
    journal = folder / ".docorient.sqlite"
    first = subprocess.Popen(
        [BIN, "fix", "--jobs", "1", "--quiet", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    done = []
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and first.poll() is None:
        if journal.exists():
            try:
                with sqlite3.connect(f"file:{journal}?mode=ro", uri=True) as db:
                    done = [row[0] for row in db.execute("SELECT path FROM file")]
            except sqlite3.Error:
                done = []
            if len(done) >= 2:
                break
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)
    first.wait()
    assert 2 <= len(done) < files, done
    finished = {p: pdfs.sha(p) for p in done}
    for path in folder.glob("*.pdf"):
        assert pdfs.qpdf_check(str(path))[0] == 0  # original or completely fixed, never half-written

    second = docorient("fix", "--jobs", "1", str(folder))
    assert second.returncode == 0, second.stderr
    assert "already handled" in second.stderr
    for p, digest in finished.items():
        assert pdfs.sha(p) == digest  # not redone
    for path in sorted(folder.glob("*.pdf")):
        assert pdfs.qpdf_check(str(path))[0] == 0
        assert pdfs.shown_orientation(str(path), 1, INVOICE) == pdfs.upright("0007_invoice.jpg"), path

"""Packaging/paperless/docorient-pre-consume run the way paperless-ngx runs a pre-consume script:
executed with no arguments, DOCUMENT_WORKING_PATH naming its working copy (DOCUMENT_SOURCE_PATH
the original), on copies. It fixes what docorient decides, leaves the rest byte-identical, and
always exits 0, saying what happened on stdout (paperless's log).

Run: python3 -m pytest -q Tests/Paperless   (needs a built docorient, pikepdf, img2pdf, poppler-utils)
"""

import os
import shutil
import subprocess

import pikepdf
import pytest

from corpusgen import built, pdfs

# A module-wide docorient, for the helpers below that run it (the tests' `docorient` fixture finds
# it the same way).
BIN = built.docorient("debug", "release")
SCRIPT = os.path.join(pdfs.ROOT, "Packaging", "paperless", "docorient-pre-consume")
pytestmark = pytest.mark.skipif(not built.is_built(BIN), reason="docorient is not built (swift build)")
INVOICE = pdfs.sample("0007_invoice.jpg")


def consume(tmp_path, name, data, **env):
    """Puts `data` in a consumption folder, copies it to paperless's scratch folder, runs the
    script on the copy as paperless does, and returns (result, original path, working path)."""
    source = tmp_path / "consume" / name
    working = tmp_path / "scratch" / name
    source.parent.mkdir(exist_ok=True)
    working.parent.mkdir(exist_ok=True)
    source.write_bytes(data)
    shutil.copyfile(source, working)
    environment = {
        "PATH": os.path.dirname(BIN) + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),
        "DOCUMENT_SOURCE_PATH": str(source),
        "DOCUMENT_WORKING_PATH": str(working),
        "TASK_ID": "test",
        **env,
    }
    result = subprocess.run([SCRIPT], env=environment, capture_output=True, text=True, timeout=600)
    return result, source, working


def test_a_sideways_scan_is_turned_upright_in_the_working_copy(tmp_path):
    result, source, working = consume(tmp_path, "invoice.pdf", pdfs.image_pdf(INVOICE))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "docorient-pre-consume:" in result.stdout
    assert pdfs.shown_orientation(str(working), 1, INVOICE) == pdfs.upright("0007_invoice.jpg")
    assert pdfs.qpdf_check(str(working))[0] == 0
    assert pdfs.sha(str(source)) != pdfs.sha(str(working))


def test_a_pdf_it_cannot_decide_is_consumed_as_it_was(tmp_path):
    result, source, working = consume(tmp_path, "letter.pdf", pdfs.text_pdf())
    assert result.returncode == 0, result.stdout + result.stderr
    assert pdfs.sha(str(source)) == pdfs.sha(str(working))
    assert "undecidable" in result.stdout and "no image" in result.stdout


def test_an_encrypted_pdf_is_consumed_as_it_was_with_the_reason_in_the_log(tmp_path):
    plain = tmp_path / "plain.pdf"
    plain.write_bytes(pdfs.image_pdf(INVOICE))
    with pikepdf.open(plain) as pdf:
        pdf.save(tmp_path / "locked.pdf", encryption=pikepdf.Encryption(owner="owner", user=""))
    result, source, working = consume(tmp_path, "locked.pdf", (tmp_path / "locked.pdf").read_bytes())
    assert result.returncode == 0, result.stdout + result.stderr
    assert pdfs.sha(str(source)) == pdfs.sha(str(working))
    assert "encrypted" in result.stdout and "consumed as it was" in result.stdout


def test_without_docorient_or_a_working_path_it_still_exits_0(tmp_path):
    result, source, working = consume(
        tmp_path, "invoice.pdf", pdfs.image_pdf(INVOICE), DOCORIENT=str(tmp_path / "missing")
    )
    assert result.returncode == 0 and "not found" in result.stdout
    assert pdfs.sha(str(source)) == pdfs.sha(str(working))
    bare = subprocess.run([SCRIPT], env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=60)
    assert bare.returncode == 0 and "names no file" in bare.stdout

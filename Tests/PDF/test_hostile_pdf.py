"""Hostile PDFs through `docorient fix`: truncated, looping, bombs and encrypted files each end
with their error code (a loop only docorient's own walk meets: the page left alone) within
seconds, without a crash, and with the file byte-identical.

Run: python3 -m pytest -q Tests/PDF/test_hostile_pdf.py
"""

import json
import subprocess

import hostile
import pytest

from corpusgen import built, pdfs

# A module-wide docorient, for the helpers below that run it (the tests' `docorient` fixture finds
# it the same way).
BIN = built.docorient("debug", "release")
pytestmark = pytest.mark.skipif(not built.is_built(BIN), reason="docorient is not built (swift build)")
SCAN = pdfs.image_pdf(pdfs.sample("0007_invoice.jpg"))

CASES = {
    "truncated": (lambda: hostile.truncated(SCAN), {"malformed"}),
    "kids-loop": (hostile.kids_loop, {"malformed"}),
    "parent-loop": (hostile.parent_loop, {"malformed"}),
    # A circle of /Parent outside the page tree: qpdf never follows it, docorient's walk for the
    # inherited /Rotate and /Resources stops at the first node seen twice, and the page (no
    # image) is left alone.
    "parent-loop-off-tree": (hostile.parent_loop_off_tree, {None}),
    "huge-dimensions": (hostile.huge_dimensions, {"limit_exceeded"}),
    "image-bomb": (hostile.image_bomb, {"limit_exceeded"}),
    "content-bomb": (hostile.content_bomb, {"limit_exceeded"}),
    "encrypted-owner-only": (lambda: hostile.encrypted(SCAN), {"encrypted"}),
    "encrypted-user-password": (lambda: hostile.encrypted(SCAN, user="secret"), {"encrypted"}),
    # Not hostile, but never to be rewritten: a signature covers byte ranges qpdf's rewrite moves.
    "signed": (lambda: hostile.signed(SCAN), {"unsupported_format"}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_pdf_gets_its_error_code_and_stays_as_it_was(name, tmp_path):
    make, codes = CASES[name]
    path = tmp_path / (name + ".pdf")
    path.write_bytes(make())
    digest = pdfs.sha(str(path))
    result = subprocess.run([BIN, "fix", "--json", str(path)], capture_output=True, text=True, timeout=120)
    assert result.returncode in (0, 1), result.stderr  # not a signal: no crash
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert lines, result.stderr
    assert {line["error_code"] for line in lines} == codes, lines
    assert result.returncode == (0 if codes == {None} else 1)
    assert pdfs.sha(str(path)) == digest
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind

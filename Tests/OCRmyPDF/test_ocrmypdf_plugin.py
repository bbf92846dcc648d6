"""The OCRmyPDF plugin (Packaging/ocrmypdf) run through the real `ocrmypdf` command, PyPI's (17.13.0,
Corpus/requirements.txt) and Debian's (14.0.1, Scripts/bootstrap.sh), with the built docorient:
pages docorient decides come out upright, undecidable and mirrored pages exactly as they went in,
a page docorient fails on (it dies, hangs or answers garbage: a stand-in that wraps the built
docorient) exactly as it went in while the run goes on, and the plugin installs with pip from the
tree. Every output page is judged by rendering it (Corpus/corpusgen/pdfs.py), not by either tool's report.

OCR is switched off (`--tesseract-timeout 0`, `--output-type pdf`): the plugin changes only which
way a page is turned, and the OCR would take most of a minute a page here.

Run: python3 -m pytest -q Tests/OCRmyPDF   (needs a built docorient, ocrmypdf, pikepdf, img2pdf,
poppler-utils; the real pages need ../shared/real beside the checkout)
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import time
import types

import pytest

from corpusgen import built, pdfs

# A module-wide docorient, for the helpers below that run it (the tests' `docorient` fixture finds
# it the same way).
BIN = built.docorient("debug", "release")
PLUGIN = os.path.join(pdfs.ROOT, "Packaging", "ocrmypdf")
REAL = os.path.join(os.path.dirname(pdfs.ROOT), "shared", "real")
pytestmark = pytest.mark.skipif(not built.is_built(BIN), reason="docorient is not built (swift build)")


def absent(what):
    """Skips naming what is missing; in CI, where everything must be there, fails instead."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} (CI=true: the suite must run it)")
    pytest.skip(what)


def pypi_ocrmypdf():
    try:
        import ocrmypdf  # noqa: F401
    except ImportError:
        absent("PyPI's ocrmypdf is not installed (pip install -r Corpus/requirements.txt)")
    return [sys.executable, "-m", "ocrmypdf"]


def debian_ocrmypdf():
    if not os.path.exists("/usr/bin/ocrmypdf"):
        absent("Debian's ocrmypdf is not installed (apt install ocrmypdf; Scripts/bootstrap.sh does)")
    return ["/usr/bin/ocrmypdf"]


OCRMYPDFS = {"pypi": pypi_ocrmypdf, "debian": debian_ocrmypdf}


def ocrmypdf(which, source, target, *extra, plugin=True, rotate=True, env=None, pythonpath=PLUGIN):
    """Runs that OCRmyPDF on `source` without OCR; the plugin found on PYTHONPATH (the tree's)."""
    environment = {**os.environ, "DOCORIENT_COMMAND": BIN, **(env or {})}
    if pythonpath:
        environment["PYTHONPATH"] = pythonpath
    argv = [*OCRMYPDFS[which](), "-v", "1", "--output-type", "pdf", "--tesseract-timeout", "0"]
    argv += (["--plugin", "docorient_ocrmypdf"] if plugin else []) + (["--rotate-pages"] if rotate else [])
    return subprocess.run(
        [*argv, *extra, str(source), str(target)], capture_output=True, text=True, env=environment, timeout=600
    )


def shown(path, images):
    """What each page shows: the EXIF orientation of its image's stored pixels, by rendering."""
    return [pdfs.shown_orientation(str(path), page, image) for page, image in enumerate(images, start=1)]


def rotates(path):
    return [rotate for _, rotate in pdfs.page_keys(str(path))]


# ---------------------------------------------------------------------------------------------
# The answer OCRmyPDF gets, record by record (docorient's records as `decide` prints them).


def test_a_decided_page_gets_the_turn_ocrmypdf_takes_off_and_a_confidence_above_its_threshold():
    import docorient_ocrmypdf as plugin

    def answer(**record):
        return plugin.orientation_from_record({"verdict": "no_tag", **record})

    # OCRmyPDF's angle is how far the page is turned clockwise (it takes it off /Rotate): a page
    # that EXIF 6 (turn 90 clockwise) shows upright is turned 270.
    assert answer(detected_orientation=1, confidence=0.9) == (0, pytest.approx(28.5))
    assert answer(detected_orientation=6, confidence=1.0) == (270, 30.0)
    assert answer(detected_orientation=3, confidence=0.5) == (180, 22.5)
    assert answer(detected_orientation=8, confidence=0.0) == (90, 15.0)
    # The lowest decided confidence is above OCRmyPDF's default --rotate-pages-threshold.
    assert answer(detected_orientation=8, confidence=0.0).confidence > 14.0


def test_undecidable_mirrored_and_failed_pages_get_no_turn_at_any_threshold():
    import docorient_ocrmypdf as plugin

    for record in (
        {"verdict": "undecidable", "detected_orientation": None, "confidence": 0.7},
        {"verdict": "disagrees", "detected_orientation": 2, "confidence": 0.99},
        {"verdict": "no_tag", "detected_orientation": 7, "confidence": 0.99},
        {"verdict": "error", "detected_orientation": None, "confidence": 0, "reason": "cannot open"},
    ):
        assert plugin.orientation_from_record(record) == (0, 0.0), record


def test_a_line_that_is_not_decide_s_record_for_the_page_is_no_answer():
    import docorient_ocrmypdf as plugin

    page = "/tmp/ocrmypdf.io.x/000002_rasterize_preview.jpg"
    record = {"path": page, "verdict": "no_tag", "detected_orientation": 6, "confidence": 0.9}
    assert plugin.record_for(json.dumps(record).encode(), page) == record
    for line in (
        b"Segmentation fault",
        b"[1, 2]",
        json.dumps({**record, "path": "/tmp/ocrmypdf.io.x/000001_rasterize_preview.jpg"}).encode(),
        json.dumps({**record, "detected_orientation": "6"}).encode(),
        json.dumps({**record, "confidence": "high"}).encode(),
    ):
        with pytest.raises(plugin.NoAnswer, match="not its record"):
            plugin.record_for(line, page)


# ---------------------------------------------------------------------------------------------
# `docorient decide`, the long-lived process the plugin asks.


def test_decide_answers_every_line_with_one_record_and_ends_with_its_input(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("not an image\n")
    lines = [pdfs.sample("0007_invoice.jpg"), "", "/nonexistent/page.jpg", str(text), pdfs.sample("0017_blank.jpg")]
    started = time.monotonic()
    run = subprocess.run([BIN, "decide"], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    records = [json.loads(line) for line in run.stdout.splitlines()]
    assert [r["path"] for r in records] == lines
    invoice, empty, missing, notes, blank = records
    assert (invoice["detected_orientation"], invoice["action"]) == (8, "would_rewrite_tag")
    assert (empty["verdict"], empty["error_code"]) == ("error", "invalid_request")
    assert (missing["verdict"], missing["error_code"]) == ("error", "io")
    assert (notes["verdict"], notes["error_code"]) == ("error", "unsupported_format")
    assert (blank["verdict"], blank["detected_orientation"]) == ("undecidable", None)
    assert time.monotonic() - started < 60


def test_decide_with_no_input_exits_at_once():
    run = subprocess.run([BIN, "decide"], input="", capture_output=True, text=True, timeout=60)
    assert (run.returncode, run.stdout) == (0, "")


# ---------------------------------------------------------------------------------------------
# The real ocrmypdf command, on generated pages.

INVOICE = pdfs.sample("0007_invoice.jpg")  # upright as 8: shown sideways with no /Rotate
BLANK = pdfs.sample("0017_blank.jpg")  # nothing to orient: undecidable
MIRRORED = pdfs.sample("0013_receipt.jpg")  # upright as 2: reads mirrored, /Rotate cannot fix it


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """Six pages: the invoice in all four rotations (/Rotate 0, 90, 180, 270), a blank page and a
    mirrored receipt."""
    invoice = pdfs.image_pdf(INVOICE)
    data = pdfs.combined(
        invoice,
        pdfs.with_rotate(invoice, 90),
        pdfs.with_rotate(invoice, 180),
        pdfs.with_rotate(invoice, 270),
        pdfs.image_pdf(BLANK),
        pdfs.image_pdf(MIRRORED),
    )
    path = tmp_path_factory.mktemp("generated") / "scan.pdf"
    path.write_bytes(data)
    return path


GENERATED_IMAGES = [INVOICE] * 4 + [BLANK, MIRRORED]


@pytest.mark.parametrize("which", ["pypi", "debian"])
def test_the_plugin_turns_every_rotation_upright_and_leaves_undecidable_and_mirrored_pages(which, generated, tmp_path):
    before = shown(generated, GENERATED_IMAGES)
    assert before == [1, 6, 3, 8, 1, 1]
    target = tmp_path / "out.pdf"
    run = ocrmypdf(which, generated, target)
    assert run.returncode == 0, run.stderr
    after = shown(target, GENERATED_IMAGES)
    assert after[:4] == [8, 8, 8, 8], run.stderr
    # The blank and the mirrored page: as they went in, /Rotate included.
    assert after[4:] == before[4:]
    assert rotates(target)[4:] == rotates(generated)[4:] == [0, 0]
    assert "reads mirrored" in run.stderr and "undecidable" in run.stderr


def test_without_rotate_pages_the_plugin_is_never_asked(generated, tmp_path):
    target = tmp_path / "out.pdf"
    run = ocrmypdf("pypi", generated, target, rotate=False, env={"DOCORIENT_COMMAND": "/nonexistent/docorient"})
    assert run.returncode == 0, run.stderr
    assert rotates(target) == rotates(generated)
    assert "docorient" not in run.stderr.replace("docorient_ocrmypdf", "")


# ---------------------------------------------------------------------------------------------
# Real photos and scans (../shared/real), each shown in another rotation.

REAL_PAGES = [  # (file, /Rotate): one page each
    ("036_receipt_rewe.jpg", 90),
    ("055_letter_ai_memo.png", 180),
    ("058_form_employment_form.jpg", 270),
    ("061_form_mortgage_note.jpg", 0),
]


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    if not os.path.isdir(REAL):
        absent(f"{REAL} not found (the real photos live in shared/ beside the checkout)")
    with open(os.path.join(REAL, "manifest.csv"), newline="") as f:
        upright = {row["file"]: int(row["upright_orientation"]) for row in csv.DictReader(f)}
    import img2pdf

    images = [os.path.join(REAL, name) for name, _ in REAL_PAGES]
    data = pdfs.combined(
        *(
            pdfs.with_rotate(img2pdf.convert(image, rotation=img2pdf.Rotation.none), rotate)
            for image, (_, rotate) in zip(images, REAL_PAGES)
        )
    )
    path = tmp_path_factory.mktemp("real") / "real.pdf"
    path.write_bytes(data)
    fix = subprocess.run([BIN, "fix", "--dry-run", "--json", str(path)], capture_output=True, text=True, timeout=600)
    assert fix.returncode == 0, fix.stderr
    decided = [r["detected_orientation"] for r in map(json.loads, fix.stdout.splitlines())]
    return path, images, [upright[name] for name, _ in REAL_PAGES], decided


@pytest.mark.parametrize("which", ["pypi", "debian"])
def test_on_real_pages_the_plugin_puts_upright_what_docorient_fix_decides_and_makes_nothing_worse(
    which, real, tmp_path
):
    source, images, truth, decided = real
    before = shown(source, images)
    target = tmp_path / "out.pdf"
    run = ocrmypdf(which, source, target)
    assert run.returncode == 0, run.stderr
    after = shown(target, images)
    for page, (was, now, right, fix) in enumerate(zip(before, after, truth, decided), start=1):
        assert now in (right, was), f"page {page} made worse: {was} -> {now}, upright is {right}\n{run.stderr}"
        if fix in (1, 3, 6, 8):
            assert now == right, f"page {page}: docorient fix decides it, the plugin left it {now}\n{run.stderr}"
    # docorient decides at least three of the four: the test shows a turn, not a page left alone.
    assert sum(now == right for now, right in zip(after, truth)) >= 3, (before, after, decided)


# ---------------------------------------------------------------------------------------------
# Installing, and what goes wrong.


def test_the_plugin_installs_with_pip_from_the_tree_and_runs_from_there(generated, tmp_path):
    pypi_ocrmypdf()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    # A copy of the tree's folder: setuptools builds in place and would leave build/ in the tree.
    folder = tmp_path / "ocrmypdf-plugin"
    shutil.copytree(PLUGIN, folder, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    install = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(folder)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    where = subprocess.run(
        [python, "-c", "import docorient_ocrmypdf; print(docorient_ocrmypdf.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert where.stdout.startswith(str(venv)), where.stdout + where.stderr
    one_page = tmp_path / "one.pdf"
    one_page.write_bytes(pdfs.image_pdf(INVOICE))
    target = tmp_path / "out.pdf"
    run = subprocess.run(
        [python, "-m", "ocrmypdf", "--plugin", "docorient_ocrmypdf", "--rotate-pages", "--output-type", "pdf"]
        + ["--tesseract-timeout", "0", str(one_page), str(target)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"}, "DOCORIENT_COMMAND": BIN},
    )
    assert run.returncode == 0, run.stderr
    assert shown(target, [INVOICE]) == [8]


@pytest.mark.parametrize("which", ["pypi", "debian"])
def test_without_docorient_ocrmypdf_stops_before_the_first_page_saying_what_to_install(which, generated, tmp_path):
    target = tmp_path / "out.pdf"
    run = ocrmypdf(which, generated, target, env={"DOCORIENT_COMMAND": "/nonexistent/docorient"})
    assert run.returncode == 3, run.stderr  # OCRmyPDF's "missing dependency"
    assert "docorient not found" in run.stderr and "DOCORIENT_COMMAND" in run.stderr
    assert not target.exists()


def test_a_docorient_that_cannot_load_its_models_fails_the_run_with_its_own_message(generated, tmp_path):
    target = tmp_path / "out.pdf"
    run = ocrmypdf("pypi", generated, target, env={"DOCORIENT_ARGS": f"--tessdata {tmp_path}"})
    assert run.returncode != 0
    assert "eng.traineddata not found" in run.stderr, run.stderr
    assert not target.exists()


def test_a_docorient_that_never_answers_leaves_the_page_after_the_non_ocr_timeout(tmp_path):
    # A stand-in for a docorient that hangs (the real one is bounded by its work budget and
    # cannot be made to hang): it reads nothing and sleeps.
    silent = tmp_path / "docorient"
    silent.write_text("#!/bin/sh\nexec sleep 600\n")
    silent.chmod(0o755)
    source = tmp_path / "one.pdf"
    source.write_bytes(pdfs.image_pdf(INVOICE))
    target = tmp_path / "out.pdf"
    started = time.monotonic()
    run = ocrmypdf("pypi", source, target, "--tesseract-non-ocr-timeout", "3", env={"DOCORIENT_COMMAND": str(silent)})
    assert run.returncode == 0, run.stderr
    assert time.monotonic() - started < 120
    assert "no answer within 3 s" in run.stderr
    assert shown(target, [INVOICE]) == [1] and rotates(target) == [0]


def test_a_usage_error_in_docorient_args_fails_the_run_with_docorient_s_message(generated, tmp_path):
    target = tmp_path / "out.pdf"
    run = ocrmypdf("pypi", generated, target, env={"DOCORIENT_ARGS": "--no-such-option"})
    assert run.returncode != 0
    assert "no-such-option" in run.stderr, run.stderr


def test_a_docorient_page_timeout_that_is_not_a_time_stops_ocrmypdf_before_the_first_page(generated, tmp_path):
    target = tmp_path / "out.pdf"
    run = ocrmypdf("debian", generated, target, env={"DOCORIENT_PAGE_TIMEOUT": "soon"})
    assert run.returncode == 1, run.stderr  # OCRmyPDF's "bad arguments"
    assert "DOCORIENT_PAGE_TIMEOUT is 'soon'" in run.stderr, run.stderr
    assert not target.exists()


@pytest.mark.parametrize("which", ["pypi", "debian"])
def test_the_plugin_s_docorient_processes_end_with_the_run(which, generated, tmp_path):
    if not shutil.which("pgrep"):
        pytest.skip("pgrep (procps) is not installed")
    # docorient under a name of its own, to find its processes by.
    named = tmp_path / f"run-{os.getpid()}-{time.monotonic_ns()}"
    named.mkdir()
    (named / "docorient").symlink_to(BIN)
    run = ocrmypdf(which, generated, tmp_path / "out.pdf", env={"DOCORIENT_COMMAND": str(named / "docorient")})
    assert run.returncode == 0, run.stderr
    assert "docorient: " in run.stderr  # it was asked
    deadline = time.monotonic() + 10
    while subprocess.run(["pgrep", "-f", str(named)], capture_output=True).returncode == 0:
        assert time.monotonic() < deadline, "docorient decide still running after the run"
        time.sleep(0.2)


# ---------------------------------------------------------------------------------------------
# A docorient that fails on a page: the page is left as it is, and the run goes on.

# A stand-in for a docorient that fails on some pages (as a crash on a hostile page would): it
# passes each line to the real docorient (FAULTY_REAL) and the answer back, except on the pages in
# FAULTY_PAGES ("2", or "all"), where it does FAULTY_FAULT: "dies" (exit status 3, saying so on
# stderr), "hangs" (waits for a child that sleeps, which only killing its process group stops) or
# "answers garbage". It writes its pid and the page of each line it is asked to FAULTY_ASKED
# (page 0: the empty line the plugin asks when it starts).
FAULTY_DOCORIENT = r"""
import os, re, subprocess, sys

real = subprocess.Popen([os.environ["FAULTY_REAL"], *sys.argv[1:]], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
faulty = os.environ["FAULTY_PAGES"].split(",")
for line in sys.stdin.buffer:
    numbered = re.match(r"(\d{6})_", os.path.basename(line.decode().rstrip("\n")))
    page = int(numbered.group(1)) if numbered else 0
    with open(os.environ["FAULTY_ASKED"], "a") as asked:
        print(os.getpid(), page, file=asked)
    if page and (faulty == ["all"] or str(page) in faulty):
        fault = os.environ["FAULTY_FAULT"]
        if fault == "dies":
            print(f"docorient: page {page} is hostile", file=sys.stderr)
            sys.exit(3)
        if fault == "hangs":
            subprocess.run([sys.executable, "-c", "import time; time.sleep(600)", os.environ["FAULTY_MARKER"]])
        if fault == "answers garbage":
            print("Segmentation fault (core dumped)", flush=True)
            continue
    real.stdin.write(line)
    real.stdin.flush()
    sys.stdout.buffer.write(real.stdout.readline())
    sys.stdout.flush()
"""
#: DOCORIENT_PAGE_TIMEOUT in these runs: a page with a fresh docorient (its models loaded) answers well
#: within it here, and a hung page costs it once.
TIMEOUT = 10


def faulty_docorient(tmp_path, fault, pages):
    """The environment that makes OCRmyPDF's plugin run FAULTY_DOCORIENT, and where it writes what
    it is asked. Its processes (and their sleeping children) have the folder's path in their command
    lines, to find them by."""
    folder = tmp_path / f"faulty-{os.getpid()}-{time.monotonic_ns()}"
    folder.mkdir()
    script = folder / "docorient"
    script.write_text(f"#!{sys.executable}\n{FAULTY_DOCORIENT}")
    script.chmod(0o755)
    asked = folder / "asked.txt"
    environment = {
        "DOCORIENT_COMMAND": str(script),
        "DOCORIENT_PAGE_TIMEOUT": str(TIMEOUT),
        "FAULTY_REAL": BIN,
        "FAULTY_PAGES": pages,
        "FAULTY_FAULT": fault,
        "FAULTY_ASKED": str(asked),
        "FAULTY_MARKER": str(folder),
    }
    return environment, asked, folder


def asked_by(asked):
    """(pid, page) for each line the faulty docorient was asked, in order."""
    return [tuple(map(int, line.split())) for line in asked.read_text().splitlines()]


def no_answer_warnings(stderr):
    return [line for line in stderr.splitlines() if "docorient gave no answer for" in line]


def still_running(folder):
    return subprocess.run(["pgrep", "-af", str(folder)], capture_output=True, text=True).stdout


FIVE_ROTATES = [90, 180, 270, 0, 90]


@pytest.fixture(scope="module")
def five_pages(tmp_path_factory):
    """The invoice five times, at /Rotate 90, 180, 270, 0 and 90: docorient turns every page."""
    invoice = pdfs.image_pdf(INVOICE)
    path = tmp_path_factory.mktemp("five") / "five.pdf"
    path.write_bytes(pdfs.combined(*(pdfs.with_rotate(invoice, rotate) for rotate in FIVE_ROTATES)))
    return path


@pytest.mark.parametrize(
    ("which", "fault", "cause"),
    [
        ("pypi", "dies", "ended (exit status 3): docorient: page 2 is hostile"),
        ("pypi", "answers garbage", "not its record: 'Segmentation fault (core dumped)'"),
        ("debian", "hangs", f"no answer within {TIMEOUT} s"),
    ],
)
def test_a_page_docorient_gives_no_answer_for_is_left_as_it_is_and_the_run_goes_on(
    which, fault, cause, five_pages, tmp_path
):
    environment, asked, folder = faulty_docorient(tmp_path, fault, "2")
    target = tmp_path / "out.pdf"
    started = time.monotonic()
    run = ocrmypdf(which, five_pages, target, "-j", "1", env=environment)
    seconds = time.monotonic() - started
    assert run.returncode == 0, run.stderr
    before = shown(five_pages, [INVOICE] * 5)
    assert before == [6, 3, 8, 1, 6]
    # Page 2 as it went in, /Rotate included; the others decided, as without a fault.
    assert shown(target, [INVOICE] * 5) == [8, 3, 8, 8, 8], run.stderr
    assert rotates(target)[1] == 180
    # One warning, naming the page and the cause.
    warnings = no_answer_warnings(run.stderr)
    assert len(warnings) == 1, run.stderr
    assert "page 2, which is left as it is" in warnings[0] and cause in warnings[0], warnings
    # The docorient started first answered pages 1 and 2; page 3 got a fresh one, which answered the rest.
    (first, _), *pages = asked_by(asked)
    assert pages[:2] == [(first, 1), (first, 2)]
    assert [page for _, page in pages[2:]] == [3, 4, 5] and len({pid for pid, _ in pages[2:]} - {first}) == 1
    # A hung page costs the timeout, not the sleeper's 600 s; nothing of the faulty docorient is left
    # running (the hung one's sleeping child included: its process group was killed).
    assert seconds < TIMEOUT + 60
    assert still_running(folder) == ""


def test_a_docorient_that_dies_on_every_page_is_given_up_after_three_and_the_run_goes_on(five_pages, tmp_path):
    environment, asked, folder = faulty_docorient(tmp_path, "dies", "all")
    target = tmp_path / "out.pdf"
    run = ocrmypdf("pypi", five_pages, target, "-j", "1", env=environment)
    assert run.returncode == 0, run.stderr
    assert shown(target, [INVOICE] * 5) == shown(five_pages, [INVOICE] * 5)
    assert rotates(target) == FIVE_ROTATES
    # Pages 1 to 3, each from a fresh process and each with its warning; the third says it is the
    # last; pages 4 and 5 are not asked.
    (first, _), *pages = asked_by(asked)
    assert [page for _, page in pages] == [1, 2, 3] and pages[0][0] == first
    assert len({pid for pid, _ in pages}) == 3
    warnings = no_answer_warnings(run.stderr)
    assert [f"page {n}, which" in line for n, line in enumerate(warnings, start=1)] == [True] * 3, run.stderr
    assert "not asked about the rest of the pages" in warnings[2]
    assert not any("not asked about the rest" in line for line in warnings[:2])
    assert still_running(folder) == ""


def test_a_hung_docorient_is_stopped_with_its_process_group_reaped_and_its_pipes_closed(tmp_path, monkeypatch):
    import docorient_ocrmypdf as plugin

    environment, _, folder = faulty_docorient(tmp_path, "hangs", "all")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    descriptors = sorted(os.listdir("/proc/self/fd"))
    decider = plugin.Decider([environment["DOCORIENT_COMMAND"], "decide"])
    started = time.monotonic()
    with pytest.raises(plugin.NoAnswer, match="no answer within 2 s"):
        decider.ask("/tmp/x/000001_rasterize_preview.jpg", 2)
    assert time.monotonic() - started < 10
    assert still_running(folder) == ""  # its sleeping child too: the group was killed
    with pytest.raises(ChildProcessError):
        os.waitpid(decider.process.pid, os.WNOHANG)  # reaped: no zombie
    assert sorted(os.listdir("/proc/self/fd")) == descriptors


def test_a_run_asks_docorient_again_after_a_run_in_the_same_process_gave_up_on_it(monkeypatch):
    import docorient_ocrmypdf as plugin

    monkeypatch.setenv("DOCORIENT_COMMAND", BIN)
    options = types.SimpleNamespace(rotate_pages=True, languages=["eng"], tesseract_non_ocr_timeout=120.0)
    for _ in range(plugin.FAILURES_IN_A_ROW):
        plugin.DECIDERS.failed()
    assert plugin.get_orientation(INVOICE, options) == (0, 0.0)  # given up: not asked
    try:
        plugin.check_options(options)  # as OCRmyPDF's next run (ocrmypdf.ocr in a long-lived process)
        assert plugin.get_orientation(INVOICE, options).angle == 90
    finally:
        plugin.DECIDERS.close_all()

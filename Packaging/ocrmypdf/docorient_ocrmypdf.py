"""docorient's answer to OCRmyPDF's --rotate-pages: an OCR engine that is Tesseract's for everything
else and asks docorient which way each page is up.

    ocrmypdf --plugin docorient_ocrmypdf --rotate-pages in.pdf out.pdf

OCRmyPDF renders each page to an image and asks its OCR engine `get_orientation` once a page, from
its worker threads or processes. Each asking thread borrows a long-lived `docorient decide` (one
record a line for one path a line, models loaded once) and gives it back, so a page costs the
resolver's own time, not a process start and a model load; the processes end with the run (their
input closes).

What OCRmyPDF gets back, as an OrientationConfidence(angle, confidence):
- a page docorient decides (a turn of 0, 90, 180 or 270 degrees): that angle, with a
  confidence of 15 + 15 * docorient's probability (15 to 30), so that the default
  --rotate-pages-threshold (14) turns exactly the pages docorient decided, and a higher threshold
  T (15 to 30) only those docorient gives at least (T - 15) / 15;
- an undecidable page, a page docorient cannot read, and a page that reads mirrored: angle 0,
  confidence 0, so the page stays as it is at any threshold. OCRmyPDF can only turn a page, and a
  mirrored page turned is still mirrored: `docorient fix in.pdf` (which can mirror a page) before
  OCRmyPDF puts those right too.

Environment: DOCORIENT_COMMAND, the docorient to run (default: `docorient` on PATH);
DOCORIENT_ARGS, more arguments for it (shell words, e.g. `--max-work 20`). docorient reads in
OCRmyPDF's languages (-l). The answer waits at most --tesseract-non-ocr-timeout seconds where
OCRmyPDF has that option (180 s otherwise); past it the page is left as it is.
"""

from __future__ import annotations

import atexit
import inspect
import json
import logging
import os
import select
import shlex
import shutil
import subprocess
import tempfile
import threading
import time

from ocrmypdf import hookimpl, pluginspec
from ocrmypdf.builtin_plugins.tesseract_ocr import TesseractOcrEngine
from ocrmypdf.exceptions import MissingDependencyError, SubprocessOutputError
from ocrmypdf.pluginspec import OrientationConfidence

__version__ = "0.1.0"

log = logging.getLogger(__name__)

#: docorient's answer (the EXIF orientation that shows the page's image upright) as OCRmyPDF's
#: angle: how far the page is turned clockwise from upright as shown, as Tesseract's OSD reports it
#: ("Orientation in degrees"); OCRmyPDF takes it off the page's /Rotate. EXIF 6 (turn 90 clockwise
#: to show upright) is a page turned 270. 2, 4, 5 and 7 are mirrored: no turn puts them upright.
ANGLES = {1: 0, 6: 270, 3: 180, 8: 90}
#: A decided page's confidence is FLOOR + SPAN * docorient's probability: above OCRmyPDF's default
#: --rotate-pages-threshold (14) for every decided page.
FLOOR = 15.0
SPAN = 15.0
#: How long an answer may take where OCRmyPDF has no --tesseract-non-ocr-timeout (its default there).
DEFAULT_TIMEOUT = 180.0
#: The same answer for every page docorient does not put upright by a turn: leave it as it is.
LEAVE_ALONE = OrientationConfidence(angle=0, confidence=0.0)


def orientation_from_record(record):
    """OCRmyPDF's OrientationConfidence for one record of `docorient decide` (fix --dry-run --json)."""
    detected = record.get("detected_orientation")
    if record.get("verdict") == "error" or detected not in ANGLES:
        return LEAVE_ALONE
    probability = min(max(float(record.get("confidence") or 0.0), 0.0), 1.0)
    return OrientationConfidence(angle=ANGLES[detected], confidence=FLOOR + SPAN * probability)


def command():
    """The docorient to run: $DOCORIENT_COMMAND, else `docorient` on PATH; None when neither is there."""
    named = os.environ.get("DOCORIENT_COMMAND")
    if named:
        return shutil.which(named) or (named if os.path.isfile(named) and os.access(named, os.X_OK) else None)
    return shutil.which("docorient")


def decide_arguments(options):
    """`docorient decide` and its arguments for these OCRmyPDF options."""
    binary = command()
    if binary is None:
        raise MissingDependencyError(
            "docorient_ocrmypdf: docorient not found on PATH: install docorient, or set DOCORIENT_COMMAND to it"
        )
    argv = [binary, "decide"]
    languages = [lang for lang in (getattr(options, "languages", None) or []) if lang]
    if languages:
        argv += ["--lang", "+".join(languages)]
    return argv + shlex.split(os.environ.get("DOCORIENT_ARGS", ""))


def answer_timeout(options):
    """OCRmyPDF's time limit for a Tesseract call that is not OCR, where it has one."""
    tesseract = getattr(options, "tesseract", None)
    for value in (getattr(tesseract, "non_ocr_timeout", None), getattr(options, "tesseract_non_ocr_timeout", None)):
        if value is not None:
            return float(value)
    return DEFAULT_TIMEOUT


class DeciderStopped(Exception):
    """`docorient decide` ended (the message says what it printed) or gave no answer in time."""

    def __init__(self, message, timed_out=False):
        super().__init__(message)
        self.timed_out = timed_out


class Decider:
    """One running `docorient decide`: a path a line in, a record a line out. One caller at a time."""

    def __init__(self, argv):
        self.argv = argv
        self.errors = tempfile.TemporaryFile()
        self.pending = bytearray()
        try:
            self.process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors, close_fds=True
            )
        except OSError as error:
            self.errors.close()
            raise MissingDependencyError(f"docorient_ocrmypdf: cannot run {argv[0]}: {error}") from error

    def ask(self, path, timeout):
        """The record for the image at `path`; DeciderStopped when no answer came within `timeout` s."""
        try:
            self.process.stdin.write(os.fsencode(path) + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, ValueError) as error:
            raise DeciderStopped(self.stopped_message()) from error
        deadline = time.monotonic() + timeout
        descriptor = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([descriptor], [], [], remaining)[0]:
                self.close(kill=True)
                raise DeciderStopped(f"no answer within {timeout:g} s", timed_out=True)
            chunk = os.read(descriptor, 65536)
            if not chunk:
                raise DeciderStopped(self.stopped_message())
            self.pending += chunk
        line, _, rest = bytes(self.pending).partition(b"\n")
        self.pending = bytearray(rest)
        return json.loads(line)

    def stopped_message(self):
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.close(kill=True)
            code = self.process.returncode
        self.errors.seek(0)
        said = self.errors.read().decode(errors="replace").strip()
        return f"{shlex.join(self.argv)} ended (exit status {code})" + (f": {said}" if said else "")

    def close(self, kill=False):
        """Ends the process: its input closed (it exits at the end of its input), or killed."""
        if self.process.poll() is None:
            if kill:
                self.process.kill()
            else:
                try:
                    self.process.stdin.close()
                except OSError:
                    pass
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.errors):
            try:
                stream.close()
            except OSError:
                pass


class Deciders:
    """The running deciders of this process, lent to one asking thread at a time and kept for the
    next page; a process forked from this one starts its own."""

    def __init__(self):
        self.lock = threading.Lock()
        self.owner = os.getpid()
        self.idle = {}
        self.every = []

    def borrow(self, argv):
        with self.lock:
            if self.owner != os.getpid():
                # A forked worker: the parent's processes answer the parent only.
                self.owner, self.idle, self.every = os.getpid(), {}, []
            waiting = self.idle.get(tuple(argv))
            if waiting:
                return waiting.pop()
        decider = Decider(argv)
        with self.lock:
            self.every.append(decider)
        return decider

    def give_back(self, decider):
        with self.lock:
            if decider.process.poll() is None and self.owner == os.getpid():
                self.idle.setdefault(tuple(decider.argv), []).append(decider)

    def discard(self, decider):
        decider.close(kill=True)
        with self.lock:
            if decider in self.every:
                self.every.remove(decider)

    def close_all(self):
        with self.lock:
            mine = self.every if self.owner == os.getpid() else []
            self.idle, self.every = {}, []
        for decider in mine:
            decider.close()


DECIDERS = Deciders()
atexit.register(DECIDERS.close_all)


def get_orientation(input_file, options):
    """docorient's answer for the page image `input_file`, as OCRmyPDF's OrientationConfidence."""
    timeout = answer_timeout(options)
    if timeout <= 0:
        return LEAVE_ALONE
    argv = decide_arguments(options)
    decider = DECIDERS.borrow(argv)
    try:
        record = decider.ask(os.fspath(input_file), timeout)
    except DeciderStopped as stopped:
        DECIDERS.discard(decider)
        if stopped.timed_out:
            log.warning("docorient: %s for %s; the page is left as it is", stopped, input_file)
            return LEAVE_ALONE
        raise SubprocessOutputError(f"docorient_ocrmypdf: {stopped}") from stopped
    except BaseException:
        DECIDERS.discard(decider)
        raise
    DECIDERS.give_back(decider)
    return describe(record, input_file)


def describe(record, input_file):
    """The answer for `record`, with a log line saying why a page is left as it is."""
    detected = record.get("detected_orientation")
    if record.get("verdict") == "error":
        log.warning("docorient could not read %s (%s); the page is left as it is", input_file, record.get("reason"))
    elif detected is not None and detected not in ANGLES:
        log.warning(
            "docorient: %s reads mirrored (orientation %s); OCRmyPDF can only turn pages, so it is left as it is "
            "(`docorient fix FILE.pdf` mirrors such pages)",
            input_file,
            detected,
        )
    elif detected is None:
        log.info("docorient: %s is undecidable (%s); the page is left as it is", input_file, record.get("reason"))
    answer = orientation_from_record(record)
    log.debug(
        "docorient: %s -> orientation %s, probability %s, by %s, %s ms: %s",
        input_file,
        detected,
        record.get("confidence"),
        record.get("decided_by"),
        record.get("elapsed_ms"),
        answer,
    )
    return answer


class DocorientTesseractEngine(TesseractOcrEngine):
    """Tesseract's OCR engine, with docorient's answer to which way each page is up."""

    def __str__(self):
        return f"{super().__str__()}, page orientation by docorient"

    @staticmethod
    def get_orientation(input_file, options):
        return get_orientation(input_file, options)


@hookimpl
def check_options(options):
    if getattr(options, "rotate_pages", False):
        decide_arguments(options)  # docorient must be there before the first page is rendered


# OCRmyPDF 17 passes the options (and `--ocr-engine` chooses among engines); 14 passes nothing.
if "options" in inspect.signature(pluginspec.get_ocr_engine).parameters:

    @hookimpl
    def get_ocr_engine(options):
        if options is not None and getattr(options, "ocr_engine", "auto") not in ("auto", "tesseract"):
            return None
        return DocorientTesseractEngine()

else:

    @hookimpl
    def get_ocr_engine():
        return DocorientTesseractEngine()

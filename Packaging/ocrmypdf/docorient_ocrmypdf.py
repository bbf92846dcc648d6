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

The plugin never fails OCRmyPDF's run once the pages are being read. A page whose answer cannot be
had (docorient ended, printed something that is not its record, or gave no answer in time) is left
as it is, with one warning naming the page and the cause; its process is stopped (its whole process
group, and reaped) and the next page gets a fresh one. After FAILURES_IN_A_ROW such pages in a row
the plugin says so once and leaves the rest of the pages without asking. What no fresh process
puts right is a start-up error, before the first page: no docorient, a DOCORIENT_PAGE_TIMEOUT that
is not a time, and a docorient that cannot start (its models missing, DOCORIENT_ARGS it does not
take), which check_options finds by starting the first `docorient decide` and asking it an empty
line (it answers once it has found its models); that process then answers the first page.

Environment: DOCORIENT_COMMAND, the docorient to run (default: `docorient` on PATH);
DOCORIENT_ARGS, more arguments for it (shell words, e.g. `--max-work 20`);
DOCORIENT_PAGE_TIMEOUT, the seconds a page's answer may take (default: OCRmyPDF's
--tesseract-non-ocr-timeout where it has that option, 180 s otherwise). docorient reads in
OCRmyPDF's languages (-l).
"""

from __future__ import annotations

import atexit
import inspect
import json
import logging
import math
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from ocrmypdf import hookimpl, pluginspec
from ocrmypdf.builtin_plugins.tesseract_ocr import TesseractOcrEngine
from ocrmypdf.exceptions import BadArgsError, MissingDependencyError
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
#: How long an answer may take where neither DOCORIENT_PAGE_TIMEOUT nor OCRmyPDF's
#: --tesseract-non-ocr-timeout says (the latter's own default).
DEFAULT_TIMEOUT = 180.0
#: The same answer for every page docorient does not put upright by a turn: leave it as it is.
LEAVE_ALONE = OrientationConfidence(angle=0, confidence=0.0)
#: Pages in a row without an answer after which docorient is not asked again: one page docorient
#: cannot survive is that page's problem; every page failing is docorient's, and each further page
#: would cost a process start (or a whole timeout) for nothing.
FAILURES_IN_A_ROW = 3
#: A record is a few hundred bytes; a line longer than this is not one.
LONGEST_ANSWER = 1 << 20
#: How much of docorient's standard error a warning quotes (its end: the message comes last).
QUOTED_ERROR = 600
#: How long a process that closed its output, or its input, is given to exit before it is killed.
EXIT_GRACE = 5.0
#: docorient's exit status for arguments it does not take (swift-argument-parser's, EX_USAGE).
USAGE_ERROR = 64
#: OCRmyPDF's language where it is given none (its DEFAULT_LANGUAGE, 14 and 17).
OCRMYPDF_LANGUAGE = "eng"
#: OCRmyPDF names a page's files after its number: 000002_rasterize_preview.jpg is page 2's.
PAGE_FILE = re.compile(r"^(\d{6})_")
#: The longest single wait for output (poll's limit is a C int of milliseconds; a longer timeout
#: waits in turns).
LONGEST_POLL_MS = 60_000
NOT_FOUND = "docorient not found on PATH: install docorient, or set DOCORIENT_COMMAND to it"


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


def decide_arguments(binary, options):
    """`docorient decide` and its arguments for these OCRmyPDF options."""
    # OCRmyPDF 14 fills in its default language after the plugins have checked the options: the
    # same default here gives check_options's docorient the arguments the pages' have.
    languages = [lang for lang in (getattr(options, "languages", None) or []) if lang] or [OCRMYPDF_LANGUAGE]
    argv = [binary, "decide", "--lang", "+".join(languages)]
    return argv + shlex.split(os.environ.get("DOCORIENT_ARGS", ""))


def answer_timeout(options):
    """The seconds a page's answer may take: DOCORIENT_PAGE_TIMEOUT, else OCRmyPDF's time limit for
    a Tesseract call that is not OCR where it has one (0: do not ask), else DEFAULT_TIMEOUT."""
    named = os.environ.get("DOCORIENT_PAGE_TIMEOUT")
    if named:
        try:
            seconds = float(named)
        except ValueError:
            seconds = math.nan
        if not (math.isfinite(seconds) and seconds > 0):
            raise BadArgsError(
                f"docorient_ocrmypdf: DOCORIENT_PAGE_TIMEOUT is {named!r}: give it a number of seconds above 0"
            )
        return seconds
    tesseract = getattr(options, "tesseract", None)
    for value in (getattr(tesseract, "non_ocr_timeout", None), getattr(options, "tesseract_non_ocr_timeout", None)):
        if value is not None:
            return float(value)
    return DEFAULT_TIMEOUT


def page_name(input_file):
    """How a log line names the page of `input_file`: OCRmyPDF's image of page 2 is "page 2"."""
    numbered = PAGE_FILE.match(os.path.basename(os.fspath(input_file)))
    return f"page {int(numbered.group(1))}" if numbered else os.fspath(input_file)


class NoAnswer(Exception):
    """`docorient decide` gave no record: it could not be started, it ended, it printed something
    else, or it did not answer in time. The message says which, for a log line."""

    def __init__(self, message, exit_status=None, timed_out=False):
        super().__init__(message)
        self.exit_status = exit_status
        self.timed_out = timed_out


def record_for(line, path):
    """The record in `line` if it is `docorient decide`'s answer for `path`; NoAnswer if it is not."""
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    fields_fit = isinstance(record, dict) and (
        record.get("path") == path
        and isinstance(record.get("detected_orientation"), (int, type(None)))
        and isinstance(record.get("confidence"), (int, float, type(None)))
        and not isinstance(record.get("confidence"), bool)
        and isinstance(record.get("verdict"), (str, type(None)))
    )
    if not fields_fit:
        quoted = line[:80].decode(errors="replace") + ("..." if len(line) > 80 else "")
        raise NoAnswer(f"docorient decide answered something that is not its record: {quoted!r}")
    return record


class Decider:
    """One running `docorient decide`: a path a line in, a record a line out. One caller at a time.

    It runs in a process group of its own, so that stopping it stops whatever it started too (a
    wrapper script's docorient); every way it ends reaps it and closes its pipes."""

    def __init__(self, argv):
        self.argv = argv
        self.errors = tempfile.TemporaryFile()
        self.pending = bytearray()
        try:
            self.process = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.errors,
                close_fds=True,
                start_new_session=True,
            )
        except OSError as error:
            self.errors.close()
            raise NoAnswer(f"cannot run {argv[0]}: {error}") from error

    def ask(self, path, timeout):
        """The record for the image at `path`; NoAnswer (the process stopped) when there is none
        within `timeout` seconds."""
        try:
            self.process.stdin.write(os.fsencode(path) + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, ValueError) as error:
            raise self.ended() from error
        deadline = time.monotonic() + timeout
        descriptor = self.process.stdout.fileno()
        readable = select.poll()
        readable.register(descriptor, select.POLLIN)
        while b"\n" not in self.pending:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.stop()
                raise NoAnswer(f"no answer within {timeout:g} s (docorient decide stopped)", timed_out=True)
            if not readable.poll(min(math.ceil(remaining * 1000), LONGEST_POLL_MS)):
                continue
            chunk = os.read(descriptor, 65536)
            if not chunk:
                raise self.ended()
            self.pending += chunk
            if len(self.pending) > LONGEST_ANSWER and b"\n" not in self.pending:
                self.stop()
                raise NoAnswer(f"docorient decide answered a line over {LONGEST_ANSWER} bytes long")
        line, _, rest = bytes(self.pending).partition(b"\n")
        self.pending = bytearray(rest)
        try:
            record = record_for(line, os.fspath(path))
        except NoAnswer:
            self.stop()  # out of step with its questions: not to be asked again
            raise
        if self.pending:
            self.stop()  # more than one line for one question: the next answer would be this one's
        return record

    def running(self):
        """Whether the process has not exited (it is not reaped here: see `stop`)."""
        if self.process.returncode is not None:
            return False
        try:
            return os.waitid(os.P_PID, self.process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
        except ChildProcessError:
            return False

    def ended(self):
        """The NoAnswer for a process that closed its output: its exit status and what it printed."""
        deadline = time.monotonic() + EXIT_GRACE
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.02)
        exited = not self.running()
        self.reap()
        code = self.process.returncode
        if not exited:
            how = "closed its output and was stopped"
        elif code < 0:
            how = f"was killed by signal {-code} ({signal.strsignal(-code)})"
        else:
            how = f"ended (exit status {code})"
        self.errors.seek(0)
        said = self.errors.read().decode(errors="replace").strip()
        if len(said) > QUOTED_ERROR:
            said = "..." + said[-QUOTED_ERROR:]
        self.stop()
        return NoAnswer(f"{shlex.join(self.argv)} {how}" + (f": {said}" if said else ""), exit_status=code)

    def reap(self):
        """Kills the process and its group and reaps it. The group is killed before the process is
        reaped: until then the group's number cannot be another process's."""
        if self.process.returncode is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.process.kill()  # it left its group: it alone, then
            self.process.wait()

    def stop(self):
        """Kills the process and its group, reaps it and closes its pipes."""
        self.reap()
        for stream in (self.process.stdin, self.process.stdout, self.errors):
            try:
                stream.close()
            except OSError:
                pass

    def close(self):
        """Ends the process as the end of a run does: its input closed (it exits at the end of its
        input), then stopped as `stop` does if it has not exited by then."""
        try:
            self.process.stdin.close()
        except OSError:
            pass
        deadline = time.monotonic() + EXIT_GRACE
        while self.running() and time.monotonic() < deadline:
            time.sleep(0.02)
        self.stop()


class Deciders:
    """The running deciders of this process, lent to one asking thread at a time and kept for the
    next page, and the count of pages in a row that got no answer; a process forked from this one
    starts its own of both."""

    def __init__(self):
        self.lock = threading.Lock()
        self.owner = os.getpid()
        self.idle = {}
        self.every = []
        self.failures_in_a_row = 0
        self.given_up = False

    def borrow(self, argv):
        """An idle decider for `argv`, else a new one (NoAnswer if it cannot be started)."""
        while True:
            with self.lock:
                if self.owner != os.getpid():
                    # A forked worker: the parent's processes answer the parent only.
                    self.owner, self.idle, self.every = os.getpid(), {}, []
                    self.failures_in_a_row, self.given_up = 0, False
                waiting = self.idle.get(tuple(argv))
                decider = waiting.pop() if waiting else None
            if decider is None:
                break
            if decider.running():
                return decider
            self.discard(decider)  # ended while idle: not this page's fault
        decider = Decider(argv)
        with self.lock:
            self.every.append(decider)
        return decider

    def ask(self, argv, path, timeout):
        """The record for `path` from a decider for `argv`, borrowed and given back; one that gives
        no answer (NoAnswer) is stopped and dropped, so that the next page gets a fresh process."""
        decider = self.borrow(argv)
        try:
            record = decider.ask(path, timeout)
        except BaseException:
            self.discard(decider)
            raise
        self.give_back(decider)
        return record

    def give_back(self, decider):
        with self.lock:
            if self.owner == os.getpid() and decider.running():
                self.idle.setdefault(tuple(decider.argv), []).append(decider)
                return
        self.discard(decider)

    def discard(self, decider):
        decider.stop()
        with self.lock:
            if decider in self.every:
                self.every.remove(decider)

    def new_run(self):
        """Forgets the last run's pages without an answer (an API caller runs OCRmyPDF again in the
        same process)."""
        with self.lock:
            self.failures_in_a_row, self.given_up = 0, False

    def answered(self):
        with self.lock:
            self.failures_in_a_row = 0

    def failed(self):
        """Counts a page without an answer: how many in a row it makes, FAILURES_IN_A_ROW at most
        (then the plugin gives up on docorient); 0 for a page asked before it gave up."""
        with self.lock:
            if self.given_up:
                return 0
            self.failures_in_a_row += 1
            self.given_up = self.failures_in_a_row >= FAILURES_IN_A_ROW
            return self.failures_in_a_row

    def close_all(self):
        with self.lock:
            mine = self.every if self.owner == os.getpid() else []
            self.idle, self.every = {}, []
        for decider in mine:
            decider.close()


DECIDERS = Deciders()
atexit.register(DECIDERS.close_all)


def get_orientation(input_file, options):
    """docorient's answer for the page image `input_file`, as OCRmyPDF's OrientationConfidence;
    LEAVE_ALONE, with a warning, when no answer can be had."""
    timeout = answer_timeout(options)
    if timeout <= 0:
        return LEAVE_ALONE
    if DECIDERS.given_up:
        log.debug("docorient: %s is left as it is (docorient is no longer asked)", page_name(input_file))
        return LEAVE_ALONE
    binary = command()
    if binary is None:
        return leave_alone(input_file, NoAnswer(NOT_FOUND))
    try:
        record = DECIDERS.ask(decide_arguments(binary, options), os.fspath(input_file), timeout)
    except NoAnswer as failure:
        return leave_alone(input_file, failure)
    DECIDERS.answered()
    return describe(record, input_file)


def leave_alone(input_file, failure):
    """LEAVE_ALONE for a page docorient gave no answer for, with the one warning that says why."""
    in_a_row = DECIDERS.failed()
    page = page_name(input_file)
    if in_a_row == FAILURES_IN_A_ROW:
        log.warning(
            "docorient gave no answer for %s, which is left as it is: %s. That is %d pages in a row without an "
            "answer: docorient is not asked about the rest of the pages, which are left as they are",
            page,
            failure,
            FAILURES_IN_A_ROW,
        )
    elif in_a_row == 0:
        # Asked before the plugin gave up, from another thread, and said once already.
        log.debug("docorient gave no answer for %s, which is left as it is: %s", page, failure)
    else:
        log.warning("docorient gave no answer for %s, which is left as it is: %s", page, failure)
    return LEAVE_ALONE


def check_decider_starts(argv, timeout):
    """Starts the first `docorient decide` and asks it an empty line, which it answers once it has
    found its models: a docorient that cannot start (or answers as no docorient does) is a start-up
    error with its own message, as a missing one is. One that is only slow is left to the pages'
    timeouts. It answers the first page."""
    try:
        DECIDERS.ask(argv, "", timeout)
    except NoAnswer as failure:
        if failure.timed_out:
            log.warning("docorient: when started, %s; the pages are asked all the same", failure)
            return
        error = BadArgsError if failure.exit_status == USAGE_ERROR else MissingDependencyError
        raise error(f"docorient_ocrmypdf: docorient cannot start: {failure}") from failure


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
    # What no fresh process puts right fails the run before the first page is rendered.
    if not getattr(options, "rotate_pages", False):
        return
    DECIDERS.new_run()
    binary = command()
    if binary is None:
        raise MissingDependencyError(f"docorient_ocrmypdf: {NOT_FOUND}")
    timeout = answer_timeout(options)
    if timeout > 0:
        check_decider_starts(decide_arguments(binary, options), timeout)


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

"""No corpus image may look like one of the independent held-out check's images.

The check ships only fingerprints (`../shared/heldout/check_overlap.py`, beside the repository);
it exits non-zero naming every corpus image that matches one. Replace what it names.
"""

import os
import subprocess
import sys

from corpusgen.shared import require

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(os.path.dirname(ROOT), "shared", "heldout", "check_overlap.py")


def test_no_corpus_image_looks_like_a_heldout_one():
    require(CHECK)
    run = subprocess.run(
        [sys.executable, CHECK, os.path.join(ROOT, "Corpus")], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, f"images that look like the held-out check's:\n{run.stdout}{run.stderr}"
    assert " 0 match" in run.stdout, run.stdout

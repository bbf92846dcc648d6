"""The docorient binaries this checkout builds, for the scripts and tests that run them: one way to
find them. $DOCORIENT names docorient outright; otherwise `.build/BUILD/docorient`: the release build
for scripts, which time it (never a debug build in its place); for tests the debug build, which
`swift build` makes, else the release build.
The lab's binary, `docorient-lab` (recording, replay, fitting), is built beside docorient, so it is
found beside whichever docorient was found; `classify` runs its classifier on files."""

from __future__ import annotations

import json
import os
import subprocess

from .shared import ROOT


def is_built(path: str | None) -> bool:
    """Whether `path` is a file that can be run."""
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def docorient(*builds: str) -> str:
    """$DOCORIENT when set; else the docorient of the first of `builds` (default: release) that is
    built; else the first one's path, which is not there (running it says so, naming it)."""
    named = os.environ.get("DOCORIENT")
    if named:
        return named
    paths = [os.path.join(ROOT, ".build", b, "docorient") for b in builds or ("release",)]
    return next((p for p in paths if is_built(p)), paths[0])


def docorient_lab(docorient_path: str | None = None) -> str:
    """The `docorient-lab` beside `docorient_path` (default: `docorient()`, the release build's)."""
    return os.path.join(os.path.dirname(docorient_path or docorient()), "docorient-lab")


def classify(lab: str, model: str, files: list[str], *options: str, onnxruntime: str | None = None) -> list[dict]:
    """`docorient-lab classify --classifier MODEL OPTIONS FILES` with the lab at `lab`: its JSON
    records, one a file, in order. `onnxruntime` is what $DOCORIENT_ONNXRUNTIME names for the run;
    None: the variable unset, whatever this environment says, so that the tree's default runtime
    answers. Raises RuntimeError with the lab's error output when it fails."""
    env = {k: v for k, v in os.environ.items() if k != "DOCORIENT_ONNXRUNTIME"}
    if onnxruntime is not None:
        env["DOCORIENT_ONNXRUNTIME"] = onnxruntime
    run = subprocess.run(
        [lab, "classify", "--classifier", model, *options, *files],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    if run.returncode != 0:
        raise RuntimeError(f"docorient-lab classify failed: {run.stderr}")
    return [json.loads(line) for line in run.stdout.splitlines()]

"""The folders beside the checkout that the tree reads but never holds (`../shared`): the real
photos and scans the benchmark judges by (`real/`), the training photos (`train/`) and the
independent check's fingerprints (`heldout/`). Every developer machine and CI has them; a clone on
its own does not, and the tests that need them say so (`require`)."""

from __future__ import annotations

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(os.path.dirname(ROOT), "shared")
REAL = os.path.join(SHARED, "real")
REAL_MANIFEST = os.path.join(REAL, "manifest.csv")
REAL_NOTHING_MANIFEST = os.path.join(REAL, "nothing", "manifest.csv")
TRAIN = os.path.join(SHARED, "train")
# The real set's manifest columns (tests/test_real.py holds the manifest to them).
REAL_COLUMNS = [
    "file",
    "upright_orientation",
    "decidable",
    "kind",
    "capture",
    "language",
    "source",
    "commit",
    "path",
    "licence",
    "notes",
]


def require(path: str) -> None:
    """Skips the calling test, naming `path`, when it is not here; in CI (`CI` set), fails it
    instead: CI lays `shared/` beside the clone, so a missing folder there is a broken run."""
    import pytest

    if os.path.exists(path):
        return
    if os.environ.get("CI"):
        pytest.fail(f"{path} is missing: CI lays shared/ beside the clone")
    pytest.skip(f"{path} not found: shared/ is not beside this clone")


def manifest_file(manifest: str, name: str) -> str:
    """The path of a file a manifest lists: named from the manifest's folder, or from the folder
    above it (`../shared/real/nothing/manifest.csv` lists `nothing/n0001.jpg`)."""
    base = os.path.dirname(os.path.abspath(manifest))
    path = os.path.join(base, name)
    return path if os.path.exists(path) else os.path.join(os.path.dirname(base), name)

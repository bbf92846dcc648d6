"""Fixtures every Python test of the tree may ask for (pytest.ini beside this file)."""

import pytest

from corpusgen import built


@pytest.fixture(scope="session")
def docorient() -> str:
    """The docorient the tests run ($DOCORIENT, else the debug build, else the release build); the
    test is skipped when none is built."""
    path = built.docorient("debug", "release")
    if not built.is_built(path):
        pytest.skip(f"{path} is not built (swift build)")
    return path


@pytest.fixture(scope="session")
def docorient_lab(docorient) -> str:
    """The docorient-lab built beside the tests' docorient; the test is skipped when it is not."""
    path = built.docorient_lab(docorient)
    if not built.is_built(path):
        pytest.skip(f"{path} is not built (swift build)")
    return path

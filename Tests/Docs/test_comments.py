"""Comments give reasons: no measured figure, no path that is not there, no test that is not there.

The first test fails naming each finding as `file:line: what`; run `python3 Tests/Docs/check_comments.py`
for the same list. The second runs the checker on a small tree with one comment of each kind, and
code that only looks like one, so a checker that stopped seeing them would fail here rather than pass.

Run: python3 -m pytest -q Tests/Docs
"""

import os

import check_comments as checker

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_no_comment_carries_a_figure_a_missing_path_or_a_missing_test():
    found = checker.findings(ROOT)
    assert found == [], "comments to move to docs/decisions or to correct:\n" + "\n".join(
        f"{file}:{line}: {what}" for file, line, what in found
    )


TOY_SOURCE = """\
// Reads the page (decision 1); see Sources/Toy/Toy.swift and docs/gone.md.
/// Decodes in 33 ms, holds 40 MiB, right on 97% of them.
let text = "a // not a comment, 12 ms"
let block = \"\"\"
    // inside a string literal, 5 ms
    \"\"\"
/* a block comment
   took 1.5 s */
let stages = 2  // two stages, 3 passes
// ToyTests.decodes and ToyTests.vanished; testGone; test_gone and test_kept; GoneTests.
"""

TOY_TEST = """\
struct ToyTests {
    @Test func decodes() {}
}
"""


def test_the_checker_names_exactly_the_findings(tmp_path):
    (tmp_path / "Sources" / "Toy").mkdir(parents=True)
    (tmp_path / "Tests" / "ToyTests").mkdir(parents=True)
    (tmp_path / "Sources" / "Toy" / "Toy.swift").write_text(TOY_SOURCE)
    (tmp_path / "Tests" / "ToyTests" / "ToyTests.swift").write_text(TOY_TEST)
    (tmp_path / "Tests" / "test_toy.py").write_text("def test_kept():\n    pass\n")

    found = checker.findings(str(tmp_path))

    toy = os.path.join("Sources", "Toy", "Toy.swift")
    assert sorted(found) == sorted(
        [
            (toy, 1, "a path that does not exist (docs/gone.md)"),
            (toy, 2, "a measured figure (33 ms)"),
            (toy, 2, "a measured figure (40 MiB)"),
            (toy, 2, "a measured figure (97%)"),
            (toy, 8, "a measured figure (1.5 s)"),
            (toy, 10, "a test type that does not exist (GoneTests)"),
            (toy, 10, "a test that does not exist (vanished)"),
            (toy, 10, "a test that does not exist (testGone)"),
            (toy, 10, "a Python test that does not exist (test_gone)"),
        ]
    ), found

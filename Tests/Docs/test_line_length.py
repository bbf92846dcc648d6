"""No Swift line over 120 columns outside generated files (`*+Generated.swift`).

swift format's lint keeps code within 120 columns but leaves a long string literal or doc line as
it is; this names each such line as `file:line: N columns`.

Run: python3 -m pytest -q Tests/Docs/test_line_length.py
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIMIT = 120


def long_lines(root, folders=("Sources", "Tests")):
    found = []
    for folder in folders:
        for directory, _, names in os.walk(os.path.join(root, folder)):
            for name in sorted(names):
                if not name.endswith(".swift") or name.endswith("+Generated.swift"):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as handle:
                    for number, line in enumerate(handle, 1):
                        width = len(line.rstrip("\n"))
                        if width > LIMIT:
                            found.append(f"{os.path.relpath(path, root)}:{number}: {width} columns")
    return found


def test_no_swift_line_is_over_120_columns():
    found = long_lines(ROOT)
    assert found == [], "Swift lines over 120 columns (split the string, or move it to a resource):\n" + "\n".join(
        found
    )


def test_a_long_line_is_named_and_a_generated_file_is_not(tmp_path):
    sources = tmp_path / "Sources" / "Target"
    sources.mkdir(parents=True)
    (sources / "Long.swift").write_text('let fine = 1\nlet message = "' + "x" * 120 + '"\n')
    (sources / "Table+Generated.swift").write_text('let table = "' + "x" * 200 + '"\n')
    assert long_lines(str(tmp_path)) == ["Sources/Target/Long.swift:2: 136 columns"]

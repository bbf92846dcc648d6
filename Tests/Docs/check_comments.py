#!/usr/bin/env python3
"""Lists the comments of the Swift sources and tests that carry what belongs elsewhere.

    python3 Tests/Docs/check_comments.py [PACKAGE_DIR]     # exit 1 and one line per finding when any

A comment gives the reason for the code beside it; what was measured, and how the code came to be,
goes to the decision pages (docs/decisions/README.md), where a figure has its command and date. So
a comment is reported when it holds:

- a measured figure: a number with a unit of time, memory or share (`12 ms`, `1.5 s`, `40 MiB`,
  `95%`); a value the code sets is named by its constant instead (`SETTINGS` lists the few
  defaults a public API documents in figures, each with its reason);
- a path of the tree that does not exist (`Sources/...`, `Tests/...`, `docs/...`, a file named with
  one of the tree's extensions), so a comment never sends a reader to a file since moved;
- a test that does not exist: a `...Tests` type or target, a `test...` method or a
  `...Tests.name` test of the Swift tests, or a `test_...` function of the Python tests.
"""

import glob
import os
import re
import sys

# A number with a unit of time, memory or share ("2 stages" is no figure: the unit is a word of its own).
FIGURE = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?\s?(?:ms|µs|us|ns|s|MiB|KiB|GiB|MB|KB|GB|kB|%)(?!\w)")

# A token that names a place in the tree: under one of its top-level folders, or a file with one
# of its extensions.
TOP_LEVEL = ("Sources/", "Tests/", "Models/", "Corpus/", "Benchmarks/", "Scripts/", "docs/", "API/", "Plugins/", ".ci/")
PATH_TOKEN = re.compile(r"(?:\.\./shared/|\.\./)?[\w.+-]+(?:/[\w.+-]+)*/?")
EXTENSIONS = (".swift", ".py", ".md", ".json", ".csv", ".sh", ".toml", ".yml", ".yaml", ".onnx", ".mustache")

# Figures that are settings, not measurements: the defaults a public API documents for the people
# who configure it, and the limits of a library it runs on. (file, figure): why.
SETTINGS = {
    ("Sources/DocOrientServer/Server.swift", "32 MiB"): "the service's default body limit",
    ("Sources/DocOrientServer/Server.swift", "10 s"): "the service's default header and body windows",
    ("Sources/DocOrientServer/Server.swift", "2 KiB"): "the service's default slowest body rate",
    ("Sources/DocOrientServer/Server.swift", "75 s"): "the service's default idle timeout",
    ("Sources/DocOrientServer/Server.swift", "20 s"): "the service's default drain after SIGTERM",
    ("Sources/DocOrientReview/ReviewServer.swift", "16 KiB"): "the review's default body limit",
    ("Sources/DocOrient/Resolver/ResolverConfiguration.swift", "60 s"): "the library's default engine idle timeout",
    ("Sources/DocOrientServer/ConnectionDeadlines.swift", "64 KiB"): "NIO's default high watermark",
    ("Sources/DocOrientServer/ConnectionDeadlines.swift", "32 KiB"): "NIO's default low watermark",
}

SWIFT_TEST_TYPE = re.compile(r"\b([A-Z]\w*Tests)\b")
SWIFT_TEST_METHOD = re.compile(r"\b(test[A-Z]\w*)\b|\b[A-Z]\w*Tests\.(?!swift\b)([a-z]\w*)\b")
PYTHON_TEST = re.compile(r"\b(test_\w+)\b(?!\.py)")


def comments(path):
    """The comments of one Swift file: [(line number, text)], string literals skipped."""
    found = []
    block = False
    literal = False
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if literal or (not block and line.count('"""') % 2 == 1):
                # Inside a multi-line string literal (or on its opening or closing line): text, not code.
                literal = literal != (line.count('"""') % 2 == 1)
                continue
            if block:
                end = line.find("*/")
                found.append((number, line if end < 0 else line[:end]))
                block = end < 0
                continue
            code = _outside_strings(line)
            index = code.find("//")
            start = code.find("/*")
            if start >= 0 and (index < 0 or start < index):
                end = line.find("*/", start + 2)
                found.append((number, line[start + 2 : end if end >= 0 else None]))
                block = end < 0
            elif index >= 0:
                found.append((number, line[index:].lstrip("/")))
    return found


def _outside_strings(line):
    """The line with the insides of its one-line string literals blanked, so `"a//b"` is no comment."""
    out = []
    quoted = False
    escaped = False
    for char in line:
        if quoted:
            out.append(" ")
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        else:
            out.append(char)
            quoted = char == '"'
    return "".join(out)


def _names(package):
    """The tests that exist: Swift test types and methods, Python test functions."""
    types, methods, functions = set(), set(), set()
    for path in glob.glob(os.path.join(package, "Tests", "**", "*.swift"), recursive=True):
        text = open(path, encoding="utf-8").read()
        types.update(re.findall(r"(?:class|struct|enum|extension)\s+(\w+)", text))
        types.add(os.path.splitext(os.path.basename(path))[0])
        types.add(os.path.basename(os.path.dirname(path)))  # a test target
        methods.update(re.findall(r"func\s+(\w+)", text))
    for path in glob.glob(os.path.join(package, "**", "*.py"), recursive=True):
        relative = os.path.relpath(path, package)
        if relative.startswith(".build") or "/work/" in relative:
            continue
        functions.update(re.findall(r"def\s+(test_\w+)", open(path, encoding="utf-8").read()))
    return types, methods, functions


def _missing_path(package, token):
    """True when the token names a path of the tree (or beside it) that does not exist."""
    if any(mark in token for mark in ("*", "{", "<", "...", "NAME", "XXX")):
        return False
    names_place = token.startswith(TOP_LEVEL) or token.startswith("../shared/")
    if not names_place:
        return False
    return not os.path.exists(os.path.join(package, token))


def findings(package):
    """Every comment finding under Sources/ and Tests/: [(relative path, line, what)]."""
    package = os.path.abspath(package)
    types, methods, functions = _names(package)
    found = []
    files = sorted(
        glob.glob(os.path.join(package, "Sources", "**", "*.swift"), recursive=True)
        + glob.glob(os.path.join(package, "Tests", "**", "*.swift"), recursive=True)
    )
    for path in files:
        relative = os.path.relpath(path, package)
        for number, text in comments(path):
            for match in FIGURE.finditer(text):
                if (relative, match.group(0).strip()) in SETTINGS:
                    continue
                found.append((relative, number, f"a measured figure ({match.group(0).strip()})"))
            for match in PATH_TOKEN.finditer(text):
                token = match.group(0).rstrip(".,:;)")
                if _missing_path(package, token):
                    found.append((relative, number, f"a path that does not exist ({token})"))
            for name in SWIFT_TEST_TYPE.findall(text):
                if name not in types:
                    found.append((relative, number, f"a test type that does not exist ({name})"))
            for name in ("".join(pair) for pair in SWIFT_TEST_METHOD.findall(text)):
                if name not in methods:
                    found.append((relative, number, f"a test that does not exist ({name})"))
            for name in PYTHON_TEST.findall(text):
                if name not in functions and not name.endswith("_"):
                    found.append((relative, number, f"a Python test that does not exist ({name})"))
    return found


def main():
    package = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    found = findings(package)
    for file, line, what in found:
        print(f"{file}:{line}: {what}")
    print(f"{len(found)} comments that carry a figure, a missing path or a missing test", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

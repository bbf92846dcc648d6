#!/usr/bin/env python3
"""Lists every public (or open) declaration under Sources/ that has no `///` doc comment.

    python3 Tests/Docs/check_doc_comments.py [PACKAGE_DIR]     # exit 1 and one line per symbol when any

Library targets are read from the compiler's symbol graph (`swift package dump-symbol-graph`, which
builds first, so the graph is never older than the sources): every symbol a client of the module
sees, including members made public by a `public extension`, enum cases of public enums, protocol
requirements, `@_spi` symbols and members added to other modules' types. A symbol counts as
documented only by its own comment: `-skip-inherited-docs` keeps a `description` or `init(from:)`
from borrowing the protocol's text. Symbols the compiler writes itself (an enum's `init(rawValue:)`,
a synthesized `Codable` init) have no place in the sources and are not asked for.

SwiftPM writes no symbol graph for executable targets, so their sources are scanned instead: any
line that declares with a `public` or `open` modifier (in any `#if` branch) needs a `///` line
above it, attributes aside.
"""

import glob
import json
import os
import re
import subprocess
import sys
import time

DUMP_FLAGS = [
    "--minimum-access-level",
    "public",
    "--skip-inherited-docs",
    "--skip-synthesized-members",
    "--include-spi-symbols",
]

KIND_NAMES = {
    "swift.class": "class",
    "swift.struct": "struct",
    "swift.enum": "enum",
    "swift.enum.case": "case",
    "swift.protocol": "protocol",
    "swift.init": "init",
    "swift.deinit": "deinit",
    "swift.method": "func",
    "swift.type.method": "static func",
    "swift.func": "func",
    "swift.func.op": "operator",
    "swift.property": "var",
    "swift.type.property": "static var",
    "swift.var": "var",
    "swift.subscript": "subscript",
    "swift.type.subscript": "static subscript",
    "swift.typealias": "typealias",
    "swift.associatedtype": "associatedtype",
    "swift.macro": "macro",
}

# A declaration line whose modifiers include public or open (after any attributes).
PUBLIC_DECL = re.compile(
    r"^\s*(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:final|static|class|override|nonisolated|mutating|"
    r"indirect|convenience|required|dynamic|lazy)\s+)*(?:public|open)(?:\([^)]*\))?\s+"
    r"(?!import\b)"
)
ATTRIBUTE_LINE = re.compile(r"^\s*@[\w.]+(?:\([^)]*\))?\s*$")


def targets(package):
    """The package's Swift source targets (not tests): [(name, type, absolute path)]."""
    run = subprocess.run(
        ["swift", "package", "describe", "--type", "json"], cwd=package, capture_output=True, text=True
    )
    if run.returncode != 0:
        raise RuntimeError("swift package describe failed:\n" + run.stderr[-3000:])
    description = json.loads(run.stdout[run.stdout.index("{") :])
    return sorted(
        (t["name"], t["type"], os.path.join(package, t["path"]))
        for t in description["targets"]
        if t.get("module_type") == "SwiftTarget" and t["type"] != "test"
    )


_graphs = {}


def dump_symbol_graphs(package):
    """The package's symbol graphs, dumped once per process (see `_dump_symbol_graphs`)."""
    if package not in _graphs:
        _graphs[package] = _dump_symbol_graphs(package)
    return _graphs[package]


def _dump_symbol_graphs(package):
    """Runs `swift package dump-symbol-graph` (it builds first); returns its output folder and start time."""
    started = time.time() - 1
    run = subprocess.run(
        ["swift", "package", "dump-symbol-graph", *DUMP_FLAGS], cwd=package, capture_output=True, text=True
    )
    written = re.search(r"Files written to (\S+)", run.stdout + run.stderr)
    if run.returncode != 0 or not written:
        raise RuntimeError("swift package dump-symbol-graph failed:\n" + (run.stdout + run.stderr)[-4000:])
    return written.group(1), started


def documented(comment, location_uri):
    """True when the symbol carries its own non-blank doc comment (not one inherited from elsewhere)."""
    if not comment or not any(line.get("text", "").strip() for line in comment.get("lines", [])):
        return False
    return comment.get("uri") in (None, location_uri)


def undocumented_in_graphs(package, graph_dir, started, module, source_dir):
    """Undocumented symbols of one library module: [(relative path, line, description)]."""
    files = [os.path.join(graph_dir, f"{module}.symbols.json")]
    files += glob.glob(os.path.join(graph_dir, f"{module}@*.symbols.json"))
    # Only graphs this run wrote: an extension file left from an earlier run may describe code since removed.
    files = [f for f in files if os.path.exists(f) and os.path.getmtime(f) >= started]
    if not any(os.path.basename(f) == f"{module}.symbols.json" for f in files):
        raise RuntimeError(f"dump-symbol-graph wrote no symbol graph for {module} in {graph_dir}")
    found = {}
    prefix = "file://" + os.path.realpath(source_dir) + os.sep
    for path in files:
        with open(path, encoding="utf-8") as handle:
            graph = json.load(handle)
        for symbol in graph["symbols"]:
            location = symbol.get("location")
            if not location or not location["uri"].startswith(prefix):
                continue  # written by the compiler, or another module's code
            if documented(symbol.get("docComment"), location["uri"]):
                continue
            file = os.path.relpath(location["uri"][len("file://") :], os.path.realpath(package))
            line = location["position"]["line"] + 1
            kind = KIND_NAMES.get(symbol["kind"]["identifier"], symbol["kind"]["identifier"])
            found[symbol["identifier"]["precise"]] = (file, line, f"{kind} {'.'.join(symbol['pathComponents'])}")
    return list(found.values())


def undocumented_in_sources(package, source_dir):
    """Public declarations without a `///` line above them, by reading the sources (executable targets)."""
    found = []
    for path in sorted(glob.glob(os.path.join(source_dir, "**", "*.swift"), recursive=True)):
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().split("\n")
        for index, text in enumerate(lines):
            if not PUBLIC_DECL.match(text):
                continue
            above = index - 1
            while above >= 0 and ATTRIBUTE_LINE.match(lines[above]):
                above -= 1
            if above >= 0 and (lines[above].lstrip().startswith("///") or lines[above].rstrip().endswith("*/")):
                continue
            found.append((os.path.relpath(path, package), index + 1, text.split("{")[0].strip()))
    return found


def undocumented(package):
    """Every undocumented public declaration of the package's Swift source targets, sorted by file and line."""
    package = os.path.abspath(package)
    found = []
    graph_dir = started = None
    for name, kind, source_dir in targets(package):
        if kind == "executable":
            found += undocumented_in_sources(package, source_dir)
            continue
        if graph_dir is None:
            graph_dir, started = dump_symbol_graphs(package)
        found += undocumented_in_graphs(package, graph_dir, started, name, source_dir)
    return sorted(found)


def main():
    package = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    found = undocumented(package)
    for file, line, what in found:
        print(f"{file}:{line}: {what} has no /// doc comment")
    print(f"{len(found)} public declarations without a doc comment", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

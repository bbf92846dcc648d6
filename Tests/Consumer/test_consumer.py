"""A package that depends only on the `DocOrient` product, built the way a user builds it.

It compiles README's library example (the ingest worker, copied from README.md as written) in a
fresh package with a path dependency on this repository, then checks the build plan: only the
core `DocOrient` module, swift-system's `SystemPackage` (its one package dependency) and the
consumer are compiled (no GRDB, no DocOrientBatch, no Hummingbird or NIO), and the program's record for a sample equals `docorient fix --dry-run --json`'s.

Run: python3 -m pytest -q Tests/Consumer   (about a minute: a debug build of the core)
"""

import json
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(ROOT, "Corpus", "samples", "0003_letter.jpg")

MAIN = """\
import DocOrient
import Foundation

let path = CommandLine.arguments[1], out = URL(fileURLWithPath: CommandLine.arguments[2])
let upload = (name: URL(fileURLWithPath: path).lastPathComponent, data: try Data(contentsOf: URL(fileURLWithPath: path)))
for record in try await ingest([upload], into: out) { print(record.jsonLine) }
"""


def readme_example():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = text[text.index("## As a library") :]
    match = re.search(r"```swift\n(.*?)```", section, re.DOTALL)
    assert match, "README's library section has no swift code block"
    return match.group(1)


@pytest.fixture(scope="module")
def consumer(tmp_path_factory):
    pkg = tmp_path_factory.mktemp("ingest")
    (pkg / "Sources" / "Ingest").mkdir(parents=True)
    # A path dependency's package name is the folder's name (README says so too).
    name = os.path.basename(ROOT)
    (pkg / "Package.swift").write_text(
        "// swift-tools-version:6.0\n"
        "import PackageDescription\n"
        "let package = Package(\n"
        '    name: "ingest",\n'
        f'    dependencies: [.package(path: "{ROOT}")],\n'
        '    targets: [.executableTarget(name: "Ingest", dependencies: [.product(name: "DocOrient", package: "%s")])]\n'
        ")\n" % name
    )
    (pkg / "Sources" / "Ingest" / "Worker.swift").write_text(readme_example())
    (pkg / "Sources" / "Ingest" / "main.swift").write_text(MAIN)
    build = subprocess.run(["swift", "build"], cwd=pkg, capture_output=True, text=True)
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    return pkg


def test_a_consumer_of_the_core_compiles_only_the_core(consumer):
    modules = sorted(
        f[: -len(".swiftmodule")]
        for f in os.listdir(consumer / ".build" / "debug" / "Modules")
        if f.endswith(".swiftmodule")
    )
    assert modules == ["DocOrient", "Ingest", "SystemPackage"], modules
    objects = [
        os.path.join(d, f)
        for d, _, fs in os.walk(consumer / ".build" / "debug")
        for f in fs
        if f.endswith(".o") and ("GRDB" in d or "Hummingbird" in d or "NIO" in d or "DocOrientBatch" in d)
    ]
    assert objects == [], objects[:5]


def test_the_readme_worker_gives_the_clis_record(consumer, tmp_path):
    run = subprocess.run(
        [str(consumer / ".build" / "debug" / "Ingest"), SAMPLE, str(tmp_path)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout.splitlines()[0])
    cli = subprocess.run(
        ["swift", "run", "--skip-build", "docorient", "fix", "--dry-run", "--json", SAMPLE],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    want = json.loads(cli.stdout.splitlines()[0])
    for key in ("exif_orientation", "detected_orientation", "verdict", "confidence"):
        assert got[key] == want[key], (key, got, want)
    assert got["action"] == "tag_rewritten" and want["action"] == "would_rewrite_tag"
    written = tmp_path / "0003_letter.jpg"
    assert written.exists() and written.read_bytes() != open(SAMPLE, "rb").read()

#!/usr/bin/env bash
# The whole test suite, set-up included: README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/bootstrap.sh
# Formatting (.swift-format: 120 columns, 4 spaces): `swift format -i -r Sources Tests` fixes it.
swift format lint --strict -r Sources Tests
# Every Python file of the tree (ruff.toml; ruff from Corpus/requirements.txt): `ruff format . && ruff check --fix .`
# fixes most of it.
ruff format --check .
ruff check .
swift build --build-tests
swift test --skip-build
python3 -m pytest -q Corpus/tests Benchmarks/orientation Benchmarks/service Models Tests/Consumer Tests/Docs Tests/Layers \
    Tests/Service Tests/PDF Tests/Paperless Tests/OCRmyPDF \
    Tests/Package

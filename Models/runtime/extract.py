#!/usr/bin/env python3
"""Puts onnxruntime's C library, the runtime docorient's orientation classifier runs in, into
Models/runtime/ (not committed: 24 MB), from the PyPI wheel it comes from, and checks it.

    python3 Models/runtime/extract.py            # fetch it if missing or not the recorded file
    python3 Models/runtime/extract.py --check    # only check what is there (exit 1 if not)

The library is `libonnxruntime.so.1.28.0` of the onnxruntime 1.28.0 wheel (MIT): 1.28.0 because
1.29 and later carry their own curl and mbedtls, which lintian reports in the Debian package. The
wheel is fetched for one fixed platform and Python tag (`pip download --no-deps`), so every machine
gets the same bytes whatever its own Python, and the library's sha256 is checked before it is put
in place (atomically, beside its licence and third-party notices). Scripts/bootstrap.sh runs this;
docorient finds the library here when it runs from the source tree (Models/runtime/README.md).
"""

import argparse
import hashlib
import os
import pathlib
import subprocess
import sys
import tempfile
import zipfile

VERSION = "1.28.0"
WHEEL = f"onnxruntime-{VERSION}-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
MEMBER = f"onnxruntime/capi/libonnxruntime.so.{VERSION}"
SHA256 = "aa4079d18f4ea7a5f3a94d80cd4bbe0f2740436626622d64d793803a20381083"
HERE = pathlib.Path(__file__).resolve().parent
LIBRARY = HERE / "libonnxruntime.so.1"
# What the wheel says of its licence, copied beside the library (the Debian package ships both).
NOTICES = {"onnxruntime/LICENSE": "LICENSE", "onnxruntime/ThirdPartyNotices.txt": "ThirdPartyNotices.txt"}


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def fetch():
    with tempfile.TemporaryDirectory() as scratch:
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--disable-pip-version-check",
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            "311",
            "--platform",
            "manylinux_2_28_x86_64",
            "-d",
            scratch,
            f"onnxruntime=={VERSION}",
        ]
        subprocess.run(command, check=True)
        wheel = pathlib.Path(scratch) / WHEEL
        if not wheel.exists():
            sys.exit(f"extract: pip did not fetch {WHEEL}: {sorted(os.listdir(scratch))}")
        with zipfile.ZipFile(wheel) as z:
            library = z.read(MEMBER)
            if hashlib.sha256(library).hexdigest() != SHA256:
                sys.exit(f"extract: {MEMBER} of {WHEEL} is not the recorded file (sha256 {SHA256})")
            for member, name in NOTICES.items():
                (HERE / name).write_bytes(z.read(member))
        partial = LIBRARY.with_name(LIBRARY.name + ".partial")
        partial.write_bytes(library)
        partial.chmod(0o644)
        os.replace(partial, LIBRARY)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only check the library in place")
    args = ap.parse_args()
    if sha256(LIBRARY) != SHA256:
        if args.check:
            sys.exit(f"{LIBRARY} is missing or not onnxruntime {VERSION}'s library: run Models/runtime/extract.py")
        print(f"extract: fetching onnxruntime {VERSION}'s C library from PyPI", file=sys.stderr)
        fetch()
    print(f"{LIBRARY.relative_to(HERE.parent.parent)}: {SHA256} = onnxruntime {VERSION} {MEMBER}")


if __name__ == "__main__":
    main()

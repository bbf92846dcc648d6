#!/usr/bin/env python3
"""Turns a page from swift-argument-parser's generate-manual into the page the package installs.

    python3 Packaging/manpage.py docorient.fix.1 > docorient-fix.1

generate-manual names a subcommand's page `docorient.fix` and puts the command's help text in as
it is. What changes, and why:
- the page is `docorient-fix` (as git's are `git-commit`): in NAME, the title and every
  cross-reference, so `man docorient-fix` and `whatis` find it, while SYNOPSIS and AUTHORS keep
  the command as it is typed, `docorient fix`;
- a blank line of the help text becomes `.Pp` (a blank line in mdoc is an error to groff), and a
  run of lines indented by two spaces (the Examples) a literal display, so they keep their lines.
"""

import re
import sys


def convert(text: str) -> str:
    lines = text.splitlines()
    command = None
    out = []
    literal = False
    section = None
    for line in lines:
        if line.startswith(".Sh "):
            section = line[4:].strip('"')
        # A subcommand's subcommand (`docorient a b`) too.
        match = re.fullmatch(r'\.Nm "?(docorient(?: [a-z-]+)*)"?', line)
        if match and command is None:
            command = match.group(1)
            line = ".Nm " + command.replace(" ", "-")
        elif line == ".Nm" and command is not None and " " in command:
            line = f'.Nm "{command}"'
        elif line.startswith('.Nd "') and line.endswith('"'):
            line = ".Nd " + line[5:-1]  # whatis keeps quotes
        elif line.startswith(".Dt "):
            line = re.sub(r"DOCORIENT(?:\.[A-Z-]+)+", lambda m: m.group(0).replace(".", "-"), line)
        elif line.startswith(".Xr "):
            line = re.sub(r"docorient(?:\.[a-z-]+)+", lambda m: m.group(0).replace(".", "-"), line)
        indented = line.startswith("  ") and section != "SYNOPSIS"
        if indented and not literal:
            out.append(".Bd -literal -offset indent")
            literal = True
        elif not indented and literal:
            out.append(".Ed")
            literal = False
        if indented:
            out.append(line.strip())
        elif line.strip() == "":
            out.append(".Pp")
        else:
            out.append(line)
    if literal:
        out.append(".Ed")
    # A paragraph break right before a display, a list or a section is redundant (mandoc warns).
    cleaned = []
    for line in out:
        if line == ".Pp" and cleaned and cleaned[-1] == ".Pp":
            continue
        if line.startswith((".Bd", ".Bl", ".Sh")) and cleaned and cleaned[-1] == ".Pp":
            cleaned.pop()
        cleaned.append(line)
    return "\n".join(cleaned) + "\n"


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as page:
        sys.stdout.write(convert(page.read()))

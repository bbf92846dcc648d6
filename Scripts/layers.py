#!/usr/bin/env python3
"""The dependencies between the source folders (layers), and a check that they have no cycle.

    python3 Scripts/layers.py            # prints every folder's dependencies; exit 1 on a cycle
    python3 Scripts/layers.py --dot      # the same as a Graphviz graph
    python3 Scripts/layers.py --sources DIR   # another tree laid out like Sources/

A folder depends on another when one of its files names a type (struct, class, enum, protocol,
actor, typealias) declared in the other (a word match on the sources, comments and strings removed),
or uses (`.name`) a member that the other declares in an extension (`extension Duration { var
milliseconds ... }`): the extension belongs to the folder of its file, whatever type it extends.
A member name another folder's types or extensions declare too is no evidence; one the standard
library also has (`merging`) can draw an arrow that is not there, never hide one.
Folders are the subfolders of Sources/DocOrient and each other target under Sources/ (a module is
one node). Modules already cannot import each other in a loop; this checks the folders inside the
core, which the compiler does not.
"""

import os
import re
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = os.path.join(ROOT, "Sources")
DECLARATION = re.compile(
    r"^(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect)\s+)*"
    r"(?:struct|class|enum|protocol|actor|typealias)\s+([A-Za-z_]\w*)",
    re.MULTILINE,
)
WORD = re.compile(r"[A-Za-z_]\w*")
KEYWORD = re.compile(r"\b(extension|struct|class|enum|protocol|actor|func|var|let|init|subscript|case)\b")
TYPE_KEYWORDS = ("struct", "class", "enum", "protocol", "actor")
MEMBER = re.compile(
    r"((?:(?:private|fileprivate|public|package|internal|static|class|final|override|mutating|nonisolated|lazy)\s+)*)"
    r"\b(?:func|var|let|case)\s+([A-Za-z_]\w*)"
)
MEMBER_USE = re.compile(r"\.([A-Za-z_]\w*)")


def strip(text):
    """The code without comments and string literals (so a doc line naming a type is no dependency)."""
    text = re.sub(r'"""(?:.|\n)*?"""', '""', text)
    text = re.sub(r"/\*(?:.|\n)*?\*/", "", text)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def members_of(text):
    """The functions, properties and cases declared directly in the file's types and extensions,
    each as (name, whether an extension declares it for other files to use); not a function's
    local names."""
    found, stack, start = [], [], 0
    for i, c in enumerate(text):
        if c not in "{}":
            continue
        parent = stack[-1] if stack else "file"
        if parent in ("type", "extension"):
            found += [
                (name, parent == "extension" and "private" not in modifiers)
                for modifiers, name in MEMBER.findall(text[start:i])
            ]
        if c == "{":
            kind = "code"
            if parent != "code":
                # A block's header runs from the last brace; its last keyword says what it opens.
                keywords = KEYWORD.findall(text[start:i])
                last = keywords[-1] if keywords else ""
                kind = "extension" if last == "extension" else "type" if last in TYPE_KEYWORDS else "code"
            stack.append(kind)
        elif stack:
            stack.pop()
        start = i + 1
    return found


def layer(path):
    parts = os.path.relpath(path, SOURCES).split(os.sep)
    if parts[0] == "DocOrient" and len(parts) > 2:
        return "DocOrient/" + parts[1]
    return parts[0]


def graph():
    files = defaultdict(list)
    for folder, _, names in os.walk(SOURCES):
        for name in names:
            if name.endswith(".swift"):
                path = os.path.join(folder, name)
                files[layer(path)].append(strip(open(path, encoding="utf-8").read()))
    declared = {}
    for node, texts in files.items():
        for text in texts:
            for name in DECLARATION.findall(text):
                # A name declared in several layers (a nested type, an overload) is no evidence.
                declared[name] = node if declared.get(name, node) == node else None
    members, declaring = {}, defaultdict(set)
    for node, texts in files.items():
        for text in texts:
            for name, in_extension in members_of(text):
                declaring[name].add(node)
                if in_extension:
                    members[name] = node if members.get(name, node) == node else None
    # An extension member whose name another layer's type or extension declares too is no
    # evidence: `.page` may be anyone's.
    members = {name: node for name, node in members.items() if node and declaring[name] == {node}}
    edges = defaultdict(set)
    for node, texts in files.items():
        for name in uses(texts, declared, members):
            edges[node].add(declared.get(name) or members[name])
        edges[node].discard(node)
    return sorted(files), edges, (declared, members)


def uses(texts, declared, members):
    """The names of other layers' types and extension members the texts use."""
    text = "\n".join(texts)
    types = {name for name in WORD.findall(text) if declared.get(name)}
    return types | {name for name in MEMBER_USE.findall(text) if name in members and name not in types}


def cycles(nodes, edges):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in nodes:
        if v not in index:
            visit(v)
    return out


def why(a, b, declared):
    """Names declared in `b` that `a` uses, for the error message."""
    texts = []
    for folder, _, names in os.walk(SOURCES):
        for name in names:
            path = os.path.join(folder, name)
            if name.endswith(".swift") and layer(path) == a:
                texts.append(strip(open(path, encoding="utf-8").read()))
    types, members = declared
    return sorted(n for n in uses(texts, types, members) if (types.get(n) or members.get(n)) == b)


def main():
    global SOURCES
    if "--sources" in sys.argv:
        SOURCES = os.path.abspath(sys.argv[sys.argv.index("--sources") + 1])
    nodes, edges, declared = graph()
    if "--dot" in sys.argv:
        print("digraph layers {\n  rankdir=BT;")
        for a in nodes:
            for b in sorted(edges.get(a, ())):
                print(f'  "{a}" -> "{b}";')
        print("}")
        return 0
    for a in nodes:
        print(f"{a:24} -> {', '.join(sorted(edges.get(a, ()))) or '(nothing)'}")
    found = cycles(nodes, edges)
    for component in found:
        print(f"\ncycle among {', '.join(component)}:", file=sys.stderr)
        for a in component:
            for b in component:
                if b in edges.get(a, ()):
                    print(f"  {a} -> {b}: {', '.join(why(a, b, declared)[:8])}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

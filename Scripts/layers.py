#!/usr/bin/env python3
"""The dependencies between the source folders (layers), and a check that they have no cycle.

    python3 Scripts/layers.py            # prints every folder's dependencies; exit 1 on a cycle
    python3 Scripts/layers.py --dot      # the same as a Graphviz graph
    python3 Scripts/layers.py --sources DIR   # another tree laid out like Sources/

A folder depends on another when one of its files names a type (struct, class, enum, protocol,
actor, typealias) declared in the other (a word match on the sources, comments and strings removed).
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


def strip(text):
    """The code without comments and string literals (so a doc line naming a type is no dependency)."""
    text = re.sub(r'"""(?:.|\n)*?"""', '""', text)
    text = re.sub(r"/\*(?:.|\n)*?\*/", "", text)
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


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
    edges = defaultdict(set)
    for node, texts in files.items():
        used = set(WORD.findall("\n".join(texts)))
        for name in used:
            owner = declared.get(name)
            if owner and owner != node:
                edges[node].add(owner)
    return sorted(files), edges, declared


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
    used = set(WORD.findall("\n".join(texts)))
    return sorted(n for n in used if declared.get(n) == b)


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

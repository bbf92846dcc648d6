"""The libraries' public API names no C type and no GRDB type.

C stays behind `Sources/DocOrient/Interop` (its modules are imported `internal`), and GRDB behind
the journal (`internal import GRDB`): a caller of DocOrient or DocOrientBatch never needs either,
and neither can change under them. Read from the compiler's symbol graph of every library module
(the same dump as the doc-comment check): every public declaration's type references, and every
conformance and extension the module makes public.

Run: python3 -m pytest -q Tests/Docs
"""

import glob
import json
import os

import check_doc_comments as checker

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Precise identifiers (USRs) of what must not appear: C declarations ("c:..."), anything of the
# GRDB module (Swift USRs of a module's declarations start "s:4GRDB"), raw C pointers.
FORBIDDEN = ("c:", "s:4GRDB", "s:s13OpaquePointerV")


def leaks(package):
    package = os.path.abspath(package)
    graph_dir, _ = checker.dump_symbol_graphs(package)
    found = []
    for name, kind, _ in checker.targets(package):
        if kind == "executable":
            continue
        files = glob.glob(os.path.join(graph_dir, f"{name}.symbols.json"))
        files += glob.glob(os.path.join(graph_dir, f"{name}@*.symbols.json"))
        assert any(f.endswith(f"/{name}.symbols.json") for f in files), f"no symbol graph for {name}"
        for path in files:
            extended = os.path.basename(path)[len(name) + 1 :].split(".")[0]
            if extended and (extended.startswith("C") or extended == "GRDB"):
                found.append(f"{name} extends the module {extended} publicly")
            graph = json.load(open(path, encoding="utf-8"))
            names = {s["identifier"]["precise"]: ".".join(s["pathComponents"]) for s in graph["symbols"]}
            for symbol in graph["symbols"]:
                fragments = list(symbol.get("declarationFragments", []))
                signature = symbol.get("functionSignature", {})
                for parameter in signature.get("parameters", []):
                    fragments += parameter.get("declarationFragments", [])
                fragments += signature.get("returns", [])
                for fragment in fragments:
                    usr = fragment.get("preciseIdentifier", "")
                    if usr.startswith(FORBIDDEN):
                        found.append(
                            f"{name}: {'.'.join(symbol['pathComponents'])} uses {fragment['spelling']} ({usr})"
                        )
            for relation in graph.get("relationships", []):
                if relation["target"].startswith(FORBIDDEN):
                    source = names.get(relation["source"], relation["source"])
                    found.append(
                        f"{name}: {source} {relation['kind']} {relation.get('targetFallback', relation['target'])}"
                    )
    return sorted(set(found))


def test_the_public_api_names_no_c_and_no_grdb_type():
    found = leaks(ROOT)
    assert found == [], "public API exposing C or GRDB:\n" + "\n".join(found)

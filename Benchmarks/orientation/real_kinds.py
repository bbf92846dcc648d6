#!/usr/bin/env python3
"""Accuracy on the real set's handwritten and non-Latin files, per peer, from bench.py's JSONL.

A file counts as handwriting by its manifest kind, and as another script by its manifest language
(the first of a "+" list). Used for the handwriting and other-scripts rows of RESULTS.md
(sessions 21 and 22).

    python3 Benchmarks/orientation/real_kinds.py run.jsonl [more.jsonl ...]
"""

import collections
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Corpus"))
from corpusgen.shared import REAL_MANIFEST as MANIFEST

man = {r["file"]: r for r in csv.DictReader(open(MANIFEST))}
NONLATIN = {"zh", "ja", "ko", "hi", "ar", "ru", "el", "he", "th", "uk", "fa"}


def src(name):
    base = name.split("/")[-1]
    stem, ext = base.rsplit(".", 1)
    stem = stem.rsplit(".u", 1)[0]
    for cand in (stem + "." + ext, stem + ".jpg", stem + ".png"):
        if cand in man:
            return man[cand]
    return None


for f in sys.argv[1:]:
    recs = [json.loads(l) for l in open(f)]
    for peer in ("docorient", "rapid", "osd-inprocess"):
        rs = [r for r in recs if r.get("peer") == peer and r["part"] == "real" and r["decidable"]]
        if not rs:
            continue
        g = collections.defaultdict(lambda: [0, 0, 0])
        for r in rs:
            m = src(r["file"])
            keys = []
            if m["kind"] == "handwriting":
                keys.append("handwriting")
            if m["language"].split("+")[0] in NONLATIN or m["language"] in NONLATIN:
                keys.append("non-Latin script")
            if keys:
                keys.append("handwriting or non-Latin")
            keys.append("all")
            for k in keys:
                g[k][0] += 1
                g[k][1] += r["correct"]
                g[k][2] += r["answer"] is not None and not r["correct"]
        print(
            f.split("/")[-1], peer, {k: f"{v[1]}/{v[0]} ({100 * v[1] / v[0]:.1f}%) wrong {v[2]}" for k, v in g.items()}
        )

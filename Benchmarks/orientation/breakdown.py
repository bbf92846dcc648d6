#!/usr/bin/env python3
"""The benchmark's per-part view: fit part, held-out part (and all), by kind, typeface class and
capture, a reliability table and the time tail, from bench.py's per-file JSONL and the manifest.

    python3 Benchmarks/orientation/breakdown.py --manifest SET/manifest.csv --jsonl bench.jsonl [--markdown FILE]

bench.py calls it itself when the manifest has a `split` column (Corpus 2 sets). The rule it
serves (Corpus/README.md "Splits"): thresholds and Models/fit.py may look only at the fit part;
the held-out part (typefaces and layouts never fitted on) is for judging, and a change that helps
the fit part and hurts the held-out part is a regression.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
from collections import defaultdict

# Confidence bins of the reliability table (lower edges; the last bin includes 1.0).
BINS = [0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99]


def pct(sorted_vals, q):
    if not sorted_vals:
        return float("nan")
    k = (len(sorted_vals) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (k - lo)


def time_tail(seconds):
    """Median, p90, p99, max, total, and the share of the total taken by the slowest 10% of files."""
    s = sorted(x for x in seconds if x is not None)
    if not s:
        return {"median": float("nan"), "p90": float("nan"), "p99": float("nan"), "max": float("nan"),
                "total": 0.0, "slowest10": float("nan")}
    total = sum(s)
    k = max(1, round(len(s) * 0.1))
    return {"median": pct(s, 0.5), "p90": pct(s, 0.9), "p99": pct(s, 0.99), "max": s[-1], "total": total,
            "slowest10": sum(s[-k:]) / total if total > 0 else float("nan")}


def accuracy(recs):
    dec = [r for r in recs if r["decidable"]]
    und = [r for r in recs if not r["decidable"]]
    right = sum(1 for r in dec if r["correct"])
    wrong = [r for r in dec if not r["abstained"] and not r["correct"]]
    return {
        "n": len(recs), "dec": len(dec), "right": right,
        "acc": 100.0 * right / len(dec) if dec else float("nan"),
        "wrong": len(wrong), "wrong90": sum(1 for r in wrong if (r.get("confidence") or 0) >= 0.9),
        "undecided": sum(1 for r in dec if r["abstained"]),
        "neg": len(und), "neg_abstained": sum(1 for r in und if r["abstained"]),
    }


def reliability(recs):
    """Answered decidable files per confidence bin: (label, count, share right)."""
    rows = []
    answered = [r for r in recs if r["decidable"] and not r["abstained"] and r.get("confidence") is not None]
    for i, lo in enumerate(BINS):
        hi = BINS[i + 1] if i + 1 < len(BINS) else None
        inside = [r for r in answered if r["confidence"] >= lo and (hi is None or r["confidence"] < hi)]
        label = f"{lo:.2f}-{hi:.2f}" if hi is not None else f">={lo:.2f}"
        share = 100.0 * sum(1 for r in inside if r["correct"]) / len(inside) if inside else float("nan")
        rows.append((label, len(inside), share))
    return rows


def attach(records, manifest_rows):
    """Adds the manifest's part, family, font_class and capture to each record (by file name)."""
    by_file = {r["file"]: r for r in manifest_rows}
    for rec in records:
        m = by_file.get(rec["file"], {})
        rec["part"] = m.get("split") or "fit"
        rec["family"] = m.get("family", "")
        rec["font_class"] = m.get("font_class") or "-"
        rec["capture"] = m.get("capture") or "flat"
    return records


def table(title, headers, rows):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    return "\n".join([f"### {title}", "", line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
                     + [line(r) for r in rows])


def report(records):
    out = []
    peers = sorted({r["peer"] for r in records}, key=lambda p: (p != "docorient", p))
    osd = {r["file"]: r["seconds"] for r in records if r["peer"] == "osd-inprocess"}
    parts = ["fit", "holdout", "real", "all"]

    def part_recs(recs, part):
        return recs if part == "all" else [r for r in recs if r["part"] == part]

    head = ["peer", "part", "files", "right on decidable", "wrong (conf>=0.9)", "undecided", "negatives abstained",
            "median s", "p90", "p99", "max", "slowest 10% share", "total s", "total/OSD", "median/OSD"]
    rows = []
    for p in peers:
        mine = [r for r in records if r["peer"] == p]
        for part in parts:
            recs = part_recs(mine, part)
            if not recs:
                continue
            a, t = accuracy(recs), time_tail([r["seconds"] for r in recs])
            o = time_tail([osd.get(r["file"]) for r in recs]) if osd and p != "osd-inprocess" else None
            rows.append([p, part, a["n"], f"{a['acc']:.1f}% ({a['right']}/{a['dec']})", f"{a['wrong']} ({a['wrong90']})",
                         a["undecided"], f"{a['neg_abstained']}/{a['neg']}", f"{t['median']:.3f}", f"{t['p90']:.3f}",
                         f"{t['p99']:.3f}", f"{t['max']:.2f}", f"{100 * t['slowest10']:.0f}%", f"{t['total']:.1f}",
                         f"{t['total'] / o['total']:.2f}" if o and o["total"] else "-",
                         f"{t['median'] / o['median']:.2f}" if o and o["median"] else "-"])
    out.append(table("Parts (README figures: holdout and real)", head, rows))

    for p in peers:
        mine = [r for r in records if r["peer"] == p]
        for axis in ("kind", "font_class", "capture"):
            for part in ("fit", "holdout"):
                recs = part_recs(mine, part)
                if not recs:
                    continue
                groups = defaultdict(list)
                for r in recs:
                    groups[r[axis]].append(r)
                body = []
                for name, g in groups.items():
                    a, t = accuracy(g), time_tail([r["seconds"] for r in g])
                    body.append((a["acc"] if a["dec"] else 101, [name, a["n"], f"{a['acc']:.1f}%" if a["dec"] else "-",
                                 a["wrong"], a["undecided"], f"{a['neg_abstained']}/{a['neg']}",
                                 f"{t['median']:.3f}", f"{t['max']:.2f}"]))
                body.sort(key=lambda x: (x[0], x[1][0]))
                out.append("")
                out.append(table(f"{p}, {part} part, by {axis} (worst first)",
                                 [axis, "files", "right", "wrong", "undecided", "neg abstained", "median s", "max s"],
                                 [b for _, b in body]))

    for p in peers:
        mine = [r for r in records if r["peer"] == p and r.get("confidence") is not None]
        if not mine:
            continue
        for part in ("fit", "holdout", "real"):
            recs = part_recs(mine, part)
            if not recs:
                continue
            out.append("")
            out.append(table(f"{p}, {part} part: reliability (answered decidable files)",
                             ["confidence", "answers", "share right"],
                             [[lab, n, f"{s:.1f}%" if n else "-"] for lab, n, s in reliability(recs)]))

    misses = [r for r in records if r["peer"] == "docorient" and r["decidable"] and not r["correct"]]
    if misses:
        out.append("")
        out.append(table("docorient: wrong answers and undecided decidable files",
                         ["file", "part", "kind", "family", "capture", "truth", "answer", "confidence", "note"],
                         [[r["file"], r["part"], r["kind"], r["family"], r["capture"], r["truth"], r["answer"],
                           r.get("confidence"), (r.get("note") or "")[:60]]
                          for r in sorted(misses, key=lambda r: (r["abstained"], r["part"], r["file"]))]))
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--jsonl", required=True, help="bench.py's per-file output")
    ap.add_argument("--markdown", help="also write the tables to this file")
    args = ap.parse_args(argv)
    with open(args.manifest, newline="") as fh:
        rows = list(csv.DictReader(fh))
    with open(args.jsonl) as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    text = report(attach(records, rows))
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

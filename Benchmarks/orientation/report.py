"""The orientation benchmark's tables (bench.py prints them and writes them as markdown): per part
a headline per peer, breakdowns by kind, font class, capture and format, docorient's reliability,
which of its readers decided, its HEIC twins and its misses."""

from __future__ import annotations

import math

from peers import PROBABILITY_PEERS
from scoring import (
    CONFIDENT,
    NEEDLESS,
    PARTS,
    RIGHT,
    WRONG,
    breakdown,
    handled_share,
    misses,
    ratio_to,
    reliability,
    summarize,
    time_distribution,
    twin_pairs,
    twin_summary,
)

from corpusgen import kinds

PART_TITLES = {
    "train": "training photos, validation fold (fit)",
    "fit": "generated, fit part",
    "holdout": "generated, held-out part",
    "real": "real set",
    "nothing": "real photos with nothing to orient",
    "all": "all files",
}

# Who answered a file: the text, the classifier alone after the text was read, the classifier
# trusted with nothing read (`classifier.trustAt`: its record lists no candidate read), both
# together (`classifier.agreeAt`: the text read best, if too little alone, in the classifier's
# rotation), or nobody.
READERS = ["text", "classifier after reading", "classifier, nothing read", "both", "undecided"]


def reader_of(record):
    by = record.get("decided_by")
    if by == "classifier":
        return "classifier, nothing read" if record.get("candidates_read") == 0 else "classifier after reading"
    return by or "undecided"


def twin_table(pairs):
    """docorient on each HEIC twin against the same capture as JPEG (generate.py --heic)."""
    s = twin_summary(pairs)
    rows = [
        [
            s["pairs"],
            s["same_answer"],
            s["same_verdict"],
            s["right_heic"],
            s["right_jpeg"],
            _f(s["max_conf_diff"]),
            _f(s["median_heic"]),
            _f(s["median_jpeg"]),
            _f(s["total_heic"], 1),
            _f(s["total_jpeg"], 1),
        ]
    ]
    text = fmt_table(
        "docorient on HEIC twins vs the same captures as JPEG",
        rows,
        [
            "pairs",
            "same answer",
            "same verdict",
            "right HEIC",
            "right JPEG",
            "max conf diff",
            "median s HEIC",
            "median s JPEG",
            "total s HEIC",
            "total s JPEG",
        ],
    )
    if s["differ"]:
        diff = [
            [
                h["file"],
                h["truth"],
                "-" if h["answer"] is None else h["answer"],
                "-" if j["answer"] is None else j["answer"],
                _f(h.get("confidence")),
                _f(j.get("confidence")),
            ]
            for h, j in s["differ"]
        ]
        text += "\n\n" + fmt_table(
            "HEIC twins answered differently from their JPEG",
            diff,
            ["file", "truth", "HEIC answer", "JPEG answer", "HEIC conf", "JPEG conf"],
        )
    return text


def fmt_table(title, rows, headers):
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(headers)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"
    out = [f"### {title}", "", line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


def _f(x, digits=3):
    return "-" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def _right(s):
    return f"{s['correct']}/{s['dec']} ({_f(s['acc'], 1)}%)" if s["dec"] else "-"


def _wrong(s, peer):
    return f"{s['wrong']} ({s['wrong_confident']})" if peer in PROBABILITY_PEERS else f"{s['wrong']} (-)"


def _all_right(s):
    return f"{s['right']}/{s['n']} ({_f(100.0 * handled_share(s), 1)}%)" if s["n"] else "-"


def _scenes(s):
    return f"{s['scene_abstained']}/{s['scene_upright']}/{s['scene_wrong']} of {s['scenes']}" if s["scenes"] else "-"


def _needless(s):
    return f"{s['needless']}/{s['no_up']} ({_f(100.0 * s['needless_share'], 1)}%)" if s["no_up"] else "-"


SCENES_COLUMN = "scenes: abstained/upright/wrong"
NO_UP_COLUMN = "no up: answered (needless)"
HEADLINE = [
    "peer",
    "files",
    "files right",
    "decidable right",
    f"wrong (conf >= {CONFIDENT})",
    "undecidable on decidable",
    SCENES_COLUMN,
    NO_UP_COLUMN,
    "median s",
    "p90 s",
    "p99 s",
    "max s",
    "textless median s",
    "textless max s",
    "slowest 10% share",
    "total s",
    "total / OSD",
    "median / OSD",
]


def headline_rows(records, peers, part, peak=None):
    base = [r for r in records if r["peer"] == "osd-inprocess" and (part == "all" or r["part"] == part)]
    rows = []
    for p in peers:
        recs = [r for r in records if r["peer"] == p and (part == "all" or r["part"] == part)]
        if not recs:
            continue
        s = summarize(recs)
        ratio = ratio_to(recs, base) if base else None
        row = [
            p,
            s["n"],
            _all_right(s),
            _right(s),
            _wrong(s, p),
            f"{s['abst_dec']}/{s['dec']}" if s["dec"] else "-",
            _scenes(s),
            _needless(s),
            _f(s["median"]),
            _f(s["p90"]),
            _f(s["p99"]),
            _f(s["max"]),
            _f(s["textless_median"]),
            _f(s["textless_max"]),
            _f(s["slowest10"], 2),
            _f(s["total"], 1),
            _f(ratio[0], 2) if ratio else "-",
            _f(ratio[1], 2) if ratio else "-",
        ]
        if peak is not None:
            row.append(f"{peak.get(p, 0):.0f}")
        rows.append(row)
    return rows


BREAKDOWN = [
    "files",
    "files right",
    "decidable right",
    "wrong",
    "undecidable on decidable",
    SCENES_COLUMN,
    NO_UP_COLUMN,
    "median s",
    "max s",
]


def breakdown_rows(recs, key):
    return [
        [
            k,
            s["n"],
            _all_right(s),
            _right(s),
            s["wrong"],
            f"{s['abst_dec']}/{s['dec']}" if s["dec"] else "-",
            _scenes(s),
            _needless(s),
            _f(s["median"]),
            _f(s["max"]),
        ]
        for k, s in breakdown(recs, key)
    ]


def markdown(records, peers, peak, entries, sources, max_misses=25):
    """The markdown text: headlines per part, breakdowns, reliability, docorient's misses."""
    parts = [p for p in PARTS if any(e["part"] == p for e in entries)]
    out = []
    counts = ", ".join(f"{PART_TITLES[p]} {sum(1 for e in entries if e['part'] == p)}" for p in parts)
    judged = {j: sum(1 for e in entries if e["judged"] == j) for j in (kinds.PAGE, kinds.SCENE, kinds.NO_UP)}
    out.append(
        f"Files: {len(entries)} ({counts}; {judged[kinds.PAGE]} decidable pages, {judged[kinds.SCENE]} scenes, "
        f"{judged[kinds.NO_UP]} with no up) from {', '.join(sources)}"
    )
    out.append(
        "Thresholds and the fits (docorient-lab replay) may look only at the fit part; the held-out part and the real set "
        "are for judging (Benchmarks/orientation/README.md)."
    )
    out.append(
        "What is right (issue 60, section 1): a decidable page (any text, a word or two included) answered "
        "upright; a scene (no text, an up: a street, an animal, a cup) abstained or answered upright; a file "
        "with no up (blank paper, a barcode, a texture) abstained. "
        f"Columns: files right = all three; wrong = an answer other than the upright on a page or a scene (in "
        f"brackets: with confidence >= {CONFIDENT}, for peers whose confidence is a probability); undecidable on "
        f"decidable = pages abstained; {SCENES_COLUMN} = scenes abstained, answered upright, answered otherwise "
        f"(the last also in wrong); {NO_UP_COLUMN} = files with no up given an answer, a needless change (the goal: "
        "at most 5%); textless median s and max s = the time of the scenes and the files with no up (goals: a "
        "median of at most 0.06 s on the photos with nothing to orient, at most 0.5 s each); slowest 10% share = "
        "the slowest tenth of the files' share of the total time; total / OSD and median / OSD = this peer's "
        "seconds over osd-inprocess's on the same files.\n"
    )
    for part in parts:
        rows = headline_rows(records, peers, part)
        if rows:
            out.append(fmt_table(f"Headline: {PART_TITLES[part]}", rows, HEADLINE))
            out.append("")
    out.append(
        fmt_table(
            "Headline: all files (peak MB: the whole run)",
            headline_rows(records, peers, "all", peak),
            HEADLINE + ["peak MB"],
        )
    )
    out.append("")

    ordered = sorted(peers, key=lambda p: p != "docorient")
    for p in ordered:
        for part in parts:
            recs = [r for r in records if r["peer"] == p and r["part"] == part]
            if not recs:
                continue
            keys = [
                ("kind", "document kind"),
                ("font_class", "font class"),
                ("capture", "capture"),
                ("format", "format"),
            ]
            if part == "real":
                keys = [k for k in keys if k[0] != "font_class"]
            for key, label in keys:
                out.append(
                    fmt_table(
                        f"{p}, {PART_TITLES[part]}, by {label} (worst first)",
                        breakdown_rows(recs, key),
                        [label] + BREAKDOWN,
                    )
                )
                out.append("")

    for p in [p for p in ordered if p in PROBABILITY_PEERS]:
        for part in parts + ["all"]:
            recs = [r for r in records if r["peer"] == p and (part == "all" or r["part"] == part)]
            if not recs:
                continue
            rows = [
                [b["bin"], b["n"], b["right"], _f(b["share"], 3), _f(b["mean_conf"], 3), b["needless"]]
                for b in reliability(recs)
            ]
            out.append(
                fmt_table(
                    f"{p} reliability, {PART_TITLES[part]}",
                    rows,
                    [
                        "confidence",
                        "answered (pages and scenes)",
                        "right",
                        "share right",
                        "mean confidence",
                        "needless (no up answered)",
                    ],
                )
            )
            out.append("")

    if "docorient" in peers:
        rows = []
        for part in parts:
            recs = [r for r in records if r["peer"] == "docorient" and r["part"] == part]
            for reader in READERS:
                mine = [r for r in recs if reader_of(r) == reader]
                if mine:
                    times = time_distribution(r["seconds"] for r in mine)
                    rows.append(
                        [
                            PART_TITLES[part],
                            reader,
                            len(mine),
                            sum(r["outcome"] == RIGHT for r in mine),
                            sum(r["outcome"] == WRONG for r in mine),
                            sum(r["outcome"] == NEEDLESS for r in mine),
                            _f(times["median"], 3),
                            _f(times["total"], 1),
                        ]
                    )
        if rows:
            out.append(
                fmt_table(
                    "docorient: which reader decided (`decided_by`; the classifier trusted with nothing read is "
                    "the fast path) and what those files cost",
                    rows,
                    ["part", "reader", "answers", "right", "wrong", "needless", "median s", "total s"],
                )
            )
            out.append("")
        pairs = twin_pairs([r for r in records if r["peer"] == "docorient"])
        if pairs:
            out.append(twin_table(pairs))
            out.append("")
        miss = misses([r for r in records if r["peer"] == "docorient"])
        out.append(
            f"### docorient's wrong answers, undecidables on decidable files and needless changes: {len(miss)}"
            + (f" (first {max_misses}; all in the JSONL, `miss` field)" if len(miss) > max_misses else "")
        )
        out.append("")
        rows = [
            [
                r["file"],
                r["outcome"],
                r["part"],
                r["kind"],
                r.get("family") or "-",
                r.get("capture") or "-",
                r["truth"],
                r["answer"] if r["answer"] is not None else "-",
                _f(r.get("confidence"), 3),
                (r.get("reason") or "").replace("|", "/"),
            ]
            for r in miss[:max_misses]
        ]
        if rows:
            out.append(
                fmt_table(
                    "docorient misses",
                    rows,
                    ["file", "miss", "part", "kind", "family", "capture", "truth", "answer", "confidence", "reason"],
                ).split("\n", 2)[2]
            )
    return "\n".join(out)

#!/usr/bin/env python3
"""Fits how far the classifier's word goes beside the text's (Models/calibration.json `classifier`).

Replays `DecisionRules.arbitrate` on records of a docorient build whose classifier only orders the
reads and records its probabilities (decideAloneAt and overruleAt above 1: the text alone
decides), and chooses, on the FIT part only:

- decideAloneAt: the lowest probability at which the classifier, answering alone where the text
  did not decide, gives no wrong answer on the fit part, mirrored pages and hard negatives counted
  as wrong (the project's rule for `decideAt`);
- aloneConfidence: the share of those answers right, with Laplace's rule ((right + 1) / (n + 2)),
  so that a few right answers do not make an answer certain;
- overruleAt, ocrStandsAt: where a text answer the classifier contradicts becomes undecidable:
  the pair that removes the most wrong text answers and loses no right one.

Then prints what the chosen values do on every part given (judging only), and the floor of
`narrowAt` (`narrow_floor`). The replay does not model narrowing itself (the records' text answers
come from whatever reads the build made) nor `pageMarks`, which the records do not carry
(Benchmarks/orientation/RESULTS.md, session 22).

    docorient fix --dry-run --json --jobs 1 FILES... > records.jsonl    (one per part, run where the files are)
    python3 Benchmarks/studies/classifier_fit.py --manifest SET/manifest.csv --records fit.jsonl \
        [--judge holdout.jsonl real.jsonl --real-manifest Corpus/real/manifest.csv]
"""

import argparse
import csv
import json
import os

MIRRORED = {2, 4, 5, 7}
QUARTER = {1: 0, 6: 1, 3: 2, 8: 3, 2: 0, 7: 1, 4: 2, 5: 3}  # clockwise quarter turns, Orientation.quarterTurns


def load(records_path, truth):
    rows = []
    for line in open(records_path):
        if not line.startswith("{"):
            continue
        r = json.loads(line)
        name = os.path.basename(r["path"])
        if name not in truth:
            continue
        t, decidable = truth[name]
        cls = {int(k): v for k, v in (r.get("classifier") or {}).items()}
        rows.append(
            {
                "file": name,
                "truth": t,
                "decidable": decidable,
                "answer": r["detected_orientation"],
                "confidence": r["confidence"],
                "classifier": cls,
                "candidates": {c["orientation"]: c for c in r["candidates"]},
            }
        )
    return rows


def arbitrate(r, alone, alone_conf, overrule, stands):
    """(answer, confidence, reader) as DecisionRules.arbitrate would give them."""
    cls = r["classifier"]
    seen = max(cls, key=lambda o: (cls[o], -[1, 3, 6, 8].index(o)))
    sure = cls[seen]
    if r["answer"] is not None:
        if r["confidence"] >= stands or sure < overrule:
            return r["answer"], r["confidence"], "text"
        a = r["answer"]
        if a in MIRRORED:
            twin = r["candidates"].get(seen, {}).get("characters", 0)
            agrees = QUARTER[a] % 2 == QUARTER[seen] % 2 and twin > 0
        else:
            agrees = a == seen
        return (a, r["confidence"], "text") if agrees else (None, 0, None)
    if sure < alone:
        return None, 0, None
    rotation = r["candidates"].get(seen, {}).get("score", 0)
    mirrored = [c["score"] for o, c in r["candidates"].items() if o in MIRRORED]
    if mirrored and max(mirrored) > rotation and max(mirrored) >= 10:
        return None, 0, None
    return seen, sure * alone_conf, "classifier"


def tally(rows, params):
    out = {
        "right": 0,
        "wrong": 0,
        "confident_wrong": 0,
        "undecided": 0,
        "neg_answered": 0,
        "neg": 0,
        "by": {"text": [0, 0], "classifier": [0, 0]},
        "wrong_files": [],
    }
    for r in rows:
        a, c, who = arbitrate(r, *params)
        if not r["decidable"]:
            out["neg"] += 1
            out["neg_answered"] += a is not None
            continue
        if a is None:
            out["undecided"] += 1
        elif a == r["truth"]:
            out["right"] += 1
            out["by"][who][0] += 1
        else:
            out["wrong"] += 1
            out["confident_wrong"] += c >= 0.9
            out["by"][who][1] += 1
            out["wrong_files"].append((r["file"], r["truth"], a, round(c, 3), who))
    return out


def fit(rows):
    grid = [
        round(0.5 + 0.01 * i, 2) for i in range(44)
    ]  # 0.50 ... 0.93 (the model's combined probability stays under 0.94)
    undecided = [r for r in rows if r["answer"] is None]
    alone = None
    for t in grid:
        wrong = 0
        for r in undecided:
            a, _, who = arbitrate(r, t, 1, 2, 2)
            if who == "classifier" and (not r["decidable"] or a != r["truth"]):
                wrong += 1
        if wrong == 0:
            alone = t
            break
    alone = alone if alone is not None else 2.0
    answered = [r for r in undecided if arbitrate(r, alone, 1, 2, 2)[2] == "classifier"]
    right = sum(1 for r in answered if r["decidable"] and arbitrate(r, alone, 1, 2, 2)[0] == r["truth"])
    alone_conf = round((right + 1) / (len(answered) + 2), 3)
    best = None
    for overrule in grid + [2.0]:
        for stands in [0.9, 0.95, 0.99, 1.01]:
            t = tally(rows, (alone, alone_conf, overrule, stands))
            key = (t["wrong"], -t["right"], -overrule)
            if best is None or key < best[0]:
                best = (key, overrule, stands)
    # Keep the text's right answers: no pair may lose one against no overruling at all.
    base = tally(rows, (alone, alone_conf, 2.0, 2.0))
    t = tally(rows, (alone, alone_conf, best[1], best[2]))
    overrule, stands = (
        (best[1], best[2]) if t["right"] >= base["right"] - 0 and t["wrong"] < base["wrong"] else (2.0, 0.9)
    )
    return {"decideAloneAt": alone, "aloneConfidence": alone_conf, "overruleAt": overrule, "ocrStandsAt": stands}


def narrow_floor(rows):
    """The highest probability at which the classifier named a rotation that is neither the right
    one nor, on a mirrored page, a rotation on its axis (its mirrored twins): `narrowAt` must lie
    above it, since from there the text reads that rotation and its twins only (`Lead`)."""
    worst = 0.0
    for r in rows:
        if not r["decidable"] or not r["classifier"]:
            continue
        cls = r["classifier"]
        seen = max(cls, key=cls.get)
        t = r["truth"]
        consistent = QUARTER[seen] % 2 == QUARTER[t] % 2 if t in MIRRORED else seen == t
        if not consistent:
            worst = max(worst, cls[seen])
    return worst


def manifest_truth(path):
    return {r["file"]: (int(r["upright_orientation"]), r["decidable"] == "1") for r in csv.DictReader(open(path))}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--manifest", required=True, help="the generated set's manifest.csv (fit and held-out rows)")
    ap.add_argument("--records", required=True, help="docorient records of the FIT part")
    ap.add_argument("--judge", nargs="*", default=[], help="records of other parts, judged with the fitted values")
    ap.add_argument(
        "--real-manifest", help="Corpus/real/manifest.csv, for real-set records (files <name>.u<truth>.<ext>)"
    )
    args = ap.parse_args()
    truth = manifest_truth(args.manifest)
    if args.real_manifest:
        for r in csv.DictReader(open(args.real_manifest)):
            stem, ext = os.path.splitext(r["file"])
            for t in range(1, 9):
                truth[f"{stem}.u{t}{ext}"] = (t, r["decidable"] == "1")
                truth[f"{stem}.u{t}.jpg"] = (t, r["decidable"] == "1")
    fit_rows = load(args.records, truth)
    params = fit(fit_rows)
    print(json.dumps(params))
    print(
        f"narrowAt must exceed {narrow_floor(fit_rows):.3f}: the classifier's highest probability for a rotation "
        "neither right nor on a mirrored page's axis, on the fit part"
    )
    order = (params["decideAloneAt"], params["aloneConfidence"], params["overruleAt"], params["ocrStandsAt"])
    for name, rows in [("fit", fit_rows)] + [(p, load(p, truth)) for p in args.judge]:
        text_only = tally(rows, (2.0, 1, 2.0, 2.0))
        both = tally(rows, order)
        dec = sum(1 for r in rows if r["decidable"])
        for label, t in (("text alone", text_only), ("both readers", both)):
            print(
                f"{name:40s} {label:13s} right {t['right']}/{dec} ({100 * t['right'] / max(1, dec):.1f}%) "
                f"wrong {t['wrong']} (>=0.9: {t['confident_wrong']}) undecided {t['undecided']} "
                f"negatives answered {t['neg_answered']}/{t['neg']} by reader {t['by']}"
            )
        for w in both["wrong_files"]:
            print("   wrong:", w)


if __name__ == "__main__":
    main()

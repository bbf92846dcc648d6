#!/usr/bin/env python3
"""Fit docorient's resolver calibration (Models/calibration.json) from exhaustive OCR evidence.

Input: JSON lines written by the ResolverEvaluation test in exhaustive mode, where every candidate
orientation was read on every text window and the recognised words were kept:

    python3 Corpus/generate.py --seed 7 --count 200 --out /tmp/resolver-set-a
    DOCORIENT_EVAL_MANIFEST=/tmp/resolver-set-a/manifest.csv DOCORIENT_EVAL_OUT=/tmp/resolver-exh-a.jsonl \\
      DOCORIENT_EVAL_EXHAUSTIVE=1 DOCORIENT_EVAL_CALIBRATION='{"cascade":{"maxWindows":4}}' DOCORIENT_EVAL_JOBS=2 \\
      swift test -c release -Xswiftc -enable-testing --scratch-path .build-resolver-release \\
      --filter ResolverEvaluation
    python3 Models/fit.py /tmp/resolver-exh-a.jsonl --manifest /tmp/resolver-set-a/manifest.csv \
      [--validate other.jsonl] [--write]

Only the fit part may be fitted on: with --manifest (the manifest the traces were recorded on),
rows whose file has split `holdout` there are left out of the fit and only reported; a manifest
without a split column (older sets) is all fit. Trace rows that carry a `split` field of their own
are judged by it.

Because OCR of a (candidate, window) pair does not depend on the cascade, the cascade of
Resolver.swift is replayed here exactly on the recorded words for any parameters. The script
  1. grid-searches the scoring weights and cascade thresholds (early exit, the plain-text rule
     that lets one read decide and spares the mirrored rivals): fewest wrong winners first, then
     fewest OCR calls (time); the axis rule (cascade.axisMin*) is kept as it is;
  2. fits the logistic confidence model (Newton's method, light L2) on "the winner is right",
     with hard negatives counted as wrong, so that its output is a calibrated probability;
  3. picks decideAt, the lowest confidence at which the resolver answers, so that at least 97% of
     the hard negatives that reach the model stay undecidable and no wrong answer is decided;
  4. with --write, stores everything in Models/calibration.json (analysis parameters are kept as
     they are: they shape the OCR input and so cannot be replayed) and runs Models/embed.py.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
CALIBRATION = os.path.join(HERE, "calibration.json")

ROTATIONS = [1, 3, 6, 8]
# Evidence.longWordLetters: letters that make a dictionary word long.
LONG_WORD_LETTERS = 5
# Evidence.isAmount: "12.34", "$1,234.56".
AMOUNT = re.compile(r"[$\u20ac\u00a3]?\d{1,3}([,.]\d{3})*[.,]\d{2}")
MIRRORED = [2, 4, 5, 7]
# Rotation part (mirror dropped) of each EXIF value; see Orientation.rotationPart.
ROTATION_PART = {1: 1, 2: 1, 3: 3, 4: 3, 5: 8, 6: 6, 7: 6, 8: 8}


def load(paths):
    rows = []
    for path in paths:
        with open(path) as fh:
            for line in fh:
                if line.strip():
                    rows.append(json.loads(line))
    return rows


def evidence(words, min_conf):
    """Evidence.init(words:weights:) of Evidence.swift."""
    # telling: Evidence.tellingWords (long dictionary words and amounts).
    e = {"words": 0, "confident": 0, "chars": 0.0, "dict_words": 0, "dict_chars": 0.0, "telling": 0, "amounts": 0}
    for w in words:
        text = w["text"]
        letters = sum(1 for ch in text if ch.isalpha())
        alnum = sum(1 for ch in text if ch.isalpha() or ch.isnumeric())
        if alnum == 0:
            continue
        e["words"] += 1
        if alnum < 2 or w["confidence"] < min_conf:
            continue
        weight = w["confidence"] / 100
        e["confident"] += 1
        e["chars"] += alnum * weight
        if w["isFromDictionary"] and letters >= 3:
            e["dict_words"] += 1
            e["dict_chars"] += letters * weight
            if letters >= LONG_WORD_LETTERS:
                e["telling"] += 1
        if AMOUNT.fullmatch(text):
            e["telling"] += 1
            e["amounts"] += 1

    return e


def total(evs):
    out = {"words": 0, "confident": 0, "chars": 0.0, "dict_words": 0, "dict_chars": 0.0, "telling": 0, "amounts": 0}
    for e in evs:
        for k in out:
            out[k] += e[k]
    return out


class FileEvidence:
    """Per candidate and window, evidence for one scoring weight setting."""

    def __init__(self, row, min_conf, dict_weight):
        self.row = row
        self.windows = row["windows"]
        self.per = {int(o): [evidence(ws, min_conf) for ws in lists] for o, lists in row["words"].items()}
        self.dict_weight = dict_weight

    def ev(self, o, depth):
        return total(self.per.get(o, [])[:depth])

    def score(self, o, depth):
        e = self.ev(o, depth)
        return e["chars"] + self.dict_weight * e["dict_chars"]


def reads_as_plain_text(fe, o, depth, p):
    """Resolver.readsAsPlainText: one window with singleReadTellingWords telling words, or the
    plain-text rule on the first `depth` windows together."""
    e = fe.ev(o, depth)
    share = e["dict_words"] / e["confident"] if e["confident"] else 0
    plain_share = (e["dict_words"] + e["amounts"]) / e["confident"] if e["confident"] else 0
    if plain_share >= p["singleReadDictionaryShare"] and any(
        w["telling"] >= p["singleReadTellingWords"] for w in fe.per.get(o, [])[:depth]
    ):
        return True
    return (
        e["dict_words"] >= p["singleReadDictionaryWords"]
        and share >= p["singleReadDictionaryShare"]
        and e["dict_chars"] >= p["singleReadDictionaryCharacters"]
        and e["telling"] >= p["singleReadDictionaryTellingWords"]
    )


def axis_is_clear(row, p):
    """Resolver.axisIsClear."""
    more = max(row["horizontalPairs"], row["verticalPairs"])
    fewer = min(row["horizontalPairs"], row["verticalPairs"])
    return more >= p["axisMinPairs"] and more + 1 >= p["axisMinRatio"] * (fewer + 1)


def replay(fe: FileEvidence, p, prior, mirror_always=False):
    """Cascade.run + Resolver.conclude, on recorded evidence. Returns (ranked, depth, calls)."""
    calls = set()
    windows = fe.windows  # the parts recorded: maxWindows windows of windowParts parts each

    def read(o, d):
        for i in range(min(d, windows)):
            calls.add((o, i))

    def ranked(cands, depth):
        return sorted(cands, key=lambda o: (-fe.score(o, depth), cands.index(o)))

    def clear(cands, depth):
        r = ranked(cands, depth)
        if len(r) < 2:
            return False
        best, second = fe.score(r[0], depth), fe.score(r[1], depth)
        return best >= p["earlyExitScore"] and best + 1 >= p["earlyExitRatio"] * (second + 1)

    along_x = fe.row["horizontalPairs"] >= fe.row["verticalPairs"]
    pairs = [[1, 3], [6, 8]] if along_x else [[6, 8], [1, 3]]
    uprightness = fe.row.get("uprightness", {})
    for pair in pairs:
        up = uprightness.get(str(pair[0]), 0.0)
        if abs(up) >= p["uprightnessOverTag"]:
            if up < 0:
                pair.reverse()
        elif prior is not None and ROTATION_PART[prior] in pair:
            if pair[0] != ROTATION_PART[prior]:
                pair.reverse()
        elif uprightness.get(str(pair[0]), 0.0) < 0:
            pair.reverse()
    rotations = pairs[0] + pairs[1]
    depth = 1
    considered = []

    def mirrored_beside(o):
        """CandidatePolicy.mirrored(beside:prior:)."""
        mirrored = list(MIRRORED) if mirror_always else ([2, 4] if o in (1, 3) else [5, 7])
        if prior is not None and prior in MIRRORED and prior not in mirrored:
            mirrored.append(prior)
        return mirrored

    def read_deeper(cands, d):
        """One more part of each candidate, the leader first; True once one reads as plain text."""
        for o in ranked(cands, d - 1):
            read(o, d)
            if reads_as_plain_text(fe, o, d, p):
                return True
        return False

    for o in pairs[0]:
        considered.append(o)
        read(o, depth)
        if reads_as_plain_text(fe, o, depth, p):
            return ranked(considered, depth), depth, len(calls)
    # Cascade.readMirroredBeside: the mirrored pair at the first part unless the first pair leads.
    if not clear(considered, depth):
        for o in mirrored_beside(pairs[0][0]):
            if o in considered:
                continue
            considered.append(o)
            read(o, depth)
            if reads_as_plain_text(fe, o, depth, p):
                return ranked(considered, depth), depth, len(calls)
    early = [o for o in considered if o in MIRRORED]
    if not clear(considered, depth):
        if axis_is_clear(fe.row, p):
            while depth < windows and not clear(considered, depth):
                depth += 1
                if read_deeper(pairs[0] + early, depth):
                    return ranked(considered, depth), depth, len(calls)
        else:
            considered = list(rotations) + early
            for o in pairs[1]:
                read(o, depth)
                if reads_as_plain_text(fe, o, depth, p):
                    return ranked(considered, depth), depth, len(calls)
            if not clear(considered, depth):
                for d in range(2, windows + 1):
                    depth = d
                    if read_deeper(considered, d):
                        return ranked(considered, depth), depth, len(calls)
                    if clear(considered, depth):
                        break
    best_rotation = ranked([o for o in considered if o not in MIRRORED], depth)[0]
    mirrored_asked = mirror_always or (prior is not None and prior in MIRRORED)
    if not mirrored_asked and depth < windows and not reads_as_plain_text(fe, best_rotation, depth, p):
        # One more part of the best rotation before the mirrored rivals.
        read(best_rotation, depth + 1)
        if reads_as_plain_text(fe, best_rotation, depth + 1, p):
            return ranked(considered, depth + 1), depth + 1, len(calls)
    if mirrored_asked or not reads_as_plain_text(fe, best_rotation, depth, p):
        mirrored = mirrored_beside(best_rotation)
        for o in mirrored:
            read(o, depth)
        considered += [o for o in mirrored if o not in considered]
    return ranked(considered, depth), depth, len(calls)


def features(fe, ranked, depth, prior, prior_margin):
    """The winner (prior kept when close) and ConfidenceModel's feature vector."""
    winner = ranked[0]
    top = fe.score(winner, depth)
    if prior is not None and prior != winner and prior in ranked and fe.score(prior, depth) >= top * (1 - prior_margin):
        winner = prior
    best = fe.score(winner, depth)
    second = max([fe.score(o, depth) for o in ranked if o != winner] or [0])
    margin = (best - second) / best if best > 0 else 0
    dict_words = fe.ev(winner, depth)["dict_words"]
    agrees = 1.0 if prior is not None and prior == winner else 0.0
    disagrees = 1.0 if prior is not None and prior != winner else 0.0
    x = [math.log1p(best), math.log1p(second), margin, math.log1p(dict_words), agrees, disagrees]
    return winner, best, x


FEATURES = ["bestScore", "secondScore", "margin", "dictionaryWords", "priorAgrees", "priorDisagrees"]


def fit_logistic(X, y, l2=0.05, iterations=60):
    X = np.hstack([np.ones((len(X), 1)), np.asarray(X, dtype=float)])
    y = np.asarray(y, dtype=float)
    w = np.zeros(X.shape[1])
    reg = np.full(X.shape[1], l2)
    reg[0] = 0
    for _ in range(iterations):
        z = X @ w
        p = 1 / (1 + np.exp(-z))
        grad = X.T @ (p - y) + reg * w
        H = (X * (p * (1 - p))[:, None]).T @ X + np.diag(reg) + 1e-9 * np.eye(X.shape[1])
        step = np.linalg.solve(H, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w


def probability(w, x):
    z = w[0] + sum(wi * xi for wi, xi in zip(w[1:], x))
    return 1 / (1 + math.exp(-z))


def evaluate(rows, params, w, decide_at, min_score, prior_margin, verbose=False):
    """Accuracy, abstentions and cost of the full resolver on recorded rows."""
    out = {
        "right": 0,
        "wrong": 0,
        "undecided": 0,
        "confident_wrong": 0,
        "neg": 0,
        "neg_undecided": 0,
        "calls": [],
        "bins": {},
    }
    for row in rows:
        prior = row.get("prior")
        decidable = row["decidable"]
        if not row["words"]:  # no text found: undecidable before any OCR
            answer, calls, conf = None, 0, 0.0
        else:
            fe = FileEvidence(row, params["minWordConfidence"], params["dictionaryWeight"])
            ranked, depth, calls = replay(fe, params, prior)
            winner, best, x = features(fe, ranked, depth, prior, prior_margin)
            conf = probability(w, x)
            answer = winner if (best >= min_score and conf >= decide_at) else None
            if decidable:
                b = min(9, int(conf * 10))
                hit = out["bins"].setdefault(b, [0, 0])
                hit[0] += 1
                hit[1] += winner == row["truth"]
        out["calls"].append(calls)
        if decidable:
            if answer is None:
                out["undecided"] += 1
            elif answer == row["truth"]:
                out["right"] += 1
            else:
                out["wrong"] += 1
                out["confident_wrong"] += conf > 0.9
                if verbose:
                    print(f"  wrong: {row['file']} truth {row['truth']} answer {answer} conf {conf:.3f}")
            if verbose and answer is None:
                print(f"  undecided: {row['file']} truth {row['truth']} conf {conf:.3f}")
        else:
            out["neg"] += 1
            out["neg_undecided"] += answer is None
            if verbose and answer is not None:
                print(f"  negative answered: {row['file']} ({row['kind']}) answer {answer} conf {conf:.3f}")
    return out


def training_set(rows, params, prior_margin):
    X, y = [], []
    for row in rows:
        if not row["words"]:
            continue
        prior = row.get("prior")
        fe = FileEvidence(row, params["minWordConfidence"], params["dictionaryWeight"])
        ranked, depth, _ = replay(fe, params, prior)
        winner, _, x = features(fe, ranked, depth, prior, prior_margin)
        X.append(x)
        y.append(1 if row["decidable"] and winner == row["truth"] else 0)
    return X, y


def search(rows, current, current_cascade):
    """Scoring and cascade parameters: fewest wrong winners, then fewest OCR calls."""
    grid = {
        "minWordConfidence": [50, 60, 70],
        "dictionaryWeight": [0.5, 1.0, 2.0],
        "earlyExitScore": [20, 30, 40, 60],
        "earlyExitRatio": [2.5, 4, 6],
        "singleReadDictionaryWords": [4, 5, 6, 8],
        "singleReadDictionaryShare": [0.5, 0.6],
        "singleReadDictionaryCharacters": [20, 30, 40],
    }
    decidable = [r for r in rows if r["decidable"] and r["words"]]
    cache = {}
    best = None
    for values in itertools.product(*grid.values()):
        p = dict(
            zip(grid.keys(), values),
            axisMinPairs=current_cascade["axisMinPairs"],
            axisMinRatio=current_cascade["axisMinRatio"],
            maxWindows=current_cascade["maxWindows"],
            singleReadTellingWords=current_cascade["singleReadTellingWords"],
            singleReadDictionaryTellingWords=current_cascade["singleReadDictionaryTellingWords"],
            uprightnessOverTag=current_cascade["uprightnessOverTag"],
        )
        key = (p["minWordConfidence"], p["dictionaryWeight"])
        if key not in cache:
            cache[key] = [FileEvidence(r, *key) for r in decidable]
        wrong = 0
        calls = 0
        for fe in cache[key]:
            prior = fe.row.get("prior")
            ranked, depth, n = replay(fe, p, prior)
            winner, _, _ = features(fe, ranked, depth, prior, current["priorMargin"])
            wrong += winner != fe.row["truth"]
            calls += n
        cost = (wrong, calls)
        if best is None or cost < best[0]:
            best = (cost, p)
    return best


def splits_of(manifest):
    """file -> split ("fit" or "holdout") of a Corpus/generate.py manifest; no split column: all fit."""
    with open(manifest, newline="") as fh:
        return {r["file"]: (r.get("split") or "fit") for r in csv.DictReader(fh)}


def fit_part(traces, manifests):
    """The trace rows that may be fitted on, and the held-out rows left out.

    manifests: none, one for every trace, or one per trace in the same order."""
    if manifests and len(manifests) not in (1, len(traces)):
        raise SystemExit(f"give one --manifest for all traces or one per trace ({len(traces)}), not {len(manifests)}")
    fit, held_out = [], []
    for i, path in enumerate(traces):
        manifest = manifests[0 if len(manifests) == 1 else i] if manifests else None
        splits = splits_of(manifest) if manifest else None
        for r in load([path]):
            if "words" not in r:
                continue
            split = r.get("split")
            if split is None and splits is not None:
                split = splits.get(r["file"])
                if split is None:
                    raise SystemExit(
                        f"{path}: {r['file']} is not in {manifest}: is it the manifest the trace was recorded on?"
                    )
            (held_out if (split or "fit") != "fit" else fit).append(r)
    return fit, held_out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="+", help="exhaustive evaluation JSON lines to fit on")
    ap.add_argument("--validate", nargs="*", default=[], help="JSON lines to report on, not fitted")
    ap.add_argument("--write", action="store_true", help="update Models/calibration.json and the embedded copy")
    ap.add_argument(
        "--manifest",
        action="append",
        default=[],
        help="manifest.csv the traces were recorded on (once, or once per trace): its holdout rows "
        "are left out of the fit",
    )
    args = ap.parse_args(argv)

    with open(CALIBRATION) as fh:
        calibration = json.load(fh)
    rows, held_out = fit_part(args.traces, args.manifest)
    if not args.manifest and not any("split" in r for r in rows):
        print(
            "warning: no --manifest: every trace row is fitted on; pass the manifest the traces were recorded "
            "on so its held-out rows are left out",
            file=sys.stderr,
        )
    print(f"fitting on {len(rows)} fit rows; {len(held_out)} held-out rows left out (reported only)")
    current = calibration["confidence"]
    (wrong, calls), params = search(rows, current, calibration["cascade"])
    print(
        f"search: {wrong} wrong winners on {sum(1 for r in rows if r['decidable'])} decidable, "
        f"{calls / max(1, len(rows)):.1f} OCR calls per file with {params}"
    )

    prior_margin = current["priorMargin"]
    X, y = training_set(rows, params, prior_margin)
    w = fit_logistic(X, y)
    print("confidence model:", dict(zip(["intercept"] + FEATURES, np.round(w, 3))))

    # decideAt: keep >= 97% of hard negatives undecidable and no wrong answer, answer as much as possible.
    min_score = current["minScore"]
    candidates = sorted({round(x, 3) for x in np.linspace(0.3, 0.95, 66)})
    chosen = None
    for t in candidates:
        r = evaluate(rows, params, w, t, min_score, prior_margin)
        neg_ok = r["neg"] == 0 or r["neg_undecided"] >= 0.97 * r["neg"]
        if neg_ok and r["wrong"] == 0:
            chosen = (t, r)
            break
    if chosen is None:
        chosen = (0.9, evaluate(rows, params, w, 0.9, min_score, prior_margin))
    decide_at, r = chosen
    print(
        f"decideAt {decide_at}: right {r['right']}, wrong {r['wrong']}, undecided {r['undecided']}, "
        f"negatives undecidable {r['neg_undecided']}/{r['neg']}, median OCR calls {np.median(r['calls'])}"
    )
    reports = [("fit part", rows)] + ([("held-out rows of the traces", held_out)] if held_out else [])
    reports += [(p, [x for x in load([p]) if "words" in x]) for p in args.validate]
    for label, rs in reports:
        e = evaluate(rs, params, w, decide_at, min_score, prior_margin, verbose=True)
        n = e["right"] + e["wrong"] + e["undecided"]
        print(
            f"{label}: right {e['right']}/{n} ({100 * e['right'] / max(1, n):.1f}%), wrong {e['wrong']} "
            f"({e['confident_wrong']} above 0.9), undecided {e['undecided']}, "
            f"negatives undecidable {e['neg_undecided']}/{e['neg']}, median OCR calls {np.median(e['calls'])}"
        )
        print(
            "  reliability (confidence bin: winners right / files):",
            {f"{b / 10:.1f}": f"{v[1]}/{v[0]}" for b, v in sorted(e["bins"].items())},
        )

    if args.write:
        calibration["fittedWith"] = (
            "python3 Models/fit.py "
            + " ".join(os.path.basename(p) for p in args.traces)
            + "".join(f" --manifest {m}" for m in args.manifest)
            + " --write (see Models/README.md)"
        )
        calibration["scoring"]["minWordConfidence"] = params["minWordConfidence"]
        calibration["scoring"]["dictionaryWeight"] = params["dictionaryWeight"]
        for k in [
            "earlyExitScore",
            "earlyExitRatio",
            "singleReadDictionaryWords",
            "singleReadDictionaryShare",
            "singleReadDictionaryCharacters",
        ]:
            calibration["cascade"][k] = params[k]
        conf = calibration["confidence"]
        conf["intercept"] = round(float(w[0]), 4)
        for name, value in zip(FEATURES, w[1:]):
            conf[name] = round(float(value), 4)
        conf["decideAt"] = decide_at
        with open(CALIBRATION, "w") as fh:
            json.dump(calibration, fh, indent=2)
            fh.write("\n")
        subprocess.run([sys.executable, os.path.join(HERE, "embed.py")], check=True)
        print("wrote", CALIBRATION)
    return 0


if __name__ == "__main__":
    sys.exit(main())

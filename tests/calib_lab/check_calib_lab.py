#!/usr/bin/python3
"""Checks a `quantlens calib-lab --json` file against SciPy, from the file's own predictions.

  stats LAB.json MIN_RUNS       every accuracy / agreement and its Wilson CI (SciPy binomtest
                                proportion_ci, method="wilson"), every comparison's n01 / n10,
                                accuracy difference and exact McNemar p (SciPy binomtest at 1/2)
  sqnr LAB.json RUN ANALYZE.json  the run's output SQNR equals `analyze`'s within 0.01 dB
  same A.json B.json TOLERANCE  two `analyze` reports' output SQNRs within TOLERANCE dB
  differ A.json B.json DB       ... at least DB apart
  partial LAB.json              an interrupted lab: complete false, some runs kept
"""

import json
import sys

import numpy as np
from scipy.stats import binomtest


def wilson(k, n):
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return ci.low, ci.high


def close(a, b, tolerance):
    return abs(a - b) <= tolerance


def check_stats(lab, min_runs, kinds_required=("best_vs_worst", "method_vs_float", "size_step")):
    errors = []
    runs = lab["runs"]
    if len(runs) < min_runs:
        errors.append(f"{len(runs)} runs, want at least {min_runs}")
    predictions = lab["predictions"]
    labelled = lab["evaluation"]["labels"]
    reference = np.array(predictions["labels"] if labelled else predictions["float"])
    n = len(reference)
    if n != lab["evaluation"]["rows"]:
        errors.append(f"{n} reference rows, evaluation says {lab['evaluation']['rows']}")
    if labelled:
        k = int((np.array(predictions["float"]) == reference).sum())
        if not close(lab["float"]["accuracy"], k / n, 1e-12):
            errors.append("float accuracy")
        for got, want in zip(lab["float"]["accuracy_ci95"], wilson(k, n)):
            if not close(got, want, 1e-3):
                errors.append(f"float accuracy CI {got} vs SciPy {want}")
    floats = np.array(predictions["float"])
    for run in runs:
        p = np.array(predictions[run["id"]])
        out = run["output"]
        agree = int((p == floats).sum())
        figures = [("top1_agreement", agree)]
        if labelled:
            figures.append(("accuracy", int((p == reference).sum())))
        for name, k in figures:
            if not close(out[name], k / n, 1e-12):
                errors.append(f"{run['id']}: {name} {out[name]} vs {k}/{n}")
            for got, want in zip(out[name + "_ci95"], wilson(k, n)):
                if not close(got, want, 1e-3):
                    errors.append(f"{run['id']}: {name} CI {got} vs SciPy {want}")
    kinds = set()
    for c in lab["comparisons"]:
        kinds.add(c["kind"])
        a = np.array(predictions[c["a"]]) == reference
        b = np.array(predictions[c["b"]]) == reference
        n01, n10 = int((~a & b).sum()), int((a & ~b).sum())
        if (c["n01"], c["n10"]) != (n01, n10):
            errors.append(f"{c['a']} vs {c['b']}: n01/n10 {c['n01']}/{c['n10']} vs {n01}/{n10}")
        p = binomtest(n01, n01 + n10, 0.5).pvalue if n01 + n10 else 1.0
        if not close(c["mcnemar_p"], p, 1e-6):
            errors.append(f"{c['a']} vs {c['b']}: McNemar p {c['mcnemar_p']} vs SciPy {p}")
        if not close(c["accuracy_diff"], (n10 - n01) / n, 1e-12):
            errors.append(f"{c['a']} vs {c['b']}: difference")
        low, high = c["accuracy_diff_ci95"]
        if not low - 1e-12 <= c["accuracy_diff"] <= high + 1e-12:
            errors.append(f"{c['a']} vs {c['b']}: difference outside its CI")
    for kind in kinds_required:
        if kind not in kinds:
            errors.append(f"no {kind} comparison")
    print(f"{len(runs)} runs, {len(lab['comparisons'])} comparisons checked against SciPy")
    return errors


def main():
    mode, path = sys.argv[1], sys.argv[2]
    lab = json.load(open(path))
    if mode == "stats":
        errors = check_stats(lab, int(sys.argv[3]))
    elif mode == "sqnr":
        run = next(r for r in lab["runs"] if r["id"] == sys.argv[3])
        analyzed = json.load(open(sys.argv[4]))["output"]["sqnr_db"]
        lab_db = run["output"]["sqnr_db"]
        print(f"{sys.argv[3]}: lab {lab_db:.4f} dB, quantize + analyze {analyzed:.4f} dB")
        errors = [] if close(lab_db, analyzed, 0.01) else ["SQNR differs by more than 0.01 dB"]
    elif mode in ("same", "differ"):
        a, b = (json.load(open(p))["output"]["sqnr_db"] for p in (path, sys.argv[3]))
        limit = float(sys.argv[4])
        print(f"output SQNR {a:.4f} vs {b:.4f} dB")
        ok = abs(a - b) <= limit if mode == "same" else abs(a - b) >= limit
        errors = [] if ok else [f"{mode}: {abs(a - b):.4f} dB apart"]
    elif mode == "partial":
        kept = len(lab["runs"])
        print(f"interrupted lab: {kept} of {lab['runs_planned']} runs kept")
        errors = [] if not lab["complete"] and 0 < kept < lab["runs_planned"] else ["not a partial lab"]
        # The finished runs may all be of one method and size: no comparison kind is required.
        errors += check_stats(lab, 1, ()) if kept else []
    else:
        errors = [f"unknown mode {mode}"]
    for e in errors:
        print("ERROR", e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()

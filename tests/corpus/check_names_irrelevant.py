#!/usr/bin/env python3
"""Checks that node names do not change what `quantlens analyze` reports: two JSON reports of the
same pair, one with the int8 model's node names as exported (or renamed to the float model's, as
bridge_fx's quant.onnx is) and one with every name cleared, must give the same rows, a cumulative
figure for every weighted layer in both, and the same figures.

  check_names_irrelevant.py NAMED.json NAMELESS.json LABEL

Both reports come from the same binary on the same machine, so the figures agree to rounding:
the bar is 1e-6 dB, far below any difference a matching change would make (0.01 dB and up).
Python 3 standard library only. Exit 1 on any difference.
"""
import json
import math
import sys

TOLERANCE_DB = 1e-6
FIGURES = ("weight_sqnr_db", "activation_sqnr_db", "isolated_sqnr_db")


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    a, b = float(a), float(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= TOLERANCE_DB


def main(argv):
    if len(argv) != 4:
        print(__doc__)
        return 2
    named, nameless = (json.load(open(path)).get("layers", []) for path in argv[1:3])
    label = argv[3]
    failures = []
    if [row["name"] for row in named] != [row["name"] for row in nameless]:
        failures.append(f"rows differ: {len(named)} named, {len(nameless)} nameless")
    for which, rows in (("named", named), ("nameless", nameless)):
        for row in rows:
            if row.get("weight_sqnr_db") is not None and row.get("activation_sqnr_db") is None:
                failures.append(f"{which}: weighted layer {row['name']} has no cumulative figure "
                                f"({'; '.join(row.get('notes') or [])})")
    for a, b in zip(named, nameless):
        for key in FIGURES:
            if not same(a.get(key), b.get(key)):
                failures.append(f"{a['name']}: {key} {a.get(key)} named, {b.get(key)} nameless")
    weighted = sum(1 for row in named if row.get("weight_sqnr_db") is not None)
    figures = sum(1 for row in named if row.get("activation_sqnr_db") is not None)
    for failure in failures:
        print(f"FAIL {label}: {failure}")
    print(f"{label}: {len(named)} rows, {figures} cumulative figures ({weighted} weighted layers), "
          f"named and nameless {'identical' if not failures else 'DIFFER'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

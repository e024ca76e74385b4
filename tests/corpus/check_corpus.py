#!/usr/bin/env python3
"""Checks one `quantlens analyze` JSON report against a corpus pair's reference.json (Python 3
standard library only: CI has no numpy, onnx or torch).

  check_corpus.py REPORT.json REFERENCE.json [LABEL]

Reference layers (reference.json "layers", PyTorch Numeric Suite figures, and "extra_layers",
quantized ops the Numeric Suite does not log, with figures from the exact evaluation of
quant.onnx) name their float.onnx output node in "float_node". A report row matches a reference
layer when the row's name, or one of its folded_float_nodes, is that node. Bars (any CPU: AVX2 and
AVX-512 VNNI int8 kernels round differently, so never exact equality):
  weight SQNR within 0.1 dB, cumulative activation SQNR within 1 dB,
  output SQNR within 1 dB of the exact evaluation of quant.onnx, top-1 agreement and both
  accuracies within one sample of it.
The row's `match` object ({by: structure|weights|name, confidence}) is printed when present.
Prints one line per layer and one line per failed check; exit 1 on any failure.
"""
import json
import math
import sys

WEIGHT_DB = 0.1
ACTIVATION_DB = 1.0
OUTPUT_DB = 1.0


def figure(value):
    """JSON figure -> float or None ("inf" strings are infinities)."""
    if value is None:
        return None
    return float(value)


def close(mine, theirs, tolerance):
    if mine is None or theirs is None:
        return False
    if math.isinf(mine) or math.isinf(theirs):
        return mine == theirs
    return abs(mine - theirs) <= tolerance


def fmt(value):
    return "-" if value is None else f"{value:.3f}"


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__)
        return 2
    report = json.load(open(argv[1]))
    ref = json.load(open(argv[2]))
    label = argv[3] if len(argv) > 3 else ref.get("pair", argv[2])
    failures = []

    def fail(message):
        failures.append(message)
        print(f"FAIL {label}: {message}")

    rows = report.get("layers", [])
    by_node = {}
    for row in rows:
        for node in [row.get("name")] + list(row.get("folded_float_nodes") or []):
            by_node.setdefault(node, row)

    print(f"{label}: {'module':20} {'float node':40} {'report row':40} {'weight dB mine/ref':>20} "
          f"{'cumulative dB mine/ref':>24}  match")
    for layer in ref["layers"] + ref.get("extra_layers", []):
        node = layer.get("float_node")
        if node is None:
            continue
        module = layer.get("module") or "(top)"
        row = by_node.get(node)
        if row is None:
            fail(f"{module}: no report row for float node '{node}' (name or folded_float_nodes)")
            continue
        cells = []
        ref_weight = figure(layer.get("weight_sqnr_db"))
        mine_weight = figure(row.get("weight_sqnr_db"))
        if ref_weight is not None:
            if not close(mine_weight, ref_weight, WEIGHT_DB):
                fail(f"{module} ({row['name']}): weight SQNR {fmt(mine_weight)} dB vs reference "
                     f"{fmt(ref_weight)} dB (tolerance {WEIGHT_DB} dB)")
            cells.append(f"{fmt(mine_weight)} / {fmt(ref_weight)}")
        else:
            cells.append("-")
        source = "activation_sqnr_db" if layer.get("activation_sqnr_db") is not None else "exact_activation_sqnr_db"
        ref_act = figure(layer.get(source))
        mine_act = figure(row.get("activation_sqnr_db"))
        if ref_act is not None:
            if not close(mine_act, ref_act, ACTIVATION_DB):
                fail(f"{module} ({row['name']}): cumulative activation SQNR {fmt(mine_act)} dB vs "
                     f"reference {fmt(ref_act)} dB ({source}, tolerance {ACTIVATION_DB} dB)")
            cells.append(f"{fmt(mine_act)} / {fmt(ref_act)}")
        else:
            cells.append("-")
        match = row.get("match")
        match_text = (f"{match.get('by')} {figure(match.get('confidence')):.3f}"
                      if isinstance(match, dict) and match.get("confidence") is not None
                      else (f"{match.get('by')}" if isinstance(match, dict) else "(no match object)"))
        print(f"{label}: {module:20} {node:40} {row['name']:40} {cells[0]:>20} {cells[1]:>24}  {match_text}")

    out = report.get("output", {})
    ref_out = ref["output"]
    samples = ref.get("samples") or report.get("samples") or 1
    exact_db = figure(ref_out.get("exact_qdq_vs_float_onnx_sqnr_db"))
    mine_db = figure(out.get("sqnr_db"))
    if exact_db is not None and not close(mine_db, exact_db, OUTPUT_DB):
        fail(f"output SQNR {fmt(mine_db)} dB vs {fmt(exact_db)} dB (exact evaluation of quant.onnx, "
             f"tolerance {OUTPUT_DB} dB)")
    for key, ref_key in (("top1_agreement", "top1_agreement_exact"), ("float_accuracy", "float_accuracy"),
                         ("quant_accuracy", "quant_accuracy_exact")):
        mine, theirs = figure(out.get(key)), figure(ref_out.get(ref_key))
        if theirs is not None and (mine is None or abs(mine - theirs) > 1.0 / samples + 1e-9):
            fail(f"output {key} {mine} vs reference {theirs} (one sample of {samples} allowed)")
    if report.get("samples") != ref.get("samples"):
        fail(f"samples {report.get('samples')} != {ref.get('samples')}")
    if report.get("unmatched"):
        print(f"{label}: note: unmatched layers {report['unmatched']}")
    print(f"{label}: output {fmt(mine_db)} dB (exact evaluation {fmt(exact_db)} dB), top-1 agreement "
          f"{out.get('top1_agreement')}, accuracy {out.get('float_accuracy')} / {out.get('quant_accuracy')}; "
          f"{len(failures)} failed checks")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

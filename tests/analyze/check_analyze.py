#!/usr/bin/env python3
"""Checks a `quantlens analyze` JSON report (standard library only, no numpy or torch in CI).

  check_analyze.py torch REPORT.json NUMERIC_SUITE.json  - against PyTorch Numeric Suite figures
  check_analyze.py csv REPORT.json REPORT.csv            - the CSV holds the JSON's scalar columns
  check_analyze.py same A.json B.json                    - equal figures (batch-size independence)
  check_analyze.py inapp REPORT.json                     - a float model quantized in the app
  check_analyze.py fp32 REPORT.json BASE.json LAYER...   - LAYERs kept in fp32, the rest as in BASE
"""
import csv
import json
import math
import sys

SCALARS = ["weight_sqnr_db", "activation_sqnr_db", "isolated_sqnr_db", "cosine", "mse", "max_abs_error",
           "rmse_over_scale", "saturation_pct", "kernel_vs_reference_sqnr_db", "sample_range_min", "sample_range_max",
           "sample_range_ratio"]
failures = []


def fail(message):
    failures.append(message)


def value(v):
    """JSON figure -> float or None ("inf" strings become infinities)."""
    if v is None:
        return None
    return float(v)


def check_layer_sanity(layer):
    name = layer["name"]
    if layer["precision"] not in ("int8", "fp32"):
        fail(f"{name}: precision {layer['precision']!r}")
    if layer["activation_sqnr_db"] is None:
        return
    cosine = value(layer["cosine"])
    if not -1.0 <= cosine <= 1.0:
        fail(f"{name}: cosine {cosine} out of [-1, 1]")
    if value(layer["mse"]) < 0 or value(layer["max_abs_error"]) < 0:
        fail(f"{name}: negative error figure")
    if value(layer["max_abs_error"]) ** 2 < value(layer["mse"]) * (1 - 1e-9):
        fail(f"{name}: max abs error below the RMS error")
    s = layer["sample_sqnr_db"]
    if not value(s["min"]) <= value(s["p5"]) <= value(s["median"]):
        fail(f"{name}: sample SQNR min <= p5 <= median violated: {s}")
    lo, hi, ratio = (value(layer[k]) for k in ("sample_range_min", "sample_range_max", "sample_range_ratio"))
    if hi is None or hi <= 0:
        fail(f"{name}: no per-sample activation range ({hi})")
    elif lo is not None and not (0 < lo <= hi and math.isclose(ratio, hi / lo, rel_tol=1e-9)):
        fail(f"{name}: sample ranges min {lo}, max {hi}, ratio {ratio} disagree")
    kernel = value(layer["kernel_vs_reference_sqnr_db"])
    if kernel is not None and layer["precision"] == "int8" and kernel < 40.0:
        fail(f"{name}: int8 kernel vs reference {kernel:.2f} dB < 40 dB")
    if layer["kernel_mismatch"] != (kernel is not None and kernel < 40.0):
        fail(f"{name}: kernel_mismatch flag disagrees with {kernel}")


def torch_mode(report_path, suite_path):
    report = json.load(open(report_path))
    suite = json.load(open(suite_path))
    layers = {layer["name"]: layer for layer in report["layers"]}
    if len(layers) != len(report["layers"]):
        fail("layer names are not unique")
    if report["unmatched"]:
        fail(f"unmatched layers: {report['unmatched']}")
    print(f"{'PyTorch layer':14} {'ONNX layer':18} {'weight dB':>22} {'cumulative dB':>22}")
    for torch_name, entry in sorted(suite["layers"].items()):
        nodes = entry["onnx_nodes"]["float_onnx"]["nodes"]
        ours = layers.get(nodes[0])
        if ours is None:
            fail(f"{torch_name}: no layer '{nodes[0]}' in the report")
            continue
        if ours["folded_float_nodes"] != nodes[1:]:
            fail(f"{torch_name}: folded {ours['folded_float_nodes']} != PyTorch's module {nodes[1:]}")
        cells = []
        for key, figure, tolerance in (("weight", "weight_sqnr_db", 0.1), ("activation", "activation_sqnr_db", 1.0)):
            theirs = entry[key]["sqnr_db"] if entry[key] else None
            mine = value(ours[figure])
            if theirs is None:
                cells.append("-")
                continue
            if mine is None or abs(mine - theirs) > tolerance:
                fail(f"{torch_name}: {figure} {mine} vs PyTorch {theirs:.4f} (tolerance {tolerance} dB)")
            cells.append(f"{mine if mine is not None else float('nan'):.3f} / {theirs:.3f}")
        print(f"{torch_name:14} {nodes[0]:18} {cells[0]:>22} {cells[1]:>22}")
    for layer in report["layers"]:
        check_layer_sanity(layer)
        match = layer["match"]
        if match["by"] != layer["matched_by"] or not 0.0 < match["confidence"] <= 1.0:
            fail(f"{layer['name']}: match {match}")
        # Quantized weights correlate with their float weights far above the 0.99 evidence bar.
        if layer["weight_sqnr_db"] is not None and (match["by"] != "weights" or match["confidence"] < 0.999):
            fail(f"{layer['name']}: a weighted layer matched {match}, not by its weights")
        if layer["isolated_sqnr_db"] is None:
            fail(f"{layer['name']}: no isolated figure ({layer['notes']})")
        if layer["precision"] == "int8" and layer["kernel_vs_reference_sqnr_db"] is None:
            fail(f"{layer['name']}: int8 layer without a kernel check")
    # The first layer reads the graph input: its isolated and cumulative figures coincide.
    first = report["layers"][0]
    if not math.isclose(value(first["isolated_sqnr_db"]), value(first["activation_sqnr_db"]), rel_tol=1e-6):
        fail(f"first layer: isolated {first['isolated_sqnr_db']} != cumulative {first['activation_sqnr_db']}")
    out = report["output"]
    accuracy = suite["fixture_accuracy"]
    if abs(value(out["float_accuracy"]) - accuracy["float"]) > 1e-9:
        fail(f"float accuracy {out['float_accuracy']} vs PyTorch {accuracy['float']}")
    # Our int8 run of the QDQ export and PyTorch's int8 model agree on every top-1 of the fixture.
    if abs(value(out["quant_accuracy"]) - accuracy["int8"]) > 1e-9:
        fail(f"quantized accuracy {out['quant_accuracy']} vs PyTorch int8 {accuracy['int8']}")
    suite_db = suite["output_sqnr_db"]["qdq_reference_vs_torch_float"]
    if abs(value(out["sqnr_db"]) - suite_db) > 1.0:
        fail(f"output SQNR {out['sqnr_db']} vs {suite_db:.3f} dB (exact evaluation of the QDQ graph)")
    if report["samples"] != 64:
        fail(f"samples {report['samples']} != 64")
    print(f"output: {value(out['sqnr_db']):.3f} dB, accuracy {out['float_accuracy']} / {out['quant_accuracy']}; "
          f"compared with PyTorch Numeric Suite figures")


def csv_mode(report_path, csv_path):
    report = json.load(open(report_path))
    rows = list(csv.DictReader(open(csv_path)))
    if [r["name"] for r in rows] != [layer["name"] for layer in report["layers"]]:
        fail("CSV rows are not the JSON layers in order")
    for row, layer in zip(rows, report["layers"]):
        for key in SCALARS:
            mine = layer[key]
            cell = row[key]
            if mine is None:
                if cell != "":
                    fail(f"{layer['name']}.{key}: CSV '{cell}' for null")
            elif not math.isclose(float(cell), value(mine), rel_tol=1e-8, abs_tol=1e-12):
                fail(f"{layer['name']}.{key}: CSV {cell} vs JSON {mine}")
        p5 = layer["sample_sqnr_db"]["p5"] if layer["sample_sqnr_db"] else None
        if p5 is not None and not math.isclose(float(row["sample_sqnr_p5_db"]), value(p5), rel_tol=1e-8):
            fail(f"{layer['name']}: CSV p5 differs")


def same_mode(a_path, b_path):
    a, b = json.load(open(a_path)), json.load(open(b_path))
    if [layer["name"] for layer in a["layers"]] != [layer["name"] for layer in b["layers"]]:
        fail("different layers")
    for la, lb in zip(a["layers"], b["layers"]):
        for key in SCALARS:
            x, y = value(la[key]), value(lb[key])
            if (x is None) != (y is None) or (x is not None and not math.isclose(x, y, rel_tol=1e-6, abs_tol=1e-9)):
                fail(f"{la['name']}.{key}: {x} vs {y}")
    if not math.isclose(value(a["output"]["sqnr_db"]), value(b["output"]["sqnr_db"]), rel_tol=1e-6):
        fail("output SQNR differs")


def inapp_mode(report_path):
    report = json.load(open(report_path))
    models = report["models"]
    if not models["quantized_in_app"] or models["quant"] is not None:
        fail(f"models section: {models}")
    if models["quantizer_options"]["method"] != "mse" or models["quantizer_options"]["calibration_samples"] != 64:
        fail(f"quantizer options: {models['quantizer_options']}")
    for layer in report["layers"]:
        check_layer_sanity(layer)
        if layer["precision"] != "int8":
            fail(f"{layer['name']}: our quantizer left it {layer['precision']} ({layer['precision_reason']})")
        if layer["activation_sqnr_db"] is None:
            fail(f"{layer['name']}: no cumulative figure ({layer['notes']})")
    if value(report["output"]["sqnr_db"]) < 35.0:
        fail(f"output SQNR {report['output']['sqnr_db']} < 35 dB")


def fp32_mode(report_path, base_path, *fp32_layers):
    report, base = json.load(open(report_path)), json.load(open(base_path))
    rows = {layer["name"]: layer for layer in report["layers"]}
    if [layer["name"] for layer in report["layers"]] != [layer["name"] for layer in base["layers"]]:
        fail("the skip-list changed the layers")
    for layer in base["layers"]:
        ours = rows[layer["name"]]
        want = "fp32" if layer["name"] in fp32_layers else layer["precision"]
        if ours["precision"] != want:
            fail(f"{layer['name']}: precision {ours['precision']}, expected {want}")
    for name in fp32_layers:
        # An fp32 layer fed the float model's input to it: no weight quantization, so no weight
        # figure; its output is still quantized once for the int8 layer that reads it, so its
        # own error is that rounding alone: rmse/scale near 1/sqrt(12) = 0.289, better than int8.
        ours = rows[name]
        theirs = next(l for l in base["layers"] if l["name"] == name)
        if ours["weight_sqnr_db"] is not None:
            fail(f"{name}: fp32 layer with a weight SQNR {ours['weight_sqnr_db']}")
        if value(ours["isolated_sqnr_db"]) < value(theirs["isolated_sqnr_db"]):
            fail(f"{name}: isolated SQNR {ours['isolated_sqnr_db']} in fp32 < {theirs['isolated_sqnr_db']} int8")
        noise = value(ours["isolated"]["rmse_over_scale"])
        if not 0.25 <= noise <= 0.35:
            fail(f"{name}: isolated rmse/scale {noise}, expected about 0.289 (rounding alone)")
    if value(report["output"]["sqnr_db"]) < value(base["output"]["sqnr_db"]) - 1.0:
        fail(f"output SQNR fell: {report['output']['sqnr_db']} vs {base['output']['sqnr_db']}")


if __name__ == "__main__":
    modes = {"torch": torch_mode, "csv": csv_mode, "same": same_mode, "inapp": inapp_mode, "fp32": fp32_mode}
    modes[sys.argv[1]](*sys.argv[2:])
    for message in failures:
        print("FAIL " + message)
    sys.exit(1 if failures else 0)

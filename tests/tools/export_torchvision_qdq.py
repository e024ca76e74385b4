#!/usr/bin/python3
"""Export PyTorch-FX-quantized torchvision models (seeded random weights) as QDQ ONNX, opset 13.

Developer tool, not run by CI (it needs PyTorch). Models come from export_torchvision.py's
build_model() (seeded weights, BatchNorm statistics re-drawn so activations stay O(1)), are
quantized with FX post-training static quantization (onednn backend, get_default_qconfig_mapping:
per-channel symmetric int8 weights, uint8 activations from HistogramObserver) calibrated on
seeded normal(0,1) images, and written to OUT (default /tmp/models_q):
  OUT/<name>.onnx                  the float model (BN folded by the exporter), input "input"
  OUT/<name>_qdq.onnx              the FX-converted model: QuantizeLinear/DequantizeLinear around
                                   float ops, plus the Cast/Constant/ConstantOfShape/Identity
                                   noise torch 1.13 puts into the Q/DQ chains
  OUT/<name>/input_0.npy           the seeded input of export_torchvision.py, [1,3,224,224]
  OUT/<name>/torch_float_output_0.npy  the float PyTorch model on it
  OUT/<name>/torch_int8_output_0.npy   the FX-quantized PyTorch model on it
  OUT/<name>/qdq_reference_output_0.npy  (--reference) qdq.onnx evaluated exactly in float64
Batch dims are dynamic. Prints time, op-type counts of each QDQ graph and output SQNRs.

Usage: /usr/bin/python3 export_torchvision_qdq.py [OUT] [--models a,b] [--calib N] [--force]
       [--reference] [--threads N]
"""
import argparse
import copy
import json
import os
import sys
import time
import warnings

import numpy as np
import onnx
import torch
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_torchvision  # noqa: E402  (build_model, seeded_input: same weights and inputs)
import qdq_reference  # noqa: E402

MODELS = ["resnet18", "resnet50", "mobilenet_v2"]
OPSET = export_torchvision.OPSET


def quantize(model, n_calib):
    torch.backends.quantized.engine = "onednn"
    rng = np.random.default_rng(20261122)
    calib = torch.from_numpy(rng.standard_normal((n_calib, 3, 224, 224)).astype(np.float32))
    prepared = prepare_fx(copy.deepcopy(model), get_default_qconfig_mapping("onednn"),
                          (calib[:1],))
    with torch.no_grad():
        for step in range(0, n_calib, 4):
            prepared(calib[step:step + 4])
    return convert_fx(prepared).eval()


def export(model, example, path, fold):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, path, opset_version=OPSET,
                          input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                          do_constant_folding=fold)
    onnx.checker.check_model(onnx.load(path))


def op_counts(path):
    counts = {}
    for node in onnx.load(path).graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return dict(sorted(counts.items()))


def sqnr_db(ref, other):
    ref, other = ref.astype(np.float64), other.astype(np.float64)
    noise = np.sum((ref - other) ** 2)
    return float("inf") if noise == 0 else float(10 * np.log10(np.sum(ref ** 2) / noise))


def export_one(name, out, args):
    float_path = os.path.join(out, name + ".onnx")
    qdq_path = os.path.join(out, name + "_qdq.onnx")
    data = os.path.join(out, name)
    int8_path = os.path.join(data, "torch_int8_output_0.npy")
    if not args.force and all(os.path.exists(p) for p in (float_path, qdq_path, int8_path)):
        print(f"{name}: exists, skipped (use --force)", flush=True)
        return {"op_counts": op_counts(qdq_path)}
    os.makedirs(data, exist_ok=True)
    start = time.time()
    model = export_torchvision.build_model(name, raw_init=False)
    x = torch.from_numpy(export_torchvision.seeded_input(name))
    quantized = quantize(model, args.calib)
    t_quant = time.time() - start
    with torch.no_grad():
        float_out = model(x).numpy().astype(np.float32)
        int8_out = quantized(x).numpy().astype(np.float32)
    np.save(os.path.join(data, "input_0.npy"), x.numpy())
    np.save(os.path.join(data, "torch_float_output_0.npy"), float_out)
    np.save(int8_path, int8_out)
    export(model, x, float_path, fold=True)
    export(quantized, x, qdq_path, fold=True)
    result = {"seconds_quantize": round(t_quant, 1),
              "seconds_total": round(time.time() - start, 1),
              "qdq_mb": round(os.path.getsize(qdq_path) / 1e6, 1),
              "sqnr_torch_int8_vs_float": round(sqnr_db(float_out, int8_out), 2),
              "top1_torch_int8_eq_float": bool(float_out.argmax() == int8_out.argmax()),
              "op_counts": op_counts(qdq_path)}
    if args.reference:
        reference = qdq_reference.run(qdq_path, x.numpy()).astype(np.float32)
        np.save(os.path.join(data, "qdq_reference_output_0.npy"), reference)
        result["sqnr_qdq_reference_vs_torch_int8"] = round(sqnr_db(int8_out, reference), 2)
    print(f"{name}: {json.dumps(result)}", flush=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default="/tmp/models_q")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--calib", type=int, default=16, help="calibration images (default 16)")
    parser.add_argument("--force", action="store_true")
    parser.add_argument("--reference", action="store_true",
                        help="also evaluate the QDQ graph exactly (float64; slow on resnet50)")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    print(f"torch {torch.__version__}, onednn backend, opset {OPSET}, calibration {args.calib} "
          f"images, output folder {args.out}", flush=True)
    failed, summary = [], {}
    for name in [m.strip() for m in args.models.split(",") if m.strip()]:
        try:
            summary[name] = export_one(name, args.out, args)
        except Exception as exc:  # keep going: one broken model must not stop the others
            print(f"{name}: FAILED: {type(exc).__name__}: {exc}", flush=True)
            failed.append(name)
    with open(os.path.join(args.out, "export_summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(f"failed: {', '.join(failed) or 'none'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

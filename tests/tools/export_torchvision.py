#!/usr/bin/python3
"""Export torchvision models with seeded random weights to ONNX (opset 13).

Developer tool, not run by CI (it needs PyTorch). For each model it writes
  OUT/<name>.onnx              input "input" [N,3,224,224], batch dim dynamic
  OUT/<name>/input_0.npy       seeded normal(0,1) float32 input, shape [1,3,224,224]
  OUT/<name>/torch_output_0.npy  PyTorch's own output on that input, for reference

Usage: /usr/bin/python3 export_torchvision.py [OUT] [--models a,b,...] [--force]
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np
import torch
import torchvision

# The ten models of the correctness check plus resnet50 for the benchmark.
MODELS = [
    "resnet18", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0", "shufflenet_v2_x1_0",
    "squeezenet1_1", "googlenet", "densenet121", "regnet_y_400mf", "convnext_tiny", "resnet50",
]
OPSET = 13


def build_model(name):
    # weights=None: random init; re-seed per model so each file is reproducible on its own.
    torch.manual_seed(0)
    ctor = getattr(torchvision.models, name)
    kwargs = {"weights": None}
    if name == "googlenet":
        kwargs.update(aux_logits=False, init_weights=True)
    model = ctor(**kwargs)
    model.eval()
    return model


def seeded_input(name):
    # A per-model seed derived from the name keeps inputs stable when the model list changes.
    seed = sum(ord(c) * (i + 1) for i, c in enumerate(name)) % (2 ** 31)
    rng = np.random.default_rng(seed)
    return rng.standard_normal((1, 3, 224, 224)).astype(np.float32)


def export_one(name, out_dir, force):
    onnx_path = os.path.join(out_dir, name + ".onnx")
    data_dir = os.path.join(out_dir, name)
    input_path = os.path.join(data_dir, "input_0.npy")
    ref_path = os.path.join(data_dir, "torch_output_0.npy")
    if not force and all(os.path.exists(p) for p in (onnx_path, input_path, ref_path)):
        print(f"{name:22s} exists, skipped (use --force to re-export)", flush=True)
        return True
    os.makedirs(data_dir, exist_ok=True)
    start = time.time()
    model = build_model(name)
    x = seeded_input(name)
    with torch.no_grad():
        ref = model(torch.from_numpy(x)).numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                model, torch.from_numpy(x), onnx_path, opset_version=OPSET,
                input_names=["input"], output_names=["output"],
                dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                do_constant_folding=True)
    np.save(input_path, x)
    np.save(ref_path, ref.astype(np.float32))
    size_mb = os.path.getsize(onnx_path) / 1e6
    print(f"{name:22s} exported in {time.time() - start:6.1f} s  ({size_mb:6.1f} MB, "
          f"output {list(ref.shape)})", flush=True)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default="/tmp/models", help="output folder")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated torchvision model names (default: all 11)")
    parser.add_argument("--force", action="store_true", help="re-export existing models")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (default: torch's)")
    args = parser.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    os.makedirs(args.out, exist_ok=True)
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}, opset {OPSET}, "
          f"output folder {args.out}", flush=True)
    failed = []
    total = time.time()
    for name in [m.strip() for m in args.models.split(",") if m.strip()]:
        try:
            export_one(name, args.out, args.force)
        except Exception as exc:  # keep going: one broken model must not stop the others
            print(f"{name:22s} FAILED: {type(exc).__name__}: {exc}", flush=True)
            failed.append(name)
    print(f"total {time.time() - total:.1f} s; failed: {', '.join(failed) or 'none'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Export torchvision models (and a 4-layer transformer encoder) with seeded random weights to
ONNX (opset 13).

Developer tool, not run by CI (it needs PyTorch). For each model it writes
  OUT/<name>.onnx              input "input" [N,3,224,224] ([N,128,512] for the encoder),
                               batch dim dynamic
  OUT/<name>/input_0.npy       seeded normal(0,1) float32 input, batch 1
  OUT/<name>/torch_output_0.npy  PyTorch's own output on that input, for reference

Unless --raw-init, norm-layer affine parameters and layer scales are re-drawn (seeded) and
BatchNorm statistics are set from seeded random batches, so activations stay O(1): see calibrate().

Usage: /usr/bin/python3 export_torchvision.py [OUT] [--models a,b,...] [--force] [--raw-init]
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
# Not torchvision: a 4-layer transformer encoder (BERT-small-like widths) for issue 16's speed
# table, input [N, 128, 512] (sequence 128, width 512).
ENCODER = "transformer_encoder4"
INPUT_SHAPES = {ENCODER: (1, 128, 512)}


def calibrate(model):
    """Make activations O(1) so every op is exercised away from zero.

    With torchvision's init, BatchNorm is the identity (running mean 0, var 1) and many nets'
    activations shrink layer by layer (mobilenet_v2 ends near 1e-9, efficientnet_b0 near 1e-14),
    so Clip, HardSigmoid and Sigmoid never leave their linear region; ConvNeXt's layer_scale of
    1e-6 makes its blocks near-identity. So: re-draw norm affine parameters and layer scales
    (seeded), then set BatchNorm running statistics from seeded random batches.
    """
    torch.manual_seed(1)
    norms = (torch.nn.BatchNorm2d, torch.nn.LayerNorm)
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, norms) and module.weight is not None:
                module.weight.uniform_(0.5, 2.5)
                module.bias.normal_(0.0, 0.5)
        for name, param in model.named_parameters():
            if name.endswith("layer_scale"):
                param.uniform_(0.2, 1.0)
    batch_norms = [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]
    if not batch_norms:
        return
    # Only BatchNorm in train mode: Dropout and StochasticDepth stay off. momentum=None
    # makes the running statistics a plain average over the batches.
    model.eval()
    for bn in batch_norms:
        bn.reset_running_stats()
        bn.momentum = None
        bn.train()
    with torch.no_grad():
        for _ in range(4):
            model(torch.randn(8, 3, 224, 224))
    model.eval()


def build_encoder():
    layer = torch.nn.TransformerEncoderLayer(d_model=512, nhead=8, dim_feedforward=2048,
                                             dropout=0.0, activation="gelu", batch_first=True)
    model = torch.nn.TransformerEncoder(layer, num_layers=4, enable_nested_tensor=False)
    # Training mode keeps the encoder layers off their fused eval fast path, which torch 1.13
    # cannot export; with dropout 0 and no BatchNorm it is the same computation.
    model.train()
    return model


def build_model(name, raw_init):
    # weights=None: random init; re-seed per model so each file is reproducible on its own.
    torch.manual_seed(0)
    if name == ENCODER:
        model = build_encoder()
        if not raw_init:
            calibrate(model)
            model.train()
        return model
    ctor = getattr(torchvision.models, name)
    kwargs = {"weights": None}
    if name == "googlenet":
        kwargs.update(aux_logits=False, init_weights=True)
    model = ctor(**kwargs)
    model.eval()
    # ViT zero-initialises its head: outputs of all zeros would make every comparison vacuous.
    for module in model.modules():
        if isinstance(module, torch.nn.Linear) and not module.weight.any():
            torch.nn.init.normal_(module.weight, std=0.02)
    if not raw_init:
        calibrate(model)
    # torch 1.13 cannot export the fused fast path MultiheadAttention takes in eval mode
    # (aten::_native_multi_head_attention); in training mode it runs the plain ops, which are the
    # same computation here (torchvision's ViT uses attention dropout 0).
    for module in model.modules():
        if isinstance(module, torch.nn.MultiheadAttention):
            module.train()
    return model


def seeded_input(name):
    # A per-model seed derived from the name keeps inputs stable when the model list changes.
    seed = sum(ord(c) * (i + 1) for i, c in enumerate(name)) % (2 ** 31)
    rng = np.random.default_rng(seed)
    return rng.standard_normal(INPUT_SHAPES.get(name, (1, 3, 224, 224))).astype(np.float32)


def export_one(name, out_dir, force, raw_init):
    onnx_path = os.path.join(out_dir, name + ".onnx")
    data_dir = os.path.join(out_dir, name)
    input_path = os.path.join(data_dir, "input_0.npy")
    ref_path = os.path.join(data_dir, "torch_output_0.npy")
    if not force and all(os.path.exists(p) for p in (onnx_path, input_path, ref_path)):
        print(f"{name:22s} exists, skipped (use --force to re-export)", flush=True)
        return True
    os.makedirs(data_dir, exist_ok=True)
    start = time.time()
    model = build_model(name, raw_init)
    x = seeded_input(name)
    with torch.no_grad():
        ref = model(torch.from_numpy(x)).numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(
                model, torch.from_numpy(x), onnx_path, opset_version=OPSET,
                input_names=["input"], output_names=["output"],
                dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                do_constant_folding=True,
                # keeps build_model's modes (MultiheadAttention off its fused fast path)
                training=torch.onnx.TrainingMode.PRESERVE)
    np.save(input_path, x)
    np.save(ref_path, ref.astype(np.float32))
    size_mb = os.path.getsize(onnx_path) / 1e6
    print(f"{name:22s} exported in {time.time() - start:6.1f} s  ({size_mb:6.1f} MB, "
          f"output {list(ref.shape)}, std {ref.std():.3g})", flush=True)
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default="/tmp/models", help="output folder")
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated torchvision model names, or " + ENCODER +
                        " (default: the 11 torchvision ones)")
    parser.add_argument("--force", action="store_true", help="re-export existing models")
    parser.add_argument("--raw-init", action="store_true",
                        help="keep torchvision's init (no norm re-draw, no BatchNorm calibration)")
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
            export_one(name, args.out, args.force, args.raw_init)
        except Exception as exc:  # keep going: one broken model must not stop the others
            print(f"{name:22s} FAILED: {type(exc).__name__}: {exc}", flush=True)
            failed.append(name)
    print(f"total {time.time() - total:.1f} s; failed: {', '.join(failed) or 'none'}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/python3
"""Train a small Fashion-MNIST CNN with BatchNorm, quantize it with PyTorch FX (onednn backend,
per-channel weights, post-training static) and write the fixture QuantLens tests against.

Developer tool, not run by CI (it needs PyTorch). Writes OUT (default tests/data/fx_fashion_cnn):
  float.onnx              the float model, opset 13, BatchNorm kept as its own node (not folded),
                          input "input" [batch,1,28,28], output "output" [batch,10], batch dynamic
  qdq.onnx                the FX-converted int8 model exported by torch.onnx.export (opset 13):
                          QuantizeLinear / DequantizeLinear around float ops, BN folded into Conv
  inputs.npy              float32 [64,1,28,28]: the first 64 test images, normalised as in training
  labels.npy              int64 [64]
  torch_float_output.npy  float32 [64,10]: the float PyTorch model on inputs.npy
  torch_int8_output.npy   float32 [64,10]: the FX-quantized PyTorch model on inputs.npy
  qdq_reference_output.npy float32 [64,10]: qdq.onnx evaluated exactly in float64
                          (tests/tools/qdq_reference.py): the reference-path answer
  ort_int8_output.npy     float32 [64,10]: ONNX Runtime (node ort_run.js) on qdq.onnx (informative:
                          on AVX2 without VNNI its fused int8 kernels lose accuracy, see README)
  numeric_suite.json      PyTorch Numeric Suite figures on the same 64 samples (see numeric_suite())

Everything is seeded; training is one epoch on 2 threads (about a minute or two).

Usage: /usr/bin/python3 make_fx_fixture.py [OUT] [--epochs N] [--threads N]
"""
import argparse
import copy
import gzip
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qdq_reference  # noqa: E402  (tests/tools/qdq_reference.py)
from torch.ao.ns import _numeric_suite_fx as ns
from torch.ao.ns.fx.utils import compute_sqnr
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

DATA_DIR = "/usr/share/datasets/fashion-mnist"
MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST training-set pixel mean / std (pixels in [0,1])
OPSET = 13
N_FIXTURE = 64
N_CALIB = 200
HERE = os.path.dirname(os.path.abspath(__file__))


def read_idx(path):
    """Read an idx file (magic, big-endian dims, uint8 payload) as a numpy array."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load_split(prefix):
    images = read_idx(os.path.join(DATA_DIR, f"{prefix}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(DATA_DIR, f"{prefix}-labels-idx1-ubyte.gz"))
    x = ((images.astype(np.float32) / 255.0 - MEAN) / STD)[:, None, :, :]
    return torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(labels.astype(np.int64))


class FashionCNN(nn.Module):
    """Conv-BN-ReLU, a residual block (Conv-BN + skip, Add, ReLU), MaxPool, Conv-BN-ReLU, MaxPool,
    Flatten, Linear: about 23k parameters (~92 KB float). No Linear+ReLU: torch 1.13 cannot export
    the fused quantized::linear_relu to ONNX."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.relu2 = nn.ReLU()  # after the residual add
        self.pool1 = nn.MaxPool2d(2)
        self.conv3 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn3 = nn.BatchNorm2d(32)
        self.relu3 = nn.ReLU()
        self.pool2 = nn.MaxPool2d(2)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        x = self.relu1(self.bn1(self.conv1(x)))
        x = self.relu2(self.bn2(self.conv2(x)) + x)
        x = self.pool1(x)
        x = self.pool2(self.relu3(self.bn3(self.conv3(x))))
        x = self.flatten(x)
        return self.fc(x)


def train(model, x, y, epochs):
    generator = torch.Generator().manual_seed(0)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    for epoch in range(epochs):
        order = torch.randperm(len(x), generator=generator)
        total = 0.0
        for step in range(0, len(x), 64):
            index = order[step:step + 64]
            optimizer.zero_grad()
            loss = loss_fn(model(x[index]), y[index])
            loss.backward()
            optimizer.step()
            total += loss.item() * len(index)
        print(f"epoch {epoch + 1}: mean loss {total / len(x):.4f}", flush=True)
    model.eval()


@torch.no_grad()
def accuracy(model, x, y):
    correct = 0
    for step in range(0, len(x), 500):
        correct += (model(x[step:step + 500]).argmax(1) == y[step:step + 500]).sum().item()
    return correct / len(x)


def quantize(model, calib):
    """FX post-training static quantization, onednn backend, per-channel weights.

    prepare_fx fuses Conv+BN(+ReLU) in eval mode (BN folded into the conv weights), Linear+ReLU,
    and Add+ReLU; then observers are inserted and calibrated on `calib`."""
    torch.backends.quantized.engine = "onednn"
    qconfig_mapping = get_default_qconfig_mapping("onednn")
    example = (calib[:1],)
    prepared = prepare_fx(copy.deepcopy(model), qconfig_mapping, example)
    with torch.no_grad():
        for step in range(0, len(calib), 50):
            prepared(calib[step:step + 50])
    quantized = convert_fx(copy.deepcopy(prepared))
    quantized.eval()
    return prepared, quantized


def export(model, example, path, preserve_bn):
    # TrainingMode.PRESERVE on an eval() model exports BatchNormalization in inference mode but
    # skips the eval-mode peephole pass that would fold it into the preceding Conv.
    mode = torch.onnx.TrainingMode.PRESERVE if preserve_bn else torch.onnx.TrainingMode.EVAL
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, path, opset_version=OPSET, training=mode,
                          input_names=["input"], output_names=["output"],
                          dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}},
                          do_constant_folding=not preserve_bn)
    onnx.checker.check_model(onnx.load(path))


def onnx_op_counts(path):
    counts = {}
    for node in onnx.load(path).graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return dict(sorted(counts.items()))


NOISE_OPS = ("QuantizeLinear", "DequantizeLinear", "Constant", "Cast", "Identity", "ConstantOfShape")


def onnx_layer_map(model, float_path, qdq_path, layer_names):
    """Map a Numeric Suite layer name (conv1, add_relu, ...) to the ONNX nodes that compute it.

    torch 1.13 names exported nodes after the module scope: '/conv1/Conv', '/bn1/BatchNormalization',
    '/relu1/Relu'; ops without a module (the residual add) get no scope: '/Add', '/Relu'.
    FX fuses Conv+BN(+ReLU) into one quantized module named after the conv, and Add+ReLU into
    'add_relu' (Numeric Suite key; its fqn is the ReLU module). So a layer's float.onnx nodes are
    its first node ('/conv1/...', or '/Add' for add_relu) plus the BatchNormalization/Relu nodes
    that directly follow it; in qdq.onnx the first node plus a following Relu, ignoring the Q/DQ
    noise (Constant, Cast, ConstantOfShape, Identity). 'output' is the node whose output is the
    layer's output: the last float node in float.onnx, the QuantizeLinear after it in qdq.onnx."""
    fusable = {name for name, m in model.named_modules()
               if isinstance(m, (nn.BatchNorm2d, nn.ReLU))}

    def scope(node_name):
        parts = node_name.split("/")
        return parts[1] if len(parts) > 2 else ""

    def segments(path, follower):
        nodes = [n for n in onnx.load(path).graph.node]
        compute = [n for n in nodes if n.op_type not in NOISE_OPS]
        found = {}
        for layer in layer_names:
            first = next((i for i, n in enumerate(compute)
                          if scope(n.name) == layer or
                          (layer.startswith("add") and scope(n.name) == "" and n.op_type == "Add")),
                         None)
            if first is None:
                continue
            members = [compute[first]]
            for n in compute[first + 1:]:
                if not follower(n, layer):
                    break
                members.append(n)
            output = members[-1]
            quant = next((n for n in nodes if n.op_type == "QuantizeLinear" and
                          n.input[0] == output.output[0]), None)
            found[layer] = {"nodes": [n.name for n in members],
                            "output": (quant or output).name}
        return found

    float_map = segments(float_path, lambda n, layer: scope(n.name) in fusable or
                         (scope(n.name) == "" and n.op_type == "Relu"))
    qdq_map = segments(qdq_path, lambda n, layer: n.op_type == "Relu" and
                       scope(n.name) in (layer, ""))
    return {layer: {"float_onnx": float_map.get(layer), "qdq_onnx": qdq_map.get(layer)}
            for layer in layer_names}


@torch.no_grad()
def numeric_suite(prepared, quantized, x):
    """Weight SQNR per layer (extract_weights) and cumulative activation SQNR per layer
    (add_loggers + extract_logger_info + compute_sqnr), float side = the prepared model.

    The prepared model is the right float reference: it is the float model after FX fusion, so its
    conv weights already include the folded BatchNorm, exactly what the int8 model quantized.
    Its observers pass activations through unchanged."""
    weights = ns.extract_weights("fp32", copy.deepcopy(prepared), "int8", quantized)
    ns.extend_logger_results_with_comparison(weights, "fp32", "int8", compute_sqnr, "sqnr")
    weight_sqnr = {}
    for layer, result in weights.items():
        entry = result["weight"]["int8"][0]
        # sqnr is a list, one value per weight tensor (the weight; LSTMs would have more).
        weight_sqnr[layer] = {"sqnr_db": float(entry["sqnr"][0]),
                              "fqn": entry.get("fqn"), "type": entry.get("ref_node_target_type")}

    fp32_logged, int8_logged = ns.add_loggers("fp32", copy.deepcopy(prepared), "int8",
                                              copy.deepcopy(quantized), ns.OutputLogger)
    fp32_logged(x)
    int8_logged(x)
    acts = ns.extract_logger_info(fp32_logged, int8_logged, ns.OutputLogger, "int8")
    ns.extend_logger_results_with_comparison(acts, "fp32", "int8", compute_sqnr, "sqnr")
    act_sqnr, int8_values = {}, {}
    for layer, result in acts.items():
        entry = result["node_output"]["int8"][0]
        act_sqnr[layer] = {"sqnr_db": float(entry["sqnr"][0]), "fqn": entry.get("fqn"),
                           "type": entry.get("ref_node_target_type")}
        value = entry["values"][0]
        int8_values[layer] = (value.dequantize() if value.is_quantized else value).numpy()
    return weight_sqnr, act_sqnr, int8_values


def exact_layer_outputs(qdq_path, x, mapping):
    """Each layer's output in the exact float64 evaluation of qdq.onnx: the value of the layer's
    QuantizeLinear, dequantized with its own scale and zero point."""
    env = qdq_reference.run(qdq_path, x, keep=True)
    nodes = {n.name: n for n in onnx.load(qdq_path).graph.node}
    result = {}
    for layer, where in mapping.items():
        node = nodes.get((where.get("qdq_onnx") or {}).get("output", ""))
        if node is None or node.op_type != "QuantizeLinear":
            continue
        scale, zero = env[node.input[1]].astype(np.float64), env[node.input[2]].astype(np.float64)
        result[layer] = (env[node.output[0]].astype(np.float64) - zero) * scale
    return result


def sqnr_db(ref, other):
    ref, other = ref.astype(np.float64), other.astype(np.float64)
    noise = np.sum((ref - other) ** 2)
    return float("inf") if noise == 0 else float(10 * np.log10(np.sum(ref ** 2) / noise))


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?",
                        default=os.path.join(HERE, "..", "data", "fx_fashion_cnn"))
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    start = time.time()

    train_x, train_y = load_split("train")
    test_x, test_y = load_split("t10k")
    torch.manual_seed(0)
    model = FashionCNN()
    train(model, train_x, train_y, args.epochs)
    print(f"trained in {time.time() - start:.0f} s", flush=True)

    calib_index = torch.randperm(len(train_x), generator=torch.Generator().manual_seed(1))[:N_CALIB]
    prepared, quantized = quantize(model, train_x[calib_index])
    acc_float = accuracy(model, test_x, test_y)
    acc_int8 = accuracy(quantized, test_x, test_y)
    print(f"test accuracy (10000 images): float {acc_float:.4f}, int8 {acc_int8:.4f}", flush=True)

    x, y = test_x[:N_FIXTURE].contiguous(), test_y[:N_FIXTURE].contiguous()
    with torch.no_grad():
        float_out = model(x).numpy().astype(np.float32)
        int8_out = quantized(x).numpy().astype(np.float32)
    np.save(os.path.join(out, "inputs.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(out, "labels.npy"), y.numpy().astype(np.int64))
    np.save(os.path.join(out, "torch_float_output.npy"), float_out)
    np.save(os.path.join(out, "torch_int8_output.npy"), int8_out)

    float_path, qdq_path = os.path.join(out, "float.onnx"), os.path.join(out, "qdq.onnx")
    export(model, x[:1], float_path, preserve_bn=True)
    export(quantized, x[:1], qdq_path, preserve_bn=False)

    # The exact meaning of qdq.onnx (float64 dequantize -> op -> quantize): what QuantLens'
    # reference path should reproduce, and what the int8 kernels are measured against.
    reference_out = qdq_reference.run(qdq_path, x.numpy()).astype(np.float32)
    np.save(os.path.join(out, "qdq_reference_output.npy"), reference_out)

    ort_path = os.path.join(out, "ort_int8_output.npy")
    ort_note = "not run"
    try:
        subprocess.run(["node", os.path.join(HERE, "ort_run.js"), "infer", qdq_path,
                        os.path.join(out, "inputs.npy"), ort_path, "--threads", str(args.threads)],
                       check=True, capture_output=True, text=True)
        ort_note = "ok"
    except (OSError, subprocess.CalledProcessError) as exc:
        ort_note = f"failed: {getattr(exc, 'stderr', '') or exc}".strip()
        print(f"ORT on qdq.onnx {ort_note}", flush=True)

    weight_sqnr, act_sqnr, int8_values = numeric_suite(prepared, quantized, x)
    layers = sorted(set(weight_sqnr) | set(act_sqnr))
    mapping = onnx_layer_map(model, float_path, qdq_path, layers)
    # How far PyTorch's own int8 kernels are from the exact meaning of the exported graph, per
    # layer (cumulative): on CPUs without VNNI, onednn's u8*s8 pair sums can saturate in int16.
    exact = exact_layer_outputs(qdq_path, x.numpy(), mapping)
    torch_vs_exact = {layer: sqnr_db(exact[layer], int8_values[layer].reshape(exact[layer].shape))
                      for layer in layers if layer in exact and layer in int8_values and
                      int8_values[layer].size == exact[layer].size}
    summary = {
        "description": "PyTorch 1.13 Numeric Suite (FX) on inputs.npy (64 test images): fp32 = "
                       "model after FX fusion (BN folded), int8 = convert_fx output, onednn "
                       "backend, per-channel weights. Weight SQNR from extract_weights; "
                       "cumulative activation SQNR from add_loggers + extract_logger_info, "
                       "compute_sqnr = 20*log10(||x|| / ||x - y||) over all elements.",
        "torch_version": torch.__version__,
        "test_accuracy": {"float": acc_float, "int8": acc_int8, "images": len(test_x)},
        "fixture_accuracy": {
            "float": float((float_out.argmax(1) == y.numpy()).mean()),
            "int8": float((int8_out.argmax(1) == y.numpy()).mean()),
            "top1_agreement_int8_vs_float": float((float_out.argmax(1) == int8_out.argmax(1)).mean())},
        "output_sqnr_db": {"torch_int8_vs_torch_float": sqnr_db(float_out, int8_out),
                           "qdq_reference_vs_torch_int8": sqnr_db(int8_out, reference_out),
                           "qdq_reference_vs_torch_float": sqnr_db(float_out, reference_out)},
        "weight_sqnr_db": {k: v["sqnr_db"] for k, v in weight_sqnr.items()},
        "activation_sqnr_db": {k: v["sqnr_db"] for k, v in act_sqnr.items()},
        "torch_int8_vs_qdq_reference_per_layer_db": torch_vs_exact,
        "layers": {k: {"weight": weight_sqnr.get(k), "activation": act_sqnr.get(k),
                       "onnx_nodes": mapping[k]} for k in layers},
        "onnx_op_counts": {"float.onnx": onnx_op_counts(float_path),
                           "qdq.onnx": onnx_op_counts(qdq_path)},
        "ort_on_qdq": ort_note,
    }
    if os.path.exists(ort_path) and ort_note == "ok":
        ort_out = np.load(ort_path)
        summary["output_sqnr_db"]["ort_qdq_vs_torch_int8"] = sqnr_db(int8_out, ort_out)
        summary["output_sqnr_db"]["ort_qdq_vs_qdq_reference"] = sqnr_db(reference_out, ort_out)
        summary["fixture_accuracy"]["top1_agreement_ort_vs_torch_int8"] = float(
            (ort_out.argmax(1) == int8_out.argmax(1)).mean())
    with open(os.path.join(out, "numeric_suite.json"), "w") as f:
        json.dump(summary, f, indent=1, default=str)
        f.write("\n")
    print(json.dumps({k: summary[k] for k in ("test_accuracy", "fixture_accuracy",
                                              "output_sqnr_db", "weight_sqnr_db",
                                              "activation_sqnr_db", "torch_int8_vs_qdq_reference_per_layer_db",
                                              "onnx_op_counts")}, indent=1))
    print(f"done in {time.time() - start:.0f} s; files in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

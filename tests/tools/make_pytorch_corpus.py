#!/usr/bin/python3
"""Write tests/data/pytorch_corpus/: small float / int8 ONNX pairs as real PyTorch users export
them, with PyTorch Numeric Suite (torch.ao.ns) reference figures keyed by float.onnx node names.

Developer tool, not run by CI (it needs PyTorch 1.13, onnx, numpy; Debian 12 packages
python3-torch python3-onnx python3-numpy dataset-fashion-mnist). Everything is seeded. Each
<pair>/ folder holds:
  float.onnx        the float model, torch.onnx.export
  quant.onnx        the int8 model as exported (QDQ: QuantizeLinear / DequantizeLinear around
                    float ops), node names exactly as the exporter wrote them
  quant_noname.onnx quant.onnx with every node name cleared (for matching without names; CI has
                    no onnx module to make it)
  inputs.npy        float32 [32,1,28,28]: the first 32 Fashion-MNIST test images, normalised
  labels.npy        int64 [32]
  reference.json    the figures (see reference() and tests/corpus/check_corpus.py)

Pairs:
  fx_seresnet    pre-activation SE-ResNet, FX PTQ (onednn, per-channel); standalone BN (+ReLU)
                 after each residual Add stays a quantized layer of its own; quant.onnx batch fixed
                 at 1, float.onnx batch dynamic. FX flattens the module tree, so the quantized
                 export names nodes by leaf module ('/conv1_1/Conv') or not at all ('/ReduceMean'),
                 and some names collide with different layers of float.onnx.
  eager_cnn      eager-mode PTQ (QuantStub/DeQuantStub, fuse_modules, prepare, convert) with the
                 fbgemm qconfig if this torch has fbgemm, else onednn (Debian's torch 1.13:
                 onednn, per-channel weights); both batch dynamic.
  static_batch1  FX PTQ (qnnpack: per-tensor weights), x.reshape(x.size(0), -1) before the
                 classifier; BOTH exports with the batch fixed at 1 (Reshape to [1, 1568]).
                 FX 1.13 leaves conv2 and pool2 in float (pool2's output also feeds x.size(0)),
                 so the int8 model has an fp32 conv layer.
  opset9_float   float.onnx at opset 9 (BatchNormalization kept, Pad, Upsample, Slice, Flatten as
                 opset-9 ops), quant.onnx FX PTQ (onednn) at opset 13 (QDQ needs >= 10).
  ort_qdq        EMULATION of ONNX Runtime quantize_static (QDQ, per-tensor, MinMax): ORT's Python
                 quantizer is not installable here; see ort_qdq_emulation.py.
  bridge_fx      fx_seresnet's models exported by packaging/quantlens-export-pytorch: every compute
                 node of both files named by its module path.

Usage: /usr/bin/python3 make_pytorch_corpus.py [OUT] [--pairs a,b] [--steps N] [--threads N]
"""
import argparse
import copy
import importlib.machinery
import importlib.util
import json
import os
import sys
import time
import warnings

import numpy as np
import onnx
import torch
import torch.nn as nn
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import ort_qdq_emulation  # noqa: E402  (tests/tools/ort_qdq_emulation.py)
import qdq_reference  # noqa: E402  (tests/tools/qdq_reference.py)
from make_fx_fixture import load_split  # noqa: E402  (Fashion-MNIST idx reader, normalisation)
from torch.ao.ns import _numeric_suite as ns_eager  # noqa: E402
from torch.ao.ns import _numeric_suite_fx as ns_fx  # noqa: E402
from torch.ao.ns.fx.utils import compute_sqnr  # noqa: E402
from torch.ao.quantization import (DeQuantStub, QuantStub, convert, fuse_modules,  # noqa: E402
                                   get_default_qconfig, get_default_qconfig_mapping, prepare)
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx  # noqa: E402


sys.dont_write_bytecode = True  # no __pycache__ next to packaging/quantlens-export-pytorch


def _load_bridge():
    path = os.path.join(REPO, "packaging", "quantlens-export-pytorch")
    loader = importlib.machinery.SourceFileLoader("quantlens_export_pytorch", path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


bridge = _load_bridge()

N_SAMPLES = 32
N_CALIB = 200
PAIRS = ["fx_seresnet", "eager_cnn", "static_batch1", "opset9_float", "ort_qdq", "bridge_fx"]
QDQ_NOISE = ("QuantizeLinear", "DequantizeLinear", "Constant", "Cast", "Identity", "ConstantOfShape")
SHAPE_OPS = ("Reshape", "Flatten", "Squeeze", "Unsqueeze", "Transpose")


# ----------------------------------------------------------------------------------- models

class SqueezeExcite(nn.Module):
    """x * sigmoid(fc2(relu(fc1(mean(x))))), the 1x1 convolutions as the 'Linear' layers
    (torch 1.13 cannot export FX's fused quantized linear_relu to ONNX)."""

    def __init__(self, channels, reduction=4):
        super().__init__()
        self.fc1 = nn.Conv2d(channels, channels // reduction, 1)
        self.relu = nn.ReLU()
        self.fc2 = nn.Conv2d(channels // reduction, channels, 1)
        self.gate = nn.Sigmoid()

    def forward(self, x):
        w = x.mean((2, 3), keepdim=True)
        return x * self.gate(self.fc2(self.relu(self.fc1(w))))


class PreActBlock(nn.Module):
    """Pre-activation residual block: BN -> ReLU -> Conv -> BN -> ReLU -> Conv -> SE, + shortcut.
    bn1 reads the block input (the previous Add): no conv precedes it, it cannot be folded.
    bn2 directly follows conv1, so FX fuses conv1 + bn2 + relu2 (and the eval export folds it)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(cin)
        self.relu1 = nn.ReLU()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu2 = nn.ReLU()
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.se = SqueezeExcite(cout)
        self.shortcut = nn.Conv2d(cin, cout, 1, stride, bias=False) if stride != 1 or cin != cout else None

    def forward(self, x):
        out = self.relu1(self.bn1(x))
        shortcut = self.shortcut(out) if self.shortcut is not None else x
        out = self.conv2(self.relu2(self.bn2(self.conv1(out))))
        return self.se(out) + shortcut


class SEResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(1, 16, 3, 1, 1, bias=False)
        self.layer1 = nn.Sequential(PreActBlock(16, 16, 1))
        self.layer2 = nn.Sequential(PreActBlock(16, 32, 2))
        self.bn = nn.BatchNorm2d(32)
        self.relu = nn.ReLU()
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        x = self.relu(self.bn(x)).mean((2, 3))
        return self.fc(x)


class EagerCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = QuantStub()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv2d(16, 16, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(16)
        self.relu2 = nn.ReLU()
        self.skip = nn.quantized.FloatFunctional()
        self.pool = nn.MaxPool2d(2)
        self.conv3 = nn.Conv2d(16, 32, 3, stride=2, padding=1, bias=False)
        self.bn3 = nn.BatchNorm2d(32)
        self.relu3 = nn.ReLU()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(32, 10)
        self.dequant = DeQuantStub()

    def forward(self, x):
        x = self.relu1(self.bn1(self.conv1(self.quant(x))))
        x = self.pool(self.skip.add(x, self.relu2(self.bn2(self.conv2(x)))))
        x = self.relu3(self.bn3(self.conv3(x)))
        return self.dequant(self.fc(self.flatten(self.gap(x))))


class StaticCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu1 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.relu2 = nn.ReLU()
        self.pool2 = nn.MaxPool2d(2)
        self.fc = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        x = self.pool1(self.relu1(self.bn1(self.conv1(x))))
        x = self.pool2(self.relu2(self.bn2(self.conv2(x))))
        return self.fc(x.reshape(x.size(0), -1))


class PadUpsampleNet(nn.Module):
    """'TF same' padding before a stride-2 conv (ZeroPad2d), a nearest Upsample back to 28x28 added
    to a 1x1 lateral (FPN style), a channel Slice, MaxPool, Flatten, Linear."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu1 = nn.ReLU()
        self.pad = nn.ZeroPad2d((0, 1, 0, 1))
        self.conv2 = nn.Conv2d(8, 16, 3, stride=2)
        self.bn2 = nn.BatchNorm2d(16)
        self.relu2 = nn.ReLU()
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.lateral = nn.Conv2d(8, 16, 1)
        self.conv3 = nn.Conv2d(16, 16, 3, padding=1)
        self.bn3 = nn.BatchNorm2d(16)
        self.relu3 = nn.ReLU()
        self.pool = nn.MaxPool2d(4)
        self.fc = nn.Linear(8 * 7 * 7, 10)

    def forward(self, x):
        a = self.relu1(self.bn1(self.conv1(x)))
        b = self.relu2(self.bn2(self.conv2(self.pad(a))))
        c = self.relu3(self.bn3(self.conv3(self.up(b) + self.lateral(a))))
        return self.fc(torch.flatten(self.pool(c[:, :8]), 1))


class OrtCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.relu1 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(32)
        self.relu2 = nn.ReLU()
        self.conv3 = nn.Conv2d(32, 32, 1)
        self.relu3 = nn.ReLU()
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.pool(self.relu1(self.bn1(self.conv1(x))))
        x = self.relu2(self.bn2(self.conv2(x)))
        x = x + self.relu3(self.conv3(x))
        return self.fc(self.flatten(self.gap(x)))


# ------------------------------------------------------------------------------ utilities

def sqnr_db(ref, other):
    """10*log10(sum ref^2 / sum (ref - other)^2) in float64, 'inf' when identical."""
    ref = np.asarray(ref, np.float64).reshape(-1)
    other = np.asarray(other, np.float64).reshape(-1)
    noise = float(np.sum((ref - other) ** 2))
    if noise == 0.0:
        return float("inf")
    return float(10 * np.log10(np.sum(ref ** 2) / noise))


def rounded(value, digits=4):
    if value is None:
        return None
    if isinstance(value, float) and not np.isfinite(value):
        return "inf" if value > 0 else "-inf"
    return round(float(value), digits)


def train(model, x, y, steps, seed):
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.Adam(model.parameters(), lr=2e-3)
    loss_fn = nn.CrossEntropyLoss()
    model.train()
    total = 0.0
    for step in range(steps):
        index = torch.randint(0, len(x), (64,), generator=generator)
        optimizer.zero_grad()
        loss = loss_fn(model(x[index]), y[index])
        loss.backward()
        optimizer.step()
        total += loss.item()
        if (step + 1) % 100 == 0:
            print(f"    step {step + 1}: mean loss {total / 100:.3f}", flush=True)
            total = 0.0
    # A few hundred Adam steps move the weights faster than BatchNorm's running averages follow
    # (eval accuracy 40 % against 75 % in train mode on the SE-ResNet): re-estimate the running
    # statistics of the final weights (cumulative average over 32 batches, no gradient).
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.reset_running_stats()
            module.momentum = None
    with torch.no_grad():
        for _ in range(32):
            model(x[torch.randint(0, len(x), (64,), generator=generator)])
    for module in model.modules():
        if isinstance(module, nn.BatchNorm2d):
            module.momentum = 0.1
    model.eval()
    return model


@torch.no_grad()
def accuracy(model, x, y):
    correct = 0
    for step in range(0, len(x), 500):
        correct += (model(x[step:step + 500]).argmax(1) == y[step:step + 500]).sum().item()
    return correct / len(x)


def export(model, example, path, opset, dynamic_batch, keep_bn=False):
    """Plain torch.onnx.export. keep_bn: TrainingMode.PRESERVE on an eval() model keeps
    BatchNormalization as its own node (no eval-mode Conv+BN folding), as make_fx_fixture does."""
    kwargs = {}
    if dynamic_batch:
        kwargs["dynamic_axes"] = {"input": {0: "batch"}, "output": {0: "batch"}}
    if keep_bn:
        kwargs["training"] = torch.onnx.TrainingMode.PRESERVE
        kwargs["do_constant_folding"] = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, example, path, opset_version=opset, input_names=["input"],
                          output_names=["output"], **kwargs)
    onnx.checker.check_model(onnx.load(path))


def strip_names(src, dst):
    model = onnx.load(src)
    for node in model.graph.node:
        node.name = ""
    onnx.save(model, dst)


def op_counts(model):
    counts = {}
    for node in model.graph.node:
        counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return dict(sorted(counts.items()))


def batch_dims(model):
    dims = []
    for value in list(model.graph.input) + list(model.graph.output):
        d = value.type.tensor_type.shape.dim[0]
        dims.append(d.dim_param if d.dim_param else d.dim_value)
    return dims


def module_path(node_name):
    """'/layer1/layer1.0/conv1/Conv' -> 'layer1.0.conv1' (torch.onnx.export's scope names: each
    module in the call chain by its name without the parent's prefix); '/Add' -> ''."""
    parts = node_name.split("/")[1:-1]
    path = ""
    for part in parts:
        path = part if not path or part.startswith(path + ".") else f"{path}.{part}"
    return path


# ------------------------------------------------------------------ ONNX evaluation (float64)

def evaluate(path, x):
    """Every node's output on `x` (N samples), by node name, evaluated exactly in float64 by
    qdq_reference: QuantizeLinear outputs are given dequantized (the value the next DQ sees).
    Models with a fixed batch of 1 run sample by sample."""
    model = onnx.load(path)
    fixed = batch_dims(model)[0] == 1
    chunks = [x[i:i + 1] for i in range(len(x))] if fixed else [x]
    per_node = {}
    for chunk in chunks:
        env = qdq_reference.run(path, chunk, keep=True)
        for node in model.graph.node:
            if node.op_type in ("Constant",):
                continue
            value = env[node.output[0]]
            if node.op_type == "QuantizeLinear":
                scale = np.asarray(env[node.input[1]], np.float64)
                zero = np.asarray(env[node.input[2]], np.float64)
                axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
                if scale.ndim:
                    shape = [1] * value.ndim
                    shape[axis] = -1
                    scale, zero = scale.reshape(shape), zero.reshape(shape)
                value = (value.astype(np.float64) - zero) * scale
            if not isinstance(value, np.ndarray) or value.ndim == 0 or value.shape[0] != len(chunk):
                continue
            per_node.setdefault(node.name, []).append(np.asarray(value, np.float64))
    return {name: np.concatenate(parts) if len(parts) > 1 else parts[0]
            for name, parts in per_node.items() if len(parts) == len(chunks)}


def nodes_by_name(model):
    return {node.name: node for node in model.graph.node}


def producers(model):
    return {out: node for node in model.graph.node for out in node.output}


def best_node(values, target, candidates, prefer=None):
    """The node among `candidates` whose output is closest to `target` (same element count);
    on a tie (a Flatten carries its input's values) the first for which prefer(name) holds."""
    target = np.asarray(target, np.float64)
    best, best_db = None, -np.inf
    for name in candidates:
        value = values.get(name)
        if value is None or value.size != target.size:
            continue
        db = sqnr_db(target, value.reshape(target.shape))
        better = db > best_db + 1e-9
        tie = (db == best_db or abs(db - best_db) <= 1e-9) and prefer is not None and \
            prefer(name) and not prefer(best)
        if better or tie:
            best, best_db = name, db
    return best, best_db


def layer_chain(model, output_node, absorb=("Relu", "BatchNormalization", "Clip")):
    """The nodes of one layer ending at output_node: walk back over BN/Relu/Clip to the first
    compute node (Conv -> BN -> Relu in float.onnx; Conv -> Relu -> Q in quant.onnx). A node joins
    only if its output goes nowhere else, and a BatchNormalization only joins a Conv/Gemm (the only
    thing it can be folded into): a standalone BN after an Add starts its own layer."""
    by_output = producers(model)
    readers = {}
    for node in model.graph.node:
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1
    chain = [output_node]
    node = output_node
    while node.op_type in absorb:
        source = by_output.get(node.input[0])
        while source is not None and source.op_type in ("Identity", "Cast"):
            source = by_output.get(source.input[0])
        if source is None or source.op_type in QDQ_NOISE or readers.get(source.output[0], 0) != 1:
            break
        if node.op_type == "BatchNormalization" and source.op_type not in ("Conv", "ConvTranspose", "Gemm"):
            break
        chain.insert(0, source)
        node = source
    return chain


def quant_compute_for(model, q_node):
    """The compute node (and its fused Relu) that a QuantizeLinear quantizes."""
    by_output = producers(model)
    source = by_output.get(q_node.input[0])
    if source is None or source.op_type in QDQ_NOISE:
        return []
    return layer_chain(model, source, absorb=("Relu", "Clip"))


def onnx_weight(model, node):
    """(float or dequantized) weight of a Conv/Gemm node, evaluating its constant producers."""
    by_output = producers(model)
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}

    def value(name):
        if name in inits:
            return inits[name]
        src = by_output[name]
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in src.attribute}
        return qdq_reference._node(src.op_type, [value(i) if i else None for i in src.input], attrs)

    return np.asarray(value(node.input[1]), np.float64)


# ----------------------------------------------------------------------- numeric suite

@torch.no_grad()
def ns_fx_figures(prepared, quantized, x):
    """torch.ao.ns FX: weight SQNR (extract_weights) and cumulative activation SQNR (add_loggers +
    extract_logger_info), float side = the prepared model (float after FX fusion: BN folded into
    the conv weights; observers pass values through)."""
    weights = ns_fx.extract_weights("fp32", copy.deepcopy(prepared), "int8", quantized)
    ns_fx.extend_logger_results_with_comparison(weights, "fp32", "int8", compute_sqnr, "sqnr")
    fp32, int8 = ns_fx.add_loggers("fp32", copy.deepcopy(prepared), "int8", copy.deepcopy(quantized),
                                   ns_fx.OutputLogger)
    fp32(x)
    int8(x)
    acts = ns_fx.extract_logger_info(fp32, int8, ns_fx.OutputLogger, "int8")
    ns_fx.extend_logger_results_with_comparison(acts, "fp32", "int8", compute_sqnr, "sqnr")
    layers = {}
    for name, result in acts.items():
        q_entry = result["node_output"]["int8"][0]
        f_entry = result["node_output"]["fp32"][0]
        q_value = q_entry["values"][0]
        layers[name] = {"module": q_entry.get("fqn"), "type": q_entry.get("ref_node_target_type"),
                        "activation_sqnr_db": float(q_entry["sqnr"][0]),
                        "fp32": f_entry["values"][0].numpy().astype(np.float64),
                        "int8": (q_value.dequantize() if q_value.is_quantized else q_value)
                        .numpy().astype(np.float64)}
    for name, result in weights.items():
        entry = result["weight"]["int8"][0]
        layers.setdefault(name, {"module": entry.get("fqn"), "type": entry.get("ref_node_target_type")})
        layers[name]["weight_sqnr_db"] = float(entry["sqnr"][0])
    return layers


@torch.no_grad()
def ns_eager_figures(float_fused, quantized, x):
    """torch.ao.ns eager: compare_weights and compare_model_outputs. The float side is the model
    after fuse_modules (BN folded into the conv, as the int8 model has it); its state-dict keys of
    fused modules ('conv1.0.weight') are renamed to the quantized ones ('conv1.weight')."""
    float_dict = {}
    for name, module in float_fused.named_modules():
        if isinstance(module, (nn.Conv2d, nn.Linear)):
            key = name[:-2] if name.endswith(".0") else name
            float_dict[key + ".weight"] = module.weight.detach()
    weights = ns_eager.compare_weights(float_dict, quantized.state_dict())
    outputs = ns_eager.compare_model_outputs(copy.deepcopy(float_fused), copy.deepcopy(quantized), x)
    layers = {}
    for key, pair in outputs.items():
        name = key[:-len(".stats")]
        f = pair["float"][-1]  # a fused module logs its inner conv, then its own (post-ReLU) output
        q = pair["quantized"][-1]
        q = q.dequantize() if q.is_quantized else q
        kind = type(dict(quantized.named_modules())[name])
        layers[name] = {"module": name, "type": f"{kind.__module__}.{kind.__name__}",
                        "activation_sqnr_db": float(compute_sqnr(f, q)),
                        "fp32": f.numpy().astype(np.float64), "int8": q.numpy().astype(np.float64)}
    for key, pair in weights.items():
        name = key
        for suffix in ("._packed_params._packed_params", "._packed_params._packed", ".weight"):
            name = name[:-len(suffix)] if name.endswith(suffix) else name
        q = pair["quantized"]
        layers.setdefault(name, {"module": name, "type": None})
        layers[name]["weight_sqnr_db"] = float(compute_sqnr(pair["float"], q.dequantize()))
    return layers


# ------------------------------------------------------------------- the reference.json

def reference(pair_dir, figures, torch_out, x, y, meta):
    """Key every layer's figures by the float.onnx node whose output is the layer's output.

    The mapping is by value: float.onnx is evaluated in float64 and the node whose output matches
    the Numeric Suite's fp32 value for that layer (SQNR > 60 dB) is the layer's float node; the
    layer's quantized node is the QuantizeLinear in quant.onnx closest to the int8 value. The
    module path from the exporter's scopes ('/layer1/layer1.0/conv1/Conv') is recorded next to it.
    exact_activation_sqnr_db is the same comparison with quant.onnx evaluated exactly
    (dequantize -> float64 op -> quantize): the meaning of the graph, no int8 kernel involved."""
    float_path, quant_path = os.path.join(pair_dir, "float.onnx"), os.path.join(pair_dir, "quant.onnx")
    fmodel, qmodel = onnx.load(float_path), onnx.load(quant_path)
    fvalues, qvalues = evaluate(float_path, x.numpy()), evaluate(quant_path, x.numpy())
    fnodes, qnodes = nodes_by_name(fmodel), nodes_by_name(qmodel)
    f_candidates = [n.name for n in fmodel.graph.node if n.op_type not in QDQ_NOISE]
    # A layer's int8 output is a QuantizeLinear (dequantized); a layer the int8 model runs in
    # float has a compute node whose output no QuantizeLinear reads.
    quantized_values = {n.input[0] for n in qmodel.graph.node if n.op_type == "QuantizeLinear"}
    q_candidates = [n.name for n in qmodel.graph.node if n.op_type == "QuantizeLinear" or
                    (n.op_type == "DequantizeLinear" and n.output[0] == qmodel.graph.output[0].name) or
                    (n.op_type not in QDQ_NOISE and n.output[0] not in quantized_values)]
    def quant_op(name):
        """Op type of the layer a QuantizeLinear quantizes (Relu skipped), else the node's."""
        node = qnodes.get(name)
        if node is None:
            return None
        if node.op_type == "QuantizeLinear":
            chain = quant_compute_for(qmodel, node)
            return chain[0].op_type if chain else None
        return node.op_type

    rows = []
    used_q = set()
    for ns_name, fig in figures.items():
        row = {"module": fig.get("module"), "ns_name": ns_name, "type": fig.get("type")}
        if "fp32" in fig:
            if fig["fp32"].size == x.numel() and sqnr_db(x.numpy(), fig["fp32"]) == float("inf"):
                continue  # the QuantStub: its float value is the graph input, no layer's output
            fname, fdb = best_node(fvalues, fig["fp32"], f_candidates,
                                   prefer=lambda n: module_path(n) == fig.get("module"))
            qname, qdb = best_node(qvalues, fig["int8"], q_candidates,
                                   prefer=lambda n: fname is not None and quant_op(n) == fnodes[fname].op_type)
            if qname is None:
                raise RuntimeError(f"{pair_dir}: no quant.onnx QuantizeLinear matches {ns_name} "
                                   f"{tuple(fig['int8'].shape)} (float node {fname})")
            if fname is None or fdb < 60:
                raise RuntimeError(f"{pair_dir}: no float.onnx node matches {ns_name} ({fname}, {fdb} dB)")
            chain = layer_chain(fmodel, fnodes[fname])
            if qnodes[qname].op_type == "QuantizeLinear":
                qchain = quant_compute_for(qmodel, qnodes[qname])
            elif qnodes[qname].op_type in QDQ_NOISE:
                qchain = []
            else:
                qchain = layer_chain(qmodel, qnodes[qname], absorb=("Relu", "Clip"))
                row["quant_precision"] = "fp32 (no QuantizeLinear on this layer's output)"
            used_q.add(qname)
            exact = sqnr_db(fvalues[fname], qvalues[qname].reshape(fvalues[fname].shape))
            row.update({
                "float_node": fname, "float_nodes": [n.name for n in chain],
                "float_module_from_scope": module_path(chain[0].name),
                "float_node_match_db": rounded(fdb, 1),
                "quant_output_node": qname, "quant_nodes": [n.name for n in qchain],
                "quant_node_match_db": rounded(qdb, 2),
                "activation_sqnr_db": rounded(fig["activation_sqnr_db"]),
                "exact_activation_sqnr_db": rounded(exact),
            })
            if not fig.get("exact_only"):
                row["torch_int8_vs_exact_db"] = rounded(sqnr_db(qvalues[qname].reshape(fig["int8"].shape), fig["int8"]), 2)
            if any(n.op_type == "BatchNormalization" for n in chain) and \
                    not any(n.op_type == "BatchNormalization" for n in qchain):
                row["bn_folded"] = ("the quantized layer has this BatchNormalization folded into its "
                                    "conv (FX/eager fusion); the float layer's output is the "
                                    f"{chain[-1].op_type} output")
        if "weight_sqnr_db" in fig and "quant_precision" in row:
            row["note"] = (f"the int8 model runs this layer in float; the Numeric Suite's weight "
                           f"figure ({fig['weight_sqnr_db']}) compares two float weights")
        elif "weight_sqnr_db" in fig:
            row["weight_sqnr_db"] = rounded(fig["weight_sqnr_db"])
            head = fnodes[row["float_nodes"][0]] if row.get("float_nodes") else None
            qhead = qnodes[row["quant_nodes"][0]] if row.get("quant_nodes") else None
            if head is not None and qhead is not None and head.op_type in ("Conv", "Gemm") and \
                    not any(fnodes[n].op_type == "BatchNormalization" for n in row["float_nodes"]):
                row["onnx_weight_sqnr_db"] = rounded(sqnr_db(onnx_weight(fmodel, head), onnx_weight(qmodel, qhead)))
        rows.append(row)
    order = {n.name: i for i, n in enumerate(fmodel.graph.node)}
    rows.sort(key=lambda r: order.get(r.get("float_node"), 1 << 30))

    # Quantized ops the Numeric Suite does not log (shared-qparams ops like mean): exact figures.
    # Shape-only ops (Reshape, Flatten, ...) carry their input's values: not layers of their own.
    extra = []
    taken = {r.get("float_node") for r in rows}
    for node in qmodel.graph.node:
        if node.op_type != "QuantizeLinear" or node.name in used_q:
            continue
        chain = quant_compute_for(qmodel, node)
        if not chain or chain[0].op_type in ("Relu",) + SHAPE_OPS:
            continue
        qv = qvalues.get(node.name)
        fname, fdb = best_node(fvalues, qv, [n for n in f_candidates if fnodes[n].op_type == chain[0].op_type])
        if fname is None or fdb < 15 or fname in taken:
            continue
        taken.add(fname)
        extra.append({"module": module_path(fname), "ns_name": None, "type": chain[0].op_type,
                      "float_node": fname, "float_nodes": [n.name for n in layer_chain(fmodel, fnodes[fname])],
                      "quant_output_node": node.name, "quant_nodes": [n.name for n in chain],
                      "activation_source": "exact",
                      "exact_activation_sqnr_db": rounded(sqnr_db(fvalues[fname], qv.reshape(fvalues[fname].shape)))})

    # Name collisions: node names present in both files, and whether they are the same layer.
    # Same layer: both nodes in one reference row; else, for weighted nodes, the same weights
    # (|cosine| per output channel > 0.9, a folded BN rescales channels); else close values.
    float_row = {n: i for i, r in enumerate(rows + extra) for n in r.get("float_nodes", [])}
    quant_row = {}
    for i, r in enumerate(rows + extra):
        for n in r.get("quant_nodes", []):
            quant_row.setdefault(n, i)
    fgraph, qgraph = bridge._Graph(fmodel), bridge._Graph(qmodel)
    collisions = []
    for node in qmodel.graph.node:
        if node.name in fnodes and node.name and node.op_type not in QDQ_NOISE:
            fnode = fnodes[node.name]
            fv, qv = fvalues.get(node.name), qvalues.get(node.name)
            if node.name in float_row and node.name in quant_row:
                same = float_row[node.name] == quant_row[node.name]
            elif fnode.op_type == node.op_type and fnode.op_type in bridge.WEIGHTED:
                same = bridge._weight_score(fgraph.weight_rows(fnode), qgraph.weight_rows(node)) > 0.9
            else:
                same = (fnode.op_type == node.op_type and fv is not None and qv is not None and
                        fv.shape == qv.shape and sqnr_db(fv, qv) > 10)
            collisions.append({"name": node.name, "float_op": fnode.op_type, "quant_op": node.op_type,
                               "float_shape": list(fv.shape[1:]) if fv is not None else None,
                               "quant_shape": list(qv.shape[1:]) if qv is not None else None,
                               "same_layer": bool(same)})

    float_out = torch_out["float"]
    int8_out = torch_out["int8"] if torch_out["int8"] is not None else np.full_like(float_out, np.nan)
    exact_out = qvalues[qmodel.graph.node[-1].name] if qmodel.graph.node[-1].output[0] == qmodel.graph.output[0].name \
        else None
    onnx_float_out = fvalues[fmodel.graph.node[-1].name]
    labels = y.numpy()
    output = {
        "torch_int8_vs_torch_float_sqnr_db": rounded(sqnr_db(float_out, int8_out)) if torch_out["int8"] is not None else None,
        "exact_qdq_vs_float_onnx_sqnr_db": rounded(sqnr_db(onnx_float_out, exact_out)) if exact_out is not None else None,
        "float_onnx_vs_torch_float_sqnr_db": rounded(sqnr_db(float_out, onnx_float_out), 1),
        "top1_agreement_torch": float((float_out.argmax(1) == int8_out.argmax(1)).mean()) if torch_out["int8"] is not None else None,
        "top1_agreement_exact": float((onnx_float_out.argmax(1) == exact_out.argmax(1)).mean()) if exact_out is not None else None,
        "float_accuracy": float((onnx_float_out.argmax(1) == labels).mean()),
        "quant_accuracy_torch": float((int8_out.argmax(1) == labels).mean()) if torch_out["int8"] is not None else None,
        "quant_accuracy_exact": float((exact_out.argmax(1) == labels).mean()) if exact_out is not None else None,
    }
    files = {}
    for name in ("float.onnx", "quant.onnx"):
        model = fmodel if name == "float.onnx" else qmodel
        files[name] = {"bytes": os.path.getsize(os.path.join(pair_dir, name)),
                       "opset": next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx")),
                       "batch_dim": batch_dims(model)[0], "op_counts": op_counts(model)}
    return {**meta, "samples": len(x), "files": files, "output": output, "layers": rows,
            "extra_layers": extra, "name_collisions": collisions,
            "torch_version": torch.__version__, "onnx_version": onnx.__version__}


def write_pair(out, name, float_model, quant_model_export, export_kwargs, figures, torch_out, x, y, meta):
    pair_dir = os.path.join(out, name)
    os.makedirs(pair_dir, exist_ok=True)
    example = x[:1]
    export(float_model, example, os.path.join(pair_dir, "float.onnx"), **export_kwargs["float"])
    export(quant_model_export, example, os.path.join(pair_dir, "quant.onnx"), **export_kwargs["quant"])
    finish_pair(pair_dir, figures, torch_out, x, y, meta)


def finish_pair(pair_dir, figures, torch_out, x, y, meta):
    strip_names(os.path.join(pair_dir, "quant.onnx"), os.path.join(pair_dir, "quant_noname.onnx"))
    np.save(os.path.join(pair_dir, "inputs.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(pair_dir, "labels.npy"), y.numpy().astype(np.int64))
    ref = reference(pair_dir, figures, torch_out, x, y, meta)
    with open(os.path.join(pair_dir, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1)
        f.write("\n")
    summary(os.path.basename(pair_dir), ref)
    return ref


def summary(name, ref):
    print(f"  {name}: output {ref['output']}")
    for row in ref["layers"]:
        print(f"    {row.get('module') or '-':22} {row.get('float_node', '-'):44} "
              f"w {row.get('weight_sqnr_db', '-')!s:>8}  a {row.get('activation_sqnr_db', '-')!s:>8} "
              f"exact {row.get('exact_activation_sqnr_db', '-')!s:>8}  q {row.get('quant_output_node')}")
    bad = [c["name"] for c in ref["name_collisions"] if not c["same_layer"]]
    print(f"    names in both files: {len(ref['name_collisions'])}, different layers: {bad}", flush=True)


# ------------------------------------------------------------------------------ the pairs

def fx_quantize(model, calib, backend):
    torch.backends.quantized.engine = backend
    qconfig_mapping = get_default_qconfig_mapping(backend)
    prepared = prepare_fx(copy.deepcopy(model), qconfig_mapping, (calib[:1],))
    with torch.no_grad():
        for step in range(0, len(calib), 50):
            prepared(calib[step:step + 50])
    quantized = convert_fx(copy.deepcopy(prepared))
    quantized.eval()
    return prepared, quantized


def qconfig_text(backend):
    q = get_default_qconfig(backend)
    return {"activation": str(q.activation), "weight": str(q.weight)}


@torch.no_grad()
def torch_outputs(float_model, quantized, x):
    return {"float": float_model(x).numpy().astype(np.float64), "int8": quantized(x).numpy().astype(np.float64)}


def make_fx_seresnet(ctx, bridge_too):
    model = train(SEResNet(), ctx["train_x"], ctx["train_y"], ctx["steps"], seed=10)
    prepared, quantized = fx_quantize(model, ctx["calib"], "onednn")
    x, y = ctx["x"], ctx["y"]
    figures = ns_fx_figures(prepared, quantized, x)
    out = torch_outputs(model, quantized, x)
    acc = {"float": accuracy(model, ctx["test_x"], ctx["test_y"]),
           "int8": accuracy(quantized, ctx["test_x"], ctx["test_y"])}
    print(f"  fx_seresnet test accuracy (10000 images): {acc}", flush=True)
    meta = {
        "pair": "fx_seresnet",
        "description": "Pre-activation SE-ResNet (stem conv, 2 blocks: BN-ReLU-Conv-BN-ReLU-Conv, "
                       "squeeze-excitation mean -> 1x1 conv -> ReLU -> 1x1 conv -> Sigmoid -> Mul, "
                       "residual Add; head BN-ReLU-mean-Linear), trained briefly on Fashion-MNIST. "
                       "FX graph-mode PTQ: prepare_fx/convert_fx, get_default_qconfig_mapping('onednn').",
        "quantization": {"api": "torch.ao.quantization.quantize_fx", "backend": "onednn",
                         "qconfig": qconfig_text("onednn"), "calibration_samples": N_CALIB},
        "export": {
            "float": "torch.onnx.export(model, x[:1], opset_version=13), eval mode, batch dynamic "
                     "(dynamic_axes); conv1+bn2 of each block folded by the exporter; the standalone "
                     "BNs (block input, head) stay BatchNormalization nodes",
            "quant": "torch.onnx.export(quantized, x[:1], opset_version=13), NO dynamic_axes: batch "
                     "fixed at 1; QDQ form. torch 1.13 has no ONNX symbolic for "
                     "quantized::batch_norm2d_relu (the standalone BN+ReLU FX quantizes), so the "
                     "generator registers one with torch.onnx.register_custom_op_symbolic that writes "
                     "DequantizeLinear -> BatchNormalization -> Relu -> QuantizeLinear "
                     "(packaging/quantlens-export-pytorch, register_quantized_batchnorm_symbolics)",
        },
        "test_accuracy_10000": acc,
        "notes": "FX's GraphModule calls every leaf module from its top-level forward, so the "
                 "quantized export's scopes are leaf names made unique ('/conv1_1/Conv' = "
                 "layer2.0.conv1) and functional ops have no scope ('/ReduceMean' = the first SE "
                 "squeeze, while float.onnx's '/ReduceMean' is the head's global mean).",
    }
    bridge.register_quantized_batchnorm_symbolics(13)
    write_pair(ctx["out"], "fx_seresnet", model, quantized,
               {"float": {"opset": 13, "dynamic_batch": True}, "quant": {"opset": 13, "dynamic_batch": False}},
               figures, out, x, y, meta)
    if bridge_too:
        make_bridge_fx(ctx, model, quantized, figures, out, acc)


def make_bridge_fx(ctx, model, quantized, figures, out, acc):
    pair_dir = os.path.join(ctx["out"], "bridge_fx")
    x, y = ctx["x"], ctx["y"]
    result = bridge.export_pair(model, quantized, x[:1], pair_dir, opset=13, dynamic_batch=True,
                                float_name="float.onnx", quant_name="quant.onnx")
    meta = {
        "pair": "bridge_fx",
        "description": "fx_seresnet's float and FX-quantized models exported by "
                       "packaging/quantlens-export-pytorch (export_pair): float.onnx as "
                       "torch.onnx.export writes it, quant.onnx with every compute node renamed to "
                       "the float node of the same layer (module-path scopes), both batch dynamic.",
        "quantization": {"api": "torch.ao.quantization.quantize_fx", "backend": "onednn",
                         "qconfig": qconfig_text("onednn"), "calibration_samples": N_CALIB},
        "export": {"float": "quantlens-export-pytorch, opset 13, batch dynamic",
                   "quant": "quantlens-export-pytorch, opset 13, batch dynamic, QDQ"},
        "bridge": {"renamed": result["renamed"], "unmatched": result["unmatched"],
                   "map_file": os.path.basename(result["map_path"])},
        "test_accuracy_10000": acc,
    }
    finish_pair(pair_dir, figures, out, x, y, meta)


def make_eager_cnn(ctx):
    model = train(EagerCNN(), ctx["train_x"], ctx["train_y"], ctx["steps"], seed=20)
    backend = "fbgemm" if "fbgemm" in torch.backends.quantized.supported_engines else "onednn"
    torch.backends.quantized.engine = backend
    groups = [["conv1", "bn1", "relu1"], ["conv2", "bn2", "relu2"], ["conv3", "bn3", "relu3"]]
    fused = fuse_modules(copy.deepcopy(model), groups)
    fused.qconfig = get_default_qconfig(backend)
    prepared = prepare(copy.deepcopy(fused))
    with torch.no_grad():
        for step in range(0, len(ctx["calib"]), 50):
            prepared(ctx["calib"][step:step + 50])
    quantized = convert(copy.deepcopy(prepared))
    quantized.eval()
    x, y = ctx["x"], ctx["y"]
    figures = ns_eager_figures(fused, quantized, x)
    out = torch_outputs(model, quantized, x)
    acc = {"float": accuracy(model, ctx["test_x"], ctx["test_y"]),
           "int8": accuracy(quantized, ctx["test_x"], ctx["test_y"])}
    print(f"  eager_cnn test accuracy: {acc}", flush=True)
    meta = {
        "pair": "eager_cnn",
        "description": "Conv-BN-ReLU, Conv-BN-ReLU + skip (FloatFunctional.add), MaxPool, "
                       "Conv-BN-ReLU stride 2, AdaptiveAvgPool, Flatten, Linear. Eager-mode PTQ: "
                       "QuantStub/DeQuantStub, fuse_modules, prepare, calibrate, convert.",
        "quantization": {"api": "torch.ao.quantization (eager)", "backend": backend,
                         "qconfig": qconfig_text(backend), "calibration_samples": N_CALIB},
        "export": {"float": "torch.onnx.export opset 13, eval mode (BN folded by the exporter), batch dynamic",
                   "quant": "torch.onnx.export opset 13, batch dynamic; torch 1.13 writes eager "
                            "quantized modules in QDQ form (QuantizeLinear/DequantizeLinear around "
                            "float Conv/Gemm/Add/MaxPool/GlobalAveragePool, int8 weights as "
                            "Constant -> DequantizeLinear, int32 bias via Cast); no QOperator ops"},
        "test_accuracy_10000": acc,
        "notes": "The eager model keeps its module tree, so the quantized export's node names "
                 "are the float export's (same scopes) plus the fused Relu as '/conv1/Relu'.",
    }
    write_pair(ctx["out"], "eager_cnn", model, quantized,
               {"float": {"opset": 13, "dynamic_batch": True}, "quant": {"opset": 13, "dynamic_batch": True}},
               figures, out, x, y, meta)


def make_static_batch1(ctx):
    model = train(StaticCNN(), ctx["train_x"], ctx["train_y"], ctx["steps"], seed=30)
    prepared, quantized = fx_quantize(model, ctx["calib"], "qnnpack")
    x, y = ctx["x"], ctx["y"]
    figures = ns_fx_figures(prepared, quantized, x)
    out = torch_outputs(model, quantized, x)
    acc = {"float": accuracy(model, ctx["test_x"], ctx["test_y"]),
           "int8": accuracy(quantized, ctx["test_x"], ctx["test_y"])}
    print(f"  static_batch1 test accuracy: {acc}", flush=True)
    meta = {
        "pair": "static_batch1",
        "description": "Conv-BN-ReLU-MaxPool x2, x.reshape(x.size(0), -1), Linear. FX PTQ with "
                       "get_default_qconfig_mapping('qnnpack'): per-tensor symmetric weights.",
        "quantization": {"api": "torch.ao.quantization.quantize_fx", "backend": "qnnpack",
                         "qconfig": qconfig_text("qnnpack"), "calibration_samples": N_CALIB},
        "export": {"float": "torch.onnx.export(model, x[:1], opset_version=13), no dynamic_axes: "
                            "batch fixed at 1 (input [1,1,28,28], Reshape to a constant [1, 1568])",
                   "quant": "same, QDQ form, batch fixed at 1"},
        "test_accuracy_10000": acc,
        "notes": "FX 1.13 puts no observer after conv2 + pool2 because pool2's output also feeds "
                 "x.size(0): conv2 (Conv+BN+ReLU fused) and pool2 stay float in the int8 model "
                 "('/conv2/0/Conv', '/conv2/1/Relu', '/pool2/MaxPool' between DequantizeLinear and "
                 "the QuantizeLinear before the Reshape). Their rows carry quant_precision fp32 and "
                 "no weight SQNR.",
    }
    write_pair(ctx["out"], "static_batch1", model, quantized,
               {"float": {"opset": 13, "dynamic_batch": False}, "quant": {"opset": 13, "dynamic_batch": False}},
               figures, out, x, y, meta)


def make_opset9_float(ctx):
    model = train(PadUpsampleNet(), ctx["train_x"], ctx["train_y"], ctx["steps"], seed=40)
    prepared, quantized = fx_quantize(model, ctx["calib"], "onednn")
    x, y = ctx["x"], ctx["y"]
    figures = ns_fx_figures(prepared, quantized, x)
    out = torch_outputs(model, quantized, x)
    acc = {"float": accuracy(model, ctx["test_x"], ctx["test_y"]),
           "int8": accuracy(quantized, ctx["test_x"], ctx["test_y"])}
    print(f"  opset9_float test accuracy: {acc}", flush=True)
    meta = {
        "pair": "opset9_float",
        "description": "Conv-BN-ReLU; ZeroPad2d((0,1,0,1)) + Conv stride 2 -BN-ReLU; nearest "
                       "Upsample x2 + 1x1 lateral conv (Add); Conv-BN-ReLU; channel slice [:, :8]; "
                       "MaxPool 4; flatten; Linear. FX PTQ onednn (per-channel weights).",
        "quantization": {"api": "torch.ao.quantization.quantize_fx", "backend": "onednn",
                         "qconfig": qconfig_text("onednn"), "calibration_samples": N_CALIB},
        "export": {"float": "torch.onnx.export opset_version=9, TrainingMode.PRESERVE and no constant "
                            "folding: BatchNormalization kept as nodes (not folded), Pad / Slice "
                            "with attributes, Upsample with a computed scales input, batch dynamic",
                   "quant": "torch.onnx.export opset_version=13 (QuantizeLinear/DequantizeLinear need "
                            ">= 10; per-channel needs 13), batch dynamic. FX 1.13's onednn config "
                            "does not quantize ZeroPad2d, Upsample or the slice: they run in float "
                            "between DequantizeLinear and QuantizeLinear (Resize at opset 13)"},
        "test_accuracy_10000": acc,
    }
    write_pair(ctx["out"], "opset9_float", model, quantized,
               {"float": {"opset": 9, "dynamic_batch": True, "keep_bn": True},
                "quant": {"opset": 13, "dynamic_batch": True}},
               figures, out, x, y, meta)


# ------------------------------------------------------------- ONNX Runtime emulation (e)

def make_ort_qdq(ctx):
    model = train(OrtCNN(), ctx["train_x"], ctx["train_y"], ctx["steps"], seed=50)
    pair_dir = os.path.join(ctx["out"], "ort_qdq")
    os.makedirs(pair_dir, exist_ok=True)
    x, y = ctx["x"], ctx["y"]
    float_path, quant_path = os.path.join(pair_dir, "float.onnx"), os.path.join(pair_dir, "quant.onnx")
    export(model, x[:1], float_path, opset=13, dynamic_batch=True)
    ort_qdq_emulation.write(float_path, quant_path, ctx["calib"].numpy())
    # Figures: the same definitions as torch.ao.ns (compute_sqnr over all elements), computed on
    # the ONNX files: float.onnx vs quant.onnx evaluated exactly (dequantize -> float64 op ->
    # quantize, what ORT's graph-optimization-disabled path computes), per layer output.
    fmodel, qmodel = onnx.load(float_path), onnx.load(quant_path)
    fvalues, qvalues = evaluate(float_path, x.numpy()), evaluate(quant_path, x.numpy())
    fnodes = nodes_by_name(fmodel)
    figures = {}
    for qnode in qmodel.graph.node:
        if qnode.op_type != "QuantizeLinear" or qnode.input[0] == qmodel.graph.input[0].name:
            continue
        chain = quant_compute_for(qmodel, qnode)
        if not chain:
            continue
        compute = chain[0]
        fnode = fnodes[compute.name]
        # The float layer's output: the Relu the quantizer removed, if any.
        consumers = [n for n in fmodel.graph.node if fnode.output[0] in n.input]
        out_node = consumers[0] if len(consumers) == 1 and consumers[0].op_type == "Relu" else fnode
        entry = {"module": module_path(compute.name), "type": compute.op_type, "exact_only": True,
                 "fp32": fvalues[out_node.name], "int8": qvalues[qnode.name].reshape(fvalues[out_node.name].shape)}
        entry["activation_sqnr_db"] = sqnr_db(entry["fp32"], entry["int8"])
        if compute.op_type in ("Conv", "Gemm"):
            entry["weight_sqnr_db"] = sqnr_db(onnx_weight(fmodel, fnode), onnx_weight(qmodel, compute))
        figures[compute.name] = entry
    with torch.no_grad():
        float_out = model(x).numpy().astype(np.float64)
    out = {"float": float_out, "int8": None}  # no PyTorch int8 model: see exact_qdq_* figures
    acc = {"float": accuracy(model, ctx["test_x"], ctx["test_y"])}
    print(f"  ort_qdq float test accuracy: {acc}", flush=True)
    meta = {
        "pair": "ort_qdq",
        "emulation": True,
        "description": "EMULATION of ONNX Runtime quantize_static, not ONNX Runtime's output: ORT's "
                       "Python quantizer is not installable on this machine (no pip) and no small "
                       "real quantize_static QDQ pair with its float source was found in public "
                       "repositories. quant.onnx is written by make_pytorch_corpus.py "
                       "(tests/tools/ort_qdq_emulation.py) from float.onnx following quantize_static's documented "
                       "QDQ output: QuantFormat.QDQ, per_channel=False, activations QUInt8 "
                       "asymmetric, weights QInt8 symmetric ([-127, 127]), bias int32 (scale = input "
                       "scale x weight scale), CalibrationMethod.MinMax on 200 training images, "
                       "'_QuantizeLinear' / '_DequantizeLinear' node names and '_quantized' / "
                       "'_dequantized' / '_scale' / '_zero_point' value names, Relu after Conv "
                       "removed (its range quantizes the Conv output), MaxPool sharing its input's "
                       "qparams, Flatten left in float, float node names kept.",
        "quantization": {"api": "emulated onnxruntime.quantization.quantize_static", "format": "QDQ",
                         "per_channel": False, "activations": "uint8 asymmetric, MinMax",
                         "weights": "int8 symmetric per tensor", "calibration_samples": N_CALIB},
        "export": {"float": "torch.onnx.export opset 13, eval mode (BN folded by the exporter), batch dynamic",
                   "quant": "written by the emulation, opset 13, batch dynamic"},
        "figures_source": "no torch.ao.ns here (the int8 model is not a PyTorch model): weight SQNR "
                          "= compute_sqnr(float weight, dequantized weight) from the two files; "
                          "activation SQNR = compute_sqnr(float.onnx output, quant.onnx output) "
                          "with both evaluated exactly in float64 (tests/tools/qdq_reference.py)",
        "test_accuracy_10000": acc,
    }
    finish_pair(pair_dir, figures, out, x, y, meta)


# --------------------------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default=os.path.join(REPO, "tests", "data", "pytorch_corpus"))
    parser.add_argument("--pairs", default=",".join(PAIRS))
    parser.add_argument("--steps", type=int, default=300, help="training steps of 64 images per model")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    pairs = args.pairs.split(",")
    unknown = set(pairs) - set(PAIRS)
    if unknown:
        parser.error(f"unknown pairs {sorted(unknown)}; known: {PAIRS}")
    start = time.time()
    train_x, train_y = load_split("train")
    test_x, test_y = load_split("t10k")
    calib_index = torch.randperm(len(train_x), generator=torch.Generator().manual_seed(1))[:N_CALIB]
    ctx = {"out": os.path.abspath(args.out), "steps": args.steps, "train_x": train_x, "train_y": train_y,
           "test_x": test_x, "test_y": test_y, "calib": train_x[calib_index].contiguous(),
           "x": test_x[:N_SAMPLES].contiguous(), "y": test_y[:N_SAMPLES].contiguous()}
    os.makedirs(ctx["out"], exist_ok=True)
    if "fx_seresnet" in pairs or "bridge_fx" in pairs:
        torch.manual_seed(10)
        print("fx_seresnet" + (" + bridge_fx" if "bridge_fx" in pairs else ""), flush=True)
        make_fx_seresnet(ctx, bridge_too="bridge_fx" in pairs)
    for name, make, seed in (("eager_cnn", make_eager_cnn, 20), ("static_batch1", make_static_batch1, 30),
                             ("opset9_float", make_opset9_float, 40), ("ort_qdq", make_ort_qdq, 50)):
        if name in pairs:
            torch.manual_seed(seed)
            print(name, flush=True)
            make(ctx)
    print(f"done in {time.time() - start:.0f} s; files in {ctx['out']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

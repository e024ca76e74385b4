#!/usr/bin/python3
"""Exact float64 evaluation of a small QDQ ONNX graph: the "dequantize -> fp32 op -> quantize"
meaning of the model, with no int8 kernel in the way.

Covers the ops PyTorch 1.13 FX exports of CNNs use: QuantizeLinear, DequantizeLinear (per tensor
and per axis), Cast, Constant, ConstantOfShape, Identity, Conv, Relu, Clip, Add, Mul, MaxPool,
AveragePool, GlobalAveragePool, Flatten, Reshape, Gemm, MatMul, Concat; and for the float side of
make_pytorch_corpus.py BatchNormalization, ReduceMean, Sigmoid, Sub, Div, Upsample/Resize (nearest,
integer scales), Pad (constant), Slice, Shape, Gather, (Un)Squeeze, Transpose (opset 9 and 13 forms). QuantizeLinear rounds half
to even and saturates, as ONNX specifies. Ops run in float64, so the only errors left are the
model's own quantization steps.

Usage as a tool: qdq_reference.py MODEL.onnx INPUT.npy OUT.npy   (writes float32)
"""
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper


def _per_axis(values, rank, axis):
    if values.ndim == 0 or rank <= 1:
        return values
    shape = [1] * rank
    shape[axis % rank] = -1
    return values.reshape(shape)


def _pads(attrs, spatial):
    pads = list(attrs.get("pads", [0] * (2 * spatial)))
    begin, end = pads[:spatial], pads[spatial:]
    return begin, end


def _conv(x, w, b, attrs):
    spatial = x.ndim - 2
    begin, end = _pads(attrs, spatial)
    xt = torch.from_numpy(np.ascontiguousarray(x))
    if begin != end:
        xt = F.pad(xt, [p for pair in zip(reversed(begin), reversed(end)) for p in pair])
        begin = [0] * spatial
    conv = F.conv2d if spatial == 2 else F.conv1d
    return conv(xt, torch.from_numpy(np.ascontiguousarray(w)),
                None if b is None else torch.from_numpy(b),
                list(attrs.get("strides", [1] * spatial)), begin,
                list(attrs.get("dilations", [1] * spatial)), attrs.get("group", 1)).numpy()


def _pool(x, attrs, kind):
    spatial = x.ndim - 2
    begin, end = _pads(attrs, spatial)
    if begin != end:
        raise NotImplementedError("asymmetric pooling pads")
    xt = torch.from_numpy(np.ascontiguousarray(x))
    kernel, strides = list(attrs["kernel_shape"]), list(attrs.get("strides", [1] * spatial))
    ceil = bool(attrs.get("ceil_mode", 0))
    if kind == "max":
        return F.max_pool2d(xt, kernel, strides, begin, ceil_mode=ceil).numpy()
    return F.avg_pool2d(xt, kernel, strides, begin, ceil_mode=ceil,
                        count_include_pad=bool(attrs.get("count_include_pad", 0))).numpy()


def _node(op, inputs, attrs):
    x = inputs[0] if inputs else None
    if op == "Constant":
        return numpy_helper.to_array(attrs["value"])
    if op == "Identity":
        return x
    if op == "Cast":
        return x.astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[attrs["to"]])
    if op == "ConstantOfShape":
        value = numpy_helper.to_array(attrs["value"]) if "value" in attrs else np.zeros(1, np.float32)
        return np.full(tuple(int(d) for d in x), value.reshape(-1)[0], dtype=value.dtype)
    if op in ("QuantizeLinear", "DequantizeLinear"):
        scale = inputs[1].astype(np.float64)
        zero = inputs[2] if len(inputs) > 2 and inputs[2] is not None else np.zeros((), np.uint8)
        axis = attrs.get("axis", 1)
        scale, zero_f = _per_axis(scale, x.ndim, axis), _per_axis(zero.astype(np.float64), x.ndim, axis)
        if op == "DequantizeLinear":
            return (x.astype(np.float64) - zero_f) * scale
        info = np.iinfo(zero.dtype)
        return np.clip(np.round(x.astype(np.float64) / scale) + zero_f, info.min, info.max).astype(zero.dtype)
    if op == "Conv":
        return _conv(x, inputs[1], inputs[2] if len(inputs) > 2 else None, attrs)
    if op == "Relu":
        return np.maximum(x, 0)
    if op == "Clip":
        low = inputs[1] if len(inputs) > 1 and inputs[1] is not None else -np.inf
        high = inputs[2] if len(inputs) > 2 and inputs[2] is not None else np.inf
        return np.clip(x, low, high)
    if op == "Add":
        return x + inputs[1]
    if op == "Mul":
        return x * inputs[1]
    if op == "MaxPool":
        return _pool(x, attrs, "max")
    if op == "AveragePool":
        return _pool(x, attrs, "avg")
    if op == "GlobalAveragePool":
        return x.mean(axis=tuple(range(2, x.ndim)), keepdims=True)
    if op == "Flatten":
        axis = attrs.get("axis", 1) % max(x.ndim, 1)
        return x.reshape(int(np.prod(x.shape[:axis])), -1)
    if op == "Reshape":
        shape = [x.shape[i] if d == 0 else int(d) for i, d in enumerate(inputs[1])]
        return x.reshape(shape)
    if op == "Gemm":
        a = x.T if attrs.get("transA", 0) else x
        b = inputs[1].T if attrs.get("transB", 0) else inputs[1]
        y = attrs.get("alpha", 1.0) * (a @ b)
        return y if len(inputs) < 3 or inputs[2] is None else y + attrs.get("beta", 1.0) * inputs[2]
    if op == "MatMul":
        return x @ inputs[1]
    if op == "Concat":
        return np.concatenate(inputs, axis=attrs["axis"])
    return _more_ops(op, x, inputs, attrs)


def _more_ops(op, x, inputs, attrs):
    """Ops of float exports (BatchNormalization kept, SE blocks, opset 9 shape ops) for
    make_pytorch_corpus.py; inputs given as attributes in old opsets are read from either place."""
    if op == "BatchNormalization":
        shape = [1, -1] + [1] * (x.ndim - 2)
        scale, bias, mean, var = (v.astype(np.float64).reshape(shape) for v in inputs[1:5])
        return (x - mean) / np.sqrt(var + attrs.get("epsilon", 1e-5)) * scale + bias
    if op == "ReduceMean":
        axes = attrs.get("axes", inputs[1] if len(inputs) > 1 else None)
        axes = None if axes is None else tuple(int(a) for a in axes)
        return x.mean(axis=axes, keepdims=bool(attrs.get("keepdims", 1)))
    if op == "Sigmoid":
        return 1.0 / (1.0 + np.exp(-x))
    if op == "Sub":
        return x - inputs[1]
    if op == "Div":
        return x / inputs[1]
    if op in ("Upsample", "Resize"):
        if attrs.get("mode", b"nearest") not in (b"nearest", "nearest"):
            raise NotImplementedError(f"qdq_reference: {op} mode {attrs.get('mode')}")
        scales = inputs[1] if op == "Upsample" else (inputs[2] if len(inputs) > 2 else None)
        if scales is None or scales.size == 0:
            scales = np.asarray(inputs[3], np.float64) / np.asarray(x.shape, np.float64)
        for axis, factor in enumerate(np.asarray(scales, np.float64)):
            if factor != 1.0:
                if factor != int(factor):
                    raise NotImplementedError(f"qdq_reference: {op} scale {factor}")
                x = np.repeat(x, int(factor), axis=axis)
        return x
    if op == "Pad":
        pads = attrs["pads"] if "pads" in attrs else [int(p) for p in inputs[1]]
        value = attrs.get("value", inputs[2].reshape(-1)[0] if len(inputs) > 2 and inputs[2] is not None else 0.0)
        if attrs.get("mode", b"constant") not in (b"constant", "constant"):
            raise NotImplementedError(f"qdq_reference: Pad mode {attrs.get('mode')}")
        half = len(pads) // 2
        return np.pad(x, list(zip(pads[:half], pads[half:])), constant_values=value)
    if op == "Slice":
        if "starts" in attrs:
            starts, ends, axes, steps = attrs["starts"], attrs["ends"], attrs.get("axes"), None
        else:
            starts, ends = inputs[1], inputs[2]
            axes = inputs[3] if len(inputs) > 3 and inputs[3] is not None else None
            steps = inputs[4] if len(inputs) > 4 and inputs[4] is not None else None
        axes = range(len(starts)) if axes is None else axes
        steps = [1] * len(starts) if steps is None else steps
        index = [slice(None)] * x.ndim
        for start, end, axis, step in zip(starts, ends, axes, steps):
            index[int(axis)] = slice(int(start), int(end), int(step))
        return x[tuple(index)]
    if op == "Shape":
        return np.asarray(x.shape, np.int64)
    if op == "Gather":
        return np.take(x, inputs[1], axis=attrs.get("axis", 0))
    if op in ("Unsqueeze", "Squeeze"):
        axes = attrs.get("axes", inputs[1] if len(inputs) > 1 else None)
        if op == "Squeeze":
            return np.squeeze(x, axis=None if axes is None else tuple(int(a) for a in axes))
        for axis in sorted(int(a) % (x.ndim + len(axes)) for a in axes):
            x = np.expand_dims(x, axis)
        return x
    if op == "Transpose":
        return np.transpose(x, attrs.get("perm"))
    raise NotImplementedError(f"qdq_reference: op {op}")


def run(model_path, x, keep=False):
    """Run the model's first input on `x`; returns the first output (float64 for float outputs),
    or with keep=True the dict of every tensor by name."""
    model = onnx.load(model_path)
    # float32 weights and constants widen to float64 (exact for float32 values), so float graphs
    # run in float64 too; integer tensors keep their type.
    env = {i.name: _widen(numpy_helper.to_array(i)) for i in model.graph.initializer}
    env[model.graph.input[0].name] = np.asarray(x, dtype=np.float64)
    for node in model.graph.node:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        inputs = [env[name] if name else None for name in node.input]
        env[node.output[0]] = _widen(_node(node.op_type, inputs, attrs))
    return env if keep else env[model.graph.output[0].name]


def _widen(value):
    return value.astype(np.float64) if isinstance(value, np.ndarray) and value.dtype == np.float32 else value


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    np.save(sys.argv[3], run(sys.argv[1], np.load(sys.argv[2])).astype(np.float32))
    return 0


if __name__ == "__main__":
    sys.exit(main())

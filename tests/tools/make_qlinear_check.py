#!/usr/bin/python3
"""Writes small QOperator models that chain every com.microsoft QLinear* op QuantLens implements
(Sigmoid, LeakyRelu, Add, Mul with broadcasting, Concat, AveragePool, GlobalAveragePool with and
without channels_last) plus 8-bit MaxPool/Transpose/Reshape, with a float input and output, so
`quantlens infer` and ONNX Runtime (tests/tools/ort_run.js) can be compared on them.

    /usr/bin/python3 make_qlinear_check.py OUT_DIR
writes OUT_DIR/qlinear_uint8.onnx, OUT_DIR/qlinear_int8.onnx and OUT_DIR/input.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def build(signed):
    qtype = TensorProto.INT8 if signed else TensorProto.UINT8
    npq = np.int8 if signed else np.uint8
    shift = -128 if signed else 0
    inits, nodes = [], []

    def qparams(name, scale, zp):
        inits.append(numpy_helper.from_array(np.array(scale, np.float32), name + "_s"))
        inits.append(numpy_helper.from_array(np.array(zp + shift, npq), name + "_z"))
        return [name + "_s", name + "_z"]

    def node(op, inputs, output, ms=True, **attrs):
        nodes.append(helper.make_node(op, inputs, [output], name=output,
                                      domain="com.microsoft" if ms else "", **attrs))
        return output

    x = qparams("x", 0.02, 128)
    q = node("QuantizeLinear", ["input"] + x, "q", ms=False)
    sg = qparams("sg", 1.0 / 256, 0)
    a = node("QLinearSigmoid", [q] + x + sg, "a")
    lr = qparams("lr", 0.015, 100)
    b = node("QLinearLeakyRelu", [q] + x + lr, "b", alpha=0.2)
    ad = qparams("ad", 0.02, 110)
    c = node("QLinearAdd", [a] + sg + [b] + lr + ad, "c")
    rng = np.random.default_rng(7)
    per_channel = (rng.integers(0, 256, size=(1, 4, 1, 1)) + shift).astype(npq)
    inits.append(numpy_helper.from_array(per_channel, "e"))
    e = qparams("e", 0.01, 128)
    mu = qparams("mu", 0.03, 120)
    d = node("QLinearMul", [c] + ad + ["e"] + e + mu, "d")
    mp = node("MaxPool", [q], "mp", ms=False, kernel_shape=[2, 2], strides=[1, 1],
              pads=[0, 0, 1, 1])
    cc = qparams("cc", 0.035, 125)
    f = node("QLinearConcat", cc + [d] + mu + [mp] + x, "f", axis=1)
    ap = qparams("ap", 0.025, 130)
    g = node("QLinearAveragePool", [f] + cc + ap, "g", kernel_shape=[3, 3], strides=[2, 2],
             pads=[1, 1, 1, 1], count_include_pad=1)
    gp = qparams("gp", 0.01, 120)
    h = node("QLinearGlobalAveragePool", [f] + cc + gp, "h")
    t = node("Transpose", [f], "t", ms=False, perm=[0, 2, 3, 1])
    hl = node("QLinearGlobalAveragePool", [t] + cc + gp, "hl", channels_last=1)
    inits.append(numpy_helper.from_array(np.array([1, -1], np.int64), "flat"))
    outs = []
    for name, qp in ((g, ap), (h, gp), (hl, gp), (f, cc)):
        r = node("Reshape", [name, "flat"], name + "_flat", ms=False)
        outs.append(node("DequantizeLinear", [r] + qp, name + "_real", ms=False))
    node("Concat", outs, "output", ms=False, axis=1)
    graph = helper.make_graph(
        nodes, "qlinear_check",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 4, 6, 6])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 376])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                    helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 7
    return model


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    onnx.save(build(False), os.path.join(out, "qlinear_uint8.onnx"))
    onnx.save(build(True), os.path.join(out, "qlinear_int8.onnx"))
    x = np.random.default_rng(3).uniform(-2.5, 2.5, size=(1, 4, 6, 6)).astype(np.float32)
    np.save(os.path.join(out, "input.npy"), x)


if __name__ == "__main__":
    main()

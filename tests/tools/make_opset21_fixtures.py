#!/usr/bin/python3
"""Fixtures for opsets 19-21 and 16-bit / block-wise Q/DQ, with ONNX Runtime's outputs.

Developer tool, not run by CI (it needs ONNX Runtime for Node.js, see ort_run.js). Models are
built with the ONNX Python API Debian has (1.12, which knows opsets up to 17): the opset import,
IR version, attributes and types of the newer opsets are set directly. Each case folder under OUT
(default tests/data/opset21) holds
  model.onnx      the model
  input.npy       its input "x" (float32, seeded)
  float.onnx      (some cases) the float model the quantized one was made from
  expected/NAME.npy  every output of ONNX Runtime 1.30 with graph optimizations disabled: the
                  operators' literal meaning (optimized, ORT may fuse a DQ + MatMul into kernels
                  of its own that quantize the activations too)
Cases with a refusal instead hold refused.txt: what QuantLens must say (a substring).

Usage: /usr/bin/python3 make_opset21_fixtures.py [OUT]
"""
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RNG = np.random.default_rng(21)
# onnx.proto's newer element types, unknown to ONNX 1.12's enum.
UINT4, INT4, FLOAT8E4M3FN = 21, 22, 17


def model(nodes, inputs, outputs, initializers, opset, ir_version=10):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializers)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="make_opset21_fixtures")
    m.ir_version = ir_version
    return m


def value(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def qdq16_matmul():
    """uint16 activations, int16 output activations around a float MatMul (ORT's QInt16 form)."""
    w = RNG.standard_normal((8, 4)).astype(np.float32)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="quant_x"),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="dequant_x"),
        helper.make_node("MatMul", ["xd", "w"], ["m"], name="matmul"),
        helper.make_node("QuantizeLinear", ["m", "ys", "yz"], ["y_q"], name="quant_y"),
        helper.make_node("DequantizeLinear", ["y_q", "ys", "yz"], ["y"], name="dequant_y"),
    ]
    inits = [const("w", w), const("xs", np.float32(3.0 / 65535)), const("xz", np.uint16(32768)),
             const("ys", np.float32(12.0 / 65535)), const("yz", np.int16(0))]
    m = model(nodes, [value("x", TensorProto.FLOAT, [2, 8])],
              [value("y_q", TensorProto.INT16, [2, 4]), value("y", TensorProto.FLOAT, [2, 4])],
              inits, 21)
    # Its float model, for the analysis of a 16-bit pair (no reference output needed).
    float_model = model([helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")],
                        [value("x", TensorProto.FLOAT, [None, 8])],
                        [value("y", TensorProto.FLOAT, [None, 4])], [const("w", w)], 21)
    return m, RNG.uniform(-1.6, 1.6, (2, 8)).astype(np.float32), {"float.onnx": float_model}


def per_axis_uint16():
    """Per-channel uint16 Q/DQ of an activation (axis 1), values beyond the range saturate."""
    scales = np.array([1e-4, 3e-4, 2e-5], np.float32)
    zeros = np.array([0, 30000, 65535], np.uint16)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["x_q"], axis=1, name="quant"),
        helper.make_node("DequantizeLinear", ["x_q", "s", "z"], ["x_dq"], axis=1, name="dequant"),
    ]
    m = model(nodes, [value("x", TensorProto.FLOAT, [2, 3, 4])],
              [value("x_q", TensorProto.UINT16, [2, 3, 4]), value("x_dq", TensorProto.FLOAT, [2, 3, 4])],
              [const("s", scales), const("z", zeros)], 21)
    return m, RNG.uniform(-8, 8, (2, 3, 4)).astype(np.float32)


def output_dtype():
    """QuantizeLinear-21 without a zero point: output_dtype chooses int16."""
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s"], ["x_q"], output_dtype=TensorProto.INT16,
                         name="quant"),
        helper.make_node("DequantizeLinear", ["x_q", "s"], ["x_dq"], name="dequant"),
    ]
    m = model(nodes, [value("x", TensorProto.FLOAT, [3, 5])],
              [value("x_q", TensorProto.INT16, [3, 5]), value("x_dq", TensorProto.FLOAT, [3, 5])],
              [const("s", np.float32(1e-3))], 21)
    return m, RNG.uniform(-40, 40, (3, 5)).astype(np.float32)


def blockwise():
    """Block-wise int8 weights (block 16 along K) into a MatMul, and a block-wise uint8 Q/DQ of
    the activation (block 8 along its last axis, ragged last block)."""
    k, n, block = 32, 4, 16
    wq = RNG.integers(-128, 128, (k, n)).astype(np.int8)
    ws = RNG.uniform(0.001, 0.02, (k // block, n)).astype(np.float32)
    wz = RNG.integers(-5, 6, (k // block, n)).astype(np.int8)
    xs = RNG.uniform(0.005, 0.02, (3, 4)).astype(np.float32)  # ceil(32 / 9) = 4 blocks
    xz = RNG.integers(100, 156, (3, 4)).astype(np.uint8)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["x_q"], axis=1, block_size=9,
                         name="quant_x"),
        helper.make_node("DequantizeLinear", ["x_q", "xs", "xz"], ["x_dq"], axis=1, block_size=9,
                         name="dequant_x"),
        helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["w"], axis=0, block_size=block,
                         name="dequant_w"),
        helper.make_node("MatMul", ["x_dq", "w"], ["y"], name="matmul"),
    ]
    m = model(nodes, [value("x", TensorProto.FLOAT, [3, k])],
              [value("x_q", TensorProto.UINT8, [3, k]), value("y", TensorProto.FLOAT, [3, n])],
              [const("wq", wq), const("ws", ws), const("wz", wz), const("xs", xs), const("xz", xz)],
              21)
    return m, RNG.uniform(-1, 1, (3, k)).astype(np.float32)


def resize_half_pixel_symmetric():
    """Resize-19's new coordinate mode, linear, a scale that does not divide evenly."""
    nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="linear",
                              coordinate_transformation_mode="half_pixel_symmetric",
                              name="resize")]
    m = model(nodes, [value("x", TensorProto.FLOAT, [1, 2, 4, 5])],
              [value("y", TensorProto.FLOAT, None)],
              [const("scales", np.array([1, 1, 1.7, 0.6], np.float32))], 19, ir_version=9)
    return m, RNG.standard_normal((1, 2, 4, 5)).astype(np.float32)


def average_pool_dilations():
    """AveragePool-19's new dilations, with strides, asymmetric pads and count_include_pad 0."""
    nodes = [helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], dilations=[2, 2],
                              strides=[1, 2], pads=[1, 2, 1, 0], count_include_pad=0, name="pool")]
    m = model(nodes, [value("x", TensorProto.FLOAT, [1, 2, 9, 10])],
              [value("y", TensorProto.FLOAT, None)], [], 19, ir_version=9)
    return m, RNG.standard_normal((1, 2, 9, 10)).astype(np.float32)


def gelu20():
    """Gelu of the default domain (opset 20), exact and tanh."""
    nodes = [helper.make_node("Gelu", ["x"], ["y_exact"], name="gelu"),
             helper.make_node("Gelu", ["x"], ["y_tanh"], approximate="tanh", name="gelu_tanh")]
    m = model(nodes, [value("x", TensorProto.FLOAT, [4, 6])],
              [value("y_exact", TensorProto.FLOAT, [4, 6]), value("y_tanh", TensorProto.FLOAT, [4, 6])],
              [], 20, ir_version=9)
    return m, (RNG.standard_normal((4, 6)) * 3).astype(np.float32)


def demo_opset21():
    """The demo CNN with its opset import raised to 21: its ops mean the same there."""
    m = onnx.load(os.path.join(REPO, "resources", "demo", "fashion_cnn.onnx"))
    for imp in m.opset_import:
        if imp.domain in ("", "ai.onnx"):
            imp.version = 21
    m.ir_version = 10
    samples = np.load(os.path.join(REPO, "resources", "demo", "samples.npy"))[:4]
    return m, samples.astype(np.float32)


def int4_weights():
    """int4 weights (two per byte): refused with the node, the op and the type for now."""
    t = TensorProto()
    t.name, t.data_type = "wq", INT4
    t.dims.extend([4, 2])
    t.raw_data = bytes([0x21, 0x43, 0x65, 0x87])
    nodes = [helper.make_node("DequantizeLinear", ["wq", "ws"], ["w"], name="dequant_w"),
             helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")]
    return model(nodes, [value("x", TensorProto.FLOAT, [1, 4])], [value("y", TensorProto.FLOAT, [1, 2])],
                 [t, const("ws", np.float32(0.5))], 21), "int4"


def float8_activations():
    """float8 Q/DQ (opset 19): refused with the node, the op and the type for now."""
    zero = TensorProto()
    zero.name, zero.data_type = "z", FLOAT8E4M3FN
    zero.raw_data = bytes([0])
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"], name="quant_x"),
             helper.make_node("DequantizeLinear", ["xq", "s", "z"], ["y"], name="dequant_x")]
    return model(nodes, [value("x", TensorProto.FLOAT, [2, 2])], [value("y", TensorProto.FLOAT, [2, 2])],
                 [const("s", np.float32(0.1)), zero], 19, ir_version=9), "float8e4m3fn"


RUN = [qdq16_matmul, per_axis_uint16, output_dtype, blockwise, resize_half_pixel_symmetric, gelu20,
       demo_opset21, average_pool_dilations]
REFUSED = [int4_weights, float8_activations]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(REPO, "tests", "data", "opset21")
    os.makedirs(out, exist_ok=True)
    env = dict(os.environ, ORT_GRAPH_OPTIMIZATION="disabled")
    for make in RUN:
        name = make.__name__
        folder = os.path.join(out, name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        m, x, *extra = make()
        onnx.save(m, os.path.join(folder, "model.onnx"))
        for file, other in (extra[0] if extra else {}).items():
            onnx.save(other, os.path.join(folder, file))
        np.save(os.path.join(folder, "input.npy"), x)
        subprocess.run(["node", os.path.join(HERE, "ort_run.js"), "outputs",
                        os.path.join(folder, "model.onnx"), os.path.join(folder, "input.npy"),
                        os.path.join(folder, "expected")], check=True, env=env)
    for make in REFUSED:
        name = make.__name__
        folder = os.path.join(out, name)
        shutil.rmtree(folder, ignore_errors=True)
        os.makedirs(folder)
        m, said = make()
        onnx.save(m, os.path.join(folder, "model.onnx"))
        with open(os.path.join(folder, "refused.txt"), "w") as f:
            f.write(said + "\n")
    print(f"wrote {len(RUN) + len(REFUSED)} cases under {out}")


if __name__ == "__main__":
    main()

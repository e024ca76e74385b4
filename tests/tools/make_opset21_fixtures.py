#!/usr/bin/python3
"""Fixtures for opsets 19-21 and 16-bit / block-wise Q/DQ, with ONNX Runtime's outputs.

Developer tool, not run by CI (it needs ONNX Runtime for Node.js, see ort_run.js). Models are
built with the ONNX Python API Debian has (1.12, which knows opsets up to 17): the opset import,
IR version, attributes and types of the newer opsets are set directly. Each case folder under OUT
(default tests/data/opset21) holds
  model.onnx      the model
  input.npy       its input "x" (float32, seeded)
  float.onnx      (some cases) the float model the quantized one was made from
  weight_sqnr.json  (int4_weights) each layer's weight SQNR in dB, computed here with numpy
  expected/NAME.npy  every output of ONNX Runtime 1.30 with graph optimizations disabled: the
                  operators' literal meaning (optimized, ORT may fuse a DQ + MatMul into kernels
                  of its own that quantize the activations too)
Cases with a refusal instead hold refused.txt: what QuantLens must say (a substring).

Usage: /usr/bin/python3 make_opset21_fixtures.py [OUT]
"""
import json
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
FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ, UINT4, INT4, FLOAT4E2M1 = (
    17, 18, 19, 20, 21, 22, 23)


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


def packed4(name, values, elem_type):
    """A 4-bit tensor as ONNX stores it: two values a byte, the first in the low nibble."""
    v = np.asarray(values).astype(np.int64)
    flat = np.append(v.ravel() & 0x0F, [0] * (v.size % 2)).astype(np.uint8)
    t = TensorProto()
    t.name, t.data_type = name, elem_type
    t.dims.extend(v.shape)
    t.raw_data = (flat[0::2] | (flat[1::2] << 4)).astype(np.uint8).tobytes()
    return t


def float8_zero(name, elem_type, shape=()):
    """A float8 zero point of zeros (bit pattern 0 is +0 in every float8 type)."""
    t = TensorProto()
    t.name, t.data_type = name, elem_type
    t.dims.extend(shape)
    t.raw_data = bytes(int(np.prod(shape)))
    return t


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
    """Float weights quantized min-max to int4 in blocks of 16 along K (int4 zero points) into a
    MatMul, and to uint4 per output channel (15 values: an odd count, the last byte half used)
    into a second one; float.onnx is the float model they came from."""
    k, n, block = 32, 5, 16
    w = RNG.standard_normal((k, n)).astype(np.float32)
    v = RNG.standard_normal((n, 3)).astype(np.float32)
    wb = w.reshape(k // block, block, n)
    lo, hi = np.minimum(wb.min(axis=1), 0), np.maximum(wb.max(axis=1), 0)
    ws = ((hi - lo) / 15).astype(np.float32)
    wz = np.clip(np.round(-8 - lo / ws), -8, 7)
    wq = np.clip(np.round(wb / ws[:, None, :]) + wz[:, None, :], -8, 7).reshape(k, n)
    vlo, vhi = np.minimum(v.min(axis=0), 0), np.maximum(v.max(axis=0), 0)
    vs = ((vhi - vlo) / 15).astype(np.float32)
    vz = np.clip(np.round(-vlo / vs), 0, 15)
    vq = np.clip(np.round(v / vs) + vz, 0, 15)
    nodes = [
        helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["w"], axis=0, block_size=block,
                         name="dequant_w"),
        helper.make_node("MatMul", ["x", "w"], ["h"], name="matmul"),
        helper.make_node("DequantizeLinear", ["vq", "vs", "vz"], ["v"], axis=1, name="dequant_v"),
        helper.make_node("MatMul", ["h", "v"], ["y"], name="matmul_2"),
    ]
    inits = [packed4("wq", wq, INT4), const("ws", ws), packed4("wz", wz, INT4),
             packed4("vq", vq, UINT4), const("vs", vs), packed4("vz", vz, UINT4)]
    m = model(nodes, [value("x", TensorProto.FLOAT, [3, k])],
              [value("h", TensorProto.FLOAT, [3, n]), value("y", TensorProto.FLOAT, [3, 3])],
              inits, 21)
    float_model = model([helper.make_node("MatMul", ["x", "w"], ["h"], name="matmul"),
                         helper.make_node("MatMul", ["h", "v"], ["y"], name="matmul_2")],
                        [value("x", TensorProto.FLOAT, [None, k])],
                        [value("h", TensorProto.FLOAT, [None, n]),
                         value("y", TensorProto.FLOAT, [None, 3])], [const("w", w), const("v", v)],
                        21)
    # The weights' SQNR after quantization, for the analysis of this pair (numpy's, not ours).
    sqnr = lambda a, b: float(10 * np.log10((a ** 2).sum() / ((a - b) ** 2).sum()))
    w_dq = ((wq.reshape(k // block, block, n) - wz[:, None, :]) * ws[:, None, :]).reshape(k, n)
    weight_sqnr = {"matmul": sqnr(w, w_dq), "matmul_2": sqnr(v, (vq - vz) * vs)}
    return m, RNG.uniform(-1, 1, (3, k)).astype(np.float32), {"float.onnx": float_model,
                                                               "weight_sqnr.json": weight_sqnr}


def four_bit_activations():
    """Q/DQ of an activation to int4 (per tensor) and to uint4 (per channel of axis 1), 27
    values each (odd: the last byte half used), beyond the range on both sides. Only the
    dequantized floats are outputs (onnxruntime-node aborts returning a 4-bit tensor); each
    4-bit value gives a distinct float, so equal floats mean equal 4-bit values."""
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z"], ["x_i4"], name="quant_i4"),
        helper.make_node("DequantizeLinear", ["x_i4", "s", "z"], ["x_i4_dq"], name="dequant_i4"),
        helper.make_node("QuantizeLinear", ["x", "cs", "cz"], ["x_u4"], axis=1, name="quant_u4"),
        helper.make_node("DequantizeLinear", ["x_u4", "cs", "cz"], ["x_u4_dq"], axis=1,
                         name="dequant_u4"),
    ]
    shape = [3, 3, 3]
    m = model(nodes, [value("x", TensorProto.FLOAT, shape)],
              [value("x_i4_dq", TensorProto.FLOAT, shape), value("x_u4_dq", TensorProto.FLOAT, shape)],
              [const("s", np.float32(0.25)), packed4("z", np.int64(-1), INT4),
               const("cs", np.array([0.2, 0.5, 0.1], np.float32)),
               packed4("cz", np.array([0, 8, 15]), UINT4)], 21)
    return m, RNG.uniform(-3, 3, shape).astype(np.float32)


def float8_qdq():
    """float8 Q/DQ (opset 19) with power-of-two scales, so the dequantized floats show the
    float8 values exactly: E4M3FN saturating (default) per tensor and per channel, E5M2 not
    saturating (overflow to Inf), E4M3FNUZ and E5M2FNUZ. Inputs span subnormals to overflow,
    with ±0, ±Inf and NaN, away from the bands where ONNX Runtime 1.30 deviates from the spec
    with saturate=0 (E5M2 [61440, 65536) x scale)."""
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "s", "z_e4m3"], ["q1"], name="quant_e4m3"),
        helper.make_node("DequantizeLinear", ["q1", "s", "z_e4m3"], ["y_e4m3"], name="dq_e4m3"),
        helper.make_node("QuantizeLinear", ["x", "cs", "cz_e4m3"], ["q2"], axis=1,
                         name="quant_e4m3_axis"),
        helper.make_node("DequantizeLinear", ["q2", "cs", "cz_e4m3"], ["y_e4m3_axis"], axis=1,
                         name="dq_e4m3_axis"),
        helper.make_node("QuantizeLinear", ["x", "s", "z_e5m2"], ["q3"], saturate=0,
                         name="quant_e5m2"),
        helper.make_node("DequantizeLinear", ["q3", "s", "z_e5m2"], ["y_e5m2"], name="dq_e5m2"),
        helper.make_node("QuantizeLinear", ["x", "s", "z_e4m3fnuz"], ["q4"], name="quant_fnuz"),
        helper.make_node("DequantizeLinear", ["q4", "s", "z_e4m3fnuz"], ["y_e4m3fnuz"],
                         name="dq_fnuz"),
        helper.make_node("QuantizeLinear", ["x", "s", "z_e5m2fnuz"], ["q5"], name="quant_e5fnuz"),
        helper.make_node("DequantizeLinear", ["q5", "s", "z_e5m2fnuz"], ["y_e5m2fnuz"],
                         name="dq_e5fnuz"),
    ]
    shape = [4, 3, 16]
    x = (RNG.standard_normal(shape) * np.exp(RNG.uniform(-12, 4, shape))).astype(np.float32)
    flat = x.reshape(-1)
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e6, -1e6, 112.0, 120.0, 15.0, 2.0 ** -12,
               -(2.0 ** -11) * 3, 2.0 ** -20, 30000.0, -40000.0]
    flat[:len(special)] = special
    outs = ["y_e4m3", "y_e4m3_axis", "y_e5m2", "y_e4m3fnuz", "y_e5m2fnuz"]
    m = model(nodes, [value("x", TensorProto.FLOAT, shape)],
              [value(o, TensorProto.FLOAT, shape) for o in outs],
              [const("s", np.float32(0.25)), const("cs", np.array([0.5, 0.125, 4.0], np.float32)),
               float8_zero("z_e4m3", FLOAT8E4M3FN), float8_zero("cz_e4m3", FLOAT8E4M3FN, [3]),
               float8_zero("z_e5m2", FLOAT8E5M2), float8_zero("z_e4m3fnuz", FLOAT8E4M3FNUZ),
               float8_zero("z_e5m2fnuz", FLOAT8E5M2FNUZ)], 19, ir_version=9)
    return m, x


def cast_float8():
    """Cast-19 to each float8 type and back, saturating and not (E4M3FN saturate=0 kept away
    from [480, 496), where ONNX Runtime 1.30 gives 448 instead of NaN)."""
    nodes, outs = [], []
    for elem, sat, tag in [(FLOAT8E4M3FN, 1, "e4m3"), (FLOAT8E4M3FN, 0, "e4m3_nosat"),
                           (FLOAT8E5M2, 1, "e5m2"), (FLOAT8E4M3FNUZ, 1, "e4m3fnuz"),
                           (FLOAT8E5M2FNUZ, 0, "e5m2fnuz_nosat")]:
        nodes.append(helper.make_node("Cast", ["x"], [f"c_{tag}"], to=elem, saturate=sat,
                                      name=f"cast_{tag}"))
        nodes.append(helper.make_node("Cast", [f"c_{tag}"], [f"y_{tag}"], to=TensorProto.FLOAT,
                                      name=f"back_{tag}"))
        outs.append(f"y_{tag}")
    shape = [64]
    x = (RNG.standard_normal(shape) * np.exp(RNG.uniform(-10, 6, shape))).astype(np.float32)
    x[np.abs(x) >= 470] = 300.0
    x[:10] = [0.0, -0.0, np.nan, 500.0, -1e5, 70000.0, 448.0, 464.0, 2.0 ** -9, -(2.0 ** -17)]
    m = model(nodes, [value("x", TensorProto.FLOAT, shape)],
              [value(o, TensorProto.FLOAT, shape) for o in outs], [], 19, ir_version=9)
    return m, x


def float4_weights():
    """float4 (E2M1) weights: refused with the node, the op and the type."""
    t = TensorProto()
    t.name, t.data_type = "wq", FLOAT4E2M1
    t.dims.extend([4, 2])
    t.raw_data = bytes([0x21, 0x43, 0x65, 0x07])
    nodes = [helper.make_node("DequantizeLinear", ["wq", "ws"], ["w"], name="dequant_w"),
             helper.make_node("MatMul", ["x", "w"], ["y"], name="matmul")]
    return model(nodes, [value("x", TensorProto.FLOAT, [1, 4])], [value("y", TensorProto.FLOAT, [1, 2])],
                 [t, const("ws", np.float32(0.5))], 21), "float4e2m1"


RUN = [qdq16_matmul, per_axis_uint16, output_dtype, blockwise, resize_half_pixel_symmetric, gelu20,
       demo_opset21, average_pool_dilations, int4_weights, four_bit_activations, float8_qdq,
       cast_float8]
REFUSED = [float4_weights]


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
            if file.endswith(".json"):
                with open(os.path.join(folder, file), "w") as f:
                    json.dump(other, f, indent=1)
            else:
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

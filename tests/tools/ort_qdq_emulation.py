#!/usr/bin/python3
"""An EMULATION of ONNX Runtime's quantize_static QDQ output, for the corpus pair ort_qdq
(tests/tools/make_pytorch_corpus.py). ORT's Python quantizer cannot be installed on the machine
the corpus was made on (no pip; ORT exists here only as the onnxruntime-node npm package), so this
writes, from a float ONNX model and calibration samples, the graph quantize_static documents for
QuantFormat.QDQ, per_channel=False, QUInt8 activations, QInt8 weights, CalibrationMethod.MinMax.
It covers the ops of the corpus model (Conv, Relu, MaxPool, Add, GlobalAveragePool, Flatten,
Gemm). It is not ORT's code and makes no claim to be bit-identical with any ORT release.

Usage: ort_qdq_emulation.py FLOAT.onnx CALIB.npy QUANT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

import qdq_reference


def qparams_activation(lo, hi):
    """uint8 asymmetric, range widened to contain 0 (ORT compute_scale_zp, symmetric=False)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = (hi - lo) / 255.0 if hi > lo else 1.0
    zero = int(round(0 - lo / scale))
    return np.float32(scale), np.uint8(min(max(zero, 0), 255))


def qparams_weight(w):
    """int8 symmetric per tensor: qmin, qmax = -127, 127 (ORT's symmetric int8 range),
    scale = max|w| / 127, zero point 0."""
    absmax = float(np.max(np.abs(w)))
    return np.float32(absmax / 127.0 if absmax > 0 else 1.0)


def write(float_path, quant_path, calib):
    """Write what onnxruntime.quantization.quantize_static(float_path, quant_path, reader,
    quant_format=QuantFormat.QDQ, per_channel=False, activation_type=QuantType.QUInt8,
    weight_type=QuantType.QInt8, calibrate_method=CalibrationMethod.MinMax) documents, from
    these facts of its QDQ output (an emulation, not ORT's code):
      - every quantized activation tensor T gets QuantizeLinear 'T_QuantizeLinear' -> 'T_quantized'
        and DequantizeLinear 'T_DequantizeLinear' -> 'T_dequantized', with initializers 'T_scale'
        (float) and 'T_zero_point' (uint8); consumers read 'T_dequantized';
      - MinMax calibration: min/max over all calibration samples of the float model's tensors,
        widened to contain 0; activations uint8 asymmetric;
      - weights int8 symmetric per tensor, stored quantized: initializer 'W_quantized' (int8),
        'W_scale', 'W_zero_point' -> DequantizeLinear 'W_DequantizeLinear' -> 'W_dequantized';
      - bias int32, scale = input scale * weight scale, zero point 0: 'B_quantized' ->
        'B_quantized_DequantizeLinear' -> 'B_quantized_dequantized';
      - a Relu after a quantized Conv is removed and the Conv output is quantized with the Relu
        output's range (zero point 0: the QuantizeLinear's saturation is the Relu);
      - MaxPool keeps its input's qparams (a "direct 8-bit" op); Add, GlobalAveragePool, Gemm get
        their own output qparams; Flatten is not quantized (DQ -> Flatten -> Q on its output);
      - a graph output is produced by its own DequantizeLinear: the producing node writes
        'output_QuantizeLinear_Input'.
    Node names of the float model are kept."""
    model = onnx.load(float_path)
    graph = model.graph
    inits = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    # Calibration: every tensor of the float model on the calibration samples (float64 eval).
    lo, hi = {}, {}
    for step in range(0, len(calib), 50):
        env = qdq_reference.run(float_path, calib[step:step + 50], keep=True)
        for name, value in env.items():
            if name in inits or not isinstance(value, np.ndarray) or value.dtype.kind != "f":
                continue
            lo[name] = min(lo.get(name, np.inf), float(value.min()))
            hi[name] = max(hi.get(name, -np.inf), float(value.max()))
    consumers = {}
    for node in graph.node:
        for i in node.input:
            consumers.setdefault(i, []).append(node)
    by_output = {o: n for n in graph.node for o in n.output}
    graph_outputs = {o.name for o in graph.output}

    # Removable Relu: the Conv's output takes the Relu's name and range.
    removed, rename = set(), {}
    for node in graph.node:
        if node.op_type == "Relu":
            src = by_output.get(node.input[0])
            if src is not None and src.op_type in ("Conv", "Gemm") and len(consumers[node.input[0]]) == 1:
                removed.add(node.name)
                rename[node.input[0]] = node.output[0]
    new_nodes, new_inits = [], []
    act_qparams = {}

    def qparams_of(tensor):
        if tensor not in act_qparams:
            act_qparams[tensor] = qparams_activation(lo[tensor], hi[tensor])
        return act_qparams[tensor]

    def add_qdq(tensor, share_from=None):
        """Q/DQ pair for an activation tensor; returns the dequantized name."""
        scale, zero = qparams_of(share_from or tensor)
        act_qparams[tensor] = (scale, zero)
        new_inits.append(numpy_helper.from_array(np.array(scale, np.float32), tensor + "_scale"))
        new_inits.append(numpy_helper.from_array(np.array(zero, np.uint8), tensor + "_zero_point"))
        source = tensor
        if tensor in graph_outputs:
            source = tensor + "_QuantizeLinear_Input"
        new_nodes.append(onnx.helper.make_node("QuantizeLinear", [source, tensor + "_scale", tensor + "_zero_point"],
                                               [tensor + "_quantized"], name=tensor + "_QuantizeLinear"))
        out = tensor if tensor in graph_outputs else tensor + "_dequantized"
        new_nodes.append(onnx.helper.make_node("DequantizeLinear", [tensor + "_quantized", tensor + "_scale",
                                                                    tensor + "_zero_point"],
                                               [out], name=tensor + "_DequantizeLinear"))
        return out

    dq_name = {}
    input_name = graph.input[0].name
    dq_name[input_name] = add_qdq(input_name)
    for node in graph.node:
        if node.name in removed:
            continue
        outputs = [rename.get(o, o) for o in node.output]
        if node.op_type in ("Conv", "Gemm"):
            x_in = dq_name[node.input[0]]
            x_scale = act_qparams[node.input[0]][0]
            w_name = node.input[1]
            w = inits[w_name]
            w_scale = qparams_weight(w)
            new_inits += [numpy_helper.from_array(np.clip(np.round(w / w_scale), -127, 127).astype(np.int8), w_name + "_quantized"),
                          numpy_helper.from_array(np.array(w_scale, np.float32), w_name + "_scale"),
                          numpy_helper.from_array(np.array(0, np.int8), w_name + "_zero_point")]
            new_nodes.append(onnx.helper.make_node("DequantizeLinear", [w_name + "_quantized", w_name + "_scale",
                                                                        w_name + "_zero_point"],
                                                   [w_name + "_dequantized"], name=w_name + "_DequantizeLinear"))
            inputs = [x_in, w_name + "_dequantized"]
            if len(node.input) > 2 and node.input[2]:
                b_name = node.input[2]
                b_scale = np.float32(np.float32(x_scale) * np.float32(w_scale))
                new_inits += [numpy_helper.from_array(np.round(inits[b_name] / b_scale).astype(np.int32), b_name + "_quantized"),
                              numpy_helper.from_array(np.array(b_scale, np.float32), b_name + "_quantized_scale"),
                              numpy_helper.from_array(np.array(0, np.int32), b_name + "_quantized_zero_point")]
                new_nodes.append(onnx.helper.make_node(
                    "DequantizeLinear", [b_name + "_quantized", b_name + "_quantized_scale", b_name + "_quantized_zero_point"],
                    [b_name + "_quantized_dequantized"], name=b_name + "_quantized_DequantizeLinear"))
                inputs.append(b_name + "_quantized_dequantized")
            out = outputs[0]
            produced = out + "_QuantizeLinear_Input" if out in graph_outputs else out
            new_nodes.append(onnx.helper.make_node(node.op_type, inputs, [produced], name=node.name))
            new_nodes[-1].attribute.extend(node.attribute)
            dq_name[out] = add_qdq(out)
        elif node.op_type in ("MaxPool", "Add", "GlobalAveragePool"):
            inputs = [dq_name[i] for i in node.input]
            out = outputs[0]
            new_nodes.append(onnx.helper.make_node(node.op_type, inputs, [out], name=node.name))
            new_nodes[-1].attribute.extend(node.attribute)
            dq_name[out] = add_qdq(out, share_from=node.input[0] if node.op_type == "MaxPool" else None)
        elif node.op_type == "Flatten":
            new_nodes.append(onnx.helper.make_node("Flatten", [dq_name[node.input[0]]], [outputs[0]], name=node.name))
            new_nodes[-1].attribute.extend(node.attribute)
            dq_name[outputs[0]] = add_qdq(outputs[0])
        else:
            raise NotImplementedError(f"ort_qdq emulation: op {node.op_type}")
    kept_inits = [i for i in graph.initializer if i.name not in {n.input[1] for n in graph.node if n.op_type in ("Conv", "Gemm")}
                  and i.name not in {n.input[2] for n in graph.node if n.op_type in ("Conv", "Gemm") and len(n.input) > 2}]
    new_graph = onnx.helper.make_graph(new_nodes, graph.name, list(graph.input), list(graph.output),
                                       kept_inits + new_inits)
    quant = onnx.helper.make_model(new_graph, opset_imports=list(model.opset_import),
                                   producer_name="onnx.quantize", producer_version="0.1.0 (QuantLens emulation)")
    quant.ir_version = model.ir_version
    onnx.checker.check_model(quant)
    onnx.save(quant, quant_path)
    return act_qparams


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    write(sys.argv[1], sys.argv[3], np.load(sys.argv[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

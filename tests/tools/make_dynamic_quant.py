#!/usr/bin/python3
"""Rewrite a float ONNX model the way ONNX Runtime's quantize_dynamic does (its documented QDQ-free
output for MatMul): every MatMul whose B is a float initializer becomes
    DynamicQuantizeLinear(A) -> A_q, A_scale, A_zp
    MatMulInteger(A_q, B_q, A_zp, B_zp) -> int32
    Cast(to float) ; Mul(A_scale * B_scale)
with B quantized to int8 per tensor, symmetric (zero point 0), as quantize_dynamic's default
QInt8 weights. Developer tool for the benchmarks (needs the onnx Python package, not run by CI).

Usage: /usr/bin/python3 make_dynamic_quant.py FLOAT.onnx OUT.onnx
"""
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


def main(src, dst):
    model = onnx.load(src)
    graph = model.graph
    inits = {t.name: t for t in graph.initializer}
    nodes, rewritten = [], 0
    for node in graph.node:
        if node.op_type != "MatMul" or node.input[1] not in inits:
            nodes.append(node)
            continue
        w = numpy_helper.to_array(inits[node.input[1]]).astype(np.float32)
        scale = max(float(np.abs(w).max()), 1e-8) / 127.0
        wq = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
        p = f"{node.name or node.output[0]}_dq"
        graph.initializer.extend([
            numpy_helper.from_array(wq, p + "_B_q"),
            numpy_helper.from_array(np.array(0, np.int8), p + "_B_zp"),
            numpy_helper.from_array(np.array(scale, np.float32), p + "_B_scale"),
        ])
        a = node.input[0]
        nodes += [
            helper.make_node("DynamicQuantizeLinear", [a], [p + "_A_q", p + "_A_scale", p + "_A_zp"], p + "_quant"),
            helper.make_node("MatMulInteger", [p + "_A_q", p + "_B_q", p + "_A_zp", p + "_B_zp"], [p + "_acc"], p + "_matmul"),
            helper.make_node("Cast", [p + "_acc"], [p + "_acc_f"], p + "_cast", to=TensorProto.FLOAT),
            helper.make_node("Mul", [p + "_A_scale", p + "_B_scale"], [p + "_scale"], p + "_scale_mul"),
            helper.make_node("Mul", [p + "_acc_f", p + "_scale"], [node.output[0]], p + "_out"),
        ]
        rewritten += 1
    del graph.node[:]
    graph.node.extend(nodes)
    used = {i for n in graph.node for i in n.input}
    keep = [t for t in graph.initializer if t.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)
    onnx.checker.check_model(model)
    onnx.save(model, dst)
    print(f"{dst}: {rewritten} MatMul nodes dynamically quantized")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])

#!/usr/bin/env python3
"""Writes tests/data/quantizer/mixed_ops.onnx: a small seeded float model (opset 13) with every op
family the quantizer plans differently, for tst_quantizer:

  Conv+Clip (one unit), Conv feeding a residual Add, BatchNormalization after the Add (cannot
  fold), LeakyRelu, GlobalAveragePool (also a graph output), AveragePool, Concat, Reshape,
  MatMul with a constant weight, Add with a constant operand, Sigmoid, Mul, Gemm (transB=0),
  Softmax (not quantizable).

    /usr/bin/python3 tests/tools/make_quantizer_fixture.py [OUT_DIR]
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper as nh


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'data', 'quantizer')
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)

    def init(name, values):
        return nh.from_array(np.asarray(values, dtype=np.float32), name)

    inits = [init('w1', rng.normal(0, 0.3, (8, 3, 3, 3))), init('b1', rng.normal(0, 0.1, 8)),
             init('w2', rng.normal(0, 0.3, (8, 8, 3, 3))),
             init('g', rng.uniform(0.5, 1.5, 8)), init('be', rng.normal(0, 0.1, 8)),
             init('mu', rng.normal(0, 0.1, 8)), init('var', rng.uniform(0.5, 2, 8)),
             init('wt', rng.normal(0, 0.3, (16, 4))), init('addc', rng.normal(0, 0.5, (1, 4))),
             init('wg', rng.normal(0, 0.3, (4, 16))), init('bg', rng.normal(0, 0.1, 16)),
             nh.from_array(np.array([-1, 16], dtype=np.int64), 'shape'),
             init('cmin', 0.0), init('cmax', 6.0)]
    nodes = [h.make_node('Conv', ['x', 'w1', 'b1'], ['c1'], name='conv1', pads=[1, 1, 1, 1]),
             h.make_node('Clip', ['c1', 'cmin', 'cmax'], ['r1'], name='clip1'),
             h.make_node('Conv', ['r1', 'w2'], ['c2'], name='conv2', pads=[1, 1, 1, 1]),
             h.make_node('Add', ['c2', 'r1'], ['a1'], name='add1'),
             h.make_node('BatchNormalization', ['a1', 'g', 'be', 'mu', 'var'], ['bn'], name='bn_after_add'),
             h.make_node('LeakyRelu', ['bn'], ['lr'], name='leaky', alpha=0.1),
             h.make_node('GlobalAveragePool', ['lr'], ['gap'], name='gap'),
             h.make_node('AveragePool', ['lr'], ['ap'], name='avgpool', kernel_shape=[2, 2], strides=[2, 2]),
             h.make_node('Concat', ['ap', 'ap'], ['cat'], name='concat', axis=1),
             h.make_node('GlobalAveragePool', ['cat'], ['gap2'], name='gap2'),
             h.make_node('Reshape', ['gap2', 'shape'], ['flat'], name='reshape'),
             h.make_node('MatMul', ['flat', 'wt'], ['mm'], name='matmul'),
             h.make_node('Add', ['mm', 'addc'], ['mma'], name='add_const'),
             h.make_node('Sigmoid', ['mma'], ['sg'], name='sigmoid'),
             h.make_node('Mul', ['sg', 'mma'], ['sw'], name='mul'),
             h.make_node('Gemm', ['sw', 'wg', 'bg'], ['y'], name='gemm', transB=0),
             h.make_node('Softmax', ['y'], ['prob'], name='softmax', axis=1)]
    graph = h.make_graph(
        nodes, 'mixed_ops', [h.make_value_info('x', h.make_tensor_type_proto(T.FLOAT, ['n', 3, 8, 8]))],
        [h.make_value_info('prob', h.make_tensor_type_proto(T.FLOAT, ['n', 16])),
         h.make_value_info('gap', h.make_tensor_type_proto(T.FLOAT, ['n', 8, 1, 1]))], inits)
    model = h.make_model(graph, opset_imports=[h.make_opsetid('', 13)], producer_name='make_quantizer_fixture')
    model.ir_version = 7
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, 'mixed_ops.onnx'))


if __name__ == '__main__':
    main()

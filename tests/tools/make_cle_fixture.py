#!/usr/bin/env python3
"""Writes tests/data/remedies/depthwise_block.onnx and inputs.npy: the case of Data-Free
Quantization (Nagel et al. 2019) in one MobileNet-style block.

x [N,3,16,16] -> Conv 3->8 3x3 -> Relu -> depthwise Conv 8 3x3 -> Relu -> Conv 8->8 1x1 -> y.
Random weights (seeded), then a float-equivalent rescaling after "BatchNorm folding": the
depthwise channels and biases multiplied by 1/64 or 16, the pointwise layer's matching input
columns divided by the same (Relu is positively homogeneous, so y is unchanged). Per-tensor int8
weights cannot hold channels 1024x apart; cross-layer equalization undoes the rescaling.
Needs python3-onnx and python3-numpy; the outputs are committed, so CI does not run this.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..', 'data', 'remedies')
rng = np.random.default_rng(36)
w1 = rng.uniform(-0.5, 0.5, (8, 3, 3, 3)).astype(np.float32)
b1 = rng.uniform(-0.1, 0.1, 8).astype(np.float32)
dw = rng.uniform(-0.5, 0.5, (8, 1, 3, 3)).astype(np.float32)
dwb = rng.uniform(-0.1, 0.1, 8).astype(np.float32)
pw = rng.uniform(-0.5, 0.5, (8, 8, 1, 1)).astype(np.float32)
pwb = rng.uniform(-0.1, 0.1, 8).astype(np.float32)
factor = np.array([1 / 64, 16, 1, 1 / 64, 16, 1, 1, 16], np.float32)
dw *= factor[:, None, None, None]
dwb *= factor
pw /= factor[None, :, None, None]

def conv(name, x, y, group, pad):
    return helper.make_node('Conv', [x, name + '.weight', name + '.bias'], [y], name=name,
                            group=group, pads=[pad] * 4, kernel_shape=[3 - 2 * (pad == 0)] * 2)

nodes = [conv('/block/expand/Conv', 'x', 'h1', 1, 1), helper.make_node('Relu', ['h1'], ['a1'], name='/block/expand/Relu'),
         conv('/block/depthwise/Conv', 'a1', 'h2', 8, 1), helper.make_node('Relu', ['h2'], ['a2'], name='/block/depthwise/Relu'),
         conv('/block/project/Conv', 'a2', 'y', 1, 0)]
inits = [numpy_helper.from_array(a, n) for n, a in [
    ('/block/expand/Conv.weight', w1), ('/block/expand/Conv.bias', b1),
    ('/block/depthwise/Conv.weight', dw), ('/block/depthwise/Conv.bias', dwb),
    ('/block/project/Conv.weight', pw), ('/block/project/Conv.bias', pwb)]]
graph = helper.make_graph(nodes, 'depthwise_block',
                          [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['N', 3, 16, 16])],
                          [helper.make_tensor_value_info('y', TensorProto.FLOAT, ['N', 8, 16, 16])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)], producer_name='make_cle_fixture.py')
onnx.checker.check_model(model)
os.makedirs(out, exist_ok=True)
onnx.save(model, os.path.join(out, 'depthwise_block.onnx'))
np.save(os.path.join(out, 'inputs.npy'), rng.uniform(0, 1, (16, 3, 16, 16)).astype(np.float32))

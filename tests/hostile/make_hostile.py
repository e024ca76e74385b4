"""Writes the hostile inputs of tests/hostile (run once, with python3-onnx; the files are committed).

Each is small on disk and would be large, endless or undefined if a reader trusted it:
  dims_bomb.onnx        an initializer claiming 2^31 x 2^31 floats with no data
  raw_short.onnx        an initializer whose raw_data holds fewer bytes than its dims need
  expand_bomb.onnx      Expand to a constant shape of 10^5 x 10^5 x 4
  reshape_bomb.onnx     Reshape of 4 values to 10^6 x 10^6
  constant_of_shape_bomb.onnx  ConstantOfShape of [10^9, 10^9]
  tile_bomb.onnx        Tile with repeats 10^9
  cycle.onnx            two nodes reading each other's outputs
  dangling.onnx         a node reading a tensor nothing produces
  duplicate_output.onnx two nodes writing the same tensor
  negative_dim.onnx     an initializer with a negative dimension
  random.onnx           random bytes
  empty.onnx            zero bytes
  wrong_type.onnx       Add of a float and an int64 tensor
  bomb.npy              a .npy header claiming 10^12 floats
  bad_header.npy        a .npy file with a broken header
  huge.pb               a TensorProto claiming 2^40 floats
  skip_wrong_types.json a skip-list whose fp32_nodes is a number
  project_wrong_types.qlproj  a project whose paths are numbers and lists
"""
import os
import random
import shutil

import numpy as np
import onnx
from onnx import TensorProto, helper

here = os.path.dirname(os.path.abspath(__file__))


def save(graph, name, opset=13):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="quantlens-hostile")
    model.ir_version = 8
    with open(os.path.join(here, name), "wb") as f:
        f.write(model.SerializeToString())


x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])

# An initializer that claims far more than the file holds.
bomb = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2**31, 2**31])
save(helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add_bomb")], "g", [x], [y],
                       [bomb]), "dims_bomb.onnx")
short = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1000, 1000], raw_data=b"\0" * 16)
save(helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add_short")], "g", [x], [y],
                       [short]), "raw_short.onnx")
negative = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[-4, 1], raw_data=b"\0" * 16)
save(helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add_negative")], "g", [x],
                       [y], [negative]), "negative_dim.onnx")

# Shape inputs that ask for huge outputs.
def shape_bomb(op, name, values, extra_inputs=()):
    shape = helper.make_tensor("s", TensorProto.INT64, [len(values)], values)
    node = helper.make_node(op, ["x", "s"], ["y"], name=name)
    save(helper.make_graph([node], "g", [x], [y], [shape]), f"{name}.onnx")

shape_bomb("Expand", "expand_bomb", [100000, 100000, 4])
shape_bomb("Reshape", "reshape_bomb", [1000000, 1000000])
shape_bomb("Tile", "tile_bomb", [1000000000, 1])
cos_shape = helper.make_tensor("s", TensorProto.INT64, [2], [1000000000, 1000000000])
save(helper.make_graph([helper.make_node("ConstantOfShape", ["s"], ["c"], name="cos_bomb",
                                         value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])),
                        helper.make_node("Add", ["x", "c"], ["y"], name="add_cos")],
                       "g", [x], [y], [cos_shape]), "constant_of_shape_bomb.onnx")

# Broken graphs.
save(helper.make_graph([helper.make_node("Add", ["x", "b"], ["a"], name="add_a"),
                        helper.make_node("Relu", ["a"], ["b"], name="relu_b"),
                        helper.make_node("Relu", ["a"], ["y"], name="relu_y")],
                       "g", [x], [y]), "cycle.onnx")
save(helper.make_graph([helper.make_node("Add", ["x", "nowhere"], ["y"], name="add_dangling")],
                       "g", [x], [y]), "dangling.onnx")
save(helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu_1"),
                        helper.make_node("Sigmoid", ["x"], ["y"], name="sigmoid_2")],
                       "g", [x], [y]), "duplicate_output.onnx")
ints = helper.make_tensor("k", TensorProto.INT64, [1, 4], [1, 2, 3, 4])
save(helper.make_graph([helper.make_node("Add", ["x", "k"], ["y"], name="add_mixed")], "g", [x], [y],
                       [ints]), "wrong_type.onnx")

rng = random.Random(14)
with open(os.path.join(here, "random.onnx"), "wb") as f:
    f.write(bytes(rng.randrange(256) for _ in range(4096)))
shutil.copy(os.path.join(here, "random.onnx"), os.path.join(here, "random.qlproj"))
open(os.path.join(here, "empty.onnx"), "wb").close()

# Tensor files.
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000, 1000000), }"
header += " " * (118 - len(header)) + "\n"
with open(os.path.join(here, "bomb.npy"), "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 64)
with open(os.path.join(here, "bad_header.npy"), "wb") as f:
    f.write(b"\x93NUMPY\x01\x00\x40\x00{'descr': '<f4', 'shape': (1, 4" + b"\0" * 80)
huge = TensorProto(name="x", data_type=TensorProto.FLOAT, dims=[1, 2**40])
with open(os.path.join(here, "huge.pb"), "wb") as f:
    f.write(huge.SerializeToString())

with open(os.path.join(here, "skip_wrong_types.json"), "w") as f:
    f.write('{"model": 3, "fp32_nodes": 5, "reason": []}\n')
with open(os.path.join(here, "project_wrong_types.qlproj"), "w") as f:
    f.write('{"format": "quantlens-project", "version": 1, "analysis": {"float_model": 7, '
            '"quant_model": ["a", 1], "data": "samples.npy", "batch": -5, "labels": {}}, '
            '"fp32_layers": 12, "threshold_db": "high"}\n')
np.save(os.path.join(here, "good_input.npy"), np.ones((1, 4), np.float32))

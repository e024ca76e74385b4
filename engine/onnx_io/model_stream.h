#pragma once
// Writes a ModelProto whose initializers' values are still in the engine's tensors, without
// copying them into the proto first: a quantized vit_b_16 is 88 MB of weights, and two copies
// into fresh memory (the proto's strings, then the serialized string) took most of the 0.67 s
// that writing it cost. The bytes are those ModelProto::SerializeToString would give for the
// same model with the values in place.

#include <ostream>
#include <vector>

#include <onnx/onnx_pb.h>

#include "core/status.h"
#include "ir/tensor.h"

namespace ql {

// `model`'s graph holds the initializers in order, each with its name, type and dims but no
// values; `values[i]` (plain layout) holds the i-th one's bytes, written as its raw_data. The
// model is taken apart while it is written.
Status streamModel(onnx::ModelProto &model, const std::vector<Tensor> &values, std::ostream &out);

}  // namespace ql

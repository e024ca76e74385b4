#pragma once
// ONNX 1.12's shape inference (run by the checker and before an opset upgrade) reads out of bounds
// on some malformed nodes instead of failing: a convolution or pooling whose input and weight
// ranks disagree (found by fuzzing: a rank-3 input and a rank-4 weight crash
// onnx::convPoolShapeInference). These checks refuse such nodes first, on the shapes the file
// declares (graph inputs, value_info, initializers).
#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace ql {

Status checkShapePreconditions(const onnx::GraphProto &graph);

}  // namespace ql

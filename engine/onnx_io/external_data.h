#pragma once
// Internal: loads tensors stored outside the model file, strictly inside the model's folder.

#include <string>

#include <onnx/onnx_pb.h>

#include "core/status.h"

namespace ql {

// Replaces every external tensor (initializers, Constant attributes) with inline raw data.
Status resolveExternalData(onnx::ModelProto &model, const std::string &baseDir);

}  // namespace ql

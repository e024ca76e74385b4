#pragma once
// Input and output tensor files: NumPy .npy (little-endian, C order) and serialized
// onnx TensorProto .pb (the ONNX test-case layout).

#include <string>

#include "core/status.h"
#include "ir/tensor.h"

namespace ql {

// Chooses the format by extension (.npy or .pb). Messages start with the path.
Result<Tensor> readTensorFile(const std::string &path);
Result<Tensor> readNpy(const std::string &path);
Result<Tensor> readTensorProtoFile(const std::string &path);

Status writeNpy(const std::string &path, const Tensor &tensor);
Status writeTensorProtoFile(const std::string &path, const Tensor &tensor, const std::string &name);

}  // namespace ql

#pragma once
// Input and output tensor files: NumPy .npy (little-endian, C order) and serialized
// onnx TensorProto .pb (the ONNX test-case layout).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"
#include "ir/tensor.h"

namespace ql {

// Chooses the format by extension (.npy or .pb). Messages start with the path.
Result<Tensor> readTensorFile(const std::string &path);
Result<Tensor> readNpy(const std::string &path);

// A .npy file's header, for reading it a range of rows at a time (memory that does not grow
// with the file). Size checked against the file.
struct NpyHeader {
    DataType dtype = DataType::Undefined;
    Shape shape;
    uint64_t dataOffset = 0;
};
Result<NpyHeader> readNpyHeader(const std::string &path);
// Rows [first, first + count) along dim 0 (a scalar file: first 0, count 1). With `reuse`, the
// rows are read into *reuse when it is large enough and no tensor refers to it any more, and
// *reuse then holds the buffer read into: a caller reading batch after batch touches no fresh
// memory once the first batch is freed.
Result<Tensor> readNpyRows(const std::string &path, const NpyHeader &header, int64_t first,
                           int64_t count, std::shared_ptr<Storage> *reuse = nullptr);
// A whole .npy file already in memory (an .npz member); messages start with `name`.
Result<Tensor> readNpyFromMemory(const void *bytes, size_t size, const std::string &name);
Result<Tensor> readTensorProtoFile(const std::string &path);

Status writeNpy(const std::string &path, const Tensor &tensor);
Status writeTensorProtoFile(const std::string &path, const Tensor &tensor, const std::string &name);

}  // namespace ql

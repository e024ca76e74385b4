#pragma once
// NumPy .npz archives: the arrays of np.savez / np.savez_compressed, read with libzip and the
// .npy reader of tensor_file.h.

#include <string>
#include <vector>

#include "core/status.h"
#include "ir/tensor.h"

namespace ql {

// A NumPy .npz archive (np.savez / np.savez_compressed): a zip of .npy members, one per array.
// Names are the member names without ".npy" (np.savez's keyword names, or arr_0, arr_1, ...),
// in archive order.
struct NpzArray {
    std::string name;
    Tensor tensor;
};
// Messages start with the path, then the member name when one member is at fault.
Result<std::vector<NpzArray>> readNpz(const std::string &path);

}  // namespace ql

#pragma once
// Checks on user-supplied data before it reaches a model.

#include <string>

#include "core/status.h"
#include "ir/tensor.h"

namespace ql {

// BadInput naming `what`, the count of NaN/Inf values and the index of the first one.
// Integer tensors are always finite.
Status checkFinite(const Tensor &tensor, const std::string &what);

}  // namespace ql

#pragma once
// Internal to the reduction family (Reduce*, ArgMax/ArgMin, Softmax, LayerNorm, InstanceNorm).

#include <cstdint>
#include <string>

#include "core/status.h"
#include "ir/tensor.h"
#include "kernels/type_dispatch.h"

namespace ql {

class KernelRegistry;

namespace reduction {

// Plain C++ loops only pay for an OpenMP team above this many elements.
constexpr int64_t kParallelThreshold = int64_t(1) << 16;

void registerSoftmaxKernels(KernelRegistry &registry);  // Softmax, LogSoftmax
void registerNormKernels(KernelRegistry &registry);     // LayerNormalization, InstanceNormalization

// Maps axis in [-rank, rank) to [0, rank); BadInput naming `what` otherwise.
inline Status normalizeAxis(int64_t axis, int rank, int64_t &out,
                            const std::string &what = "axis") {
    if (axis < -rank || axis >= rank) {
        return Status::badInput(what + " " + std::to_string(axis) + " is out of range for rank " +
                                std::to_string(rank));
    }
    out = axis < 0 ? axis + rank : axis;
    return Status::ok();
}

// Calls fn(T()) for the element types of Reduce* and ArgMax/ArgMin; Unsupported naming `op`
// for other dtypes.
template <class Fn>
Status dispatchReduceType(DataType type, const std::string &op, Fn &&fn) {
    if (dispatchAmong<float, double, int32_t, int64_t, uint8_t, int8_t>(type, fn))
        return Status::ok();
    return Status::unsupported(op + " does not support dtype " + dataTypeName(type));
}

// Product of shape[begin, end).
inline int64_t dimProduct(const Shape &shape, int64_t begin, int64_t end) {
    int64_t p = 1;
    for (int64_t i = begin; i < end; ++i) p *= shape[static_cast<size_t>(i)];
    return p;
}

}  // namespace reduction
}  // namespace ql

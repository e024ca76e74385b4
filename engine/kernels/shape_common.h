#pragma once
// Internal helpers of the shape kernel family: axis and integer-input handling, and the strided
// copy engine that Slice, Transpose, Expand, Tile and DepthToSpace reduce to.
// Everything copies by element size, so one code path serves every dtype.

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/tensor.h"
#include "kernels/kernel.h"
#include "kernels/type_dispatch.h"

namespace ql {

class KernelRegistry;

namespace shape {

// Work (elements) above which plain loops are spread over OpenMP threads.
constexpr int64_t kParallelThreshold = 64 * 1024;

// Maps a possibly negative axis into [0, rank); BadInput naming `what` when out of range.
Status normalizeAxis(int64_t axis, int64_t rank, const std::string &what, int64_t *out);

// Integer values of a shape-like input (int32 or int64); BadInput for other dtypes.
Status readInts(const Tensor &tensor, const std::string &what, std::vector<int64_t> *out);

// Product of shape[begin, end).
inline int64_t productOf(const Shape &shape, size_t begin, size_t end) {
    int64_t p = 1;
    for (size_t i = begin; i < end; ++i) p *= shape[i];
    return p;
}

// Row-major strides in elements.
std::vector<int64_t> contiguousStrides(const Shape &shape);

// Strides of the tensor's logical (ONNX-order) dims in its storage; channels-last aware.
std::vector<int64_t> logicalStrides(const Tensor &tensor);

// A source region seen through per-dimension strides (in elements, may be 0 or negative).
struct StridedView {
    Shape shape;                   // iteration order = destination order
    std::vector<int64_t> strides;  // source stride of each dimension
    int64_t offset = 0;            // source element of index (0, ..., 0)
};

// Writes the view's elements contiguously to dst; merges dimensions and copies runs.
void copyStrided(const void *src, const StridedView &view, void *dst, size_t elementSize);

// Allocates output 0 (plain, `shape`, data's dtype) and fills it with the view of data's
// storage; `shape` must hold as many elements as the view. Always ok, for `return`.
Status writeView(KernelContext &ctx, const Tensor &data, const StridedView &view,
                 const Shape &shape);

// memcpy, split over threads when large.
void parallelCopy(void *dst, const void *src, size_t bytes);

// Fills `count` elements with copies of one element.
void fillElements(void *dst, const void *element, int64_t count, size_t elementSize);

// Encodes `value` as one element of `type` (up to 8 bytes); false for unsupported types.
bool encodeScalar(DataType type, double value, uint8_t out[8]);

// Calls fn(T()) with the unsigned integer type T of an element size (1, 2, 4 or 8 bytes), so
// copies move whole elements; false for other sizes.
template <class Fn>
bool withElementType(size_t elementSize, Fn &&fn);

// Calls fn(begin, end) over [0, count) in chunks, in parallel when count * workPerItem is large.
template <class Fn>
void parallelChunks(int64_t count, int64_t workPerItem, Fn &&fn);

// Family parts, called from registerShapeKernels.
void registerSlicingKernels(KernelRegistry &registry);  // Concat, Split, Slice, Pad
void registerGatherKernels(KernelRegistry &registry);  // Gather, GatherElements, GatherND, Scatter*
void registerLayoutKernels(KernelRegistry &registry);  // Transpose, Expand, Tile, Depth/Space

}  // namespace shape
}  // namespace ql

#include <omp.h>

#include <algorithm>

namespace ql::shape {

template <class Fn>
bool withElementType(size_t elementSize, Fn &&fn) {
    switch (elementSize) {
        case 1:
            fn(uint8_t());
            return true;
        case 2:
            fn(uint16_t());
            return true;
        case 4:
            fn(uint32_t());
            return true;
        case 8:
            fn(uint64_t());
            return true;
        default:
            return false;
    }
}

template <class Fn>
void parallelChunks(int64_t count, int64_t workPerItem, Fn &&fn) {
    if (count <= 0) return;
    const int threads = omp_get_max_threads();
    if (threads <= 1 || count < 2 ||
        count * std::max<int64_t>(workPerItem, 1) < kParallelThreshold) {
        fn(int64_t(0), count);
        return;
    }
    const int64_t chunks = std::min<int64_t>(count, int64_t(threads) * 4);
#pragma omp parallel for schedule(static)
    for (int64_t c = 0; c < chunks; ++c) fn(count * c / chunks, count * (c + 1) / chunks);
}

}  // namespace ql::shape

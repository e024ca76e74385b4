#pragma once
// Internal: numpy-style broadcasting for the binary family. Shapes are collapsed into a few
// merged dims so the kernels loop over contiguous "rows" (stride 1 or 0 per input) and only do
// index arithmetic once per row, never per element.

#include <array>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/tensor.h"
#include "kernels/kernel.h"

namespace ql::binary {

constexpr int kMaxPlanInputs = 3;

// Multidirectional broadcast of all shapes; BadInput naming the shapes when impossible.
Result<Shape> broadcastShapes(const std::vector<Shape> &shapes);

struct BroadcastPlan {
    int inputs = 0;
    int64_t total = 0;          // output elements
    std::vector<int64_t> dims;  // merged output dims, outermost first, never empty
    std::array<std::vector<int64_t>, kMaxPlanInputs> strides;  // per input, per merged dim
    int64_t innerStride(int input) const { return strides[input].back(); }
};

// `out` must be the broadcast of the input shapes (each input's dims equal out's or 1).
BroadcastPlan makePlan(const Shape &out, const std::vector<Shape> &inputs);

// Calls row(offsets, outOffset, count) for the contiguous rows covering output elements
// [begin, end); offsets[k] is input k's element offset at the row start.
template <class RowFn>
void forEachRow(const BroadcastPlan &plan, int64_t begin, int64_t end, RowFn &&row) {
    if (begin >= end) return;
    const int rank = static_cast<int>(plan.dims.size());
    const int64_t inner = plan.dims.back();
    int64_t index[16] = {};
    int64_t offsets[kMaxPlanInputs] = {};
    int64_t rowIndex = begin / inner;
    int64_t col = begin % inner;
    for (int d = rank - 2; d >= 0; --d) {
        index[d] = rowIndex % plan.dims[d];
        rowIndex /= plan.dims[d];
    }
    for (int k = 0; k < plan.inputs; ++k) {
        int64_t off = col * plan.strides[k][rank - 1];
        for (int d = 0; d < rank - 1; ++d) off += index[d] * plan.strides[k][d];
        offsets[k] = off;
    }
    int64_t pos = begin;
    while (pos < end) {
        const int64_t count = std::min(inner - col, end - pos);
        row(static_cast<const int64_t *>(offsets), pos, count);
        pos += count;
        if (pos >= end) break;
        // Next row: step the odometer over the outer dims.
        for (int k = 0; k < plan.inputs; ++k) offsets[k] -= col * plan.strides[k][rank - 1];
        col = 0;
        for (int d = rank - 2; d >= 0; --d) {
            ++index[d];
            for (int k = 0; k < plan.inputs; ++k) offsets[k] += plan.strides[k][d];
            if (index[d] < plan.dims[d]) break;
            for (int k = 0; k < plan.inputs; ++k) offsets[k] -= index[d] * plan.strides[k][d];
            index[d] = 0;
        }
    }
}

// Pre-opset-7 `broadcast`/`axis` attributes of binary ops: B aligned to A at `axis`.
struct LegacyBroadcast {
    bool enabled = false;
    int64_t axis = -1;  // -1: align trailing dims
    static LegacyBroadcast fromNode(const Node &node, int64_t opset);
};

// Inputs ready for a broadcasting kernel: either all plain, or laid out so that plain memory
// order equals NHWC order (then shapes below are physical NHWC shapes and the output is
// channels-last).
struct Prepared {
    std::vector<Tensor> inputs;
    std::vector<Shape> shapes;  // iteration shapes (physical when channelsLast)
    Shape outShape;             // logical output shape
    Shape iterOut;              // output shape in iteration order
    Layout outLayout = Layout::Plain;
};

// Collects inputs [first, first+count) from ctx, applies the legacy attributes, broadcasts
// and decides the layout. `allowChannelsLast` false turns all inputs plain.
Status prepareBroadcast(const KernelContext &ctx, size_t count, const LegacyBroadcast &legacy,
                        bool allowChannelsLast, Prepared &out);
// Same preparation for tensors the kernel already holds (e.g. reshaped PRelu slopes).
Status prepareBroadcast(std::vector<Tensor> inputs, bool allowChannelsLast, Prepared &out);

}  // namespace ql::binary

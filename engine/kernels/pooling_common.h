#pragma once
// Internal to the pooling family: attribute parsing, the ONNX output-size rules, and the plain
// C++ pooling used where oneDNN is not (1-D, 3-D, integer types, the Indices output).

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql::pooling {

constexpr int kMaxSpatial = 3;

struct PoolAttributes {
    enum class AutoPad { NotSet, SameUpper, SameLower, Valid };
    std::vector<int64_t> kernel;     // required for MaxPool/AveragePool
    std::vector<int64_t> strides;    // default 1
    std::vector<int64_t> pads;       // [begin..., end...], default 0
    std::vector<int64_t> dilations;  // default 1
    AutoPad autoPad = AutoPad::NotSet;
    bool ceilMode = false;
    bool countIncludePad = false;
    int64_t storageOrder = 0;  // Indices output: 0 row-major, 1 column-major
};

// Reads and checks the attributes (values only; sizes are checked against the input rank later).
Status parsePoolAttributes(const Node &node, PoolAttributes &out);

// Window geometry per spatial dim; unused trailing dims have size 1 and a 1-wide window.
struct PoolGeometry {
    int spatial = 0;
    int64_t batch = 0, channels = 0;
    int64_t in[kMaxSpatial] = {1, 1, 1};
    int64_t out[kMaxSpatial] = {1, 1, 1};
    int64_t kernel[kMaxSpatial] = {1, 1, 1};
    int64_t stride[kMaxSpatial] = {1, 1, 1};
    int64_t dilation[kMaxSpatial] = {1, 1, 1};
    int64_t padBegin[kMaxSpatial] = {0, 0, 0};
    int64_t padEnd[kMaxSpatial] = {0, 0, 0};  // explicit or SAME end padding
    // Some window reaches past the end padding (ceil_mode); those positions never count.
    bool overhang = false;

    int64_t extent(int d) const { return (kernel[d] - 1) * dilation[d] + 1; }
    Shape outputShape() const;
};

Status computePoolGeometry(const PoolAttributes &attrs, const Shape &input, PoolGeometry &geometry);

// Plain-layout pooling of x into y (allocated by the caller with geometry.outputShape()).
// `indices` (int64, same shape as y, may be null) receives MaxPool's flat argmax positions.
// Max: float, double, uint8, int8; average: float, double.
Status poolReference(const Tensor &x, Tensor &y, Tensor *indices, const PoolGeometry &geometry,
                     bool isMax, const PoolAttributes &attrs);

// GlobalAveragePool/GlobalMaxPool of a plain or channels-last x into a plain y [N, C, 1, ...].
Status globalPool(const Tensor &x, Tensor &y, bool isMax);

}  // namespace ql::pooling

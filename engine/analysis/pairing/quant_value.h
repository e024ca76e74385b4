#pragma once
// Where a matched layer's quantized value lives in a quantized graph and how to dequantize it:
// the DequantizeLinear output named by LayerMatch::quantOutput (through Identity/Cast), its
// scale / zero point / axis, and the quantized tensor behind it (the QuantizeLinear output and
// its Identity/Cast aliases). Under Precision::Int8 the lowering may remove the DequantizeLinear
// value, while the quantized tensor usually survives: readers then dequantize it themselves.

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/data_type.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql::analysis {

struct QuantTarget {
    std::string floatName;                    // the loaded graph's value (DQ output or plain float)
    std::vector<std::string> quantizedNames;  // Q output and Identity/Cast aliases, nearest first
    std::vector<float> scale;                 // empty: no DequantizeLinear found
    std::vector<int32_t> zeroPoint;
    int64_t axis = 1;
    DataType quantType = DataType::UInt8;  // from the zero point's type (uint8 when absent)
};

// `folded`: the quantized graph with constant subgraphs folded (so scales are initializers).
QuantTarget describeQuantValue(const Graph &folded, const std::string &value);

// Dequantized float copy of a uint8/int8 tensor with the target's per-tensor or per-axis
// parameters. BadInput for other types or a scale that does not fit the axis.
Result<Tensor> dequantizeTarget(const Tensor &q, const QuantTarget &target);

}  // namespace ql::analysis

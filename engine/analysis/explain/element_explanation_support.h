#pragma once
// Internal to the element explanation (element_explanation*.cpp): indexing, captured values,
// constant parameters of the graph as it ran, folded activations and the output chain.

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analysis/explain/element_explanation.h"
#include "analysis/pairing/layer_weights.h"
#include "kernels/quantization_common.h"

namespace ql::analysis::explain_detail {

inline int64_t flatIndex(const Shape &shape, const std::vector<int64_t> &coords) {
    int64_t flat = 0;
    for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + coords[d];
    return flat;
}

inline std::vector<int64_t> coordsOf(const Shape &shape, int64_t flat) {
    std::vector<int64_t> coords(shape.size(), 0);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
        coords[d] = shape[d] > 0 ? flat % shape[d] : 0;
        flat = shape[d] > 0 ? flat / shape[d] : 0;
    }
    return coords;
}

// Index into an operand broadcast (numpy rules) to the output's coordinates.
inline int64_t broadcastIndex(const Shape &operand, const std::vector<int64_t> &outCoords) {
    const size_t offset = outCoords.size() - operand.size();
    int64_t flat = 0;
    for (size_t d = 0; d < operand.size(); ++d)
        flat = flat * operand[d] + (operand[d] == 1 ? 0 : outCoords[offset + d]);
    return flat;
}

inline bool broadcastable(const Shape &operand, const Shape &out) {
    if (operand.size() > out.size()) return false;
    const size_t offset = out.size() - operand.size();
    for (size_t d = 0; d < operand.size(); ++d)
        if (operand[d] != 1 && operand[d] != out[offset + d]) return false;
    return true;
}

inline double valueAt(const Tensor &t, int64_t flat) {
    return t.valueAsDouble(flat);
}

inline const Tensor *captured(const std::map<std::string, Tensor> &values,
                              const std::string &name) {
    auto it = values.find(name);
    return it == values.end() ? nullptr : &it->second;
}

// Scalar or per-channel float / integer parameters of the graph as it ran.
inline std::vector<float> floatParams(const Graph &g, const Node &node, size_t input) {
    const Tensor *t = node.hasInput(input) ? constantBehind(g, node.inputs[input]) : nullptr;
    return t ? t->toFloatVector() : std::vector<float>{};
}
inline std::vector<int32_t> intParams(const Graph &g, const Node &node, size_t input,
                                      size_t fallbackSize) {
    const Tensor *t = node.hasInput(input) ? constantBehind(g, node.inputs[input]) : nullptr;
    std::vector<int32_t> out;
    if (t)
        for (int64_t v : t->toInt64Vector()) out.push_back(static_cast<int32_t>(v));
    if (out.empty()) out.assign(std::max<size_t>(fallbackSize, 1), 0);
    return out;
}
template <class V>
inline V pick(const std::vector<V> &v, int64_t i) {
    return v.size() == 1 ? v[0] : v[static_cast<size_t>(i)];
}

inline bool isEightBit(DataType t) {
    return t == DataType::UInt8 || t == DataType::Int8;
}

// The float value after the float model's folded Relu/Clip, as in the float graph.
inline double applyFloatFolded(const LayerCapture &c, double v) {
    for (const auto &name : c.match.foldedFloatNodes) {
        const Node *n = c.floatFolded.findNode(name);
        if (!n) continue;
        if (n->opType == "Relu") v = std::max(v, 0.0);
        if (n->opType == "Clip") {
            const Tensor *lo =
                n->hasInput(1) ? constantBehind(c.floatFolded, n->inputs[1]) : nullptr;
            const Tensor *hi =
                n->hasInput(2) ? constantBehind(c.floatFolded, n->inputs[2]) : nullptr;
            if (lo) v = std::max(v, lo->valueAsDouble(0));
            if (hi) v = std::min(v, hi->valueAsDouble(0));
        }
    }
    return v;
}

// The output chain of a quantized result already in "scaled" units (acc·M or real/y_scale).
inline void finishQuantized(ElementExplanation &e, float scaled, int64_t lo, int64_t hi) {
    e.scaled = scaled;
    const float rounded = quant::roundHalfEven(scaled);
    e.rounded = rounded;
    const float v = rounded + static_cast<float>(e.yZeroPoint);
    e.beforeClamp = static_cast<int64_t>(v);
    e.qmin = lo;
    e.qmax = hi;
    e.quantized = std::min(std::max(e.beforeClamp, lo), hi);
    e.clamped = e.quantized != e.beforeClamp;
    e.dequantized = static_cast<double>(e.yScale) * static_cast<double>(e.quantized - e.yZeroPoint);
}

// The QuantizeLinear of quantRun that reads `value`, or nullptr.
const Node *quantizerOf(const Graph &g, const std::string &value);
// Applies the quantized model's folded Relu/Clip to a real value; `last` becomes the value
// after them.
double applyQuantFolded(const LayerCapture &c, double v, std::string &last);

Status explainIntegerMatMul(const LayerCapture &c, const Node &node, ElementExplanation &e);
void explainBatchNorm(const LayerCapture &c, const Node &node, ElementExplanation &e);
void explainRequantize(const LayerCapture &c, const Node &node, ElementExplanation &e);

}  // namespace ql::analysis::explain_detail

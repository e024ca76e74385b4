#include "analysis/pairing/layer_weights.h"

#include <cmath>

#include "analysis/suite/weight_comparison.h"
#include "quant/qparams.h"

namespace ql::analysis {

// The constant behind a value, looking through Identity and Cast nodes; nullptr if none.
const Tensor *constantBehind(const Graph &graph, std::string value) {
    for (int hops = 0; hops < 16; ++hops) {
        if (const Tensor *t = graph.initializer(value)) return t;
        const int producer = graph.producerIndex(value);
        if (producer < 0) return nullptr;
        const Node &node = graph.nodes[producer];
        if (node.opType == "Constant" && node.attrTensor("value")) return node.attrTensor("value");
        if ((node.opType != "Identity" && node.opType != "Cast") || !node.hasInput(0))
            return nullptr;
        value = node.inputs[0];
    }
    return nullptr;
}

// Index of the weight input of a float layer and its output-channel axis, or -1.
int floatWeightInput(const Graph &graph, const Node &node, int64_t *channelAxis) {
    if (node.opType == "Conv") {
        *channelAxis = 0;
        return 1;
    }
    if (node.opType == "ConvTranspose") {
        *channelAxis = 1;
        return 1;
    }
    if (node.opType == "Gemm") {
        *channelAxis = node.attrInt("transB", 0) ? 0 : 1;
        return 1;
    }
    if (node.opType == "MatMul") {
        if (node.hasInput(1) && constantBehind(graph, node.inputs[1])) {
            const Tensor *w = constantBehind(graph, node.inputs[1]);
            *channelAxis = w->rank() - 1;
            return 1;
        }
        if (node.hasInput(0) && constantBehind(graph, node.inputs[0])) {
            *channelAxis = -1;  // a constant left operand: rows are not output channels
            return 0;
        }
    }
    return -1;
}

namespace {

quant::QParams qparamsFrom(const Tensor &q, const Tensor &scale, const Tensor *zeroPoint,
                           int64_t axis, int64_t blockSize = 0) {
    quant::QParams p;
    p.type = q.dtype();
    p.scale = scale.toFloatVector();
    if (zeroPoint) {
        for (int64_t v : zeroPoint->toInt64Vector()) p.zeroPoint.push_back(static_cast<int32_t>(v));
    } else {
        p.zeroPoint.assign(p.scale.size(), 0);
    }
    if (p.zeroPoint.size() != p.scale.size())
        p.zeroPoint.resize(p.scale.size(), p.zeroPoint.empty() ? 0 : p.zeroPoint[0]);
    // One scale is per tensor whatever its rank; otherwise per channel along `axis`.
    p.axis = p.scale.size() > 1 ? (axis < 0 ? axis + q.rank() : axis) : -1;
    if (blockSize > 0 && p.axis >= 0) p.blockSize = blockSize;
    return p;
}

}  // namespace

std::optional<QuantizedWeight> quantizedWeight(const Graph &graph, const Node &node, int inputIndex,
                                               std::string *why) {
    const bool qoperator =
        node.opType == "QLinearConv" || node.opType == "QLinearMatMul" || node.opType == "QGemm";
    if (qoperator) {
        // A constant left MatMul operand is QLinearMatMul's a, a_scale, a_zero_point (0..2).
        const size_t base = node.opType == "QLinearMatMul" && inputIndex == 0 ? 0 : 3;
        const Tensor *w = node.hasInput(base) ? constantBehind(graph, node.inputs[base]) : nullptr;
        const Tensor *s =
            node.hasInput(base + 1) ? constantBehind(graph, node.inputs[base + 1]) : nullptr;
        const Tensor *zp =
            node.hasInput(base + 2) ? constantBehind(graph, node.inputs[base + 2]) : nullptr;
        if (!w || !s) {
            *why = "quantized weight or its scale is not a constant";
            return std::nullopt;
        }
        // Per-channel QLinearConv weights are along axis 0; QLinearMatMul / QGemm along the
        // output-column axis of B (last axis, or 0 when QGemm transB).
        int64_t axis = 0;
        if (node.opType == "QLinearMatMul") axis = base == 0 ? -1 : w->rank() - 1;
        if (node.opType == "QGemm") axis = node.attrInt("transB", 0) ? 0 : 1;
        return QuantizedWeight{*w, qparamsFrom(*w, *s, zp, axis)};
    }
    if (!node.hasInput(static_cast<size_t>(inputIndex))) {
        *why = "no weight input";
        return std::nullopt;
    }
    if (const Tensor *w = constantBehind(graph, node.inputs[inputIndex]);
        w && w->dtype() == DataType::Float) {
        *why = "weight is not quantized (float constant)";
        return std::nullopt;
    }
    std::string value = node.inputs[inputIndex];
    for (int hops = 0; hops < 16; ++hops) {
        const int producer = graph.producerIndex(value);
        if (producer < 0) break;
        const Node &p = graph.nodes[producer];
        if (p.opType == "DequantizeLinear") {
            const Tensor *q = p.hasInput(0) ? constantBehind(graph, p.inputs[0]) : nullptr;
            const Tensor *s = p.hasInput(1) ? constantBehind(graph, p.inputs[1]) : nullptr;
            const Tensor *zp = p.hasInput(2) ? constantBehind(graph, p.inputs[2]) : nullptr;
            if (!q || !s || !isInteger(storageType(q->dtype())) || q->dtype() == DataType::Int64) {
                *why = "DequantizeLinear '" + p.name + "' of a non-constant or non-integer tensor";
                return std::nullopt;
            }
            return QuantizedWeight{
                *q, qparamsFrom(*q, *s, zp, p.attrInt("axis", 1), p.attrInt("block_size", 0))};
        }
        if ((p.opType != "Identity" && p.opType != "Cast") || !p.hasInput(0)) break;
        value = p.inputs[0];
    }
    *why = "weight does not come from a DequantizeLinear of a constant";
    return std::nullopt;
}

Result<LayerWeightsLookup> findLayerWeights(const Graph &floatFolded, const Graph &quantCleaned,
                                            const LayerMatch &match, bool dequantize) {
    LayerWeightsLookup out;
    const Node *fnode = floatFolded.findNode(match.floatNode);
    const Node *qnode = quantCleaned.findNode(match.quantNode);
    if (!fnode || !qnode)
        return Status::internal("matched node '" + match.floatNode + "' not found");
    out.opType = fnode->opType;
    int64_t axis = -1;
    const int input = floatWeightInput(floatFolded, *fnode, &axis);
    const Tensor *fw = input >= 0 && fnode->hasInput(input)
                           ? constantBehind(floatFolded, fnode->inputs[input])
                           : nullptr;
    if (!fw) {
        out.note = "no constant weight";
        return out;
    }
    if (fnode->opType == "ConvTranspose" && fnode->attrInt("group", 1) != 1) axis = -1;
    LayerWeights w;
    w.weightInput = input;
    w.floatWeight = fw->toPlain();
    for (const std::string &folded : match.foldedFloatNodes) {
        const Node *bn = floatFolded.findNode(folded);
        if (!bn || bn->opType != "BatchNormalization") continue;
        const Tensor *gamma =
            bn->hasInput(1) ? constantBehind(floatFolded, bn->inputs[1]) : nullptr;
        const Tensor *var = bn->hasInput(4) ? constantBehind(floatFolded, bn->inputs[4]) : nullptr;
        if (!gamma || !var || axis < 0) {
            out.note = "cannot fold " + bn->describe() + " into the weight";
            return out;
        }
        auto foldedWeight = foldBatchNormIntoWeight(w.floatWeight, axis, *gamma, *var,
                                                    bn->attrFloat("epsilon", 1e-5f));
        if (!foldedWeight)
            return Status::badInput(bn->describe() + ": " + foldedWeight.status().message());
        w.floatWeight = *foldedWeight;
        w.batchNormFolded = true;
    }
    std::string why;
    auto quantized = quantizedWeight(quantCleaned, *qnode, input, &why);
    if (!quantized) {
        out.note = why;
        return out;
    }
    if (dequantize) w.dequantWeight = quant::dequantizeTensor(quantized->values, quantized->params);
    w.quantWeight = std::move(*quantized);
    w.channelAxis = axis;
    out.weights = std::move(w);
    return out;
}

Result<std::vector<double>> floatLayerBias(const Graph &floatFolded, const LayerMatch &match,
                                           int64_t channels) {
    std::vector<double> bias(static_cast<size_t>(channels), 0.0);
    const Node *fnode = floatFolded.findNode(match.floatNode);
    if (!fnode) return Status::internal("float node '" + match.floatNode + "' not found");
    if ((fnode->opType == "Conv" || fnode->opType == "Gemm") && fnode->hasInput(2)) {
        const Tensor *b = constantBehind(floatFolded, fnode->inputs[2]);
        if (!b) return Status::badInput(fnode->describe() + ": bias is not a constant");
        const double beta = fnode->opType == "Gemm" ? fnode->attrFloat("beta", 1.0f) : 1.0;
        if (b->numel() != 1 && b->numel() != channels)
            return Status::badInput(fnode->describe() + ": bias is not per output channel");
        for (int64_t c = 0; c < channels; ++c)
            bias[c] = beta * b->valueAsDouble(b->numel() == 1 ? 0 : c);
    }
    for (const std::string &folded : match.foldedFloatNodes) {
        const Node *bn = floatFolded.findNode(folded);
        if (!bn || bn->opType != "BatchNormalization") continue;
        const Tensor *p[4] = {};
        for (int i = 0; i < 4; ++i)
            p[i] = bn->hasInput(i + 1) ? constantBehind(floatFolded, bn->inputs[i + 1]) : nullptr;
        for (const Tensor *t : p)
            if (!t || t->numel() != channels)
                return Status::badInput(bn->describe() + ": parameters do not fit the layer");
        const double eps = bn->attrFloat("epsilon", 1e-5f);
        for (int64_t c = 0; c < channels; ++c)
            bias[c] = (bias[c] - p[2]->valueAsDouble(c)) * p[0]->valueAsDouble(c) /
                          std::sqrt(p[3]->valueAsDouble(c) + eps) +
                      p[1]->valueAsDouble(c);
    }
    return bias;
}

}  // namespace ql::analysis

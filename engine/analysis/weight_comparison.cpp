#include "analysis/weight_comparison.h"

#include <cmath>

#include "analysis/comparison_metrics.h"
#include "passes/constant_folding.h"
#include "passes/qdq_cleanup.h"
#include "quant/qparams.h"

namespace ql::analysis {
namespace {

// The constant behind a value, looking through Identity and Cast nodes; nullptr if none.
const Tensor *constantBehind(const Graph &graph, std::string value) {
    for (int hops = 0; hops < 16; ++hops) {
        if (const Tensor *t = graph.initializer(value)) return t;
        const int producer = graph.producerIndex(value);
        if (producer < 0) return nullptr;
        const Node &node = graph.nodes[producer];
        if (node.opType == "Constant" && node.attrTensor("value")) return node.attrTensor("value");
        if ((node.opType != "Identity" && node.opType != "Cast") || !node.hasInput(0)) return nullptr;
        value = node.inputs[0];
    }
    return nullptr;
}

// Index of the weight input of a float layer and its output-channel axis, or -1.
int floatWeightInput(const Graph &graph, const Node &node, int64_t *channelAxis) {
    if (node.opType == "Conv") { *channelAxis = 0; return 1; }
    if (node.opType == "ConvTranspose") { *channelAxis = 1; return 1; }
    if (node.opType == "Gemm") { *channelAxis = node.attrInt("transB", 0) ? 0 : 1; return 1; }
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

quant::QParams qparamsFrom(const Tensor &q, const Tensor &scale, const Tensor *zeroPoint, int64_t axis) {
    quant::QParams p;
    p.type = q.dtype();
    p.scale = scale.toFloatVector();
    if (zeroPoint) {
        for (int64_t v : zeroPoint->toInt64Vector()) p.zeroPoint.push_back(static_cast<int32_t>(v));
    } else {
        p.zeroPoint.assign(p.scale.size(), 0);
    }
    if (p.zeroPoint.size() != p.scale.size()) p.zeroPoint.resize(p.scale.size(), p.zeroPoint.empty() ? 0 : p.zeroPoint[0]);
    // One scale is per tensor whatever its rank; otherwise per channel along `axis`.
    p.axis = p.scale.size() > 1 ? (axis < 0 ? axis + q.rank() : axis) : -1;
    return p;
}

// The dequantized weight of a quantized layer at input `inputIndex` (QDQ form), or from the
// QOperator weight inputs; nullopt with a reason otherwise.
std::optional<Tensor> dequantizedWeight(const Graph &graph, const Node &node, int inputIndex, std::string *why) {
    const bool qoperator = node.opType == "QLinearConv" || node.opType == "QLinearMatMul" || node.opType == "QGemm";
    if (qoperator) {
        // A constant left MatMul operand is QLinearMatMul's a, a_scale, a_zero_point (0..2).
        const size_t base = node.opType == "QLinearMatMul" && inputIndex == 0 ? 0 : 3;
        const Tensor *w = node.hasInput(base) ? constantBehind(graph, node.inputs[base]) : nullptr;
        const Tensor *s = node.hasInput(base + 1) ? constantBehind(graph, node.inputs[base + 1]) : nullptr;
        const Tensor *zp = node.hasInput(base + 2) ? constantBehind(graph, node.inputs[base + 2]) : nullptr;
        if (!w || !s) { *why = "quantized weight or its scale is not a constant"; return std::nullopt; }
        // Per-channel QLinearConv weights are along axis 0; QLinearMatMul / QGemm along the
        // output-column axis of B (last axis, or 0 when QGemm transB).
        int64_t axis = 0;
        if (node.opType == "QLinearMatMul") axis = base == 0 ? -1 : w->rank() - 1;
        if (node.opType == "QGemm") axis = node.attrInt("transB", 0) ? 0 : 1;
        return quant::dequantizeTensor(*w, qparamsFrom(*w, *s, zp, axis));
    }
    if (!node.hasInput(static_cast<size_t>(inputIndex))) { *why = "no weight input"; return std::nullopt; }
    if (const Tensor *w = constantBehind(graph, node.inputs[inputIndex]); w && w->dtype() == DataType::Float) {
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
            if (!q || !s || (q->dtype() != DataType::Int8 && q->dtype() != DataType::UInt8)) {
                *why = "DequantizeLinear '" + p.name + "' of a non-constant or non-8-bit tensor";
                return std::nullopt;
            }
            return quant::dequantizeTensor(*q, qparamsFrom(*q, *s, zp, p.attrInt("axis", 1)));
        }
        if ((p.opType != "Identity" && p.opType != "Cast") || !p.hasInput(0)) break;
        value = p.inputs[0];
    }
    *why = "weight does not come from a DequantizeLinear of a constant";
    return std::nullopt;
}

}  // namespace

Result<WeightStats> compareWeightTensors(const Tensor &floatWeight, const Tensor &dequantWeight,
                                         int64_t channelAxis) {
    if (floatWeight.dtype() != DataType::Float || dequantWeight.dtype() != DataType::Float)
        return Status::badInput("weight comparison needs float tensors");
    if (floatWeight.shape() != dequantWeight.shape())
        return Status::badInput("weight shapes differ: float " + shapeToString(floatWeight.shape()) +
                                ", dequantized " + shapeToString(dequantWeight.shape()));
    const Tensor x = floatWeight.toPlain(), y = dequantWeight.toPlain();
    const Shape &shape = x.shape();
    if (channelAxis >= static_cast<int64_t>(shape.size())) return Status::badInput("channel axis out of range");
    const int64_t channels = channelAxis < 0 ? 1 : shape[channelAxis];
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(channelAxis + 1); channelAxis >= 0 && d < shape.size(); ++d) inner *= shape[d];
    if (channelAxis < 0) inner = x.numel();
    std::vector<CompensatedSum> signal(channels), noise(channels);
    WeightStats stats;
    stats.channelMin.assign(channels, INFINITY);
    stats.channelMax.assign(channels, -INFINITY);
    const float *xs = x.data<float>(), *ys = y.data<float>();
    for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t c = channels == 1 ? 0 : (i / inner) % channels;
        const double a = xs[i], d = a - ys[i];
        signal[c].add(a * a);
        noise[c].add(d * d);
        stats.channelMin[c] = std::fmin(stats.channelMin[c], xs[i]);
        stats.channelMax[c] = std::fmax(stats.channelMax[c], xs[i]);
    }
    CompensatedSum totalSignal, totalNoise;
    for (int64_t c = 0; c < channels; ++c) {
        stats.channelSqnrDb.push_back(sqnrDb(signal[c].value(), noise[c].value()));
        totalSignal.merge(signal[c]);
        totalNoise.merge(noise[c]);
    }
    stats.sqnrDb = sqnrDb(totalSignal.value(), totalNoise.value());
    return stats;
}

Result<Tensor> foldBatchNormIntoWeight(const Tensor &weight, int64_t channelAxis, const Tensor &gamma,
                                       const Tensor &var, float epsilon) {
    if (weight.dtype() != DataType::Float || channelAxis < 0 || channelAxis >= weight.rank())
        return Status::badInput("BN folding needs a float weight and a valid channel axis");
    const int64_t channels = weight.dim(static_cast<int>(channelAxis));
    const std::vector<float> g = gamma.toFloatVector(), v = var.toFloatVector();
    if (static_cast<int64_t>(g.size()) != channels || static_cast<int64_t>(v.size()) != channels)
        return Status::badInput("BatchNormalization has " + std::to_string(g.size()) + " channels, weight has " +
                                std::to_string(channels));
    int64_t inner = 1;
    for (int d = static_cast<int>(channelAxis) + 1; d < weight.rank(); ++d) inner *= weight.dim(d);
    Tensor out = weight.toPlain().clone();
    float *w = out.data<float>();
    for (int64_t i = 0; i < out.numel(); ++i) {
        const int64_t c = (i / inner) % channels;
        w[i] = static_cast<float>(w[i] * (static_cast<double>(g[c]) / std::sqrt(static_cast<double>(v[c]) + epsilon)));
    }
    return out;
}

Result<std::vector<LayerWeightComparison>> compareWeights(const Graph &floatGraph, const Graph &quantGraph,
                                                          const LayerMatching &matching) {
    // Exporters hide constants behind Constant / Cast / QuantizeLinear-of-constant subgraphs:
    // fold them on copies (tensors share storage, so copies are cheap).
    Graph floatCopy = floatGraph, quantCopy = quantGraph;
    QL_RETURN_IF_ERROR(foldConstants(floatCopy));
    QL_RETURN_IF_ERROR(cleanupQdqNoise(quantCopy));

    std::vector<LayerWeightComparison> out;
    for (const LayerMatch &match : matching.matches) {
        LayerWeightComparison cmp;
        cmp.floatNode = match.floatNode;
        cmp.quantNode = match.quantNode;
        const Node *fnode = floatCopy.findNode(match.floatNode);
        const Node *qnode = quantCopy.findNode(match.quantNode);
        if (!fnode || !qnode) return Status::internal("matched node '" + match.floatNode + "' not found");
        cmp.opType = fnode->opType;
        int64_t axis = -1;
        const int input = floatWeightInput(floatCopy, *fnode, &axis);
        const Tensor *fw = input >= 0 && fnode->hasInput(input) ? constantBehind(floatCopy, fnode->inputs[input]) : nullptr;
        if (!fw) {
            cmp.note = "no constant weight";
            out.push_back(std::move(cmp));
            continue;
        }
        if (fnode->opType == "ConvTranspose" && fnode->attrInt("group", 1) != 1) axis = -1;
        Tensor floatWeight = fw->toPlain();
        bool failed = false;
        for (const std::string &folded : match.foldedFloatNodes) {
            const Node *bn = floatCopy.findNode(folded);
            if (!bn || bn->opType != "BatchNormalization") continue;
            const Tensor *gamma = bn->hasInput(1) ? constantBehind(floatCopy, bn->inputs[1]) : nullptr;
            const Tensor *var = bn->hasInput(4) ? constantBehind(floatCopy, bn->inputs[4]) : nullptr;
            if (!gamma || !var || axis < 0) {
                cmp.note = "cannot fold " + bn->describe() + " into the weight";
                failed = true;
                break;
            }
            auto foldedWeight = foldBatchNormIntoWeight(floatWeight, axis, *gamma, *var, bn->attrFloat("epsilon", 1e-5f));
            if (!foldedWeight) return Status::badInput(bn->describe() + ": " + foldedWeight.status().message());
            floatWeight = *foldedWeight;
            cmp.batchNormFolded = true;
        }
        if (failed) { out.push_back(std::move(cmp)); continue; }
        std::string why;
        auto dq = dequantizedWeight(quantCopy, *qnode, input, &why);
        if (!dq) {
            cmp.note = why;
            out.push_back(std::move(cmp));
            continue;
        }
        auto stats = compareWeightTensors(floatWeight, *dq, axis);
        if (!stats) {
            cmp.note = stats.status().message();
            out.push_back(std::move(cmp));
            continue;
        }
        cmp.channelAxis = axis;
        cmp.stats = std::move(*stats);
        out.push_back(std::move(cmp));
    }
    return out;
}

}  // namespace ql::analysis

#include "analysis/pairing/layer_matching.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/pairing/layer_pairing.h"
#include "core/stop_token.h"
#include "kernels/quantization_common.h"

namespace ql::analysis {

namespace {

using pairing::GraphLayers;
using pairing::Unit;
using pairing::UnitPair;
using pairing::collectLayers;
using pairing::pairUnits;

const std::set<std::string> &floatComputeOps() {
    static const std::set<std::string> ops = {
        "Conv", "ConvTranspose", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div", "Concat",
        "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "BatchNormalization",
        "LayerNormalization", "Relu", "Clip", "LeakyRelu", "PRelu", "Sigmoid", "Tanh",
        "HardSigmoid", "HardSwish", "Gelu", "Softmax", "Flatten", "Reshape", "Transpose",
        "Squeeze", "Unsqueeze", "Resize", "Pad", "ReduceMean", "Split", "Slice"};
    return ops;
}

const std::map<std::string, std::string> &quantizedOpCanon() {
    static const std::map<std::string, std::string> ops = {
        {"QLinearConv", "Conv"}, {"ConvInteger", "Conv"}, {"QLinearMatMul", "MatMul"},
        {"MatMulInteger", "MatMul"}, {"QGemm", "Gemm"}, {"QLinearAdd", "Add"},
        {"QLinearMul", "Mul"}, {"QLinearConcat", "Concat"},
        {"QLinearGlobalAveragePool", "GlobalAveragePool"}, {"QLinearAveragePool", "AveragePool"},
        {"QLinearSigmoid", "Sigmoid"}, {"QLinearLeakyRelu", "LeakyRelu"}};
    return ops;
}

bool isPassThrough(const std::string &op) { return op == "Cast" || op == "Identity"; }

// Scale and zero point inputs of a Q/DQ node equal (same names, or equal constant values).
bool sameQParams(const Graph &graph, const Node &a, const Node &b) {
    for (size_t k = 1; k < 3; ++k) {
        const std::string x = a.inputs.size() > k ? a.inputs[k] : "";
        const std::string y = b.inputs.size() > k ? b.inputs[k] : "";
        if (x == y) continue;
        const Tensor *tx = x.empty() ? nullptr : graph.initializer(x);
        const Tensor *ty = y.empty() ? nullptr : graph.initializer(y);
        if (!tx || !ty || tx->dtype() != ty->dtype() || tx->numel() != ty->numel()) return false;
        for (int64_t i = 0; i < tx->numel(); ++i)
            if (tx->valueAsDouble(i) != ty->valueAsDouble(i)) return false;
    }
    return true;
}

// True when `dqValue` (a DequantizeLinear output) feeds `act`, whose output goes only to a
// QuantizeLinear with the same scale and zero point as that DequantizeLinear.
bool requantizedOnSameGrid(const GraphLayers &layers, const std::string &dqValue, const Node &act) {
    const Graph &graph = *layers.graph;
    const int p = graph.producerIndex(dqValue);
    if (p < 0 || graph.nodes[p].opType != "DequantizeLinear" || act.outputs.empty()) return false;
    auto it = layers.consumers.find(act.outputs[0]);
    if (it == layers.consumers.end() || it->second.size() != 1) return false;
    const Node &q = graph.nodes[it->second[0]];
    return q.opType == "QuantizeLinear" && sameQParams(graph, graph.nodes[p], q);
}

// True for a QOperator node (QLinearConv, QGemm, QLinearAdd, ...) whose output zero point is a
// constant equal to its type's qmin: its dequantized output is never negative.
bool quantizedOutputNonNegative(const Graph &graph, const Node &node) {
    static const std::map<std::string, size_t> outputZeroPoint = {
        {"QLinearConv", 7}, {"QLinearMatMul", 7}, {"QGemm", 8}, {"QLinearAdd", 7}, {"QLinearMul", 7},
        {"QLinearGlobalAveragePool", 4}, {"QLinearAveragePool", 4}, {"QLinearConcat", 1},
        {"QLinearLeakyRelu", 4}, {"QLinearSigmoid", 4}};
    auto it = outputZeroPoint.find(node.opType);
    if (it == outputZeroPoint.end() || node.inputs.size() <= it->second || node.inputs[it->second].empty())
        return false;
    const Tensor *zp = graph.initializer(node.inputs[it->second]);
    if (!zp || zp->numel() == 0) return false;
    int64_t qmin = 0, qmax = 0;
    if (!quant::integerRange(zp->dtype(), qmin, qmax) || zp->dtype() == DataType::Int32)
        return false;
    for (int64_t i = 0; i < zp->numel(); ++i)
        if (zp->valueAsDouble(i) != static_cast<double>(qmin)) return false;
    return true;
}

// True when `value` is a DequantizeLinear output whose zero points all equal the type's qmin
// (uint8 0, int8 -128, 16-bit alike): every dequantized value is >= 0, so a Relu on it changes
// nothing.
bool dequantizesNonNegative(const Graph &graph, const std::string &value) {
    const int p = graph.producerIndex(value);
    if (p < 0 || graph.nodes[p].opType != "DequantizeLinear") return false;
    const Node &dq = graph.nodes[p];
    if (dq.inputs.size() < 3 || dq.inputs[2].empty()) return true;  // uint8, zero point 0
    const Tensor *zp = graph.initializer(dq.inputs[2]);
    if (!zp) return false;
    int64_t qmin = 0, qmax = 0;
    if (!quant::integerRange(zp->dtype(), qmin, qmax) || zp->dtype() == DataType::Int32)
        return false;
    for (int64_t i = 0; i < zp->numel(); ++i)
        if (zp->valueAsDouble(i) != static_cast<double>(qmin)) return false;
    return true;
}

// The value the quantized model really carries for `value`: the DequantizeLinear output behind
// the QuantizeLinear that consumes it (through Cast/Identity), else `value` itself.
std::string dequantizedValue(const GraphLayers &layers, const std::string &value) {
    const Graph &graph = *layers.graph;
    auto consumersOf = [&](const std::string &v) -> std::vector<int> {
        auto it = layers.consumers.find(v);
        return it == layers.consumers.end() ? std::vector<int>{} : it->second;
    };
    for (int q : consumersOf(value)) {
        if (graph.nodes[q].opType != "QuantizeLinear") continue;
        std::vector<std::string> frontier = {graph.nodes[q].outputs[0]};
        for (size_t step = 0; step < frontier.size() && step < 16; ++step) {
            for (int c : consumersOf(frontier[step])) {
                const Node &consumer = graph.nodes[c];
                if (consumer.opType == "DequantizeLinear") return consumer.outputs[0];
                if (isPassThrough(consumer.opType)) frontier.push_back(consumer.outputs[0]);
            }
        }
    }
    return value;
}

Status checkInputs(const Graph &f, const Graph &q) {
    const std::string prefix = f.sourcePath.empty() || q.sourcePath.empty()
                                   ? std::string("models do not match: ")
                                   : "models do not match ('" + f.sourcePath + "' vs '" + q.sourcePath + "'): ";
    if (f.inputs.size() != q.inputs.size())
        return Status::badInput(prefix + "the float model has " + std::to_string(f.inputs.size()) +
                                " input(s), the quantized model has " +
                                std::to_string(q.inputs.size()));
    for (size_t i = 0; i < f.inputs.size(); ++i) {
        const ValueInfo &a = f.inputs[i];
        const ValueInfo &b = q.inputs[i];
        const std::string which = "input " + std::to_string(i) + " ('" + a.name + "' vs '" +
                                  b.name + "')";
        if (a.dtype != DataType::Undefined && b.dtype != DataType::Undefined && a.dtype != b.dtype)
            return Status::badInput(prefix + which + " has different element types");
        if (!a.hasShape || !b.hasShape) continue;
        bool same = a.shape.size() == b.shape.size();
        for (size_t d = 0; same && d < a.shape.size(); ++d)
            if (a.shape[d] > 0 && b.shape[d] > 0 && a.shape[d] != b.shape[d]) same = false;
        if (!same) return Status::badInput(prefix + which + " has different shapes");
    }
    return Status::ok();
}

}  // namespace

bool isComputeLayer(const Node &node) {
    if (node.domain.empty() || node.domain == "ai.onnx") {
        if (floatComputeOps().count(node.opType)) return true;
    }
    return quantizedOpCanon().count(node.opType) != 0;
}

std::string canonicalOpType(const Node &node) {
    auto it = quantizedOpCanon().find(node.opType);
    return it == quantizedOpCanon().end() ? node.opType : it->second;
}

Result<LayerMatching> matchLayers(const Graph &floatGraph, const Graph &quantGraph,
                                  WeightCorrelationMemo *memo) {
    if (Status s = checkInputs(floatGraph, quantGraph); !s) return s;
    const GraphLayers fl = collectLayers(floatGraph);
    const GraphLayers ql = collectLayers(quantGraph);
    if (stopRequested()) return stoppedStatus();
    auto pairing = pairUnits(fl, ql, memo);
    if (!pairing) return pairing.status();
    const auto &pairs = pairing->pairs;

    if (pairs.empty())
        return Status::badInput(
            "models do not match: no compute layer of the float model" +
            (floatGraph.sourcePath.empty() ? std::string() : " '" + floatGraph.sourcePath + "'") +
            " has a counterpart in the quantized model" +
            (quantGraph.sourcePath.empty() ? std::string() : " '" + quantGraph.sourcePath + "'"));

    LayerMatching result;
    std::set<int> matchedFloatNodes, matchedQuantNodes;
    std::map<int, LayerMatch> byFloatNode;  // float node index -> match, for node order
    auto quantOut = [&](int node) { return dequantizedValue(ql, quantGraph.nodes[node].outputs[0]); };

    for (const UnitPair &pair : pairs) {
        const Unit &f = fl.units[pair.floatUnit];
        const Unit &q = ql.units[pair.quantUnit];
        const Node &fHead = floatGraph.nodes[f.head];
        const Node &qHead = quantGraph.nodes[q.head];
        LayerMatch head{fHead.name, qHead.name, fHead.outputs[0], "", {}, pair.how, {},
                        pair.confidence};
        matchedFloatNodes.insert(f.head);
        matchedQuantNodes.insert(q.head);
        if (f.bn >= 0 && q.bn >= 0) {
            // Both kept the BatchNormalization: two layers to compare.
            head.quantOutput = quantOut(q.head);
            const Node &fBn = floatGraph.nodes[f.bn];
            const Node &qBn = quantGraph.nodes[q.bn];
            byFloatNode[f.bn] = LayerMatch{fBn.name, qBn.name, fBn.outputs[0], quantOut(q.bn), {},
                                           pair.how, {}, pair.confidence};
            matchedFloatNodes.insert(f.bn);
            matchedQuantNodes.insert(q.bn);
        } else if (f.bn >= 0) {
            // BN folded into the quantized layer: compare the float BN output.
            const Node &fBn = floatGraph.nodes[f.bn];
            head.floatOutput = fBn.outputs[0];
            head.foldedFloatNodes.push_back(fBn.name);
            head.quantOutput = quantOut(q.head);
            matchedFloatNodes.insert(f.bn);
        } else {
            head.quantOutput = quantOut(q.head);  // a quantized-only BN stays unmatched
        }
        byFloatNode[f.head] = head;
    }

    // A quantized layer whose output is not requantized but goes straight into a matched Relu/Clip
    // (PyTorch FX exports ConvReLU as Conv -> Relu -> QuantizeLinear) is one int8 unit: the
    // layer value between them does not exist when the pair runs as one int8 kernel. The same
    // holds for a Relu after a requantization whose zero point is qmin (ONNX Runtime and our
    // quantizer give the layer the Relu's range): the Relu is a no-op on that tensor and the int8
    // lowering drops it. Fold the activation's match into the layer's, on both sides.
    {
        std::map<std::string, int> floatIndexOfQuantNode;
        for (const auto &[index, match] : byFloatNode) floatIndexOfQuantNode[match.quantNode] = index;
        std::vector<int> mergedActivations;
        for (auto &[index, match] : byFloatNode) {
            const Node *qNode = quantGraph.findNode(match.quantNode);
            if (!qNode || qNode->outputs.empty()) continue;
            const bool requantized = match.quantOutput != qNode->outputs[0];
            auto qc = ql.consumers.find(match.quantOutput);
            if (qc == ql.consumers.end() || qc->second.size() != 1 || quantGraph.isGraphOutput(match.quantOutput))
                continue;
            const Node &qAct = quantGraph.nodes[qc->second[0]];
            if (qAct.opType != "Relu" && qAct.opType != "Clip") continue;
            if (requantized && !(qAct.opType == "Relu" && dequantizesNonNegative(quantGraph, match.quantOutput)) &&
                !requantizedOnSameGrid(ql, match.quantOutput, qAct))
                continue;
            auto actMatch = floatIndexOfQuantNode.find(qAct.name);
            if (actMatch == floatIndexOfQuantNode.end()) continue;
            LayerMatch &act = byFloatNode[actMatch->second];
            const Node &fAct = floatGraph.nodes[actMatch->second];
            if (fAct.inputs.empty() || fAct.inputs[0] != match.floatOutput ||
                floatGraph.useCount(match.floatOutput) != 1)
                continue;
            match.floatOutput = act.floatOutput;
            match.foldedFloatNodes.push_back(act.floatNode);
            match.quantOutput = act.quantOutput;
            match.foldedQuantNodes.push_back(act.quantNode);
            mergedActivations.push_back(actMatch->second);
        }
        for (int index : mergedActivations) byFloatNode.erase(index);
    }

    // A float Relu/Clip left unmatched folds into the match before it when the quantized layer
    // fuses it: by attribute (QOperator `ql_activation`), by quantizing its output directly
    // (ONNX Runtime's QDQ quantizer drops a Relu/Clip whose clipping the QuantizeLinear's range
    // already does), or by a QOperator output whose zero point is qmin (the same, in QOperator
    // form: the quantized output cannot be negative).
    auto feedsOnlyQuantize = [&](const Node &node) {
        if (node.outputs.empty() || quantGraph.isGraphOutput(node.outputs[0])) return false;
        auto it = ql.consumers.find(node.outputs[0]);
        if (it == ql.consumers.end()) return false;
        for (int c : it->second)
            if (quantGraph.nodes[c].opType != "QuantizeLinear") return false;
        return true;
    };
    for (auto &[index, match] : byFloatNode) {
        const Node *qNode = quantGraph.findNode(match.quantNode);
        if (!qNode || !(qNode->hasAttribute("ql_activation") || feedsOnlyQuantize(*qNode) ||
                        quantizedOutputNonNegative(quantGraph, *qNode)))
            continue;
        auto it = fl.consumers.find(match.floatOutput);
        if (it == fl.consumers.end() || it->second.size() != 1 ||
            floatGraph.useCount(match.floatOutput) != 1)
            continue;
        const int act = it->second[0];
        const Node &actNode = floatGraph.nodes[act];
        if ((actNode.opType != "Relu" && actNode.opType != "Clip") || matchedFloatNodes.count(act))
            continue;
        match.floatOutput = actNode.outputs[0];
        match.foldedFloatNodes.push_back(actNode.name);
        matchedFloatNodes.insert(act);
    }

    for (auto &entry : byFloatNode) result.matches.push_back(std::move(entry.second));
    auto listUnmatched = [](const Graph &graph, const GraphLayers &layers,
                            const std::set<int> &matched, const std::map<int, std::string> &why,
                            std::vector<std::string> &names, std::vector<std::string> &reasons) {
        std::map<int, std::string> whyByNode;
        for (const auto &[unit, reason] : why) whyByNode[layers.units[unit].head] = reason;
        for (size_t i = 0; i < graph.nodes.size(); ++i) {
            if (!isComputeLayer(graph.nodes[i]) || matched.count(int(i))) continue;
            names.push_back(graph.nodes[i].name);
            auto it = whyByNode.find(int(i));
            reasons.push_back(it != whyByNode.end() ? it->second
                                                    : "the other model has no separate layer for it");
        }
    };
    listUnmatched(floatGraph, fl, matchedFloatNodes, pairing->floatWhy, result.unmatchedFloat,
                  result.unmatchedFloatWhy);
    listUnmatched(quantGraph, ql, matchedQuantNodes, pairing->quantWhy, result.unmatchedQuant,
                  result.unmatchedQuantWhy);
    return result;
}

}  // namespace ql::analysis

#include "analysis/layer_capture.h"

#include <set>
#include <vector>

#include "passes/constant_folding.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {
namespace {

Tensor plainCopy(const Tensor &t) {
    return t.toPlain().clone();
}

Tensor toFloat(const Tensor &t) {
    const Tensor plain = t.toPlain();
    if (plain.dtype() == DataType::Float) return plain.clone();
    Tensor out(DataType::Float, plain.shape());
    for (int64_t i = 0; i < plain.numel(); ++i)
        out.data<float>()[i] = static_cast<float>(plain.valueAsDouble(i));
    return out;
}

// Runs a plan on the batch and keeps copies of the wanted values (graph inputs included).
Status runKeeping(Graph graph, const std::map<std::string, Tensor> &batch,
                  const std::set<std::string> &wanted, int threads,
                  std::map<std::string, Tensor> &kept) {
    PlanOptions planOptions;
    planOptions.threads = threads;
    auto plan = ExecutionPlan::create(std::move(graph), planOptions);
    if (!plan) return plan.status();
    RunOptions run;
    run.tapFilter = [&](const Node &node) {
        for (const auto &o : node.outputs)
            if (wanted.count(o)) return true;
        return false;
    };
    run.tap = [&](const Node &node, size_t index, const Tensor &value) {
        if (wanted.count(node.outputs[index])) kept[node.outputs[index]] = plainCopy(value);
    };
    std::vector<Tensor> outputs;
    QL_RETURN_IF_ERROR((*plan)->run(batch, outputs, run));
    const Graph &g = (*plan)->graph();
    for (size_t o = 0; o < g.outputs.size() && o < outputs.size(); ++o)
        if (wanted.count(g.outputs[o].name) && !kept.count(g.outputs[o].name))
            kept[g.outputs[o].name] = plainCopy(outputs[o]);
    for (const auto &[name, tensor] : batch)
        if (wanted.count(name)) kept[name] = plainCopy(tensor);
    return Status::ok();
}

// Values the explanation needs around quantRun's node: its inputs and outputs, the quantized
// tensor behind each DequantizeLinear input, the outputs of the folded quantized nodes and the
// QuantizeLinear that follows them.
std::set<std::string> valuesAround(const Graph &g, int nodeIndex, const LayerMatch &match) {
    std::set<std::string> wanted;
    if (nodeIndex < 0) return wanted;
    const Node &node = g.nodes[nodeIndex];
    for (const auto &in : node.inputs) {
        if (in.empty() || g.isInitializer(in)) continue;
        wanted.insert(in);
        const int p = g.producerIndex(in);
        if (p >= 0 && g.nodes[p].opType == "DequantizeLinear" && g.nodes[p].hasInput(0) &&
            !g.isInitializer(g.nodes[p].inputs[0]))
            wanted.insert(g.nodes[p].inputs[0]);
    }
    std::string last = node.outputs.empty() ? "" : node.outputs[0];
    for (const auto &o : node.outputs)
        if (!o.empty()) wanted.insert(o);
    for (const auto &name : match.foldedQuantNodes) {
        const Node *folded = g.findNode(name);
        if (!folded) continue;
        for (const auto &o : folded->outputs)
            if (!o.empty()) wanted.insert(o);
        if (!folded->outputs.empty()) last = folded->outputs[0];
    }
    // The QuantizeLinear after the layer (float op -> Q): its output is the layer's int8 value.
    for (size_t i = 0; i < g.nodes.size() && !last.empty(); ++i)
        if (g.nodes[i].opType == "QuantizeLinear" && g.nodes[i].hasInput(0) &&
            g.nodes[i].inputs[0] == last)
            wanted.insert(g.nodes[i].outputs[0]);
    return wanted;
}

// A QOperator layer's output is its quantized tensor (no DequantizeLinear): its scale and zero
// point are the node's output inputs.
void describeQOperatorOutput(const Graph &folded, const std::string &value, QuantTarget &target) {
    const int p = folded.producerIndex(value);
    if (p < 0) return;
    const Node &node = folded.nodes[p];
    static const std::map<std::string, std::pair<size_t, size_t>> outputParams = {
        {"QLinearConv", {6, 7}},
        {"QLinearMatMul", {6, 7}},
        {"QGemm", {7, 8}},
        {"QLinearAdd", {6, 7}},
        {"QLinearMul", {6, 7}},
        {"QLinearGlobalAveragePool", {3, 4}},
        {"QLinearAveragePool", {3, 4}},
        {"QLinearSigmoid", {3, 4}},
        {"QLinearLeakyRelu", {3, 4}},
        {"QLinearConcat", {0, 1}}};
    auto it = outputParams.find(node.opType);
    if (it == outputParams.end() || node.outputs.empty() || node.outputs[0] != value) return;
    const Tensor *scale = node.hasInput(it->second.first)
                              ? folded.initializer(node.inputs[it->second.first])
                              : nullptr;
    const Tensor *zp = node.hasInput(it->second.second)
                           ? folded.initializer(node.inputs[it->second.second])
                           : nullptr;
    if (!scale || scale->numel() != 1) return;
    target.scale = scale->toFloatVector();
    target.zeroPoint = {zp ? static_cast<int32_t>(zp->valueAsDouble(0)) : 0};
    target.quantType = zp ? zp->dtype() : DataType::UInt8;
    target.quantizedNames = {value};
}

}  // namespace

Result<LayerCapture> captureLayer(const Graph &floatGraph, const Graph &quantGraph,
                                  const LayerMatch &match,
                                  const std::map<std::string, Tensor> &batch,
                                  const LayerCaptureOptions &options) {
    LayerCapture c;
    c.match = match;
    c.floatFolded = floatGraph;
    QL_RETURN_IF_ERROR(foldConstants(c.floatFolded));
    c.quantFolded = quantGraph;
    QL_RETURN_IF_ERROR(foldConstants(c.quantFolded));
    const Node *fnode = floatGraph.findNode(match.floatNode);
    if (!fnode)
        return Status::badInput("layer '" + match.floatNode + "' is not in the float model");
    if (!quantGraph.findNode(match.quantNode))
        return Status::badInput("layer '" + match.quantNode + "' is not in the quantized model");
    c.target = describeQuantValue(c.quantFolded, match.quantOutput);
    if (c.target.scale.empty()) describeQOperatorOutput(c.quantFolded, match.quantOutput, c.target);

    c.quantRun = quantGraph;
    PrecisionReport report;
    QL_RETURN_IF_ERROR(
        preparePrecision(c.quantRun, options.precision, &report).withContext("quantized model"));
    if (options.precision == Precision::Int8) applyInt8Kernels(c.quantRun, options.int8Kernels);
    for (size_t i = 0; i < c.quantRun.nodes.size(); ++i)
        if (c.quantRun.nodes[i].name == match.quantNode) c.quantRunNode = static_cast<int>(i);
    for (const auto &decision : report.nodes)
        if (decision.node == match.quantNode) c.quantRunReason = decision.reason;

    // Float side: the layer output and the float node's non-constant inputs.
    std::set<std::string> floatWanted = {match.floatOutput};
    for (const auto &in : fnode->inputs)
        if (!in.empty() && !c.floatFolded.isInitializer(in)) floatWanted.insert(in);
    Graph floatPrepared = floatGraph;
    QL_RETURN_IF_ERROR(preparePrecision(floatPrepared, Precision::Fp32));
    std::map<std::string, Tensor> floatKept;
    QL_RETURN_IF_ERROR(
        runKeeping(std::move(floatPrepared), batch, floatWanted, options.threads, floatKept)
            .withContext("float model"));
    auto fo = floatKept.find(match.floatOutput);
    if (fo == floatKept.end())
        return Status::badInput("layer '" + match.floatNode +
                                "': the float model did not produce '" + match.floatOutput + "'");
    c.floatOutput = toFloat(fo->second);
    floatKept.erase(fo);
    c.floatValues = std::move(floatKept);

    // Quantized side: the layer value (DQ output or the quantized tensor behind it) and the
    // values around the node as it ran.
    std::set<std::string> quantWanted = valuesAround(c.quantRun, c.quantRunNode, match);
    quantWanted.insert(c.target.floatName);
    for (const auto &name : c.target.quantizedNames) quantWanted.insert(name);
    QL_RETURN_IF_ERROR(runKeeping(c.quantRun, batch, quantWanted, options.threads, c.quantValues)
                           .withContext("quantized model"));
    for (const auto &name : c.target.quantizedNames) {
        auto it = c.quantValues.find(name);
        if (it != c.quantValues.end() &&
            (it->second.dtype() == DataType::UInt8 || it->second.dtype() == DataType::Int8)) {
            c.quantOutputInt = it->second;
            break;
        }
    }
    auto direct = c.quantValues.find(c.target.floatName);
    if (direct != c.quantValues.end() && direct->second.dtype() == DataType::Float) {
        c.quantOutput = direct->second;
    } else if (c.quantOutputInt.defined()) {
        auto dq = dequantizeTarget(c.quantOutputInt, c.target);
        if (!dq) return dq.status().withContext("layer '" + match.floatNode + "'");
        c.quantOutput = std::move(*dq);
    } else if (direct != c.quantValues.end()) {
        c.quantOutput = toFloat(direct->second);
    } else {
        return Status::badInput("layer '" + match.floatNode +
                                "': the quantized model did not produce '" + match.quantOutput +
                                "'");
    }
    if (c.quantOutput.shape() != c.floatOutput.shape())
        return Status::badInput("layer '" + match.floatNode + "': float output " +
                                shapeToString(c.floatOutput.shape()) + " and quantized output " +
                                shapeToString(c.quantOutput.shape()) + " differ");
    return c;
}

}  // namespace ql::analysis

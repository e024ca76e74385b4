#include "analysis/suite/isolated_layer_graph.h"

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "kernels/quantization_common.h"
#include "passes/constant_folding.h"
#include "passes/qdq_graph_utils.h"
#include "passes/qoperator_to_qdq.h"
#include "passes/topological_sort.h"

namespace ql::analysis {
namespace {

bool isDefaultDomain(const Node &node) {
    return node.domain.empty() || node.domain == "ai.onnx";
}

// Nodes that only move or re-encode a value: walked through to find a layer's real input.
bool isQdqPlumbing(const Node &node) {
    return isDefaultDomain(node) &&
           (node.opType == "QuantizeLinear" || node.opType == "DequantizeLinear" ||
            node.opType == "Cast" || node.opType == "Identity");
}

bool isFoldedActivation(const Node &node) {
    return isDefaultDomain(node) && (node.opType == "Relu" || node.opType == "Clip");
}

std::string describeProducer(const Graph &g, int producer) {
    return producer < 0 ? std::string("a graph input") : g.nodes[producer].describe();
}

// The core of one match: node indices from quantOutput back to quantNode, and the last compute
// value on that path (the value the float layer output stands for).
struct Core {
    std::vector<int> nodes;
    std::string computeValue;
    std::string error;
};

Core findCore(const Graph &q, const qdq::GraphIndex &index,
              const std::map<std::string, int> &nodeByName, const LayerMatch &match) {
    Core core;
    auto named = nodeByName.find(match.quantNode);
    if (named == nodeByName.end()) {
        core.error =
            "quantized node '" + match.quantNode + "' is not in the graph after QDQ expansion";
        return core;
    }
    std::string value = match.quantOutput;
    for (int step = 0; step < 64; ++step) {
        const int p = index.producer(value);
        if (p < 0) {
            core.error = "the layer output '" + value + "' is not produced by a node";
            return core;
        }
        const Node &node = q.nodes[p];
        core.nodes.push_back(p);
        if (core.computeValue.empty() && !isQdqPlumbing(node)) core.computeValue = value;
        if (p == named->second) return core;
        if (!isQdqPlumbing(node) && !isFoldedActivation(node)) {
            core.error = node.describe() + " lies between the layer and its output '" +
                         match.quantOutput + "'";
            return core;
        }
        if (node.inputs.empty() || node.inputs[0].empty()) break;
        value = node.inputs[0];
    }
    core.error = "the layer output '" + match.quantOutput + "' is not reached from '" +
                 match.quantNode + "'";
    return core;
}

// Ops that run on a quantized tensor unchanged when the int8 lowering finds equal input and
// output quantization (QOperator form): their output carries their input's quantization.
bool keepsQuantization(const Node &node) {
    static const std::set<std::string> ops = {"Cast",    "Identity",  "MaxPool", "Reshape",
                                              "Flatten", "Transpose", "Squeeze", "Unsqueeze"};
    return isDefaultDomain(node) && ops.count(node.opType) != 0;
}

// The QuantizeLinear whose quantization a value carries (through Cast/Identity and ops that keep
// the quantization, along their data input), or -1 for a float value.
int quantizeBehind(const Graph &g, const qdq::GraphIndex &index, std::string value) {
    for (int step = 0; step < 64; ++step) {
        const int p = index.producer(value);
        if (p < 0) return -1;
        const Node &node = g.nodes[p];
        if (qdq::isOp(node, "QuantizeLinear")) return p;
        if (!keepsQuantization(node) || node.inputs.empty()) return -1;
        value = node.inputs[0];
    }
    return -1;
}

// Constant per-tensor parameters of a Q/DQ node, or false.
bool perTensorParams(const Graph &g, const qdq::GraphIndex &index, const Node &node,
                     qdq::QParamsView &params) {
    return qdq::checkQdqParams(g, index, node).isOk() && qdq::readQParams(g, index, node, params) &&
           params.perTensor();
}

void setOutputQuantization(IsolatedLayerGraph &layer, const qdq::QParamsView &params) {
    layer.outputScale = params.scale[0];
    layer.outputZeroPoint = params.zeroPoint[0];
    int64_t lo = 0, hi = 255;  // 8- or 16-bit
    if (quant::integerRange(params.type, lo, hi)) {
        layer.outputQmin = static_cast<int32_t>(lo);
        layer.outputQmax = static_cast<int32_t>(hi);
    }
}

// Chooses the layer graph's single output. With per-tensor output quantization it is the
// quantized tensor itself (a final DequantizeLinear is dropped): the comparison dequantizes it
// while counting saturation, which is cheaper than a DequantizeLinear kernel plus a float copy
// of the output. Otherwise a float value: the DequantizeLinear output, one appended behind a
// per-channel quantized output, or the layer's float output when it is not quantized at all.
void finishOutput(IsolatedLayerGraph &layer, const std::string &output) {
    Graph &g = layer.graph;
    const qdq::GraphIndex index(g);
    std::string finalValue = output;
    qdq::QParamsView params;
    const int producer = index.producer(output);
    const int quantize = quantizeBehind(g, index, output);
    if (producer >= 0 && qdq::isOp(g.nodes[producer], "DequantizeLinear") &&
        quantizeBehind(g, index, g.nodes[producer].inputs[0]) >= 0 &&
        perTensorParams(g, index, g.nodes[producer], params)) {
        finalValue = g.nodes[producer].inputs[0];
        g.nodes.erase(g.nodes.begin() + producer);
        layer.outputQuantized = true;
        setOutputQuantization(layer, params);
    } else if (quantize >= 0 && perTensorParams(g, index, g.nodes[quantize], params)) {
        layer.outputQuantized = true;
        setOutputQuantization(layer, params);
    } else if (quantize >= 0) {
        const Node &q = g.nodes[quantize];
        Node dq;
        dq.opType = "DequantizeLinear";
        dq.name = qdq::NameSource(g).make(output + "_isolated_dequantize");
        dq.inputs = {output};
        for (size_t i = 1; i < q.inputs.size(); ++i) dq.inputs.push_back(q.inputs[i]);
        if (q.hasAttribute("axis")) dq.attributes["axis"] = q.attributes.at("axis");
        finalValue = qdq::NameSource(g).make(output + "_isolated_dequantized");
        dq.outputs = {finalValue};
        g.nodes.push_back(dq);
    } else if (producer >= 0 && qdq::isOp(g.nodes[producer], "DequantizeLinear") &&
               perTensorParams(g, index, g.nodes[producer], params)) {
        setOutputQuantization(layer, params);  // float output; saturation from its values
    }
    ValueInfo out;
    out.name = finalValue;
    g.outputs = {out};
}

}  // namespace

Result<std::vector<IsolatedLayerGraph>> extractIsolatedLayers(const Graph &floatGraph,
                                                              const Graph &quantGraph,
                                                              const LayerMatching &matching) {
    Graph q = quantGraph;
    QL_RETURN_IF_ERROR(foldConstants(q).withContext("quantized model"));
    QL_RETURN_IF_ERROR(expandQOperatorsToQdq(q).withContext("quantized model"));
    QL_RETURN_IF_ERROR(sortTopologically(q).withContext("quantized model"));
    const qdq::GraphIndex index(q);
    std::map<std::string, int> nodeByName;
    for (size_t i = 0; i < q.nodes.size(); ++i) nodeByName.emplace(q.nodes[i].name, int(i));

    // Pass 1: every match's core, and which quantized value stands for which float value.
    std::vector<Core> cores;
    std::map<std::string, std::string> floatOf;
    for (size_t i = 0; i < q.inputs.size() && i < floatGraph.inputs.size(); ++i)
        floatOf[q.inputs[i].name] = floatGraph.inputs[i].name;
    for (const LayerMatch &match : matching.matches) {
        cores.push_back(findCore(q, index, nodeByName, match));
        const Core &core = cores.back();
        if (core.error.empty() && !core.computeValue.empty())
            floatOf.emplace(core.computeValue, match.floatOutput);
    }

    // Pass 2: each layer's graph. New names are unique in the whole model, so in every layer.
    qdq::NameSource names(q);
    std::vector<IsolatedLayerGraph> layers(matching.matches.size());
    for (size_t m = 0; m < matching.matches.size(); ++m) {
        const LayerMatch &match = matching.matches[m];
        IsolatedLayerGraph &layer = layers[m];
        layer.floatOutput = match.floatOutput;
        const Core &core = cores[m];
        if (!core.error.empty()) {
            layer.note = core.error;
            continue;
        }
        std::set<int> nodes(core.nodes.begin(), core.nodes.end());
        std::set<std::string> initializers, roots;
        std::function<void(const std::string &)> resolve = [&](const std::string &value) {
            if (value.empty()) return;
            if (q.isInitializer(value)) {
                initializers.insert(value);
                return;
            }
            const int p = index.producer(value);
            if (p >= 0 && nodes.count(p)) return;
            if (p >= 0 && isQdqPlumbing(q.nodes[p])) {
                nodes.insert(p);
                for (const std::string &in : q.nodes[p].inputs) resolve(in);
                return;
            }
            roots.insert(value);
        };
        for (int c : core.nodes)
            for (const std::string &in : q.nodes[c].inputs) resolve(in);

        for (const std::string &root : roots) {
            auto it = floatOf.find(root);
            if (it == floatOf.end()) {
                layer.note = "its input '" + root + "' (from " +
                             describeProducer(q, index.producer(root)) +
                             ") has no float counterpart";
                break;
            }
            layer.inputs.emplace_back(root, it->second);
        }
        if (!layer.note.empty()) {
            layer.inputs.clear();
            continue;
        }

        Graph &g = layer.graph;
        g.name = "isolated " + match.quantNode;
        g.sourcePath = quantGraph.sourcePath;
        g.opsetVersion = q.opsetVersion;
        g.domainOpsets = q.domainOpsets;
        std::set<std::string> values;
        for (int n : nodes) {
            g.nodes.push_back(q.nodes[n]);
            values.insert(q.nodes[n].inputs.begin(), q.nodes[n].inputs.end());
            values.insert(q.nodes[n].outputs.begin(), q.nodes[n].outputs.end());
        }
        // A quantized root (QOperator form: e.g. a MaxPool run on uint8) is fed as float and
        // quantized here with the parameters it carries in the quantized model.
        std::vector<Node> rootQuantizers;
        for (auto &[root, floatName] : layer.inputs) {
            const int quantize = quantizeBehind(q, index, root);
            ValueInfo in;
            in.dtype = DataType::Float;
            in.name = root;
            if (quantize >= 0) {
                Node qn = q.nodes[quantize];
                qn.name = names.make(root + "_isolated_quantize");
                in.name = names.make(root + "_isolated_float");
                qn.inputs[0] = in.name;
                qn.outputs = {root};
                for (size_t k = 1; k < qn.inputs.size(); ++k)
                    if (q.isInitializer(qn.inputs[k])) initializers.insert(qn.inputs[k]);
                rootQuantizers.push_back(qn);
                root = in.name;
            }
            g.inputs.push_back(in);  // no shape: the batch size follows the float model's
        }
        g.nodes.insert(g.nodes.begin(), rootQuantizers.begin(), rootQuantizers.end());
        for (const std::string &name : initializers) g.initializers[name] = q.initializers.at(name);
        for (const std::string &value : values) {
            auto known = q.valueInfo.find(value);
            if (known != q.valueInfo.end()) g.valueInfo[value] = known->second;
        }
        finishOutput(layer, match.quantOutput);
        layer.usable = true;
    }
    return layers;
}

std::optional<QuantizedFeed> feedQuantized(Graph &graph, const std::string &input) {
    int quantize = -1;
    for (size_t n = 0; n < graph.nodes.size(); ++n)
        for (const std::string &in : graph.nodes[n].inputs)
            if (in == input) {
                if (quantize >= 0 || in != graph.nodes[n].inputs[0]) return std::nullopt;
                quantize = static_cast<int>(n);
            }
    if (quantize < 0) return std::nullopt;
    const Node &node = graph.nodes[static_cast<size_t>(quantize)];
    if (!qdq::isOp(node, "QuantizeLinear") || node.outputs.size() != 1 || node.inputs.size() < 2)
        return std::nullopt;
    for (const ValueInfo &out : graph.outputs)
        if (out.name == node.outputs[0] || out.name == input) return std::nullopt;
    auto scale = graph.initializers.find(node.inputs[1]);
    if (scale == graph.initializers.end() || scale->second.numel() != 1 ||
        scale->second.dtype() != DataType::Float)
        return std::nullopt;
    QuantizedFeed feed;
    feed.input = node.outputs[0];
    feed.scale = scale->second.data<float>()[0];
    if (node.inputs.size() > 2 && !node.inputs[2].empty()) {
        auto zero = graph.initializers.find(node.inputs[2]);
        if (zero == graph.initializers.end() || zero->second.numel() != 1) return std::nullopt;
        feed.type = zero->second.dtype();
        if (feed.type != DataType::UInt8 && feed.type != DataType::Int8) return std::nullopt;
        feed.zeroPoint = static_cast<int32_t>(zero->second.valueAsDouble(0));
    }
    if (!(feed.scale > 0.0f) || !std::isfinite(feed.scale)) return std::nullopt;
    for (ValueInfo &in : graph.inputs)
        if (in.name == input) {
            in.name = node.outputs[0];
            in.dtype = feed.type;
        }
    graph.nodes.erase(graph.nodes.begin() + quantize);
    return feed;
}

}  // namespace ql::analysis

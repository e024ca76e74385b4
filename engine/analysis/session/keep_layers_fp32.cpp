#include "analysis/session/keep_layers_fp32.h"

#include <algorithm>
#include <set>

#include "passes/constant_folding.h"
#include "passes/qoperator_to_qdq.h"
#include "quant/quantization_plan.h"
#include "passes/fold_batchnorm.h"
#include "passes/qdq_graph_utils.h"

namespace ql::analysis {
namespace {

bool isQ(const Node &node) {
    return qdq::isOp(node, "QuantizeLinear");
}
bool isDQ(const Node &node) {
    return qdq::isOp(node, "DequantizeLinear");
}

int nodeIndex(const Graph &graph, const std::string &name) {
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        if (graph.nodes[i].name == name) return static_cast<int>(i);
    return -1;
}

bool isPassThrough(const Node &node) {
    return node.domain.empty() && (node.opType == "Identity" || node.opType == "Cast") &&
           node.inputs.size() == 1;
}

// Producer of `value` seen through Identity / Cast nodes (-1 for inputs and initializers).
int producerThrough(const Graph &graph, const std::string &value) {
    int p = graph.producerIndex(value);
    while (p >= 0 && isPassThrough(graph.nodes[p]))
        p = graph.producerIndex(graph.nodes[p].inputs[0]);
    return p;
}

// The float value behind DQ(Q(x)) feeding an activation input (Identity / Cast allowed around
// the DQ, as PyTorch exports put a Cast between Q and DQ), or "" when `value` is not such a pair
// (a dequantized constant, a plain float value).
std::string floatBeforeQdq(const Graph &graph, const std::string &value) {
    const int dq = producerThrough(graph, value);
    if (dq < 0 || !isDQ(graph.nodes[dq]) || graph.nodes[dq].inputs.empty()) return {};
    const int q = producerThrough(graph, graph.nodes[dq].inputs[0]);
    if (q < 0 || !isQ(graph.nodes[q]) || graph.nodes[q].inputs.empty()) return {};
    return graph.nodes[q].inputs[0];
}

// True when `value` is the output of an int8 layer that stays int8 (a compute node, not toggled,
// reading a dequantized activation), seen through the Relu / Clip of its unit: its quantizer
// belongs to that layer, and a toggled consumer reads its dequantized output as an fp32 node
// after an int8 one does.
bool fromInt8Layer(const Graph &graph, const std::string &value,
                   const std::set<std::string> &toggled) {
    int p = producerThrough(graph, value);
    while (p >= 0 && (graph.nodes[p].opType == "Relu" || graph.nodes[p].opType == "Clip") &&
           !toggled.count(graph.nodes[p].name)) {
        const int dq = producerThrough(graph, graph.nodes[p].inputs[0]);
        if (dq >= 0 && isDQ(graph.nodes[dq])) break;  // a Relu layer of its own
        p = dq;
    }
    if (p < 0 || toggled.count(graph.nodes[p].name) || !isComputeLayer(graph.nodes[p]))
        return false;
    for (const auto &in : graph.nodes[p].inputs) {
        if (in.empty() || graph.isInitializer(in)) continue;
        const int dq = producerThrough(graph, in);
        if (dq >= 0 && isDQ(graph.nodes[dq]) && !graph.isInitializer(graph.nodes[dq].inputs[0]))
            return true;
    }
    return false;
}

bool hasBatchNorm(const Graph &floatGraph, const LayerMatch &match) {
    for (const auto &name : match.foldedFloatNodes) {
        const Node *n = floatGraph.findNode(name);
        if (n && n->opType == "BatchNormalization") return true;
    }
    return false;
}

// Drops plumbing (Q/DQ, Cast, Identity, Constant, ...) whose outputs nobody reads any more, then
// initializers nobody reads.
void removeDeadQdq(Graph &graph) {
    for (bool changed = true; changed;) {
        changed = false;
        std::set<std::string> used;
        for (const auto &node : graph.nodes) used.insert(node.inputs.begin(), node.inputs.end());
        for (const auto &out : graph.outputs) used.insert(out.name);
        auto dead = [&](const Node &node) {
            if (isComputeLayer(node)) return false;
            return std::none_of(node.outputs.begin(), node.outputs.end(),
                                [&](const std::string &o) { return !o.empty() && used.count(o); });
        };
        const size_t before = graph.nodes.size();
        graph.nodes.erase(std::remove_if(graph.nodes.begin(), graph.nodes.end(), dead),
                          graph.nodes.end());
        changed = graph.nodes.size() != before;
    }
    graph.dropUnusedInitializers();
}

// A layer whose output reaches a graph output only through its own Q -> DQ (Cast / Identity
// allowed in the chain) writes that output itself once the chain is gone.
void dropOutputQdq(Graph &graph, const std::string &lastNode) {
    const int last = nodeIndex(graph, lastNode);
    if (last < 0 || graph.nodes[last].outputs.empty()) return;
    qdq::GraphIndex index(graph);
    std::string value = graph.nodes[last].outputs[0];
    std::vector<int> chain;
    int quantizers = 0, dequantizers = 0;
    while (!index.isGraphOutput(value)) {
        const auto &users = index.consumers(value);
        if (users.size() != 1) return;
        const Node &next = graph.nodes[users[0]];
        if (isQ(next))
            ++quantizers;
        else if (isDQ(next))
            ++dequantizers;
        else if (!isPassThrough(next))
            return;
        chain.push_back(users[0]);
        value = next.outputs[0];
    }
    if (quantizers != 1 || dequantizers != 1 || !index.consumers(value).empty()) return;
    if (isPassThrough(graph.nodes[chain.back()])) return;  // a Cast at the end: keep its type
    graph.nodes[last].outputs[0] = value;
    std::sort(chain.rbegin(), chain.rend());
    for (int i : chain) graph.nodes.erase(graph.nodes.begin() + i);
}

}  // namespace

Result<Fp32LayerConstants> fp32LayerConstants(const Graph &floatGraph) {
    // The producer of a folded BN keeps its name, so a folded match finds its folded weights
    // under the float node's name.
    Fp32LayerConstants constants;
    constants.plain = floatGraph;
    QL_RETURN_IF_ERROR(foldConstants(constants.plain));
    constants.folded = constants.plain;
    QL_RETURN_IF_ERROR(foldBatchNorms(constants.folded));
    return constants;
}

Status keepLayersFp32(Graph &quantGraph, const Graph &floatGraph,
                      const std::vector<LayerMatch> &layers) {
    if (layers.empty()) return Status::ok();
    auto constants = fp32LayerConstants(floatGraph);
    if (!constants) return constants.status();
    return keepLayersFp32(quantGraph, floatGraph, *constants, layers);
}

Status keepLayersFp32(Graph &quantGraph, const Graph &floatGraph,
                      const Fp32LayerConstants &constants, const std::vector<LayerMatch> &layers) {
    if (layers.empty()) return Status::ok();
    const Graph &floatPlain = constants.plain, &floatFolded = constants.folded;
    qdq::NameSource names(quantGraph);

    std::set<std::string> toggled;
    for (const LayerMatch &layer : layers) {
        toggled.insert(layer.quantNode);
        toggled.insert(layer.foldedQuantNodes.begin(), layer.foldedQuantNodes.end());
    }
    // Activation inputs an fp32 layer reads before their quantizer: those not produced by an int8
    // layer.
    auto unquantized = [&](const std::string &value) {
        const std::string x = value.empty() ? std::string() : floatBeforeQdq(quantGraph, value);
        return x.empty() || fromInt8Layer(quantGraph, x, toggled) ? value : x;
    };
    for (const LayerMatch &layer : layers) {
        const std::string what = "keep layer '" + layer.floatNode + "' in fp32";
        const bool folded = hasBatchNorm(floatGraph, layer);
        const Graph &source = folded ? floatFolded : floatPlain;
        const Node *fn = source.findNode(layer.floatNode);
        const int qi = nodeIndex(quantGraph, layer.quantNode);
        if (!fn || qi < 0) return Status::badInput(what + ": node not found");
        for (const auto &bn : layer.foldedFloatNodes)
            if (folded && floatFolded.findNode(bn) &&
                floatFolded.findNode(bn)->opType == "BatchNormalization")
                return Status::badInput(what + ": its BatchNormalization '" + bn +
                                        "' cannot be folded");
        Node &qn = quantGraph.nodes[qi];
        if (qn.opType != fn->opType)
            return Status::badInput(what + ": the quantized node '" + qn.name + "' is " +
                                    qn.opType + ", the float one " + fn->opType);
        const size_t count = std::max(qn.inputs.size(), fn->inputs.size());
        std::vector<std::string> inputs(count);
        for (size_t i = 0; i < count; ++i) {
            if (fn->hasInput(i) && source.isInitializer(fn->inputs[i])) {
                const std::string name = names.make(qn.name + "_fp32_input" + std::to_string(i));
                // Shared, not copied: initializers are never written in place.
                quantGraph.initializers[name] = source.initializers.at(fn->inputs[i]);
                inputs[i] = name;
                continue;
            }
            if (!qn.hasInput(i)) {
                if (fn->hasInput(i))
                    return Status::badInput(what + ": input " + std::to_string(i) +
                                            " has no counterpart");
                continue;
            }
            inputs[i] = unquantized(qn.inputs[i]);
        }
        while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
        qn.inputs = inputs;
        // The Relu / Clip of the unit reads its input unquantized too.
        for (const auto &name : layer.foldedQuantNodes) {
            const int fi = nodeIndex(quantGraph, name);
            if (fi < 0) continue;
            for (auto &in : quantGraph.nodes[fi].inputs) in = unquantized(in);
        }
    }
    removeDeadQdq(quantGraph);
    for (const LayerMatch &layer : layers)
        dropOutputQdq(quantGraph, layer.foldedQuantNodes.empty() ? layer.quantNode
                                                                 : layer.foldedQuantNodes.back());
    removeDeadQdq(quantGraph);
    return Status::ok();
}

Result<std::vector<LayerMatch>> matchesOfLayers(const LayerMatching &matching,
                                                const Graph &floatGraph,
                                                const std::set<std::string> &layers) {
    const std::vector<std::string> names(layers.begin(), layers.end());
    QL_RETURN_IF_ERROR(quant::validateExcludedNodes(floatGraph, names));
    std::vector<LayerMatch> matches;
    for (const std::string &name : names) {
        auto it = std::find_if(matching.matches.begin(), matching.matches.end(), [&](const LayerMatch &m) {
            return m.floatNode == name || std::count(m.foldedFloatNodes.begin(), m.foldedFloatNodes.end(), name);
        });
        if (it == matching.matches.end()) {
            const Node *node = floatGraph.findNode(name);
            return Status::badInput("keep in fp32: " + node->describe() +
                                    " has no counterpart in the quantized model");
        }
        const bool listed = std::any_of(matches.begin(), matches.end(),
                                        [&](const LayerMatch &m) { return m.floatNode == it->floatNode; });
        if (!listed) matches.push_back(*it);
    }
    return matches;
}

Result<Graph> quantModelWithFp32Layers(const Graph &floatGraph, const Graph &quantGraph,
                                       const std::set<std::string> &layers) {
    Graph qdq = quantGraph;
    if (hasQOperators(qdq)) QL_RETURN_IF_ERROR(expandQOperatorsToQdq(qdq));
    auto matching = matchLayers(floatGraph, qdq);
    if (!matching) return matching.status();
    auto matches = matchesOfLayers(*matching, floatGraph, layers);
    if (!matches) return matches.status();
    QL_RETURN_IF_ERROR(keepLayersFp32(qdq, floatGraph, *matches));
    return qdq;
}

}  // namespace ql::analysis

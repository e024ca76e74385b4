#include "passes/fuse_layer_norm.h"

#include <map>
#include <optional>
#include <vector>

#include "passes/fusion_matching.h"
#include "passes/qdq_graph_utils.h"

namespace ql {

namespace {

int64_t opsetOf(const Graph &graph, const Node &node) {
    auto it = graph.domainOpsets.find(node.domain);
    return it != graph.domainOpsets.end() ? it->second : graph.opsetVersion;
}

// ReduceMean over the last axis only, keeping it (axes as attribute, or as a constant input
// from opset 18).
bool meanOverLastAxis(const Graph &graph, const Node &node) {
    if (node.attrInt("keepdims", 1) != 1) return false;
    std::vector<int64_t> axes;
    if (opsetOf(graph, node) >= 18) {
        const Tensor *t = node.hasInput(1) ? graph.initializer(node.inputs[1]) : nullptr;
        if (!t || t->dtype() != DataType::Int64) return false;
        axes.assign(t->data<int64_t>(), t->data<int64_t>() + t->numel());
    } else {
        axes = node.attrInts("axes");
    }
    if (axes.size() != 1) return false;
    if (axes[0] == -1) return true;
    auto info = graph.valueInfo.find(node.inputs[0]);
    return info != graph.valueInfo.end() && info->second.hasShape &&
           axes[0] == int64_t(info->second.shape.size()) - 1;
}

bool vectorConstant(const Graph &graph, const std::string &value) {
    const Tensor *t = graph.initializer(value);
    return t && t->dtype() == DataType::Float && t->rank() == 1;
}

struct Match {
    std::vector<size_t> chain;  // the nine nodes, the last one last
    std::string x, gamma, beta, y;
    float epsilon = 0.0f;
};

std::optional<Match> matchAt(const Graph &graph, const ChainWalker &walk, size_t first) {
    const Node &mean = graph.nodes[first];
    if (mean.opType != "ReduceMean" || !mean.domain.empty() || !meanOverLastAxis(graph, mean))
        return std::nullopt;
    Match m;
    m.x = mean.inputs[0];
    const auto sub = walk.onlyReader(mean.outputs[0], "Sub");
    if (!sub || graph.nodes[*sub].inputs != std::vector<std::string>{m.x, mean.outputs[0]})
        return std::nullopt;
    const std::string &d = graph.nodes[*sub].outputs[0];
    // d is read by the Pow and by the Div, nothing else.
    const std::vector<size_t> &readsD = walk.readers(d);
    if (readsD.size() != 2 || !walk.hidden(d)) return std::nullopt;
    std::optional<size_t> pow, div;
    for (size_t r : readsD) {
        const Node &n = graph.nodes[r];
        if (n.opType == "Pow" && n.inputs.size() == 2 && n.inputs[0] == d) pow = r;
        if (n.opType == "Div" && n.inputs.size() == 2 && n.inputs[0] == d) div = r;
    }
    float exponent = 0.0f;
    if (!pow || !div || !scalarConstant(graph, graph.nodes[*pow].inputs[1], exponent) ||
        exponent != 2.0f)
        return std::nullopt;
    const auto variance = walk.onlyReader(graph.nodes[*pow].outputs[0], "ReduceMean");
    if (!variance || !meanOverLastAxis(graph, graph.nodes[*variance])) return std::nullopt;
    const auto addEps = walk.onlyReader(graph.nodes[*variance].outputs[0], "Add");
    if (!addEps) return std::nullopt;
    const auto eps = otherOperand(graph.nodes[*addEps], graph.nodes[*variance].outputs[0]);
    if (!eps || !scalarConstant(graph, *eps, m.epsilon) || !(m.epsilon >= 0.0f))
        return std::nullopt;
    const auto sqrt = walk.onlyReader(graph.nodes[*addEps].outputs[0], "Sqrt");
    if (!sqrt || walk.readers(graph.nodes[*sqrt].outputs[0]) != std::vector<size_t>{*div} ||
        graph.nodes[*div].inputs[1] != graph.nodes[*sqrt].outputs[0] ||
        !walk.hidden(graph.nodes[*sqrt].outputs[0]))
        return std::nullopt;
    const auto scale = walk.onlyReader(graph.nodes[*div].outputs[0], "Mul");
    if (!scale) return std::nullopt;
    const auto gamma = otherOperand(graph.nodes[*scale], graph.nodes[*div].outputs[0]);
    if (!gamma || !vectorConstant(graph, *gamma)) return std::nullopt;
    const auto shift = walk.onlyReader(graph.nodes[*scale].outputs[0], "Add");
    if (!shift) return std::nullopt;
    const auto beta = otherOperand(graph.nodes[*shift], graph.nodes[*scale].outputs[0]);
    if (!beta || !vectorConstant(graph, *beta) ||
        graph.initializer(*beta)->numel() != graph.initializer(*gamma)->numel())
        return std::nullopt;
    m.gamma = *gamma;
    m.beta = *beta;
    m.y = graph.nodes[*shift].outputs[0];
    m.chain = {first, *sub, *pow, *variance, *addEps, *sqrt, *div, *scale, *shift};
    return m;
}

// The chains this fusion replaces, each with its fused node.
ChainMatcher matcher(const Graph &graph, const ChainWalker &walk) {
    return [&graph, &walk](size_t first) -> std::optional<FusedChain> {
        const std::optional<Match> m = matchAt(graph, walk, first);
        if (!m) return std::nullopt;
        FusedChain chain{m->chain, {}};
        chain.fused.opType = "LayerNormalization";
        chain.fused.inputs = {m->x, m->gamma, m->beta};
        chain.fused.outputs = {m->y};
        chain.fused.attributes["axis"] = qdq::intAttribute(-1);
        chain.fused.attributes["epsilon"] = qdq::floatAttribute(m->epsilon);
        return chain;
    };
}

}  // namespace

int fuseLayerNorms(Graph &graph, const std::set<std::string> &keepVisible) {
    const ChainWalker walk(graph, keepVisible);
    return fuseChains(graph, matcher(graph, walk));
}

std::vector<std::vector<size_t>> decomposedLayerNorms(const Graph &graph) {
    const std::set<std::string> nothingVisible;
    const ChainWalker walk(graph, nothingVisible);
    return chainNodes(findChains(graph, matcher(graph, walk)));
}

}  // namespace ql

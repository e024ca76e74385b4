#include "passes/fuse_gelu.h"

#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include "passes/fusion_matching.h"

namespace ql {

namespace {

bool near(float value, double want) {
    return std::abs(double(value) - want) <= 1e-6 * want;
}

// The constant operand of a binary node whose other operand is `value`, and its value.
bool constantOperand(const Graph &graph, const Node &node, const std::string &value, float &out) {
    const auto other = otherOperand(node, value);
    return other && scalarConstant(graph, *other, out);
}

struct Match {
    std::vector<size_t> chain;  // the five nodes, the last one last
    std::string x, y;
};

std::optional<Match> matchAt(const Graph &graph, const ChainWalker &walk, size_t first) {
    const Node &scale = graph.nodes[first];
    float c = 0.0f;
    if (!scale.domain.empty() || scale.inputs.size() != 2 || scale.outputs.size() != 1)
        return std::nullopt;
    Match m;
    m.x = scale.inputs[0];
    if (scale.opType == "Div") {
        if (!scalarConstant(graph, scale.inputs[1], c) || !near(c, std::sqrt(2.0)))
            return std::nullopt;
    } else if (scale.opType == "Mul") {
        if (scalarConstant(graph, scale.inputs[0], c)) m.x = scale.inputs[1];
        else if (!scalarConstant(graph, scale.inputs[1], c)) return std::nullopt;
        if (!near(c, std::sqrt(0.5))) return std::nullopt;
    } else {
        return std::nullopt;
    }
    const auto erf = walk.onlyReader(scale.outputs[0], "Erf");
    if (!erf) return std::nullopt;
    const std::string &e = graph.nodes[*erf].outputs[0];
    const auto plusOne = walk.onlyReader(e, "Add");
    if (!plusOne || !constantOperand(graph, graph.nodes[*plusOne], e, c) || c != 1.0f)
        return std::nullopt;
    const std::string &a = graph.nodes[*plusOne].outputs[0];
    const auto timesX = walk.onlyReader(a, "Mul");
    if (!timesX || otherOperand(graph.nodes[*timesX], a) != m.x) return std::nullopt;
    const std::string &p = graph.nodes[*timesX].outputs[0];
    const auto half = walk.onlyReader(p, "Mul");
    if (!half || !constantOperand(graph, graph.nodes[*half], p, c) || c != 0.5f)
        return std::nullopt;
    m.y = graph.nodes[*half].outputs[0];
    m.chain = {first, *erf, *plusOne, *timesX, *half};
    return m;
}

// The chains this fusion replaces, each with its fused node.
ChainMatcher matcher(const Graph &graph, const ChainWalker &walk) {
    return [&graph, &walk](size_t first) -> std::optional<FusedChain> {
        const std::optional<Match> m = matchAt(graph, walk, first);
        if (!m) return std::nullopt;
        FusedChain chain{m->chain, {}};
        chain.fused.opType = "Gelu";
        chain.fused.inputs = {m->x};
        chain.fused.outputs = {m->y};
        return chain;
    };
}

}  // namespace

int fuseGelus(Graph &graph, const std::set<std::string> &keepVisible) {
    const ChainWalker walk(graph, keepVisible);
    return fuseChains(graph, matcher(graph, walk));
}

std::vector<std::vector<size_t>> decomposedGelus(const Graph &graph) {
    const std::set<std::string> nothingVisible;
    const ChainWalker walk(graph, nothingVisible);
    return chainNodes(findChains(graph, matcher(graph, walk)));
}

}  // namespace ql

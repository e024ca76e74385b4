#include "passes/strip_qdq.h"

#include <set>

#include "passes/qdq_graph_utils.h"
#include "passes/topological_sort.h"

namespace ql {

namespace {

// DequantizeLinear of a constant becomes the float initializer it computes; marks those nodes.
int dequantizeConstants(Graph &graph, const qdq::GraphIndex &index, std::vector<bool> &removed) {
    int folded = 0;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node &dq = graph.nodes[i];
        if (!qdq::isOp(dq, "DequantizeLinear") || dq.outputs.empty()) continue;
        const Tensor *q = graph.initializer(dq.inputs[0]);
        qdq::QParamsView params;
        if (!q || graph.isGraphOutput(dq.outputs[0]) || !qdq::readQParams(graph, index, dq, params))
            continue;
        graph.initializers[dq.outputs[0]] = qdq::dequantize(*q, params);
        removed[i] = true;
        ++folded;
    }
    return folded;
}

}  // namespace

int foldConstantDequantize(Graph &graph) {
    std::vector<bool> removed(graph.nodes.size(), false);
    const int folded = dequantizeConstants(graph, qdq::GraphIndex(graph), removed);
    std::vector<Node> nodes;
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        if (!removed[i]) nodes.push_back(std::move(graph.nodes[i]));
    graph.nodes = std::move(nodes);
    graph.dropUnusedInitializers();
    return folded;
}

Status stripQdq(Graph &graph, StripReport *report) {
    StripReport local;
    const qdq::GraphIndex index(graph);
    std::vector<bool> removed(graph.nodes.size(), false);
    std::vector<Node> extra;
    local.dequantizedWeights = dequantizeConstants(graph, index, removed);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node dq = graph.nodes[i];
        if (removed[i] || !qdq::isOp(dq, "DequantizeLinear") || dq.outputs.empty()) continue;
        const std::string &x = dq.inputs[0], &y = dq.outputs[0];
        const int p = index.producer(x);
        if (p < 0 || !qdq::isOp(graph.nodes[p], "QuantizeLinear")) continue;
        qdq::replaceUses(graph, y, graph.nodes[p].inputs[0], extra);
        removed[i] = true;
        ++local.removedPairs;
    }
    std::vector<Node> nodes;
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        if (!removed[i]) nodes.push_back(std::move(graph.nodes[i]));
    nodes.insert(nodes.end(), extra.begin(), extra.end());
    // QuantizeLinear nodes nobody reads any more.
    std::set<std::string> read;
    for (const Node &n : nodes) read.insert(n.inputs.begin(), n.inputs.end());
    graph.nodes.clear();
    for (Node &n : nodes) {
        if (qdq::isOp(n, "QuantizeLinear") && !read.count(n.outputs[0]) &&
            !graph.isGraphOutput(n.outputs[0]))
            continue;
        graph.nodes.push_back(std::move(n));
    }
    graph.dropUnusedInitializers();
    if (report) *report = local;
    return sortTopologically(graph);
}

}  // namespace ql

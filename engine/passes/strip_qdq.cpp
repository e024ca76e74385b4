#include "passes/strip_qdq.h"

#include <set>

#include "passes/qdq_graph_utils.h"
#include "passes/topological_sort.h"

namespace ql {

Status stripQdq(Graph &graph, StripReport *report) {
    StripReport local;
    const qdq::GraphIndex index(graph);
    std::vector<bool> removed(graph.nodes.size(), false);
    std::vector<Node> extra;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node dq = graph.nodes[i];
        if (!qdq::isOp(dq, "DequantizeLinear") || dq.outputs.empty()) continue;
        const std::string &x = dq.inputs[0], &y = dq.outputs[0];
        if (const Tensor *q = graph.initializer(x)) {
            qdq::QParamsView params;
            if (graph.isGraphOutput(y) || !qdq::readQParams(graph, index, dq, params)) continue;
            graph.initializers[y] = qdq::dequantize(*q, params);
            removed[i] = true;
            ++local.dequantizedWeights;
            continue;
        }
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
        if (qdq::isOp(n, "QuantizeLinear") && !read.count(n.outputs[0]) && !graph.isGraphOutput(n.outputs[0]))
            continue;
        graph.nodes.push_back(std::move(n));
    }
    read.clear();
    for (const Node &n : graph.nodes) read.insert(n.inputs.begin(), n.inputs.end());
    for (const ValueInfo &out : graph.outputs) read.insert(out.name);
    for (auto it = graph.initializers.begin(); it != graph.initializers.end();)
        it = read.count(it->first) ? std::next(it) : graph.initializers.erase(it);
    if (report) *report = local;
    return sortTopologically(graph);
}

}  // namespace ql

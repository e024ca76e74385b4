#include "analysis/session/layer_changes.h"

namespace ql::analysis {

bool sameMatch(const LayerMatch &a, const LayerMatch &b) {
    return a.floatNode == b.floatNode && a.quantNode == b.quantNode &&
           a.floatOutput == b.floatOutput && a.quantOutput == b.quantOutput &&
           a.foldedFloatNodes == b.foldedFloatNodes && a.foldedQuantNodes == b.foldedQuantNodes;
}

bool plumbingChanged(const Graph &graph, const std::vector<bool> &changed, const std::string &value,
                     int depth) {
    const int p = graph.producerIndex(value);
    if (p < 0 || depth > 8) return false;
    if (changed[p]) return true;
    if (isComputeLayer(graph.nodes[p])) return false;
    for (const auto &in : graph.nodes[p].inputs)
        if (!in.empty() && plumbingChanged(graph, changed, in, depth + 1)) return true;
    return false;
}

namespace {

int nodeIndex(const Graph &graph, const std::string &name) {
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        if (graph.nodes[i].name == name) return static_cast<int>(i);
    return -1;
}

void collectProducers(const Graph &graph, const std::string &value, int depth,
                      std::set<std::string> &out) {
    const int p = graph.producerIndex(value);
    if (p < 0 || depth > 8) return;
    if (isComputeLayer(graph.nodes[p])) {
        out.insert(graph.nodes[p].name);
        return;
    }
    for (const auto &in : graph.nodes[p].inputs)
        if (!in.empty()) collectProducers(graph, in, depth + 1, out);
}

}  // namespace

bool unitChanged(const Graph &graph, const std::vector<bool> &changed, const LayerMatch &match) {
    std::vector<std::string> unit = match.foldedQuantNodes;
    unit.push_back(match.quantNode);
    for (const auto &name : unit) {
        const int i = nodeIndex(graph, name);
        if (i < 0 || changed[i]) return true;
        for (const auto &in : graph.nodes[i].inputs)
            if (!in.empty() && plumbingChanged(graph, changed, in)) return true;
    }
    return false;
}

std::set<std::string> inputProducers(const Graph &graph, const LayerMatch &match) {
    std::vector<std::string> unit = match.foldedQuantNodes;
    unit.push_back(match.quantNode);
    std::set<std::string> out;
    for (const auto &name : unit)
        if (const Node *n = graph.findNode(name))
            for (const auto &in : n->inputs)
                if (!in.empty()) collectProducers(graph, in, 0, out);
    return out;
}

}  // namespace ql::analysis

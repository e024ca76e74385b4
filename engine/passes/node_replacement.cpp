#include "passes/node_replacement.h"

namespace ql {

void replaceNodes(Graph &graph, const std::vector<bool> &removed, std::map<size_t, Node> replacements) {
    std::vector<Node> kept;
    kept.reserve(graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        auto it = replacements.find(i);
        if (it != replacements.end())
            kept.push_back(std::move(it->second));
        else if (!removed[i])
            kept.push_back(std::move(graph.nodes[i]));
    }
    graph.nodes = std::move(kept);
}

}  // namespace ql

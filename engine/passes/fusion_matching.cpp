#include "passes/fusion_matching.h"

#include <algorithm>

#include "passes/node_replacement.h"

namespace ql {

ChainWalker::ChainWalker(const Graph &graph, const std::set<std::string> &keepVisible)
    : m_graph(graph), m_keepVisible(keepVisible) {
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        for (const std::string &in : graph.nodes[i].inputs)
            if (!in.empty()) m_readers[in].push_back(i);
}

std::optional<size_t> ChainWalker::onlyReader(const std::string &value, const char *op) const {
    auto it = m_readers.find(value);
    if (it == m_readers.end() || it->second.size() != 1 || !hidden(value)) return std::nullopt;
    const Node &n = m_graph.nodes[it->second[0]];
    if (n.opType != op || !n.domain.empty() || n.outputs.size() != 1) return std::nullopt;
    return it->second[0];
}

const std::vector<size_t> &ChainWalker::readers(const std::string &value) const {
    static const std::vector<size_t> none;
    auto it = m_readers.find(value);
    return it == m_readers.end() ? none : it->second;
}

bool ChainWalker::hidden(const std::string &value) const {
    return !m_graph.isGraphOutput(value) && !m_keepVisible.count(value);
}

std::optional<std::string> otherOperand(const Node &node, const std::string &value) {
    if (node.inputs.size() != 2) return std::nullopt;
    if (node.inputs[0] == value) return node.inputs[1];
    if (node.inputs[1] == value) return node.inputs[0];
    return std::nullopt;
}

bool scalarConstant(const Graph &graph, const std::string &value, float &out) {
    const Tensor *t = graph.initializer(value);
    if (!t || t->dtype() != DataType::Float || t->numel() != 1) return false;
    out = t->data<float>()[0];
    return true;
}

std::vector<FusedChain> findChains(const Graph &graph, const ChainMatcher &match) {
    std::vector<bool> taken(graph.nodes.size(), false);
    std::vector<FusedChain> chains;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        if (taken[i]) continue;
        std::optional<FusedChain> chain = match(i);
        if (!chain || chain->nodes.empty() ||
            std::any_of(chain->nodes.begin(), chain->nodes.end(), [&](size_t n) { return taken[n]; }))
            continue;
        chain->fused.name = graph.nodes[chain->nodes.back()].name;
        for (size_t n : chain->nodes) taken[n] = true;
        chains.push_back(std::move(*chain));
    }
    return chains;
}

int fuseChains(Graph &graph, const ChainMatcher &match) {
    std::vector<FusedChain> chains = findChains(graph, match);
    std::vector<bool> removed(graph.nodes.size(), false);
    std::map<size_t, Node> replacements;  // position of a chain's last node -> the fused node
    for (FusedChain &chain : chains) {
        for (size_t n : chain.nodes) removed[n] = true;
        replacements[*std::max_element(chain.nodes.begin(), chain.nodes.end())] =
            std::move(chain.fused);
    }
    const int fused = static_cast<int>(replacements.size());
    replaceNodes(graph, removed, std::move(replacements));
    return fused;
}

std::vector<std::vector<size_t>> chainNodes(const std::vector<FusedChain> &chains) {
    std::vector<std::vector<size_t>> nodes;
    for (const FusedChain &chain : chains) nodes.push_back(chain.nodes);
    return nodes;
}

}  // namespace ql

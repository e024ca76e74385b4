#include "passes/fusion_matching.h"

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

}  // namespace ql

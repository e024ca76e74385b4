#pragma once
// What the fusion passes (fuse_layer_norm.h, fuse_gelu.h, fuse_matmul_integer.h) share to match
// a chain of nodes: who reads each value, and small constant checks.

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace ql {

// The graph's nodes with who reads each value, for walking a chain forward.
class ChainWalker {
public:
    ChainWalker(const Graph &graph, const std::set<std::string> &keepVisible);
    // The one node reading `value` when it has op type `op` in the default domain, one output,
    // and the value is hidden.
    std::optional<size_t> onlyReader(const std::string &value, const char *op) const;
    const std::vector<size_t> &readers(const std::string &value) const;
    // Not a graph output and not in keepVisible: a fusion may make it disappear.
    bool hidden(const std::string &value) const;

private:
    const Graph &m_graph;
    const std::set<std::string> &m_keepVisible;
    std::map<std::string, std::vector<size_t>> m_readers;
};

// The operand of a binary node that is not `value`, when `value` is one of the two.
std::optional<std::string> otherOperand(const Node &node, const std::string &value);
// A float constant of one element, and its value.
bool scalarConstant(const Graph &graph, const std::string &value, float &out);

// A chain of nodes a fusion replaces by one node, which takes the name of the last node listed
// and the place of the chain's last node in execution order.
struct FusedChain {
    std::vector<size_t> nodes;
    Node fused;
};
// Tries a chain starting at node `first`; nullopt when none starts there.
using ChainMatcher = std::function<std::optional<FusedChain>(size_t first)>;
// The chains `match` finds at the nodes in order, none sharing a node with an earlier one; each
// fused node is named after its chain's last node. The graph is not changed.
std::vector<FusedChain> findChains(const Graph &graph, const ChainMatcher &match);
// The same chains, then the graph rewritten (node order stays topological); returns how many
// chains were fused.
int fuseChains(Graph &graph, const ChainMatcher &match);
// The node indices of each chain found, for callers that only need to know where they are.
std::vector<std::vector<size_t>> chainNodes(const std::vector<FusedChain> &chains);

}  // namespace ql

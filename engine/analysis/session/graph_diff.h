#pragma once
// Which nodes of a rewritten graph differ from the graph before the rewrite, and which values
// therefore differ: what an incremental re-run (analysis_session.h) must recompute. Nodes are
// paired by name; a node is unchanged when its op, attributes, input and output names and the
// contents of its constant inputs are equal.

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace ql::analysis {

bool sameTensor(const Tensor &a, const Tensor &b);

// Per node of `after`: true when it has no unchanged counterpart in `before`.
std::vector<bool> changedNodes(const Graph &before, const Graph &after);

// `changed` plus every node that reads, directly or not, a value a changed node produces
// (`after` topologically sorted).
std::vector<bool> downstreamOf(const Graph &after, std::vector<bool> changed);

// The nodes flagged in `keep` as a graph of their own: its inputs are the non-constant values
// they read from elsewhere (dtype from `inputTypes`, shape unknown), its outputs the values they
// produce that `after`'s outputs list, in `after`'s order, or are read by no kept node.
struct Subgraph {
    Graph graph;
    std::vector<std::string> inputs;  // values to feed
};
Subgraph extractSubgraph(const Graph &after, const std::vector<bool> &keep,
                         const std::function<DataType(const std::string &)> &inputTypes);

}  // namespace ql::analysis

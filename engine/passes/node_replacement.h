#pragma once
// The last step of a fusion pass: the node at each position in `replacements` gives way to its
// replacement, the nodes marked in `removed` go, the others keep their (topological) order.

#include <map>
#include <vector>

#include "ir/graph.h"

namespace ql {

void replaceNodes(Graph &graph, const std::vector<bool> &removed, std::map<size_t, Node> replacements);

}  // namespace ql

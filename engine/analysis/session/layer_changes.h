#pragma once
// Which figures of a matched layer a rewrite of the quantized model touches: the helpers behind
// the incremental suite's choice of what to re-run (incremental_suite.h). `changed` flags the
// nodes of `graph` (the rewritten quantized model) that differ from a known model
// (graph_diff.h changedNodes).

#include <set>
#include <string>
#include <vector>

#include "analysis/pairing/layer_matching.h"
#include "ir/graph.h"

namespace ql::analysis {

bool sameMatch(const LayerMatch &a, const LayerMatch &b);

// A changed node on the plumbing (Q/DQ, Cast, Identity, constants) behind `value`, up to and
// including the first compute node: a new quantizer or weight of a layer.
bool plumbingChanged(const Graph &graph, const std::vector<bool> &changed, const std::string &value,
                     int depth = 0);

// The layer's quantized nodes, or a weight / quantizer behind their inputs, changed.
bool unitChanged(const Graph &graph, const std::vector<bool> &changed, const LayerMatch &match);

// The compute nodes whose outputs reach the layer's quantized nodes through plumbing only.
std::set<std::string> inputProducers(const Graph &graph, const LayerMatch &match);

}  // namespace ql::analysis

#pragma once
// Opt-in fusion for inference speed: LayerNorm as exporters write it before opset 17,
//   m = ReduceMean(x, axes=[-1]); d = x - m; v = ReduceMean(Pow(d, 2), axes=[-1]);
//   y = d / Sqrt(v + eps) * gamma + beta
// (nine nodes, each a pass over memory), becomes one LayerNormalization node (axis -1, epsilon
// eps) that keeps the name of the chain's last node and its output. Only float chains whose
// gamma and beta are 1-D constants are fused; values that are graph outputs, in `keepVisible`
// or read outside the chain stay as they are. A Q/DQ pair inside the chain (an int8 model's
// quantized affine step) keeps it unfused.

#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace ql {

// Rewrites the graph in place (node order stays topological); returns how many were fused.
int fuseLayerNorms(Graph &graph, const std::set<std::string> &keepVisible = {});
// The chains fuseLayerNorms would fuse, each as its nodes' indices (the last node last); the
// graph is not changed.
std::vector<std::vector<size_t>> decomposedLayerNorms(const Graph &graph);

}  // namespace ql

#pragma once
// Opt-in fusion for inference speed: GELU as torch.onnx.export writes it before opset 20,
//   y = x * (Erf(x / sqrt(2)) + 1) * 0.5     (Div or Mul by 1/sqrt(2); operands in either order)
// (five nodes, each a pass over memory), becomes one Gelu node (ONNX opset 20's, run by
// oneDNN's erf GELU) that keeps the name of the chain's last node and its output. Values that
// are graph outputs, in `keepVisible` or read outside the chain stay as they are.

#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace ql {

// Rewrites the graph in place (node order stays topological); returns how many were fused.
int fuseGelus(Graph &graph, const std::set<std::string> &keepVisible = {});
// The chains fuseGelus would fuse, each as its nodes' indices (the last node last); the graph is
// not changed.
std::vector<std::vector<size_t>> decomposedGelus(const Graph &graph);

}  // namespace ql

#pragma once
// Opt-in fusion for inference speed: the dequantizing tail ONNX Runtime's quantize_dynamic
// writes after each MatMulInteger,
//   acc = MatMulInteger(a, b, a_zp, b_zp); y = Cast(acc, float) * Mul(a_scale, b_scale) [+ bias]
// (three or four passes over the output), becomes one com.microsoft MatMulIntegerToFloat node
// (a, b, a_scale, b_scale, a_zp, b_zp, bias), as ONNX Runtime fuses it. The node keeps the name
// of the chain's last node and its output. Fused only when b_scale is a float constant (scalar,
// or one value per column of a constant 2-D b), the bias a float constant with one value per
// column, and the intermediate values are read by nothing else, are no graph outputs and are
// not in `keepVisible`.

#include <set>
#include <string>

#include "ir/graph.h"

namespace ql {

// Rewrites the graph in place (node order stays topological); returns how many were fused.
int fuseMatMulIntegerToFloat(Graph &graph, const std::set<std::string> &keepVisible = {});

}  // namespace ql

#pragma once
// How the int8 matrix kernels (QLinearConv, QLinearMatMul, com.microsoft QGemm) multiply on
// CPUs without VNNI, where oneDNN's u8 x s8 instruction (vpmaddubsw) sums pairs of products
// into a saturating int16:
//   Exact - exact integer arithmetic (the kernels split weights where a pair could saturate);
//           what the accuracy analysis needs. The default.
//   Fast  - one oneDNN primitive per node, which may saturate like ONNX Runtime and PyTorch's
//           onednn backend on such CPUs. Identical to Exact on CPUs with VNNI.

#include <string>

#include "ir/graph.h"

namespace ql {

enum class Int8Kernels { Exact, Fast };

const char *int8KernelsName(Int8Kernels mode);  // "exact", "fast"
bool parseInt8Kernels(const std::string &text, Int8Kernels &out);

// Sets (Fast) or clears (Exact) the `ql_allow_saturation` attribute on every QLinearConv,
// QLinearMatMul and QGemm node; run it after the int8 lowering. Returns how many nodes it marked.
int applyInt8Kernels(Graph &graph, Int8Kernels mode);

}  // namespace ql

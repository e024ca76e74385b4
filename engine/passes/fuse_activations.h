#pragma once
// Opt-in operator fusion for inference speed: a Conv followed by an activation chain
// (Relu, LeakyRelu, Clip, HardSigmoid, HardSwish, Sigmoid, and the gated forms x * Sigmoid(x)
// and x * HardSigmoid(x) that exporters emit for SiLU / HardSwish) and at most one same-shape
// residual Add becomes one Conv node that the Conv kernel runs as oneDNN post-ops. The fused node
// keeps the Conv's name and takes the name of the chain's last output; intermediate values vanish.

#include <set>
#include <string>

#include "core/status.h"
#include "ir/graph.h"

namespace ql {

// Internal attributes of a fused Conv (underscore: never present in ONNX files).
namespace fused {
// Strings: op types in order, e.g. Add, Relu; "Swish" stands for x * Sigmoid(x).
inline constexpr const char *kOps = "_fused_ops";
inline constexpr const char *kAlphas = "_fused_alphas";  // Floats: first parameter per op
inline constexpr const char *kBetas = "_fused_betas";    // Floats: second parameter per op
inline constexpr const char *kSumInPlace =
    "_fused_sum_in_place";                   // Int: residual may be overwritten
inline constexpr size_t kResidualInput = 3;  // the Add's other operand becomes Conv input 3
}  // namespace fused

struct FusionReport {
    int fusedActivations = 0;
    int fusedAdds = 0;
};

// Rewrites the graph in place; keeps node order valid (the fused node takes the position of
// the chain's last node). Values that are graph outputs, in `keepVisible` (values a caller taps)
// or have several consumers stay unfused.
Status fuseForInference(Graph &graph, FusionReport *report = nullptr,
                        const std::set<std::string> &keepVisible = {});

}  // namespace ql

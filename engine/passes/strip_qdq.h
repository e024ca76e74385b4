#pragma once
// fp32 precision of a quantized model: QuantizeLinear -> DequantizeLinear pairs on activations
// disappear (the float value flows on) and DequantizeLinear of constant weights becomes a float
// initializer, so the model runs in float (with the dequantized weights: the quantized model has no others).
// Run passes/qoperator_to_qdq.h first so QOperator nodes are Q/DQ too.

#include "core/status.h"
#include "ir/graph.h"

namespace ql {

struct StripReport {
    int removedPairs = 0;        // Q -> DQ pairs on activations
    int dequantizedWeights = 0;  // DQ(constant) turned into float initializers
};

Status stripQdq(Graph &graph, StripReport *report = nullptr);

// Only the DequantizeLinear nodes of constants, each replaced by the float initializer it
// computes (the same arithmetic, done once): what the reference precision runs, so its float
// kernels see constant weights. Returns how many were folded.
int foldConstantDequantize(Graph &graph);

}  // namespace ql

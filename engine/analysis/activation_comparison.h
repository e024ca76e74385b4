#pragma once
// Cumulative activation comparison: the float model and the quantized model run end to end on the
// same inputs, batch by batch; each matched layer's float output is compared with the quantized
// model's dequantized value for that layer, and the final outputs with each other (SQNR, top-1
// agreement of the argmax over the last dimension).
//
// Streaming: per batch the float plan runs with a tap that copies only the matched float values of
// that batch; then the quantized plan runs with a tap that compares against those copies, which
// are dropped before the next batch. Memory does not grow with the number of samples.
//
// Under Precision::Int8 the lowering rewrites DQ -> op -> Q into QOperator nodes, so the loaded
// graph's DequantizeLinear value may be gone; the quantized tensor behind it (the QuantizeLinear
// output, through Identity/Cast) usually survives and is dequantized here with the scale / zero
// point of the loaded graph. A match whose quantized value exists in neither form in the plan
// (e.g. a Conv output fused with its Relu into one QLinearConv) is reported with observed = false.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "analysis/comparison_metrics.h"
#include "analysis/layer_matching.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "passes/precision.h"

namespace ql::analysis {

// Fills `batch` (input name -> tensor) and returns true, or returns false when there is no more.
using ActivationBatchSource = std::function<Result<bool>(std::map<std::string, Tensor> &batch)>;

struct ActivationComparisonOptions {
    Precision precision = Precision::Int8;  // how the quantized model runs (Int8 or Reference)
    int threads = 0;                        // plan threads; 0: all
    int expectedBatches = 0;                // the `total` passed to progress (0 when unknown)
    // Called after each batch; return false to cancel (the call then fails with ErrorKind::Cancelled).
    std::function<bool(int done, int total)> progress;
};

struct LayerActivationComparison {
    LayerMatch match;
    bool observed = false;       // the quantized value was seen in the quantized plan
    std::string quantValueSeen;  // the plan value that was compared (DQ output or quantized tensor)
    ComparisonMetrics metrics;
};

struct OutputComparison {
    std::string floatName, quantName;
    ComparisonMetrics metrics;
    int64_t rows = 0;            // argmax rows compared (product of all dims but the last)
    int64_t top1Agreements = 0;
    double top1Agreement = 0.0;  // agreements / rows; NaN when rows == 0
};

struct ActivationComparisonResult {
    int64_t samples = 0;
    int batches = 0;
    std::vector<LayerActivationComparison> layers;  // same order as matching.matches
    std::vector<OutputComparison> outputs;          // graph outputs paired in order
};

Result<ActivationComparisonResult> compareActivations(const Graph &floatGraph, const Graph &quantGraph,
                                                      const LayerMatching &matching,
                                                      const ActivationBatchSource &source,
                                                      const ActivationComparisonOptions &options = {});

}  // namespace ql::analysis

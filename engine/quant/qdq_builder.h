#pragma once
// Turns a float graph and its quantization plan into a standard QDQ graph (opset 13 or the
// model's own if higher): QuantizeLinear / DequantizeLinear pairs on every planned activation,
// weights stored int8 (per-axis DequantizeLinear when per channel), biases stored int32 with
// scale input_scale * weight_scale. Nodes the plan keeps in fp32 get no Q/DQ of their own: they
// read a neighbour's DequantizeLinear output where that neighbour quantized the value.
// Naming follows ONNX Runtime's quantizer: <value>_QuantizeLinear_Output,
// <value>_DequantizeLinear_Output, <init>_quantized, <init>_scale, <init>_zero_point; a quantized
// graph output keeps its name on the DequantizeLinear output.

#include <string>

#include "core/status.h"
#include "ir/graph.h"
#include "passes/fold_batchnorm.h"
#include "quant/quantization_plan.h"

namespace ql::quant {

// The float graph the plan is built on: a copy, with BatchNormalization folded when asked.
Graph prepareFloatGraph(const Graph &floatGraph, bool foldBatchNorm,
                        BatchNormFoldReport *report = nullptr);

// `prepared` is the graph the plan was built for (prepareFloatGraph's result).
Result<Graph> buildQdqGraph(const Graph &prepared, const QuantizationPlan &plan);

struct QuantizeResult {
    Graph model;  // the QDQ graph
    QuantizationPlan plan;
    BatchNormFoldReport folding;
    std::vector<std::string> warnings;
};

// prepare -> plan -> build. Excluded names are checked against the float graph; an excluded
// BatchNormalization that was folded is reported as a warning naming the node it went into.
Result<QuantizeResult> quantizeGraph(const Graph &floatGraph, const RangeLookup &ranges,
                                     const QuantizationOptions &options);
// Same from stored calibration statistics of the float graph (quant/calibration.h). BN folding
// keeps the BN's output name on the folded Conv, so the float graph's statistics cover it.
Result<QuantizeResult> quantizeGraph(const Graph &floatGraph, const CalibrationStatistics &stats,
                                     const QuantizationOptions &options);

}  // namespace ql::quant

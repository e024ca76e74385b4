#pragma once
// One entry point for how a quantized model runs:
//   Int8      - Q/DQ noise cleaned up, DQ -> op -> Q patterns lowered to QOperator nodes that the
//               int8 kernels run (passes/qdq_to_qoperator.h); the rest runs DQ -> fp32 -> Q.
//   Reference - every quantized op as dequantize -> fp32 op -> quantize (QOperator nodes
//               expanded; a QDQ model runs as it is, except that DequantizeLinear of constant
//               weights runs once, when the plan is prepared). Int8 vs reference =
//               implementation error.
//   Fp32      - Q/DQ removed: the quantized model's float graph with dequantized weights.
// A float model is left untouched by every precision.

#include <string>

#include "core/status.h"
#include "ir/graph.h"
#include "passes/precision_report.h"

namespace ql {

enum class Precision { Fp32, Int8, Reference };

const char *precisionName(Precision precision);  // "fp32", "int8", "reference"
bool parsePrecision(const std::string &text, Precision &out);

// True when the graph holds Q/DQ nodes or quantized operators.
bool isQuantizedModel(const Graph &graph);
// Int8 for a quantized model, Fp32 for a float one.
Precision defaultPrecision(const Graph &graph);

// Checks every constant Q/DQ parameter (BadInput naming the node), then rewrites the graph for
// `precision`. `report` (optional) gets the per-node decisions of the int8 lowering; for the
// other precisions only its `precision` field is set ("fp32" for a float model, whatever was asked).
Status preparePrecision(Graph &graph, Precision precision, PrecisionReport *report = nullptr);

// Precision::Reference with the DequantizeLinear of constant weights left in the graph, run on
// every pass: the plan holds the 8-bit weights only, not a float copy plus oneDNN's packed copy
// of it (0.7 GB for vit_b_16's kernel check). For plans run on a few samples.
Status prepareReferenceWithQuantizedWeights(Graph &graph);

}  // namespace ql

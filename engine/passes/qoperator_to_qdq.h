#pragma once
// Reference lowering: every quantized operator becomes DequantizeLinear -> fp32 op ->
// QuantizeLinear, so the "reference" precision computes each quantized op the way the ONNX
// definition describes it, in float. Covers QLinearConv, QLinearMatMul, ConvInteger,
// MatMulInteger and com.microsoft QGemm, QLinearAdd, QLinearMul, QLinearConcat,
// QLinearGlobalAveragePool (channels-first), QLinearAveragePool, QLinearSigmoid and
// QLinearLeakyRelu, including the ql_activation attribute of the int8 lowering.
// The float op keeps the quantized node's name. A QDQ model is left as it is.

#include "core/status.h"
#include "ir/graph.h"

namespace ql {

struct ExpansionReport {
    int expandedNodes = 0;
};

Status expandQOperatorsToQdq(Graph &graph, ExpansionReport *report = nullptr);

// Whether the graph has QOperator nodes (QLinear*, QGemm, ConvInteger, MatMulInteger).
bool hasQOperators(const Graph &graph);

}  // namespace ql

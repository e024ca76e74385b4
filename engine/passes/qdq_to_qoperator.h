#pragma once
// Int8 lowering: DequantizeLinear -> float op -> QuantizeLinear patterns become QOperator nodes
// that the int8 kernels run (contract 1 of the int8 work):
//   Conv [-> Relu|Clip]   -> QLinearConv            (int8 weights per tensor or per output channel)
//   Gemm [-> Relu|Clip]   -> com.microsoft QGemm     (int32 bias = beta*c / (alpha*a_scale*b_scale))
//   MatMul [-> Relu|Clip] -> QLinearMatMul
//   Add, Mul, Concat, GlobalAveragePool, AveragePool, Sigmoid, LeakyRelu -> com.microsoft QLinear*
//   MaxPool, Reshape, Transpose, Flatten, Squeeze, Unsqueeze with equal input and output
//   quantization -> the same op on the int8 tensor (exact)
// A fused Relu/Clip becomes the ql_activation attribute, or disappears when the output
// quantization already clamps to its range (e.g. Relu with a uint8 zero point of 0).
// The new nodes keep the float op's name. A DequantizeLinear whose output is still read by a
// float op stays; everything unmatched keeps running as dequantize -> fp32 op -> quantize.

#include "core/status.h"
#include "ir/graph.h"
#include "passes/precision_report.h"

namespace ql {

struct LoweringOptions {
    // Lower a pattern only when the kernel registry has a kernel for the QOperator node (and,
    // for MaxPool, when it runs on 8-bit tensors); otherwise report a fallback. Tests that
    // check the rewrite alone turn this off.
    bool requireKernels = true;
};

// Fails (BadInput naming the node) on bad constant quantization parameters.
// Appends one entry per compute node to report->nodes when report is given.
Status lowerQdqToQOperator(Graph &graph, PrecisionReport *report,
                           const LoweringOptions &options = {});

}  // namespace ql

#pragma once
// Pairs the compute layers of a float model with their counterparts in its quantized version
// (QDQ form, or QOperator form), so that the numeric suite knows which two values to compare.
//
// Compute layers (isComputeLayer): Conv, ConvTranspose, Gemm, MatMul, Add, Sub, Mul, Div, Concat,
// MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool, BatchNormalization, LayerNormalization,
// Relu, Clip, LeakyRelu, PRelu, Sigmoid, Tanh, HardSigmoid, HardSwish, Gelu, Softmax, Flatten,
// Reshape, Transpose, Squeeze, Unsqueeze, Resize, Pad, ReduceMean, Split, Slice; and the
// QOperator forms QLinearConv, ConvInteger, QLinearMatMul, MatMulInteger, com.microsoft QGemm,
// QLinearAdd, QLinearMul, QLinearConcat, QLinearGlobalAveragePool, QLinearAveragePool,
// QLinearSigmoid, QLinearLeakyRelu (compared under their float op type). Everything else
// (QuantizeLinear, DequantizeLinear, Cast, Identity, Constant, ConstantOfShape, Shape, ...) is
// plumbing and is ignored.
//
// Rules, in order:
//  1. By name: a float and a quantized compute node with the same name and the same (canonical)
//     op type are paired, wherever they sit in the graph.
//  2. By structure, for the rest: each graph's remaining layers are put in a canonical order
//     (depth in compute layers from the graph inputs, then op type, then the op types downstream
//     three layers deep, then file order, so that independent branches stored in a different
//     order line up; BN/Relu/Clip do not count as they may be folded) and aligned by a longest
//     common subsequence of their op types.
// A float BatchNormalization that directly follows a Conv/ConvTranspose/Gemm/MatMul (sole
// consumer) is folded into that layer when the quantized counterpart has no BatchNormalization
// after it; the match then compares the BN output with the quantized layer's output. A float
// Relu/Clip left unmatched is folded the same way when the quantized layer fuses it: by
// attribute (`ql_activation`, QOperator form) or by feeding its output straight into a
// QuantizeLinear (ONNX Runtime's QDQ quantizer drops such activations). A quantized layer whose
// output feeds only a Relu/Clip without being requantized (PyTorch FX: Conv -> Relu -> Q) forms
// one unit with it: the two matches merge into the layer's, with the Relu in foldedFloatNodes and
// foldedQuantNodes. A quantized Relu after a requantized layer is matched on its own.

#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace ql::analysis {

struct LayerMatch {
    std::string floatNode, quantNode;
    // The values to compare: the float layer's output (after folded nodes), and the quantized
    // model's corresponding value: the DequantizeLinear output that follows the layer's
    // QuantizeLinear when there is one (through Cast/Identity), else the node output itself
    // (for a QOperator node that is the quantized tensor; dequantize with its output qparams).
    std::string floatOutput, quantOutput;
    std::vector<std::string> foldedFloatNodes;  // e.g. a BatchNormalization folded into a Conv
    std::string how;                            // "name" | "structure"
    // A quantized Relu/Clip that follows the layer with no QuantizeLinear in between (one int8
    // unit, e.g. PyTorch FX's Conv -> Relu -> Q); quantOutput is then the value after it.
    std::vector<std::string> foldedQuantNodes;
};

struct LayerMatching {
    std::vector<LayerMatch> matches;            // in the float graph's node order
    std::vector<std::string> unmatchedFloat;    // compute nodes of the float graph, node order
    std::vector<std::string> unmatchedQuant;    // compute nodes of the quantized graph, node order
};

bool isComputeLayer(const Node &node);
// The float op type a compute node stands for: "QLinearConv" -> "Conv", "QGemm" -> "Gemm".
std::string canonicalOpType(const Node &node);

// Both graphs must have topologically sorted nodes (as loadModel leaves them). Errors: different
// graph inputs (count, element type or known shape), or no compute layer matches at all.
Result<LayerMatching> matchLayers(const Graph &floatGraph, const Graph &quantGraph);

}  // namespace ql::analysis

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
// Pairing weighs evidence, not names (PyTorch exports name nodes generically, `/Conv_3`,
// `/ReduceMean`, and those names collide with other layers of the float export), in this order:
//  1. Weights: a float layer's weight and a quantized layer's dequantized weight that correlate
//     above 0.99 (mean |Pearson r| per output channel, blind to a folded BN's channel factors),
//     each the other's best candidate, are a pair wherever they sit ("weights", confidence = r).
//  2. Structure: a float layer pairs with the quantized layer of the same op type that reads the
//     same values: the same graph inputs or the outputs of already paired layers, looking through
//     Q/DQ, Cast, Identity and layers the other model may have folded (BN, Relu, Clip). Repeated
//     in topological order until nothing new pairs ("structure", 0.9). With several candidates
//     (e.g. a block's conv and its shortcut conv), weight correlation decides, then equal weight
//     shape (0.8), then equal node name ("name", 0.7), then canonical position (0.5).
//  3. Sequence, for what structure cannot reach (behind a layer without a counterpart): each
//     graph's remaining layers in a canonical order (depth in compute layers from the inputs,
//     op type, op types downstream three layers deep, file order) aligned by a longest common
//     subsequence of op types ("structure", 0.5); then structure again.
// When the weighted layers of the two graphs differ (op family and weight shape) and a weighted
// layer finds no partner of its weight shape, the graphs are not a pair: an error names it.
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

class WeightCorrelationMemo;

struct LayerMatch {
    std::string floatNode, quantNode;
    // The values to compare: the float layer's output (after folded nodes), and the quantized
    // model's corresponding value: the DequantizeLinear output that follows the layer's
    // QuantizeLinear when there is one (through Cast/Identity), else the node output itself
    // (for a QOperator node that is the quantized tensor; dequantize with its output qparams).
    std::string floatOutput, quantOutput;
    std::vector<std::string> foldedFloatNodes;  // e.g. a BatchNormalization folded into a Conv
    std::string how;                            // "weights" | "structure" | "name"
    // A quantized Relu/Clip that follows the layer with no QuantizeLinear in between (one int8
    // unit, e.g. PyTorch FX's Conv -> Relu -> Q); quantOutput is then the value after it.
    std::vector<std::string> foldedQuantNodes;
    double confidence = 0.0;  // 0..1, see the rules above
};

struct LayerMatching {
    std::vector<LayerMatch> matches;            // in the float graph's node order
    std::vector<std::string> unmatchedFloat;    // compute nodes of the float graph, node order
    std::vector<std::string> unmatchedQuant;    // compute nodes of the quantized graph, node order
    // Why each unmatched node found no counterpart (same order as the lists above).
    std::vector<std::string> unmatchedFloatWhy, unmatchedQuantWhy;
};

bool isComputeLayer(const Node &node);
// The float op type a compute node stands for: "QLinearConv" -> "Conv", "QGemm" -> "Gemm".
std::string canonicalOpType(const Node &node);

// Both graphs must have topologically sorted nodes (as loadModel leaves them). Errors: different
// graph inputs (count, element type or known shape), weighted layers that cannot be paired (see
// above), or no compute layer matches at all. `memo` (may be null): weight correlations
// remembered from earlier matchings of the same weights (weight_evidence.h).
Result<LayerMatching> matchLayers(const Graph &floatGraph, const Graph &quantGraph,
                                  WeightCorrelationMemo *memo = nullptr);

}  // namespace ql::analysis

#pragma once
// The weight (and bias) of a matched layer on both sides: the float weight with the folded
// BatchNormalization applied (when the quantized model folded it) and the dequantized int8/uint8
// weight of the quantized layer (DequantizeLinear of a constant, or QLinearConv / QLinearMatMul /
// QGemm weight inputs). Shared by the weight comparison and the layer inspector.

#include <optional>
#include <string>
#include <vector>

#include "analysis/pairing/layer_matching.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "quant/qparams.h"

namespace ql::analysis {

// The constant behind a value, looking through Identity and Cast nodes (and Constant nodes);
// nullptr if none.
const Tensor *constantBehind(const Graph &graph, std::string value);

// Index of the weight input of a float layer (Conv, ConvTranspose, Gemm, MatMul with a constant
// operand) and its output-channel axis (-1: none), or -1 when it has no weight.
int floatWeightInput(const Graph &graph, const Node &node, int64_t *channelAxis);

struct QuantizedWeight {
    Tensor values;  // the constant integers, shared with the graph
    quant::QParams params;
};

// The quantized weight of a quantized layer at input `inputIndex` (QDQ form: DequantizeLinear
// of a constant), or from the QOperator weight inputs (QLinearConv, QLinearMatMul, QGemm);
// nullopt with the reason in `why` otherwise.
std::optional<QuantizedWeight> quantizedWeight(const Graph &graph, const Node &node, int inputIndex,
                                               std::string *why);

struct LayerWeights {
    Tensor floatWeight;        // float, plain, BN folded when batchNormFolded
    QuantizedWeight quantWeight;
    Tensor dequantWeight;      // quantWeight dequantized, same shape; empty unless asked for
    int64_t channelAxis = -1;  // output-channel axis, -1: the whole tensor is one channel
    bool batchNormFolded = false;
    int weightInput = 1;  // input index of the weight on the float node
};

struct LayerWeightsLookup {
    std::string opType;                   // the float node's op type
    std::optional<LayerWeights> weights;  // nullopt: no comparable weight (see note)
    std::string note;
};

// floatFolded: the float graph with constants folded; quantCleaned: the quantized graph after
// cleanupQdqNoise. Errors only for matched nodes that do not exist or a BN that cannot fold.
// `dequantize` false leaves dequantWeight empty, for a caller that reads quantWeight in pieces.
Result<LayerWeightsLookup> findLayerWeights(const Graph &floatFolded, const Graph &quantCleaned,
                                            const LayerMatch &match, bool dequantize = true);

// The float layer's bias per output channel as the float model computes it (Conv input 2; Gemm
// beta·C when C is a vector or scalar), with the folded BatchNormalization applied:
// b' = (b − mean)·gamma/sqrt(var + eps) + beta. Zeros when the layer has no bias.
// `channels`: output channels. BadInput when a bias or BN parameter does not fit.
Result<std::vector<double>> floatLayerBias(const Graph &floatFolded, const LayerMatch &match,
                                           int64_t channels);

}  // namespace ql::analysis

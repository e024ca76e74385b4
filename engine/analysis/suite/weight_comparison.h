#pragma once
// Weight comparison of matched layers: the float weight (with a BatchNormalization folded in when
// the quantized model folded it) against the dequantized int8/uint8 weight of the quantized
// model, as PyTorch Numeric Suite's extract_weights does, per layer and per output channel.
//
// Layers with weights: Conv, ConvTranspose, Gemm, MatMul with a constant operand (float side);
// on the quantized side a DequantizeLinear of a constant integer tensor feeding the layer
// (through Identity/Cast; constant subgraphs are folded on a copy first), or the constant
// weight / scale / zero point inputs of QLinearConv, QLinearMatMul and com.microsoft QGemm.
//
// Output-channel axis of the weight: Conv 0; ConvTranspose 1 (group 1); Gemm 0 when transB
// else 1; MatMul the last axis. BN folding (fold_batchnorm.h formula):
//   W'[oc,...] = W[oc,...] * gamma[oc] / sqrt(var[oc] + eps), computed in double.
// SQNR = 10·log10(Σw² / Σ(w − ŵ)²) with comparison_metrics.h conventions (identical -> +inf).

#include <optional>
#include <string>
#include <vector>

#include "analysis/pairing/layer_matching.h"
#include "analysis/pairing/layer_weights.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql::analysis {

struct WeightStats {
    double sqnrDb = 0.0;
    std::vector<double> channelSqnrDb;            // one per output channel
    std::vector<float> channelMin, channelMax;    // of the float weight, per output channel
};

struct LayerWeightComparison {
    std::string floatNode, quantNode, opType;     // opType: the float node's op type
    bool batchNormFolded = false;                 // a BN was folded into the float weight
    int64_t channelAxis = -1;                     // output-channel axis of the weight, -1 if none
    std::optional<WeightStats> stats;             // nullopt: the layer has no comparable weight
    std::string note;                             // why stats is nullopt ("" when it is set)
};

// Compares two weights of the same shape; channelAxis < 0 gives one "channel" (the whole tensor).
// Errors: shape mismatch or non-float tensors.
Result<WeightStats> compareWeightTensors(const Tensor &floatWeight, const Tensor &dequantWeight,
                                         int64_t channelAxis);
// The same against a quantized weight, dequantized a piece at a time: no dequantized copy of the
// whole weight (ViT-B's 330 MB of them were fresh memory, slow to fault in on virtual machines).
Result<WeightStats> compareWeightTensors(const Tensor &floatWeight,
                                         const QuantizedWeight &quantWeight, int64_t channelAxis);

// W * gamma / sqrt(var + eps) along channelAxis (all BN parameters of length dim(channelAxis)).
Result<Tensor> foldBatchNormIntoWeight(const Tensor &weight, int64_t channelAxis, const Tensor &gamma,
                                       const Tensor &var, float epsilon);

// One entry per match, in the matching's order; layers without weights get stats == nullopt.
Result<std::vector<LayerWeightComparison>> compareWeights(const Graph &floatGraph, const Graph &quantGraph,
                                                          const LayerMatching &matching);

}  // namespace ql::analysis

#pragma once
// Folds an inference-form BatchNormalization into the Conv, ConvTranspose or Gemm that feeds it,
// the standard step before quantization: the folded weights are what gets quantized, so one
// int8 layer replaces a Conv whose output range BN would otherwise distort.
//   s = gamma / sqrt(var + eps)          (per output channel)
//   W'[oc,...] = W[oc,...] * s[oc]       B' = (B - mean) * s + beta
// The fold happens only when the producer's output feeds nothing but the BN (and is not a graph
// output) and all parameters are float constants; other BNs stay for the plan to quantize or
// leave in fp32.

#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace ql {

struct FoldedBatchNorm {
    std::string producerNode;  // the Conv / ConvTranspose / Gemm that absorbed the BN
    std::string producerOp;
    std::string batchNormNode;  // the removed BN
};

struct SkippedBatchNorm {
    std::string batchNormNode;
    std::string reason;  // e.g. "input comes from Add '/add', not a Conv/ConvTranspose/Gemm"
};

struct BatchNormFoldReport {
    std::vector<FoldedBatchNorm> folded;
    std::vector<SkippedBatchNorm> kept;
};

// Rewrites the graph in place. The producer keeps its name and takes over the BN's output value,
// so consumers and graph outputs are untouched. Weight initializers shared with other nodes are
// copied under a new name instead of being changed. A producer whose output is in `keepVisible`
// (a value a caller taps) keeps its BN.
Status foldBatchNorms(Graph &graph, BatchNormFoldReport *report = nullptr,
                      const std::set<std::string> &keepVisible = {});

}  // namespace ql

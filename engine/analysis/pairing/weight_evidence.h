#pragma once
// Weights as evidence for layer matching: a float layer's constant weight and a quantized
// layer's dequantized weight are the same tensor up to quantization noise (and, where the
// quantized model folded a BatchNormalization, a factor per output channel). Their correlation
// per output channel tells which quantized layer a float layer became, whatever the node names.

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor.h"
#include "quant/qparams.h"

namespace ql::analysis {

struct WeightEvidence {
    // Plain layout: float, or a quantized layer's 8-bit integers as stored. They are dequantized
    // channel by channel as they are compared: dequantizing every weight up front, on every
    // matching (each toggle of a session), cost most of the matching in fresh memory.
    Tensor weight;
    std::optional<quant::QParams> quantization;  // set when `weight` holds integers
    int64_t channelAxis = -1;  // output-channel axis; -1: the whole tensor is one channel
};

// The weight a compute node multiplies by: for a float layer its constant weight, for a quantized
// layer (QDQ or QOperator form) its quantized weight and how it dequantizes. nullopt when it has
// none.
std::optional<WeightEvidence> layerWeightEvidence(const Graph &graph, const Node &node);

// The mean over output channels of |Pearson correlation| between the two weights (the absolute
// value and the per-channel split make it blind to a folded BatchNormalization's per-channel
// factor, negative ones included). nullopt when the shapes differ or no channel varies.
// `maxChannels` > 0 looks at the first channels only: a cheap first test before the full one.
std::optional<double> weightCorrelation(const WeightEvidence &a, const WeightEvidence &b,
                                        int64_t maxChannels = 0);

// weightCorrelation, remembered by the two weights' memory (copies of a graph share their
// initializers): a session matches its models again after every toggle, when every weight but
// the toggled layer's is one it has correlated before. Safe to call from several threads.
class WeightCorrelationMemo {
public:
    std::optional<double> correlation(const WeightEvidence &a, const WeightEvidence &b,
                                      int64_t maxChannels);

private:
    // A weight by its memory, type, channel axis and a hash of how it dequantizes.
    using Side = std::tuple<const void *, DataType, int64_t, uint64_t>;
    static Side sideOf(const WeightEvidence &e);
    std::mutex m_mutex;
    std::map<std::tuple<Side, Side, Shape, int64_t>, std::optional<double>> m_known;
    // The weights remembered, kept alive so that their memory cannot come back as another's.
    std::map<const void *, Tensor> m_kept;
};

}  // namespace ql::analysis

#include "analysis/suite/weight_comparison.h"

#include <algorithm>
#include <cmath>

#include "analysis/metrics/comparison_metrics.h"
#include "analysis/pairing/layer_weights.h"
#include "core/stop_token.h"
#include "ir/channel_runs.h"
#include "passes/constant_folding.h"
#include "passes/qdq_cleanup.h"

namespace ql::analysis {

Result<WeightStats> compareWeightTensors(const Tensor &floatWeight, const Tensor &dequantWeight,
                                         int64_t channelAxis) {
    if (floatWeight.dtype() != DataType::Float || dequantWeight.dtype() != DataType::Float)
        return Status::badInput("weight comparison needs float tensors");
    if (floatWeight.shape() != dequantWeight.shape())
        return Status::badInput("weight shapes differ: float " + shapeToString(floatWeight.shape()) +
                                ", dequantized " + shapeToString(dequantWeight.shape()));
    const Tensor x = floatWeight.toPlain(), y = dequantWeight.toPlain();
    const Shape &shape = x.shape();
    if (channelAxis >= static_cast<int64_t>(shape.size())) return Status::badInput("channel axis out of range");
    const int64_t channels = channelAxis < 0 ? 1 : shape[channelAxis];
    std::vector<CompensatedSum> signal(channels), noise(channels);
    WeightStats stats;
    stats.channelMin.assign(channels, INFINITY);
    stats.channelMax.assign(channels, -INFINITY);
    const float *xs = x.data<float>(), *ys = y.data<float>();
    // Plain double sums over pieces of a channel's contiguous runs, compensated across pieces.
    constexpr int64_t kPiece = 4096;
    forEachChannelRun(shape, channelAxis, [&](int64_t start, int64_t count, int64_t c) {
        float lo = stats.channelMin[c], hi = stats.channelMax[c];
        for (int64_t piece = start; piece < start + count; piece += kPiece) {
            double s = 0.0, e = 0.0;
            for (int64_t i = piece; i < std::min(start + count, piece + kPiece); ++i) {
                const double a = xs[i], d = a - ys[i];
                s += a * a;
                e += d * d;
                lo = std::fmin(lo, xs[i]);
                hi = std::fmax(hi, xs[i]);
            }
            signal[c].add(s);
            noise[c].add(e);
        }
        stats.channelMin[c] = lo;
        stats.channelMax[c] = hi;
    });
    CompensatedSum totalSignal, totalNoise;
    for (int64_t c = 0; c < channels; ++c) {
        stats.channelSqnrDb.push_back(sqnrDb(signal[c].value(), noise[c].value()));
        totalSignal.merge(signal[c]);
        totalNoise.merge(noise[c]);
    }
    stats.sqnrDb = sqnrDb(totalSignal.value(), totalNoise.value());
    return stats;
}

Result<Tensor> foldBatchNormIntoWeight(const Tensor &weight, int64_t channelAxis, const Tensor &gamma,
                                       const Tensor &var, float epsilon) {
    if (weight.dtype() != DataType::Float || channelAxis < 0 || channelAxis >= weight.rank())
        return Status::badInput("BN folding needs a float weight and a valid channel axis");
    const int64_t channels = weight.dim(static_cast<int>(channelAxis));
    const std::vector<float> g = gamma.toFloatVector(), v = var.toFloatVector();
    if (static_cast<int64_t>(g.size()) != channels || static_cast<int64_t>(v.size()) != channels)
        return Status::badInput("BatchNormalization has " + std::to_string(g.size()) + " channels, weight has " +
                                std::to_string(channels));
    int64_t inner = 1;
    for (int d = static_cast<int>(channelAxis) + 1; d < weight.rank(); ++d) inner *= weight.dim(d);
    Tensor out = weight.toPlain().clone();
    float *w = out.data<float>();
    for (int64_t i = 0; i < out.numel(); ++i) {
        const int64_t c = (i / inner) % channels;
        w[i] = static_cast<float>(w[i] * (static_cast<double>(g[c]) / std::sqrt(static_cast<double>(v[c]) + epsilon)));
    }
    return out;
}

Result<std::vector<LayerWeightComparison>> compareWeights(const Graph &floatGraph, const Graph &quantGraph,
                                                          const LayerMatching &matching) {
    // Exporters hide constants behind Constant / Cast / QuantizeLinear-of-constant subgraphs:
    // fold them on copies (tensors share storage, so copies are cheap).
    Graph floatCopy = floatGraph, quantCopy = quantGraph;
    QL_RETURN_IF_ERROR(foldConstants(floatCopy));
    QL_RETURN_IF_ERROR(cleanupQdqNoise(quantCopy));

    std::vector<LayerWeightComparison> out;
    for (const LayerMatch &match : matching.matches) {
        if (stopRequested()) return stoppedStatus();
        LayerWeightComparison cmp;
        cmp.floatNode = match.floatNode;
        cmp.quantNode = match.quantNode;
        auto found = findLayerWeights(floatCopy, quantCopy, match);
        if (!found) return found.status();
        cmp.opType = found->opType;
        if (!found->weights) {
            cmp.note = found->note;
            out.push_back(std::move(cmp));
            continue;
        }
        const LayerWeights &w = *found->weights;
        cmp.batchNormFolded = w.batchNormFolded;
        auto stats = compareWeightTensors(w.floatWeight, w.dequantWeight, w.channelAxis);
        if (!stats) {
            cmp.note = stats.status().message();
            out.push_back(std::move(cmp));
            continue;
        }
        cmp.channelAxis = w.channelAxis;
        cmp.stats = std::move(*stats);
        out.push_back(std::move(cmp));
    }
    return out;
}

}  // namespace ql::analysis

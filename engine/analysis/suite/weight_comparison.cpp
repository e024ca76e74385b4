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

namespace {

// Σx², Σ(x − y)² and the range of x per output channel, where `compared(start, count)` gives
// the compared weight's values [start, start + count) of the plain tensor as floats.
template <class ComparedSpan>
Result<WeightStats> compareWithSpans(const Tensor &floatWeight, int64_t channelAxis,
                                     ComparedSpan &&compared) {
    const Tensor x = floatWeight.toPlain();
    const Shape &shape = x.shape();
    if (channelAxis >= static_cast<int64_t>(shape.size())) return Status::badInput("channel axis out of range");
    const int64_t channels = channelAxis < 0 ? 1 : shape[channelAxis];
    std::vector<CompensatedSum> signal(channels), noise(channels);
    WeightStats stats;
    stats.channelMin.assign(channels, INFINITY);
    stats.channelMax.assign(channels, -INFINITY);
    const float *xs = x.data<float>();
    // Plain double sums over pieces of at most kPiece elements of a channel, compensated across
    // pieces.
    constexpr int64_t kPiece = 4096;
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
        if (d < channelAxis) outer *= shape[d];
        if (d > channelAxis) inner *= shape[d];
    }
    if (channelAxis < 0 || inner >= kPiece / 16) {  // long contiguous runs: one channel at a time
        forEachChannelRun(shape, channelAxis, [&](int64_t start, int64_t count, int64_t c) {
            float lo = stats.channelMin[c], hi = stats.channelMax[c];
            for (int64_t piece = start; piece < start + count; piece += kPiece) {
                const int64_t n = std::min(start + count, piece + kPiece) - piece;
                const float *xp = xs + piece, *yp = compared(piece, n);
                double s = 0.0, e = 0.0;
                for (int64_t i = 0; i < n; ++i) {
                    const double a = xp[i], d = a - yp[i];
                    s += a * a;
                    e += d * d;
                    lo = xp[i] < lo ? xp[i] : lo;  // NaN ignored, as fmin does, but inlined
                    hi = xp[i] > hi ? xp[i] : hi;
                }
                signal[c].add(s);
                noise[c].add(e);
            }
            stats.channelMin[c] = lo;
            stats.channelMax[c] = hi;
        });
    } else {  // short runs (a MatMul weight's columns): every channel a row at a time
        std::vector<double> s(static_cast<size_t>(channels)), e(static_cast<size_t>(channels));
        const int64_t rowsPerPiece = std::max<int64_t>(1, kPiece / inner), row = channels * inner;
        for (int64_t o0 = 0; o0 < outer; o0 += rowsPerPiece) {
            std::fill(s.begin(), s.end(), 0.0);
            std::fill(e.begin(), e.end(), 0.0);
            const int64_t rows = std::min(outer, o0 + rowsPerPiece) - o0;
            const float *ys = compared(o0 * row, rows * row);
            for (int64_t o = 0; o < rows; ++o) {
                const float *xr = xs + (o0 + o) * row, *yr = ys + o * row;
                for (int64_t c = 0; c < channels; ++c)
                    for (int64_t i = c * inner; i < (c + 1) * inner; ++i) {
                        const double a = xr[i], d = a - yr[i];
                        s[c] += a * a;
                        e[c] += d * d;
                        float &lo = stats.channelMin[c], &hi = stats.channelMax[c];
                        lo = xr[i] < lo ? xr[i] : lo;
                        hi = xr[i] > hi ? xr[i] : hi;
                    }
            }
            for (int64_t c = 0; c < channels; ++c) {
                signal[c].add(s[c]);
                noise[c].add(e[c]);
            }
        }
    }
    CompensatedSum totalSignal, totalNoise;
    for (int64_t c = 0; c < channels; ++c) {
        stats.channelSqnrDb.push_back(sqnrDb(signal[c].value(), noise[c].value()));
        totalSignal.merge(signal[c]);
        totalNoise.merge(noise[c]);
    }
    stats.sqnrDb = sqnrDb(totalSignal.value(), totalNoise.value());
    return stats;
}

Status checkSameShape(const Tensor &floatWeight, const Shape &compared) {
    if (floatWeight.dtype() != DataType::Float)
        return Status::badInput("weight comparison needs a float weight");
    if (floatWeight.shape() != compared)
        return Status::badInput("weight shapes differ: float " +
                                shapeToString(floatWeight.shape()) + ", dequantized " +
                                shapeToString(compared));
    return Status::ok();
}

}  // namespace

Result<WeightStats> compareWeightTensors(const Tensor &floatWeight, const Tensor &dequantWeight,
                                         int64_t channelAxis) {
    if (dequantWeight.dtype() != DataType::Float)
        return Status::badInput("weight comparison needs float tensors");
    QL_RETURN_IF_ERROR(checkSameShape(floatWeight, dequantWeight.shape()));
    const Tensor y = dequantWeight.toPlain();
    const float *ys = y.data<float>();
    return compareWithSpans(floatWeight, channelAxis,
                            [ys](int64_t start, int64_t) { return ys + start; });
}

Result<WeightStats> compareWeightTensors(const Tensor &floatWeight,
                                         const QuantizedWeight &quantWeight, int64_t channelAxis) {
    QL_RETURN_IF_ERROR(checkSameShape(floatWeight, quantWeight.values.shape()));
    const quant::QParams &p = quantWeight.params;
    if (p.blockSize > 0)  // block-wise scales (opset 21): dequantized once, then compared
        return compareWeightTensors(floatWeight, quant::dequantizeTensor(quantWeight.values, p),
                                    channelAxis);
    const Tensor q = quantWeight.values.toPlain();
    std::vector<float> piece;
    return compareWithSpans(floatWeight, channelAxis, [&](int64_t start, int64_t count) {
        piece.resize(static_cast<size_t>(count));
        dequantizeSpan(q, p.scale, p.zeroPoint, p.scale.size() > 1 ? p.axis : -1, start, count,
                       piece.data());
        return static_cast<const float *>(piece.data());
    });
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
        auto found = findLayerWeights(floatCopy, quantCopy, match, /*dequantize=*/false);
        if (!found) return found.status();
        cmp.opType = found->opType;
        if (!found->weights) {
            cmp.note = found->note;
            out.push_back(std::move(cmp));
            continue;
        }
        const LayerWeights &w = *found->weights;
        cmp.batchNormFolded = w.batchNormFolded;
        auto stats = compareWeightTensors(w.floatWeight, w.quantWeight, w.channelAxis);
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

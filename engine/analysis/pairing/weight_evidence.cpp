#include "analysis/pairing/weight_evidence.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "analysis/pairing/layer_weights.h"
#include "core/fnv_hash.h"
#include "ir/channel_runs.h"

namespace ql::analysis {

namespace {

bool isQOperatorWithWeight(const std::string &op) {
    return op == "QLinearConv" || op == "QLinearMatMul" || op == "QGemm";
}

int64_t quantChannelAxis(const Node &node, const Tensor &weight, int input) {
    const std::string &op = node.opType;
    if (op == "Conv" || op == "QLinearConv" || op == "ConvInteger") return 0;
    if (op == "ConvTranspose") return node.attrInt("group", 1) == 1 ? 1 : -1;
    if (op == "Gemm" || op == "QGemm") return node.attrInt("transB", 0) ? 0 : 1;
    return input == 0 ? -1 : weight.rank() - 1;  // MatMul, QLinearMatMul, MatMulInteger
}

// Elements [start, start + count) of the weight as floats: its own memory when it is float, else
// dequantized into `scratch`.
const float *weightValues(const WeightEvidence &e, int64_t start, int64_t count,
                          std::vector<float> &scratch) {
    if (!e.quantization) return e.weight.data<float>() + start;
    scratch.resize(size_t(count));
    const quant::QParams &p = *e.quantization;
    dequantizeSpan(e.weight, p.scale, p.zeroPoint, p.perChannel() ? p.axis : -1, start, count,
                   scratch.data());
    return scratch.data();
}

struct Moments {
    double x = 0, y = 0, xx = 0, yy = 0, xy = 0;
};

// The moments of many channels at once, one array per moment.
struct ChannelMoments {
    explicit ChannelMoments(size_t channels)
        : x(channels), y(channels), xx(channels), yy(channels), xy(channels) {}
    std::vector<double> x, y, xx, yy, xy;
    Moments of(size_t c) const { return {x[c], y[c], xx[c], yy[c], xy[c]}; }
};

typedef float Float8 __attribute__((vector_size(32)));
typedef double Double8 __attribute__((vector_size(64)));

// The sums of x, y, x², y² and xy, eight lanes apiece, combined in a fixed order. One running sum
// per moment waited on each addition's latency and made these sums most of a matching. The
// arithmetic is the same for every instruction set the clones target (no reassociation, and no
// fused multiply-add: see the pragma), so the correlation does not depend on the CPU.
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#if defined(__clang__)
#define QL_MOMENTS_CLONES
#else
#define QL_MOMENTS_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
QL_MOMENTS_CLONES Moments moments(const float *x, const float *y, int64_t n) {
    Double8 sx = {}, sy = {}, sxx = {}, syy = {}, sxy = {};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        Float8 xf, yf;
        std::memcpy(&xf, x + i, sizeof xf);
        std::memcpy(&yf, y + i, sizeof yf);
        const Double8 u = __builtin_convertvector(xf, Double8);
        const Double8 v = __builtin_convertvector(yf, Double8);
        sx += u, sy += v, sxx += u * u, syy += v * v, sxy += u * v;
    }
    for (int l = 0; i < n; ++i, ++l) {
        const double u = x[i], v = y[i];
        sx[l] += u, sy[l] += v, sxx[l] += u * u, syy[l] += v * v, sxy[l] += u * v;
    }
    Moments m;
    for (int l = 0; l < 8; ++l)
        m.x += sx[l], m.y += sy[l], m.xx += sxx[l], m.yy += syy[l], m.xy += sxy[l];
    return m;
}

// Adds one row of `channels` × `inner` values to each channel's moments, channel by channel in
// element order (a fixed order again). With one value per channel (a MatMul weight's columns)
// the loop runs across channels and vectorises without reassociating any sum.
QL_MOMENTS_CLONES void addRow(const float *x, const float *y, int64_t channels, int64_t inner,
                              ChannelMoments &m) {
    double *sx = m.x.data(), *sy = m.y.data(), *sxx = m.xx.data(), *syy = m.yy.data(),
           *sxy = m.xy.data();
    if (inner == 1) {
        for (int64_t c = 0; c < channels; ++c) {
            const double u = x[c], v = y[c];
            sx[c] += u, sy[c] += v, sxx[c] += u * u, syy[c] += v * v, sxy[c] += u * v;
        }
        return;
    }
    for (int64_t c = 0; c < channels; ++c)
        for (int64_t i = c * inner; i < (c + 1) * inner; ++i) {
            const double u = x[i], v = y[i];
            sx[c] += u, sy[c] += v, sxx[c] += u * u, syy[c] += v * v, sxy[c] += u * v;
        }
}
#undef QL_MOMENTS_CLONES
#pragma GCC pop_options

}  // namespace

std::optional<WeightEvidence> layerWeightEvidence(const Graph &graph, const Node &node) {
    int64_t axis = -1;
    const int floatInput = floatWeightInput(graph, node, &axis);
    if (floatInput >= 0 && node.hasInput(floatInput)) {
        const Tensor *w = constantBehind(graph, node.inputs[floatInput]);
        if (w && w->dtype() == DataType::Float) {
            if (node.opType == "ConvTranspose" && node.attrInt("group", 1) != 1) axis = -1;
            return WeightEvidence{w->toPlain(), std::nullopt, axis};
        }
    }
    // Quantized: QOperator weight inputs, or a DequantizeLinear of a constant (right operand
    // first: a MatMul's constant may be either).
    std::vector<int> inputs;
    if (isQOperatorWithWeight(node.opType))
        inputs = {1};
    else if (node.opType == "Conv" || node.opType == "ConvTranspose" || node.opType == "Gemm")
        inputs = {1};
    else if (node.opType == "MatMul")
        inputs = {1, 0};
    for (int input : inputs) {
        std::string why;
        auto q = quantizedWeight(graph, node, input, &why);
        if (!q) continue;
        const quant::QParams &p = q->params;
        if (p.perChannel() && (p.axis >= q->values.rank() ||
                               int64_t(p.scale.size()) != q->values.shape()[size_t(p.axis)]))
            continue;  // scales that do not fit the weight: no evidence
        const int64_t channelAxis = quantChannelAxis(node, q->values, input);
        const DataType type = q->values.dtype();
        if (type == DataType::Int8 || type == DataType::UInt8)
            return WeightEvidence{q->values.toPlain(), std::move(q->params), channelAxis};
        return WeightEvidence{quant::dequantizeTensor(q->values, q->params), std::nullopt,
                              channelAxis};
    }
    return std::nullopt;
}

std::optional<double> weightCorrelation(const WeightEvidence &a, const WeightEvidence &b,
                                        int64_t maxChannels) {
    if (a.weight.shape() != b.weight.shape() || a.weight.numel() == 0) return std::nullopt;
    const Shape &shape = a.weight.shape();
    const int64_t axis = a.channelAxis == b.channelAxis ? a.channelAxis : -1;
    // Elements are visited as [outer, channels, inner] around the channel axis.
    int64_t outer = 1, channels = 1, inner = 1;
    for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
        if (axis < 0)
            inner *= shape[d];
        else if (d < axis)
            outer *= shape[d];
        else if (d == axis)
            channels = shape[d];
        else
            inner *= shape[d];
    }
    // Channels with fewer than 4 elements say little on their own: one correlation overall.
    if (outer * inner < 4) {
        channels = 1;
        outer = 1;
        inner = a.weight.numel();
    }
    std::vector<float> xScratch, yScratch;
    const int64_t visited = maxChannels > 0 ? std::min(channels, maxChannels) : channels;
    const int64_t n = outer * inner;
    std::vector<Moments> perChannel(size_t(visited), Moments{});
    if (outer == 1) {  // each channel one contiguous run
        for (int64_t c = 0; c < visited; ++c)
            perChannel[size_t(c)] = moments(weightValues(a, c * inner, inner, xScratch),
                                            weightValues(b, c * inner, inner, yScratch), n);
    } else {  // a channel's values strided: all channels a row at a time
        ChannelMoments sums{size_t(visited)};
        for (int64_t o = 0; o < outer; ++o) {
            const int64_t start = o * channels * inner, count = visited * inner;
            addRow(weightValues(a, start, count, xScratch), weightValues(b, start, count, yScratch),
                   visited, inner, sums);
        }
        for (int64_t c = 0; c < visited; ++c) perChannel[size_t(c)] = sums.of(size_t(c));
    }
    double sum = 0.0;
    int64_t counted = 0;
    for (const Moments &m : perChannel) {
        const double vx = m.xx - m.x * m.x / double(n), vy = m.yy - m.y * m.y / double(n);
        if (!(vx > 0.0) || !(vy > 0.0)) continue;  // a constant channel: no evidence either way
        sum += std::abs(m.xy - m.x * m.y / double(n)) / std::sqrt(vx * vy);
        ++counted;
    }
    if (counted == 0) return std::nullopt;
    return sum / double(counted);
}

WeightCorrelationMemo::Side WeightCorrelationMemo::sideOf(const WeightEvidence &e) {
    uint64_t hash = kFnvOffsetBasis;  // over the quantization parameters
    if (e.quantization) {
        const quant::QParams &q = *e.quantization;
        hash = fnv1a(q.scale.data(), q.scale.size() * sizeof(float), hash);
        hash = fnv1a(q.zeroPoint.data(), q.zeroPoint.size() * sizeof(int32_t), hash);
        hash = fnv1a(&q.axis, sizeof q.axis, hash);
    }
    return {e.weight.rawData(), e.weight.dtype(), e.channelAxis, hash};
}

std::optional<double> WeightCorrelationMemo::correlation(const WeightEvidence &a,
                                                         const WeightEvidence &b,
                                                         int64_t maxChannels) {
    // Weights of different shapes do not correlate: no need to remember it.
    if (a.weight.shape() != b.weight.shape()) return std::nullopt;
    auto key = std::make_tuple(sideOf(a), sideOf(b), a.weight.shape(), maxChannels);
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        auto known = m_known.find(key);
        if (known != m_known.end()) return known->second;
    }
    const std::optional<double> value = weightCorrelation(a, b, maxChannels);
    std::lock_guard<std::mutex> lock(m_mutex);
    m_kept.emplace(a.weight.rawData(), a.weight);
    m_kept.emplace(b.weight.rawData(), b.weight);
    m_known.emplace(std::move(key), value);
    return value;
}

}  // namespace ql::analysis

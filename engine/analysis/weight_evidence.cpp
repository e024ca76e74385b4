#include "analysis/weight_evidence.h"

#include <algorithm>
#include <cmath>

#include "analysis/layer_weights.h"

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

}  // namespace

std::optional<WeightEvidence> layerWeightEvidence(const Graph &graph, const Node &node) {
    int64_t axis = -1;
    const int floatInput = floatWeightInput(graph, node, &axis);
    if (floatInput >= 0 && node.hasInput(floatInput)) {
        const Tensor *w = constantBehind(graph, node.inputs[floatInput]);
        if (w && w->dtype() == DataType::Float) {
            if (node.opType == "ConvTranspose" && node.attrInt("group", 1) != 1) axis = -1;
            return WeightEvidence{w->toPlain(), axis};
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
        auto dq = dequantizedWeight(graph, node, input, &why);
        if (dq) return WeightEvidence{dq->toPlain(), quantChannelAxis(node, *dq, input)};
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
    const float *x = a.weight.data<float>();
    const float *y = b.weight.data<float>();
    double sum = 0.0;
    int64_t counted = 0;
    if (maxChannels > 0) channels = std::min(channels, maxChannels);
    for (int64_t c = 0; c < channels; ++c) {
        double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
        const double n = double(outer * inner);
        for (int64_t o = 0; o < outer; ++o) {
            const int64_t base = (o * channels + c) * inner;
            for (int64_t i = 0; i < inner; ++i) {
                const double u = x[base + i], v = y[base + i];
                sx += u, sy += v, sxx += u * u, syy += v * v, sxy += u * v;
            }
        }
        const double vx = sxx - sx * sx / n, vy = syy - sy * sy / n;
        if (!(vx > 0.0) || !(vy > 0.0)) continue;  // a constant channel: no evidence either way
        sum += std::abs(sxy - sx * sy / n) / std::sqrt(vx * vy);
        ++counted;
    }
    if (counted == 0) return std::nullopt;
    return sum / double(counted);
}

}  // namespace ql::analysis

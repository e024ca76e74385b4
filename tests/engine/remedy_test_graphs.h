#pragma once
// Graph pieces the remedies' tests share: a Conv with random weights, Data-Free Quantization's
// imbalance put into a depthwise → Relu → pointwise pair, and the output SQNR of a quantized
// graph, per-tensor quantization of a float graph.
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "quant/calibration.h"
#include "quant/qdq_builder.h"
#include "runtime/execution_plan.h"

#include "qdq_test_graphs.h"
#include "test_support.h"

namespace ql::test {

// Conv `name` (weight `name`.w, bias `name`.b unless !bias) from `in` to `out`, "same" padding.
inline void addConv(QdqBuilder &b, const std::string &name, const std::string &in,
                    const std::string &out, Shape weightShape, unsigned seed, int64_t group = 1,
                    bool bias = true) {
    b.init(name + ".w", randomTensor(weightShape, seed));
    std::vector<std::string> inputs = {in, name + ".w"};
    if (bias) {
        b.init(name + ".b", randomTensor({weightShape[0]}, seed + 100, -0.2f, 0.2f));
        inputs.push_back(name + ".b");
    }
    Node &n = b.node("Conv", name, inputs, {out});
    const int64_t k = weightShape[2];
    n.attributes["pads"] = intsAttr({k / 2, k / 2, k / 2, k / 2});
    n.attributes["group"] = intAttr(group);
}

// DFQ's float-equivalent imbalance: the 8 channels of depthwise Conv `dw` (3×3, with bias) scaled
// by 1/64 or 16, the matching input columns of 1×1 Conv `pw` by the inverse. Relu between them
// is positively homogeneous, so the graph's outputs do not change.
inline void unbalanceDepthwise(QdqBuilder &b, const std::string &dw, const std::string &pw) {
    const float factor[8] = {1.0f / 64, 16, 1, 1.0f / 64, 16, 1, 1, 16};
    Tensor &w = b.g.initializers.at(dw + ".w"), &bias = b.g.initializers.at(dw + ".b");
    Tensor &next = b.g.initializers.at(pw + ".w");
    const int64_t outputs = next.dim(0);
    for (int64_t c = 0; c < 8; ++c) {
        for (int64_t i = 0; i < 9; ++i) w.data<float>()[c * 9 + i] *= factor[c];
        bias.data<float>()[c] *= factor[c];
        for (int64_t o = 0; o < outputs; ++o) next.data<float>()[o * 8 + c] /= factor[c];
    }
}

// SQNR (dB) of graph output `index` of `q` against `f` over `data`.
inline double outputSqnr(const Graph &f, const Graph &q, size_t index,
                         const std::vector<std::map<std::string, Tensor>> &data) {
    auto pf = ExecutionPlan::create(f, PlanOptions{2});
    auto pq = ExecutionPlan::create(q, PlanOptions{2});
    double signal = 0, noise = 0;
    std::vector<Tensor> of, oq;
    for (const auto &batch : data) {
        EXPECT_TRUE((*pf)->run(batch, of).isOk());
        EXPECT_TRUE((*pq)->run(batch, oq).isOk());
        const Tensor &a = of.at(index), &b = oq.at(index);
        for (int64_t i = 0; i < a.numel(); ++i) {
            signal += double(a.data<float>()[i]) * a.data<float>()[i];
            noise += std::pow(double(a.data<float>()[i]) - b.data<float>()[i], 2);
        }
    }
    return 10 * std::log10(signal / noise);
}

// A float graph (as the remedies see it: BatchNorm folded or none) quantized with per-tensor
// weights from its calibration on `calibration`.
struct PerTensorQuantized {
    Graph prepared;
    quant::QuantizeResult result;
};

inline PerTensorQuantized quantizePerTensor(
    const Graph &prepared, const std::vector<std::map<std::string, Tensor>> &calibration) {
    PerTensorQuantized q;
    q.prepared = prepared;
    quant::CalibrationStatistics stats;
    const Status calibrated = quant::calibrate(q.prepared, calibration, stats);
    EXPECT_TRUE(calibrated.isOk()) << calibrated.message();
    quant::QuantizationOptions options;
    options.perChannelWeights = false;
    auto result = quant::quantizeGraph(q.prepared, stats, options);
    EXPECT_TRUE(result) << result.status().message();
    q.result = std::move(*result);
    return q;
}

}  // namespace ql::test

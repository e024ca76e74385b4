// Cross-layer equalization against its definition: the float function is unchanged, a single
// pair's scales are the closed form sqrt(r1 / r2) with both ranges sqrt(r1 · r2) afterwards, a
// pointwise → depthwise → pointwise chain converges with every pair balanced at once, and what
// cannot be equalized exactly (Clip between, shared weights) is left alone with its reason. The
// depthwise case is DFQ's: channels rescaled by 1/64 and 16 after BN folding, which per-tensor
// int8 weights cannot hold, and which equalization undoes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "qdq_test_graphs.h"
#include "quant/qparams.h"
#include "quant/remedies/cross_layer_equalization.h"
#include "remedy_test_graphs.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::quant;
using namespace ql::test;

namespace {

// x → c1 (3→8, 3×3) → Relu → dw (8, depthwise 3×3) → Relu → pw (8→6, 1×1) → y, with DFQ's
// float-equivalent imbalance put in: dw's channels scaled by 1/64 or 16 and pw's matching input
// columns by the inverse (Relu is positively homogeneous, so y does not change).
QdqBuilder mobileBlock() {
    QdqBuilder b;
    b.input("x", randomTensor({2, 3, 12, 12}, 1));
    addConv(b, "c1", "x", "h1", {8, 3, 3, 3}, 2);
    b.node("Relu", "r1", {"h1"}, {"a1"});
    addConv(b, "dw", "a1", "h2", {8, 1, 3, 3}, 3, 8);
    b.node("Relu", "r2", {"h2"}, {"a2"});
    addConv(b, "pw", "a2", "y", {6, 8, 1, 1}, 4);
    b.output("y");
    unbalanceDepthwise(b, "dw", "pw");
    return b;
}

Tensor run(const Graph &g, const std::map<std::string, Tensor> &feeds) {
    auto plan = ExecutionPlan::create(g, PlanOptions{2});
    EXPECT_TRUE(plan) << plan.status().message();
    std::vector<Tensor> out;
    EXPECT_TRUE((*plan)->run(feeds, out).isOk());
    return out.at(0);
}

void expectSameFunction(const QdqBuilder &before, const Graph &after) {
    const Tensor y0 = run(before.g, before.feeds), y1 = run(after, before.feeds);
    ASSERT_EQ(y0.shape(), y1.shape());
    double scale = 0;
    for (int64_t i = 0; i < y0.numel(); ++i)
        scale = std::max(scale, double(std::fabs(y0.data<float>()[i])));
    for (int64_t i = 0; i < y0.numel(); ++i)
        ASSERT_NEAR(y1.data<float>()[i], y0.data<float>()[i], 1e-4 * scale) << i;
}

std::vector<double> outputRanges(const Tensor &w) {
    const int64_t inner = w.numel() / w.dim(0);
    std::vector<double> r(w.dim(0), 0.0);
    for (int64_t c = 0; c < w.dim(0); ++c)
        for (int64_t i = 0; i < inner; ++i)
            r[c] = std::max(r[c], double(std::fabs(w.data<float>()[c * inner + i])));
    return r;
}

std::vector<double> inputRanges(const Tensor &w) {  // group 1
    const int64_t out = w.dim(0), in = w.dim(1), kernel = w.numel() / (out * in);
    std::vector<double> r(in, 0.0);
    for (int64_t o = 0; o < out; ++o)
        for (int64_t c = 0; c < in; ++c)
            for (int64_t k = 0; k < kernel; ++k)
                r[c] =
                    std::max(r[c], double(std::fabs(w.data<float>()[(o * in + c) * kernel + k])));
    return r;
}

// Output SQNR of per-tensor symmetric int8 weights on every Conv, against the float graph.
double perTensorWeightSqnr(const QdqBuilder &reference, const Graph &g) {
    Graph quantized = g;
    for (Node &n : quantized.nodes) {
        if (n.opType != "Conv") continue;
        Tensor &w = quantized.initializers.at(n.inputs[1]);
        w = fakeQuantizeTensor(w, weightQParams(w, 0, false, QRangeOptions{DataType::Int8, true}));
    }
    const Tensor y = run(reference.g, reference.feeds), q = run(quantized, reference.feeds);
    double signal = 0, noise = 0;
    for (int64_t i = 0; i < y.numel(); ++i) {
        signal += double(y.data<float>()[i]) * y.data<float>()[i];
        noise += std::pow(double(y.data<float>()[i]) - q.data<float>()[i], 2);
    }
    return 10 * std::log10(signal / noise);
}

}  // namespace

TEST(CrossLayerEqualization, SinglePairScalesAreTheClosedForm) {
    QdqBuilder b;
    b.input("x", randomTensor({1, 4, 8, 8}, 5));
    addConv(b, "a", "x", "h", {6, 4, 3, 3}, 6);
    b.node("Relu", "r", {"h"}, {"ha"});
    addConv(b, "b", "ha", "y", {5, 6, 3, 3}, 7);
    b.output("y");
    Tensor &wa = b.g.initializers.at("a.w");
    for (int64_t i = 0; i < 36; ++i) wa.data<float>()[2 * 36 + i] *= 40.0f;  // channel 2 far wider
    const std::vector<double> r1 = outputRanges(wa), r2 = inputRanges(b.g.initializers.at("b.w"));

    Graph g = b.g;
    auto report = equalizeCrossLayer(g);
    ASSERT_TRUE(report) << report.status().message();
    ASSERT_EQ(report->pairs.size(), 1u);
    const EqualizedPair &pair = report->pairs[0];
    EXPECT_EQ(pair.first, "a");
    EXPECT_EQ(pair.second, "b");
    EXPECT_EQ(pair.between, "Relu");
    EXPECT_TRUE(report->converged);
    ASSERT_EQ(pair.scales.size(), 6u);
    const std::vector<double> e1 = outputRanges(g.initializers.at("a.w")),
                              e2 = inputRanges(g.initializers.at("b.w"));
    for (int c = 0; c < 6; ++c) {
        EXPECT_NEAR(pair.scales[c], std::sqrt(r1[c] / r2[c]), 1e-5 * pair.scales[c]) << c;
        EXPECT_NEAR(e1[c], std::sqrt(r1[c] * r2[c]), 1e-5 * e1[c]) << c;
        EXPECT_NEAR(e2[c], e1[c], 1e-5 * e1[c]) << c;
    }
    EXPECT_GT(pair.firstSpreadBefore, 20.0);
    EXPECT_LT(pair.firstSpreadAfter, pair.firstSpreadBefore / 4);
    // The caller's graph shares storage with the copy: its weights are untouched.
    EXPECT_EQ(outputRanges(b.g.initializers.at("a.w")), r1);
    expectSameFunction(b, g);
}

TEST(CrossLayerEqualization, DepthwiseChainConvergesAndPerTensorInt8Recovers) {
    const QdqBuilder b = mobileBlock();
    Graph g = b.g;
    auto report = equalizeCrossLayer(g);
    ASSERT_TRUE(report) << report.status().message();
    ASSERT_EQ(report->pairs.size(), 2u);
    EXPECT_TRUE(report->converged) << report->iterations;
    EXPECT_GT(report->iterations, 1);  // each pair moves the other's balance
    expectSameFunction(b, g);

    // At convergence every pair is balanced at once: each channel's two ranges agree.
    const std::vector<double> c1 = outputRanges(g.initializers.at("c1.w")),
                              dw = outputRanges(g.initializers.at("dw.w")),
                              pw = inputRanges(g.initializers.at("pw.w"));
    for (int c = 0; c < 8; ++c) {
        EXPECT_NEAR(c1[c], dw[c], 1e-3 * c1[c]) << c;
        EXPECT_NEAR(dw[c], pw[c], 1e-3 * dw[c]) << c;
    }
    EXPECT_GT(report->pairs[1].firstSpreadBefore, 100.0);  // the depthwise channels: 1/64 .. 16
    EXPECT_LT(report->pairs[1].firstSpreadAfter, 10.0);

    const double naive = perTensorWeightSqnr(b, b.g), equalized = perTensorWeightSqnr(b, g);
    EXPECT_GT(equalized, naive + 10.0)
        << "naive " << naive << " dB, equalized " << equalized << " dB";
    EXPECT_NE(describe(*report).find("2 pair(s)"), std::string::npos) << describe(*report);
}

TEST(CrossLayerEqualization, LeavesWhatItCannotEqualizeExactly) {
    QdqBuilder b;
    b.input("x", randomTensor({1, 4, 6, 6}, 8));
    addConv(b, "a", "x", "h", {4, 4, 3, 3}, 9);
    b.init("lo", Tensor::scalar<float>(0.0f));
    b.init("hi", Tensor::scalar<float>(6.0f));
    b.node("Clip", "relu6", {"h", "lo", "hi"}, {"hc"});
    addConv(b, "b", "hc", "h2", {4, 4, 3, 3}, 10);
    // c reads b's weight too: b → c would change a weight another node reads.
    b.node("Conv", "c", {"h2", "b.w"}, {"y"}).attributes["pads"] = intsAttr({1, 1, 1, 1});
    b.output("y");
    Graph g = b.g;
    auto report = equalizeCrossLayer(g);
    ASSERT_TRUE(report) << report.status().message();
    EXPECT_TRUE(report->pairs.empty());
    ASSERT_EQ(report->skipped.size(), 2u);
    EXPECT_EQ(report->skipped[0].first, "a");
    EXPECT_NE(report->skipped[0].reason.find("Clip 'relu6'"), std::string::npos)
        << report->skipped[0].reason;
    EXPECT_EQ(report->skipped[1].first, "b");
    EXPECT_NE(report->skipped[1].reason.find("shared"), std::string::npos)
        << report->skipped[1].reason;
    for (const auto &[name, t] : b.g.initializers)
        EXPECT_EQ(g.initializers.at(name).storage(), t.storage())
            << name << " was copied or changed";
}

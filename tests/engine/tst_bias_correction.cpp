// Empirical bias correction against its purpose: on samples it never saw, the corrected layers'
// per-channel mean error (quantized − float, each layer's own output) falls by at least 80 % of
// its RMS, and the model's output SQNR rises. The model is DFQ's depthwise case quantized with
// per-tensor weights (channels 1024× apart: many depthwise weights round to zero, shifting the
// channel means), followed by a 1×1 Conv without a bias (given a zero one) and a Gemm head.
// Also: zero biases leave the float function as it was, the passes follow the layer chain, the
// caller's graph is untouched, and a cancelled or misnamed run says so.
#include <gtest/gtest.h>

#include <cmath>

#include "qdq_test_graphs.h"
#include "quant/qdq_builder.h"
#include "quant/remedies/bias_correction.h"
#include "remedy_test_graphs.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::quant;
using namespace ql::test;

namespace {

// x → c1 → Relu → dw (depthwise, channels × 1/64 or 16) → Relu → pw (no bias) → y (an output)
// → GlobalAveragePool → Flatten → fc (Gemm) → z.
QdqBuilder network() {
    QdqBuilder b;
    b.input("x", randomTensor({8, 3, 12, 12}, 1, 0.0f, 1.0f));
    addConv(b, "c1", "x", "h1", {8, 3, 3, 3}, 2);
    b.node("Relu", "r1", {"h1"}, {"a1"});
    addConv(b, "dw", "a1", "h2", {8, 1, 3, 3}, 3, 8);
    b.node("Relu", "r2", {"h2"}, {"a2"});
    addConv(b, "pw", "a2", "y", {6, 8, 1, 1}, 4, 1, false);
    b.node("GlobalAveragePool", "gap", {"y"}, {"g"});
    b.node("Flatten", "flat", {"g"}, {"f"});
    b.init("fc.w", randomTensor({4, 6}, 5));
    b.init("fc.b", randomTensor({4}, 6, -0.2f, 0.2f));
    b.node("Gemm", "fc", {"f", "fc.w", "fc.b"}, {"z"}).attributes["transB"] = intAttr(1);
    b.output("y");
    b.output("z");
    unbalanceDepthwise(b, "dw", "pw");
    return b;
}

std::vector<std::map<std::string, Tensor>> batches(unsigned seed, int count) {
    std::vector<std::map<std::string, Tensor>> out;
    for (int i = 0; i < count; ++i)
        out.push_back({{"x", randomTensor({8, 3, 12, 12}, seed + i, 0.0f, 1.0f)}});
    return out;
}

// Per-channel means (axis 1) of the outputs of `nodes` over `data`, by node name.
std::map<std::string, std::vector<double>> channelMeans(
    const Graph &g, const std::vector<std::map<std::string, Tensor>> &data,
    const std::vector<std::string> &nodes) {
    auto plan = ExecutionPlan::create(g, PlanOptions{2});
    EXPECT_TRUE(plan) << plan.status().message();
    std::map<std::string, std::vector<double>> sums;
    std::map<std::string, double> counts;
    RunOptions run;
    run.tap = [&](const Node &node, size_t index, const Tensor &value) {
        if (index != 0 || std::find(nodes.begin(), nodes.end(), node.name) == nodes.end()) return;
        const int64_t n = value.dim(0), c = value.dim(1), inner = value.numel() / (n * c);
        auto &s = sums[node.name];
        s.resize(c, 0.0);
        for (int64_t i = 0; i < value.numel(); ++i) s[(i / inner) % c] += value.data<float>()[i];
        counts[node.name] += double(n * inner);
    };
    std::vector<Tensor> outputs;
    for (const auto &batch : data) EXPECT_TRUE((*plan)->run(batch, outputs, run).isOk());
    for (auto &[name, s] : sums)
        for (double &v : s) v /= counts[name];
    return sums;
}

double rmsError(const std::vector<double> &a, const std::vector<double> &b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
    return std::sqrt(s / double(a.size()));
}

// The network with a zero bias for pw, quantized with per-tensor weights.
PerTensorQuantized quantizeWithBiases(
    const Graph &model, const std::vector<std::map<std::string, Tensor>> &calibration) {
    Graph prepared = model;
    EXPECT_EQ(addZeroBiases(prepared), std::vector<std::string>{"pw"});
    return quantizePerTensor(prepared, calibration);
}

}  // namespace

TEST(BiasCorrection, ZeroBiasesKeepTheFloatFunction) {
    const QdqBuilder b = network();
    Graph g = b.g;
    EXPECT_EQ(addZeroBiases(g), std::vector<std::string>{"pw"});
    ASSERT_EQ(g.findNode("pw")->inputs.size(), 3u);
    EXPECT_EQ(g.initializer(g.findNode("pw")->inputs[2])->numel(), 6);
    EXPECT_TRUE(addZeroBiases(g).empty());  // every layer has one now
    auto pb = ExecutionPlan::create(b.g, PlanOptions{2});
    auto pg = ExecutionPlan::create(g, PlanOptions{2});
    std::vector<Tensor> ob, og;
    ASSERT_TRUE((*pb)->run(b.feeds, ob).isOk());
    ASSERT_TRUE((*pg)->run(b.feeds, og).isOk());
    for (size_t o = 0; o < ob.size(); ++o)
        for (int64_t i = 0; i < ob[o].numel(); ++i)
            ASSERT_EQ(og[o].data<float>()[i], ob[o].data<float>()[i]);
}

TEST(BiasCorrection, RemovesMostOfTheMeanErrorOnHeldOutSamples) {
    const QdqBuilder b = network();
    const auto calibration = batches(100, 4), heldOut = batches(200, 4);
    PerTensorQuantized q = quantizeWithBiases(b.g, calibration);

    Graph corrected = q.prepared;
    std::vector<std::pair<int, int>> progress;
    BiasCorrectionOptions options;
    options.threads = 2;
    options.progress = [&](int done, int total) {
        progress.push_back({done, total});
        return true;
    };
    auto report = correctBiases(corrected, q.result.plan, batchesOpener(calibration), options);
    ASSERT_TRUE(report) << report.status().message();
    auto fixed = buildQdqGraph(corrected, q.result.plan);
    ASSERT_TRUE(fixed) << fixed.status().message();

    // c1 → dw → pw → fc is a chain: one pass per layer, then the measurement after.
    ASSERT_EQ(report->layers.size(), 4u);
    EXPECT_EQ(report->layers[0].node, "c1");
    EXPECT_EQ(report->layers[3].node, "fc");
    EXPECT_EQ(report->passes, 5);
    EXPECT_EQ(report->samples, 32);
    ASSERT_EQ(progress.size(), 5u);
    EXPECT_EQ(progress.back(), std::make_pair(5, 5));
    // The caller's graph keeps its biases.
    EXPECT_EQ(q.prepared.initializer("dw.b")->toFloatVector(),
              b.g.initializer("dw.b")->toFloatVector());

    const std::vector<std::string> layers = {"c1", "dw", "pw", "fc"};
    const auto floatMeans = channelMeans(q.prepared, heldOut, layers);
    const auto naiveMeans = channelMeans(q.result.model, heldOut, layers);
    const auto fixedMeans = channelMeans(*fixed, heldOut, layers);
    double before = 0, after = 0;
    for (const std::string &layer : layers) {
        const double e0 = rmsError(naiveMeans.at(layer), floatMeans.at(layer));
        const double e1 = rmsError(fixedMeans.at(layer), floatMeans.at(layer));
        before += e0 * e0, after += e1 * e1;
        std::printf("%-3s mean error RMS %.4g -> %.4g (calibration: %.4g -> %.4g)\n", layer.c_str(),
                    e0, e1, report->layers[&layer - layers.data()].meanErrorBefore,
                    report->layers[&layer - layers.data()].meanErrorAfter);
    }
    EXPECT_LT(std::sqrt(after), 0.2 * std::sqrt(before));
    // The depthwise layer is the one per-tensor weights shift the most.
    EXPECT_GT(report->layers[1].meanErrorBefore, 10 * report->layers[1].meanErrorAfter);

    const double sqnrBefore = outputSqnr(q.prepared, q.result.model, 0, heldOut);
    const double sqnrAfter = outputSqnr(q.prepared, *fixed, 0, heldOut);
    std::printf("output SQNR %.2f -> %.2f dB\n", sqnrBefore, sqnrAfter);
    EXPECT_GT(sqnrAfter, sqnrBefore + 1.0);
}

TEST(BiasCorrection, ChosenLayersOnlyAndClearErrors) {
    const QdqBuilder b = network();
    const auto calibration = batches(100, 2);
    PerTensorQuantized q = quantizeWithBiases(b.g, calibration);

    Graph g = q.prepared;
    BiasCorrectionOptions options;
    options.layers = {"dw"};
    auto report = correctBiases(g, q.result.plan, batchesOpener(calibration), options);
    ASSERT_TRUE(report) << report.status().message();
    ASSERT_EQ(report->layers.size(), 1u);
    EXPECT_EQ(report->layers[0].node, "dw");
    EXPECT_EQ(report->passes, 2);
    EXPECT_EQ(g.initializer("c1.b")->toFloatVector(), b.g.initializer("c1.b")->toFloatVector());
    EXPECT_NE(g.initializer("dw.b")->toFloatVector(), b.g.initializer("dw.b")->toFloatVector());

    options.layers = {"nope"};
    auto unknown = correctBiases(g, q.result.plan, batchesOpener(calibration), options);
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.status().message().find("no node 'nope'"), std::string::npos);

    options.layers.clear();
    options.progress = [](int done, int) { return done < 2; };
    auto cancelled = correctBiases(g, q.result.plan, batchesOpener(calibration), options);
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.status().kind(), ErrorKind::Cancelled);
}

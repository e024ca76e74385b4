// SmoothQuant against its definition and its purpose. The network is SmoothQuant's case made
// exactly: LayerNorm γ and β of two of 16 channels × 40 and the next weights' matching input rows
// ÷ 40 (the float function is unchanged; the activations after the LayerNorms get outlier
// channels 40× the rest). A pre-LN block (the LayerNorm feeds only Q and K: the scales fold into
// it) and a post-LN one (the LayerNorm also feeds the residual Add: an explicit Mul is inserted
// and the plan runs it in float before quantizing). Checked: the float outputs do not change, the
// scales equal m_j^α / w_j^(1−α) from independently measured maxima, per-tensor int8 gains SQNR
// on held-out samples, a LayerNorm written out node by node takes the scales in its γ and β, and
// activations without outliers, per-layer α and bad requests behave as documented.
#include <gtest/gtest.h>

#include <cmath>

#include "qdq_test_graphs.h"
#include "quant/qdq_builder.h"
#include "quant/remedies/smooth_quant.h"
#include "remedy_test_graphs.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::quant;
using namespace ql::test;

namespace {

constexpr int64_t kTokens = 6, kWidth = 16;
const int64_t kOutliers[] = {2, 9};

// γ, β of LayerNorm `ln` (normally distributed around 1 and 0) and the weights [16, n] reading
// its output, with SmoothQuant's outliers put in.
void addLayerNorm(QdqBuilder &b, const std::string &ln, const std::string &in,
                  const std::string &out, unsigned seed) {
    Tensor gamma = randomTensor({kWidth}, seed, 0.8f, 1.2f);
    Tensor beta = randomTensor({kWidth}, seed + 1, -0.1f, 0.1f);
    for (int64_t c : kOutliers) gamma.data<float>()[c] *= 40, beta.data<float>()[c] *= 40;
    b.init(ln + ".g", gamma);
    b.init(ln + ".b", beta);
    b.node("LayerNormalization", ln, {in, ln + ".g", ln + ".b"}, {out}).attributes["axis"] =
        intAttr(-1);
}

void addLinear(QdqBuilder &b, const std::string &name, const std::string &in,
               const std::string &out, unsigned seed) {
    Tensor w = randomTensor({kWidth, kWidth}, seed, -0.3f, 0.3f);
    for (int64_t c : kOutliers)
        for (int64_t n = 0; n < kWidth; ++n) w.data<float>()[c * kWidth + n] /= 40;
    b.init(name + ".w", w);
    b.node("MatMul", name, {in, name + ".w"}, {out});
}

// x → ln1 → {q, k}; r = x + q → ln2 → fc1 → y = ln2 + fc1 (post-LN: ln2 read twice); outputs
// k and y.
QdqBuilder network() {
    QdqBuilder b;
    b.g.opsetVersion = 17;
    b.input("x", randomTensor({4, kTokens, kWidth}, 1));
    addLayerNorm(b, "ln1", "x", "h1", 10);
    addLinear(b, "q", "h1", "qo", 20);
    addLinear(b, "k", "h1", "ko", 21);
    b.node("Add", "res1", {"x", "qo"}, {"r"});
    addLayerNorm(b, "ln2", "r", "h2", 30);
    addLinear(b, "fc1", "h2", "f", 40);
    b.node("Add", "res2", {"h2", "f"}, {"y"});
    b.output("ko");
    b.output("y");
    return b;
}

std::vector<std::map<std::string, Tensor>> batches(unsigned seed, int count) {
    std::vector<std::map<std::string, Tensor>> out;
    for (int i = 0; i < count; ++i)
        out.push_back({{"x", randomTensor({4, kTokens, kWidth}, seed + i, -2.0f, 2.0f)}});
    return out;
}

// max|v_j| over the last axis of the values produced by node `name` over `data`.
std::vector<double> channelMaxima(const Graph &g, const std::string &name,
                                  const std::vector<std::map<std::string, Tensor>> &data) {
    std::vector<double> m(kWidth, 0.0);
    auto plan = ExecutionPlan::create(g, PlanOptions{2});
    RunOptions run;
    run.tap = [&](const Node &node, size_t index, const Tensor &value) {
        if (node.name != name || index != 0) return;
        for (int64_t i = 0; i < value.numel(); ++i)
            m[i % kWidth] = std::max(m[i % kWidth], double(std::fabs(value.data<float>()[i])));
    };
    std::vector<Tensor> outputs;
    for (const auto &batch : data) EXPECT_TRUE((*plan)->run(batch, outputs, run).isOk());
    return m;
}

// max|W[j, :]| of the [16, n] weights `names` of `g`.
std::vector<double> rowMaxima(const Graph &g, const std::vector<std::string> &names) {
    std::vector<double> w(kWidth, 0.0);
    for (const std::string &name : names) {
        const Tensor &t = *g.initializer(name);
        for (int64_t i = 0; i < t.numel(); ++i)
            w[i / t.dim(1)] = std::max(w[i / t.dim(1)], double(std::fabs(t.data<float>()[i])));
    }
    return w;
}

void expectSameOutputs(const Graph &a, const Graph &b,
                       const std::vector<std::map<std::string, Tensor>> &data) {
    for (const auto &batch : data) {
        const std::vector<Tensor> x = run(a, batch, PlanOptions{2}),
                                  y = run(b, batch, PlanOptions{2});
        ASSERT_EQ(x.size(), y.size());
        for (size_t o = 0; o < x.size(); ++o)
            for (int64_t i = 0; i < x[o].numel(); ++i) {
                const float u = x[o].data<float>()[i], v = y[o].data<float>()[i];
                ASSERT_NEAR(v, u, 1e-4 * std::max(1.0f, std::fabs(u))) << "output " << o;
            }
    }
}

}  // namespace

TEST(SmoothQuant, KeepsTheFunctionAndMatchesTheClosedForm) {
    const QdqBuilder b = network();
    const auto calibration = batches(100, 4), heldOut = batches(200, 3);
    Graph g = b.g;
    auto report = smoothQuant(g, batchesOpener(calibration));
    ASSERT_TRUE(report) << report.status().message();
    EXPECT_EQ(report->samples, 16);
    ASSERT_EQ(report->smoothed.size(), 2u);
    const SmoothedActivation &pre = report->smoothed[0], &post = report->smoothed[1];
    EXPECT_EQ(pre.value, "h1");
    EXPECT_EQ(pre.layers, (std::vector<std::string>{"q", "k"}));
    EXPECT_EQ(pre.foldedInto, "LayerNormalization 'ln1'");
    EXPECT_EQ(post.value, "h2");
    EXPECT_EQ(post.foldedInto, "inserted Mul 'h2_smooth'");
    EXPECT_GT(pre.activationSpreadBefore, 20.0);
    EXPECT_LT(pre.activationSpreadAfter, 0.5 * std::sqrt(pre.activationSpreadBefore));
    expectSameOutputs(b.g, g, heldOut);
    expectSameOutputs(b.g, g, calibration);

    // s_j = sqrt(m_j / w_j), m from the original graph's LayerNorm outputs, w over Q and K.
    const std::vector<double> m = channelMaxima(b.g, "ln1", calibration);
    const std::vector<double> w = rowMaxima(b.g, {"q.w", "k.w"});
    for (int64_t j = 0; j < kWidth; ++j)
        EXPECT_NEAR(pre.scales[j], std::sqrt(m[j] / w[j]), 1e-5 * std::sqrt(m[j] / w[j])) << j;
    // After smoothing, channel j of activation and weights both span sqrt(m_j · w_j).
    const std::vector<double> m2 = channelMaxima(g, "ln1", calibration);
    const std::vector<double> w2 =
        rowMaxima(g, {g.findNode("q")->inputs[1], g.findNode("k")->inputs[1]});
    for (int64_t j = 0; j < kWidth; ++j) {
        EXPECT_NEAR(m2[j], std::sqrt(m[j] * w[j]), 1e-4 * std::sqrt(m[j] * w[j])) << j;
        EXPECT_NEAR(w2[j], std::sqrt(m[j] * w[j]), 1e-4 * std::sqrt(m[j] * w[j])) << j;
    }
    // The caller's tensors are untouched: the graph's copies changed.
    EXPECT_EQ(b.g.initializer("ln1.g")->toFloatVector(),
              network().g.initializer("ln1.g")->toFloatVector());
    // The inserted Mul sits before fc1 and is the only reader fc1 has.
    const Node *mul = g.findNode("h2_smooth");
    ASSERT_NE(mul, nullptr);
    EXPECT_EQ(mul->inputs[0], "h2");
    EXPECT_EQ(g.findNode("fc1")->inputs[0], mul->outputs[0]);
    EXPECT_EQ(g.findNode("res2")->inputs[0], "h2");
}

TEST(SmoothQuant, PerTensorInt8GainsOnHeldOutSamples) {
    const QdqBuilder b = network();
    const auto calibration = batches(100, 4), heldOut = batches(200, 4);
    Graph smoothed = b.g;
    ASSERT_TRUE(smoothQuant(smoothed, batchesOpener(calibration)));
    const QuantizeResult naive = quantizePerTensor(b.g, calibration).result;
    const QuantizeResult fixed = quantizePerTensor(smoothed, calibration).result;

    // The inserted Mul runs in float on ln2's output as computed, not on its Q/DQ (which the
    // residual Add reads).
    const NodeDecision *mul = fixed.plan.decision("h2_smooth");
    ASSERT_NE(mul, nullptr);
    EXPECT_EQ(mul->precision, Precision::Fp32);
    EXPECT_TRUE(mul->readsUnquantized);
    EXPECT_EQ(fixed.model.findNode("h2_smooth")->inputs[0], "h2");
    EXPECT_EQ(fixed.plan.decision("fc1")->precision, Precision::Int8);
    EXPECT_TRUE(fixed.plan.activations.count("h2"));  // for res2

    for (size_t output : {0, 1}) {
        const double before = outputSqnr(b.g, naive.model, output, heldOut);
        const double after = outputSqnr(smoothed, fixed.model, output, heldOut);
        std::printf("output %zu: per-tensor int8 SQNR %.2f -> %.2f dB\n", output, before, after);
        EXPECT_GT(after, before + 6.0);
    }
}

TEST(SmoothQuant, FoldsIntoALayerNormWrittenOutNodeByNode) {
    // z → Mul(γ) → Add(β) → MatMul, as opset-13 exports end a LayerNorm.
    QdqBuilder b;
    b.input("z", randomTensor({4, kTokens, kWidth}, 3));
    Tensor gamma = randomTensor({kWidth}, 4, 0.8f, 1.2f), beta = randomTensor({kWidth}, 5);
    for (int64_t c : kOutliers) gamma.data<float>()[c] *= 40, beta.data<float>()[c] *= 40;
    b.init("gamma", gamma);
    b.init("beta", beta);
    b.node("Mul", "scale", {"z", "gamma"}, {"zg"});
    b.node("Add", "shift", {"zg", "beta"}, {"h"});
    addLinear(b, "fc", "h", "y", 6);
    b.output("y");
    const auto data = batches(300, 2);
    std::vector<std::map<std::string, Tensor>> feeds;
    for (const auto &batch : data) feeds.push_back({{"z", batch.at("x")}});
    Graph g = b.g;
    auto report = smoothQuant(g, batchesOpener(feeds));
    ASSERT_TRUE(report) << report.status().message();
    ASSERT_EQ(report->smoothed.size(), 1u);
    EXPECT_EQ(report->smoothed[0].foldedInto, "Mul 'scale' and Add 'shift'");
    EXPECT_EQ(g.nodes.size(), b.g.nodes.size());
    expectSameOutputs(b.g, g, feeds);
    const double s = report->smoothed[0].scales[kOutliers[0]];
    EXPECT_NEAR(g.initializer("gamma")->data<float>()[kOutliers[0]],
                gamma.data<float>()[kOutliers[0]] / s, 1e-6 * gamma.data<float>()[kOutliers[0]]);
}

TEST(SmoothQuant, OutlierThresholdChosenLayersAlphaAndErrors) {
    QdqBuilder b = network();
    // ln1 without outliers: its γ and β back to ordinary values, q and k's rows as well.
    for (const char *name : {"ln1.g", "ln1.b"}) {
        Tensor &t = b.g.initializers.at(name);
        for (int64_t c : kOutliers) t.data<float>()[c] /= 40;
    }
    for (const char *name : {"q.w", "k.w"}) {
        Tensor &t = b.g.initializers.at(name);
        for (int64_t c : kOutliers)
            for (int64_t n = 0; n < kWidth; ++n) t.data<float>()[c * kWidth + n] *= 40;
    }
    const auto calibration = batches(100, 2);
    Graph g = b.g;
    auto report = smoothQuant(g, batchesOpener(calibration));
    ASSERT_TRUE(report) << report.status().message();
    ASSERT_EQ(report->smoothed.size(), 1u);
    EXPECT_EQ(report->smoothed[0].value, "h2");
    ASSERT_EQ(report->skipped.size(), 1u);
    EXPECT_EQ(report->skipped[0].value, "h1");
    EXPECT_NE(report->skipped[0].reason.find("no outlier channels"), std::string::npos);
    EXPECT_EQ(g.initializer("q.w")->toFloatVector(), b.g.initializer("q.w")->toFloatVector());

    // Named layers are smoothed whatever their spread; α per layer.
    SmoothQuantOptions options;
    options.layers = {"q", "k"};
    options.layerAlpha = {{"k", 0.8}};
    g = b.g;
    report = smoothQuant(g, batchesOpener(calibration), options);
    ASSERT_TRUE(report) << report.status().message();
    ASSERT_EQ(report->smoothed.size(), 1u);
    EXPECT_EQ(report->smoothed[0].alpha, 0.8);
    const std::vector<double> m = channelMaxima(b.g, "ln1", calibration);
    const std::vector<double> w = rowMaxima(b.g, {"q.w", "k.w"});
    EXPECT_NEAR(report->smoothed[0].scales[0], std::pow(m[0], 0.8) / std::pow(w[0], 0.2),
                1e-5 * report->smoothed[0].scales[0]);
    EXPECT_EQ(g.initializer("fc1.w")->toFloatVector(), b.g.initializer("fc1.w")->toFloatVector());

    options = {};
    options.layers = {"nope"};
    auto unknown = smoothQuant(g, batchesOpener(calibration), options);
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.status().message().find("no node 'nope'"), std::string::npos);
    options = {};
    options.alpha = 1.5;
    EXPECT_FALSE(smoothQuant(g, batchesOpener(calibration), options));
    options = {};
    options.progress = [](int, int) { return false; };
    auto cancelled = smoothQuant(g, batchesOpener(calibration), options);
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.status().kind(), ErrorKind::Cancelled);
}

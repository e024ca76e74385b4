// Layer inspection and "explain one element": qparams against the model's initializers, histogram
// counts, scatter pairs against independent plan runs, every explained conv/gemm element of the
// FX fixture against the int8 kernel's output, and an int8 BatchNormalization against a naive
// dequantize -> BN -> quantize reference.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>

#include "analysis/explain/layer_inspection.h"
#include "analysis/pairing/quant_value.h"
#include "fx_fixture.h"
#include "passes/constant_folding.h"
#include "passes/precision.h"
#include "qdq_test_graphs.h"
#include "runtime/execution_plan.h"

using namespace ql;
using namespace ql::analysis;

namespace {

const LayerMatch *matchOf(const test::Fixture &f, const std::string &floatNode) {
    for (const auto &m : f.matching.matches)
        if (m.floatNode == floatNode) return &m;
    return nullptr;
}

const QuantParamSet *role(const LayerInspection &r, const std::string &name) {
    for (const auto &p : r.qparams)
        if (p.role == name) return &p;
    return nullptr;
}

int64_t sum(const std::vector<int64_t> &v) {
    return std::accumulate(v.begin(), v.end(), int64_t(0));
}

// The DequantizeLinear behind a quantized node's input (through Identity/Cast).
const Node *dqBehind(const Graph &g, std::string value) {
    for (int hops = 0; hops < 8; ++hops) {
        const int p = g.producerIndex(value);
        if (p < 0) return nullptr;
        const Node &n = g.nodes[p];
        if (n.opType == "DequantizeLinear") return &n;
        if (n.inputs.empty()) return nullptr;
        value = n.inputs[0];
    }
    return nullptr;
}

class FxInspection : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(test::loadFixture(f));
        batch = test::firstSamples(f, 8);
    }
    test::Fixture f;
    std::map<std::string, Tensor> batch;
};

}  // namespace

TEST_F(FxInspection, QParamsEqualTheModelsInitializers) {
    const LayerMatch *m = matchOf(f, "/conv1/Conv");
    ASSERT_NE(m, nullptr);
    auto r = inspectLayer(f.floatGraph, f.quantGraph, *m, batch);
    ASSERT_TRUE(r) << r.status().message();
    EXPECT_EQ(r->quantRunOp, "QLinearConv");
    Graph folded = f.quantGraph;
    ASSERT_TRUE(foldConstants(folded).isOk());
    const Node *conv = folded.findNode(m->quantNode);
    ASSERT_NE(conv, nullptr);
    const Node *wdq = dqBehind(folded, conv->inputs[1]);
    const Node *xdq = dqBehind(folded, conv->inputs[0]);
    ASSERT_TRUE(wdq && xdq);

    const QuantParamSet *w = role(*r, "weight");
    ASSERT_NE(w, nullptr);
    const std::vector<float> wScale = folded.initializer(wdq->inputs[1])->toFloatVector();
    ASSERT_EQ(w->scale.size(), wScale.size());
    EXPECT_GT(wScale.size(), 1u);  // per channel
    for (size_t i = 0; i < wScale.size(); ++i) EXPECT_EQ(w->scale[i], wScale[i]);
    EXPECT_EQ(w->axis, 0);
    EXPECT_EQ(w->type, DataType::Int8);
    const std::vector<int64_t> wZp = folded.initializer(wdq->inputs[2])->toInt64Vector();
    for (size_t i = 0; i < wZp.size(); ++i) EXPECT_EQ(w->zeroPoint[i], wZp[i]);

    const QuantParamSet *x = role(*r, "input");
    ASSERT_NE(x, nullptr);
    EXPECT_EQ(x->scale.at(0), folded.initializer(xdq->inputs[1])->toFloatVector()[0]);
    EXPECT_EQ(x->zeroPoint.at(0), folded.initializer(xdq->inputs[2])->toInt64Vector()[0]);

    const QuantTarget out = describeQuantValue(folded, m->quantOutput);
    const QuantParamSet *y = role(*r, "output");
    ASSERT_NE(y, nullptr);
    EXPECT_EQ(y->scale.at(0), out.scale.at(0));
    EXPECT_EQ(y->zeroPoint.at(0), out.zeroPoint.at(0));

    // The bias is int32 at x_scale·w_scale[c], one per output channel.
    const QuantParamSet *b = role(*r, "bias");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->type, DataType::Int32);
    ASSERT_EQ(b->values.size(), wScale.size());
    for (size_t i = 0; i < wScale.size(); ++i)
        EXPECT_FLOAT_EQ(b->scale[i], x->scale[0] * wScale[i]);
}

TEST_F(FxInspection, HistogramsCountEveryElementAndScatterPairsAreReal) {
    // Independent values: the float plan's layer output and the int8 plan's quantized tensor.
    Graph fp = f.floatGraph, qp = f.quantGraph, folded = f.quantGraph;
    ASSERT_TRUE(preparePrecision(fp, Precision::Fp32).isOk());
    ASSERT_TRUE(preparePrecision(qp, Precision::Int8).isOk());
    ASSERT_TRUE(foldConstants(folded).isOk());
    auto floatPlan = ExecutionPlan::create(fp);
    auto quantPlan = ExecutionPlan::create(qp);
    ASSERT_TRUE(floatPlan && quantPlan);
    for (const char *name : {"/conv1/Conv", "/conv2/Conv", "/Add", "/pool1/MaxPool", "/fc/Gemm"}) {
        SCOPED_TRACE(name);
        const LayerMatch *m = matchOf(f, name);
        ASSERT_NE(m, nullptr);
        LayerInspectionOptions options;
        options.histogramBins = 50;
        options.maxScatterPoints = 1000;
        auto r = inspectLayer(f.floatGraph, f.quantGraph, *m, batch, options);
        ASSERT_TRUE(r) << r.status().message();
        const int64_t elements = shapeElementCount(r->outputShape);
        ASSERT_TRUE(r->activationHistogram);
        EXPECT_EQ(r->activationHistogram->floatCounts.size(), 50u);
        EXPECT_EQ(sum(r->activationHistogram->floatCounts), elements);
        EXPECT_EQ(sum(r->activationHistogram->quantCounts), elements);
        if (std::string(name).find("Conv") != std::string::npos ||
            std::string(name) == "/fc/Gemm") {
            ASSERT_TRUE(r->weightHistogram);
            const Tensor *w = folded.initializer(
                dqBehind(folded, folded.findNode(m->quantNode)->inputs[1])->inputs[0]);
            EXPECT_EQ(sum(r->weightHistogram->floatCounts), w->numel());
            EXPECT_EQ(sum(r->weightHistogram->quantCounts), w->numel());
        } else {
            EXPECT_FALSE(r->weightHistogram);
        }

        std::map<std::string, Tensor> fv, qv;
        std::vector<Tensor> outs;
        ASSERT_TRUE(runAndCapture(**floatPlan, batch, {m->floatOutput}, fv, outs).isOk());
        const QuantTarget t = describeQuantValue(folded, m->quantOutput);
        std::set<std::string> wanted(t.quantizedNames.begin(), t.quantizedNames.end());
        RunOptions run;
        run.tap = [&](const Node &node, size_t i, const Tensor &v) {
            if (wanted.count(node.outputs[i]) && !qv.count("q")) qv["q"] = v.toPlain().clone();
        };
        ASSERT_TRUE((*quantPlan)->run(batch, outs, run).isOk());
        ASSERT_TRUE(qv.count("q"));
        const Tensor xf = fv.at(m->floatOutput).toPlain();  // captured as stored (maybe NHWC)
        const Tensor &q = qv.at("q");
        ASSERT_EQ(r->scatter.population, elements);
        ASSERT_EQ(r->scatter.indices.size(), std::min<size_t>(1000, size_t(elements)));
        for (size_t k = 0; k < r->scatter.indices.size(); ++k) {
            const int64_t i = r->scatter.indices[k];
            if (k) ASSERT_LT(r->scatter.indices[k - 1], i);
            ASSERT_EQ(r->scatter.floatValues[k], xf.data<float>()[i]);
            const float dq = t.scale[0] * float(int32_t(q.valueAsDouble(i)) - t.zeroPoint[0]);
            ASSERT_EQ(r->scatter.quantValues[k], dq);
        }
    }
}

TEST_F(FxInspection, ExplainedConvAndGemmElementsEqualTheInt8Kernel) {
    int explained = 0;
    for (const LayerMatch &m : f.matching.matches) {
        auto capture = captureLayer(f.floatGraph, f.quantGraph, m, batch);
        ASSERT_TRUE(capture) << capture.status().message();
        if (capture->quantRunNode < 0) continue;
        const std::string op = capture->quantRun.nodes[capture->quantRunNode].opType;
        if (op != "QLinearConv" && op != "QGemm") continue;
        SCOPED_TRACE(m.floatNode);
        const Shape shape = capture->floatOutput.shape();
        const int64_t n = shapeElementCount(shape);
        // The worst element, then elements spread over the whole output (corners, padding).
        std::vector<std::vector<int64_t>> elements = {{}};
        for (int64_t i = 0; i < n; i += std::max<int64_t>(1, n / 97))
            elements.push_back(test::unravelIndex(i, shape));
        elements.push_back(test::unravelIndex(n - 1, shape));
        for (const auto &element : elements) {
            auto e = explainElement(*capture, element);
            ASSERT_TRUE(e) << e.status().message();
            ASSERT_EQ(e->kind, ElementExplanation::Kind::IntegerMatMul);
            ASSERT_TRUE(e->engineQuantized);
            ASSERT_EQ(e->quantized, *e->engineQuantized)
                << "element " << test::ravelIndex(e->element, shape);
            EXPECT_TRUE(e->matchesEngine);
            // The int32 sum is the sum of the listed products.
            int64_t acc = 0;
            for (const auto &t : e->terms)
                acc += int64_t(t.xq - e->xZeroPoint) * (t.wq - e->wZeroPoint);
            EXPECT_EQ(acc, e->accumulator);
            EXPECT_EQ(e->accumulatorWithBias, e->accumulator + e->biasInt32);
            EXPECT_GE(e->quantized, e->qmin);
            EXPECT_LE(e->quantized, e->qmax);
            // The dequantized result is the quantized model's value at the element.
            EXPECT_FLOAT_EQ(float(e->dequantized), float(e->engineDequantized));
            // The float formula (BN folded, Relu applied) reproduces the float model's value.
            EXPECT_NEAR(e->floatComputed, e->floatModelValue,
                        1e-4 * (1.0 + std::fabs(e->floatModelValue)));
            ++explained;
        }
    }
    EXPECT_GT(explained, 4 * 90);  // conv1, conv2, conv3, fc
}

TEST_F(FxInspection, WorstElementIsTheLargestErrorOfTheFirstSample) {
    const LayerMatch *m = matchOf(f, "/conv2/Conv");
    auto capture = captureLayer(f.floatGraph, f.quantGraph, *m, batch);
    ASSERT_TRUE(capture);
    const std::vector<int64_t> worst = worstElement(*capture);
    ASSERT_EQ(worst.size(), 4u);
    EXPECT_EQ(worst[0], 0);
    const int64_t per = capture->floatOutput.numel() / capture->floatOutput.dim(0);
    const float *x = capture->floatOutput.data<float>(), *y = capture->quantOutput.data<float>();
    const int64_t at = test::ravelIndex(worst, capture->floatOutput.shape());
    for (int64_t i = 0; i < per; ++i) ASSERT_LE(std::fabs(x[i] - y[i]), std::fabs(x[at] - y[at]));
}

TEST_F(FxInspection, AddAndMaxPoolAreExplainedAsRequantization) {
    for (const char *name : {"/Add", "/pool1/MaxPool"}) {
        SCOPED_TRACE(name);
        auto e = explainElement(f.floatGraph, f.quantGraph, *matchOf(f, name), batch);
        ASSERT_TRUE(e) << e.status().message();
        EXPECT_EQ(e->kind, ElementExplanation::Kind::Requantize);
        ASSERT_TRUE(e->engineQuantized);
        EXPECT_EQ(e->quantized, *e->engineQuantized);
        EXPECT_FALSE(e->operands.empty());
        EXPECT_FLOAT_EQ(float(e->dequantized), float(e->engineDequantized));
    }
}

TEST_F(FxInspection, ElementOutOfRangeIsAnError) {
    auto e = explainElement(f.floatGraph, f.quantGraph, *matchOf(f, "/fc/Gemm"), batch, {0, 10});
    ASSERT_FALSE(e);
    EXPECT_NE(e.status().message().find("out of range"), std::string::npos);
    auto wrongRank =
        explainElement(f.floatGraph, f.quantGraph, *matchOf(f, "/fc/Gemm"), batch, {0});
    ASSERT_FALSE(wrongRank);
}

TEST(LayerInspectionHelpers, HistogramPairUsesCommonBins) {
    const std::vector<float> a = {0.0f, 1.0f, 2.0f, 3.0f, NAN}, b = {4.0f, 4.0f};
    const HistogramPair h = histogramPair(a.data(), 5, b.data(), 2, 4);
    EXPECT_EQ(h.lo, 0.0);
    EXPECT_EQ(h.hi, 4.0);
    EXPECT_EQ(h.floatCounts, (std::vector<int64_t>{1, 1, 1, 1}));
    EXPECT_EQ(h.quantCounts, (std::vector<int64_t>{0, 0, 0, 2}));  // the top edge is inclusive
    EXPECT_EQ(h.skipped, 1);
}

TEST(LayerInspectionHelpers, SubsampleIsDeterministicDistinctAndSorted) {
    const auto a = subsampleIndices(100000, 4000, 7), b = subsampleIndices(100000, 4000, 7);
    EXPECT_EQ(a, b);
    ASSERT_EQ(a.size(), 4000u);
    for (size_t i = 1; i < a.size(); ++i) ASSERT_LT(a[i - 1], a[i]);
    EXPECT_LT(a.front(), 1000);  // spread over the range
    EXPECT_GT(a.back(), 99000);
    EXPECT_EQ(subsampleIndices(5, 10, 1), (std::vector<int64_t>{0, 1, 2, 3, 4}));
}

// x -> Q -> DQ -> BatchNormalization -> Q -> DQ -> y, against the float x -> BN -> y.
TEST(LayerInspectionBatchNorm, Int8BatchNormEqualsTheReferencePath) {
    const Shape shape = {2, 3, 4, 4};
    const Tensor x = test::randomTensor(shape, 11, -2.0f, 3.0f);
    const std::vector<float> gamma = {1.5f, -0.7f, 0.3f}, beta = {0.2f, -0.1f, 1.0f},
                             mean = {0.4f, -0.3f, 1.2f}, var = {0.8f, 2.5f, 0.05f};
    const float eps = 1e-5f, xs = 5.0f / 255.0f, ys = 0.03f;
    const int xzp = 102, yzp = 128;
    auto addBn = [&](test::QdqBuilder &b, const std::string &in, const std::string &out) {
        b.init("gamma", Tensor::fromVector<float>({3}, gamma));
        b.init("beta", Tensor::fromVector<float>({3}, beta));
        b.init("mean", Tensor::fromVector<float>({3}, mean));
        b.init("var", Tensor::fromVector<float>({3}, var));
        Node &bn = b.node("BatchNormalization", "bn", {in, "gamma", "beta", "mean", "var"}, {out});
        bn.attributes["epsilon"] = test::floatAttr(eps);
    };
    test::QdqBuilder fb;
    fb.input("x", x);
    addBn(fb, "x", "y");
    fb.output("y");
    test::QdqBuilder qb;
    qb.input("x", x);
    const std::string xdq = qb.qdq("x", xs, xzp);
    addBn(qb, xdq, "bn_out");
    qb.quantize("bn_out", "y_q", ys, yzp);
    qb.init("y_dq_scale", Tensor::scalar<float>(ys));
    qb.init("y_dq_zp", Tensor::scalar<uint8_t>(uint8_t(yzp)));
    qb.node("DequantizeLinear", "dq_y", {"y_q", "y_dq_scale", "y_dq_zp"}, {"y"});
    qb.output("y");

    auto matching = matchLayers(fb.g, qb.g);
    ASSERT_TRUE(matching) << matching.status().message();
    ASSERT_EQ(matching->matches.size(), 1u);
    auto capture = captureLayer(fb.g, qb.g, matching->matches[0], fb.feeds);
    ASSERT_TRUE(capture) << capture.status().message();
    int64_t clampedSeen = 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
        const auto element = test::unravelIndex(i, shape);
        auto e = explainElement(*capture, element);
        ASSERT_TRUE(e) << e.status().message();
        ASSERT_EQ(e->kind, ElementExplanation::Kind::BatchNorm);
        const int64_t c = element[1];
        // Naive reference: quantize, dequantize, BN in double, quantize.
        const float xv = x.data<float>()[i];
        const float xq = std::min(255.0f, std::max(0.0f, std::nearbyint(xv / xs) + xzp));
        const double xr = double(xs * (xq - xzp));
        const double y = gamma[c] * (xr - mean[c]) / std::sqrt(double(var[c]) + eps) + beta[c];
        const double yq =
            std::min(255.0, std::max(0.0, double(std::nearbyint(float(y) / ys)) + yzp));
        ASSERT_EQ(e->operands.size(), 1u);
        EXPECT_EQ(e->operands[0].q, int32_t(xq));
        EXPECT_EQ(e->operands[0].zeroPoint, xzp);
        EXPECT_NEAR(e->realResult, y, 1e-5);
        EXPECT_EQ(e->quantized, int64_t(yq)) << i;
        ASSERT_TRUE(e->engineQuantized);
        EXPECT_EQ(e->quantized, *e->engineQuantized) << i;
        EXPECT_TRUE(e->matchesEngine);
        // Float side: BN on the float input.
        const double yf = gamma[c] * (xv - mean[c]) / std::sqrt(double(var[c]) + eps) + beta[c];
        EXPECT_NEAR(e->floatComputed, yf, 1e-5);
        EXPECT_NEAR(e->floatModelValue, yf, 1e-4);
        EXPECT_DOUBLE_EQ(e->difference, e->engineDequantized - e->floatModelValue);
        clampedSeen += e->clamped;
    }
    EXPECT_GT(clampedSeen, 0);  // the range [-3.84, 3.81] clips channel 0 (up to 5.9)

    auto inspection = inspectLayer(fb.g, qb.g, matching->matches[0], fb.feeds);
    ASSERT_TRUE(inspection);
    EXPECT_EQ(inspection->quantRunOp, "BatchNormalization");
    const QuantParamSet *in = role(*inspection, "input"), *out = role(*inspection, "output");
    ASSERT_TRUE(in && out);
    EXPECT_EQ(in->scale.at(0), xs);
    EXPECT_EQ(in->zeroPoint.at(0), xzp);
    EXPECT_EQ(out->scale.at(0), ys);
    EXPECT_EQ(out->zeroPoint.at(0), yzp);
}

// An ONNX Runtime style QOperator model: QLinearConv -> QLinearConv -> DequantizeLinear. The
// first layer's value is its uint8 output (no DequantizeLinear behind it): dequantized with the
// node's y_scale / y_zero_point, and every element explained equal to the kernel.
TEST(LayerInspectionQOperator, QLinearConvOutputIsDequantizedWithItsOwnParameters) {
    const Shape xShape = {2, 2, 5, 5}, wShape = {3, 2, 3, 3}, w2Shape = {2, 3, 1, 1};
    const Tensor x = test::randomTensor(xShape, 5, 0.0f, 2.0f);
    const Tensor w = test::randomTensor(wShape, 6, -0.5f, 0.5f),
                 w2 = test::randomTensor(w2Shape, 7, -0.5f, 0.5f);
    const std::vector<float> bias = {0.1f, -0.2f, 0.05f};
    const float xs = 2.0f / 255.0f, ys = 0.04f, y2s = 0.05f;
    const std::vector<float> ws = {0.004f, 0.0041f, 0.0045f};  // |w| <= 0.5 fits int8
    const int yzp = 100, y2zp = 120;

    test::QdqBuilder fb;
    fb.input("x", x);
    fb.init("w", w);
    fb.init("b", Tensor::fromVector<float>({3}, bias));
    fb.init("w2", w2);
    Node &c1 = fb.node("Conv", "conv1", {"x", "w", "b"}, {"y1"});
    c1.attributes["pads"] = test::intsAttr({1, 1, 1, 1});
    fb.node("Conv", "conv2", {"y1", "w2"}, {"y"});
    fb.output("y");

    test::QdqBuilder qb;
    qb.input("x", x);
    qb.quantize("x", "xq", xs, 0);
    Tensor wq(DataType::Int8, wShape);
    for (int64_t i = 0; i < wq.numel(); ++i)
        wq.data<int8_t>()[i] = int8_t(std::nearbyint(w.data<float>()[i] / ws[size_t(i / 18)]));
    std::vector<int32_t> bq;
    for (size_t c = 0; c < 3; ++c) bq.push_back(int32_t(std::nearbyint(bias[c] / (xs * ws[c]))));
    qb.init("wq", wq);
    qb.init("ws", Tensor::fromVector<float>({3}, ws));
    qb.init("wzp", Tensor::fromVector<int8_t>({3}, {0, 0, 0}));
    qb.init("ys", Tensor::scalar<float>(ys));
    qb.init("yzp", Tensor::scalar<uint8_t>(uint8_t(yzp)));
    qb.init("bq", Tensor::fromVector<int32_t>({3}, bq));
    Node &q1 = qb.node("QLinearConv", "conv1",
                       {"xq", "xq_scale", "xq_zp", "wq", "ws", "wzp", "ys", "yzp", "bq"}, {"y1q"});
    q1.attributes["pads"] = test::intsAttr({1, 1, 1, 1});
    Tensor w2q(DataType::Int8, w2Shape);
    for (int64_t i = 0; i < w2q.numel(); ++i)
        w2q.data<int8_t>()[i] = int8_t(std::nearbyint(w2.data<float>()[i] / 0.004f));
    qb.init("w2q", w2q);
    qb.init("w2s", Tensor::scalar<float>(0.004f));
    qb.init("w2zp", Tensor::scalar<int8_t>(0));
    qb.init("y2s", Tensor::scalar<float>(y2s));
    qb.init("y2zp", Tensor::scalar<uint8_t>(uint8_t(y2zp)));
    qb.node("QLinearConv", "conv2", {"y1q", "ys", "yzp", "w2q", "w2s", "w2zp", "y2s", "y2zp"},
            {"y2q"});
    qb.node("DequantizeLinear", "dq_y", {"y2q", "y2s", "y2zp"}, {"y"});
    qb.output("y");

    auto matching = matchLayers(fb.g, qb.g);
    ASSERT_TRUE(matching) << matching.status().message();
    const LayerMatch *m = nullptr;
    for (const auto &match : matching->matches)
        if (match.floatNode == "conv1") m = &match;
    ASSERT_NE(m, nullptr);
    auto capture = captureLayer(fb.g, qb.g, *m, fb.feeds);
    ASSERT_TRUE(capture) << capture.status().message();
    ASSERT_EQ(capture->target.scale, std::vector<float>{ys});
    ASSERT_TRUE(capture->quantOutputInt.defined());
    const Shape outShape = capture->floatOutput.shape();
    ASSERT_EQ(outShape, (Shape{2, 3, 5, 5}));
    for (int64_t i = 0; i < shapeElementCount(outShape); ++i) {
        const float dq = ys * float(int32_t(capture->quantOutputInt.valueAsDouble(i)) - yzp);
        ASSERT_EQ(capture->quantOutput.data<float>()[i], dq);
        auto e = explainElement(*capture, test::unravelIndex(i, outShape));
        ASSERT_TRUE(e) << e.status().message();
        ASSERT_EQ(e->kind, ElementExplanation::Kind::IntegerMatMul);
        ASSERT_TRUE(e->matchesEngine) << i;
        EXPECT_FLOAT_EQ(float(e->dequantized), dq);
        // Float side: the float Conv with its own (unquantized) weight and bias.
        EXPECT_NEAR(e->floatComputed, e->floatModelValue, 1e-5);
        // The quantized result tracks the float one within a few output steps.
        if (!e->clamped) EXPECT_LT(std::fabs(e->difference), 3 * ys) << i;
    }
    auto inspection = inspectLayer(fb.g, qb.g, *m, fb.feeds);
    ASSERT_TRUE(inspection) << inspection.status().message();
    EXPECT_EQ(inspection->quantRunOp, "QLinearConv");
    const QuantParamSet *out = role(*inspection, "output");
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->type, DataType::UInt8);
    EXPECT_EQ(out->scale.at(0), ys);
    EXPECT_EQ(out->zeroPoint.at(0), yzp);
    const QuantParamSet *weight = role(*inspection, "weight");
    ASSERT_NE(weight, nullptr);
    EXPECT_EQ(weight->scale, ws);
    ASSERT_TRUE(inspection->weightHistogram);
    EXPECT_EQ(sum(inspection->weightHistogram->quantCounts), wq.numel());
    // One runner captures both QLinearConv layers in a row exactly as captureLayer does.
    auto runner = LayerCaptureRunner::create(fb.g, qb.g);
    ASSERT_TRUE(runner) << runner.status().message();
    ASSERT_EQ(matching->matches.size(), 2u);
    auto sameBytes = [](const Tensor &a, const Tensor &b) {
        return a.dtype() == b.dtype() && a.shape() == b.shape() &&
               std::memcmp(a.rawData(), b.rawData(), a.byteSize()) == 0;
    };
    for (int round = 0; round < 2; ++round)
        for (const auto &match : matching->matches) {
            auto fresh = captureLayer(fb.g, qb.g, match, fb.feeds);
            auto reused = (*runner)->capture(match, fb.feeds);
            ASSERT_TRUE(fresh && reused) << match.floatNode;
            EXPECT_EQ(reused->quantRunReason, fresh->quantRunReason);
            EXPECT_TRUE(sameBytes(reused->floatOutput, fresh->floatOutput)) << match.floatNode;
            EXPECT_TRUE(sameBytes(reused->quantOutput, fresh->quantOutput)) << match.floatNode;
            ASSERT_EQ(reused->quantOutputInt.defined(), fresh->quantOutputInt.defined());
            if (fresh->quantOutputInt.defined())
                EXPECT_TRUE(sameBytes(reused->quantOutputInt, fresh->quantOutputInt));
            ASSERT_EQ(reused->quantValues.size(), fresh->quantValues.size());
            for (const auto &[name, t] : fresh->quantValues)
                EXPECT_TRUE(sameBytes(reused->quantValues.at(name), t)) << name;
        }
}

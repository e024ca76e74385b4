// Isolated (shadow) comparison and the int8-kernel-vs-reference check: on the committed PyTorch
// FX fixture (float.onnx vs qdq.onnx, 64 Fashion-MNIST images) against the cumulative figure of
// the first layer and a hand computation of conv2 fed the float relu1 output; on a hand-built
// two-Conv pair whose isolated figures follow from the quantization formulas; batch-size
// independence, a layer without a float input, and cancellation.
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "analysis/suite/isolated_comparison.h"
#include "analysis/suite/isolated_layer_graph.h"
#include "fx_fixture.h"
#include "conv_reference.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/tensor_file.h"
#include "passes/constant_folding.h"
#include "passes/precision.h"
#include "qdq_test_graphs.h"

using namespace ql;
using namespace ql::analysis;
using namespace ql::test;

namespace {

const LayerIsolatedComparison *layer(const IsolatedComparisonResult &r,
                                     const std::string &floatNode) {
    for (const auto &l : r.layers)
        if (l.match.floatNode == floatNode) return &l;
    return nullptr;
}

void printTable(const IsolatedComparisonResult &r) {
    std::printf("%-24s %-20s %10s %10s %8s %10s  %s\n", "float node", "quant node", "isolated",
                "k-vs-ref", "sat %", "rmse/sc", "lowering / note");
    for (const auto &l : r.layers) {
        std::printf(
            "%-24s %-20s %10.4f %10.3f %8.3f %10.4f  %s%s\n", l.match.floatNode.c_str(),
            l.match.quantNode.c_str(), l.metrics ? l.metrics->sqnrDb : NAN,
            l.kernelVsReferenceSqnrDb.value_or(NAN),
            l.metrics ? l.metrics->saturationPct.value_or(NAN) : NAN,  // NaN unless asked for
            l.metrics ? l.metrics->rmseOverScale.value_or(NAN) : NAN, l.lowering.c_str(),
            l.note.empty() ? "" : (" | " + l.note).c_str());
    }
}

double sqnrOf(const std::vector<double> &x, const std::vector<double> &y) {
    double s = 0.0, e = 0.0;
    for (size_t i = 0; i < x.size(); ++i) {
        s += x[i] * x[i];
        e += (x[i] - y[i]) * (x[i] - y[i]);
    }
    return 10.0 * std::log10(s / e);
}

// QuantizeLinear then DequantizeLinear of one value, as ONNX defines them (round half to even;
// the dequantized value is a float product).
double fakeQuant(double x, float scale, int zeroPoint, int qmin = 0, int qmax = 255) {
    const double q =
        std::min<double>(qmax, std::max<double>(qmin, std::nearbyint(x / scale) + zeroPoint));
    return double(float(q - zeroPoint) * scale);
}

// Runs the float model and keeps copies of the named values.
std::map<std::string, Tensor> floatValues(const Graph &g,
                                          const std::map<std::string, Tensor> &feeds,
                                          const std::set<std::string> &names) {
    std::map<std::string, Tensor> kept;
    auto plan = ExecutionPlan::create(g, PlanOptions{1});
    EXPECT_TRUE(plan) << plan.status().message();
    if (!plan) return kept;
    RunOptions run;
    run.tap = [&](const Node &node, size_t i, const Tensor &v) {
        if (names.count(node.outputs[i])) kept[node.outputs[i]] = v.toPlain().clone();
    };
    std::vector<Tensor> outputs;
    Status s = (*plan)->run(feeds, outputs, run);
    EXPECT_TRUE(s) << s.message();
    return kept;
}

const Node *nodeNamed(const Graph &g, const std::string &name) {
    const Node *n = g.findNode(name);
    EXPECT_NE(n, nullptr) << name;
    return n;
}

}  // namespace

// (a) the first quantized layer reads the graph input: isolated == cumulative. (c) int8 kernels
// vs reference >= 40 dB everywhere. Plus sanity of every figure.
TEST(IsolatedComparison, FixtureFirstLayerEqualsCumulativeAndKernelsMatchReference) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    IsolatedComparisonOptions options;
    options.threads = 1;
    options.expectedBatches = 4;
    int progressCalls = 0;
    options.progress = [&](int done, int total) {
        ++progressCalls;
        EXPECT_EQ(done, progressCalls);
        EXPECT_EQ(total, 4);
        return true;
    };
    const std::string input = f.floatGraph.inputs[0].name;
    auto isolated = compareIsolated(f.floatGraph, f.quantGraph, f.matching,
                                    slicer(f.inputs, input, 16), options);
    ASSERT_TRUE(isolated) << isolated.status().message();
    EXPECT_EQ(progressCalls, 4);
    EXPECT_EQ(isolated->samples, 64);
    EXPECT_EQ(isolated->batches, 4);
    ASSERT_EQ(isolated->layers.size(), f.matching.matches.size());
    printTable(*isolated);

    ActivationComparisonOptions cumulativeOptions;
    cumulativeOptions.threads = 1;
    auto cumulative = compareActivations(f.floatGraph, f.quantGraph, f.matching,
                                         slicer(f.inputs, input, 16), cumulativeOptions);
    ASSERT_TRUE(cumulative) << cumulative.status().message();

    // Saturation (when asked for) depends only on the float output and the output quantizer:
    // the cumulative comparison's figure.
    options.saturation = true;
    options.progress = {};
    auto withSaturation = compareIsolated(f.floatGraph, f.quantGraph, f.matching,
                                          slicer(f.inputs, input, 16), options);
    ASSERT_TRUE(withSaturation) << withSaturation.status().message();

    int firstLayers = 0, kernelChecked = 0;
    for (size_t i = 0; i < isolated->layers.size(); ++i) {
        const LayerIsolatedComparison &l = isolated->layers[i];
        SCOPED_TRACE(l.match.floatNode);
        ASSERT_TRUE(l.metrics) << l.note;  // every layer of this model has a float input
        EXPECT_EQ(l.metrics->samples, 64);
        EXPECT_TRUE(std::isfinite(l.metrics->sqnrDb));
        EXPECT_GT(l.metrics->sqnrDb, 15.0);
        EXPECT_FALSE(
            l.metrics->saturationPct);  // off by default: the cumulative figure is the same
        EXPECT_TRUE(l.metrics->rmseOverScale);
        // The quantization noise floor is 1/sqrt(12) of a step; a layer alone cannot beat it by
        // much.
        EXPECT_GT(*l.metrics->rmseOverScale, 0.2);
        const auto &c = cumulative->layers[i];
        ASSERT_TRUE(c.metrics.saturationPct);
        if (withSaturation->layers[i].metrics->saturationPct)
            EXPECT_EQ(*withSaturation->layers[i].metrics->saturationPct, *c.metrics.saturationPct);
        else
            ADD_FAILURE() << "no saturation with options.saturation";
        if (l.floatInputs == std::vector<std::string>{input}) {
            ++firstLayers;
            ASSERT_TRUE(c.observed);
            EXPECT_NEAR(l.metrics->sqnrDb, c.metrics.sqnrDb, 1e-6);
            EXPECT_NEAR(l.metrics->mse, c.metrics.mse, 1e-6 * c.metrics.mse);
            EXPECT_EQ(l.metrics->maxAbsError, c.metrics.maxAbsError);
        } else {
            // Downstream layers see less error alone than end to end (error accumulates).
            EXPECT_GE(l.metrics->sqnrDb, cumulative->layers[i].metrics.sqnrDb - 0.5);
        }
        if (l.int8) {
            ASSERT_TRUE(l.kernelVsReferenceSqnrDb);
            ++kernelChecked;
            EXPECT_GE(*l.kernelVsReferenceSqnrDb, 40.0) << l.lowering;
            EXPECT_FALSE(l.kernelMismatch);
        }
    }
    EXPECT_EQ(firstLayers, 1);
    EXPECT_GE(kernelChecked, 5);  // conv1..3, add, fc at least
}

// (b) conv2 (BN folded) fed the float relu1 output, computed by hand: Q/DQ of the float input
// with the layer's input parameters, naive convolution with the dequantized per-channel weights
// and bias, Q/DQ with the output parameters, SQNR against the float BN output.
TEST(IsolatedComparison, FixtureConv2MatchesHandComputation) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    const std::string input = f.floatGraph.inputs[0].name;
    IsolatedComparisonOptions options;
    options.threads = 1;
    auto isolated = compareIsolated(f.floatGraph, f.quantGraph, f.matching,
                                    slicer(f.inputs, input, 64), options);
    ASSERT_TRUE(isolated) << isolated.status().message();
    const LayerIsolatedComparison *conv2 = layer(*isolated, "/conv2/Conv");
    ASSERT_NE(conv2, nullptr);
    ASSERT_TRUE(conv2->metrics) << conv2->note;
    ASSERT_EQ(conv2->floatInputs, std::vector<std::string>{"/relu1/Relu_output_0"});
    ASSERT_EQ(conv2->match.floatOutput, "/bn2/BatchNormalization_output_0");

    // The quantized model's parameters, with its Constant nodes folded into initializers.
    Graph q = f.quantGraph;
    ASSERT_TRUE(foldConstants(q));
    auto init = [&](const std::string &name) {
        const Tensor *t = q.initializer(name);
        EXPECT_NE(t, nullptr) << name;
        return t ? *t : Tensor();
    };
    const Node *dqIn = nodeNamed(q, "/conv2/DequantizeLinear");
    const Node *dqW = nodeNamed(q, "/conv2/DequantizeLinear_1");
    const Node *dqB = nodeNamed(q, "/conv2/DequantizeLinear_2");
    const Node *conv = nodeNamed(q, "/conv2/Conv");
    const Node *qOut = nodeNamed(q, "/conv2/QuantizeLinear");
    ASSERT_TRUE(dqIn && dqW && dqB && conv && qOut);
    const double inScale = init(dqIn->inputs[1]).valueAsDouble(0);
    const int inZp = int(init(dqIn->inputs[2]).valueAsDouble(0));
    const double outScale = init(qOut->inputs[1]).valueAsDouble(0);
    const int outZp = int(init(qOut->inputs[2]).valueAsDouble(0));
    const Tensor wq = init(dqW->inputs[0]), ws = init(dqW->inputs[1]), wz = init(dqW->inputs[2]);
    const Tensor bq = init(dqB->inputs[0]), bs = init(dqB->inputs[1]), bz = init(dqB->inputs[2]);
    const int64_t outChannels = wq.dim(0), perChannel = wq.numel() / outChannels;
    Tensor w(DataType::Float, wq.shape()), b(DataType::Float, {outChannels});
    for (int64_t i = 0; i < wq.numel(); ++i) {
        const int64_t c = i / perChannel;
        w.data<float>()[i] =
            float((wq.valueAsDouble(i) - wz.valueAsDouble(c)) * ws.valueAsDouble(c));
    }
    for (int64_t c = 0; c < outChannels; ++c)
        b.data<float>()[c] =
            float((bq.valueAsDouble(c) - bz.valueAsDouble(c)) * bs.valueAsDouble(c));

    auto values = floatValues(f.floatGraph, {{input, f.inputs}},
                              {"/relu1/Relu_output_0", "/bn2/BatchNormalization_output_0"});
    const Tensor x = values["/relu1/Relu_output_0"],
                 ref = values["/bn2/BatchNormalization_output_0"];
    ASSERT_TRUE(x.defined() && ref.defined());
    Tensor xq(DataType::Float, x.shape());
    for (int64_t i = 0; i < x.numel(); ++i)
        xq.data<float>()[i] = float(fakeQuant(x.data<float>()[i], float(inScale), inZp));
    test::RefConvParams params;
    const auto pads = conv->attrInts("pads");
    params.padBegin = {pads[0], pads[1]};
    params.padEnd = {pads[2], pads[3]};
    params.strides = conv->attrInts("strides", {1, 1});
    const Tensor y = test::refConv(xq, w, &b, params);
    ASSERT_EQ(y.shape(), ref.shape());
    std::vector<double> expectX, expectY;
    for (int64_t i = 0; i < y.numel(); ++i) {
        expectX.push_back(ref.data<float>()[i]);
        expectY.push_back(fakeQuant(y.data<float>()[i], float(outScale), outZp));
    }
    const double hand = sqnrOf(expectX, expectY);
    std::printf("conv2 isolated: engine %.9f dB, by hand %.9f dB (cumulative PyTorch 32.65 dB)\n",
                conv2->metrics->sqnrDb, hand);
    // The int8 kernel accumulates exactly in int32; the hand path in double: they may round a
    // value sitting on a half step differently, nothing more.
    EXPECT_NEAR(conv2->metrics->sqnrDb, hand, 1e-3);
}

// (e) one batch of 64 and eight batches of 8 give the same figures.
TEST(IsolatedComparison, FixtureIsBatchSizeIndependent) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    const std::string input = f.floatGraph.inputs[0].name;
    IsolatedComparisonOptions options;
    options.threads = 1;
    auto by64 = compareIsolated(f.floatGraph, f.quantGraph, f.matching, slicer(f.inputs, input, 64),
                                options);
    auto by8 = compareIsolated(f.floatGraph, f.quantGraph, f.matching, slicer(f.inputs, input, 8),
                               options);
    ASSERT_TRUE(by64) << by64.status().message();
    ASSERT_TRUE(by8) << by8.status().message();
    EXPECT_EQ(by8->batches, 8);
    EXPECT_EQ(by8->samples, 64);
    for (size_t i = 0; i < by64->layers.size(); ++i) {
        const auto &a = by64->layers[i], &b = by8->layers[i];
        SCOPED_TRACE(a.match.floatNode);
        ASSERT_TRUE(a.metrics && b.metrics);
        // The float model's Gemm (oneDNN sgemm) sums in a different order for 8 and 64 rows, so
        // the float fc output itself moves by ~1e-8 relative between the runs; the streaming
        // adds nothing (every other layer agrees to 1e-9).
        const double rel = f.floatGraph.findNode(a.match.floatNode)->opType == "Gemm" ? 1e-7 : 1e-9;
        std::printf("%-18s by 64: %.12f dB  by 8: %.12f dB\n", a.match.floatNode.c_str(),
                    a.metrics->sqnrDb, b.metrics->sqnrDb);
        EXPECT_NEAR(a.metrics->sqnrDb, b.metrics->sqnrDb, rel * std::fabs(a.metrics->sqnrDb));
        EXPECT_NEAR(a.metrics->mse, b.metrics->mse, rel * a.metrics->mse);
        EXPECT_NEAR(a.metrics->cosine, b.metrics->cosine, 1e-9);
        EXPECT_NEAR(a.metrics->maxAbsError, b.metrics->maxAbsError, rel * a.metrics->maxAbsError);
        EXPECT_EQ(a.metrics->saturationPct, b.metrics->saturationPct);
        ASSERT_EQ(a.kernelVsReferenceSqnrDb.has_value(), b.kernelVsReferenceSqnrDb.has_value());
        if (a.kernelVsReferenceSqnrDb && std::isfinite(*a.kernelVsReferenceSqnrDb))
            EXPECT_NEAR(*a.kernelVsReferenceSqnrDb, *b.kernelVsReferenceSqnrDb,
                        rel * *a.kernelVsReferenceSqnrDb);
        ASSERT_TRUE(a.metrics->sampleSqnr && b.metrics->sampleSqnr);
        EXPECT_NEAR(a.metrics->sampleSqnr->median, b.metrics->sampleSqnr->median,
                    rel * std::fabs(a.metrics->sampleSqnr->median));
    }
}

// Driven batch by batch with captured float values (as a caller sharing one float pass does):
// same figures as compareIsolated, even with the graph input handed over twice.
TEST(IsolatedComparison, ComparatorFedCapturedValuesMatchesCompareIsolated) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    const std::string input = f.floatGraph.inputs[0].name;
    IsolatedComparisonOptions options;
    options.threads = 1;
    auto reference = compareIsolated(f.floatGraph, f.quantGraph, f.matching,
                                     slicer(f.inputs, input, 16), options);
    ASSERT_TRUE(reference) << reference.status().message();
    auto comparator = IsolatedComparator::create(f.floatGraph, f.quantGraph, f.matching, options);
    ASSERT_TRUE(comparator) << comparator.status().message();
    auto floatPlan = ExecutionPlan::create(f.floatGraph, PlanOptions{1});
    ASSERT_TRUE(floatPlan);
    auto source = slicer(f.inputs, input, 16);
    std::map<std::string, Tensor> batch, captured;
    std::vector<Tensor> outputs;
    while (true) {
        batch.clear();
        captured.clear();
        auto more = source(batch);
        ASSERT_TRUE(more);
        if (!*more) break;
        ASSERT_TRUE(runAndCapture(**floatPlan, batch, (*comparator)->floatValuesNeeded(), captured,
                                  outputs));
        ASSERT_TRUE(captured.count(input));  // the input comes twice: in `batch` and in `captured`
        ASSERT_TRUE((*comparator)->addBatch(batch, captured));
    }
    const IsolatedComparisonResult fed = (*comparator)->result();
    EXPECT_EQ(fed.samples, 64);
    EXPECT_EQ(fed.batches, 4);
    for (size_t i = 0; i < fed.layers.size(); ++i) {
        SCOPED_TRACE(fed.layers[i].match.floatNode);
        ASSERT_TRUE(fed.layers[i].metrics && reference->layers[i].metrics);
        EXPECT_EQ(fed.layers[i].metrics->samples, 64);
        EXPECT_NEAR(fed.layers[i].metrics->sqnrDb, reference->layers[i].metrics->sqnrDb,
                    1e-12 * std::fabs(reference->layers[i].metrics->sqnrDb));
    }
}

// The kernel check is optional; without it no reference plan runs and no figure is given.
TEST(IsolatedComparison, KernelCheckCanBeTurnedOff) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    IsolatedComparisonOptions options;
    options.kernelCheck = false;
    auto r = compareIsolated(f.floatGraph, f.quantGraph, f.matching,
                             slicer(f.inputs, f.floatGraph.inputs[0].name, 32), options);
    ASSERT_TRUE(r) << r.status().message();
    for (const auto &l : r->layers) {
        EXPECT_TRUE(l.metrics) << l.match.floatNode;
        EXPECT_FALSE(l.kernelVsReferenceSqnrDb) << l.match.floatNode;
    }
}

// Only the named layers run (a session's update re-compares the changed layers, with their
// producers in the matching): their figures are those of a run over every layer; the others
// have none.
TEST(IsolatedComparison, OnlyTheNamedLayersAreCompared) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    ASSERT_GE(f.matching.matches.size(), 3u);
    const auto source = [&] { return slicer(f.inputs, f.floatGraph.inputs[0].name, 32); };
    IsolatedComparisonOptions options;
    options.threads = 1;
    auto all = compareIsolated(f.floatGraph, f.quantGraph, f.matching, source(), options);
    ASSERT_TRUE(all) << all.status().message();
    const std::string chosen = f.matching.matches[1].floatNode;
    options.onlyLayers = {chosen};
    auto one = compareIsolated(f.floatGraph, f.quantGraph, f.matching, source(), options);
    ASSERT_TRUE(one) << one.status().message();
    ASSERT_EQ(one->layers.size(), all->layers.size());
    for (size_t i = 0; i < one->layers.size(); ++i) {
        const auto &a = all->layers[i], &b = one->layers[i];
        SCOPED_TRACE(a.match.floatNode);
        if (a.match.floatNode != chosen) {
            EXPECT_FALSE(b.metrics);
            EXPECT_FALSE(b.kernelVsReferenceSqnrDb);
            continue;
        }
        ASSERT_TRUE(a.metrics && b.metrics);
        EXPECT_EQ(b.metrics->sqnrDb, a.metrics->sqnrDb);
        ASSERT_TRUE(a.kernelVsReferenceSqnrDb && b.kernelVsReferenceSqnrDb);
        EXPECT_EQ(*b.kernelVsReferenceSqnrDb, *a.kernelVsReferenceSqnrDb);
    }
}

// The kernel check limited to the first 16 samples: same verdicts, from 16 of the 64 samples,
// whatever the batch size (batches of 16 and of 7: the 7-sample batches are cut at sample 16).
TEST(IsolatedComparison, KernelCheckOnTheFirstSamplesOnly) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    const std::string input = f.floatGraph.inputs[0].name;
    IsolatedComparisonOptions options;
    options.threads = 1;
    auto all = compareIsolated(f.floatGraph, f.quantGraph, f.matching, slicer(f.inputs, input, 16),
                               options);
    options.kernelCheckSamples = 16;
    auto first = compareIsolated(f.floatGraph, f.quantGraph, f.matching,
                                 slicer(f.inputs, input, 16), options);
    auto firstBy7 = compareIsolated(f.floatGraph, f.quantGraph, f.matching,
                                    slicer(f.inputs, input, 7), options);
    Fixture head = f;
    head.inputs = Tensor(DataType::Float, {16, 1, 28, 28});
    std::memcpy(head.inputs.data<float>(), f.inputs.data<float>(), head.inputs.byteSize());
    options.kernelCheckSamples = 0;
    auto only16 = compareIsolated(f.floatGraph, f.quantGraph, f.matching,
                                  slicer(head.inputs, input, 16), options);
    ASSERT_TRUE(all && first && firstBy7 && only16);
    EXPECT_EQ(all->kernelCheckSamples, 64);
    EXPECT_EQ(first->kernelCheckSamples, 16);
    EXPECT_EQ(firstBy7->kernelCheckSamples, 16);
    for (size_t i = 0; i < all->layers.size(); ++i) {
        SCOPED_TRACE(all->layers[i].match.floatNode);
        ASSERT_EQ(first->layers[i].kernelVsReferenceSqnrDb.has_value(),
                  all->layers[i].kernelVsReferenceSqnrDb.has_value());
        if (!first->layers[i].kernelVsReferenceSqnrDb) continue;
        // The same samples through the same per-element kernels: the integer sums are equal
        // (float outputs: the same sums in another batch grouping, so a relative 1e-9).
        const double a = *first->layers[i].kernelVsReferenceSqnrDb;
        const double b = *only16->layers[i].kernelVsReferenceSqnrDb;
        const double c = *firstBy7->layers[i].kernelVsReferenceSqnrDb;
        if (std::isinf(a)) {
            EXPECT_TRUE(std::isinf(b) && std::isinf(c));
        } else {
            EXPECT_NEAR(a, b, 1e-9 * std::abs(a));
            EXPECT_NEAR(a, c, 1e-9 * std::abs(a));
        }
        EXPECT_EQ(first->layers[i].kernelMismatch, all->layers[i].kernelMismatch);
        // The isolated figures still cover every sample.
        EXPECT_EQ(first->layers[i].metrics->sqnrDb, all->layers[i].metrics->sqnrDb);
    }
}

// (f)
TEST(IsolatedComparison, CancelStopsAfterFirstBatch) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    IsolatedComparisonOptions options;
    int calls = 0;
    options.progress = [&](int, int) { return ++calls < 1; };
    auto r = compareIsolated(f.floatGraph, f.quantGraph, f.matching,
                             slicer(f.inputs, f.floatGraph.inputs[0].name, 16), options);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.status().kind(), ErrorKind::Cancelled);
    EXPECT_EQ(calls, 1);
}

namespace {

// Float: x -> Conv c1 (w 0.523) -> y1 -> Conv c2 (w 0.7312) -> y2.
// Quantized (QDQ): Q/DQ(x; 0.1, 128) -> c1 (w 52 * 0.01) -> Q/DQ(0.05, 128) -> c2 (w 73 * 0.01)
// -> Q/DQ(0.05, 128) -> y2. 1x1 convolutions on one channel: every value is a scalar product.
struct TwoConvs {
    Graph floatGraph, quantGraph;
    Tensor x;
};

TwoConvs twoConvs() {
    TwoConvs t;
    const Shape shape{2, 1, 1, 6};
    t.x = Tensor::fromVector<float>(shape, {-1.23f, 0.37f, 2.21f, 3.66f, -3.07f, 0.91f, 1.58f,
                                            -0.44f, 4.02f, -2.71f, 0.08f, 2.93f});
    test::QdqBuilder fb;
    fb.input("x", t.x);
    fb.init("w1", Tensor::fromVector<float>({1, 1, 1, 1}, {0.523f}));
    fb.init("w2", Tensor::fromVector<float>({1, 1, 1, 1}, {0.7312f}));
    fb.node("Conv", "c1", {"x", "w1"}, {"y1"});
    fb.node("Conv", "c2", {"y1", "w2"}, {"y2"});
    fb.output("y2");
    t.floatGraph = fb.g;

    test::QdqBuilder qb;
    qb.input("x", t.x);
    const std::string xd = qb.qdq("x", 0.1f, 128);
    qb.init("w1_q", Tensor::fromVector<int8_t>({1, 1, 1, 1}, {52}));
    qb.init("w1_scale", Tensor::scalar<float>(0.01f));
    qb.init("w1_zp", Tensor::scalar<int8_t>(0));
    qb.node("DequantizeLinear", "dq_w1", {"w1_q", "w1_scale", "w1_zp"}, {"w1"});
    qb.init("w2_q", Tensor::fromVector<int8_t>({1, 1, 1, 1}, {73}));
    qb.init("w2_scale", Tensor::scalar<float>(0.01f));
    qb.init("w2_zp", Tensor::scalar<int8_t>(0));
    qb.node("DequantizeLinear", "dq_w2", {"w2_q", "w2_scale", "w2_zp"}, {"w2"});
    qb.node("Conv", "c1", {xd, "w1"}, {"y1"});
    const std::string y1d = qb.qdq("y1", 0.05f, 128);
    qb.node("Conv", "c2", {y1d, "w2"}, {"y2"});
    const std::string y2d = qb.qdq("y2", 0.05f, 128);
    qb.output(y2d);
    t.quantGraph = qb.g;
    t.floatGraph.inputs[0].shape[0] = -1;  // batches of any size
    t.quantGraph.inputs[0].shape[0] = -1;
    return t;
}

}  // namespace

// (d) Isolated figures from the quantization formulas: c1 sees Q/DQ(x), c2 sees Q/DQ of the FLOAT
// y1 (not the quantized model's y1), each with its own weights and output quantization.
TEST(IsolatedComparison, TwoConvsMatchTheFormulas) {
    TwoConvs t = twoConvs();
    auto matching = matchLayers(t.floatGraph, t.quantGraph);
    ASSERT_TRUE(matching) << matching.status().message();
    ASSERT_EQ(matching->matches.size(), 2u);
    IsolatedComparisonOptions options;
    options.threads = 1;
    auto r = compareIsolated(t.floatGraph, t.quantGraph, *matching, slicer(t.x, "x", 1), options);
    ASSERT_TRUE(r) << r.status().message();
    printTable(*r);
    ASSERT_EQ(r->samples, 2);

    std::vector<double> y1, y2, iso1, iso2, cum2;
    for (int64_t i = 0; i < t.x.numel(); ++i) {
        const double x = t.x.data<float>()[i];
        const double fy1 = double(float(x * 0.523f));
        y1.push_back(fy1);
        y2.push_back(double(float(float(fy1) * 0.7312f)));
        iso1.push_back(fakeQuant(0.52 * fakeQuant(x, 0.1f, 128), 0.05f, 128));
        iso2.push_back(fakeQuant(0.73 * fakeQuant(fy1, 0.05f, 128), 0.05f, 128));
        cum2.push_back(fakeQuant(0.73 * iso1.back(), 0.05f, 128));
    }
    const auto *c1 = layer(*r, "c1");
    const auto *c2 = layer(*r, "c2");
    ASSERT_TRUE(c1 && c2 && c1->metrics && c2->metrics);
    EXPECT_EQ(c2->floatInputs, std::vector<std::string>{"y1"});
    EXPECT_TRUE(c1->int8) << c1->lowering;
    EXPECT_NEAR(c1->metrics->sqnrDb, sqnrOf(y1, iso1), 1e-9 * std::fabs(c1->metrics->sqnrDb));
    EXPECT_NEAR(c2->metrics->sqnrDb, sqnrOf(y2, iso2), 1e-9 * std::fabs(c2->metrics->sqnrDb));
    double maxErr = 0.0;
    for (size_t i = 0; i < y2.size(); ++i) maxErr = std::max(maxErr, std::fabs(y2[i] - iso2[i]));
    EXPECT_NEAR(c2->metrics->maxAbsError, maxErr, 1e-6);
    // The cumulative figure of c2 differs: it sees c1's quantized output.
    EXPECT_GT(std::fabs(sqnrOf(y2, cum2) - sqnrOf(y2, iso2)), 0.5);
    // Exact kernels reproduce the reference path bit for bit on these values.
    ASSERT_TRUE(c2->kernelVsReferenceSqnrDb);
    EXPECT_TRUE(std::isinf(*c2->kernelVsReferenceSqnrDb)) << *c2->kernelVsReferenceSqnrDb;
}

// A layer whose input comes from an unmatched layer has no float input: no figure, a note.
TEST(IsolatedComparison, LayerWithoutFloatInputGetsANote) {
    TwoConvs t = twoConvs();
    auto full = matchLayers(t.floatGraph, t.quantGraph);
    ASSERT_TRUE(full);
    LayerMatching onlyC2;
    for (const auto &m : full->matches)
        if (m.floatNode == "c2") onlyC2.matches.push_back(m);
    ASSERT_EQ(onlyC2.matches.size(), 1u);
    auto r = compareIsolated(t.floatGraph, t.quantGraph, onlyC2, slicer(t.x, "x", 2));
    ASSERT_TRUE(r) << r.status().message();
    ASSERT_EQ(r->layers.size(), 1u);
    EXPECT_FALSE(r->layers[0].metrics);
    EXPECT_FALSE(r->layers[0].kernelVsReferenceSqnrDb);
    EXPECT_NE(r->layers[0].note.find("'y1'"), std::string::npos) << r->layers[0].note;
    EXPECT_NE(r->layers[0].note.find("no float counterpart"), std::string::npos)
        << r->layers[0].note;
    EXPECT_EQ(r->samples, 2);
}

// A QOperator model (the fixture lowered to QLinearConv / QLinearAdd / QGemm, MaxPool on uint8)
// is expanded back to QDQ for the cut; names survive, uint8 MaxPool inputs and outputs are
// quantized / dequantized with the parameters they carry, and the layers that are the same
// quantized computation in both forms get the figures of the QDQ form.
TEST(IsolatedComparison, QOperatorFormGivesTheQdqFigures) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    Graph qop = f.quantGraph;
    ASSERT_TRUE(preparePrecision(qop, Precision::Int8));
    ASSERT_GT(test::countOps(qop, "QLinearConv"), 0);
    auto qopMatching = matchLayers(f.floatGraph, qop);
    ASSERT_TRUE(qopMatching) << qopMatching.status().message();
    const std::string input = f.floatGraph.inputs[0].name;
    IsolatedComparisonOptions options;
    options.threads = 1;
    auto qdqResult = compareIsolated(f.floatGraph, f.quantGraph, f.matching,
                                     slicer(f.inputs, input, 32), options);
    auto qopResult =
        compareIsolated(f.floatGraph, qop, *qopMatching, slicer(f.inputs, input, 32), options);
    ASSERT_TRUE(qdqResult) << qdqResult.status().message();
    ASSERT_TRUE(qopResult) << qopResult.status().message();
    printTable(*qopResult);
    int compared = 0;
    for (const auto &l : qopResult->layers) {
        SCOPED_TRACE(l.match.floatNode + " / " + l.match.quantNode);
        const LayerIsolatedComparison *ref = layer(*qdqResult, l.match.floatNode);
        ASSERT_NE(ref, nullptr);
        // Skipped: layers matched to a different float value (the lowering dropped a Relu that the
        // uint8 output range already clamps, and the matcher does not fold the float Relu then),
        // and the Flatten, which the lowered model runs in float on the dequantized pool2 output
        // (its requantization moved into QGemm's input): a different quantized model.
        if (!ref->metrics || ref->match.floatOutput != l.match.floatOutput ||
            l.match.floatNode == "/flatten/Flatten")
            continue;
        ASSERT_TRUE(l.metrics) << l.note;
        EXPECT_NEAR(l.metrics->sqnrDb, ref->metrics->sqnrDb,
                    1e-9 * std::fabs(ref->metrics->sqnrDb));
        ++compared;
    }
    EXPECT_GE(compared,
              4);  // conv2, pool1 and pool2 (uint8 MaxPool: quantized roots and outputs), fc
}

// The mismatch flag follows the threshold: at 100 dB the conv2 kernel (exact integer arithmetic,
// ~77 dB from the reference's float rounding of half steps) is flagged, bit-exact layers are not.
TEST(IsolatedComparison, KernelMismatchFollowsTheThreshold) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    IsolatedComparisonOptions options;
    options.kernelMismatchDb = 100.0;
    auto r = compareIsolated(f.floatGraph, f.quantGraph, f.matching,
                             slicer(f.inputs, f.floatGraph.inputs[0].name, 64), options);
    ASSERT_TRUE(r) << r.status().message();
    int flagged = 0;
    for (const auto &l : r->layers) {
        if (!l.kernelVsReferenceSqnrDb) {
            EXPECT_FALSE(l.kernelMismatch);
            continue;
        }
        EXPECT_EQ(l.kernelMismatch, *l.kernelVsReferenceSqnrDb < 100.0) << l.match.floatNode;
        flagged += l.kernelMismatch;
    }
    const auto *conv2 = layer(*r, "/conv2/Conv");
    ASSERT_TRUE(conv2 && conv2->kernelVsReferenceSqnrDb);
    EXPECT_GT(*conv2->kernelVsReferenceSqnrDb, 40.0);
    EXPECT_TRUE(conv2->kernelMismatch);
    EXPECT_GE(flagged, 1);
}

// An input that only feeds a per-tensor QuantizeLinear is fed quantized: the graph input becomes
// the QuantizeLinear's 8-bit output. Any other reader of the input keeps the graph as it is.
TEST(IsolatedComparison, InputBehindOneQuantizeLinearIsFedQuantized) {
    Graph g;
    g.inputs.push_back({"x", DataType::Float});
    g.initializers["s"] = Tensor::scalar<float>(0.05f);
    g.initializers["z"] = Tensor::scalar<int8_t>(-3);
    Node quantize{"q", "QuantizeLinear", "", {"x", "s", "z"}, {"xq"}, {}};
    Node dequantize{"dq", "DequantizeLinear", "", {"xq", "s", "z"}, {"y"}, {}};
    g.nodes = {quantize, dequantize};
    g.outputs.push_back({"y", DataType::Float});

    Graph shared = g;
    shared.nodes.push_back({"relu", "Relu", "", {"x"}, {"r"}, {}});
    EXPECT_FALSE(feedQuantized(shared, "x"));
    EXPECT_EQ(shared.nodes.size(), 3u);
    EXPECT_EQ(shared.inputs[0].name, "x");

    const auto feed = feedQuantized(g, "x");
    ASSERT_TRUE(feed);
    EXPECT_EQ(feed->input, "xq");
    EXPECT_EQ(feed->type, DataType::Int8);
    EXPECT_EQ(feed->scale, 0.05f);
    EXPECT_EQ(feed->zeroPoint, -3);
    ASSERT_EQ(g.inputs.size(), 1u);
    EXPECT_EQ(g.inputs[0].name, "xq");
    EXPECT_EQ(g.inputs[0].dtype, DataType::Int8);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].name, "dq");
    // The cut graph computes what the whole one did from the quantized feed.
    const Tensor q = Tensor::fromVector<int8_t>({3}, {-3, 17, -128});
    const std::vector<Tensor> out = run(g, {{"xq", q}});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].data<float>()[1], 20 * 0.05f);
    EXPECT_EQ(out[0].data<float>()[2], -125 * 0.05f);
}

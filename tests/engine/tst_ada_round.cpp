// AdaRound against its purpose and its arithmetic.
//  * The reconstruction statistics (im2col with stride, padding and groups; Gemm with a
//    transposed weight; MatMul over batched rows) give the same squared error for changed
//    weights as running the layer itself.
//  * On samples it never saw, every adaptively rounded layer reconstructs its float output better
//    than rounding to nearest (the error measured with statistics of the held-out data), and the
//    model's output SQNR rises. The inputs are smooth images (neighbouring pixels correlated), the
//    case where the rounding errors of one row's weights add up and choosing them pays.
//  * The chosen weights lie on the plan's grid exactly, one seed gives one result, chosen layers
//    only, and a misnamed or cancelled run says so.
#include <gtest/gtest.h>

#include <cmath>

#include "qdq_test_graphs.h"
#include "quant/qdq_builder.h"
#include "quant/qparams.h"
#include "quant/remedies/ada_round.h"
#include "quant/remedies/paired_pass.h"
#include "quant/remedies/reconstruction_statistics.h"
#include "remedy_test_graphs.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::quant;
using namespace ql::test;

namespace {

// Images whose 3×3 blocks share a value, plus a little noise: correlated neighbours.
Tensor smoothImages(unsigned seed, int64_t n) {
    const Tensor coarse = randomTensor({n, 3, 4, 4}, seed, 0.0f, 1.0f);
    const Tensor noise = randomTensor({n, 3, 12, 12}, seed + 1, -0.05f, 0.05f);
    std::vector<float> v(static_cast<size_t>(n * 3 * 144));
    for (int64_t i = 0; i < n * 3; ++i)
        for (int64_t y = 0; y < 12; ++y)
            for (int64_t x = 0; x < 12; ++x)
                v[(i * 12 + y) * 12 + x] = coarse.data<float>()[(i * 4 + y / 3) * 4 + x / 3] +
                                           noise.data<float>()[(i * 12 + y) * 12 + x];
    return Tensor::fromVector<float>({n, 3, 12, 12}, v);
}

// x → c1 (3×3) → Relu → c2 (3×3, stride 2, 2 groups) → Relu → GlobalAveragePool → Flatten →
// fc (Gemm, B stored [8, 5]) → z, and mm (MatMul [8, 4]) → m from the same features.
QdqBuilder network() {
    QdqBuilder b;
    b.input("x", smoothImages(1, 8));
    addConv(b, "c1", "x", "h1", {16, 3, 3, 3}, 2);
    b.node("Relu", "r1", {"h1"}, {"a1"});
    addConv(b, "c2", "a1", "h2", {8, 8, 3, 3}, 3, 2);
    mutableNode(b.g, "c2").attributes["strides"] = intsAttr({2, 2});
    b.node("Relu", "r2", {"h2"}, {"a2"});
    b.node("GlobalAveragePool", "gap", {"a2"}, {"g"});
    b.node("Flatten", "flat", {"g"}, {"f"});
    b.init("fc.w", randomTensor({8, 5}, 5));
    b.init("fc.b", randomTensor({5}, 6, -0.2f, 0.2f));
    b.node("Gemm", "fc", {"f", "fc.w", "fc.b"}, {"z"});
    b.init("mm.w", randomTensor({8, 4}, 7));
    b.node("MatMul", "mm", {"f", "mm.w"}, {"m"});
    b.output("z");
    b.output("m");
    return b;
}

std::vector<std::map<std::string, Tensor>> batches(unsigned seed, int count) {
    std::vector<std::map<std::string, Tensor>> out;
    for (int i = 0; i < count; ++i) out.push_back({{"x", smoothImages(seed + 2 * i, 8)}});
    return out;
}

// One layer as its own graph: `node` reading "in" with weight `weight`, without bias.
Tensor runLayer(const Node &node, const Tensor &weight, const Tensor &input) {
    QdqBuilder b;
    b.input("in", input);
    b.init("w", weight);
    Node &n = b.node(node.opType, "layer", {"in", "w"}, {"out"});
    n.attributes = node.attributes;
    b.output("out");
    return run(b.g, b.feeds).at(0);
}

double squaredDifference(const Tensor &a, const Tensor &b) {
    double s = 0;
    for (int64_t i = 0; i < a.numel(); ++i)
        s += std::pow(double(a.data<float>()[i]) - b.data<float>()[i], 2);
    return s;
}

// Statistics of every layer of `layers` over `data`: inputs from `qdq` and `reference`.
std::map<std::string, ReconstructionStatistics> statisticsOn(
    const Graph &reference, const Graph &qdq, const std::vector<std::string> &layers,
    const std::vector<std::map<std::string, Tensor>> &data) {
    std::map<std::string, ReconstructionStatistics> out;
    std::map<std::string, std::string> quantValue;
    std::map<std::string, std::vector<std::string>> layersOf;  // fc and mm share their input
    for (const std::string &name : layers) {
        auto stats = ReconstructionStatistics::forLayer(reference, *reference.findNode(name));
        EXPECT_TRUE(stats) << stats.status().message();
        out.emplace(name, std::move(*stats));
        quantValue[reference.findNode(name)->inputs[0]] = qdq.findNode(name)->inputs[0];
        layersOf[reference.findNode(name)->inputs[0]].push_back(name);
    }
    auto fp = tapPlan(reference, 2);
    auto qp = tapPlan(qdq, 2);
    EXPECT_TRUE(runPaired(
                    **fp, **qp, batchesOpener(data), quantValue,
                    [&](const std::string &value, const Tensor &q, const Tensor &f) {
                        for (const std::string &layer : layersOf.at(value))
                            QL_RETURN_IF_ERROR(out.at(layer).add(q, f, 1 << 20, 0));
                        return Status::ok();
                    },
                    "test")
                    .isOk());
    return out;
}

std::vector<float> weightsOf(const Graph &g, const std::string &layer) {
    return ReconstructionStatistics::forLayer(g, *g.findNode(layer))->weights();
}

std::vector<float> difference(std::vector<float> a, const std::vector<float> &b) {
    for (size_t i = 0; i < a.size(); ++i) a[i] -= b[i];
    return a;
}

}  // namespace

TEST(ReconstructionStatistics, SquaredErrorEqualsRunningTheLayer) {
    const QdqBuilder b = network();
    struct Case {
        std::string layer;
        Tensor input;
    };
    const std::vector<Case> cases = {
        {"c2", randomTensor({3, 16, 12, 12}, 11)},  // stride 2, pads 1, 2 groups
        {"fc", randomTensor({6, 8}, 12)},           // Gemm, B stored [depth, outputs]
        {"mm", randomTensor({2, 5, 8}, 13)},        // MatMul over batched rows
    };
    for (const Case &c : cases) {
        const Node &node = *b.g.findNode(c.layer);
        const Tensor &w = *b.g.initializer(node.inputs[1]);
        auto stats = ReconstructionStatistics::forLayer(b.g, node);
        ASSERT_TRUE(stats) << stats.status().message();
        const Tensor noisy = c.input.clone();
        const Tensor noise = randomTensor(c.input.shape(), 14, -0.03f, 0.03f);
        for (int64_t i = 0; i < noisy.numel(); ++i)
            const_cast<float *>(noisy.data<float>())[i] += noise.data<float>()[i];
        const Status added = stats->add(noisy, c.input, 1 << 20, 0);
        ASSERT_TRUE(added.isOk()) << added.message();

        std::vector<float> delta(stats->weights().size());
        const Tensor random = randomTensor({int64_t(delta.size())}, 15, -0.02f, 0.02f);
        for (size_t i = 0; i < delta.size(); ++i) delta[i] = random.data<float>()[i];
        std::vector<float> changed = stats->weights();
        for (size_t i = 0; i < delta.size(); ++i) changed[i] += delta[i];
        const Tensor changedWeight = stats->weightTensor(changed);
        ASSERT_EQ(changedWeight.shape(), w.shape());

        const Tensor exact = runLayer(node, w, c.input);
        const double direct = squaredDifference(runLayer(node, changedWeight, noisy), exact);
        double signal = 0;
        for (float y : exact.toFloatVector()) signal += double(y) * y;
        EXPECT_NEAR(stats->squaredError(delta), direct, 1e-3 * direct) << c.layer;
        EXPECT_NEAR(stats->signal(), signal, 1e-4 * signal) << c.layer;
        EXPECT_NEAR(stats->inputError(), squaredDifference(runLayer(node, w, noisy), exact),
                    1e-3 * direct)
            << c.layer;
        EXPECT_EQ(stats->columns(), exact.numel() / stats->rowsPerGroup() / stats->groups());
    }
}

TEST(AdaRound, EveryRoundedLayerReconstructsBetterOnHeldOutSamples) {
    const QdqBuilder b = network();
    const auto calibration = batches(100, 4), heldOut = batches(300, 4);
    PerTensorQuantized q = quantizePerTensor(b.g, calibration);

    Graph rounded = q.prepared;
    AdaRoundOptions options;
    options.threads = 2;
    options.iterations = 300;
    std::vector<int> progress;
    options.progress = [&](int done, int total) {
        EXPECT_EQ(total, 1000);
        progress.push_back(done);
        return true;
    };
    auto report = adaRound(rounded, q.result.plan, batchesOpener(calibration), options);
    ASSERT_TRUE(report) << report.status().message();
    ASSERT_EQ(report->layers.size(), 4u);
    EXPECT_EQ(report->samples, 32);
    EXPECT_EQ(progress.back(), 1000);
    EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
    // The caller's plan graph keeps its weights.
    EXPECT_EQ(q.prepared.initializer("c1.w")->toFloatVector(),
              b.g.initializer("c1.w")->toFloatVector());

    const std::vector<std::string> layers = {"c1", "c2", "fc", "mm"};
    auto held = statisticsOn(q.prepared, q.result.model, layers, heldOut);
    int improved = 0;
    for (const RoundedLayer &l : report->layers) {
        const ReconstructionStatistics &s = held.at(l.node);
        const std::vector<float> original = weightsOf(q.prepared, l.node);
        const QParams &qp = q.result.plan.weights.at({l.node, 1}).qparams;
        std::vector<float> nearest = original;
        for (float &w : nearest)
            w = dequantizeValue(quantizeValue(w, qp.scale[0], 0, -128, 127), qp.scale[0], 0);
        const double before = s.squaredError(difference(nearest, original));
        const double after = s.squaredError(difference(weightsOf(rounded, l.node), original));
        std::printf(
            "%-3s %6lld weights, %5lld changed: calibration %.2f -> %.2f dB, held out "
            "%.2f -> %.2f dB\n",
            l.node.c_str(), (long long)l.weights, (long long)l.changed, l.weightOnlySqnrNearest,
            l.weightOnlySqnrAdaptive, 10 * std::log10(s.signal() / before),
            10 * std::log10(s.signal() / after));
        EXPECT_GE(l.weightOnlySqnrAdaptive, l.weightOnlySqnrNearest) << l.node;
        if (l.keptNearest) {
            EXPECT_EQ(l.changed, 0) << l.node;
            continue;
        }
        ++improved;
        EXPECT_GT(l.changed, 0) << l.node;
        EXPECT_LT(after, before) << l.node;
    }
    EXPECT_GE(improved, 3);

    auto fixed = buildQdqGraph(rounded, q.result.plan);
    ASSERT_TRUE(fixed) << fixed.status().message();
    for (size_t output : {0u, 1u}) {
        const double sqnrBefore = outputSqnr(q.prepared, q.result.model, output, heldOut);
        const double sqnrAfter = outputSqnr(q.prepared, *fixed, output, heldOut);
        std::printf("output %zu SQNR %.2f -> %.2f dB\n", output, sqnrBefore, sqnrAfter);
        EXPECT_GT(sqnrAfter, sqnrBefore) << output;
    }
}

TEST(AdaRound, ChosenWeightsLieOnThePlansGridAndOneSeedGivesOneResult) {
    const QdqBuilder b = network();
    const auto calibration = batches(100, 2);
    PerTensorQuantized q = quantizePerTensor(b.g, calibration);
    AdaRoundOptions options;
    options.iterations = 100;
    options.columnsPerSample = 20;  // of c1's 144 and c2's 36 positions: drawn by the seed
    Graph first = q.prepared, second = q.prepared;
    ASSERT_TRUE(adaRound(first, q.result.plan, batchesOpener(calibration), options));
    ASSERT_TRUE(adaRound(second, q.result.plan, batchesOpener(calibration), options));
    for (const char *layer : {"c1", "c2", "fc", "mm"}) {
        const std::string weight = first.findNode(layer)->inputs[1];
        EXPECT_EQ(first.initializer(weight)->toFloatVector(),
                  second.initializer(weight)->toFloatVector())
            << layer;
        const QParams &qp = q.result.plan.weights.at({layer, 1}).qparams;
        const Tensor back = fakeQuantizeTensor(*first.initializer(weight), qp);
        EXPECT_EQ(back.toFloatVector(), first.initializer(weight)->toFloatVector()) << layer;
    }
}

TEST(AdaRound, ChosenLayersOnlyAndClearErrors) {
    const QdqBuilder b = network();
    const auto calibration = batches(100, 2);
    PerTensorQuantized q = quantizePerTensor(b.g, calibration);

    Graph g = q.prepared;
    AdaRoundOptions options;
    options.iterations = 50;
    options.layers = {"c2"};
    auto report = adaRound(g, q.result.plan, batchesOpener(calibration), options);
    ASSERT_TRUE(report) << report.status().message();
    ASSERT_EQ(report->layers.size(), 1u);
    EXPECT_EQ(report->layers[0].node, "c2");
    EXPECT_EQ(g.initializer("c1.w")->toFloatVector(),
              q.prepared.initializer("c1.w")->toFloatVector());

    options.layers = {"nope"};
    auto unknown = adaRound(g, q.result.plan, batchesOpener(calibration), options);
    ASSERT_FALSE(unknown);
    EXPECT_NE(unknown.status().message().find("no node 'nope'"), std::string::npos);

    options.layers.clear();
    options.progress = [](int done, int) { return done < 500; };
    auto cancelled = adaRound(g, q.result.plan, batchesOpener(calibration), options);
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.status().kind(), ErrorKind::Cancelled);

    // A weight two layers share cannot take two roundings.
    Graph shared = q.prepared;
    mutableNode(shared, "mm").inputs[1] = "fc.w";
    shared.initializers.erase("mm.w");
    QuantizationPlan plan = q.result.plan;
    plan.weights[{"mm", 1}] = plan.weights.at({"fc", 1});
    options.progress = {};
    auto sharedReport = adaRound(shared, plan, batchesOpener(calibration), options);
    ASSERT_TRUE(sharedReport) << sharedReport.status().message();
    ASSERT_EQ(sharedReport->skipped.size(), 2u);
    EXPECT_NE(sharedReport->skipped[0].reason.find("shared"), std::string::npos);
}

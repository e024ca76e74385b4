// LayerCaptureRunner: captures through one runner (several layers in a row, both orders, another
// batch, another thread, a quantized graph swapped in after a toggle) equal a fresh captureLayer
// bit for bit, on the FX fixture and on the GUI demo pair; values of an earlier capture are not
// overwritten by later runs of the kept plans; unknown layers are errors.

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <thread>

#include "analysis/session/keep_layers_fp32.h"
#include "analysis/explain/layer_capture.h"
#include "fx_fixture.h"

using namespace ql;
using namespace ql::analysis;

namespace {

::testing::AssertionResult sameTensor(const Tensor &a, const Tensor &b) {
    if (a.defined() != b.defined()) return ::testing::AssertionFailure() << "defined differs";
    if (!a.defined()) return ::testing::AssertionSuccess();
    if (a.dtype() != b.dtype() || a.shape() != b.shape() || a.layout() != b.layout())
        return ::testing::AssertionFailure()
               << "type/shape/layout differ: " << shapeToString(a.shape()) << " vs "
               << shapeToString(b.shape());
    if (std::memcmp(a.rawData(), b.rawData(), a.byteSize()) != 0)
        return ::testing::AssertionFailure() << "bytes differ";
    return ::testing::AssertionSuccess();
}

::testing::AssertionResult sameValues(const std::map<std::string, Tensor> &a,
                                      const std::map<std::string, Tensor> &b) {
    if (a.size() != b.size())
        return ::testing::AssertionFailure() << a.size() << " vs " << b.size() << " values";
    for (const auto &[name, t] : a) {
        auto it = b.find(name);
        if (it == b.end()) return ::testing::AssertionFailure() << "missing " << name;
        auto same = sameTensor(t, it->second);
        if (!same) return same << " (" << name << ")";
    }
    return ::testing::AssertionSuccess();
}

std::vector<std::string> nodeNames(const Graph &g) {
    std::vector<std::string> names;
    for (const auto &n : g.nodes) names.push_back(n.name + ":" + n.opType);
    return names;
}

// Every field of two captures of the same layer.
void expectSameCapture(const LayerCapture &a, const LayerCapture &b) {
    const std::string layer = a.match.floatNode;
    EXPECT_EQ(a.match.floatNode, b.match.floatNode);
    EXPECT_EQ(a.match.quantNode, b.match.quantNode);
    EXPECT_EQ(a.quantRunNode, b.quantRunNode) << layer;
    EXPECT_EQ(a.quantRunReason, b.quantRunReason) << layer;
    EXPECT_EQ(a.target.floatName, b.target.floatName) << layer;
    EXPECT_EQ(a.target.quantizedNames, b.target.quantizedNames) << layer;
    EXPECT_EQ(a.target.scale, b.target.scale) << layer;
    EXPECT_EQ(a.target.zeroPoint, b.target.zeroPoint) << layer;
    EXPECT_EQ(nodeNames(a.floatFolded), nodeNames(b.floatFolded)) << layer;
    EXPECT_EQ(nodeNames(a.quantFolded), nodeNames(b.quantFolded)) << layer;
    EXPECT_EQ(nodeNames(a.quantRun), nodeNames(b.quantRun)) << layer;
    EXPECT_EQ(a.floatFolded.initializers.size(), b.floatFolded.initializers.size()) << layer;
    EXPECT_EQ(a.quantRun.initializers.size(), b.quantRun.initializers.size()) << layer;
    EXPECT_TRUE(sameTensor(a.floatOutput, b.floatOutput)) << layer;
    EXPECT_TRUE(sameTensor(a.quantOutput, b.quantOutput)) << layer;
    EXPECT_TRUE(sameTensor(a.quantOutputInt, b.quantOutputInt)) << layer;
    EXPECT_TRUE(sameValues(a.floatValues, b.floatValues)) << layer;
    EXPECT_TRUE(sameValues(a.quantValues, b.quantValues)) << layer;
}

// Forwards with the runs stopping at each layer, then, with the batch's values kept,
// backwards: each capture follows one of another layer.
void expectRunnerEqualsCaptureLayer(const Graph &floatGraph, const Graph &quantGraph,
                                    const std::vector<LayerMatch> &layers,
                                    const std::map<std::string, Tensor> &batch,
                                    const LayerCaptureOptions &options = {}) {
    auto runner = LayerCaptureRunner::create(floatGraph, quantGraph, options);
    ASSERT_TRUE(runner) << runner.status().message();
    std::vector<const LayerMatch *> order;
    for (const auto &m : layers) order.push_back(&m);
    for (auto it = layers.rbegin(); it != layers.rend(); ++it) order.push_back(&*it);
    for (size_t i = 0; i < order.size(); ++i) {
        if (i == layers.size()) ASSERT_TRUE((*runner)->keepValues(batch).isOk());
        const LayerMatch *m = order[i];
        auto fresh = captureLayer(floatGraph, quantGraph, *m, batch, options);
        ASSERT_TRUE(fresh) << m->floatNode << ": " << fresh.status().message();
        auto reused = (*runner)->capture(*m, batch);
        ASSERT_TRUE(reused) << m->floatNode << ": " << reused.status().message();
        expectSameCapture(*reused, *fresh);
    }
}

class FxCaptureRunner : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(test::loadFixture(f)); }
    test::Fixture f;
};

}  // namespace

TEST_F(FxCaptureRunner, EveryLayerInARowEqualsCaptureLayer) {
    ASSERT_GE(f.matching.matches.size(), 5u);
    expectRunnerEqualsCaptureLayer(f.floatGraph, f.quantGraph, f.matching.matches,
                                   test::firstSamples(f, 8));
}

TEST_F(FxCaptureRunner, WithoutKeptValuesOrOverBudgetEqualsCaptureLayer) {
    const auto batch = test::firstSamples(f, 8);
    LayerCaptureOptions none;
    none.valueCacheBytes = 0;  // every capture runs both models up to the layer
    expectRunnerEqualsCaptureLayer(f.floatGraph, f.quantGraph, f.matching.matches, batch, none);
    LayerCaptureOptions tiny;
    tiny.valueCacheBytes = 4096;  // keepValues gives up
    expectRunnerEqualsCaptureLayer(f.floatGraph, f.quantGraph, f.matching.matches, batch, tiny);
    auto runner = LayerCaptureRunner::create(f.floatGraph, f.quantGraph, tiny);
    ASSERT_TRUE(runner);
    ASSERT_TRUE((*runner)->keepValues(batch).isOk());
    EXPECT_EQ((*runner)->modelRuns(), 2);  // one abandoned run per model
    ASSERT_TRUE((*runner)->keepValues(batch).isOk());
    EXPECT_EQ((*runner)->modelRuns(), 2);  // not tried again
    ASSERT_TRUE((*runner)->capture(f.matching.matches[2], batch));
    ASSERT_TRUE((*runner)->capture(f.matching.matches[3], batch));
    EXPECT_EQ((*runner)->cachedBytes(), 0u);
    EXPECT_EQ((*runner)->modelRuns(), 6);  // both models for each capture
    // The buffers of the abandoned values were given back: less than a runner keeping all.
    auto keeping = LayerCaptureRunner::create(f.floatGraph, f.quantGraph);
    ASSERT_TRUE(keeping && (*keeping)->keepValues(batch).isOk());
    EXPECT_GT((*keeping)->cachedBytes(), 4096u);
    EXPECT_LT((*runner)->pooledBytes(), (*keeping)->pooledBytes());
}

TEST_F(FxCaptureRunner, KeptValuesServeCapturesOfTheirBatch) {
    auto runner = LayerCaptureRunner::create(f.floatGraph, f.quantGraph);
    ASSERT_TRUE(runner);
    const auto batch = test::firstSamples(f, 8);
    ASSERT_TRUE((*runner)->capture(f.matching.matches[0], batch));
    EXPECT_EQ((*runner)->modelRuns(), 2);
    EXPECT_EQ((*runner)->cachedBytes(), 0u);
    ASSERT_TRUE((*runner)->keepValues(batch).isOk());
    EXPECT_EQ((*runner)->modelRuns(), 4);
    // Both models' values: at least the float input and the float first conv output.
    const size_t kept = (*runner)->cachedBytes();
    EXPECT_GT(kept, size_t(8 * 28 * 28 * 4) * 2);
    ASSERT_TRUE((*runner)->keepValues(batch).isOk());
    ASSERT_TRUE((*runner)->capture(f.matching.matches.back(), batch));
    ASSERT_TRUE((*runner)->capture(f.matching.matches[1], batch));
    EXPECT_EQ((*runner)->modelRuns(), 4);  // nothing ran again
    // Another batch (other tensors) runs both models; its values replace the kept ones when
    // asked to.
    const auto other = test::firstSamples(f, 4);
    ASSERT_TRUE((*runner)->capture(f.matching.matches[1], other));
    EXPECT_EQ((*runner)->modelRuns(), 6);
    EXPECT_EQ((*runner)->cachedBytes(), kept);
    ASSERT_TRUE((*runner)->keepValues(other).isOk());
    EXPECT_EQ((*runner)->modelRuns(), 8);
    EXPECT_LT((*runner)->cachedBytes(), kept);
    ASSERT_TRUE((*runner)->capture(f.matching.matches[2], batch));
    EXPECT_EQ((*runner)->modelRuns(), 10);
}

TEST_F(FxCaptureRunner, CancelledKeepValuesKeepsNothing) {
    auto runner = LayerCaptureRunner::create(f.floatGraph, f.quantGraph);
    ASSERT_TRUE(runner);
    const auto batch = test::firstSamples(f, 8);
    int asked = 0;
    const Status cancelled = (*runner)->keepValues(batch, [&] { return ++asked > 3; });
    EXPECT_EQ(cancelled.kind(), ErrorKind::Cancelled);
    EXPECT_EQ((*runner)->cachedBytes(), 0u);
    EXPECT_EQ((*runner)->modelRuns(), 1);  // the float run stopped, the int8 one never started
    ASSERT_TRUE((*runner)->keepValues(batch).isOk());  // not given up: another try keeps them
    EXPECT_GT((*runner)->cachedBytes(), 0u);
    auto fresh = captureLayer(f.floatGraph, f.quantGraph, f.matching.matches[1], batch);
    auto reused = (*runner)->capture(f.matching.matches[1], batch);
    ASSERT_TRUE(fresh && reused);
    expectSameCapture(*reused, *fresh);
}

TEST_F(FxCaptureRunner, FastKernelsEqualCaptureLayer) {
    LayerCaptureOptions fast;
    fast.int8Kernels = Int8Kernels::Fast;
    const std::vector<LayerMatch> some(f.matching.matches.begin(), f.matching.matches.begin() + 3);
    expectRunnerEqualsCaptureLayer(f.floatGraph, f.quantGraph, some, test::firstSamples(f, 4),
                                   fast);
}

TEST_F(FxCaptureRunner, AnotherBatchSizeThroughTheSameRunner) {
    auto runner = LayerCaptureRunner::create(f.floatGraph, f.quantGraph);
    ASSERT_TRUE(runner) << runner.status().message();
    const LayerMatch &m = f.matching.matches[1];
    for (int64_t count : {8, 3, 8}) {
        const auto batch = test::firstSamples(f, count);
        auto fresh = captureLayer(f.floatGraph, f.quantGraph, m, batch);
        auto reused = (*runner)->capture(m, batch);
        ASSERT_TRUE(fresh && reused);
        EXPECT_EQ(reused->floatOutput.dim(0), count);
        expectSameCapture(*reused, *fresh);
    }
}

TEST_F(FxCaptureRunner, EarlierCaptureKeepsItsValuesAfterLaterRuns) {
    const auto batch = test::firstSamples(f, 8);
    for (size_t budget : {size_t(0), LayerCaptureOptions().valueCacheBytes}) {
        LayerCaptureOptions options;
        options.valueCacheBytes = budget;
        auto runner = LayerCaptureRunner::create(f.floatGraph, f.quantGraph, options);
        ASSERT_TRUE(runner);
        ASSERT_TRUE((*runner)->keepValues(batch).isOk());  // nothing kept with budget 0
        auto first = (*runner)->capture(f.matching.matches[0], batch);
        ASSERT_TRUE(first);
        const Tensor floatCopy = first->floatOutput.clone(), quantCopy = first->quantOutput.clone();
        std::map<std::string, Tensor> valuesCopy;
        for (const auto &[name, t] : first->quantValues) valuesCopy[name] = t.clone();
        for (size_t i = 1; i < f.matching.matches.size(); ++i)
            ASSERT_TRUE((*runner)->capture(f.matching.matches[i], batch));
        EXPECT_TRUE(sameTensor(first->floatOutput, floatCopy)) << budget;
        EXPECT_TRUE(sameTensor(first->quantOutput, quantCopy)) << budget;
        EXPECT_TRUE(sameValues(first->quantValues, valuesCopy)) << budget;
    }
}

TEST_F(FxCaptureRunner, CapturesFromTwoThreadsEqualCaptureLayer) {
    auto created = LayerCaptureRunner::create(f.floatGraph, f.quantGraph);
    ASSERT_TRUE(created);
    const LayerCaptureRunner &runner = **created;
    const auto batch = test::firstSamples(f, 8);
    const LayerMatch &a = f.matching.matches.front(), &b = f.matching.matches.back();
    std::optional<Result<LayerCapture>> ra, rb;
    Status keptStatus;
    std::thread ta([&] { ra.emplace(runner.capture(a, batch)); });
    std::thread tb([&] {
        keptStatus = runner.keepValues(batch);
        rb.emplace(runner.capture(b, batch));
    });
    ta.join();
    tb.join();
    ASSERT_TRUE(*ra && *rb && keptStatus.isOk());
    auto fa = captureLayer(f.floatGraph, f.quantGraph, a, batch);
    auto fb = captureLayer(f.floatGraph, f.quantGraph, b, batch);
    ASSERT_TRUE(fa && fb);
    expectSameCapture(**ra, *fa);
    expectSameCapture(**rb, *fb);
}

TEST_F(FxCaptureRunner, ToggledQuantGraphSharesTheFloatHalf) {
    auto runner = LayerCaptureRunner::create(f.floatGraph, f.quantGraph);
    ASSERT_TRUE(runner);
    const auto batch = test::firstSamples(f, 8);
    ASSERT_TRUE((*runner)->keepValues(batch).isOk());
    Graph toggled = f.quantGraph;
    ASSERT_TRUE(keepLayersFp32(toggled, f.floatGraph, {f.matching.matches[1]}).isOk());
    auto matching = matchLayers(f.floatGraph, toggled);
    ASSERT_TRUE(matching) << matching.status().message();
    auto next = (*runner)->withQuantGraph(toggled, (*runner)->options());
    ASSERT_TRUE(next) << next.status().message();
    EXPECT_TRUE((*next)->sharesFloatHalfWith(**runner));
    const int runs = (*next)->modelRuns();
    ASSERT_TRUE((*next)->keepValues(batch).isOk());
    EXPECT_EQ((*next)->modelRuns(), runs + 1);  // the quantized model only
    for (const auto &m : matching->matches) {
        auto fresh = captureLayer(f.floatGraph, toggled, m, batch);
        ASSERT_TRUE(fresh) << m.floatNode << ": " << fresh.status().message();
        auto reused = (*next)->capture(m, batch);
        ASSERT_TRUE(reused) << m.floatNode << ": " << reused.status().message();
        expectSameCapture(*reused, *fresh);
    }
    // The toggled layer runs in float now, int8 before.
    auto ranAs = [&](const LayerCaptureRunner &r, const std::vector<LayerMatch> &ms) {
        for (const auto &m : ms)
            if (m.floatNode == f.matching.matches[1].floatNode) {
                auto c = r.capture(m, batch);
                if (!c || c->quantRunNode < 0) return std::string("?");
                return c->quantRun.nodes[size_t(c->quantRunNode)].opType;
            }
        return std::string("missing");
    };
    EXPECT_EQ(ranAs(**runner, f.matching.matches), "QLinearConv");
    EXPECT_EQ(ranAs(**next, matching->matches), "Conv");
    // The first runner still captures its own quantized model.
    auto again = (*runner)->capture(f.matching.matches[1], batch);
    auto fresh = captureLayer(f.floatGraph, f.quantGraph, f.matching.matches[1], batch);
    ASSERT_TRUE(again && fresh);
    expectSameCapture(*again, *fresh);
    // Another thread count: the float plan is not shared.
    LayerCaptureOptions oneThread;
    oneThread.threads = (*runner)->options().threads == 1 ? 2 : 1;
    auto other = (*runner)->withQuantGraph(toggled, oneThread);
    ASSERT_TRUE(other);
    EXPECT_FALSE((*other)->sharesFloatHalfWith(**runner));
}

TEST_F(FxCaptureRunner, UnknownLayerIsAnError) {
    auto runner = LayerCaptureRunner::create(f.floatGraph, f.quantGraph);
    ASSERT_TRUE(runner);
    LayerMatch m = f.matching.matches[0];
    m.floatNode = "no_such_node";
    auto c = (*runner)->capture(m, test::firstSamples(f, 2));
    ASSERT_FALSE(c);
    EXPECT_EQ(c.status().message(), "layer 'no_such_node' is not in the float model");
    m = f.matching.matches[0];
    m.quantNode = "no_such_q";
    c = (*runner)->capture(m, test::firstSamples(f, 2));
    ASSERT_FALSE(c);
    EXPECT_EQ(c.status().message(), "layer 'no_such_q' is not in the quantized model");
}

// The GUI demo pair (resources/demo): a QDQ model made by the committed demo script.
TEST(DemoCaptureRunner, SpreadLayersEqualCaptureLayer) {
    const char *data = std::getenv("QL_TEST_DATA");
    ASSERT_NE(data, nullptr);
    const std::string dir = std::string(data) + "/../../resources/demo/";
    auto fm = loadModel(dir + "fashion_cnn.onnx");
    auto qm = loadModel(dir + "fashion_cnn_int8.onnx");
    auto in = readTensorFile(dir + "samples.npy");
    ASSERT_TRUE(fm && qm && in);
    auto matching = matchLayers(*fm, *qm);
    ASSERT_TRUE(matching) << matching.status().message();
    ASSERT_GE(matching->matches.size(), 4u);
    std::map<std::string, Tensor> batch;
    auto source = test::slicer(*in, fm->inputs[0].name, 6);
    ASSERT_TRUE(*source(batch));
    expectRunnerEqualsCaptureLayer(*fm, *qm, matching->matches, batch);
}

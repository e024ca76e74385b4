// BatchNormalization (inference form) against the formula, for ranks 2-5, channels-last input,
// constant and runtime statistics, opset < 9 per-activation `spatial=0`, and training refusals.
#include <gtest/gtest.h>

#include <cmath>

#include "direct_kernel_run.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

// y = (x - mean) / sqrt(var + eps) * scale + bias, with params indexed per channel or, for
// spatial=0, per (channel, position).
Tensor refBatchNorm(const Tensor &x, const Tensor &scale, const Tensor &bias, const Tensor &mean,
                    const Tensor &var, float eps, bool spatial = true) {
    Tensor y(DataType::Float, x.shape());
    const int64_t channels = x.dim(1), inner = x.numel() / (x.dim(0) * channels);
    for (int64_t i = 0; i < x.numel(); ++i) {
        const int64_t c = (i / inner) % channels;
        const int64_t p = spatial ? c : c * inner + i % inner;
        const double v =
            (x.valueAsDouble(i) - mean.valueAsDouble(p)) / std::sqrt(var.valueAsDouble(p) + eps);
        y.data<float>()[i] = static_cast<float>(v * scale.valueAsDouble(p) + bias.valueAsDouble(p));
    }
    return y;
}

Node bnNode(float eps = 1e-5f) {
    Node n = makeNode("BatchNormalization");
    n.attributes["epsilon"] = floatAttr(eps);
    return n;
}

struct Params {
    Tensor scale, bias, mean, var;
};

Params randomParams(const Shape &shape, unsigned seed) {
    return {randomTensor(shape, seed, 0.5f, 2.0f), randomTensor(shape, seed + 1),
            randomTensor(shape, seed + 2), randomTensor(shape, seed + 3, 0.1f, 3.0f)};
}

TEST(BatchNormalization, RanksTwoToFiveWithConstantAndRuntimeStats) {
    for (const Shape &shape : {Shape{4, 3}, Shape{2, 5, 7}, Shape{2, 8, 9, 11},
                               Shape{1, 4, 3, 5, 6}, Shape{1, 64, 56, 56}}) {
        const Params p = randomParams({shape[1]}, 10);
        const Tensor x = randomTensor(shape, 1, -3.0f, 3.0f);
        const Tensor expected = refBatchNorm(x, p.scale, p.bias, p.mean, p.var, 1e-3f);
        for (bool constant : {true, false}) {
            SCOPED_TRACE(shapeToString(shape) + (constant ? " constant" : " runtime"));
            auto run = runSingleNode(bnNode(1e-3f), {x, p.scale, p.bias, p.mean, p.var}, 1,
                                     {false, constant, constant, constant, constant});
            ASSERT_TRUE(run.status.isOk()) << run.status.message();
            std::string why;
            EXPECT_TRUE(allClose(run.outputs[0], expected, 1e-5, 1e-5, &why)) << why;
        }
    }
}

TEST(BatchNormalization, ChannelsLastInputGivesChannelsLastOutput) {
    const Shape shape{2, 6, 5, 7};
    const Params p = randomParams({6}, 20);
    const Tensor x = randomTensor(shape, 2);
    DirectKernel k(bnNode(), {x, p.scale, p.bias, p.mean, p.var}, {false, true, true, true, true});
    ASSERT_TRUE(k.status.isOk());
    EXPECT_TRUE(k.kernel->acceptsChannelsLast(0));
    std::vector<Tensor> out;
    ASSERT_TRUE(k.run({x.toChannelsLast(), p.scale, p.bias, p.mean, p.var}, out).isOk());
    EXPECT_EQ(out[0].layout(), Layout::ChannelsLast);
    std::string why;
    EXPECT_TRUE(allClose(out[0].toPlain(), refBatchNorm(x, p.scale, p.bias, p.mean, p.var, 1e-5f),
                         1e-5, 1e-5, &why))
        << why;
}

TEST(BatchNormalization, RuntimeStatisticsChangeBetweenRuns) {
    const Tensor x = randomTensor({1, 3, 4, 4}, 3);
    DirectKernel k(bnNode(), {x, Tensor(), Tensor(), Tensor(), Tensor()}, {});
    for (unsigned seed : {30u, 40u}) {
        const Params p = randomParams({3}, seed);
        std::vector<Tensor> out;
        ASSERT_TRUE(k.run({x, p.scale, p.bias, p.mean, p.var}, out).isOk());
        EXPECT_TRUE(
            allClose(out[0], refBatchNorm(x, p.scale, p.bias, p.mean, p.var, 1e-5f), 1e-5, 1e-5));
    }
}

TEST(BatchNormalization, OldOpsetSpatialZeroIsPerActivation) {
    const Shape shape{2, 3, 4, 5};
    const Params p = randomParams({3, 4, 5}, 50);
    const Tensor x = randomTensor(shape, 4);
    Node n = bnNode();
    n.attributes["spatial"] = intAttr(0);
    auto run = runSingleNode(n, {x, p.scale, p.bias, p.mean, p.var}, 1, {}, 7);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_TRUE(allClose(
        run.outputs[0], refBatchNorm(x, p.scale, p.bias, p.mean, p.var, 1e-5f, false), 1e-5, 1e-5));
    // From opset 9 on there is no spatial attribute: per-channel params are required.
    auto newer = runSingleNode(n, {x, p.scale, p.bias, p.mean, p.var}, 1, {}, 9);
    EXPECT_EQ(newer.status.kind(), ErrorKind::BadInput);
}

TEST(BatchNormalization, OpsetSixIsTestIgnoredForSingleOutput) {
    const Params p = randomParams({3}, 60);
    const Tensor x = randomTensor({1, 3, 2, 2}, 5);
    Node n = bnNode();
    n.attributes["is_test"] = intAttr(1);
    auto run = runSingleNode(n, {x, p.scale, p.bias, p.mean, p.var}, 1, {}, 6);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_TRUE(allClose(run.outputs[0], refBatchNorm(x, p.scale, p.bias, p.mean, p.var, 1e-5f),
                         1e-5, 1e-5));
}

TEST(BatchNormalization, TrainingOutputsAreUnsupported) {
    const Params p = randomParams({3}, 70);
    const Tensor x = randomTensor({2, 3, 2, 2}, 6);
    Node n = bnNode();
    n.attributes["training_mode"] = intAttr(1);
    auto training = runSingleNode(n, {x, p.scale, p.bias, p.mean, p.var}, 3, {}, 15);
    EXPECT_EQ(training.status.kind(), ErrorKind::Unsupported);
    EXPECT_NE(training.status.message().find("training"), std::string::npos);
    auto old = runSingleNode(bnNode(), {x, p.scale, p.bias, p.mean, p.var}, 5, {}, 9);
    EXPECT_EQ(old.status.kind(), ErrorKind::Unsupported);
}

TEST(BatchNormalization, InferenceModeRunningStatsPassThrough) {
    const Params p = randomParams({3}, 80);
    const Tensor x = randomTensor({2, 3, 2, 2}, 7);
    auto run = runSingleNode(bnNode(), {x, p.scale, p.bias, p.mean, p.var}, 3, {}, 15);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_TRUE(allClose(run.outputs[1], p.mean, 0, 0));
    EXPECT_TRUE(allClose(run.outputs[2], p.var, 0, 0));
}

TEST(BatchNormalization, RejectsWrongParameterSizeAndType) {
    const Params p = randomParams({4}, 90);
    auto size =
        runSingleNode(bnNode(), {randomTensor({1, 3, 2, 2}, 8), p.scale, p.bias, p.mean, p.var});
    EXPECT_EQ(size.status.kind(), ErrorKind::BadInput);
    Tensor ints(DataType::Int32, {1, 4, 2, 2});
    auto type = runSingleNode(bnNode(), {ints, p.scale, p.bias, p.mean, p.var});
    EXPECT_EQ(type.status.kind(), ErrorKind::Unsupported);
}

}  // namespace

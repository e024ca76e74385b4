// Weights as matching evidence: a quantized layer's evidence keeps its integers and dequantizes
// them channel by channel, and must correlate exactly as its dequantized float weight would, for
// per-tensor and per-channel quantization, along or across the correlation's channel axis.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "analysis/pairing/layer_weights.h"
#include "analysis/pairing/weight_evidence.h"
#include "test_support.h"

using namespace ql;
using namespace ql::analysis;
using namespace ql::test;

namespace {

std::vector<float> randomValues(size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> v(n);
    for (float &x : v) x = normal(rng);
    return v;
}

// A graph whose one layer `op` multiplies by DequantizeLinear(q, scale, zero point) along `axis`.
Graph quantizedLayer(const std::string &op, const Tensor &q, const Tensor &scale,
                     const Tensor &zeroPoint, int64_t axis) {
    Graph g;
    g.inputs.push_back(floatValueInfo("x", {1, q.shape()[0]}));
    g.initializers["wq"] = q;
    g.initializers["s"] = scale;
    g.initializers["zp"] = zeroPoint;
    addNode(g, "DequantizeLinear", "dq_w", {"wq", "s", "zp"}, {"w"}, {{"axis", intAttr(axis)}});
    addNode(g, op, "layer", {"x", "w"}, {"y"});
    return g;
}

// The evidence of the graph's layer, and the same evidence with the weight dequantized up front.
std::pair<WeightEvidence, WeightEvidence> evidenceAndDequantized(const Graph &g) {
    const Node &node = g.nodes.back();
    auto evidence = layerWeightEvidence(g, node);
    EXPECT_TRUE(evidence);
    EXPECT_TRUE(evidence->quantization) << "the integers are kept";
    std::string why;
    auto q = quantizedWeight(g, node, 1, &why);
    EXPECT_TRUE(q) << why;
    return {*evidence, WeightEvidence{quant::dequantizeTensor(q->values, q->params), std::nullopt,
                                      evidence->channelAxis}};
}

void expectSameCorrelation(const WeightEvidence &quantized, const WeightEvidence &dequantized,
                           const WeightEvidence &other, int64_t maxChannels) {
    const auto a = weightCorrelation(quantized, other, maxChannels);
    const auto b = weightCorrelation(dequantized, other, maxChannels);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(*a, *b) << "the same float values in the same order";
}

}  // namespace

TEST(WeightEvidence, HandComputedCorrelationOfQuantizedWeight) {
    // Per tensor, scale 0.5, zero point 2: q [4, 6, 8, 12] -> [1, 2, 3, 5] against [1, 2, 3, 4]:
    // Sxy = 6.5, Sxx = 5, Syy = 8.75, r = 6.5 / sqrt(43.75) = 0.982708.
    const Graph g = quantizedLayer("MatMul", Tensor::fromVector<int8_t>({4}, {4, 6, 8, 12}),
                                   Tensor::scalar<float>(0.5f), Tensor::scalar<int8_t>(2), 0);
    auto evidence = layerWeightEvidence(g, g.nodes.back());
    ASSERT_TRUE(evidence && evidence->quantization);
    EXPECT_EQ(evidence->weight.dtype(), DataType::Int8);
    const WeightEvidence floatWeight{Tensor::fromVector<float>({4}, {1, 2, 3, 4}), std::nullopt,
                                     -1};
    const auto r = weightCorrelation(*evidence, floatWeight);
    ASSERT_TRUE(r);
    EXPECT_NEAR(*r, 6.5 / std::sqrt(43.75), 1e-12);
}

TEST(WeightEvidence, PerChannelConvWeightCorrelatesAsDequantized) {
    // 16 output channels of 3x3x3, uint8 with a scale and zero point per channel.
    const Shape shape{16, 3, 3, 3};
    std::vector<uint8_t> q(16 * 27);
    std::mt19937 rng(7);
    for (auto &v : q) v = static_cast<uint8_t>(rng() % 256);
    std::vector<float> scales(16);
    std::vector<uint8_t> zeroPoints(16);
    for (int c = 0; c < 16; ++c) scales[c] = 0.01f * float(c + 1), zeroPoints[c] = uint8_t(100 + c);
    const Graph g = quantizedLayer("Conv", Tensor::fromVector<uint8_t>(shape, q),
                                   Tensor::fromVector<float>({16}, scales),
                                   Tensor::fromVector<uint8_t>({16}, zeroPoints), 0);
    auto [quantized, dequantized] = evidenceAndDequantized(g);
    EXPECT_EQ(quantized.channelAxis, 0);
    const WeightEvidence other{Tensor::fromVector<float>(shape, randomValues(16 * 27, 1)),
                               std::nullopt, 0};
    expectSameCorrelation(quantized, dequantized, other, 0);
    expectSameCorrelation(quantized, dequantized, other, 8);
    // Across the quantization axis: the whole tensor is one channel, each element dequantized
    // with its own channel's scale.
    WeightEvidence whole = other;
    whole.channelAxis = -1;
    expectSameCorrelation(quantized, dequantized, whole, 0);
}

TEST(WeightEvidence, PerColumnMatMulWeightCorrelatesAsDequantized) {
    // B [6 rows, 10 columns], int8 per column (axis 1): a channel is a strided column.
    const Shape shape{6, 10};
    std::vector<int8_t> q(60);
    std::mt19937 rng(11);
    for (auto &v : q) v = static_cast<int8_t>(int(rng() % 255) - 127);
    std::vector<float> scales(10);
    for (int c = 0; c < 10; ++c) scales[c] = 0.5f / float(c + 1);
    const Graph g = quantizedLayer("MatMul", Tensor::fromVector<int8_t>(shape, q),
                                   Tensor::fromVector<float>({10}, scales),
                                   Tensor::fromVector<int8_t>({10}, std::vector<int8_t>(10, 0)), 1);
    auto [quantized, dequantized] = evidenceAndDequantized(g);
    EXPECT_EQ(quantized.channelAxis, 1);
    const WeightEvidence other{Tensor::fromVector<float>(shape, randomValues(60, 2)), std::nullopt,
                               1};
    expectSameCorrelation(quantized, dequantized, other, 0);
    expectSameCorrelation(quantized, dequantized, other, 3);
}

TEST(WeightEvidence, FirstChannelsAreTheFirstColumns) {
    // A float B [4 rows, 3 columns], channels along the columns. Against a copy whose column 0
    // is unchanged and whose columns 1 and 2 are reversed, column 0 correlates exactly (1) and
    // the others do not: the first channel alone must give 1.
    const std::vector<float> b = {1, 5, -2, 2, -1, 7, 3, 4, 0, 5, 2, 1};
    std::vector<float> c = b;
    for (int row = 0; row < 4; ++row)
        for (int col = 1; col < 3; ++col) c[row * 3 + col] = b[(3 - row) * 3 + col];
    const WeightEvidence x{Tensor::fromVector<float>({4, 3}, b), std::nullopt, 1};
    const WeightEvidence y{Tensor::fromVector<float>({4, 3}, c), std::nullopt, 1};
    const auto first = weightCorrelation(x, y, 1);
    ASSERT_TRUE(first);
    EXPECT_NEAR(*first, 1.0, 1e-12);
    const auto all = weightCorrelation(x, y);
    ASSERT_TRUE(all);
    EXPECT_LT(*all, 0.9);
}

TEST(WeightEvidence, MemoRemembersByMemoryAndQuantization) {
    // Per tensor first, then per row (axis 0) across the correlation's single channel, where the
    // scales change the result.
    Tensor q = Tensor::fromVector<int8_t>({2, 3}, {1, 5, -3, 7, 2, -6});
    quant::QParams perTensor;
    perTensor.type = DataType::Int8;
    perTensor.scale = {0.5f};
    perTensor.zeroPoint = {0};
    WeightEvidence quantized{q, perTensor, -1};
    const WeightEvidence other{
        Tensor::fromVector<float>({2, 3}, {0.4f, 2.6f, -1.4f, 1.0f, 0.3f, -0.8f}), std::nullopt,
        -1};
    WeightCorrelationMemo memo;
    const auto direct = weightCorrelation(quantized, other);
    ASSERT_TRUE(direct);
    EXPECT_EQ(memo.correlation(quantized, other, 0), direct);

    // The same memory with other values: the memo answers from memory (a graph's weights do
    // not change in place), where a direct call sees the change.
    q.data<int8_t>()[0] = -9;
    const auto changed = weightCorrelation(quantized, other);
    ASSERT_TRUE(changed);
    EXPECT_NE(*changed, *direct);
    EXPECT_EQ(memo.correlation(quantized, other, 0), direct);

    // Other scales make another weight: computed afresh.
    quant::QParams perRow = perTensor;
    perRow.scale = {0.5f, 0.05f};
    perRow.zeroPoint = {0, 0};
    perRow.axis = 0;
    quantized.quantization = perRow;
    const auto rows = weightCorrelation(quantized, other);
    ASSERT_TRUE(rows);
    EXPECT_NE(*rows, *changed);
    EXPECT_EQ(memo.correlation(quantized, other, 0), rows);
    // Weights of other shapes correlate to nothing.
    const WeightEvidence flat{Tensor::fromVector<float>({6}, {1, 2, 3, 4, 5, 6}), std::nullopt, -1};
    EXPECT_FALSE(memo.correlation(quantized, flat, 0));
}

TEST(WeightEvidence, ScalesThatDoNotFitTheWeightGiveNoEvidence) {
    // Three scales along axis 0 of a weight with two output channels (a malformed model).
    const Graph g = quantizedLayer("Conv", Tensor::fromVector<int8_t>({2, 1, 1, 1}, {3, -4}),
                                   Tensor::fromVector<float>({3}, {0.1f, 0.2f, 0.3f}),
                                   Tensor::fromVector<int8_t>({3}, {0, 0, 0}), 0);
    EXPECT_FALSE(layerWeightEvidence(g, g.nodes.back()));
}

// BatchNormalization folding into Conv, grouped Conv, ConvTranspose and Gemm: outputs unchanged
// within 1e-5, hand-computed folded values, and the BNs that must stay.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "onnx_io/model_loader.h"
#include "onnx_io/model_writer.h"
#include "passes/fold_batchnorm.h"
#include "quant/calibration.h"
#include "quant/qdq_builder.h"
#include "quant/quantization_plan.h"
#include "quantizer_test_support.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

// x -> producer(opType) -> BN -> y, with random weights and BN statistics (variance > 0).
Graph producerWithBatchNorm(const std::string &opType, const Shape &inputShape,
                            const Tensor &weight, int64_t channels,
                            std::map<std::string, Attribute> attributes, bool withBias) {
    Graph g;
    g.opsetVersion = 13;
    g.domainOpsets[""] = 13;
    g.inputs.push_back(floatValueInfo("x", inputShape));
    g.outputs.push_back(floatValueInfo("y", {}));
    g.outputs.back().hasShape = false;
    g.initializers["w"] = weight;
    Node producer = makeNode(opType, std::move(attributes));
    producer.name = "producer";
    producer.inputs = {"x", "w"};
    if (withBias) {
        g.initializers["b"] = randomTensor({channels}, 11);
        producer.inputs.push_back("b");
    }
    producer.outputs = {"p"};
    Node bn = makeNode("BatchNormalization", {{"epsilon", floatAttr(1e-3f)}});
    bn.name = "bn";
    bn.inputs = {"p", "gamma", "beta", "mean", "var"};
    bn.outputs = {"y"};
    g.initializers["gamma"] = randomTensor({channels}, 12, 0.5f, 2.0f);
    g.initializers["beta"] = randomTensor({channels}, 13);
    g.initializers["mean"] = randomTensor({channels}, 14);
    g.initializers["var"] = randomTensor({channels}, 15, 0.1f, 3.0f);
    g.nodes = {producer, bn};
    return g;
}

void expectFoldKeepsOutputs(Graph g, const Shape &inputShape) {
    const Tensor x = randomTensor(inputShape, 7);
    const std::vector<Tensor> before = runGraph(g, {{"x", x}});
    BatchNormFoldReport report;
    ASSERT_TRUE(foldBatchNorms(g, &report).isOk());
    ASSERT_EQ(report.folded.size(), 1u);
    EXPECT_EQ(report.folded[0].producerNode, "producer");
    EXPECT_EQ(report.folded[0].batchNormNode, "bn");
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].outputs[0], "y");
    EXPECT_FALSE(g.isInitializer("gamma"));
    const std::vector<Tensor> after = runGraph(g, {{"x", x}});
    ASSERT_EQ(before.size(), 1u);
    ASSERT_EQ(after.size(), 1u);
    EXPECT_LT(maxAbsDiff(before[0], after[0]), 1e-5);
}

}  // namespace

// ---- BatchNormalization folding ----

TEST(FoldBatchNorm, ConvWithBias) {
    expectFoldKeepsOutputs(
        producerWithBatchNorm("Conv", {2, 3, 6, 6}, randomTensor({4, 3, 3, 3}, 1), 4,
                              {{"pads", intsAttr({1, 1, 1, 1})}}, true),
        {2, 3, 6, 6});
}

TEST(FoldBatchNorm, GroupedConvWithoutBias) {
    expectFoldKeepsOutputs(
        producerWithBatchNorm("Conv", {1, 4, 5, 5}, randomTensor({6, 2, 3, 3}, 2), 6,
                              {{"group", intAttr(2)}}, false),
        {1, 4, 5, 5});
}

TEST(FoldBatchNorm, GroupedConvTranspose) {
    // W [C=4, M/g=3, 2, 2], group 2: output channel = group * 3 + j.
    expectFoldKeepsOutputs(
        producerWithBatchNorm("ConvTranspose", {1, 4, 4, 4}, randomTensor({4, 3, 2, 2}, 3), 6,
                              {{"group", intAttr(2)}, {"strides", intsAttr({2, 2})}}, true),
        {1, 4, 4, 4});
}

TEST(FoldBatchNorm, GemmBothWeightLayouts) {
    expectFoldKeepsOutputs(
        producerWithBatchNorm("Gemm", {3, 5}, randomTensor({7, 5}, 4), 7,
                              {{"transB", intAttr(1)}, {"beta", floatAttr(0.5f)}}, true),
        {3, 5});
    expectFoldKeepsOutputs(
        producerWithBatchNorm("Gemm", {3, 5}, randomTensor({5, 7}, 5), 7, {}, true), {3, 5});
}

TEST(FoldBatchNorm, HandComputedSingleChannel) {
    // 1x1 Conv, weight 2, bias 1; BN gamma 3, beta 0.5, mean 1, var 3, eps 1: s = 3/2.
    Graph g = producerWithBatchNorm("Conv", {1, 1, 1, 1},
                                    Tensor::fromVector<float>({1, 1, 1, 1}, {2.0f}), 1, {}, true);
    g.initializers["b"] = floats({1.0f});
    g.initializers["gamma"] = floats({3.0f});
    g.initializers["beta"] = floats({0.5f});
    g.initializers["mean"] = floats({1.0f});
    g.initializers["var"] = floats({3.0f});
    g.nodes[1].attributes["epsilon"] = floatAttr(1.0f);
    ASSERT_TRUE(foldBatchNorms(g).isOk());
    EXPECT_FLOAT_EQ(g.initializer(g.nodes[0].inputs[1])->data<float>()[0], 3.0f);  // 2 * 1.5
    EXPECT_FLOAT_EQ(g.initializer(g.nodes[0].inputs[2])->data<float>()[0],
                    0.5f);  // (1 - 1) * 1.5 + 0.5
}

TEST(FoldBatchNorm, KeepsBatchNormAfterAddAndSharedConvOutput) {
    Graph g =
        producerWithBatchNorm("Conv", {1, 2, 4, 4}, randomTensor({2, 2, 1, 1}, 6), 2, {}, false);
    // The Conv output also feeds an Add whose result feeds a second BN: neither BN may fold.
    Node add = makeNode("Add");
    add.name = "add";
    add.inputs = {"p", "p"};
    add.outputs = {"s"};
    Node bn2 = g.nodes[1];
    bn2.name = "bn_after_add";
    bn2.inputs[0] = "s";
    bn2.outputs = {"z"};
    g.nodes.push_back(add);
    g.nodes.push_back(bn2);
    g.outputs.push_back(floatValueInfo("z", {}));
    BatchNormFoldReport report;
    ASSERT_TRUE(foldBatchNorms(g, &report).isOk());
    EXPECT_TRUE(report.folded.empty());
    ASSERT_EQ(report.kept.size(), 2u);
    EXPECT_NE(report.kept[0].reason.find("other consumers"), std::string::npos)
        << report.kept[0].reason;
    EXPECT_NE(report.kept[1].reason.find("Add 'add'"), std::string::npos) << report.kept[1].reason;
    EXPECT_EQ(g.nodes.size(), 4u);
}

TEST(FoldBatchNorm, DemoModelOutputsUnchanged) {
    Graph g = loadDemo();
    const Tensor x = demoSamples(16);
    const auto before = runGraph(g, {{"input", x}});
    BatchNormFoldReport report;
    ASSERT_TRUE(foldBatchNorms(g, &report).isOk());
    EXPECT_EQ(report.folded.size(), 3u);
    EXPECT_EQ(countOps(g, "BatchNormalization"), 0);
    const auto after = runGraph(g, {{"input", x}});
    ASSERT_EQ(after.size(), 1u);
    EXPECT_LT(maxAbsDiff(before[0], after[0]), 1e-5 * 20);  // logits reach ~20: 1e-5 relative
    std::string why;
    EXPECT_TRUE(allClose(after[0], before[0], 1e-5, 1e-5, &why)) << why;
}

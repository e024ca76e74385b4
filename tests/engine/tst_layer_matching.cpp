// Layer matching between a float model and its quantized version: the committed PyTorch FX
// fixture (names partly kept, BN folded, Relu renamed), and hand-built graphs with renamed nodes,
// reordered branches, extra nodes, folded/kept BN, fused activations and mismatched pairs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <tuple>

#include "analysis/pairing/layer_matching.h"
#include "onnx_io/model_loader.h"
#include "test_support.h"

using namespace ql;
using namespace ql::analysis;
using namespace ql::test;

namespace {

void add(Graph &g, const std::string &op, const std::string &name, std::vector<std::string> inputs,
         std::vector<std::string> outputs, const std::string &domain = "") {
    Node n;
    n.opType = op;
    n.name = name;
    n.domain = domain;
    n.inputs = std::move(inputs);
    n.outputs = std::move(outputs);
    g.nodes.push_back(std::move(n));
}

Graph emptyGraph(const Shape &inputShape = {1, 3, 8, 8}) {
    Graph g;
    g.opsetVersion = 13;
    g.inputs.push_back(floatValueInfo("x", inputShape));
    return g;
}

// QuantizeLinear -> DequantizeLinear behind `value`; returns the DQ output.
std::string qdq(Graph &g, const std::string &value) {
    add(g, "QuantizeLinear", value + "_q", {value, "s", "zp"}, {value + "_quant"});
    add(g, "DequantizeLinear", value + "_dq", {value + "_quant", "s", "zp"}, {value + "_deq"});
    return value + "_deq";
}

const LayerMatch *findMatch(const LayerMatching &m, const std::string &floatNode) {
    for (const auto &match : m.matches)
        if (match.floatNode == floatNode) return &match;
    return nullptr;
}

}  // namespace

TEST(LayerMatching, FashionCnnFixtureFloatVsQdq) {
    const char *data = std::getenv("QL_TEST_DATA");
    ASSERT_NE(data, nullptr);
    const std::string dir = std::string(data) + "/fx_fashion_cnn/";
    auto floatModel = loadModel(dir + "float.onnx");
    auto quantModel = loadModel(dir + "qdq.onnx");
    ASSERT_TRUE(floatModel) << floatModel.status().message();
    ASSERT_TRUE(quantModel) << quantModel.status().message();
    auto result = matchLayers(*floatModel, *quantModel);
    ASSERT_TRUE(result) << result.status().message();
    const LayerMatching &m = *result;

    struct Expected {
        std::string floatNode, quantNode, how, floatOutput;
        std::set<std::string> quantOutputs;  // the Q output feeds two DQs in one place
        std::vector<std::string> folded, foldedQuant;
    };
    // PyTorch FX exports ConvReLU as Conv -> Relu -> QuantizeLinear (and Add + Relu likewise):
    // the Relu folds into the layer's match on both sides. Weighted layers pair by their
    // weights, the rest by what they read.
    const std::vector<Expected> expected = {
        {"/conv1/Conv", "/conv1/Conv", "weights", "/relu1/Relu_output_0",
         {"/conv2/DequantizeLinear_output_0", "/DequantizeLinear_1_output_0"},
         {"/bn1/BatchNormalization", "/relu1/Relu"}, {"/conv1/Relu"}},
        {"/conv2/Conv", "/conv2/Conv", "weights", "/bn2/BatchNormalization_output_0",
         {"/DequantizeLinear_output_0"}, {"/bn2/BatchNormalization"}, {}},
        {"/Add", "/Add", "structure", "/relu2/Relu_output_0", {"/pool1/DequantizeLinear_output_0"},
         {"/relu2/Relu"}, {"/Relu"}},
        {"/pool1/MaxPool", "/pool1/MaxPool", "structure", "/pool1/MaxPool_output_0",
         {"/conv3/DequantizeLinear_output_0"}, {}, {}},
        {"/conv3/Conv", "/conv3/Conv", "weights", "/relu3/Relu_output_0",
         {"/pool2/DequantizeLinear_output_0"}, {"/bn3/BatchNormalization", "/relu3/Relu"},
         {"/conv3/Relu"}},
        {"/pool2/MaxPool", "/pool2/MaxPool", "structure", "/pool2/MaxPool_output_0",
         {"/DequantizeLinear_2_output_0"}, {}, {}},
        {"/flatten/Flatten", "/flatten/Flatten", "structure", "/flatten/Flatten_output_0",
         {"/fc/DequantizeLinear_output_0"}, {}, {}},
        {"/fc/Gemm", "/fc/Gemm", "weights", "output", {"output"}, {}, {}},
    };
    ASSERT_EQ(m.matches.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        const LayerMatch &got = m.matches[i];
        const Expected &want = expected[i];
        SCOPED_TRACE(want.floatNode);
        EXPECT_EQ(got.floatNode, want.floatNode);  // float node order
        EXPECT_EQ(got.quantNode, want.quantNode);
        EXPECT_EQ(got.how, want.how);
        // Quantized weights correlate with their float ones far above the 0.99 bar.
        if (want.how == "weights") EXPECT_GT(got.confidence, 0.999);
        EXPECT_EQ(got.floatOutput, want.floatOutput);
        EXPECT_TRUE(want.quantOutputs.count(got.quantOutput)) << got.quantOutput;
        EXPECT_EQ(got.foldedFloatNodes, want.folded);
        EXPECT_EQ(got.foldedQuantNodes, want.foldedQuant);
    }
    EXPECT_TRUE(m.unmatchedFloat.empty());
    EXPECT_TRUE(m.unmatchedQuant.empty());
}

TEST(LayerMatching, RenamedNodesMatchStructurallyWithBatchNormFolded) {
    Graph f = emptyGraph();
    add(f, "Conv", "conv", {"x", "w"}, {"c"});
    add(f, "BatchNormalization", "bn", {"c", "g", "b", "m", "v"}, {"n"});
    add(f, "Relu", "relu", {"n"}, {"r"});
    add(f, "MaxPool", "pool", {"r"}, {"p"});
    add(f, "Flatten", "flat", {"p"}, {"fl"});
    add(f, "Gemm", "fc", {"fl", "wf"}, {"y"});

    Graph q = emptyGraph();
    std::string in = qdq(q, "x");
    add(q, "Conv", "node_0", {in, "wq"}, {"q0"});
    add(q, "Relu", "node_1", {"q0"}, {"q1"});
    add(q, "MaxPool", "node_2", {qdq(q, "q1")}, {"q2"});
    add(q, "Flatten", "node_3", {qdq(q, "q2")}, {"q3"});
    add(q, "Gemm", "node_4", {qdq(q, "q3"), "wq2"}, {"q4"});
    qdq(q, "q4");

    auto result = matchLayers(f, q);
    ASSERT_TRUE(result) << result.status().message();
    const LayerMatching &m = *result;
    ASSERT_EQ(m.matches.size(), 4u);
    const std::vector<std::vector<std::string>> expected = {
        {"conv", "node_0", "r", "q1_deq"}, {"pool", "node_2", "p", "q2_deq"},
        {"flat", "node_3", "fl", "q3_deq"}, {"fc", "node_4", "y", "q4_deq"}};
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(m.matches[i].floatNode, expected[i][0]);
        EXPECT_EQ(m.matches[i].quantNode, expected[i][1]);
        EXPECT_EQ(m.matches[i].floatOutput, expected[i][2]);
        EXPECT_EQ(m.matches[i].quantOutput, expected[i][3]);
        EXPECT_EQ(m.matches[i].how, "structure");
    }
    EXPECT_EQ(m.matches[0].foldedFloatNodes, (std::vector<std::string>{"bn", "relu"}));
    EXPECT_EQ(m.matches[0].foldedQuantNodes, std::vector<std::string>{"node_1"});
    EXPECT_TRUE(m.unmatchedFloat.empty());
    EXPECT_TRUE(m.unmatchedQuant.empty());
}

TEST(LayerMatching, ReorderedIndependentBranches) {
    // x -> Conv -> Relu and x -> MaxPool, then Concat; the quantized file lists the MaxPool
    // branch first and every node is renamed.
    Graph f = emptyGraph();
    add(f, "Conv", "a_conv", {"x", "w"}, {"a"});
    add(f, "Relu", "a_relu", {"a"}, {"ar"});
    add(f, "MaxPool", "b_pool", {"x"}, {"b"});
    add(f, "Concat", "cat", {"ar", "b"}, {"y"});

    Graph q = emptyGraph();
    std::string in = qdq(q, "x");
    add(q, "MaxPool", "n0", {in}, {"q0"});
    add(q, "Conv", "n1", {in, "w"}, {"q1"});
    add(q, "Relu", "n2", {"q1"}, {"q2"});
    add(q, "Concat", "n3", {qdq(q, "q2"), qdq(q, "q0")}, {"q3"});

    auto result = matchLayers(f, q);
    ASSERT_TRUE(result) << result.status().message();
    const LayerMatching &m = *result;
    ASSERT_EQ(m.matches.size(), 3u);  // the Relu, not requantized after the Conv, folds into it
    EXPECT_EQ(findMatch(m, "a_conv")->quantNode, "n1");
    EXPECT_EQ(findMatch(m, "a_conv")->foldedQuantNodes, std::vector<std::string>{"n2"});
    EXPECT_EQ(findMatch(m, "b_pool")->quantNode, "n0");
    EXPECT_EQ(findMatch(m, "cat")->quantNode, "n3");
    EXPECT_EQ(findMatch(m, "b_pool")->quantOutput, "q0_deq");
    EXPECT_TRUE(m.unmatchedFloat.empty());
    EXPECT_TRUE(m.unmatchedQuant.empty());

    // Names swapped onto the wrong layers change nothing: structure decides, not names.
    for (auto &node : q.nodes) {
        if (node.name == "n0") node.name = "a_conv";
        if (node.name == "n1") node.name = "b_pool";
    }
    auto misnamed = matchLayers(f, q);
    ASSERT_TRUE(misnamed) << misnamed.status().message();
    EXPECT_EQ(findMatch(*misnamed, "b_pool")->quantNode, "a_conv");
    EXPECT_EQ(findMatch(*misnamed, "b_pool")->how, "structure");
    EXPECT_EQ(findMatch(*misnamed, "a_conv")->quantNode, "b_pool");
    EXPECT_EQ(findMatch(*misnamed, "a_conv")->floatOutput, "ar");
    EXPECT_EQ(findMatch(*misnamed, "a_conv")->quantOutput, "q2_deq");
}

TEST(LayerMatching, ReorderedBranchesWithTheSameOpsAreToldApartByWhatFollows) {
    // Two Conv branches at the same depth; only what follows them (MaxPool or nothing) tells
    // them apart. The quantized file lists the other branch first, names all changed.
    Graph f = emptyGraph();
    add(f, "Conv", "a_conv", {"x", "w1"}, {"a"});
    add(f, "MaxPool", "a_pool", {"a"}, {"ap"});
    add(f, "Conv", "b_conv", {"x", "w2"}, {"b"});
    add(f, "Concat", "cat", {"ap", "b"}, {"y"});

    Graph q = emptyGraph();
    std::string in = qdq(q, "x");
    add(q, "Conv", "n0", {in, "w2"}, {"q0"});
    add(q, "Conv", "n1", {in, "w1"}, {"q1"});
    add(q, "MaxPool", "n2", {qdq(q, "q1")}, {"q2"});
    add(q, "Concat", "n3", {qdq(q, "q2"), qdq(q, "q0")}, {"q3"});

    auto result = matchLayers(f, q);
    ASSERT_TRUE(result) << result.status().message();
    ASSERT_EQ(result->matches.size(), 4u);
    EXPECT_EQ(findMatch(*result, "a_conv")->quantNode, "n1");
    EXPECT_EQ(findMatch(*result, "a_conv")->quantOutput, "q1_deq");
    EXPECT_EQ(findMatch(*result, "b_conv")->quantNode, "n0");
    EXPECT_EQ(findMatch(*result, "a_pool")->quantNode, "n2");
    EXPECT_EQ(findMatch(*result, "cat")->quantNode, "n3");
}

TEST(LayerMatching, ExtraNodesAreListedAsUnmatched) {
    Graph f = emptyGraph();
    add(f, "Conv", "conv", {"x", "w"}, {"c"});
    add(f, "Add", "extra_add", {"c", "bias"}, {"a"});
    add(f, "Gemm", "fc", {"a", "wf"}, {"y"});

    Graph q = emptyGraph();
    add(q, "Conv", "qconv", {qdq(q, "x"), "w"}, {"q0"});
    add(q, "Sigmoid", "extra_sigmoid", {qdq(q, "q0")}, {"q1"});
    add(q, "Gemm", "qfc", {qdq(q, "q1"), "wf"}, {"q2"});

    auto result = matchLayers(f, q);
    ASSERT_TRUE(result) << result.status().message();
    const LayerMatching &m = *result;
    ASSERT_EQ(m.matches.size(), 2u);
    EXPECT_EQ(m.matches[0].quantNode, "qconv");
    EXPECT_EQ(m.matches[1].quantNode, "qfc");
    EXPECT_EQ(m.unmatchedFloat, std::vector<std::string>{"extra_add"});
    EXPECT_EQ(m.unmatchedQuant, std::vector<std::string>{"extra_sigmoid"});
    ASSERT_EQ(m.unmatchedFloatWhy.size(), 1u);
    EXPECT_EQ(m.unmatchedFloatWhy[0], "the quantized model has no Add layer");
    EXPECT_EQ(m.unmatchedQuantWhy[0], "the float model has no Sigmoid layer");
}

TEST(LayerMatching, BatchNormKeptInBothModelsIsItsOwnLayer) {
    Graph f = emptyGraph();
    add(f, "Conv", "conv", {"x", "w"}, {"c"});
    add(f, "BatchNormalization", "bn", {"c", "g", "b", "m", "v"}, {"y"});
    Graph q = emptyGraph();
    add(q, "Conv", "qconv", {qdq(q, "x"), "w"}, {"q0"});
    add(q, "BatchNormalization", "qbn", {"q0", "g", "b", "m", "v"}, {"q1"});
    qdq(q, "q1");

    auto result = matchLayers(f, q);
    ASSERT_TRUE(result) << result.status().message();
    const LayerMatching &m = *result;
    ASSERT_EQ(m.matches.size(), 2u);
    EXPECT_EQ(m.matches[0].floatNode, "conv");
    EXPECT_EQ(m.matches[0].floatOutput, "c");
    EXPECT_EQ(m.matches[0].quantOutput, "q0");
    EXPECT_TRUE(m.matches[0].foldedFloatNodes.empty());
    EXPECT_EQ(m.matches[1].floatNode, "bn");
    EXPECT_EQ(m.matches[1].quantNode, "qbn");
    EXPECT_EQ(m.matches[1].quantOutput, "q1_deq");
}

// quantize --no-fold-bn: Conv -> Q -> DQ -> BatchNormalization -> Q -> DQ; the BN runs int8 on
// its own and is compared on its own, not folded into the Conv's match.
TEST(LayerMatching, BatchNormBehindQdqIsItsOwnLayer) {
    Graph f = emptyGraph();
    add(f, "Conv", "conv", {"x", "w"}, {"c"});
    add(f, "BatchNormalization", "bn", {"c", "g", "b", "m", "v"}, {"y"});
    Graph q = emptyGraph();
    add(q, "Conv", "qconv", {qdq(q, "x"), "w"}, {"q0"});
    add(q, "BatchNormalization", "qbn", {qdq(q, "q0"), "g", "b", "m", "v"}, {"q1"});
    qdq(q, "q1");

    auto result = matchLayers(f, q);
    ASSERT_TRUE(result) << result.status().message();
    const LayerMatching &m = *result;
    ASSERT_EQ(m.matches.size(), 2u);
    EXPECT_EQ(m.matches[0].floatOutput, "c");
    EXPECT_EQ(m.matches[0].quantOutput, "q0_deq");
    EXPECT_TRUE(m.matches[0].foldedFloatNodes.empty());
    EXPECT_EQ(m.matches[1].floatNode, "bn");
    EXPECT_EQ(m.matches[1].quantNode, "qbn");
    EXPECT_EQ(m.matches[1].quantOutput, "q1_deq");
    EXPECT_TRUE(m.unmatchedQuant.empty());
}

TEST(LayerMatching, QOperatorWithFusedActivationFoldsBatchNormAndRelu) {
    Graph f = emptyGraph();
    add(f, "Conv", "conv", {"x", "w"}, {"c"});
    add(f, "BatchNormalization", "bn", {"c", "g", "b", "m", "v"}, {"n"});
    add(f, "Relu", "relu", {"n"}, {"r"});
    add(f, "GlobalAveragePool", "gap", {"r"}, {"y"});

    Graph q = emptyGraph();
    add(q, "QuantizeLinear", "qx", {"x", "s", "zp"}, {"xq"});
    add(q, "QLinearConv", "qconv", {"xq", "s", "zp", "w", "ws", "wzp", "s", "zp"}, {"q0"});
    q.nodes.back().attributes["ql_activation"] = stringAttr("Relu");
    add(q, "QLinearGlobalAveragePool", "qgap", {"q0", "s", "zp", "s", "zp"}, {"q1"},
        "com.microsoft");
    add(q, "DequantizeLinear", "dq", {"q1", "s", "zp"}, {"yq"});

    auto result = matchLayers(f, q);
    ASSERT_TRUE(result) << result.status().message();
    const LayerMatching &m = *result;
    ASSERT_EQ(m.matches.size(), 2u);
    EXPECT_EQ(m.matches[0].quantNode, "qconv");
    EXPECT_EQ(m.matches[0].floatOutput, "r");
    EXPECT_EQ(m.matches[0].quantOutput, "q0");  // int8 value of a QOperator node
    EXPECT_EQ(m.matches[0].foldedFloatNodes, (std::vector<std::string>{"bn", "relu"}));
    EXPECT_EQ(m.matches[1].quantNode, "qgap");
    EXPECT_TRUE(m.unmatchedFloat.empty());
    EXPECT_TRUE(m.unmatchedQuant.empty());
}

TEST(LayerMatching, QOperatorOutputFromZeroHoldsTheFloatRelu) {
    // ONNX Runtime's QOperator form drops a Relu when the layer's uint8 output has zero point 0:
    // the float Relu folds into the QLinearConv. With zero point 128 it stays a layer of its own
    // (unmatched here: the quantized model has no Relu).
    for (uint8_t zeroPoint : {uint8_t(0), uint8_t(128)}) {
        SCOPED_TRACE(int(zeroPoint));
        Graph f = emptyGraph();
        add(f, "Conv", "conv", {"x", "w"}, {"c"});
        add(f, "Relu", "relu", {"c"}, {"r"});
        add(f, "GlobalAveragePool", "gap", {"r"}, {"y"});
        Graph q = emptyGraph();
        q.initializers["yzp"] = Tensor::scalar<uint8_t>(zeroPoint);
        add(q, "QuantizeLinear", "qx", {"x", "s", "zp"}, {"xq"});
        add(q, "QLinearConv", "qconv", {"xq", "s", "zp", "w", "ws", "wzp", "s", "yzp"}, {"q0"});
        add(q, "QLinearGlobalAveragePool", "qgap", {"q0", "s", "yzp", "s", "zp"}, {"q1"}, "com.microsoft");
        add(q, "DequantizeLinear", "dq", {"q1", "s", "zp"}, {"yq"});
        auto m = matchLayers(f, q);
        ASSERT_TRUE(m) << m.status().message();
        ASSERT_EQ(m->matches.size(), 2u);
        if (zeroPoint == 0) {
            EXPECT_EQ(m->matches[0].floatOutput, "r");
            EXPECT_EQ(m->matches[0].foldedFloatNodes, std::vector<std::string>{"relu"});
            EXPECT_TRUE(m->unmatchedFloat.empty());
        } else {
            EXPECT_EQ(m->matches[0].floatOutput, "c");
            EXPECT_EQ(m->unmatchedFloat, std::vector<std::string>{"relu"});
        }
    }
}

TEST(LayerMatching, ReluDroppedByQdqQuantizerFoldsIntoTheLayerBefore) {
    // ONNX Runtime style: Conv -> QuantizeLinear with the Relu removed; the Add keeps its Relu.
    Graph f = emptyGraph();
    add(f, "Conv", "conv", {"x", "w"}, {"c"});
    add(f, "Relu", "relu", {"c"}, {"r"});
    add(f, "Add", "add", {"r", "x"}, {"a"});
    add(f, "Relu", "relu2", {"a"}, {"y"});

    Graph q = emptyGraph();
    std::string in = qdq(q, "x");
    add(q, "Conv", "conv", {in, "w"}, {"q0"});
    add(q, "Add", "add", {qdq(q, "q0"), in}, {"q1"});
    add(q, "Relu", "relu2", {"q1"}, {"q2"});
    qdq(q, "q2");

    auto result = matchLayers(f, q);
    ASSERT_TRUE(result) << result.status().message();
    const LayerMatching &m = *result;
    ASSERT_EQ(m.matches.size(), 2u);
    EXPECT_EQ(m.matches[0].floatNode, "conv");
    EXPECT_EQ(m.matches[0].floatOutput, "r");
    EXPECT_EQ(m.matches[0].quantOutput, "q0_deq");
    EXPECT_EQ(m.matches[0].foldedFloatNodes, std::vector<std::string>{"relu"});
    EXPECT_TRUE(m.matches[0].foldedQuantNodes.empty());
    // The Add is not requantized before its Relu: one unit on both sides.
    EXPECT_EQ(m.matches[1].floatNode, "add");
    EXPECT_EQ(m.matches[1].floatOutput, "y");
    EXPECT_EQ(m.matches[1].quantOutput, "q2_deq");
    EXPECT_EQ(m.matches[1].foldedFloatNodes, std::vector<std::string>{"relu2"});
    EXPECT_EQ(m.matches[1].foldedQuantNodes, std::vector<std::string>{"relu2"});
    EXPECT_TRUE(m.unmatchedFloat.empty());
    EXPECT_TRUE(m.unmatchedQuant.empty());
}

TEST(LayerMatching, MismatchedPairsAreErrors) {
    Graph f = emptyGraph();
    add(f, "Conv", "conv", {"x", "w"}, {"y"});

    Graph otherShape = emptyGraph({1, 1, 28, 28});
    add(otherShape, "Conv", "conv", {"x", "w"}, {"y"});
    auto shapeResult = matchLayers(f, otherShape);
    ASSERT_FALSE(shapeResult);
    EXPECT_EQ(shapeResult.status().kind(), ErrorKind::BadInput);
    EXPECT_NE(shapeResult.status().message().find("different shapes"), std::string::npos)
        << shapeResult.status().message();

    Graph twoInputs = emptyGraph();
    twoInputs.inputs.push_back(floatValueInfo("x2", {1, 3, 8, 8}));
    add(twoInputs, "Conv", "conv", {"x", "w"}, {"y"});
    auto countResult = matchLayers(f, twoInputs);
    ASSERT_FALSE(countResult);
    EXPECT_NE(countResult.status().message().find("quantized model has 2"), std::string::npos)
        << countResult.status().message();

    Graph unrelated = emptyGraph();
    add(unrelated, "Softmax", "softmax", {"x"}, {"y"});
    auto nothing = matchLayers(f, unrelated);
    ASSERT_FALSE(nothing);
    EXPECT_NE(nothing.status().message().find("no compute layer"), std::string::npos)
        << nothing.status().message();
}

TEST(LayerMatching, ActivationThatIsAClampOnTheLayersQuantizedTensorFoldsIntoIt) {
    // add -> Q(s1, z1) -> DQ -> relu -> Q(s2, z2) -> DQ. The Relu folds into the Add's match when
    // the int8 lowering makes them one unit: z1 = qmin (our quantizer and ONNX Runtime give the
    // Add the Relu's range, so the Relu is a no-op), or (s2, z2) = (s1, z1) (a clamp on the same
    // grid, PyTorch FX's Clip after a Conv). Otherwise the Relu does work between two
    // requantizations and is a layer of its own.
    auto build = [](float s1, uint8_t z1, float s2, uint8_t z2) {
        Graph q = emptyGraph();
        q.initializers["s"] = Tensor::scalar<float>(s1);
        q.initializers["zp"] = Tensor::scalar<uint8_t>(z1);
        q.initializers["s2"] = Tensor::scalar<float>(s2);
        q.initializers["zp2"] = Tensor::scalar<uint8_t>(z2);
        std::string in = qdq(q, "x");
        add(q, "Add", "add", {in, in}, {"a"});
        add(q, "Relu", "relu", {qdq(q, "a")}, {"r"});
        add(q, "QuantizeLinear", "r_q", {"r", "s2", "zp2"}, {"r_quant"});
        add(q, "DequantizeLinear", "r_dq", {"r_quant", "s2", "zp2"}, {"r_deq"});
        return q;
    };
    Graph f = emptyGraph();
    add(f, "Add", "add", {"x", "x"}, {"a"});
    add(f, "Relu", "relu", {"a"}, {"r"});

    for (const auto &[s1, z1, s2, z2] : std::vector<std::tuple<float, uint8_t, float, uint8_t>>{
             {0.1f, 0, 0.05f, 0}, {0.1f, 128, 0.1f, 128}}) {
        SCOPED_TRACE(std::to_string(s1) + " " + std::to_string(z1) + " " + std::to_string(s2) + " " + std::to_string(z2));
        auto m = matchLayers(f, build(s1, z1, s2, z2));
        ASSERT_TRUE(m) << m.status().message();
        ASSERT_EQ(m->matches.size(), 1u);
        EXPECT_EQ(m->matches[0].floatOutput, "r");
        EXPECT_EQ(m->matches[0].quantOutput, "r_deq");
        EXPECT_EQ(m->matches[0].foldedQuantNodes, std::vector<std::string>{"relu"});
    }

    auto separate = matchLayers(f, build(0.1f, 128, 0.05f, 0));
    ASSERT_TRUE(separate) << separate.status().message();
    ASSERT_EQ(separate->matches.size(), 2u);
    EXPECT_EQ(separate->matches[0].quantOutput, "a_deq");
    EXPECT_EQ(separate->matches[1].floatNode, "relu");
    EXPECT_EQ(separate->matches[1].quantOutput, "r_deq");
}

namespace {

// A per-tensor int8 copy of `w` behind a DequantizeLinear in `q`; returns the DQ output.
std::string quantizedWeight(Graph &q, const std::string &name, const Tensor &w) {
    float maxAbs = 0.0f;
    for (int64_t i = 0; i < w.numel(); ++i) maxAbs = std::max(maxAbs, std::abs(w.data<float>()[i]));
    const float scale = maxAbs / 127.0f;
    Tensor wq(DataType::Int8, w.shape());
    for (int64_t i = 0; i < w.numel(); ++i)
        wq.data<int8_t>()[i] = static_cast<int8_t>(std::lround(w.data<float>()[i] / scale));
    q.initializers[name + "_q"] = wq;
    q.initializers[name + "_s"] = Tensor::scalar<float>(scale);
    q.initializers[name + "_zp"] = Tensor::scalar<int8_t>(0);
    add(q, "DequantizeLinear", name + "_dq", {name + "_q", name + "_s", name + "_zp"}, {name + "_w"});
    return name + "_w";
}

}  // namespace

// PyTorch's exports name nodes generically, and the names of a float export and its int8
// export collide on different layers: a residual block's 3x3 conv and its 1x1 shortcut conv
// both read x; the int8 file calls the shortcut "/Conv" and the 3x3 conv "/Conv_1", the float
// file the other way round, and both call their SE branch's ReduceMean "/ReduceMean" though
// they sit in different blocks. Weights decide, names do not.
TEST(LayerMatching, CollidingGenericNamesDoNotDecide) {
    const Tensor w3 = randomTensor({8, 3, 3, 3}, 1), w1 = randomTensor({8, 3, 1, 1}, 2);
    const Tensor w3b = randomTensor({8, 8, 3, 3}, 3);
    Graph f = emptyGraph();
    f.initializers["w3"] = w3;
    f.initializers["w1"] = w1;
    f.initializers["w3b"] = w3b;
    add(f, "Conv", "/Conv", {"x", "w3"}, {"a"});
    add(f, "Conv", "/Conv_1", {"x", "w1"}, {"b"});
    add(f, "Add", "/Add", {"a", "b"}, {"s"});
    add(f, "ReduceMean", "/ReduceMean", {"s"}, {"m"});
    add(f, "Conv", "/Conv_2", {"s", "w3b"}, {"c"});
    add(f, "ReduceMean", "/ReduceMean_1", {"c"}, {"y"});

    Graph q = emptyGraph();
    const std::string in = qdq(q, "x");
    add(q, "Conv", "/Conv", {in, quantizedWeight(q, "shortcut", w1)}, {"q_b"});
    add(q, "Conv", "/Conv_1", {in, quantizedWeight(q, "main", w3)}, {"q_a"});
    add(q, "Add", "/Add", {qdq(q, "q_a"), qdq(q, "q_b")}, {"q_s"});
    const std::string s = qdq(q, "q_s");
    add(q, "Conv", "/Conv_2", {s, quantizedWeight(q, "second", w3b)}, {"q_c"});
    add(q, "ReduceMean", "/ReduceMean", {qdq(q, "q_c")}, {"q_y"});  // the float "/ReduceMean_1"
    add(q, "ReduceMean", "/ReduceMean_1", {s}, {"q_m"});            // the float "/ReduceMean"

    auto result = matchLayers(f, q);
    ASSERT_TRUE(result) << result.status().message();
    const LayerMatching &m = *result;
    ASSERT_EQ(m.matches.size(), 6u);
    EXPECT_EQ(findMatch(m, "/Conv")->quantNode, "/Conv_1");
    EXPECT_EQ(findMatch(m, "/Conv")->how, "weights");
    EXPECT_GT(findMatch(m, "/Conv")->confidence, 0.99);
    EXPECT_EQ(findMatch(m, "/Conv_1")->quantNode, "/Conv");
    EXPECT_EQ(findMatch(m, "/Conv_2")->quantNode, "/Conv_2");
    EXPECT_EQ(findMatch(m, "/Add")->quantNode, "/Add");
    EXPECT_EQ(findMatch(m, "/Add")->how, "structure");
    EXPECT_EQ(findMatch(m, "/ReduceMean")->quantNode, "/ReduceMean_1");
    EXPECT_EQ(findMatch(m, "/ReduceMean")->quantOutput, "q_m");
    EXPECT_EQ(findMatch(m, "/ReduceMean_1")->quantNode, "/ReduceMean");
    EXPECT_TRUE(m.unmatchedFloat.empty());
    EXPECT_TRUE(m.unmatchedQuant.empty());

    // Without weight evidence (the same weights quantized away to nothing: shapes only) the
    // two convs reading x still pair by weight shape; the rest follows from them.
    Graph q2 = q;
    for (auto &[name, t] : q2.initializers)
        if (t.dtype() == DataType::Int8 && t.rank() == 4) t = Tensor(DataType::Int8, t.shape());
    auto shapes = matchLayers(f, q2);
    ASSERT_TRUE(shapes) << shapes.status().message();
    EXPECT_EQ(findMatch(*shapes, "/Conv")->quantNode, "/Conv_1");
    EXPECT_EQ(findMatch(*shapes, "/Conv")->how, "structure");
    EXPECT_EQ(findMatch(*shapes, "/ReduceMean")->quantNode, "/ReduceMean_1");
}

// Two layers with the same weight shape reading the same value (e.g. grouped branches): only
// their weights tell them apart, and their names are swapped.
TEST(LayerMatching, WeightsTellApartLayersThatReadTheSameValue) {
    const Tensor wa = randomTensor({4, 3, 3, 3}, 11), wb = randomTensor({4, 3, 3, 3}, 12);
    Graph f = emptyGraph();
    f.initializers["wa"] = wa;
    f.initializers["wb"] = wb;
    add(f, "Conv", "a", {"x", "wa"}, {"ya"});
    add(f, "Conv", "b", {"x", "wb"}, {"yb"});
    add(f, "Concat", "cat", {"ya", "yb"}, {"y"});
    Graph q = emptyGraph();
    const std::string in = qdq(q, "x");
    add(q, "Conv", "a", {in, quantizedWeight(q, "wb", wb)}, {"qb"});
    add(q, "Conv", "b", {in, quantizedWeight(q, "wa", wa)}, {"qa"});
    add(q, "Concat", "cat", {qdq(q, "qa"), qdq(q, "qb")}, {"qy"});
    auto result = matchLayers(f, q);
    ASSERT_TRUE(result) << result.status().message();
    EXPECT_EQ(findMatch(*result, "a")->quantNode, "b");
    EXPECT_EQ(findMatch(*result, "b")->quantNode, "a");
    EXPECT_EQ(findMatch(*result, "a")->how, "weights");
    EXPECT_EQ(findMatch(*result, "cat")->quantNode, "cat");
}

// A float model and the int8 export of another architecture (one more conv): one line naming
// the first weighted layer without a counterpart.
TEST(LayerMatching, DifferentArchitecturesAreAnErrorNamingTheFirstDifference) {
    Graph f = emptyGraph();
    f.initializers["w1"] = randomTensor({8, 3, 3, 3}, 1);
    f.initializers["w2"] = randomTensor({8, 8, 3, 3}, 2);
    add(f, "Conv", "conv1", {"x", "w1"}, {"a"});
    add(f, "Conv", "conv2", {"a", "w2"}, {"y"});
    Graph q = emptyGraph();
    std::string v = qdq(q, "x");
    add(q, "Conv", "c1", {v, quantizedWeight(q, "w1", randomTensor({8, 3, 3, 3}, 1))}, {"q1"});
    add(q, "Conv", "c2", {qdq(q, "q1"), quantizedWeight(q, "w2", randomTensor({16, 8, 3, 3}, 2))},
        {"q2"});
    auto result = matchLayers(f, q);
    ASSERT_FALSE(result);
    EXPECT_EQ(result.status().kind(), ErrorKind::BadInput);
    const std::string message = result.status().message();
    EXPECT_NE(message.find("'conv2' (weight [8,8,3,3]) has no counterpart"), std::string::npos)
        << message;
    EXPECT_EQ(message.find('\n'), std::string::npos);
}

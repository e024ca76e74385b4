// keepLayersFp32: a toggled layer of a QDQ model computes in float with the float model's
// (BN-folded) constants and no Q/DQ of its own; compared with graphs rewritten by hand, with the
// float model when every layer is toggled, and on the PyTorch FX fixture's shared Q/DQ pairs.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/session/keep_layers_fp32.h"
#include "analysis/pairing/layer_matching.h"
#include "fx_fixture.h"
#include "passes/precision.h"
#include "qdq_test_graphs.h"

using namespace ql;
using namespace ql::analysis;
using namespace ql::test;

namespace {

const float kEps = 1e-5f;

struct Pair {
    QdqBuilder floatModel, quantModel;
    Tensor w1, b1, gamma, beta, mean, var, w2;
};

// float: x -> Conv1 -> BN -> Relu -> Conv2 -> out
// QDQ:   x -> QDQ -> Conv1 (BN folded, int8 weights) -> Relu -> QDQ -> Conv2 -> QDQ -> out
Pair makePair() {
    Pair p;
    p.w1 = randomTensor({3, 2, 3, 3}, 1);
    p.b1 = randomTensor({3}, 2);
    p.gamma = randomTensor({3}, 3, 0.5f, 1.5f);
    p.beta = randomTensor({3}, 4);
    p.mean = randomTensor({3}, 5);
    p.var = randomTensor({3}, 6, 0.2f, 2.0f);
    p.w2 = randomTensor({2, 3, 1, 1}, 7);
    const Tensor x = randomTensor({1, 2, 5, 5}, 8, -2.0f, 2.0f);

    QdqBuilder &f = p.floatModel;
    f.input("x", x);
    Node &c1 = f.node("Conv", "conv1", {"x", f.init("w1", p.w1), f.init("b1", p.b1)}, {"c1"});
    c1.attributes["pads"] = intsAttr({1, 1, 1, 1});
    Node &bn = f.node("BatchNormalization", "bn1",
                      {"c1", f.init("gamma", p.gamma), f.init("beta", p.beta),
                       f.init("mean", p.mean), f.init("var", p.var)},
                      {"bn"});
    bn.attributes["epsilon"] = floatAttr(kEps);
    f.node("Relu", "relu1", {"bn"}, {"r1"});
    f.node("Conv", "conv2", {"r1", f.init("w2", p.w2)}, {"out"});
    f.output("out");

    QdqBuilder &q = p.quantModel;
    q.input("x", x);
    const std::string xq = q.qdq("x", 0.02f, 128);
    const std::string w1 = q.weight("qw1", {3, 2, 3, 3}, {0.01f, 0.012f, 0.009f}, 11);
    Node &qc1 = q.node("Conv", "conv1", {xq, w1, q.init("qb1", randomTensor({3}, 12))}, {"qc1"});
    qc1.attributes["pads"] = intsAttr({1, 1, 1, 1});
    q.node("Relu", "relu1", {"qc1"}, {"qr1"});
    const std::string r1 = q.qdq("qr1", 0.03f, 0);
    const std::string w2 = q.weight("qw2", {2, 3, 1, 1}, {0.01f}, 13);
    q.node("Conv", "conv2", {r1, w2}, {"qc2"});
    q.quantize("qc2", "qc2_q", 0.05f, 128);
    Node &dq = q.node("DequantizeLinear", "dq_out", {"qc2_q", "qc2_q_scale", "qc2_q_zp"}, {"out"});
    (void)dq;
    q.output("out");
    return p;
}

// conv1's weight and bias with bn1 folded in, computed here in double.
std::pair<Tensor, Tensor> foldedConv1(const Pair &p) {
    Tensor w = p.w1.clone(), b = p.b1.clone();
    for (int oc = 0; oc < 3; ++oc) {
        const double s =
            p.gamma.data<float>()[oc] / std::sqrt(double(p.var.data<float>()[oc]) + kEps);
        for (int i = 0; i < 18; ++i)
            w.data<float>()[oc * 18 + i] = float(p.w1.data<float>()[oc * 18 + i] * s);
        b.data<float>()[oc] = float((p.b1.data<float>()[oc] - p.mean.data<float>()[oc]) * s +
                                    p.beta.data<float>()[oc]);
    }
    return {w, b};
}

std::vector<LayerMatch> matchesFor(const Graph &f, const Graph &q,
                                   const std::set<std::string> &names) {
    auto m = matchLayers(f, q);
    EXPECT_TRUE(m) << m.status().message();
    std::vector<LayerMatch> out;
    if (!m) return out;
    for (const auto &match : m->matches)
        if (names.count(match.floatNode)) out.push_back(match);
    EXPECT_EQ(out.size(), names.size());
    return out;
}

std::vector<Tensor> runInt8(Graph g, const std::map<std::string, Tensor> &feeds) {
    EXPECT_TRUE(preparePrecision(g, Precision::Int8).isOk());
    return run(std::move(g), feeds);
}

bool hasNode(const Graph &g, const std::string &name) {
    return g.findNode(name) != nullptr;
}

}  // namespace

TEST(KeepLayersFp32, FirstLayerEqualsHandRewrittenGraph) {
    Pair p = makePair();
    Graph toggled = p.quantModel.g;
    ASSERT_TRUE(
        keepLayersFp32(toggled, p.floatModel.g, matchesFor(p.floatModel.g, toggled, {"conv1"}))
            .isOk());

    // By hand: conv1 reads x directly with the folded float weight and bias.
    Graph expected = p.quantModel.g;
    auto [w, b] = foldedConv1(p);
    expected.initializers["w1_folded"] = w;
    expected.initializers["b1_folded"] = b;
    mutableNode(expected, "conv1").inputs = {"x", "w1_folded", "b1_folded"};

    EXPECT_FALSE(hasNode(toggled, "q_x"));
    EXPECT_FALSE(hasNode(toggled, "dq_x"));
    EXPECT_FALSE(hasNode(toggled, "dq_qw1"));
    EXPECT_TRUE(hasNode(toggled, "q_qr1"));  // conv2 (int8) still reads the Relu quantized
    const Node *conv1 = toggled.findNode("conv1");
    ASSERT_NE(conv1, nullptr);
    EXPECT_EQ(conv1->inputs[0], "x");
    ASSERT_EQ(conv1->inputs.size(), 3u);
    EXPECT_LE(maxAbsDiff(*toggled.initializer(conv1->inputs[1]), w), 1e-6);
    EXPECT_LE(maxAbsDiff(*toggled.initializer(conv1->inputs[2]), b), 1e-6);

    const auto got = runInt8(toggled, p.quantModel.feeds);
    const auto want = runInt8(expected, p.quantModel.feeds);
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(want.size(), 1u);
    // Weights folded in float vs double may move a value across a rounding boundary: one step.
    EXPECT_LE(maxAbsDiff(got[0], want[0]), 0.05 + 1e-6);
}

TEST(KeepLayersFp32, LastLayerDropsItsOutputQdqAndEqualsHandRewrittenGraph) {
    Pair p = makePair();
    Graph toggled = p.quantModel.g;
    ASSERT_TRUE(
        keepLayersFp32(toggled, p.floatModel.g, matchesFor(p.floatModel.g, toggled, {"conv2"}))
            .isOk());
    EXPECT_FALSE(hasNode(toggled, "q_qc2_q"));
    EXPECT_FALSE(hasNode(toggled, "dq_out"));
    // conv1 stays int8: conv2 reads its dequantized output, the quantizer stays conv1's.
    EXPECT_TRUE(hasNode(toggled, "q_qr1"));
    const Node *conv2 = toggled.findNode("conv2");
    ASSERT_NE(conv2, nullptr);
    EXPECT_EQ(conv2->outputs[0], "out");
    EXPECT_EQ(conv2->inputs[0], "qr1_dq");

    Graph expected = p.quantModel.g;
    expected.initializers["w2_float"] = p.w2;
    mutableNode(expected, "conv2").inputs = {"qr1_dq", "w2_float"};
    mutableNode(expected, "conv2").outputs = {"out"};
    expected.nodes.erase(
        std::remove_if(expected.nodes.begin(), expected.nodes.end(),
                       [](const Node &n) { return n.name == "q_qc2_q" || n.name == "dq_out"; }),
        expected.nodes.end());
    const auto got = runInt8(toggled, p.quantModel.feeds);
    const auto want = runInt8(expected, p.quantModel.feeds);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(maxAbsDiff(got[0], want[0]), 0.0);
}

TEST(KeepLayersFp32, AllLayersGiveTheFloatModelsOutput) {
    Pair p = makePair();
    Graph toggled = p.quantModel.g;
    ASSERT_TRUE(keepLayersFp32(toggled, p.floatModel.g,
                               matchesFor(p.floatModel.g, toggled, {"conv1", "conv2"}))
                    .isOk());
    EXPECT_FALSE(isQuantizedModel(toggled));
    const auto got = runInt8(toggled, p.quantModel.feeds);
    const auto want = run(p.floatModel.g, p.floatModel.feeds);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_TRUE(allClose(got[0], want[0], 1e-5, 1e-5));
}

// A search toggles hundreds of sets: each toggled model must read the constants made once, not
// copies (the layer matching remembers weights by their memory and keeps what it has seen, so
// a copy per toggle grew a resnet50 search by ~40 MB per set until it ran out of memory).
TEST(KeepLayersFp32, ToggledModelsShareTheFloatConstants) {
    Pair p = makePair();
    auto constants = fp32LayerConstants(p.floatModel.g);
    ASSERT_TRUE(constants) << constants.status().message();
    const void *folded[2] = {nullptr, nullptr};
    for (int round = 0; round < 2; ++round) {
        Graph toggled = p.quantModel.g;
        ASSERT_TRUE(keepLayersFp32(toggled, p.floatModel.g, *constants,
                                   matchesFor(p.floatModel.g, toggled, {"conv1", "conv2"}))
                        .isOk());
        const Node *conv1 = toggled.findNode("conv1");
        const Node *conv2 = toggled.findNode("conv2");
        ASSERT_TRUE(conv1 && conv2);
        folded[round] = toggled.initializer(conv1->inputs[1])->rawData();
        // conv2 has no BN: the float model's own tensor.
        EXPECT_EQ(toggled.initializer(conv2->inputs[1])->rawData(),
                  p.floatModel.g.initializer("w2")->rawData());
    }
    EXPECT_EQ(folded[0], folded[1]);
    EXPECT_NE(folded[0], p.floatModel.g.initializer("w1")->rawData());  // BN folded: a new tensor
}

TEST(KeepLayersFp32, FxFixtureKeepsSharedQuantizersForTheInt8Add) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    Graph toggled = f.quantGraph;
    ASSERT_TRUE(
        keepLayersFp32(toggled, f.floatGraph, matchesFor(f.floatGraph, toggled, {"/conv2/Conv"}))
            .isOk());
    // conv1 stays int8: conv2 reads its dequantized output; conv2's output is still quantized
    // for the int8 Add.
    EXPECT_TRUE(hasNode(toggled, "/conv1/QuantizeLinear"));
    EXPECT_TRUE(hasNode(toggled, "/conv2/DequantizeLinear"));
    EXPECT_EQ(toggled.findNode("/conv2/Conv")->inputs[0], "/conv2/DequantizeLinear_output_0");
    EXPECT_TRUE(hasNode(toggled, "/conv2/QuantizeLinear"));
    EXPECT_FALSE(hasNode(toggled, "/conv2/DequantizeLinear_1"));  // its int8 weight

    // conv1 and conv2 together: conv2 reads conv1's float output; the Add still reads it quantized.
    Graph both = f.quantGraph;
    ASSERT_TRUE(keepLayersFp32(both, f.floatGraph,
                               matchesFor(f.floatGraph, both, {"/conv1/Conv", "/conv2/Conv"}))
                    .isOk());
    EXPECT_EQ(both.findNode("/conv2/Conv")->inputs[0], "/conv1/Relu_output_0");
    EXPECT_FALSE(hasNode(both, "/conv2/DequantizeLinear"));
    EXPECT_TRUE(hasNode(both, "/conv1/QuantizeLinear"));
    EXPECT_TRUE(hasNode(both, "/DequantizeLinear_1"));
    EXPECT_EQ(both.findNode("/conv1/Conv")->inputs[0], "input");
    auto m = matchLayers(f.floatGraph, toggled);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->matches.size(), f.matching.matches.size());
}

TEST(KeepLayersFp32, MismatchedOpTypeIsBadInput) {
    Pair p = makePair();
    Graph toggled = p.quantModel.g;
    auto matches = matchesFor(p.floatModel.g, toggled, {"conv2"});
    ASSERT_EQ(matches.size(), 1u);
    mutableNode(toggled, "conv2").opType = "ConvTranspose";
    const Status s = keepLayersFp32(toggled, p.floatModel.g, matches);
    EXPECT_EQ(s.kind(), ErrorKind::BadInput);
    EXPECT_NE(s.message().find("conv2"), std::string::npos);
}

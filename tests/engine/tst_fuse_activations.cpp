// The opt-in Conv fusion pass: which chains it fuses, and that fused plans compute the same as
// naive references (and as unfused plans, within 1e-5) without touching values others still see.
#include <gtest/gtest.h>

#include <cmath>

#include "conv_reference.h"
#include "kernels/kernel.h"
#include "passes/fold_batchnorm.h"
#include "passes/fuse_activations.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

const Shape kInput{1, 8, 10, 10};
const Shape kConvOut{1, 6, 10, 10};

struct GraphBuilder {
    Graph g;
    std::map<std::string, Tensor> feeds;

    GraphBuilder() { g.opsetVersion = 13; }
    void input(const std::string &name, const Tensor &t) {
        ValueInfo v;
        v.name = name;
        v.dtype = t.dtype();
        v.shape = t.shape();
        v.hasShape = true;
        g.inputs.push_back(v);
        g.valueInfo[name] = v;
        feeds[name] = t;
    }
    void shape(const std::string &name, const Shape &s) {
        ValueInfo v;
        v.name = name;
        v.dtype = DataType::Float;
        v.shape = s;
        v.hasShape = true;
        g.valueInfo[name] = v;
    }
    Node &node(const std::string &op, std::vector<std::string> ins, std::vector<std::string> outs) {
        Node n;
        n.opType = op;
        n.name = op + "_" + std::to_string(g.nodes.size());
        n.inputs = std::move(ins);
        n.outputs = std::move(outs);
        g.nodes.push_back(n);
        return g.nodes.back();
    }
    // 3x3 pad-1 conv from kInput's channels to 6, weights named after the output.
    void conv(const std::string &in, const std::string &out, unsigned seed) {
        g.initializers[out + "_w"] = randomTensor({6, 8, 3, 3}, seed);
        g.initializers[out + "_b"] = randomTensor({6}, seed + 1);
        node("Conv", {in, out + "_w", out + "_b"}, {out}).attributes["pads"] =
            intsAttr({1, 1, 1, 1});
        shape(out, kConvOut);
    }
    Tensor convRef(const std::string &in, const std::string &out) {
        RefConvParams p;
        p.padBegin = p.padEnd = {1, 1};
        return refConv(feeds.at(in), g.initializers.at(out + "_w"), &g.initializers.at(out + "_b"),
                       p);
    }
    void output(const std::string &name) {
        ValueInfo v;
        v.name = name;
        g.outputs.push_back(v);
    }
    std::vector<Tensor> run(bool fuse, Status *status = nullptr) {
        PlanOptions options{2, fuse};
        options.foldBatchNorms = fuse;
        auto plan = ExecutionPlan::create(g, options);
        std::vector<Tensor> outs;
        Status s = plan ? plan.value()->run(feeds, outs) : plan.status();
        if (status) *status = s;
        EXPECT_TRUE(s.isOk()) << s.message();
        return outs;
    }
};

Tensor mapValues(const Tensor &t, float (*f)(float)) {
    Tensor out = t.toPlain().clone();
    for (int64_t i = 0; i < out.numel(); ++i) out.data<float>()[i] = f(out.data<float>()[i]);
    return out;
}

Tensor addTensors(const Tensor &a, const Tensor &b) {
    Tensor out = a.toPlain().clone();
    const Tensor pb = b.toPlain();
    for (int64_t i = 0; i < out.numel(); ++i) out.data<float>()[i] += pb.data<float>()[i];
    return out;
}

bool allRegistered(const Graph &g) {
    for (const Node &n : g.nodes)
        if (!KernelRegistry::instance().find(n.domain, n.opType)) return false;
    return true;
}

// Fused must match the reference; when every unfused kernel exists, fused == unfused (1e-5).
void checkFusedAgainst(GraphBuilder &b, const std::vector<Tensor> &expected) {
    const std::vector<Tensor> fused = b.run(true);
    ASSERT_EQ(fused.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        std::string why;
        EXPECT_TRUE(allClose(fused[i], expected[i], 1e-4, 1e-4, &why))
            << "output " << i << ": " << why;
    }
    if (!allRegistered(b.g)) return;  // another family's kernel not there yet: reference only
    const std::vector<Tensor> plain = b.run(false);
    ASSERT_EQ(plain.size(), fused.size());
    for (size_t i = 0; i < fused.size(); ++i)
        EXPECT_LE(maxAbsDiff(fused[i], plain[i]), 1e-5) << "output " << i;
}

TEST(FuseActivations, ConvReluBecomesOneNode) {
    GraphBuilder b;
    b.input("x", randomTensor(kInput, 1));
    b.conv("x", "c", 10);
    b.node("Relu", {"c"}, {"y"});
    b.output("y");
    Graph g = b.g;
    FusionReport report;
    ASSERT_TRUE(fuseForInference(g, &report).isOk());
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].opType, "Conv");
    EXPECT_EQ(g.nodes[0].outputs[0], "y");
    EXPECT_EQ(report.fusedActivations, 1);
    checkFusedAgainst(b,
                      {mapValues(b.convRef("x", "c"), [](float v) { return std::max(v, 0.0f); })});
}

// Exports in PyTorch's training or PRESERVE mode leave BatchNormalization after each Conv: a plan
// with foldBatchNorms folds it into the Conv's weights first, so the ReLU after it fuses too. A
// tapped Conv output keeps its BN; a tapped BN output is kept by the folded Conv.
TEST(FuseActivations, BatchNormFoldsSoTheActivationAfterItFuses) {
    GraphBuilder b;
    b.input("x", randomTensor(kInput, 6));
    b.conv("x", "c", 60);
    const Tensor gamma = randomTensor({6}, 61), beta = randomTensor({6}, 62),
                 mean = randomTensor({6}, 63);
    Tensor var = randomTensor({6}, 64);
    for (int64_t i = 0; i < 6; ++i) var.data<float>()[i] = 0.5f + std::abs(var.data<float>()[i]);
    b.g.initializers["gamma"] = gamma;
    b.g.initializers["beta"] = beta;
    b.g.initializers["mean"] = mean;
    b.g.initializers["var"] = var;
    b.node("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"n"});
    b.shape("n", kConvOut);
    b.node("Relu", {"n"}, {"y"});
    b.output("y");
    const float epsilon = 1e-5f;  // BatchNormalization's default
    Tensor expected = b.convRef("x", "c");
    const int64_t plane = kConvOut[2] * kConvOut[3];
    for (int64_t i = 0; i < expected.numel(); ++i) {
        const int64_t c = i / plane % 6;
        float &v = expected.data<float>()[i];
        v = (v - mean.data<float>()[c]) / std::sqrt(var.data<float>()[c] + epsilon) *
                gamma.data<float>()[c] +
            beta.data<float>()[c];
        v = std::max(v, 0.0f);
    }
    for (const auto &[kept, nodes] :
         std::vector<std::pair<std::string, size_t>>{{"", 1u}, {"c", 3u}, {"n", 2u}}) {
        SCOPED_TRACE("kept '" + kept + "'");
        Graph g = b.g;
        FusionReport report;
        const std::set<std::string> visible =
            kept.empty() ? std::set<std::string>{} : std::set<std::string>{kept};
        ASSERT_TRUE(foldBatchNorms(g, nullptr, visible).isOk());
        ASSERT_TRUE(fuseForInference(g, &report, visible).isOk());
        EXPECT_EQ(g.nodes.size(), nodes);
        EXPECT_EQ(g.nodes[0].opType, "Conv");
        EXPECT_EQ(report.fusedActivations, kept.empty() ? 1 : 0);
    }
    checkFusedAgainst(b, {expected});
    // Without foldBatchNorms (the analyses' plans) the BN stays: their taps see the model's own
    // arithmetic.
    auto plan = ExecutionPlan::create(b.g, PlanOptions{2, true});
    ASSERT_TRUE(plan.isOk());
    EXPECT_NE((*plan)->graph().findNode("BatchNormalization_1"), nullptr);
}

TEST(FuseActivations, EveryActivationKind) {
    struct Case {
        const char *op;
        std::map<std::string, Attribute> attrs;
        float (*f)(float);
    };
    const std::vector<Case> cases = {
        {"LeakyRelu", {{"alpha", floatAttr(0.1f)}}, [](float v) { return v < 0 ? 0.1f * v : v; }},
        {"Sigmoid", {}, [](float v) { return 1.0f / (1.0f + std::exp(-v)); }},
        {"HardSigmoid",
         {{"alpha", floatAttr(0.3f)}, {"beta", floatAttr(0.4f)}},
         [](float v) { return std::min(1.0f, std::max(0.0f, 0.3f * v + 0.4f)); }},
        {"HardSwish",
         {},
         [](float v) { return v * std::min(1.0f, std::max(0.0f, v / 6.0f + 0.5f)); }},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.op);
        GraphBuilder b;
        b.input("x", randomTensor(kInput, 2, -3.0f, 3.0f));
        b.conv("x", "c", 20);
        b.node(c.op, {"c"}, {"y"}).attributes = c.attrs;
        b.output("y");
        checkFusedAgainst(b, {mapValues(b.convRef("x", "c"), c.f)});
    }
}

TEST(FuseActivations, GatedSiluAndHardSwishPatterns) {
    struct Case {
        const char *gate;
        std::map<std::string, Attribute> attrs;
        bool gateFirst;  // Mul(gate, x) instead of Mul(x, gate)
        bool fuses;
        float (*f)(float);
    };
    const std::vector<Case> cases = {
        {"Sigmoid", {}, false, true, [](float v) { return v / (1.0f + std::exp(-v)); }},
        {"Sigmoid", {}, true, true, [](float v) { return v / (1.0f + std::exp(-v)); }},
        {"HardSigmoid",
         {{"alpha", floatAttr(1.0f / 6.0f)}},
         false,
         true,
         [](float v) { return v * std::min(1.0f, std::max(0.0f, v / 6.0f + 0.5f)); }},
        // Other HardSigmoid parameters are no HardSwish; c has two users, so nothing fuses.
        {"HardSigmoid",
         {{"alpha", floatAttr(0.2f)}},
         true,
         false,
         [](float v) { return v * std::min(1.0f, std::max(0.0f, 0.2f * v + 0.5f)); }},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(std::string(c.gate) + (c.gateFirst ? " gate first" : ""));
        GraphBuilder b;
        b.input("x", randomTensor(kInput, 15, -3.0f, 3.0f));
        b.conv("x", "c", 140);
        b.node(c.gate, {"c"}, {"g"}).attributes = c.attrs;
        b.node(
            "Mul",
            c.gateFirst ? std::vector<std::string>{"g", "c"} : std::vector<std::string>{"c", "g"},
            {"y"});
        b.output("y");
        Graph g = b.g;
        ASSERT_TRUE(fuseForInference(g).isOk());
        EXPECT_EQ(g.nodes.size(), c.fuses ? 1u : 3u);
        checkFusedAgainst(b, {mapValues(b.convRef("x", "c"), c.f)});
    }
    // The gate seen by anyone else keeps the pattern unfused.
    GraphBuilder b;
    b.input("x", randomTensor(kInput, 16));
    b.conv("x", "c", 150);
    b.node("Sigmoid", {"c"}, {"g"});
    b.node("Mul", {"c", "g"}, {"y"});
    b.output("y");
    b.output("g");
    Graph g = b.g;
    ASSERT_TRUE(fuseForInference(g).isOk());
    EXPECT_EQ(g.nodes.size(), 3u);
}

TEST(FuseActivations, ClipFromInitializersAndOldAttributes) {
    for (int64_t opset : {13, 6}) {
        SCOPED_TRACE(opset);
        GraphBuilder b;
        b.g.opsetVersion = opset;
        b.input("x", randomTensor(kInput, 3));
        b.conv("x", "c", 30);
        if (opset >= 11) {
            b.g.initializers["lo"] = Tensor::scalar(-0.25f);
            b.g.initializers["hi"] = Tensor::scalar(0.5f);
            b.node("Clip", {"c", "lo", "hi"}, {"y"});
        } else {
            Node &clip = b.node("Clip", {"c"}, {"y"});
            clip.attributes["min"] = floatAttr(-0.25f);
            clip.attributes["max"] = floatAttr(0.5f);
        }
        b.output("y");
        Graph g = b.g;
        ASSERT_TRUE(fuseForInference(g).isOk());
        EXPECT_EQ(g.nodes.size(), 1u);
        checkFusedAgainst(b, {mapValues(b.convRef("x", "c"), [](float v) {
                              return std::min(0.5f, std::max(-0.25f, v));
                          })});
    }
}

TEST(FuseActivations, ResidualAddFromAnotherConvThenRelu) {
    GraphBuilder b;
    b.input("x", randomTensor(kInput, 4));
    b.conv("x", "a", 40);
    b.conv("x", "r", 50);  // produced after "a": the fused node must move to the Add's place
    b.node("Add", {"a", "r"}, {"s"});
    b.node("Relu", {"s"}, {"y"});
    b.output("y");
    Graph g = b.g;
    FusionReport report;
    ASSERT_TRUE(fuseForInference(g, &report).isOk());
    EXPECT_EQ(report.fusedAdds, 1);
    ASSERT_EQ(g.nodes.size(), 2u);
    EXPECT_EQ(g.nodes[1].inputs.size(), fused::kResidualInput + 1);
    EXPECT_EQ(g.nodes[1].inputs[fused::kResidualInput], "r");
    EXPECT_EQ(g.nodes[1].attrInt(fused::kSumInPlace, -1), 1);
    const Tensor expected = mapValues(addTensors(b.convRef("x", "a"), b.convRef("x", "r")),
                                      [](float v) { return std::max(v, 0.0f); });
    checkFusedAgainst(b, {expected});
}

TEST(FuseActivations, KeptVisibleValuesEndTheChain) {
    GraphBuilder b;
    b.input("x", randomTensor(kInput, 4));
    b.conv("x", "a", 40);
    b.conv("x", "r", 50);
    b.node("Add", {"a", "r"}, {"s"});
    b.node("Relu", {"s"}, {"y"});
    b.output("y");
    for (const auto &[kept, nodes] : std::vector<std::pair<std::string, size_t>>{
             {"a", 2u}, {"s", 3u}, {"y", 2u}}) {  // "a": r + a fuse the other way
        SCOPED_TRACE("kept " + kept);
        Graph g = b.g;
        ASSERT_TRUE(fuseForInference(g, nullptr, {kept}).isOk());
        EXPECT_EQ(g.nodes.size(), nodes);
        bool produced = false;  // a tap on the kept value still sees it
        for (const Node &n : g.nodes) produced = produced || n.outputs[0] == kept;
        EXPECT_TRUE(produced);
    }
}

TEST(FuseActivations, ResidualStillNeededElsewhereIsCopiedNotOverwritten) {
    GraphBuilder b;
    b.input("x", randomTensor(kInput, 5));
    b.conv("x", "r", 60);
    b.conv("x", "a", 70);
    b.node("Add", {"r", "a"}, {"s"});  // residual first this time
    b.output("s");
    b.output("r");  // r is also a graph output: must survive unchanged
    Graph g = b.g;
    ASSERT_TRUE(fuseForInference(g).isOk());
    ASSERT_EQ(g.nodes.size(), 2u);
    EXPECT_EQ(g.nodes[1].attrInt(fused::kSumInPlace, -1), 0);
    const Tensor r = b.convRef("x", "r");
    checkFusedAgainst(b, {addTensors(r, b.convRef("x", "a")), r});
}

TEST(FuseActivations, GraphInputResidualIsNeverWritten) {
    GraphBuilder b;
    b.input("x", randomTensor(kInput, 6));
    const Tensor skip = randomTensor(kConvOut, 7);
    b.input("skip", skip);
    const Tensor before = skip.clone();
    b.conv("x", "a", 80);
    b.node("Add", {"skip", "a"}, {"y"});
    b.output("y");
    checkFusedAgainst(b, {addTensors(b.convRef("x", "a"), skip)});
    EXPECT_EQ(maxAbsDiff(skip, before), 0.0);
}

TEST(FuseActivations, SecondRunKeepsEarlierPostOps) {
    GraphBuilder b;
    b.input("x", randomTensor(kInput, 17));
    b.input("skip", randomTensor(kConvOut, 18));
    b.conv("x", "c", 160);
    b.node("Relu", {"c"}, {"r"});
    b.shape("r", kConvOut);
    b.shape("skip", kConvOut);
    b.node("Add", {"r", "skip"}, {"y"});  // an Add after an activation is not fused
    b.output("y");
    Graph g = b.g;
    ASSERT_TRUE(fuseForInference(g).isOk());
    ASSERT_TRUE(fuseForInference(g).isOk());
    ASSERT_EQ(g.nodes.size(), 2u);
    const Attribute &ops = g.nodes[0].attributes.at(fused::kOps);
    EXPECT_EQ(ops.strings, std::vector<std::string>{"Relu"});
    const Tensor expected = addTensors(
        mapValues(b.convRef("x", "c"), [](float v) { return std::max(v, 0.0f); }), b.feeds["skip"]);
    checkFusedAgainst(b, {expected});
}

TEST(FuseActivations, LeavesSharedOrUnknownValuesAlone) {
    GraphBuilder b;
    b.input("x", randomTensor(kInput, 8));
    b.conv("x", "c", 90);
    b.node("Relu", {"c"}, {"y1"});
    b.node("Sigmoid", {"c"}, {"y2"});  // c has two consumers
    b.conv("x", "d", 100);
    b.output("d");  // d is a graph output
    b.node("Relu", {"d"}, {"y3"});
    b.conv("x", "e", 110);
    b.g.valueInfo.erase("e");  // unknown shape: no sum fusion
    b.node("Add", {"e", "x2"}, {"y4"});
    b.input("x2", randomTensor(kConvOut, 9));
    b.conv("x", "f", 120);
    b.node("Clip", {"f", "x2"}, {"y5"});  // runtime min: no fusion
    for (const char *o : {"y1", "y2", "y3", "y4", "y5"}) b.output(o);
    Graph g = b.g;
    const size_t before = g.nodes.size();
    ASSERT_TRUE(fuseForInference(g).isOk());
    EXPECT_EQ(g.nodes.size(), before);
}

TEST(FuseActivations, SymbolicBatchFusesOnlyWhenTheSymbolsMatch) {
    for (const char *other : {"batch", "", "n"}) {
        SCOPED_TRACE(std::string("residual batch symbol '") + other + "'");
        GraphBuilder b;
        b.input("x", randomTensor(kInput, 13));
        b.input("skip", randomTensor(kConvOut, 14));
        b.conv("x", "a", 130);
        b.node("Add", {"a", "skip"}, {"y"});
        b.output("y");
        for (const auto &[name, symbol] :
             {std::pair<std::string, std::string>{"a", "batch"}, {"skip", other}}) {
            ValueInfo &v = b.g.valueInfo[name];
            v.shape[0] = -1;
            v.dimNames = {symbol, "", "", ""};
        }
        Graph g = b.g;
        FusionReport report;
        ASSERT_TRUE(fuseForInference(g, &report).isOk());
        EXPECT_EQ(report.fusedAdds, std::string(other) == "batch" ? 1 : 0);
    }
}

TEST(FuseActivations, OneDimensionalConvWithResidual) {
    GraphBuilder b;
    b.input("x", randomTensor({1, 4, 12}, 10));
    b.input("skip", randomTensor({1, 5, 12}, 11));
    b.g.initializers["w"] = randomTensor({5, 4, 3}, 12);
    b.node("Conv", {"x", "w"}, {"c"}).attributes["pads"] = intsAttr({1, 1});
    b.shape("c", {1, 5, 12});
    b.shape("skip", {1, 5, 12});
    b.node("Add", {"c", "skip"}, {"s"});
    b.node("Relu", {"s"}, {"y"});
    b.output("y");
    RefConvParams p;
    p.padBegin = p.padEnd = {1};
    const Tensor conv = refConv(b.feeds["x"], b.g.initializers["w"], nullptr, p);
    checkFusedAgainst(b, {mapValues(addTensors(conv, b.feeds["skip"]),
                                    [](float v) { return std::max(v, 0.0f); })});
}

}  // namespace

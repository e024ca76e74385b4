// The precision passes on small hand-built QDQ graphs: which patterns become QOperator nodes, what
// the report says, that int8 and reference runs agree within one quantization step, that fp32
// strips Q/DQ, and the error for every kind of bad quantization parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kernels/kernel.h"
#include "passes/precision.h"
#include "passes/qdq_to_qoperator.h"
#include "passes/qoperator_to_qdq.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

struct QdqBuilder {
    Graph g;
    std::map<std::string, Tensor> feeds;

    QdqBuilder() {
        g.opsetVersion = 13;
        g.name = "qdq";
    }
    void input(const std::string &name, const Tensor &t) {
        ValueInfo v;
        v.name = name;
        v.dtype = t.dtype();
        v.shape = t.shape();
        v.hasShape = true;
        g.inputs.push_back(v);
        feeds[name] = t;
    }
    void output(const std::string &name) {
        ValueInfo v;
        v.name = name;
        g.outputs.push_back(v);
    }
    Node &node(const std::string &op, const std::string &name, std::vector<std::string> ins,
               std::vector<std::string> outs) {
        Node n;
        n.opType = op;
        n.name = name;
        n.inputs = std::move(ins);
        n.outputs = std::move(outs);
        g.nodes.push_back(n);
        return g.nodes.back();
    }
    std::string init(const std::string &name, const Tensor &t) {
        g.initializers[name] = t;
        return name;
    }
    // QuantizeLinear(x) -> DequantizeLinear with per-tensor uint8 (or int8) parameters.
    std::string qdq(const std::string &x, float scale, int zp, bool int8 = false) {
        const std::string s = init(x + "_scale", Tensor::scalar<float>(scale));
        const std::string z = int8 ? init(x + "_zp", Tensor::scalar<int8_t>(int8_t(zp)))
                                   : init(x + "_zp", Tensor::scalar<uint8_t>(uint8_t(zp)));
        node("QuantizeLinear", "q_" + x, {x, s, z}, {x + "_q"});
        node("DequantizeLinear", "dq_" + x, {x + "_q", s, z}, {x + "_dq"});
        return x + "_dq";
    }
    std::string quantize(const std::string &x, const std::string &y, float scale, int zp) {
        const std::string s = init(y + "_scale", Tensor::scalar<float>(scale));
        const std::string z = init(y + "_zp", Tensor::scalar<uint8_t>(uint8_t(zp)));
        node("QuantizeLinear", "q_" + y, {x, s, z}, {y});
        return y;
    }
    // Constant int8 weight behind a DequantizeLinear (per channel along axis 0 when several scales).
    std::string weight(const std::string &name, const Shape &shape, const std::vector<float> &scales,
                       unsigned seed) {
        Tensor w(DataType::Int8, shape);
        Tensor r = randomTensor(shape, seed, -127.0f, 127.0f);
        for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = int8_t(std::lround(r.data<float>()[i]));
        init(name + "_q", w);
        const int64_t n = int64_t(scales.size());
        init(name + "_scale", n == 1 ? Tensor::scalar<float>(scales[0]) : Tensor::fromVector<float>({n}, scales));
        init(name + "_zp", n == 1 ? Tensor::scalar<int8_t>(0) : Tensor::fromVector<int8_t>({n}, std::vector<int8_t>(size_t(n), 0)));
        Node &dq = node("DequantizeLinear", "dq_" + name, {name + "_q", name + "_scale", name + "_zp"}, {name});
        if (n > 1) dq.attributes["axis"] = intAttr(0);
        return name;
    }
};

std::vector<Tensor> run(Graph g, const std::map<std::string, Tensor> &feeds) {
    auto plan = ExecutionPlan::create(std::move(g), PlanOptions{1});
    EXPECT_TRUE(plan.isOk()) << plan.status().message();
    std::vector<Tensor> outputs;
    if (!plan) return outputs;
    Status s = plan.value()->run(feeds, outputs);
    EXPECT_TRUE(s.isOk()) << s.message();
    return outputs;
}

int countOp(const Graph &g, const std::string &op) {
    int n = 0;
    for (const Node &node : g.nodes) n += node.opType == op ? 1 : 0;
    return n;
}

const Node *nodeNamed(const Graph &g, const std::string &name) {
    for (const Node &node : g.nodes)
        if (node.name == name) return &node;
    return nullptr;
}

Node &mutableNode(Graph &g, const std::string &name) {
    for (Node &node : g.nodes)
        if (node.name == name) return node;
    ADD_FAILURE() << "no node " << name;
    return g.nodes.front();
}

const NodePrecision *entry(const PrecisionReport &r, const std::string &name) {
    for (const NodePrecision &p : r.nodes)
        if (p.node == name) return &p;
    return nullptr;
}

bool hasKernel(const std::string &domain, const std::string &op) {
    return KernelRegistry::instance().find(domain, op) != nullptr;
}

// x -> QDQ(uint8) -> Conv(per-channel int8 W, float bias) -> Relu -> Q(uint8, zp 0) -> y_q.
QdqBuilder convRelu(int outputZeroPoint = 0) {
    QdqBuilder b;
    b.input("x", randomTensor({1, 2, 6, 6}, 11, -1.0f, 1.5f));
    const std::string x = b.qdq("x", 2.5f / 255.0f, 102);
    const std::string w = b.weight("w", {3, 2, 3, 3}, {0.004f, 0.006f, 0.005f}, 12);
    b.init("bias", floats({0.1f, -0.2f, 0.05f}));
    b.node("Conv", "conv1", {x, w, "bias"}, {"c"}).attributes["pads"] = intsAttr({1, 1, 1, 1});
    b.node("Relu", "relu1", {"c"}, {"r"});
    b.quantize("r", "y_q", 0.02f, outputZeroPoint);
    b.output("y_q");
    return b;
}

TEST(QdqLowering, ConvReluBecomesQLinearConvAndMatchesReference) {
    QdqBuilder b = convRelu();
    Graph int8 = b.g, reference = b.g;
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(int8, Precision::Int8, &report).isOk());
    ASSERT_TRUE(preparePrecision(reference, Precision::Reference).isOk());
    EXPECT_EQ(countOp(int8, "QLinearConv"), 1);
    EXPECT_EQ(countOp(int8, "Conv"), 0);
    EXPECT_EQ(countOp(int8, "Relu"), 0);
    EXPECT_EQ(countOp(int8, "DequantizeLinear"), 0);
    const Node *conv = nodeNamed(int8, "conv1");
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->opType, "QLinearConv");
    EXPECT_EQ(conv->inputs[0], "x_q");
    EXPECT_FALSE(conv->hasAttribute("ql_activation"));  // zero point 0: saturation is the Relu
    // int32 bias = round(b / (x_scale * w_scale[c])).
    const Tensor &bias = int8.initializers.at(conv->inputs[8]);
    ASSERT_EQ(bias.dtype(), DataType::Int32);
    const float xs = 2.5f / 255.0f;
    EXPECT_EQ(bias.data<int32_t>()[0], std::lround(0.1 / (xs * 0.004f)));
    EXPECT_EQ(bias.data<int32_t>()[1], std::lround(-0.2 / (xs * 0.006f)));
    EXPECT_EQ(bias.data<int32_t>()[2], std::lround(0.05 / (xs * 0.005f)));

    EXPECT_EQ(report.precision, "int8");
    EXPECT_EQ(report.int8Count(), 2);
    EXPECT_EQ(report.fallbackCount(), 0);
    ASSERT_NE(entry(report, "conv1"), nullptr);
    EXPECT_EQ(entry(report, "conv1")->reason, "QLinearConv");
    ASSERT_NE(entry(report, "relu1"), nullptr);
    EXPECT_TRUE(entry(report, "relu1")->int8);
    EXPECT_EQ(report.summary(), "int8: 2 nodes, fp32 fallback: 0");

    for (unsigned seed : {1u, 2u, 3u}) {
        b.feeds["x"] = randomTensor({1, 2, 6, 6}, seed, -1.0f, 1.5f);
        std::vector<Tensor> a = run(int8, b.feeds), r = run(reference, b.feeds);
        ASSERT_EQ(a.size(), 1u);
        ASSERT_EQ(r.size(), 1u);
        EXPECT_EQ(a[0].dtype(), DataType::UInt8);
        EXPECT_LE(maxAbsDiff(a[0], r[0]), 1.0) << "seed " << seed;
        int nonzero = 0;
        for (int64_t i = 0; i < r[0].numel(); ++i) nonzero += r[0].data<uint8_t>()[i] > 0;
        EXPECT_GT(nonzero, 10);  // the check is not vacuous
    }
}

TEST(QdqLowering, ClipInsideTheRangeBecomesAnAttribute) {
    QdqBuilder b = convRelu(100);  // zero point 100: Relu clamps inside the uint8 range
    mutableNode(b.g, "relu1").opType = "Clip";
    mutableNode(b.g, "relu1").inputs = {"c", b.init("lo", Tensor::scalar<float>(-0.5f)), b.init("hi", Tensor::scalar<float>(1.0f))};
    Graph g = b.g;
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(g, Precision::Int8, &report).isOk());
    const Node *conv = nodeNamed(g, "conv1");
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->opType, "QLinearConv");
    EXPECT_EQ(conv->attrString("ql_activation", ""), "Clip");
    EXPECT_FLOAT_EQ(conv->attrFloat("ql_clip_min", 0), -0.5f);
    EXPECT_FLOAT_EQ(conv->attrFloat("ql_clip_max", 0), 1.0f);
    // The reference expansion of the int8 graph puts the Clip back.
    Graph back = g;
    ASSERT_TRUE(expandQOperatorsToQdq(back).isOk());
    EXPECT_EQ(countOp(back, "Clip"), 1);
    EXPECT_EQ(countOp(back, "Conv"), 1);
    EXPECT_NE(nodeNamed(back, "conv1"), nullptr);
    const std::vector<Tensor> a = run(back, b.feeds), r = run(b.g, b.feeds);
    EXPECT_LE(maxAbsDiff(a[0], r[0]), 1.0);
}

TEST(QdqLowering, Fp32StripsQdqAndStaysCloseToQuantized) {
    QdqBuilder b = convRelu();
    b.g.outputs.clear();
    b.node("DequantizeLinear", "dq_y", {"y_q", "y_q_scale", "y_q_zp"}, {"y"});
    b.output("y");
    Graph fp32 = b.g, reference = b.g;
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(fp32, Precision::Fp32, &report).isOk());
    EXPECT_EQ(report.precision, "fp32");
    EXPECT_EQ(countOp(fp32, "QuantizeLinear"), 0);
    EXPECT_EQ(countOp(fp32, "DequantizeLinear"), 0);
    EXPECT_EQ(countOp(fp32, "Conv"), 1);
    ASSERT_TRUE(preparePrecision(reference, Precision::Reference).isOk());
    const std::vector<Tensor> f = run(fp32, b.feeds), r = run(reference, b.feeds);
    ASSERT_EQ(f[0].dtype(), DataType::Float);
    // Output quantization (half a step) plus the input's, through 18 weights of <= 0.8.
    EXPECT_LE(maxAbsDiff(f[0], r[0]), 3 * 0.02);
    EXPECT_GT(maxAbsDiff(f[0], r[0]), 0.0);  // fp32 really skipped the quantization
}

TEST(QdqLowering, GemmBecomesQGemmWithTransBAndInt32Bias) {
    QdqBuilder b;
    b.input("a", randomTensor({2, 4}, 21));
    const std::string a = b.qdq("a", 2.0f / 255.0f, 128);
    const std::string w = b.weight("w", {3, 4}, {0.005f, 0.007f, 0.006f}, 22);
    b.init("c", floats({0.3f, -0.1f, 0.0f}));
    Node &gemm = b.node("Gemm", "fc", {a, w, "c"}, {"g"});
    gemm.attributes["transB"] = intAttr(1);
    b.quantize("g", "y_q", 0.01f, 128);
    b.output("y_q");

    Graph structural = b.g;
    ASSERT_TRUE(lowerQdqToQOperator(structural, nullptr, LoweringOptions{false}).isOk());
    const Node *q = nodeNamed(structural, "fc");
    ASSERT_NE(q, nullptr);
    EXPECT_EQ(q->opType, "QGemm");
    EXPECT_EQ(q->domain, "com.microsoft");
    EXPECT_EQ(q->attrInt("transB", 0), 1);
    ASSERT_EQ(q->inputs.size(), 9u);
    EXPECT_EQ(q->inputs[0], "a_q");
    EXPECT_EQ(q->inputs[3], "w_q");
    const Tensor &bias = structural.initializers.at(q->inputs[6]);
    EXPECT_EQ(bias.data<int32_t>()[0], std::lround(0.3 / (2.0 / 255.0 * 0.005)));
    EXPECT_EQ(bias.data<int32_t>()[1], std::lround(-0.1 / (2.0 / 255.0 * 0.007)));
    EXPECT_EQ(q->inputs[7], "y_q_scale");

    Graph int8 = b.g;
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(int8, Precision::Int8, &report).isOk());
    if (!hasKernel("com.microsoft", "QGemm")) {
        EXPECT_EQ(entry(report, "fc")->reason, "no com.microsoft QGemm kernel in this build");
        EXPECT_EQ(countOp(int8, "Gemm"), 1);
        return;
    }
    EXPECT_TRUE(entry(report, "fc")->int8);
    EXPECT_LE(maxAbsDiff(run(int8, b.feeds)[0], run(b.g, b.feeds)[0]), 1.0);
}

TEST(QdqLowering, AddAndConcatBecomeMicrosoftQLinearOps) {
    QdqBuilder b;
    b.input("x1", randomTensor({1, 3, 4}, 31));
    b.input("x2", randomTensor({1, 3, 4}, 32));
    const std::string x1 = b.qdq("x1", 2.0f / 255, 128), x2 = b.qdq("x2", 2.2f / 255, 120);
    b.node("Add", "add", {x1, x2}, {"s"});
    b.quantize("s", "s_q", 4.0f / 255, 127);
    b.node("DequantizeLinear", "dq_s", {"s_q", "s_q_scale", "s_q_zp"}, {"s_dq"});
    b.node("Concat", "cat", {"s_dq", x1}, {"cc"}).attributes["axis"] = intAttr(1);
    b.quantize("cc", "y_q", 4.0f / 255, 127);
    b.output("y_q");

    Graph structural = b.g;
    PrecisionReport report;
    ASSERT_TRUE(lowerQdqToQOperator(structural, &report, LoweringOptions{false}).isOk());
    const Node *add = nodeNamed(structural, "add"), *cat = nodeNamed(structural, "cat");
    ASSERT_TRUE(add && cat);
    EXPECT_EQ(add->opType, "QLinearAdd");
    EXPECT_EQ(add->domain, "com.microsoft");
    EXPECT_EQ(add->inputs, (std::vector<std::string>{"x1_q", "x1_scale", "x1_zp", "x2_q", "x2_scale",
                                                      "x2_zp", "s_q_scale", "s_q_zp"}));
    EXPECT_EQ(cat->opType, "QLinearConcat");
    EXPECT_EQ(cat->inputs, (std::vector<std::string>{"y_q_scale", "y_q_zp", "s_q", "s_q_scale", "s_q_zp",
                                                      "x1_q", "x1_scale", "x1_zp"}));
    EXPECT_EQ(cat->attrInt("axis", 0), 1);
    EXPECT_EQ(countOp(structural, "DequantizeLinear"), 0);
    EXPECT_EQ(report.int8Count(), 2);

    // Reference expansion of the QOperator form runs and agrees with the QDQ model.
    Graph back = structural;
    ASSERT_TRUE(expandQOperatorsToQdq(back).isOk());
    EXPECT_EQ(countOp(back, "QLinearAdd") + countOp(back, "QLinearConcat"), 0);
    EXPECT_LE(maxAbsDiff(run(back, b.feeds)[0], run(b.g, b.feeds)[0]), 0.0);

    Graph int8 = b.g;
    PrecisionReport real;
    ASSERT_TRUE(preparePrecision(int8, Precision::Int8, &real).isOk());
    if (!hasKernel("com.microsoft", "QLinearAdd") || !hasKernel("com.microsoft", "QLinearConcat")) {
        EXPECT_GE(real.fallbackCount(), 1);
        return;
    }
    EXPECT_EQ(real.int8Count(), 2);
    EXPECT_LE(maxAbsDiff(run(int8, b.feeds)[0], run(b.g, b.feeds)[0]), 1.0);
}

TEST(QdqLowering, MaxPoolAndReshapeRunOnInt8WhenQuantizationIsShared) {
    QdqBuilder b;
    b.input("x", randomTensor({1, 2, 4, 4}, 41));
    const std::string x = b.qdq("x", 2.0f / 255, 128);
    b.node("MaxPool", "pool", {x}, {"p"}).attributes["kernel_shape"] = intsAttr({2, 2});
    b.g.nodes.back().attributes["strides"] = intsAttr({2, 2});
    b.node("QuantizeLinear", "q_p", {"p", "x_scale", "x_zp"}, {"p_q"});
    b.node("DequantizeLinear", "dq_p", {"p_q", "x_scale", "x_zp"}, {"p_dq"});
    b.node("Reshape", "flat", {"p_dq", b.init("shape", ints({1, 8}))}, {"f"});
    b.node("QuantizeLinear", "q_f", {"f", "x_scale", "x_zp"}, {"y_q"});
    b.output("y_q");

    Graph structural = b.g;
    ASSERT_TRUE(lowerQdqToQOperator(structural, nullptr, LoweringOptions{false}).isOk());
    ASSERT_NE(nodeNamed(structural, "pool"), nullptr);
    EXPECT_EQ(nodeNamed(structural, "pool")->inputs[0], "x_q");
    EXPECT_EQ(nodeNamed(structural, "flat")->inputs[0], "p_q");
    EXPECT_EQ(countOp(structural, "DequantizeLinear"), 0);
    EXPECT_EQ(countOp(structural, "QuantizeLinear"), 1);  // the input's

    Graph int8 = b.g;
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(int8, Precision::Int8, &report).isOk());
    EXPECT_TRUE(entry(report, "flat")->int8);
    // Exact ops: int8 equals reference bit for bit (MaxPool maybe in fallback before its kernel).
    EXPECT_EQ(maxAbsDiff(run(int8, b.feeds)[0], run(b.g, b.feeds)[0]), 0.0);

    // Different output quantization: not exact, so it stays a fallback.
    Graph other = b.g;
    other.initializers["other_scale"] = Tensor::scalar<float>(3.0f / 255);
    for (Node &n : other.nodes)
        if (n.name == "q_f") n.inputs[1] = "other_scale";
    PrecisionReport otherReport;
    ASSERT_TRUE(preparePrecision(other, Precision::Int8, &otherReport).isOk());
    EXPECT_FALSE(entry(otherReport, "flat")->int8);
    EXPECT_NE(entry(otherReport, "flat")->reason.find("differs"), std::string::npos);
}

TEST(QdqLowering, SoftmaxFallsBackAndSharedDequantizeStays) {
    QdqBuilder b = convRelu();
    // A float consumer of the Conv's dequantized input, and a Softmax without an int8 form.
    b.node("Softmax", "soft", {"x_dq"}, {"sm"});
    b.quantize("sm", "sm_q", 1.0f / 255, 0);
    b.output("sm_q");
    Graph g = b.g;
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(g, Precision::Int8, &report).isOk());
    EXPECT_EQ(nodeNamed(g, "conv1")->opType, "QLinearConv");
    EXPECT_EQ(nodeNamed(g, "conv1")->inputs[0], "x_q");
    EXPECT_EQ(nodeNamed(g, "soft")->inputs[0], "x_dq");
    EXPECT_NE(nodeNamed(g, "dq_x"), nullptr);  // still read by the Softmax
    ASSERT_NE(entry(report, "soft"), nullptr);
    EXPECT_FALSE(entry(report, "soft")->int8);
    EXPECT_EQ(entry(report, "soft")->reason, "no int8 kernel for Softmax; runs dequantize -> fp32 -> quantize");
    EXPECT_EQ(report.summary(), "int8: 2 nodes, fp32 fallback: 1 (Softmax)");
    const std::vector<Tensor> a = run(g, b.feeds), r = run(b.g, b.feeds);
    ASSERT_EQ(a.size(), 2u);
    EXPECT_LE(maxAbsDiff(a[0], r[0]), 1.0);
    EXPECT_EQ(maxAbsDiff(a[1], r[1]), 0.0);
}

TEST(QdqLowering, ExporterNoiseIsCleanedUp) {
    QdqBuilder b;
    b.input("x", randomTensor({1, 2, 5, 5}, 51));
    // Zero point from Constant -> Cast, scale through an Identity, an Identity between Q and DQ.
    Node &k = b.node("Constant", "zp_const", {}, {"zp_i32"});
    Attribute value;
    value.kind = Attribute::Kind::Tensor;
    value.t = Tensor::scalar<int32_t>(128);
    k.attributes["value"] = value;
    b.node("Cast", "zp_cast", {"zp_i32"}, {"zp_u8"}).attributes["to"] = intAttr(int64_t(DataType::UInt8));
    b.init("xs", Tensor::scalar<float>(0.01f));
    b.node("QuantizeLinear", "qx", {"x", "xs", "zp_u8"}, {"xq"});
    b.node("Identity", "id1", {"xq"}, {"xq_id"});
    b.node("DequantizeLinear", "dqx", {"xq_id", "xs", "zp_u8"}, {"xdq"});
    const std::string w = b.weight("w", {2, 2, 3, 3}, {0.01f}, 52);
    b.node("Conv", "conv", {"xdq", w}, {"c"});
    b.quantize("c", "y_q", 0.05f, 128);
    b.output("y_q");
    Graph g = b.g;
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(g, Precision::Int8, &report).isOk());
    EXPECT_EQ(countOp(g, "Identity") + countOp(g, "Cast") + countOp(g, "Constant"), 0);
    EXPECT_EQ(nodeNamed(g, "conv")->opType, "QLinearConv");
    EXPECT_LE(maxAbsDiff(run(g, b.feeds)[0], run(b.g, b.feeds)[0]), 1.0);
}

TEST(QdqLowering, QOperatorModelRunsAsReferenceAndFp32) {
    // A QOperator-form model: one QLinearConv with a fused-Relu attribute and an int32 bias.
    QdqBuilder b;
    Tensor x(DataType::UInt8, {1, 2, 5, 5});
    Tensor r = randomTensor({1, 2, 5, 5}, 61, 0.0f, 255.0f);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<uint8_t>()[i] = uint8_t(r.data<float>()[i]);
    b.input("x", x);
    QdqBuilder w;
    w.weight("w", {3, 2, 3, 3}, {0.01f, 0.02f, 0.015f}, 62);
    for (auto &[name, t] : w.g.initializers) b.init(name, t);
    b.init("xs", Tensor::scalar<float>(0.02f));
    b.init("xz", Tensor::scalar<uint8_t>(100));
    b.init("ys", Tensor::scalar<float>(0.05f));
    b.init("yz", Tensor::scalar<uint8_t>(90));
    b.init("B", Tensor::fromVector<int32_t>({3}, {50, -300, 20}));
    Node &conv = b.node("QLinearConv", "qconv", {"x", "xs", "xz", "w_q", "w_scale", "w_zp", "ys", "yz", "B"}, {"y"});
    conv.attributes["ql_activation"] = stringAttr("Relu");
    b.output("y");
    EXPECT_TRUE(isQuantizedModel(b.g));
    Graph reference = b.g, fp32 = b.g;
    ASSERT_TRUE(preparePrecision(reference, Precision::Reference).isOk());
    EXPECT_EQ(countOp(reference, "QLinearConv"), 0);
    EXPECT_EQ(nodeNamed(reference, "qconv")->opType, "Conv");
    EXPECT_EQ(countOp(reference, "Relu"), 1);
    const Tensor ref = run(reference, b.feeds)[0];
    ASSERT_EQ(ref.dtype(), DataType::UInt8);
    // Hand check of one output element against the definition (Relu clamps to the zero point).
    int64_t below = 0;
    for (int64_t i = 0; i < ref.numel(); ++i) {
        EXPECT_GE(ref.data<uint8_t>()[i], 90);
        below += ref.data<uint8_t>()[i] == 90;
    }
    EXPECT_GT(below, 0);
    ASSERT_TRUE(preparePrecision(fp32, Precision::Fp32).isOk());
    EXPECT_EQ(countOp(fp32, "DequantizeLinear"), 1);  // the uint8 graph input stays dequantized
    EXPECT_EQ(countOp(fp32, "QuantizeLinear"), 1);    // and the uint8 graph output quantized
}

// preparePrecision's message for a graph DQ(x) -> Conv(DQ(w)) -> Q with one broken parameter.
std::string badParamsMessage(const std::function<void(QdqBuilder &)> &breakIt) {
    QdqBuilder b = convRelu();
    breakIt(b);
    PrecisionReport report;
    Status s = preparePrecision(b.g, Precision::Int8, &report);
    EXPECT_EQ(s.kind(), ErrorKind::BadInput);
    return s.message();
}

TEST(QdqLowering, BadQuantizationParametersNameTheNode) {
    EXPECT_EQ(badParamsMessage([](QdqBuilder &b) { b.g.initializers["x_scale"] = Tensor::scalar<float>(0.0f); }),
              "QuantizeLinear 'q_x': scale must be positive and finite, got 0 at index 0");
    EXPECT_EQ(badParamsMessage([](QdqBuilder &b) { b.g.initializers["w_scale"] = floats({0.1f, -0.2f, 0.1f}); }),
              "DequantizeLinear 'dq_w': scale must be positive and finite, got -0.2 at index 1");
    EXPECT_EQ(badParamsMessage([](QdqBuilder &b) {
                  b.g.initializers["y_q_scale"] = Tensor::scalar<float>(std::numeric_limits<float>::quiet_NaN());
              }),
              "QuantizeLinear 'q_y_q': scale must be positive and finite, got nan at index 0");
    EXPECT_EQ(badParamsMessage([](QdqBuilder &b) {
                  b.g.initializers["w_zp"] = Tensor::fromVector<uint8_t>({3}, {0, 200, 0});
              }),
              "DequantizeLinear 'dq_w': zero point 200 at index 1 is outside the int8 range [-128, 127]");
    EXPECT_EQ(badParamsMessage([](QdqBuilder &b) { mutableNode(b.g, "dq_w").attributes["axis"] = intAttr(4); }),
              "DequantizeLinear 'dq_w': axis 4 is out of range for rank 4 input");
    EXPECT_EQ(badParamsMessage([](QdqBuilder &b) {
                  b.g.initializers["w_zp"] = Tensor::fromVector<int8_t>({2}, {0, 0});
              }),
              "DequantizeLinear 'dq_w': scale has 3 values but zero point has 2");
    EXPECT_EQ(badParamsMessage([](QdqBuilder &b) {
                  b.g.initializers["w_scale"] = floats({0.1f, 0.2f});
                  b.g.initializers["w_zp"] = Tensor::fromVector<int8_t>({2}, {0, 0});
              }),
              "DequantizeLinear 'dq_w': scale has 2 values but axis 0 of the input has 3");
}

TEST(QdqLowering, PrecisionNamesAndDefaults) {
    Precision p = Precision::Fp32;
    EXPECT_TRUE(parsePrecision("reference", p));
    EXPECT_EQ(p, Precision::Reference);
    EXPECT_TRUE(parsePrecision("int8", p));
    EXPECT_EQ(p, Precision::Int8);
    EXPECT_FALSE(parsePrecision("int4", p));
    QdqBuilder q = convRelu();
    EXPECT_EQ(defaultPrecision(q.g), Precision::Int8);
    QdqBuilder f;
    f.input("x", floats({1, 2}));
    f.node("Relu", "r", {"x"}, {"y"});
    f.output("y");
    EXPECT_FALSE(isQuantizedModel(f.g));
    EXPECT_EQ(defaultPrecision(f.g), Precision::Fp32);
    Graph unchanged = f.g;
    ASSERT_TRUE(preparePrecision(unchanged, Precision::Int8).isOk());
    EXPECT_EQ(unchanged.nodes.size(), 1u);
}

}  // namespace

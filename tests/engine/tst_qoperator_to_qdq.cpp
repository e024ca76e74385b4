// The reference expansion (passes/qoperator_to_qdq.h) of QOperator-form models: every quantized
// operator becomes dequantize -> fp32 op -> quantize and computes what its kernel computes.
#include <gtest/gtest.h>

#include "passes/precision.h"
#include "passes/qoperator_to_qdq.h"
#include "qdq_test_graphs.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

TEST(QOperatorToQdq, QLinearConvModelRunsAsReferenceAndFp32) {
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
    EXPECT_EQ(countOps(reference, "QLinearConv"), 0);
    EXPECT_EQ(reference.findNode("qconv")->opType, "Conv");
    EXPECT_EQ(countOps(reference, "Relu"), 1);
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
    EXPECT_EQ(countOps(fp32, "DequantizeLinear"), 1);  // the uint8 graph input stays dequantized
    EXPECT_EQ(countOps(fp32, "QuantizeLinear"), 1);    // and the uint8 graph output quantized
}
// A one-QOperator graph on uint8 input "x": the reference expansion leaves no quantized operator,
// runs, and (when this build has the kernel) agrees with it within `tolerance` steps.
void expectExpansionMatchesKernel(QdqBuilder &b, double tolerance) {
    Graph expanded = b.g;
    ExpansionReport expansion;
    ASSERT_TRUE(expandQOperatorsToQdq(expanded, &expansion).isOk());
    EXPECT_EQ(expansion.expandedNodes, 1);
    for (const Node &n : expanded.nodes) {
        EXPECT_TRUE(n.opType.rfind("QLinear", 0) != 0 && n.opType != "QGemm" && n.opType.find("Integer") == std::string::npos)
            << n.opType;
    }
    const Node &original = b.g.nodes.back();
    ASSERT_NE(expanded.findNode(original.name), nullptr);  // the float op keeps the name
    const std::vector<Tensor> r = run(expanded, b.feeds);
    ASSERT_EQ(r.size(), 1u);
    if (!hasKernel(original.domain, original.opType)) return;
    const std::vector<Tensor> k = run(b.g, b.feeds);
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0].dtype(), r[0].dtype());
    EXPECT_LE(maxAbsDiff(k[0], r[0]), tolerance) << original.opType;
}

Tensor randomUint8(const Shape &shape, unsigned seed) {
    Tensor t(DataType::UInt8, shape);
    Tensor r = randomTensor(shape, seed, 0.0f, 255.0f);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<uint8_t>()[i] = uint8_t(r.data<float>()[i]);
    return t;
}

TEST(QOperatorToQdq, EveryQuantizedOperatorExpands) {
    QdqBuilder w;
    w.weight("w", {4, 3}, {0.01f, 0.02f, 0.015f, 0.012f}, 101);  // rows: per-row scales for QGemm transB
    w.weight("m", {3, 4}, {0.01f}, 102);
    auto common = [&](QdqBuilder &b, const Shape &shape) {
        b.input("x", randomUint8(shape, 103));
        for (auto &[name, t] : w.g.initializers) b.init(name, t);
        b.init("xs", Tensor::scalar<float>(0.02f));
        b.init("xz", Tensor::scalar<uint8_t>(120));
        b.init("ys", Tensor::scalar<float>(0.05f));
        b.init("yz", Tensor::scalar<uint8_t>(128));
    };
    {
        QdqBuilder b;
        common(b, {2, 3});
        b.node("QLinearMatMul", "mm", {"x", "xs", "xz", "m_q", "m_scale", "m_zp", "ys", "yz"}, {"y"});
        b.output("y");
        expectExpansionMatchesKernel(b, 1.0);
    }
    {
        QdqBuilder b;
        common(b, {2, 3});
        b.init("bias", Tensor::fromVector<int32_t>({4}, {100, -50, 0, 7}));
        Node &g = b.node("QGemm", "gemm", {"x", "xs", "xz", "w_q", "w_scale", "w_zp", "bias", "ys", "yz"}, {"y"});
        g.domain = "com.microsoft";
        g.attributes["transB"] = intAttr(1);
        g.attributes["alpha"] = floatAttr(0.5f);
        b.output("y");
        expectExpansionMatchesKernel(b, 1.0);
    }
    {
        QdqBuilder b;
        common(b, {1, 3, 4, 4});
        Node &p = b.node("QLinearAveragePool", "pool", {"x", "xs", "xz", "ys", "yz"}, {"y"});
        p.domain = "com.microsoft";
        p.attributes["kernel_shape"] = intsAttr({2, 2});
        b.output("y");
        expectExpansionMatchesKernel(b, 1.0);
    }
    for (const char *op : {"QLinearSigmoid", "QLinearLeakyRelu", "QLinearGlobalAveragePool"}) {
        QdqBuilder b;
        common(b, {1, 3, 4, 4});
        Node &n = b.node(op, std::string(op) + "_node", {"x", "xs", "xz", "ys", "yz"}, {"y"});
        n.domain = "com.microsoft";
        b.output("y");
        expectExpansionMatchesKernel(b, 1.0);
    }
    {
        QdqBuilder b;
        common(b, {2, 3});
        b.node("MatMulInteger", "mmi", {"x", "m_q", "xz"}, {"y"});
        b.output("y");
        expectExpansionMatchesKernel(b, 0.0);  // small integer sums are exact in float
    }
    {
        QdqBuilder b;
        common(b, {1, 3, 4, 4});
        b.init("cw", Tensor::fromVector<int8_t>({2, 3, 1, 1}, {1, -2, 3, -4, 5, -6}));
        b.init("cz", Tensor::scalar<int8_t>(0));
        b.node("ConvInteger", "ci", {"x", "cw", "xz", "cz"}, {"y"});
        b.output("y");
        expectExpansionMatchesKernel(b, 0.0);
    }
}

}  // namespace

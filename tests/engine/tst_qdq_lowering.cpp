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
#include "qdq_test_graphs.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

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
    EXPECT_EQ(countOps(int8, "QLinearConv"), 1);
    EXPECT_EQ(countOps(int8, "Conv"), 0);
    EXPECT_EQ(countOps(int8, "Relu"), 0);
    EXPECT_EQ(countOps(int8, "DequantizeLinear"), 0);
    const Node *conv = int8.findNode("conv1");
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

TEST(QdqLowering, Int8ActivationsWithPerTensorWeights) {
    QdqBuilder b;
    b.input("x", randomTensor({1, 3, 5, 5}, 71, -1.0f, 1.0f));
    const std::string x = b.qdq("x", 1.0f / 127, 0, true);  // symmetric int8 activations
    const std::string w = b.weight("w", {4, 3, 3, 3}, {0.005f}, 72);
    b.node("Conv", "conv", {x, w}, {"c"});
    b.node("Relu", "relu", {"c"}, {"r"});
    b.quantize("r", "y_q", 0.01f, -128, true);  // Relu is the saturation at -128
    b.output("y_q");
    Graph int8 = b.g;
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(int8, Precision::Int8, &report).isOk());
    EXPECT_EQ(int8.findNode("conv")->opType, "QLinearConv");
    EXPECT_EQ(report.int8Count(), 2);
    for (unsigned seed : {5u, 6u}) {
        b.feeds["x"] = randomTensor({1, 3, 5, 5}, seed, -1.0f, 1.0f);
        const Tensor a = run(int8, b.feeds)[0], r = run(b.g, b.feeds)[0];
        EXPECT_EQ(a.dtype(), DataType::Int8);
        EXPECT_LE(maxAbsDiff(a, r), 1.0);
    }
}

TEST(QdqLowering, StandaloneReluSixOnItsOwnRangeDisappears) {
    // FX exports ReLU6 as DQ -> Clip(0, 6) -> Q with the input's quantization [0, 6].
    QdqBuilder b;
    b.input("x", randomTensor({1, 2, 5, 5}, 81, -1.0f, 1.0f));
    const std::string x = b.qdq("x", 2.0f / 255, 128);
    const std::string w = b.weight("w", {3, 2, 3, 3}, {0.02f, 0.03f, 0.025f}, 82);
    b.node("Conv", "conv", {x, w}, {"c"});
    b.quantize("c", "c_q", 6.0f / 255, 0);
    b.node("DequantizeLinear", "dq_c", {"c_q", "c_q_scale", "c_q_zp"}, {"c_dq"});
    b.node("Clip", "relu6", {"c_dq", b.init("zero", Tensor::scalar<float>(0.0f)), b.init("six", Tensor::scalar<float>(6.0f))}, {"r"});
    b.node("QuantizeLinear", "q_r", {"r", "c_q_scale", "c_q_zp"}, {"y_q"});
    b.output("y_q");
    Graph int8 = b.g;
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(int8, Precision::Int8, &report).isOk());
    EXPECT_EQ(countOps(int8, "Clip"), 0);
    EXPECT_EQ(countOps(int8, "DequantizeLinear"), 0);
    EXPECT_EQ(countOps(int8, "QLinearConv"), 1);
    ASSERT_NE(entry(report, "relu6"), nullptr);
    EXPECT_TRUE(entry(report, "relu6")->int8);
    const Tensor a = run(int8, b.feeds)[0], r = run(b.g, b.feeds)[0];
    EXPECT_LE(maxAbsDiff(a, r), 1.0);
}

TEST(QdqLowering, StandaloneClipInsideTheRangeRunsOnInt8) {
    // FX shares the Conv output's quantization with a following ReLU6 ([-1, 1.5] here): the
    // Clip clamps inside it. It joins the QLinearConv's fused activation, or (when the kernel
    // cannot) becomes a Clip on the uint8 tensor with quantized bounds; both exact.
    QdqBuilder b;
    b.input("x", randomTensor({1, 2, 5, 5}, 91, -1.0f, 1.0f));
    const std::string x = b.qdq("x", 2.0f / 255, 128);
    const std::string w = b.weight("w", {3, 2, 3, 3}, {0.02f, 0.03f, 0.025f}, 92);
    b.node("Conv", "conv", {x, w}, {"c"});
    b.quantize("c", "c_q", 2.5f / 255, 102);
    b.node("DequantizeLinear", "dq_c", {"c_q", "c_q_scale", "c_q_zp"}, {"c_dq"});
    b.node("Clip", "relu6", {"c_dq", b.init("zero", Tensor::scalar<float>(0.0f)), b.init("top", Tensor::scalar<float>(0.6f))}, {"r"});
    b.node("QuantizeLinear", "q_r", {"r", "c_q_scale", "c_q_zp"}, {"y_q"});
    b.output("y_q");
    const Tensor reference = run(b.g, b.feeds)[0];
    int atBounds = 0;  // the clamp really acts: 0 -> 102, 0.6 -> 102 + 61 = 163
    for (int64_t i = 0; i < reference.numel(); ++i)
        atBounds += reference.data<uint8_t>()[i] == 102 || reference.data<uint8_t>()[i] == 163;
    EXPECT_GT(atBounds, 5);

    Graph fused = b.g;
    ASSERT_TRUE(lowerQdqToQOperator(fused, nullptr, LoweringOptions{false}).isOk());
    EXPECT_EQ(countOps(fused, "Clip"), 0);
    const Node *conv = fused.findNode("conv");
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->outputs[0], "y_q");  // the clamped value keeps the reference path's name
    EXPECT_EQ(conv->attrString("ql_activation", ""), "Clip");
    EXPECT_FLOAT_EQ(conv->attrFloat("ql_clip_min", -1), 0.0f);
    EXPECT_FLOAT_EQ(conv->attrFloat("ql_clip_max", -1), 0.6f);
    EXPECT_EQ(countOps(fused, "Identity"), 0);
    Graph back = fused;
    ASSERT_TRUE(expandQOperatorsToQdq(back).isOk());
    EXPECT_LE(maxAbsDiff(run(back, b.feeds)[0], reference), 1.0);

    Graph real = b.g;
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(real, Precision::Int8, &report).isOk());
    EXPECT_TRUE(entry(report, "relu6")->int8);
    if (!real.findNode("conv")->hasAttribute("ql_activation")) {
        const Node *clip = real.findNode("relu6");
        ASSERT_NE(clip, nullptr);
        EXPECT_EQ(clip->inputs[0], "c_q");
        EXPECT_EQ(real.initializers.at(clip->inputs[1]).data<uint8_t>()[0], 102);
        EXPECT_EQ(real.initializers.at(clip->inputs[2]).data<uint8_t>()[0], 163);
    }
    EXPECT_LE(maxAbsDiff(run(real, b.feeds)[0], reference), 1.0);
}

TEST(QdqLowering, ClipInsideTheRangeBecomesAnAttribute) {
    QdqBuilder b = convRelu(100);  // zero point 100: Relu clamps inside the uint8 range
    mutableNode(b.g, "relu1").opType = "Clip";
    mutableNode(b.g, "relu1").inputs = {"c", b.init("lo", Tensor::scalar<float>(-0.5f)), b.init("hi", Tensor::scalar<float>(1.0f))};
    Graph g = b.g;
    ASSERT_TRUE(lowerQdqToQOperator(g, nullptr, LoweringOptions{false}).isOk());
    const Node *conv = g.findNode("conv1");
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->opType, "QLinearConv");
    EXPECT_EQ(conv->attrString("ql_activation", ""), "Clip");
    EXPECT_FLOAT_EQ(conv->attrFloat("ql_clip_min", 0), -0.5f);
    EXPECT_FLOAT_EQ(conv->attrFloat("ql_clip_max", 0), 1.0f);
    // The reference expansion of the int8 graph puts the Clip back.
    Graph back = g;
    ASSERT_TRUE(expandQOperatorsToQdq(back).isOk());
    EXPECT_EQ(countOps(back, "Clip"), 1);
    EXPECT_EQ(countOps(back, "Conv"), 1);
    EXPECT_NE(back.findNode("conv1"), nullptr);
    const Tensor reference = run(b.g, b.feeds)[0];
    EXPECT_LE(maxAbsDiff(run(back, b.feeds)[0], reference), 1.0);
    int clamped = 0;  // values the Clip moved: 0.02 * (q - 100) < -0.5 would need q < 75
    for (int64_t i = 0; i < reference.numel(); ++i) clamped += reference.data<uint8_t>()[i] == 75;
    EXPECT_GT(clamped, 0);

    // With the kernels of this build the Clip is fused into QLinearConv (ql_activation).
    Graph real = b.g;
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(real, Precision::Int8, &report).isOk());
    ASSERT_EQ(real.findNode("conv1")->opType, "QLinearConv");
    EXPECT_LE(maxAbsDiff(run(real, b.feeds)[0], reference), 1.0);
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
    EXPECT_EQ(countOps(fp32, "QuantizeLinear"), 0);
    EXPECT_EQ(countOps(fp32, "DequantizeLinear"), 0);
    EXPECT_EQ(countOps(fp32, "Conv"), 1);
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
    const Node *q = structural.findNode("fc");
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
        EXPECT_EQ(countOps(int8, "Gemm"), 1);
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
    const Node *add = structural.findNode("add"), *cat = structural.findNode("cat");
    ASSERT_TRUE(add && cat);
    EXPECT_EQ(add->opType, "QLinearAdd");
    EXPECT_EQ(add->domain, "com.microsoft");
    EXPECT_EQ(add->inputs, (std::vector<std::string>{"x1_q", "x1_scale", "x1_zp", "x2_q", "x2_scale",
                                                      "x2_zp", "s_q_scale", "s_q_zp"}));
    EXPECT_EQ(cat->opType, "QLinearConcat");
    EXPECT_EQ(cat->inputs, (std::vector<std::string>{"y_q_scale", "y_q_zp", "s_q", "s_q_scale", "s_q_zp",
                                                      "x1_q", "x1_scale", "x1_zp"}));
    EXPECT_EQ(cat->attrInt("axis", 0), 1);
    EXPECT_EQ(countOps(structural, "DequantizeLinear"), 0);
    EXPECT_EQ(report.int8Count(), 2);

    // Reference expansion of the QOperator form runs and agrees with the QDQ model.
    Graph back = structural;
    ASSERT_TRUE(expandQOperatorsToQdq(back).isOk());
    EXPECT_EQ(countOps(back, "QLinearAdd") + countOps(back, "QLinearConcat"), 0);
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
    ASSERT_NE(structural.findNode("pool"), nullptr);
    EXPECT_EQ(structural.findNode("pool")->inputs[0], "x_q");
    EXPECT_EQ(structural.findNode("flat")->inputs[0], "p_q");
    EXPECT_EQ(countOps(structural, "DequantizeLinear"), 0);
    EXPECT_EQ(countOps(structural, "QuantizeLinear"), 1);  // the input's

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
    EXPECT_EQ(g.findNode("conv1")->opType, "QLinearConv");
    EXPECT_EQ(g.findNode("conv1")->inputs[0], "x_q");
    EXPECT_EQ(g.findNode("soft")->inputs[0], "x_dq");
    EXPECT_NE(g.findNode("dq_x"), nullptr);  // still read by the Softmax
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
    // Zero point from Constant -> Cast; an Identity and a Cast to uint8 between Q and DQ (FX).
    Node &k = b.node("Constant", "zp_const", {}, {"zp_i32"});
    Attribute value;
    value.kind = Attribute::Kind::Tensor;
    value.t = Tensor::scalar<int32_t>(128);
    k.attributes["value"] = value;
    b.node("Cast", "zp_cast", {"zp_i32"}, {"zp_u8"}).attributes["to"] = intAttr(int64_t(DataType::UInt8));
    b.init("xs", Tensor::scalar<float>(0.01f));
    b.node("QuantizeLinear", "qx", {"x", "xs", "zp_u8"}, {"xq"});
    b.node("Identity", "id1", {"xq"}, {"xq_id"});
    b.node("Cast", "noop_cast", {"xq_id"}, {"xq_cast"}).attributes["to"] = intAttr(int64_t(DataType::UInt8));
    b.node("DequantizeLinear", "dqx", {"xq_cast", "xs", "zp_u8"}, {"xdq"});
    const std::string w = b.weight("w", {2, 2, 3, 3}, {0.01f}, 52);
    b.node("Conv", "conv", {"xdq", w}, {"c"});
    b.quantize("c", "y_q", 0.05f, 128);
    b.output("y_q");
    Graph g = b.g;
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(g, Precision::Int8, &report).isOk());
    EXPECT_EQ(countOps(g, "Identity") + countOps(g, "Cast") + countOps(g, "Constant"), 0);
    EXPECT_EQ(g.findNode("conv")->opType, "QLinearConv");
    EXPECT_LE(maxAbsDiff(run(g, b.feeds)[0], run(b.g, b.feeds)[0]), 1.0);
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
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(unchanged, Precision::Int8, &report).isOk());
    EXPECT_EQ(unchanged.nodes.size(), 1u);
    EXPECT_EQ(report.precision, "fp32");  // what runs, not what was asked
    EXPECT_TRUE(report.nodes.empty());
}

}  // namespace
// The fusions for ONNX Runtime's quantize_dynamic output and for exported GELU: the dequantizing
// tail of a MatMulInteger (Cast, the scale Mul, the bias Add) becomes one com.microsoft
// MatMulIntegerToFloat, the five-node erf GELU one Gelu; each computes what its chain does
// (the integer accumulators are exact on every ISA, the float steps to a few ulps), and near
// misses stay unfused.
#include <gtest/gtest.h>

#include <cmath>

#include "passes/fuse_gelu.h"
#include "passes/fuse_matmul_integer.h"
#include "qdq_test_graphs.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

std::vector<Tensor> run(const Graph &g, bool fuse, const std::map<std::string, Tensor> &feeds) {
    return ql::test::run(g, feeds, PlanOptions{2, fuse});
}

int count(const Graph &g, const std::string &op) {
    int n = 0;
    for (const Node &node : g.nodes) n += node.opType == op;
    return n;
}

struct DynamicOptions {
    bool uint8Weights = false;  // uint8 B with per-column zero points (else int8, zero point 0)
    bool perColumnScale = false;
    bool bias = true;
    bool scaleFirst = false;  // Mul(scale, acc) and Add(bias, y): operands in the other order
};

const int64_t kK = 24, kN = 12;

// x [2, 5, K] -> DynamicQuantizeLinear -> MatMulInteger(B [K, N]) -> Cast -> Mul(a_scale *
// b_scale) -> Add(bias) -> y, as quantize_dynamic writes it.
QdqBuilder dynamicMatMul(const DynamicOptions &o) {
    QdqBuilder b;
    b.input("x", randomTensor({2, 5, kK}, 3, -2.0f, 3.0f));
    b.node("DynamicQuantizeLinear", "dql", {"x"}, {"xq", "xs", "xz"});
    Tensor w(o.uint8Weights ? DataType::UInt8 : DataType::Int8, {kK, kN});
    Tensor zp(o.uint8Weights ? DataType::UInt8 : DataType::Int8, {o.uint8Weights ? kN : 1});
    for (int64_t i = 0; i < w.numel(); ++i) {
        const int v = int((i * 37 + 11) % 255);
        if (o.uint8Weights)
            w.data<uint8_t>()[i] = uint8_t(v);
        else
            w.data<int8_t>()[i] = int8_t(v - 127);
    }
    for (int64_t j = 0; j < zp.numel(); ++j) {
        if (o.uint8Weights)
            zp.data<uint8_t>()[j] = uint8_t(120 + 3 * j);
        else
            zp.data<int8_t>()[j] = 0;
    }
    b.init("w", w);
    b.init("wz", zp);
    b.init("ws", o.perColumnScale ? randomTensor({kN}, 5, 0.01f, 0.03f)
                                  : Tensor::scalar<float>(0.02f));
    b.init("bias", randomTensor({kN}, 6));
    b.node("MatMulInteger", "mm", {"xq", "w", "xz", "wz"}, {"acc"});
    b.node("Cast", "cast", {"acc"}, {"accf"}).attributes["to"] = intAttr(1);
    b.node("Mul", "scale", {"xs", "ws"}, {"s"});
    b.node("Mul", "out", o.scaleFirst ? std::vector<std::string>{"s", "accf"}
                                      : std::vector<std::string>{"accf", "s"},
           {o.bias ? "mmf" : "y"});
    if (o.bias)
        b.node("Add", "bias_add", o.scaleFirst ? std::vector<std::string>{"bias", "mmf"}
                                              : std::vector<std::string>{"mmf", "bias"},
               {"y"});
    b.output("y");
    return b;
}

void expectFusedAndEqual(const DynamicOptions &o) {
    const QdqBuilder b = dynamicMatMul(o);
    Graph fused = b.g;
    ASSERT_EQ(fuseMatMulIntegerToFloat(fused), 1);
    ASSERT_EQ(fused.nodes.size(), 2u);  // DynamicQuantizeLinear and the fused node
    const Node &f = fused.nodes[1];
    EXPECT_EQ(f.opType, "MatMulIntegerToFloat");
    EXPECT_EQ(f.domain, "com.microsoft");
    EXPECT_EQ(f.name, o.bias ? "bias_add" : "out");
    EXPECT_EQ(f.inputs.size(), o.bias ? 7u : 6u);

    const auto a = run(b.g, true, b.feeds), want = run(b.g, false, b.feeds);
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(want.size(), 1u);
    ASSERT_EQ(a[0].shape(), (Shape{2, 5, kN}));
    // The same integer accumulators; the float scale and bias steps may differ by an ulp.
    EXPECT_TRUE(allClose(a[0], want[0], 1e-6, 1e-6)) << maxAbsDiff(a[0], want[0]);

    // And by hand from the quantized input, in double.
    auto q = run([&] {
        QdqBuilder d = b;
        d.g.nodes.resize(1);
        d.g.outputs.clear();
        d.output("xq");
        d.output("xs");
        d.output("xz");
        return d.g;
    }(), false, b.feeds);
    ASSERT_EQ(q.size(), 3u);
    const Tensor &w = b.g.initializers.at("w"), &wz = b.g.initializers.at("wz");
    const Tensor &ws = b.g.initializers.at("ws"), &bias = b.g.initializers.at("bias");
    const double as = q[1].data<float>()[0];
    const int za = q[2].data<uint8_t>()[0];
    for (int64_t r = 0; r < 10; ++r)
        for (int64_t j = 0; j < kN; ++j) {
            int64_t acc = 0;
            for (int64_t k = 0; k < kK; ++k) {
                const int64_t zb = int64_t(wz.valueAsDouble(wz.numel() == 1 ? 0 : j));
                acc += (int64_t(q[0].data<uint8_t>()[r * kK + k]) - za) *
                       (int64_t(w.valueAsDouble(k * kN + j)) - zb);
            }
            const double y = double(acc) * as * ws.valueAsDouble(ws.numel() == 1 ? 0 : j) +
                             (o.bias ? bias.data<float>()[j] : 0.0);
            EXPECT_NEAR(a[0].data<float>()[r * kN + j], y, 1e-5 * (1 + std::fabs(y)));
        }
}

TEST(FuseMatMulIntegerToFloat, DynamicQuantizeTailBecomesOneNode) {
    expectFusedAndEqual({});
    DynamicOptions o;
    o.scaleFirst = true;
    expectFusedAndEqual(o);
}

TEST(FuseMatMulIntegerToFloat, Uint8WeightsWithPerColumnZeroPointsAndScales) {
    DynamicOptions o;
    o.uint8Weights = o.perColumnScale = true;
    expectFusedAndEqual(o);
}

TEST(FuseMatMulIntegerToFloat, WithoutBias) {
    DynamicOptions o;
    o.bias = false;
    expectFusedAndEqual(o);
}

TEST(FuseMatMulIntegerToFloat, NearMissesStayUnfused) {
    QdqBuilder b = dynamicMatMul({});
    EXPECT_EQ(fuseMatMulIntegerToFloat(b.g, {"accf"}), 0);  // a tapped value inside the chain

    b = dynamicMatMul({});
    b.g.initializers.erase("ws");  // B's scale given at run time: not a weight's
    b.input("ws", Tensor::scalar<float>(0.02f));
    EXPECT_EQ(fuseMatMulIntegerToFloat(b.g), 0);

    b = dynamicMatMul({});
    b.g.initializers["bias"] = randomTensor({kN + 1}, 6);  // not one value per column
    ASSERT_EQ(fuseMatMulIntegerToFloat(b.g), 1);
    EXPECT_EQ(count(b.g, "Add"), 1);  // the Add stays after the fused node

    b = dynamicMatMul({});
    b.g.nodes[2].attributes["to"] = intAttr(7);  // Cast to int64
    EXPECT_EQ(fuseMatMulIntegerToFloat(b.g), 0);
}

// x -> Div sqrt(2) (or Mul 1/sqrt(2)) -> Erf -> Add 1 -> Mul x -> Mul 0.5, as torch.onnx.export
// writes F.gelu before opset 20.
QdqBuilder geluChain(bool mulForm, bool swapped, float one = 1.0f) {
    QdqBuilder b;
    b.input("x", randomTensor({3, 7, 40}, 9, -4.0f, 4.0f));
    if (mulForm)
        b.node("Mul", "scale", {b.init("c", Tensor::scalar<float>(0.70710678f)), "x"}, {"d"});
    else
        b.node("Div", "scale", {"x", b.init("c", Tensor::scalar<float>(1.41421356f))}, {"d"});
    b.node("Erf", "erf", {"d"}, {"e"});
    b.init("one", Tensor::scalar<float>(one));
    b.init("half", Tensor::scalar<float>(0.5f));
    b.node("Add", "plus_one", swapped ? std::vector<std::string>{"one", "e"}
                                      : std::vector<std::string>{"e", "one"},
           {"a"});
    b.node("Mul", "times_x", swapped ? std::vector<std::string>{"a", "x"}
                                     : std::vector<std::string>{"x", "a"},
           {"p"});
    b.node("Mul", "half_of", swapped ? std::vector<std::string>{"half", "p"}
                                     : std::vector<std::string>{"p", "half"},
           {"y"});
    b.output("y");
    return b;
}

TEST(FuseGelu, ExportedErfChainBecomesOneGelu) {
    for (bool mulForm : {false, true})
        for (bool swapped : {false, true}) {
            SCOPED_TRACE(std::to_string(mulForm) + std::to_string(swapped));
            const QdqBuilder b = geluChain(mulForm, swapped);
            Graph fused = b.g;
            ASSERT_EQ(fuseGelus(fused), 1);
            ASSERT_EQ(fused.nodes.size(), 1u);
            EXPECT_EQ(fused.nodes[0].opType, "Gelu");
            EXPECT_EQ(fused.nodes[0].name, "half_of");
            const auto a = run(b.g, true, b.feeds);
            ASSERT_EQ(a.size(), 1u);
            const Tensor &x = b.feeds.at("x");
            for (int64_t i = 0; i < x.numel(); ++i) {
                const double v = x.data<float>()[i];
                const double want = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
                EXPECT_NEAR(a[0].data<float>()[i], want, 1e-5 * (1 + std::fabs(want)));
            }
        }
}

TEST(FuseGelu, NearMissesStayUnfused) {
    QdqBuilder b = geluChain(false, false, 2.0f);  // not 1 + erf
    EXPECT_EQ(fuseGelus(b.g), 0);
    b = geluChain(false, false);
    EXPECT_EQ(fuseGelus(b.g, {"e"}), 0);  // a tapped value inside the chain
    b = geluChain(false, false);
    b.g.initializers["c"] = Tensor::scalar<float>(1.7f);  // not sqrt(2)
    EXPECT_EQ(fuseGelus(b.g), 0);
    EXPECT_EQ(b.g.nodes.size(), 5u);
}

}  // namespace

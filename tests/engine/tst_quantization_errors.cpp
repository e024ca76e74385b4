// Every bad quantization parameter of QuantizeLinear / DequantizeLinear, the com.microsoft
// QLinear* ops and QLinearConv / QLinearMatMul is a Status error naming the node and the reason.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "qlinear_test_support.h"
#include "test_support.h"

using namespace ql;
using test::fscalar;
using test::msNode;
using test::runSingleNode;
using test::zscalar;

namespace {

// Runs `node` and expects an error whose message names the node and contains every fragment.
void expectError(const Node &node, const std::vector<Tensor> &inputs,
                 const std::vector<std::string> &fragments, int64_t opset = 17) {
    auto run = runSingleNode(node, inputs, 1, {}, opset);
    ASSERT_FALSE(run.status.isOk()) << node.opType << " accepted bad parameters";
    const std::string &m = run.status.message();
    EXPECT_NE(m.find(node.opType + " '"), std::string::npos) << m;
    for (const std::string &f : fragments) EXPECT_NE(m.find(f), std::string::npos) << m << " lacks " << f;
}

TEST(QuantizationErrors, QuantizeAndDequantizeLinear) {
    const Tensor xf = test::floats({1.f, 2.f});
    const Tensor xq = Tensor::fromVector<uint8_t>({2}, {1, 2});
    for (const char *op : {"QuantizeLinear", "DequantizeLinear"}) {
        const Tensor &x = std::string(op) == "QuantizeLinear" ? xf : xq;
        const Node n = test::makeNode(op);
        expectError(n, {x, fscalar(0.f), zscalar<uint8_t>(0)}, {"scale must be positive", "got 0"});
        expectError(n, {x, fscalar(-0.5f), zscalar<uint8_t>(0)}, {"scale must be positive", "-0.5"});
        expectError(n, {x, fscalar(std::nanf("")), zscalar<uint8_t>(0)}, {"scale must be positive", "nan"});
        expectError(n, {x, fscalar(std::numeric_limits<float>::infinity())}, {"finite", "inf"});
        // Per-axis: axis out of range, scale length vs axis, scale vs zero point shapes.
        const Tensor x2 = std::string(op) == "QuantizeLinear" ? Tensor(DataType::Float, {2, 3})
                                                               : Tensor(DataType::UInt8, {2, 3});
        Node axis = test::makeNode(op, {{"axis", test::intAttr(2)}});
        expectError(axis, {x2, test::floats({1.f, 1.f, 1.f}), Tensor::fromVector<uint8_t>({3}, {0, 0, 0})},
                    {"axis 2 is out of range", "rank 2"}, 13);
        axis = test::makeNode(op, {{"axis", test::intAttr(-3)}});
        expectError(axis, {x2, test::floats({1.f, 1.f, 1.f})}, {"axis -3 is out of range"}, 13);
        expectError(test::makeNode(op), {x2, test::floats({1.f, 1.f})},
                    {"scale has 2 values but axis 1 has dimension 3"}, 13);
        expectError(test::makeNode(op), {x2, test::floats({1.f, 1.f, 1.f}), Tensor::fromVector<uint8_t>({2}, {0, 0})},
                    {"scale shape [3] and zero point shape [2] differ"}, 13);
        expectError(test::makeNode(op), {x2, test::floats({1.f, 1.f, 1.f})}, {"must hold one value before opset 13"}, 10);
    }
    // Zero point outside the data's range (DequantizeLinear reads a wider zero point type).
    expectError(test::makeNode("DequantizeLinear"), {xq, fscalar(1.f), Tensor::scalar<int32_t>(300)},
                {"zero point 300", "outside the uint8 range [0, 255]"});
    expectError(test::makeNode("DequantizeLinear"),
                {Tensor::fromVector<int8_t>({1}, {1}), fscalar(1.f), Tensor::scalar<int32_t>(-129)},
                {"zero point -129", "outside the int8 range"});
}

TEST(QuantizationErrors, QLinearContribOps) {
    const Tensor a = Tensor::fromVector<uint8_t>({2}, {1, 2});
    const Tensor one = fscalar(1.f), z = zscalar<uint8_t>(0);
    for (const char *op : {"QLinearAdd", "QLinearMul"}) {
        expectError(msNode(op), {a, fscalar(0.f), z, a, one, z, one, z}, {"A: scale must be positive", "got 0"});
        expectError(msNode(op), {a, one, z, a, fscalar(-1.f), z, one, z}, {"B: scale must be positive", "-1"});
        expectError(msNode(op), {a, one, z, a, one, z, fscalar(std::nanf("")), z}, {"C: scale must be positive", "nan"});
        expectError(msNode(op), {a, one, Tensor::scalar<int32_t>(256), a, one, z, one, z},
                    {"A: zero point 256", "outside the uint8 range"});
        expectError(msNode(op), {a, one, z, a, one, z, one, Tensor::scalar<int16_t>(-1)},
                    {"C: zero point -1", "outside the uint8 range"});
        expectError(msNode(op), {a, test::floats({1.f, 1.f}), z, a, one, z, one, z},
                    {"A: scale must hold one value (per tensor)"});
        expectError(msNode(op), {a, one, Tensor::fromVector<uint8_t>({2}, {0, 0}), a, one, z, one, z},
                    {"A: zero point must hold one value (per tensor)"});
        expectError(msNode(op), {a, one, z, Tensor::fromVector<uint8_t>({3}, {1, 2, 3}), one, z, one, z},
                    {"[2]", "[3]"});
    }
    for (const char *op : {"QLinearSigmoid", "QLinearLeakyRelu", "QLinearGlobalAveragePool"}) {
        const Tensor x = std::string(op) == "QLinearGlobalAveragePool" ? Tensor(DataType::Int8, {1, 2, 2, 2})
                                                                        : Tensor(DataType::Int8, {3});
        const Tensor zs = zscalar<int8_t>(0);
        expectError(msNode(op), {x, fscalar(0.f), zs, one, zs}, {"X: scale must be positive"});
        expectError(msNode(op), {x, one, zs, fscalar(-2.f), zs}, {"Y: scale must be positive", "-2"});
        expectError(msNode(op), {x, one, Tensor::scalar<uint8_t>(200), one, zs},
                    {"X: zero point 200", "outside the int8 range [-128, 127]"});
    }
    auto pool = msNode("QLinearAveragePool", {{"kernel_shape", test::intsAttr({2, 2})}});
    expectError(pool, {Tensor(DataType::UInt8, {1, 1, 2, 2}), one, z, fscalar(0.f), z}, {"Y: scale must be positive"});

    auto concat = msNode("QLinearConcat", {{"axis", test::intAttr(3)}});
    expectError(concat, {one, z, a, one, z, a, one, z}, {"axis 3 is out of range for rank 1"});
    concat = msNode("QLinearConcat", {{"axis", test::intAttr(0)}});
    expectError(concat, {fscalar(0.f), z, a, one, z}, {"Y: scale must be positive"});
    expectError(concat, {one, z, a, one, z, a, fscalar(-1.f), z}, {"input 1: scale must be positive"});
    expectError(concat, {one, z, a, one, Tensor::scalar<int32_t>(-5)}, {"input 0: zero point -5", "outside the uint8 range"});
    expectError(concat, {one, z, a, one}, {"triples"});
    expectError(concat, {one, z, a, one, z, Tensor::fromVector<int8_t>({1}, {1}), one, zscalar<int8_t>(0)},
                {"input 1 is int8 but input 0 is uint8"});
}

TEST(QuantizationErrors, QLinearConvAndMatMulNameTheParameter) {
    const Tensor x = Tensor(DataType::UInt8, {1, 1, 3, 3}), w = Tensor(DataType::Int8, {2, 1, 1, 1});
    const Tensor one = fscalar(1.f), zu = zscalar<uint8_t>(0), zs = zscalar<int8_t>(0);
    const Node conv = test::makeNode("QLinearConv");
    expectError(conv, {x, fscalar(0.f), zu, w, one, zs, one, zu}, {"x scale", "scale must be positive"});
    expectError(conv, {x, one, zu, w, test::floats({1.f, -1.f}), Tensor::fromVector<int8_t>({2}, {0, 0}), one, zu},
                {"w scale", "-1 at index 1"});
    expectError(conv, {x, one, zu, w, one, zs, fscalar(std::nanf("")), zu}, {"y scale", "nan"});
    expectError(conv, {x, one, Tensor::scalar<int32_t>(-1), w, one, zs, one, zu}, {"x zero point", "-1"});
    expectError(conv, {x, one, zu, w, test::floats({1.f, 1.f, 1.f}), zs, one, zu}, {"w scale has 3 values", "2 output channels"});
    expectError(conv, {x, one, zu, w, test::floats({1.f, 1.f}), Tensor::fromVector<int8_t>({3}, {0, 0, 0}), one, zu},
                {"w zero point has 3 values"});

    const Tensor a = Tensor(DataType::UInt8, {2, 3}), b = Tensor(DataType::Int8, {3, 4});
    const Node mm = test::makeNode("QLinearMatMul");
    expectError(mm, {a, fscalar(-3.f), zu, b, one, zs, one, zu}, {"a scale", "scale must be positive"});
    expectError(mm, {a, one, zu, b, fscalar(0.f), zs, one, zu}, {"b scale", "got 0"});
    expectError(mm, {a, one, zu, b, one, zs, fscalar(0.f), zu}, {"y scale", "got 0"});
    expectError(mm, {a, one, zu, b, one, Tensor::scalar<int32_t>(128), one, zu}, {"b zero point", "128"});
    expectError(mm, {a, one, zu, b, test::floats({1.f, 1.f}), zs, one, zu}, {"b scale shape [2]"});
}

}  // namespace

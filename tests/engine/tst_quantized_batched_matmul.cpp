// The batched int8 MatMul kernel (QLinearMatMul with activation or uint8 B, batch dims and
// broadcasting, nonzero B zero points; MatMulInteger) against the exact integer references:
// attention-shaped products Q·Kᵀ and A·V over heads, broadcast batches, per-column B parameters
// of a constant B, and operand values over the whole 8-bit ranges, which on CPUs without VNNI
// make oneDNN's int16 pair sums saturate unless the kernel splits B.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/quantization_common.h"
#include "quantized_kernel_checks.h"
#include "test_support.h"

namespace ql::test {
namespace {

struct Operand {
    DataType type = DataType::UInt8;
    Shape shape;
    int zeroPoint = 0;
    int lo = 0, hi = 255;  // value range drawn
};

struct QLinearCase {
    std::string name;
    Operand a, b;
    DataType yType = DataType::UInt8;
    int yZp = 128;
    bool constantB = false;
    int64_t perColumnB = 0;  // > 0: that many b scales / zero points
    std::string activation;
    float yScale = 0;  // 0: from the operands' spreads
};

// QLinearMatMul through the registered kernel and through the reference; y_scale puts the
// typical |accumulator| at about 40 levels, so most outputs land inside the range.
void checkQLinearCase(const QLinearCase &c, unsigned seed) {
    SCOPED_TRACE(c.name);
    const Tensor a = c.a.type == DataType::UInt8
                         ? randomInts<uint8_t>(c.a.shape, seed, c.a.lo, c.a.hi)
                         : randomInts<int8_t>(c.a.shape, seed, c.a.lo, c.a.hi);
    const Tensor b = c.b.type == DataType::UInt8
                         ? randomInts<uint8_t>(c.b.shape, seed + 1, c.b.lo, c.b.hi)
                         : randomInts<int8_t>(c.b.shape, seed + 1, c.b.lo, c.b.hi);
    const int64_t k = c.a.shape.back();
    const float aScale = 0.02f, bScale = 0.01f;
    const float spreadA = float(c.a.hi - c.a.lo) / 2, spreadB = float(c.b.hi - c.b.lo) / 2;
    const float yScale = c.yScale > 0 ? c.yScale
                                      : aScale * bScale * spreadA * spreadB * std::sqrt(float(k)) / 40;
    Tensor bScales = floatScalar(bScale), bZps = scalarOf(c.b.type, c.b.zeroPoint);
    if (c.perColumnB > 0) {
        bScales = Tensor(DataType::Float, {c.perColumnB});
        bZps = Tensor(c.b.type, {c.perColumnB});
        for (int64_t j = 0; j < c.perColumnB; ++j) {
            bScales.data<float>()[j] = bScale * (0.5f + 0.01f * float(j));
            const int zp = c.b.zeroPoint + int(j % 7) - 3;
            if (c.b.type == DataType::UInt8)
                bZps.data<uint8_t>()[j] = static_cast<uint8_t>(zp);
            else
                bZps.data<int8_t>()[j] = static_cast<int8_t>(zp);
        }
    }
    std::map<std::string, Attribute> attrs;
    if (!c.activation.empty()) attrs["ql_activation"] = stringAttr(c.activation);
    const Node node = makeNode("QLinearMatMul", attrs);
    const std::vector<Tensor> in{a, floatScalar(aScale), scalarOf(c.a.type, c.a.zeroPoint),
                                 b, bScales,             bZps,
                                 floatScalar(yScale),    scalarOf(c.yType, c.yZp)};
    const std::vector<bool> constants{false, true, true, c.constantB, true, true, true, true};
    const Tensor exact = runKernel(quant::makeQLinearMatMulReference, node, in, constants);
    const Tensor fast = runKernel(nullptr, node, in, constants);
    expectNearlyEqual(fast, exact, c.name);
    // The outputs spread over the range: the comparison is not one of saturated values.
    int64_t inside = 0;
    const double lo = c.yType == DataType::UInt8 ? 0 : -128, hi = lo + 255;
    for (int64_t i = 0; i < exact.numel(); ++i)
        inside += exact.valueAsDouble(i) > lo && exact.valueAsDouble(i) < hi;
    EXPECT_GT(inside, exact.numel() / (c.activation.empty() ? 2 : 4)) << c.name;
}

TEST(QuantizedBatchedMatMul, AttentionProductsMatchReference) {
    const DataType u8 = DataType::UInt8, s8 = DataType::Int8;
    const std::vector<QLinearCase> cases{
        // Q·Kᵀ over 4 heads: both operands activations with asymmetric zero points.
        {"q_kt", {u8, {1, 4, 16, 24}, 117}, {u8, {1, 4, 24, 16}, 131}},
        // A·V: softmax output (zero point 0) times values.
        {"a_v", {u8, {1, 4, 16, 16}, 0}, {u8, {1, 4, 16, 24}, 126}},
        // s8 activations, B's zero point 0: one oneDNN call with the activation fused.
        {"s8_direct", {s8, {2, 5, 40}, 3, -128, 127}, {s8, {2, 40, 7}, 0, -128, 127}, s8, -3,
         false, 0, "Relu"},
        // s8 B with a nonzero zero point, int8 output.
        {"s8_b_zp", {s8, {3, 9, 33}, -7, -128, 127}, {s8, {3, 33, 11}, 5, -128, 127}, s8, 0},
    };
    unsigned seed = 700;
    for (const QLinearCase &c : cases) checkQLinearCase(c, seed += 2);
}

TEST(QuantizedBatchedMatMul, BroadcastBatchesMatchReference) {
    const DataType u8 = DataType::UInt8, s8 = DataType::Int8;
    const std::vector<QLinearCase> cases{
        {"b_broadcast_leading", {u8, {2, 3, 10, 12}, 9}, {s8, {3, 12, 9}, -5, -128, 127}},
        {"a_broadcast", {u8, {1, 6, 20}, 200}, {u8, {4, 20, 8}, 30}},
        {"both_broadcast", {u8, {2, 1, 7, 13}, 50}, {u8, {1, 3, 13, 5}, 77}},
        // Sequence-first activations times a weight: A's batches fold into rows of one product.
        {"seq_first_weight", {u8, {6, 1, 24}, 40}, {u8, {24, 10}, 120}, u8, 128, true},
        {"rank5", {u8, {1, 2, 2, 6, 8}, 1}, {s8, {2, 1, 2, 8, 6}, 2, -128, 127}},
    };
    unsigned seed = 800;
    for (const QLinearCase &c : cases) checkQLinearCase(c, seed += 2);
}

// A constant 2-D B the 2-D kernel does not take (uint8, nonzero or per-column zero points).
TEST(QuantizedBatchedMatMul, ConstantUint8AndPerColumnBMatchReference) {
    const DataType u8 = DataType::UInt8, s8 = DataType::Int8;
    const std::vector<QLinearCase> cases{
        {"const_u8", {u8, {1, 12, 64}, 100}, {u8, {64, 32}, 140}, u8, 128, true},
        {"const_u8_per_column", {u8, {2, 5, 48}, 13}, {u8, {48, 20}, 128}, u8, 128, true, 20},
        {"const_s8_per_column_zp", {s8, {6, 48}, 0, -128, 127}, {s8, {48, 20}, 0, -128, 127}, u8,
         128, true, 20, "Relu"},
    };
    unsigned seed = 900;
    for (const QLinearCase &c : cases) checkQLinearCase(c, seed += 2);
}

// Large operands and long K: without VNNI, oneDNN's vpmaddubsw would saturate pairs of
// products in int16 unless B is split (an error of thousands of levels in the accumulator).
// y_scale puts the mean accumulator (K * 227 * 100) at about 128 levels.
TEST(QuantizedBatchedMatMul, SaturatingPairsStayExact) {
    const DataType u8 = DataType::UInt8;
    const float yScale = 0.02f * 0.01f * 227 * 100 / 128;
    QLinearCase c{"saturating", {u8, {2, 8, 516}, 0, 200, 255}, {u8, {2, 516, 16}, 128, 200, 255},
                  u8, 0};
    c.yScale = yScale * 516;
    checkQLinearCase(c, 950);
    QLinearCase odd{"saturating_odd_k", {u8, {3, 5, 517}, 0, 200, 255},
                    {u8, {3, 517, 9}, 155, 0, 55}, u8, 255};
    odd.yScale = yScale * 517;
    checkQLinearCase(odd, 952);
}

// MatMulInteger (as quantize_dynamic writes it: uint8 activations from DynamicQuantizeLinear,
// int8 weights): int32 outputs, so the kernel must equal the reference exactly.
TEST(QuantizedBatchedMatMul, MatMulIntegerEqualsReference) {
    struct Case {
        Shape a, b;
        DataType bType;
        int aZp;
        std::vector<int> bZp;  // 1 or N values
        bool constantB;
    };
    const std::vector<Case> cases{
        {{1, 32, 64}, {64, 48}, DataType::Int8, 121, {0}, true},
        {{2, 16, 40}, {40, 12}, DataType::Int8, 3, {1, -2, 0, 4, 5, -6, 7, 0, 1, 2, 3, -4}, true},
        {{1, 4, 16, 24}, {1, 4, 24, 16}, DataType::UInt8, 90, {140}, false},
        {{3, 7, 300}, {300, 5}, DataType::UInt8, 255, {0}, true},
        // Saturating pairs without VNNI: a near 255, B near 255 with zero point 0 (s8 72..127).
        {{2, 8, 516}, {2, 516, 16}, DataType::UInt8, 0, {0}, false},
    };
    unsigned seed = 1000;
    for (const Case &c : cases) {
        const bool large = c.aZp == 0;  // the saturating case
        const Tensor a = randomInts<uint8_t>(c.a, seed++, large ? 200 : 0, 255);
        const Tensor b = c.bType == DataType::UInt8 ? randomInts<uint8_t>(c.b, seed++, large ? 200 : 0, 255)
                                                    : randomInts<int8_t>(c.b, seed++, -128, 127);
        Tensor bZp = scalarOf(c.bType, c.bZp[0]);
        if (c.bZp.size() > 1) {
            bZp = Tensor(c.bType, {int64_t(c.bZp.size())});
            for (size_t j = 0; j < c.bZp.size(); ++j) bZp.data<int8_t>()[j] = int8_t(c.bZp[j]);
        }
        const Node node = makeNode("MatMulInteger");
        const std::vector<Tensor> in{a, b, scalarOf(DataType::UInt8, c.aZp), bZp};
        const std::vector<bool> constants{false, c.constantB, true, true};
        const Tensor exact = runKernel(quant::makeMatMulIntegerReference, node, in, constants);
        const Tensor fast = runKernel(quant::makeMatMulInteger, node, in, constants);
        ASSERT_TRUE(exact.defined() && fast.defined());
        ASSERT_EQ(fast.shape(), exact.shape());
        ASSERT_EQ(fast.dtype(), DataType::Int32);
        int64_t differing = 0;
        for (int64_t i = 0; i < exact.numel(); ++i)
            differing += fast.data<int32_t>()[i] != exact.data<int32_t>()[i];
        EXPECT_EQ(differing, 0) << shapeToString(c.a) << " x " << shapeToString(c.b);
    }
}

}  // namespace
}  // namespace ql::test

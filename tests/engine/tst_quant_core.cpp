// Quantization core: qparams formulas, observers, histogram range selection and calibration
// statistics, against hand-computed values and naive brute-force references.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "quant/histogram.h"
#include "quant/observers.h"
#include "quant/qparams.h"
#include "quant/range_selection.h"
#include "test_support.h"

using namespace ql;
using namespace ql::quant;

namespace {

QRangeOptions opts(DataType type, bool symmetric = false, bool reduceRange = false) {
    return {type, symmetric, reduceRange};
}

void expectQParams(const QParams &p, DataType type, float scale, int32_t zeroPoint) {
    ASSERT_EQ(p.scale.size(), 1u);
    ASSERT_EQ(p.zeroPoint.size(), 1u);
    EXPECT_EQ(p.type, type);
    EXPECT_EQ(p.axis, -1);
    EXPECT_FLOAT_EQ(p.scale[0], scale);
    EXPECT_EQ(p.zeroPoint[0], zeroPoint);
}

}  // namespace

// ---------------------------------------------------------------- qparams

TEST(QParams, AsymmetricUint8) {
    // [-1, 3]: scale 4/255; zero point 0 - round(-1 / (4/255)) = round(63.75) = 64.
    expectQParams(qparamsFromRange(-1.0f, 3.0f, opts(DataType::UInt8)), DataType::UInt8, 4.0f / 255.0f, 64);
}

TEST(QParams, AsymmetricInt8) {
    // Same scale; zero point -128 - round(-63.75) = -128 + 64 = -64.
    expectQParams(qparamsFromRange(-1.0f, 3.0f, opts(DataType::Int8)), DataType::Int8, 4.0f / 255.0f, -64);
}

TEST(QParams, RangeIsExtendedToContainZero) {
    // All positive [0.5, 2] -> [0, 2]: scale 2/255, zero point 0.
    expectQParams(qparamsFromRange(0.5f, 2.0f, opts(DataType::UInt8)), DataType::UInt8, 2.0f / 255.0f, 0);
    // All negative [-2, -0.5] -> [-2, 0]: zero point 0 - round(-2 / (2/255)) = 255.
    expectQParams(qparamsFromRange(-2.0f, -0.5f, opts(DataType::UInt8)), DataType::UInt8, 2.0f / 255.0f, 255);
    // Int8 all negative: -128 + 255 = 127.
    expectQParams(qparamsFromRange(-2.0f, -0.5f, opts(DataType::Int8)), DataType::Int8, 2.0f / 255.0f, 127);
}

TEST(QParams, SymmetricInt8AndUint8) {
    // max(|-1|, |3|) = 3 over (127 - (-128)) / 2 = 127.5.
    expectQParams(qparamsFromRange(-1.0f, 3.0f, opts(DataType::Int8, true)), DataType::Int8, 3.0f / 127.5f, 0);
    // uint8 symmetric: PyTorch's zero point 128, same scale.
    expectQParams(qparamsFromRange(-1.0f, 3.0f, opts(DataType::UInt8, true)), DataType::UInt8, 3.0f / 127.5f, 128);
    // The negative side can dominate.
    expectQParams(qparamsFromRange(-5.1f, 1.0f, opts(DataType::Int8, true)), DataType::Int8, 5.1f / 127.5f, 0);
}

TEST(QParams, ReduceRange) {
    EXPECT_EQ(quantizedRange(opts(DataType::UInt8, false, true)), std::make_pair(0, 127));
    EXPECT_EQ(quantizedRange(opts(DataType::Int8, false, true)), std::make_pair(-64, 63));
    EXPECT_EQ(quantizedRange(opts(DataType::UInt8)), std::make_pair(0, 255));
    EXPECT_EQ(quantizedRange(opts(DataType::Int8)), std::make_pair(-128, 127));
    // uint8 [-1, 3] on 0..127: scale 4/127, zero point round(1 / (4/127)) = round(31.75) = 32.
    expectQParams(qparamsFromRange(-1.0f, 3.0f, opts(DataType::UInt8, false, true)), DataType::UInt8, 4.0f / 127.0f, 32);
    // int8 symmetric on -64..63: 3 / 63.5.
    expectQParams(qparamsFromRange(-1.0f, 3.0f, opts(DataType::Int8, true, true)), DataType::Int8, 3.0f / 63.5f, 0);
    // uint8 symmetric reduced: middle of 0..127 is 64.
    expectQParams(qparamsFromRange(-1.0f, 3.0f, opts(DataType::UInt8, true, true)), DataType::UInt8, 3.0f / 63.5f, 64);
    // int8 asymmetric reduced: scale 4/127, zero point -64 + 32 = -32.
    expectQParams(qparamsFromRange(-1.0f, 3.0f, opts(DataType::Int8, false, true)), DataType::Int8, 4.0f / 127.0f, -32);
}

TEST(QParams, ZeroRangeGivesScaleOne) {
    expectQParams(qparamsFromRange(0.0f, 0.0f, opts(DataType::UInt8)), DataType::UInt8, 1.0f, 0);
    expectQParams(qparamsFromRange(0.0f, 0.0f, opts(DataType::Int8)), DataType::Int8, 1.0f, 0);
    expectQParams(qparamsFromRange(0.0f, 0.0f, opts(DataType::Int8, true)), DataType::Int8, 1.0f, 0);
    expectQParams(qparamsFromRange(0.0f, 0.0f, opts(DataType::UInt8, true)), DataType::UInt8, 1.0f, 128);
    // NaN bounds count as 0.
    expectQParams(qparamsFromRange(std::nanf(""), 2.0f, opts(DataType::UInt8)), DataType::UInt8, 2.0f / 255.0f, 0);
}

TEST(QParams, ZeroIsExactlyRepresentable) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-10.0f, 10.0f);
    for (int i = 0; i < 200; ++i) {
        float a = dist(rng), b = dist(rng);
        if (a > b) std::swap(a, b);
        for (DataType type : {DataType::UInt8, DataType::Int8}) {
            for (bool sym : {false, true}) {
                const QParams p = qparamsFromRange(a, b, opts(type, sym));
                const auto [qmin, qmax] = quantizedRange(opts(type, sym));
                ASSERT_GE(p.zeroPoint[0], qmin);
                ASSERT_LE(p.zeroPoint[0], qmax);
                EXPECT_EQ(dequantizeValue(quantizeValue(0.0f, p.scale[0], p.zeroPoint[0], qmin, qmax), p.scale[0],
                                          p.zeroPoint[0]),
                          0.0f);
                // Both ends of the range are within half a step of the representable range.
                EXPECT_GE(p.scale[0] * (qmax - p.zeroPoint[0]) + p.scale[0] * 0.51f, std::max(b, 0.0f));
                EXPECT_LE(p.scale[0] * (qmin - p.zeroPoint[0]) - p.scale[0] * 0.51f, std::min(a, 0.0f));
            }
        }
    }
}

TEST(QParams, WeightsPerChannelAndPerTensor) {
    const Tensor w = Tensor::fromVector<float>({2, 3}, {-1.0f, 0.5f, 2.0f, 0.1f, 0.2f, -0.4f});
    const QRangeOptions sym = defaultWeightOptions();
    const QParams rows = weightQParams(w, 0, true, sym);
    EXPECT_EQ(rows.type, DataType::Int8);
    EXPECT_EQ(rows.axis, 0);
    ASSERT_EQ(rows.scale.size(), 2u);
    EXPECT_FLOAT_EQ(rows.scale[0], 2.0f / 127.5f);
    EXPECT_FLOAT_EQ(rows.scale[1], 0.4f / 127.5f);
    EXPECT_EQ(rows.zeroPoint, (std::vector<int32_t>{0, 0}));

    const QParams cols = weightQParams(w, -1, true, sym);  // axis -1 is 1
    EXPECT_EQ(cols.axis, 1);
    ASSERT_EQ(cols.scale.size(), 3u);
    EXPECT_FLOAT_EQ(cols.scale[0], 1.0f / 127.5f);
    EXPECT_FLOAT_EQ(cols.scale[1], 0.5f / 127.5f);
    EXPECT_FLOAT_EQ(cols.scale[2], 2.0f / 127.5f);

    const QParams tensor = weightQParams(w, 0, false, sym);
    expectQParams(tensor, DataType::Int8, 2.0f / 127.5f, 0);

    // Asymmetric uint8 per channel: row 1 is [-0.4, 0.2] -> scale 0.6/255, zp round(0.4/(0.6/255)) = 170.
    const QParams asym = weightQParams(w, 0, true, opts(DataType::UInt8));
    EXPECT_FLOAT_EQ(asym.scale[1], 0.6f / 255.0f);
    EXPECT_EQ(asym.zeroPoint[1], 170);
    // An all-zero channel gets scale 1.
    const QParams zero = weightQParams(Tensor::fromVector<float>({2, 1}, {0.0f, 3.0f}), 0, true, sym);
    EXPECT_FLOAT_EQ(zero.scale[0], 1.0f);
    EXPECT_FLOAT_EQ(zero.scale[1], 3.0f / 127.5f);
}

TEST(QParams, QuantizeDequantizeTensor) {
    const QParams p = qparamsFromRange(-1.0f, 3.0f, opts(DataType::UInt8));
    const float s = 4.0f / 255.0f;
    const Tensor x = Tensor::fromVector<float>({5}, {-1.0f, 0.0f, 1.0f, 3.0f, 5.0f});
    const Tensor q = quantizeTensor(x, p);
    ASSERT_EQ(q.dtype(), DataType::UInt8);
    // -1/s = -63.75 -> -64 + 64 = 0; 1/s = 63.75 -> 64 + 64 = 128; 3/s = 191.25 -> 255; 5 saturates.
    const std::vector<uint8_t> expected = {0, 64, 128, 255, 255};
    for (int i = 0; i < 5; ++i) EXPECT_EQ(q.data<uint8_t>()[i], expected[i]) << i;
    const Tensor d = dequantizeTensor(q, p);
    EXPECT_FLOAT_EQ(d.data<float>()[0], -64 * s);
    EXPECT_FLOAT_EQ(d.data<float>()[1], 0.0f);
    EXPECT_FLOAT_EQ(d.data<float>()[2], 64 * s);
    EXPECT_FLOAT_EQ(d.data<float>()[4], 191 * s);
    const Tensor f = fakeQuantizeTensor(x, p);
    EXPECT_FLOAT_EQ(f.data<float>()[3], 191 * s);

    // Per channel along axis 1 of a [2, 2] tensor, int8 symmetric scales 0.5 and 0.25.
    QParams pc;
    pc.type = DataType::Int8;
    pc.scale = {0.5f, 0.25f};
    pc.zeroPoint = {0, 0};
    pc.axis = 1;
    const Tensor y = Tensor::fromVector<float>({2, 2}, {1.0f, 1.0f, -100.0f, 0.375f});
    const Tensor qy = quantizeTensor(y, pc);
    ASSERT_EQ(qy.dtype(), DataType::Int8);
    // 1/0.5 = 2; 1/0.25 = 4; -200 saturates to -128; 0.375/0.25 = 1.5 -> 2 (half to even).
    EXPECT_EQ(qy.data<int8_t>()[0], 2);
    EXPECT_EQ(qy.data<int8_t>()[1], 4);
    EXPECT_EQ(qy.data<int8_t>()[2], -128);
    EXPECT_EQ(qy.data<int8_t>()[3], 2);
    EXPECT_FLOAT_EQ(dequantizeTensor(qy, pc).data<float>()[2], -64.0f);
}

// ---------------------------------------------------------------- observers

TEST(Observers, MinMaxAcrossBatchesSkipsNonFinite) {
    MinMaxObserver o;
    EXPECT_TRUE(o.empty());
    const std::vector<float> a = {1.0f, -2.0f, 3.0f}, b = {0.5f, 4.0f, std::nanf(""),
                                                          std::numeric_limits<float>::infinity()};
    o.observe(a.data(), 3);
    o.observe(b.data(), 4);
    EXPECT_EQ(o.range(), std::make_pair(-2.0f, 4.0f));
    EXPECT_EQ(o.nonFiniteCount(), 2);
}

TEST(Observers, MovingAverageFollowsPyTorchFormula) {
    MovingAverageMinMaxObserver o(0.01);
    const std::vector<float> b1 = {-1.0f, 1.0f}, b2 = {-3.0f, 5.0f}, b3 = {0.0f};
    o.observe(b1.data(), 2);
    EXPECT_EQ(o.range(), std::make_pair(-1.0f, 1.0f));  // first batch: its min/max
    o.observe(b2.data(), 2);
    // min = -1 + 0.01 * (-3 + 1) = -1.02, max = 1 + 0.01 * (5 - 1) = 1.04
    EXPECT_FLOAT_EQ(o.range().first, -1.02f);
    EXPECT_FLOAT_EQ(o.range().second, 1.04f);
    o.observe(b3.data(), 1);
    // min = -1.02 + 0.01 * 1.02 = -1.0098, max = 1.04 - 0.01 * 1.04 = 1.0296
    EXPECT_FLOAT_EQ(o.range().first, -1.0098f);
    EXPECT_FLOAT_EQ(o.range().second, 1.0296f);
}

TEST(Observers, FactoryAndNames) {
    ObserverOptions options;
    for (RangeMethod m : {RangeMethod::MinMax, RangeMethod::MovingAverageMinMax, RangeMethod::Percentile,
                          RangeMethod::Entropy, RangeMethod::Mse}) {
        options.method = m;
        auto o = makeObserver(options);
        ASSERT_TRUE(o);
        RangeMethod parsed;
        ASSERT_TRUE(parseRangeMethod(rangeMethodName(m), parsed));
        EXPECT_EQ(parsed, m);
        const std::vector<float> data = {-1.0f, 2.0f};
        o->observe(data.data(), 2);
        EXPECT_FALSE(o->empty());
        const auto r = o->range();
        if (m == RangeMethod::MinMax || m == RangeMethod::MovingAverageMinMax) {
            EXPECT_EQ(r, std::make_pair(-1.0f, 2.0f)) << rangeMethodName(m);
        } else {  // histogram methods stay within what was observed
            EXPECT_GE(r.first, -1.0f) << rangeMethodName(m);
            EXPECT_LE(r.second, 2.0f) << rangeMethodName(m);
            EXPECT_LE(r.first, r.second) << rangeMethodName(m);
        }
    }
    RangeMethod parsed;
    EXPECT_FALSE(parseRangeMethod("median", parsed));
    EXPECT_TRUE(parseRangeMethod("KL", parsed));
    EXPECT_EQ(parsed, RangeMethod::Entropy);
}

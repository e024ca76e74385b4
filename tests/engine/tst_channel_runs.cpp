// Dequantizing any span of a per-channel tensor: along an innermost channel axis (a MatMul
// weight's columns) a row of channels is one vectorised loop, elsewhere one run per channel; every
// element must be DequantizeLinear's (q - zero point) * scale of its own channel, whatever span a
// caller (a thread's share, a row of a correlation) asks for. The DequantizeLinear kernel runs on
// the same code in threads.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/channel_runs.h"
#include "quant/qparams.h"
#include "qdq_test_graphs.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

template <class Q>
Tensor randomIntegers(const Shape &shape, unsigned seed) {
    Tensor t(DataTypeOf<Q>::value, shape);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> value(-128, 255);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<Q>()[i] = static_cast<Q>(value(rng));
    return t;
}

struct ChannelParams {
    std::vector<float> scale;
    std::vector<int32_t> zeroPoint;
};

ChannelParams channelParams(int64_t channels, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> scale(0.001f, 0.1f);
    std::uniform_int_distribution<int32_t> zp(-20, 20);
    ChannelParams p;
    for (int64_t c = 0; c < channels; ++c) {
        p.scale.push_back(scale(rng));
        p.zeroPoint.push_back(zp(rng));
    }
    return p;
}

// Element i's channel along `axis` of `shape`.
int64_t channelOf(const Shape &shape, int64_t axis, int64_t i) {
    int64_t inner = 1;
    for (size_t d = size_t(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    return (i / inner) % shape[size_t(axis)];
}

template <class Q>
void expectEverySpanExact(const Shape &shape, int64_t axis) {
    const Tensor q = randomIntegers<Q>(shape, 7);
    const ChannelParams p = channelParams(shape[size_t(axis)], 9);
    const int64_t n = q.numel();
    std::mt19937 rng(11);
    std::uniform_int_distribution<int64_t> at(0, n);
    for (int trial = 0; trial < 200; ++trial) {
        int64_t start = at(rng), end = at(rng);
        if (start > end) std::swap(start, end);
        std::vector<float> got(size_t(end - start), -1.0f);
        dequantizeSpan(q, p.scale, p.zeroPoint, axis, start, end - start, got.data());
        for (int64_t i = start; i < end; ++i) {
            const int64_t c = channelOf(shape, axis, i);
            const float want = float(int32_t(q.data<Q>()[i]) - p.zeroPoint[size_t(c)]) *
                               p.scale[size_t(c)];
            ASSERT_EQ(got[size_t(i - start)], want) << "element " << i << " of span [" << start
                                                   << ", " << end << ")";
        }
    }
}

TEST(DequantizeSpan, InnermostChannelAxisRowByRow) {
    expectEverySpanExact<int8_t>({37, 53}, 1);
    expectEverySpanExact<uint8_t>({3, 11, 29}, 2);
    expectEverySpanExact<int32_t>({5, 40}, 1);
}

TEST(DequantizeSpan, OuterChannelAxisRunByRun) {
    expectEverySpanExact<int8_t>({6, 5, 3, 3}, 0);
    expectEverySpanExact<uint8_t>({4, 7, 9}, 1);
}

TEST(DequantizeSpan, OneScaleForTheWholeTensor) {
    const Tensor q = randomIntegers<uint8_t>({9, 13}, 3);
    std::vector<float> got(50);
    dequantizeSpan(q, {0.25f}, {128}, -1, 40, 50, got.data());
    for (int64_t i = 0; i < 50; ++i)
        EXPECT_EQ(got[size_t(i)], float(int(q.data<uint8_t>()[40 + i]) - 128) * 0.25f);
}

TEST(DequantizeSpan, DequantizeLinearPerColumnInThreads) {
    // A [300, 257] int8 weight per column (axis 1): large enough to be split across threads at
    // offsets that are not row starts.
    const Shape shape{300, 257};
    const Tensor q = randomIntegers<int8_t>(shape, 5);
    const ChannelParams p = channelParams(shape[1], 6);
    QdqBuilder b;
    b.init("q", q);
    b.init("s", Tensor::fromVector<float>({shape[1]}, p.scale));
    std::vector<int8_t> zp;
    for (int32_t z : p.zeroPoint) zp.push_back(int8_t(z));
    b.init("z", Tensor::fromVector<int8_t>({shape[1]}, zp));
    b.node("DequantizeLinear", "dq", {"q", "s", "z"}, {"y"}).attributes["axis"] = intAttr(1);
    b.output("y");
    const auto out = run(b.g, {}, PlanOptions{2});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].shape(), shape);
    for (int64_t i = 0; i < q.numel(); ++i) {
        const size_t c = size_t(i % shape[1]);
        ASSERT_EQ(out[0].data<float>()[i],
                  float(int32_t(q.data<int8_t>()[i]) - p.zeroPoint[c]) * p.scale[c])
            << "element " << i;
    }
}

}  // namespace

// quantizeTensor walks a row of channels at a time where the channel axis is innermost and a run
// at a time elsewhere; every element is QuantizeLinear's saturate(round_half_even(x / s) + z),
// as quantizeValue computes it one by one: ties, saturation both ways, NaN and infinities.
TEST(QuantizeTensor, EveryLayoutAsQuantizeValue) {
    std::mt19937 rng(35);
    std::uniform_real_distribution<float> uniform(-3.0f, 3.0f);
    for (const auto &[shape, axis] : std::vector<std::pair<Shape, int64_t>>{
             {{7, 12}, 1}, {{3, 5, 9}, 2}, {{6, 4, 3, 3}, 0}, {{5, 8}, -1}}) {
        for (DataType type : {DataType::Int8, DataType::UInt8}) {
            Tensor x(DataType::Float, shape);
            float *v = x.data<float>();
            for (int64_t i = 0; i < x.numel(); ++i) v[i] = uniform(rng);
            v[0] = NAN, v[1] = INFINITY, v[2] = -INFINITY, v[3] = 1e9f;
            quant::QParams p;
            p.type = type;
            p.axis = axis;
            const int64_t channels = axis < 0 ? 1 : shape[size_t(axis)];
            for (int64_t c = 0; c < channels; ++c) {
                p.scale.push_back(0.01f * float(1 + c % 4));
                p.zeroPoint.push_back(type == DataType::Int8 ? int32_t(c % 3) - 1 : 128 + int32_t(c % 5));
            }
            v[4] = 0.5f * p.scale[0];  // a tie: rounds to even
            const Tensor q = quant::quantizeTensor(x, p);
            int64_t inner = 1;
            for (size_t d = size_t(axis) + 1; axis >= 0 && d < shape.size(); ++d) inner *= shape[d];
            const int32_t qmin = type == DataType::Int8 ? -128 : 0, qmax = type == DataType::Int8 ? 127 : 255;
            for (int64_t i = 0; i < x.numel(); ++i) {
                const size_t c = axis < 0 ? 0 : size_t((i / inner) % channels);
                const int32_t want = quant::quantizeValue(v[i], p.scale[c], p.zeroPoint[c], qmin, qmax);
                ASSERT_EQ(int32_t(q.valueAsDouble(i)), want) << shapeToString(shape) << " element " << i;
            }
        }
    }
}

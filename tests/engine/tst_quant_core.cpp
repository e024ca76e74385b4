// Quantization core: qparams formulas, observers, histogram re-binning and range selection,
// against hand-computed values and naive brute-force references (calibration:
// tst_quant_calibration.cpp).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "quant/histogram.h"
#include "quant/observers.h"
#include "quant/qparams.h"
#include "quant/range_selection.h"
#include "quant_test_support.h"
#include "test_support.h"

using namespace ql;
using namespace ql::quant;
using namespace ql::test;

namespace {

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

// ---------------------------------------------------------------- histogram

namespace {

// Bin of v on a grid anchored at 0 with width w, clamped to the histogram's bins; computed
// directly, to compare with counts that went through re-binning.
std::vector<int64_t> directCounts(const Histogram &h, const std::vector<float> &values) {
    std::vector<int64_t> out(static_cast<size_t>(h.bins()), 0);
    for (float v : values) {
        int64_t j = static_cast<int64_t>(std::floor(static_cast<double>(v) / h.binWidth()));
        j = std::clamp<int64_t>(j, -h.negativeBins(), h.positiveBins() - 1);
        ++out[static_cast<size_t>(j + h.negativeBins())];
    }
    return out;
}

}  // namespace

TEST(Histogram, FirstBatchGetsTheSmallestPowerOfTwoWidthWithZeroOnAnEdge) {
    Histogram h(8);
    const std::vector<float> v = {0.5f, 1.5f, 3.9f, 0.0f};
    h.add(v.data(), 4);
    EXPECT_EQ(h.negativeBins(), 0);  // no negative data: every bin on the positive side
    // 3.9 needs floor(3.9 / w) + 1 <= 8 bins: w = 0.5 (7.8 -> 8 bins) fits, 0.25 (16) does not.
    EXPECT_EQ(h.binWidth(), 0.5);
    EXPECT_EQ(h.total(), 4);
    EXPECT_EQ(h.zeroCount(), 1);
    // 0 -> bin 0, 0.5 -> bin 1, 1.5 -> bin 3, 3.9 -> bin 7.
    EXPECT_EQ(h.counts(), (std::vector<int64_t>{1, 1, 0, 1, 0, 0, 0, 1}));
}

TEST(Histogram, GrowingRangeMergesBinsAndKeepsCounts) {
    Histogram h(8);
    const std::vector<float> a = {0.5f, 1.5f, 3.9f};
    h.add(a.data(), 3);
    const std::vector<float> b = {-3.0f};
    h.add(b.data(), 1);
    // [-3, 3.9] at w = 0.5 needs 6 + 8 bins; at w = 1, 3 + 4 = 7 <= 8. The spare bin goes to the
    // positive side (half of 1 spare, rounded down, to the negative side).
    EXPECT_EQ(h.binWidth(), 1.0);
    EXPECT_EQ(h.negativeBins(), 3);
    EXPECT_EQ(h.total(), 4);
    EXPECT_FLOAT_EQ(h.observedMin(), -3.0f);
    EXPECT_FLOAT_EQ(h.observedMax(), 3.9f);
    std::vector<float> all = a;
    all.insert(all.end(), b.begin(), b.end());
    EXPECT_EQ(h.counts(), directCounts(h, all));
}

TEST(Histogram, DependsOnTheValuesNotOnBatchingOrOrder) {
    // The property the calibration lab stands on: per-sample histograms merged in any order, and
    // one histogram fed the batches in any grouping, are the same histogram.
    std::mt19937 rng(11);
    std::vector<std::vector<float>> samples;
    for (int s = 0; s < 12; ++s) {
        std::normal_distribution<float> dist(s % 3 ? 0.1f : -0.4f, 0.05f * static_cast<float>(s * s + 1));
        std::vector<float> v(300);
        for (float &x : v) x = rng() % 4 == 0 ? 0.0f : dist(rng);
        samples.push_back(v);
    }
    std::vector<float> all;
    for (const auto &v : samples) all.insert(all.end(), v.begin(), v.end());
    Histogram oneBatch(256);
    oneBatch.add(all.data(), static_cast<int64_t>(all.size()));

    Histogram merged(256), mergedBackwards(256), grouped(256);
    for (size_t s = 0; s < samples.size(); ++s) {
        Histogram one(256), other(256);
        one.add(samples[s].data(), static_cast<int64_t>(samples[s].size()));
        merged.merge(one);
        const auto &back = samples[samples.size() - 1 - s];
        other.add(back.data(), static_cast<int64_t>(back.size()));
        mergedBackwards.merge(other);
    }
    for (size_t s = 0; s < samples.size(); s += 5) {  // batches of 5, 5 and 2 samples
        std::vector<float> batch;
        for (size_t t = s; t < std::min(s + 5, samples.size()); ++t)
            batch.insert(batch.end(), samples[t].begin(), samples[t].end());
        grouped.add(batch.data(), static_cast<int64_t>(batch.size()));
    }
    for (const Histogram *h : {&merged, &mergedBackwards, &grouped}) {
        EXPECT_EQ(h->binWidth(), oneBatch.binWidth());
        EXPECT_EQ(h->negativeBins(), oneBatch.negativeBins());
        EXPECT_EQ(h->counts(), oneBatch.counts());
        EXPECT_EQ(h->zeroCount(), oneBatch.zeroCount());
        EXPECT_EQ(h->total(), oneBatch.total());
        EXPECT_EQ(percentileRange(*h, 99.9), percentileRange(oneBatch, 99.9));
        EXPECT_EQ(entropyRange(*h, 16), entropyRange(oneBatch, 16));
    }
    EXPECT_EQ(oneBatch.counts(), directCounts(oneBatch, all));
}

// A large batch takes the threaded pass (summary and bins split over the threads); it must give
// the counts a serial feed of the same values in small batches gives, non-finite values included.
TEST(Histogram, ThreadedLargeBatchEqualsSmallBatches) {
    std::mt19937 rng(17);
    std::normal_distribution<float> dist(0.3f, 2.0f);
    std::vector<float> all(400000);
    for (size_t i = 0; i < all.size(); ++i) all[i] = i % 9 == 0 ? 0.0f : dist(rng);
    all[1234] = std::nanf("");
    all[300001] = INFINITY;
    all[399999] = -INFINITY;
    all[250000] = -11.5f;  // the minimum, far from the start
    Histogram large(2048), small(2048);
    large.add(all.data(), static_cast<int64_t>(all.size()));
    for (size_t s = 0; s < all.size(); s += 1000) small.add(all.data() + s, 1000);
    EXPECT_EQ(large.counts(), small.counts());
    EXPECT_EQ(large.binWidth(), small.binWidth());
    EXPECT_EQ(large.zeroCount(), small.zeroCount());
    EXPECT_EQ(large.total(), int64_t(all.size()) - 3);
    EXPECT_EQ(large.nonFiniteCount(), 3);
    EXPECT_EQ(large.observedMin(), -11.5f);
    std::vector<float> finite;
    std::copy_if(all.begin(), all.end(), std::back_inserter(finite), [](float v) { return std::isfinite(v); });
    EXPECT_EQ(large.counts(), directCounts(large, finite));
    const FiniteSummary summary = summarizeFinite(all.data(), static_cast<int64_t>(all.size()));
    EXPECT_EQ(summary.finite, large.total());
    EXPECT_EQ(summary.zeros, large.zeroCount());
    EXPECT_EQ(summary.lo, -11.5f);
    EXPECT_EQ(summary.hi, large.observedMax());
}

TEST(Histogram, MergingOnlyZerosAndEmptyHistograms) {
    Histogram zeros(16), data(16), empty(16);
    const std::vector<float> z(5, 0.0f), d = {-1.0f, 2.0f};
    zeros.add(z.data(), 5);
    data.add(d.data(), 2);
    Histogram a(16);
    a.merge(empty);
    EXPECT_TRUE(a.empty());
    a.merge(zeros);
    EXPECT_EQ(a.binWidth(), 0.0);
    EXPECT_EQ(a.zeroCount(), 5);
    a.merge(data);
    Histogram b(16);
    std::vector<float> all = z;
    all.insert(all.end(), d.begin(), d.end());
    b.add(all.data(), static_cast<int64_t>(all.size()));
    EXPECT_EQ(a.counts(), b.counts());
    EXPECT_EQ(a.count(0), 5);  // the zeros land in [0, w)
    EXPECT_EQ(a.total(), 7);
}

TEST(Histogram, RebinningIsExactOverManyBatches) {
    std::mt19937 rng(3);
    Histogram h(256);
    std::vector<float> all;
    for (int batch = 0; batch < 40; ++batch) {
        // Ranges grow irregularly on both sides, with exact zeros mixed in.
        const float spread = 0.1f * static_cast<float>(batch + 1) * (batch % 3 == 0 ? 3.0f : 1.0f);
        std::normal_distribution<float> dist(batch % 2 ? 0.3f : -0.2f, spread);
        std::vector<float> v(500);
        for (float &x : v) x = (rng() % 5 == 0) ? 0.0f : dist(rng);
        h.add(v.data(), static_cast<int64_t>(v.size()));
        all.insert(all.end(), v.begin(), v.end());
    }
    int64_t sum = 0;
    for (int64_t c : h.counts()) sum += c;
    EXPECT_EQ(sum, static_cast<int64_t>(all.size()));
    EXPECT_EQ(h.total(), static_cast<int64_t>(all.size()));
    EXPECT_EQ(h.counts(), directCounts(h, all));
    EXPECT_EQ(h.zeroCount(), std::count(all.begin(), all.end(), 0.0f));
    EXPECT_FLOAT_EQ(h.observedMin(), *std::min_element(all.begin(), all.end()));
    EXPECT_FLOAT_EQ(h.observedMax(), *std::max_element(all.begin(), all.end()));
    EXPECT_LE(h.lowerEdge(), h.observedMin());
    EXPECT_GE(h.upperEdge() * (1 + 1e-9), h.observedMax());
    // Folding onto |x| is exact: the same as counting |x| on the same grid.
    std::vector<int64_t> absDirect(h.absoluteCounts().size(), 0);
    for (float v : all) {
        const int64_t j = std::min<int64_t>(static_cast<int64_t>(std::floor(std::fabs(v) / h.binWidth())),
                                            static_cast<int64_t>(absDirect.size()) - 1);
        // A negative value exactly on an edge (-j*w) belongs to the bin below it in x, i.e. to
        // |x| bin j-1; random data never hits an edge exactly.
        ++absDirect[static_cast<size_t>(j)];
    }
    EXPECT_EQ(h.absoluteCounts(), absDirect);
}

TEST(Histogram, AllZerosThenData) {
    Histogram h(16);
    const std::vector<float> zeros(10, 0.0f), data = {1.0f, 2.0f};
    h.add(zeros.data(), 10);
    EXPECT_EQ(h.binWidth(), 0.0);
    EXPECT_EQ(percentileRange(h, 99.0), std::make_pair(0.0f, 0.0f));
    h.add(data.data(), 2);
    EXPECT_EQ(h.count(0), 10);  // earlier zeros land in [0, w)
    EXPECT_EQ(h.total(), 12);
}

// ---------------------------------------------------------------- range selection

TEST(RangeSelection, PercentileOneSidedForNonNegativeData) {
    // 100000 values 0, 0.001, ..., 99.999: the 99th percentile is 99.0.
    std::vector<float> v(100000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) / 1000.0f;
    Histogram h(2048);
    h.add(v.data(), static_cast<int64_t>(v.size()));
    const auto r = percentileRange(h, 99.0);
    EXPECT_FLOAT_EQ(r.first, 0.0f);
    EXPECT_NEAR(r.second, 99.0f, h.binWidth());
    EXPECT_NEAR(percentileRange(h, 50.0).second, 50.0f, h.binWidth());
    EXPECT_FLOAT_EQ(percentileRange(h, 100.0).second, 99.999f);  // never beyond the observed max
    // Through the observer with its default 99.999: 99.999% of 100000 values -> the 99999th.
    ObserverOptions o;
    o.method = RangeMethod::Percentile;
    HistogramObserver obs(o);
    obs.observe(v.data(), static_cast<int64_t>(v.size()));
    EXPECT_NEAR(obs.range().second, 99.998f, h.binWidth());
}

TEST(RangeSelection, PercentileSymmetricForSignedData) {
    // Values -50, -49.999, ..., 49.999 and one outlier at -1000: |x| has its 99th percentile
    // at 49.5 (99% of 100001 values).
    std::vector<float> v(100000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) / 1000.0f - 50.0f;
    v.push_back(-1000.0f);
    Histogram h(2048);
    h.add(v.data(), static_cast<int64_t>(v.size()));
    const auto r = percentileRange(h, 99.0);
    // 99% of 100001 = 99000.99 values have |x| below t; |x| <= t holds for 2000 t values per unit.
    const double t = 99000.99 / 2000.0;
    EXPECT_NEAR(r.second, t, h.binWidth());
    EXPECT_NEAR(r.first, -t, h.binWidth());
}

TEST(RangeSelection, MseClipsAFarOutlierAndMatchesBruteForce) {
    // 100000 values spread evenly over [0, 1) and one outlier at 30: keeping the outlier costs
    // every value a rounding error of (30/255)^2/12; clipping costs the outlier its distance.
    std::vector<float> v(100000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) / 100000.0f;
    v.push_back(30.0f);
    Histogram h(2048);
    h.add(v.data(), static_cast<int64_t>(v.size()));
    const QRangeOptions target = opts(DataType::UInt8);
    const auto r = mseRange(h, target);
    EXPECT_FLOAT_EQ(r.first, 0.0f);
    EXPECT_LT(r.second, 30.0f);

    // Brute force on the real values over a fine grid of upper bounds.
    double best = std::numeric_limits<double>::infinity();
    float bestHi = 0.0f;
    for (int i = 1; i <= 600; ++i) {
        const float hi = 30.0f * static_cast<float>(i) / 600.0f;
        const double e = trueMse(v, 0.0f, hi, target);
        if (e < best) best = e, bestHi = hi;
    }
    EXPECT_LT(bestHi, 29.0f);  // the crafted case really wants clipping
    // The expected error N*(b/255)^2/12 + (30-b)^2 is smallest at b = 30 / (1 + N/(255^2*12)) = 26.60
    // for N = 100000; the real values' error wobbles around that by a few percent with how the
    // evenly spaced values fall on the integer grid, so the brute force is matched within 3%.
    EXPECT_NEAR(r.second, 30.0 / (1.0 + 100000.0 / (255.0 * 255.0 * 12.0)), 2 * h.binWidth());
    EXPECT_LE(trueMse(v, r.first, r.second, target), best * 1.03);
    EXPECT_LT(trueMse(v, r.first, r.second, target), trueMse(v, 0.0f, 30.0f, target));
    // The model of the expected error agrees with the real error at the chosen range.
    EXPECT_NEAR(expectedQuantizationMse(h, r.first, r.second, target), trueMse(v, r.first, r.second, target),
                0.05 * trueMse(v, r.first, r.second, target));
}

TEST(RangeSelection, MseSignedAsymmetricAndSymmetricMatchBruteForce) {
    std::mt19937 rng(11);
    std::normal_distribution<float> dist(0.5f, 1.0f);
    std::vector<float> v(20000);
    for (float &x : v) x = dist(rng);
    v.push_back(12.0f);  // lone far outliers on both sides
    v.push_back(-9.0f);
    Histogram h(2048);
    h.add(v.data(), static_cast<int64_t>(v.size()));
    for (bool symmetric : {false, true}) {
        const QRangeOptions target = symmetric ? opts(DataType::Int8, true) : opts(DataType::UInt8);
        const auto r = mseRange(h, target);
        double best = std::numeric_limits<double>::infinity();
        for (int a = 0; a <= 45; ++a) {
            for (int b = 0; b <= 60; ++b) {
                if (symmetric && a != 0) break;
                const float lo = symmetric ? -0.2f * b : -0.2f * a, hi = 0.2f * b;
                if (hi == 0.0f && lo == 0.0f) continue;
                best = std::min(best, trueMse(v, lo, hi, target));
            }
        }
        const double chosen = trueMse(v, r.first, r.second, target);
        EXPECT_LE(chosen, best * 1.03) << (symmetric ? "symmetric" : "asymmetric");
        EXPECT_LT(chosen, trueMse(v, -9.0f, 12.0f, target));
        EXPECT_LT(r.second, 12.0f);
        if (symmetric) EXPECT_FLOAT_EQ(r.first, std::max(-r.second, -9.0f));  // limited to what was seen
        else EXPECT_GT(r.first, -9.0f);
    }
}

namespace {

// TensorRT-style KL threshold search written out directly: returns the best number of |x| bins.
size_t naiveEntropyBins(std::vector<int64_t> abs, size_t q) {
    abs[0] = abs[1];  // TensorRT's treatment of the zero spike
    size_t used = abs.size();
    while (used && !abs[used - 1]) --used;
    auto smoothed = [](std::vector<double> d) {
        const double eps = 1e-4;
        double zeros = 0, nonzeros = 0;
        for (double x : d) (x == 0 ? zeros : nonzeros) += 1;
        for (double &x : d) x = x == 0 ? eps : x - eps * zeros / nonzeros;
        return d;
    };
    double best = std::numeric_limits<double>::infinity();
    size_t bestI = used;
    for (size_t i = q; i <= used; ++i) {
        std::vector<double> p(i), cand(i);
        for (size_t j = 0; j < abs.size(); ++j) p[std::min(j, i - 1)] += static_cast<double>(abs[j]);
        const size_t g = i / q;
        std::vector<double> groupSum(q, 0.0), groupNonzero(q, 0.0);
        for (size_t j = 0; j < i; ++j) {
            const size_t G = std::min(j / g, q - 1);
            groupSum[G] += static_cast<double>(abs[j]);
            groupNonzero[G] += p[j] != 0;
        }
        for (size_t j = 0; j < i; ++j) {
            const size_t G = std::min(j / g, q - 1);
            cand[j] = p[j] != 0 ? groupSum[G] / groupNonzero[G] : 0.0;
        }
        const std::vector<double> ps = smoothed(p), qs = smoothed(cand);
        double sp = 0, sq = 0, kl = 0;
        for (size_t j = 0; j < i; ++j) sp += ps[j], sq += qs[j];
        for (size_t j = 0; j < i; ++j) kl += ps[j] / sp * std::log((ps[j] / sp) / (qs[j] / sq));
        if (kl <= best) best = kl, bestI = i;  // ascending with <=: ties keep the larger
    }
    return bestI;
}

}  // namespace

TEST(RangeSelection, EntropyMatchesNaiveKlSearch) {
    // A Laplace-like body with a sparse tail, 256 bins and 16 quantized bins.
    std::mt19937 rng(5);
    std::exponential_distribution<float> dist(3.0f);
    std::vector<float> v(20000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = (i % 2 ? 1.0f : -1.0f) * dist(rng);
    v.push_back(6.0f);
    Histogram h(256);
    h.add(v.data(), static_cast<int64_t>(v.size()));
    const size_t bins = naiveEntropyBins(h.absoluteCounts(), 16);
    const auto r = entropyRange(h, 16);
    EXPECT_NEAR(r.second, bins * h.binWidth(), 1e-5);
    EXPECT_NEAR(r.first, -r.second, 1e-5);  // signed data: symmetric
    EXPECT_LT(r.second, 6.0f);              // the tail is clipped
    EXPECT_GT(r.second, 0.5f);              // but not the body (P(|x| > 0.5) = e^-1.5)
}

TEST(RangeSelection, EntropyOnNonNegativeDataIsOneSided) {
    // Relu-like: half zeros, half exponential; one far value.
    std::mt19937 rng(9);
    std::exponential_distribution<float> dist(1.0f);
    std::vector<float> v(50000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = i % 2 ? dist(rng) : 0.0f;
    v.push_back(100.0f);
    Histogram h(2048);
    h.add(v.data(), static_cast<int64_t>(v.size()));
    const auto r = entropyRange(h, 128);
    const size_t bins = naiveEntropyBins(h.absoluteCounts(), 128);
    EXPECT_FLOAT_EQ(r.first, 0.0f);
    EXPECT_NEAR(r.second, bins * h.binWidth(), 1e-4);
    EXPECT_LT(r.second, 100.0f);
    // With few used bins (less than the quantized bins) nothing is clipped.
    Histogram small(2048);
    const std::vector<float> few = {0.0f, 1.0f, 2.0f, 3.0f};
    small.add(few.data(), 4);
    EXPECT_EQ(entropyRange(small, 4096), std::make_pair(0.0f, 3.0f));
}

TEST(Histogram, FarOutlierAfterTinyRangeStaysExact) {
    Histogram h(64);
    const std::vector<float> small = {1e-6f, 2e-6f, -1e-6f, 0.0f}, far = {1e30f}, negative = {-3e35f};
    h.add(small.data(), 4);
    h.add(far.data(), 1);
    h.add(negative.data(), 1);
    EXPECT_EQ(h.total(), 6);
    int64_t sum = 0;
    for (int64_t c : h.counts()) sum += c;
    EXPECT_EQ(sum, 6);
    EXPECT_LE(h.lowerEdge(), -3e35);
    EXPECT_GE(h.upperEdge(), 1e30 * (1 - 1e-9));
    // The smallest power-of-two width that fits: the grid spans less than twice the data's extent.
    EXPECT_LE(h.upperEdge() - h.lowerEdge(), 2 * 3.1e35);
    EXPECT_FLOAT_EQ(percentileRange(h, 100.0).first, -3e35f);
}

TEST(RangeSelection, EntropyIgnoresTheReluZeroSpike) {
    // Relu output: 90% exact zeros, the rest evenly over (0, 4]. With the zero spike kept the
    // KL search would prefer the narrowest threshold; TensorRT's first-bin replacement leaves the
    // even part unclipped (any clipping puts a spike in P's last bin that Q cannot follow).
    std::vector<float> v(100000, 0.0f);
    for (size_t i = 0; i < 10000; ++i) v[i] = 4.0f * static_cast<float>(i + 1) / 10000.0f;
    Histogram h(2048);
    h.add(v.data(), static_cast<int64_t>(v.size()));
    EXPECT_EQ(entropyQuantizedBinsFor(h, opts(DataType::UInt8)), 256);
    EXPECT_EQ(entropyQuantizedBinsFor(h, opts(DataType::Int8, true)), 128);
    EXPECT_EQ(entropyQuantizedBinsFor(h, opts(DataType::UInt8, false, true)), 128);
    const auto r = entropyRange(h, 256);
    EXPECT_EQ(r.first, 0.0f);
    EXPECT_GT(r.second, 3.9f);
    EXPECT_EQ(r.second, static_cast<float>(naiveEntropyBins(h.absoluteCounts(), 256) * h.binWidth()));
}

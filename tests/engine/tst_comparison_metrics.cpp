// Streaming comparison metrics: hand-computed tensors, streaming vs a naive two-pass loop, merge,
// edge cases (identical, zero signal), 1e8-element accuracy and per-sample percentiles.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "analysis/metrics/comparison_metrics.h"

using namespace ql::analysis;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void expectRelNear(double actual, double expected, double rel) {
    EXPECT_NEAR(actual, expected, rel * std::max(1.0, std::fabs(expected)))
        << "actual " << actual << " expected " << expected;
}

// The numpy-default (linear) percentile, written out independently for the naive reference.
double naivePercentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    const double h = (v.size() - 1) * p / 100.0;
    const size_t lo = static_cast<size_t>(h);
    if (lo + 1 >= v.size()) return v[lo];
    return v[lo] + (h - lo) * (v[lo + 1] - v[lo]);
}

struct NaiveFigures {
    double sqnr, cosine, mse, maxAbs, sampleMin, sampleP5, sampleMedian;
};

// Two passes over the concatenated data: totals first, then per-sample SQNRs.
NaiveFigures naiveFigures(const std::vector<float> &x, const std::vector<float> &y,
                          int64_t sampleSize) {
    double xx = 0, yy = 0, xy = 0, ee = 0, maxAbs = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        const double a = x[i], b = y[i];
        xx += a * a;
        yy += b * b;
        xy += a * b;
        ee += (a - b) * (a - b);
        maxAbs = std::max(maxAbs, std::fabs(a - b));
    }
    std::vector<double> perSample;
    for (size_t s = 0; s < x.size(); s += sampleSize) {
        double sx = 0, se = 0;
        for (size_t i = s; i < s + sampleSize; ++i) {
            sx += double(x[i]) * x[i];
            se += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
        }
        perSample.push_back(10 * std::log10(sx / se));
    }
    const double minSample = *std::min_element(perSample.begin(), perSample.end());
    return {10 * std::log10(xx / ee),
            xy / std::sqrt(xx * yy),
            ee / x.size(),
            maxAbs,
            minSample,
            naivePercentile(perSample, 5),
            naivePercentile(perSample, 50)};
}

void expectMatches(const ComparisonMetrics &m, const NaiveFigures &n, double rel) {
    expectRelNear(m.sqnrDb, n.sqnr, rel);
    expectRelNear(m.cosine, n.cosine, rel);
    expectRelNear(m.mse, n.mse, rel);
    EXPECT_EQ(m.maxAbsError, n.maxAbs);
    ASSERT_TRUE(m.sampleSqnr.has_value());
    expectRelNear(m.sampleSqnr->min, n.sampleMin, rel);
    expectRelNear(m.sampleSqnr->p5, n.sampleP5, rel);
    expectRelNear(m.sampleSqnr->median, n.sampleMedian, rel);
}

std::vector<float> randomVector(size_t n, unsigned seed, float lo, float hi) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (float &f : v) f = dist(gen);
    return v;
}

}  // namespace

TEST(ComparisonMetrics, HandComputedTwoSamples) {
    // Sample A: x = [1, 2, 2, 0], y = [1, 2, 1, 1]: e = [0, 0, 1, -1], Σx² = 9, Σe² = 2,
    //           Σy² = 7, Σxy = 7, SQNR_A = 10·log10(4.5) = 6.532125137753438 dB.
    // Sample B: x = [3, 0, 0, 4], y = [3, 0, 0, 4.5]: e = [0, 0, 0, -0.5], Σx² = 25, Σe² = 0.25,
    //           Σy² = 29.25, Σxy = 27, SQNR_B = 10·log10(100) = 20 dB.
    // Totals: Σx² = 34, Σe² = 2.25 -> SQNR = 10·log10(34 / 2.25) = 11.792963989308927 dB;
    //         cosine = 34 / sqrt(34 · 36.25) = 0.9684683962230046; MSE = 2.25 / 8 = 0.28125;
    //         max |e| = 1; rmse/scale (scale 0.25) = sqrt(0.28125) / 0.25 = 2.1213203435596424.
    // Per sample (numpy linear): min = 6.5321..., p5 = A + 0.05·(20 − A) = 7.205518880865766,
    //         median = (A + 20) / 2 = 13.26606256887672.
    const std::vector<float> x = {1, 2, 2, 0, 3, 0, 0, 4};
    const std::vector<float> y = {1, 2, 1, 1, 3, 0, 0, 4.5f};
    ComparisonAccumulator acc;
    acc.setOutputScale(0.25);
    ASSERT_TRUE(acc.add(x.data(), y.data(), 8, 2).isOk());
    const ComparisonMetrics m = acc.result();
    EXPECT_EQ(m.samples, 2);
    EXPECT_EQ(m.elements, 8);
    EXPECT_NEAR(m.sqnrDb, 11.792963989308927, 1e-12);
    EXPECT_NEAR(m.cosine, 0.9684683962230046, 1e-14);
    EXPECT_DOUBLE_EQ(m.mse, 0.28125);
    EXPECT_DOUBLE_EQ(m.maxAbsError, 1.0);
    ASSERT_TRUE(m.rmseOverScale.has_value());
    EXPECT_NEAR(*m.rmseOverScale, 2.1213203435596424, 1e-14);
    EXPECT_FALSE(m.saturationPct.has_value());
    ASSERT_TRUE(m.sampleSqnr.has_value());
    EXPECT_EQ(m.sampleSqnr->stored, 2);
    EXPECT_NEAR(m.sampleSqnr->min, 6.532125137753438, 1e-12);
    EXPECT_NEAR(m.sampleSqnr->p5, 7.205518880865766, 1e-12);
    EXPECT_NEAR(m.sampleSqnr->median, 13.26606256887672, 1e-12);
}

TEST(ComparisonMetrics, NoScaleGivesNoRmseOverScale) {
    const float x[] = {3, 4}, y[] = {3, 3};
    ComparisonAccumulator acc;
    ASSERT_TRUE(acc.add(x, y, 2, 1).isOk());
    EXPECT_FALSE(acc.result().rmseOverScale.has_value());
    acc.setOutputScale(0.0);
    EXPECT_FALSE(acc.result().rmseOverScale.has_value());
    // Σx² = 25, Σe² = 1 -> 10·log10(25) = 13.979400086720377 dB.
    EXPECT_NEAR(acc.result().sqnrDb, 13.979400086720377, 1e-12);
}

TEST(ComparisonMetrics, SaturationCountsTheFloatValuesTheQuantizerClips) {
    // uint8, scale 0.1, zero point 10: representable [-1.0, 24.5], clipped beyond half a step:
    // below -1.05 or above 24.55. x = [-2, -1.04, 0, 0, 24.5, 24.56, 30, 5] -> -2, 24.56, 30 -> 3
    // of 8.
    const float x[] = {-2.0f, -1.04f, 0.0f, 0.0f, 24.5f, 24.56f, 30.0f, 5.0f};
    ComparisonAccumulator acc;
    ASSERT_TRUE(acc.add(x, x, 8, 1).isOk());
    EXPECT_FALSE(acc.result().saturationPct.has_value());  // no quantizer given
    acc.setQuantizer(0.1f, 10, 0, 255);
    ASSERT_TRUE(acc.add(x, x, 8, 2).isOk());
    ASSERT_TRUE(acc.result().saturationPct.has_value());
    EXPECT_DOUBLE_EQ(*acc.result().saturationPct, 37.5);
    // A Relu output quantized with zero point = qmin: its zeros are not clipped. int8, scale 0.5,
    // zero point -128: [0, 127.5]; x = [0, 0, 0, 200] -> 1 more of 4, 4 of 12 in all.
    const float relu[] = {0.0f, 0.0f, 0.0f, 200.0f};
    acc.setQuantizer(0.5f, -128, -128, 127);
    ASSERT_TRUE(acc.add(relu, relu, 4, 1).isOk());
    EXPECT_NEAR(*acc.result().saturationPct, 100.0 / 3.0, 1e-12);
    // Counted in the vector lanes and in the tail alike: 1000 values, every third clipped.
    std::vector<float> many(1000, 1.0f);
    for (size_t i = 0; i < many.size(); i += 3) many[i] = (i % 2) ? 30.0f : -2.0f;
    ComparisonAccumulator lanes;
    lanes.setQuantizer(0.1f, 10, 0, 255);
    ASSERT_TRUE(lanes.add(many.data(), many.data(), 1000, 1).isOk());
    EXPECT_NEAR(*lanes.result().saturationPct, 100.0 * 334 / 1000, 1e-12);
}

TEST(ComparisonMetrics, DequantizedOnTheFlyEqualsADequantizedCopy) {
    // y = float(q − zp)·scale, as DequantizeLinear computes it, for uint8 and int8.
    const int64_t samples = 3, size = 70000;  // large enough for the parallel path
    const std::vector<float> x = randomVector(samples * size, 21, -3, 3);
    std::vector<uint8_t> qu(x.size());
    std::vector<int8_t> qs(x.size());
    std::vector<float> yu(x.size()), ys(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        qu[i] = static_cast<uint8_t>((i * 131) % 256);
        qs[i] = static_cast<int8_t>(static_cast<int>((i * 71) % 256) - 128);
        yu[i] = static_cast<float>(qu[i] - 128) * 0.023f;
        ys[i] = static_cast<float>(qs[i] - 3) * 0.023f;
    }
    for (int variant = 0; variant < 2; ++variant) {
        ComparisonAccumulator direct, copy;
        if (variant == 0) {
            ASSERT_TRUE(
                direct.addDequantized(x.data(), qu.data(), x.size(), samples, 0.023f, 128).isOk());
            ASSERT_TRUE(copy.add(x.data(), yu.data(), x.size(), samples).isOk());
        } else {
            ASSERT_TRUE(
                direct.addDequantized(x.data(), qs.data(), x.size(), samples, 0.023f, 3).isOk());
            ASSERT_TRUE(copy.add(x.data(), ys.data(), x.size(), samples).isOk());
        }
        const ComparisonMetrics a = direct.result(), b = copy.result();
        EXPECT_EQ(a.sqnrDb, b.sqnrDb);
        EXPECT_EQ(a.mse, b.mse);
        EXPECT_EQ(a.cosine, b.cosine);
        EXPECT_EQ(a.maxAbsError, b.maxAbsError);
        EXPECT_EQ(a.sampleSqnr->median, b.sampleSqnr->median);
    }
    ComparisonAccumulator bad;
    EXPECT_FALSE(bad.addDequantized(x.data(), qu.data(), 10, 3, 0.1f, 0).isOk());
}

// What a use of a sweep must give: exactly the figures of the same comparison made on its own.
void expectSameFigures(const ComparisonAccumulator &alone, const ComparisonAccumulator &swept) {
    const ComparisonMetrics a = alone.result(), b = swept.result();
    EXPECT_EQ(a.sqnrDb, b.sqnrDb);
    EXPECT_EQ(a.mse, b.mse);
    EXPECT_EQ(a.cosine, b.cosine);
    EXPECT_EQ(a.maxAbsError, b.maxAbsError);
    EXPECT_EQ(a.saturationPct, b.saturationPct);
    EXPECT_EQ(a.sampleSqnrValues, b.sampleSqnrValues);
    EXPECT_EQ(alone.sampleRanges().min, swept.sampleRanges().min);
    EXPECT_EQ(alone.sampleRanges().max, swept.sampleRanges().max);
}

// ONNX QuantizeLinear written out with nearbyint: saturate(round_half_even(v / scale) + zp).
int onnxQuantize(float v, float scale, int zeroPoint, int lo, int hi) {
    const float q = std::nearbyint(v / scale) + static_cast<float>(zeroPoint);
    return static_cast<int>(std::clamp(q, static_cast<float>(lo), static_cast<float>(hi)));
}

// One pass over x for several uses gives what each use gives on its own: the same figures (the
// same blocks summed in the same order) and the quantized values ONNX defines.
TEST(ComparisonMetrics, OneSweepServesEveryUseAsSeparatePassesWould) {
    const int64_t samples = 3, size = 70000;  // large enough for the parallel path
    const std::vector<float> x = randomVector(samples * size, 5, -3, 3);
    const std::vector<float> y = randomVector(samples * size, 6, -3, 3);
    std::vector<uint8_t> qu(x.size());
    for (size_t i = 0; i < x.size(); ++i) qu[i] = static_cast<uint8_t>((i * 37) % 256);
    ComparisonAccumulator floatAlone, floatSwept, quantAlone, quantSwept;
    for (ComparisonAccumulator *acc : {&quantAlone, &quantSwept}) acc->setQuantizer(0.02f, 120, 0, 255);
    ASSERT_TRUE(floatAlone.add(x.data(), y.data(), x.size(), samples).isOk());
    ASSERT_TRUE(quantAlone.addDequantized(x.data(), qu.data(), x.size(), samples, 0.02f, 120).isOk());
    std::vector<uint8_t> outU(x.size());
    std::vector<int8_t> outS(x.size());
    ASSERT_TRUE(sweepValue(x.data(), x.size(), samples,
                           {{&floatSwept, ql::DataType::Float, y.data()},
                            {&quantSwept, ql::DataType::UInt8, qu.data(), 0.02f, 120}},
                           {{ql::DataType::UInt8, outU.data(), 0.02f, 120},
                            {ql::DataType::Int8, outS.data(), 0.0125f, -5}})
                    .isOk());
    expectSameFigures(floatAlone, floatSwept);
    expectSameFigures(quantAlone, quantSwept);
    EXPECT_GT(*quantSwept.result().saturationPct, 0.0);  // the quantizer clips some of [-3, 3]
    int mismatches = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        mismatches += outU[i] != onnxQuantize(x[i], 0.02f, 120, 0, 255);
        mismatches += outS[i] != onnxQuantize(x[i], 0.0125f, -5, -128, 127);
    }
    EXPECT_EQ(mismatches, 0);
    // Ties round to even; NaN goes to the low end, infinities saturate.
    const std::vector<float> special = {0.25f * 2.5f, 0.25f * 3.5f, -0.25f * 2.5f,
                                        std::numeric_limits<float>::quiet_NaN(),
                                        std::numeric_limits<float>::infinity(),
                                        -std::numeric_limits<float>::infinity()};
    std::vector<uint8_t> out(special.size());
    ASSERT_TRUE(sweepValue(special.data(), special.size(), 1, {},
                           {{ql::DataType::UInt8, out.data(), 0.25f, 10}})
                    .isOk());
    EXPECT_EQ(out, (std::vector<uint8_t>{12, 14, 8, 0, 255, 0}));
    EXPECT_FALSE(sweepValue(x.data(), 10, 3, {}, {{ql::DataType::UInt8, outU.data(), 1.0f, 0}}).isOk());
}

// The pass's common case: a layer output against two 8-bit values (the quantized pass's and the
// isolated layer's: one kernel for both) while it is quantized for the next layers (in the same
// kernel) and once more with other parameters (on its own). uint8 and int8 alike; an odd length
// so that the scalar tail takes part.
TEST(ComparisonMetrics, PairedComparisonsAndTheirQuantizationEqualSeparatePasses) {
    const int64_t samples = 3, size = 70001;
    const std::vector<float> x = randomVector(samples * size, 8, -3, 3);
    for (const bool isSigned : {false, true}) {
        SCOPED_TRACE(isSigned ? "int8" : "uint8");
        const ql::DataType type = isSigned ? ql::DataType::Int8 : ql::DataType::UInt8;
        const int lo = isSigned ? -128 : 0, hi = isSigned ? 127 : 255, zp = isSigned ? -4 : 120;
        // Two quantized views of x, one of them off by a step here and there.
        std::vector<uint8_t> a(x.size()), b(x.size());
        for (size_t i = 0; i < x.size(); ++i) {
            const int q = onnxQuantize(x[i], 0.02f, zp, lo, hi);
            const int r = std::clamp(q + int(i % 7 == 0) - int(i % 11 == 0), lo, hi);
            a[i] = static_cast<uint8_t>(q);  // the bit patterns of the 8-bit values
            b[i] = static_cast<uint8_t>(r);
        }
        ComparisonAccumulator firstAlone, secondAlone, firstSwept, secondSwept;
        for (ComparisonAccumulator *acc : {&firstAlone, &firstSwept}) acc->setQuantizer(0.02f, zp, lo, hi);
        if (isSigned) {
            const auto *as = reinterpret_cast<const int8_t *>(a.data());
            const auto *bs = reinterpret_cast<const int8_t *>(b.data());
            ASSERT_TRUE(firstAlone.addDequantized(x.data(), as, x.size(), samples, 0.02f, zp).isOk());
            ASSERT_TRUE(secondAlone.addDequantized(x.data(), bs, x.size(), samples, 0.02f, zp).isOk());
        } else {
            ASSERT_TRUE(firstAlone.addDequantized(x.data(), a.data(), x.size(), samples, 0.02f, zp).isOk());
            ASSERT_TRUE(secondAlone.addDequantized(x.data(), b.data(), x.size(), samples, 0.02f, zp).isOk());
        }
        std::vector<uint8_t> riding(x.size()), alone(x.size());
        ASSERT_TRUE(sweepValue(x.data(), x.size(), samples,
                               {{&firstSwept, type, a.data(), 0.02f, zp},
                                {&secondSwept, type, b.data(), 0.02f, zp}},
                               {{type, riding.data(), 0.0173f, zp}, {type, alone.data(), 0.031f, zp}})
                        .isOk());
        expectSameFigures(firstAlone, firstSwept);
        expectSameFigures(secondAlone, secondSwept);
        EXPECT_GT(*firstSwept.result().saturationPct, 0.0);
        EXPECT_FALSE(secondSwept.result().saturationPct);  // no quantizer given: not counted
        int mismatches = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            const int r = isSigned ? int(int8_t(riding[i])) : int(riding[i]);
            const int o = isSigned ? int(int8_t(alone[i])) : int(alone[i]);
            mismatches += r != onnxQuantize(x[i], 0.0173f, zp, lo, hi);
            mismatches += o != onnxQuantize(x[i], 0.031f, zp, lo, hi);
        }
        EXPECT_EQ(mismatches, 0);
    }
}

TEST(ComparisonMetrics, IdenticalInputsGiveInfiniteSqnrAndZeroErrors) {
    const std::vector<float> x = randomVector(60, 7, -2, 2);
    ComparisonAccumulator acc;
    acc.setOutputScale(0.02);
    ASSERT_TRUE(acc.add(x.data(), x.data(), 60, 3).isOk());
    const ComparisonMetrics m = acc.result();
    EXPECT_EQ(m.sqnrDb, kInf);
    EXPECT_EQ(m.mse, 0.0);
    EXPECT_EQ(m.maxAbsError, 0.0);
    EXPECT_NEAR(m.cosine, 1.0, 1e-15);
    EXPECT_EQ(*m.rmseOverScale, 0.0);
    EXPECT_EQ(m.sampleSqnr->min, kInf);
    EXPECT_EQ(m.sampleSqnr->p5, kInf);
    EXPECT_EQ(m.sampleSqnr->median, kInf);
}

TEST(ComparisonMetrics, ZeroSignal) {
    // x all zero, y not: Σx² = 0 < Σe² -> -inf dB, cosine 0. Both zero: +inf dB, cosine 1.
    const float zeros[] = {0, 0}, y[] = {0.5f, 0};
    ComparisonAccumulator noisy;
    ASSERT_TRUE(noisy.add(zeros, y, 2, 1).isOk());
    EXPECT_EQ(noisy.result().sqnrDb, -kInf);
    EXPECT_EQ(noisy.result().cosine, 0.0);
    EXPECT_DOUBLE_EQ(noisy.result().mse, 0.125);
    ComparisonAccumulator silent;
    ASSERT_TRUE(silent.add(zeros, zeros, 2, 2).isOk());
    EXPECT_EQ(silent.result().sqnrDb, kInf);
    EXPECT_EQ(silent.result().cosine, 1.0);
}

TEST(ComparisonMetrics, EmptyAndBadBatches) {
    ComparisonAccumulator acc;
    EXPECT_TRUE(std::isnan(acc.result().sqnrDb));
    EXPECT_FALSE(acc.result().sampleSqnr.has_value());
    const float x[] = {1, 2, 3};
    EXPECT_FALSE(acc.add(x, x, 3, 2).isOk());  // 3 elements do not split into 2 samples
    EXPECT_FALSE(acc.add(x, x, 3, 0).isOk());
    EXPECT_EQ(acc.samples(), 0);
}

TEST(ComparisonMetrics, PercentileRuleIsNumpyLinear) {
    // numpy.percentile([1, 2, 3, 4], [5, 50]) = [1.15, 2.5]: h = 3·0.05 = 0.15 -> 1 + 0.15·1.
    EXPECT_NEAR(percentileSorted({1, 2, 3, 4}, 5), 1.15, 1e-15);
    EXPECT_DOUBLE_EQ(percentileSorted({1, 2, 3, 4}, 50), 2.5);
    EXPECT_DOUBLE_EQ(percentileSorted({7}, 5), 7.0);
    // Interpolation towards an infinite endpoint takes the limit.
    EXPECT_EQ(percentileSorted({-kInf, 1}, 50), -kInf);
    EXPECT_EQ(percentileSorted({1, kInf}, 50), kInf);
    EXPECT_EQ(percentileSorted({kInf, kInf}, 5), kInf);
}

TEST(ComparisonMetrics, PerSamplePercentilesAgainstHandList) {
    // One-element samples x = 1, y = 1 − 2^-m (exact in float): SQNR = 10·log10(2^(2m))
    // = m · 6.020599913279624 dB. m = [7, 1, 4, 2, 10, 5, 3, 9, 6, 8, 12], sorted
    // [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12], n = 11: min m = 1; p5: h = 10·0.05 = 0.5 -> m = 1.5;
    // median: h = 5 -> m = 6.
    const double dbPerBit = 6.020599913279624;
    const int ms[] = {7, 1, 4, 2, 10, 5, 3, 9, 6, 8, 12};
    ComparisonAccumulator acc;
    for (int m : ms) {  // one batch per sample, as a stream would deliver them
        const float x = 1.0f, y = 1.0f - std::ldexp(1.0f, -m);
        ASSERT_TRUE(acc.add(&x, &y, 1, 1).isOk());
    }
    const ComparisonMetrics r = acc.result();
    ASSERT_TRUE(r.sampleSqnr.has_value());
    EXPECT_EQ(r.sampleSqnr->stored, 11);
    EXPECT_NEAR(r.sampleSqnr->min, 1 * dbPerBit, 1e-12);
    EXPECT_NEAR(r.sampleSqnr->p5, 1.5 * dbPerBit, 1e-12);
    EXPECT_NEAR(r.sampleSqnr->median, 6 * dbPerBit, 1e-12);
}

TEST(ComparisonMetrics, SampleStoreIsCapped) {
    // Capacity 3: the first three samples (SQNR m·6.02 dB with m = 5, 1, 4) are kept, m = 2, 3
    // are counted but not stored. min = 1·6.02, median of [1, 4, 5]·6.02 = 4·6.02.
    const double dbPerBit = 6.020599913279624;
    ComparisonAccumulator acc(3);
    for (int m : {5, 1, 4, 2, 3}) {
        const float x = 1.0f, y = 1.0f - std::ldexp(1.0f, -m);
        ASSERT_TRUE(acc.add(&x, &y, 1, 1).isOk());
    }
    const ComparisonMetrics r = acc.result();
    EXPECT_EQ(r.samples, 5);
    EXPECT_EQ(r.sampleSqnr->stored, 3);
    EXPECT_NEAR(r.sampleSqnr->min, 1 * dbPerBit, 1e-12);
    EXPECT_NEAR(r.sampleSqnr->median, 4 * dbPerBit, 1e-12);
}

TEST(ComparisonMetrics, StreamingEqualsTwoPassOverConcatenation) {
    const int64_t sampleSize = 50;
    const std::vector<int64_t> batchSamples = {1, 7, 3, 16, 2, 9, 1, 32, 5, 4, 11, 8};
    int64_t totalSamples = 0;
    for (int64_t b : batchSamples) totalSamples += b;
    const size_t n = static_cast<size_t>(totalSamples * sampleSize);
    const std::vector<float> x = randomVector(n, 1, -3, 3);
    std::vector<float> y = randomVector(n, 2, -0.05f, 0.05f);
    for (size_t i = 0; i < n; ++i) y[i] += x[i];  // y = x + noise

    ComparisonAccumulator acc;
    int64_t offset = 0;
    for (int64_t b : batchSamples) {
        ASSERT_TRUE(acc.add(x.data() + offset, y.data() + offset, b * sampleSize, b).isOk());
        offset += b * sampleSize;
    }
    const ComparisonMetrics m = acc.result();
    EXPECT_EQ(m.samples, totalSamples);
    EXPECT_EQ(m.elements, static_cast<int64_t>(n));
    // Squares are float and float lanes sum at most 16 of them before widening to double: each
    // sum is within ~17·2⁻²⁴ (1e-6) of the exact one, a few 1e-6 dB.
    expectMatches(m, naiveFigures(x, y, sampleSize), 1e-6);
}

TEST(ComparisonMetrics, MergeEqualsSequential) {
    const int64_t sampleSize = 24, samples = 40;
    const size_t n = samples * sampleSize;
    const std::vector<float> x = randomVector(n, 3, -1, 1);
    std::vector<float> y = randomVector(n, 4, -0.1f, 0.1f);
    for (size_t i = 0; i < n; ++i) y[i] += x[i];

    ComparisonAccumulator sequential;
    sequential.setOutputScale(0.01);
    sequential.setQuantizer(0.004f, 128, 0, 255);
    ASSERT_TRUE(sequential.add(x.data(), y.data(), n, samples).isOk());

    // Two halves in parallel accumulators (the scale set only on the second), merged.
    const size_t half = 17 * sampleSize;
    ComparisonAccumulator a, b;
    b.setOutputScale(0.01);
    a.setQuantizer(0.004f, 128, 0, 255);
    b.setQuantizer(0.004f, 128, 0, 255);
    ASSERT_TRUE(a.add(x.data(), y.data(), half, 17).isOk());
    ASSERT_TRUE(b.add(x.data() + half, y.data() + half, n - half, samples - 17).isOk());
    a.merge(b);

    const ComparisonMetrics s = sequential.result(), p = a.result();
    EXPECT_EQ(p.samples, s.samples);
    EXPECT_EQ(p.elements, s.elements);
    expectRelNear(p.sqnrDb, s.sqnrDb, 1e-13);
    expectRelNear(p.cosine, s.cosine, 1e-13);
    expectRelNear(p.mse, s.mse, 1e-13);
    EXPECT_EQ(p.maxAbsError, s.maxAbsError);
    expectRelNear(*p.rmseOverScale, *s.rmseOverScale, 1e-13);
    EXPECT_EQ(*p.saturationPct, *s.saturationPct);
    EXPECT_EQ(p.sampleSqnr->stored, s.sampleSqnr->stored);
    EXPECT_EQ(p.sampleSqnr->min, s.sampleSqnr->min);
    EXPECT_EQ(p.sampleSqnr->p5, s.sampleSqnr->p5);
    EXPECT_EQ(p.sampleSqnr->median, s.sampleSqnr->median);
    EXPECT_EQ(a.sampleRanges().min, sequential.sampleRanges().min);
    EXPECT_EQ(a.sampleRanges().max, sequential.sampleRanges().max);
    EXPECT_EQ(a.sampleRanges().size(), size_t(samples));
}

TEST(ComparisonMetrics, HundredMillionElementsStayAccurate) {
    // One 1e6-element buffer fed 100 times = 1e8 elements (1e5 samples of 1000). The exact totals
    // are 100 × the buffer's sums, which long double (64-bit mantissa) gets to ~1e-13 relative.
    const size_t bufferSize = 1000000;
    const int repeats = 100;
    const std::vector<float> x = randomVector(bufferSize, 5, 0.5f, 2.0f);
    std::vector<float> y = randomVector(bufferSize, 6, -0.01f, 0.01f);
    for (size_t i = 0; i < bufferSize; ++i) y[i] += x[i];
    long double xx = 0, yy = 0, xy = 0, ee = 0;
    for (size_t i = 0; i < bufferSize; ++i) {
        const long double a = x[i], b = y[i];
        xx += a * a;
        yy += b * b;
        xy += a * b;
        ee += (a - b) * (a - b);
    }
    const double refMse =
        static_cast<double>(ee * repeats / (static_cast<long double>(bufferSize) * repeats));
    const double refSnr = static_cast<double>(xx / ee);  // ratio, the repeats cancel
    const double refCosine = static_cast<double>(xy / std::sqrt(xx * yy));

    ComparisonAccumulator acc(1024);
    for (int r = 0; r < repeats; ++r)
        ASSERT_TRUE(acc.add(x.data(), y.data(), bufferSize, 1000).isOk());
    const ComparisonMetrics m = acc.result();
    EXPECT_EQ(m.elements, 100000000);
    EXPECT_EQ(m.samples, 100000);
    EXPECT_EQ(m.sampleSqnr->stored, 1024);
    EXPECT_NEAR(m.mse / refMse - 1.0, 0.0, 1e-9);
    EXPECT_NEAR(std::pow(10.0, m.sqnrDb / 10.0) / refSnr - 1.0, 0.0, 1e-9);
    EXPECT_NEAR(m.cosine / refCosine - 1.0, 0.0, 1e-9);
}

TEST(ComparisonMetrics, PerSampleRangesOfTheReferenceHandComputed) {
    // Samples of 18 elements: sixteen in the vector part (16 lanes), two in the block loop's tail.
    //   A = [-1.5, 2, 0.25, 3, 0 × 12 | -2.5, 1]: min -2.5 (tail), max 3; range 5.5, max|x| 3.
    //   B = all zero: min = max = 0.
    //   C = [7, -0.5, 1 × 14 | 1, 8]: min -0.5, max 8 (tail); range 8.5, max|x| 8.
    // The ranges are of x: y (here x + 0.5, or anything) does not enter them.
    std::vector<float> x(54, 0.0f);
    const float a[] = {-1.5f, 2, 0.25f, 3};
    std::copy(a, a + 4, x.begin());
    x[16] = -2.5f, x[17] = 1;
    std::fill(x.begin() + 36, x.end(), 1.0f);
    x[36] = 7, x[37] = -0.5f, x[53] = 8;
    std::vector<float> y = x;
    for (float &v : y) v += 0.5f;
    ComparisonAccumulator acc;
    ASSERT_TRUE(acc.add(x.data(), y.data(), 54, 3).isOk());
    const SampleRanges &r = acc.sampleRanges();
    EXPECT_EQ(r.min, (std::vector<float>{-2.5f, 0.0f, -0.5f}));
    EXPECT_EQ(r.max, (std::vector<float>{3.0f, 0.0f, 8.0f}));
    EXPECT_EQ(r.range(0), 5.5);
    EXPECT_EQ(r.range(2), 8.5);
    EXPECT_EQ(r.absMax(0), 3.0);
    EXPECT_EQ(r.absMax(2), 8.0);
    // The same through the quantized path: y read as uint8 q with scale 0.5, zero point 3.
    const std::vector<uint8_t> q(54, 7);
    ComparisonAccumulator dq;
    ASSERT_TRUE(dq.addDequantized(x.data(), q.data(), 54, 3, 0.5f, 3).isOk());
    EXPECT_EQ(dq.sampleRanges().min, r.min);
    EXPECT_EQ(dq.sampleRanges().max, r.max);
}

TEST(ComparisonMetrics, PerSampleRangesAcrossBlocksAndBatchSizes) {
    // 56 samples of 2051 elements (two 1024-element blocks and a 3-element tail), the extremes
    // planted at block edges; fed in batches of 7 and of 8 (over 65536 elements a batch is
    // split across threads): both equal a naive min/max per sample.
    const int64_t sampleSize = 2051, samples = 56;
    std::vector<float> x = randomVector(size_t(sampleSize * samples), 11, -1, 1);
    const std::vector<float> y = randomVector(x.size(), 12, -1, 1);
    const int64_t spots[] = {0, 1023, 1024, 2047, 2048, 2050};
    for (int64_t s = 0; s < samples; ++s) {
        x[size_t(s * sampleSize + spots[s % 6])] = 1.0f + float(s);
        x[size_t(s * sampleSize + spots[(s + 3) % 6])] = -2.0f - 0.5f * float(s);
    }
    std::vector<float> naiveMin, naiveMax;
    for (int64_t s = 0; s < samples; ++s) {
        const auto [lo, hi] =
            std::minmax_element(x.begin() + s * sampleSize, x.begin() + (s + 1) * sampleSize);
        naiveMin.push_back(*lo);
        naiveMax.push_back(*hi);
        EXPECT_EQ(*hi, 1.0f + float(s));
        EXPECT_EQ(*lo, -2.0f - 0.5f * float(s));
    }
    for (int64_t batch : {7, 8}) {
        SCOPED_TRACE(batch);
        ComparisonAccumulator acc;
        for (int64_t s = 0; s < samples; s += batch)
            ASSERT_TRUE(acc.add(x.data() + s * sampleSize, y.data() + s * sampleSize,
                                batch * sampleSize, batch)
                            .isOk());
        EXPECT_EQ(acc.sampleRanges().min, naiveMin);
        EXPECT_EQ(acc.sampleRanges().max, naiveMax);
    }
}

TEST(ComparisonMetrics, PerSampleRangesNaNAndCapacity) {
    // A NaN in the reference makes that sample's range NaN and leaves the others alone.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> x = {1, nan, -3, 2, 5, 4, -1, 0};
    ComparisonAccumulator acc;
    ASSERT_TRUE(acc.add(x.data(), x.data(), 8, 2).isOk());
    EXPECT_TRUE(std::isnan(acc.sampleRanges().min[0]));
    EXPECT_TRUE(std::isnan(acc.sampleRanges().max[0]));
    EXPECT_EQ(acc.sampleRanges().min[1], -1.0f);
    EXPECT_EQ(acc.sampleRanges().max[1], 5.0f);
    // Stored for the same samples as the per-sample SQNRs: the first `capacity`.
    ComparisonAccumulator capped(2);
    for (float v : {1.0f, 2.0f, 3.0f}) {
        const float pair[] = {-v, v};
        ASSERT_TRUE(capped.add(pair, pair, 2, 1).isOk());
    }
    EXPECT_EQ(capped.sampleRanges().max, (std::vector<float>{1.0f, 2.0f}));
    EXPECT_EQ(capped.result().sampleSqnrValues.size(), 2u);
}

TEST(ComparisonMetrics, MagnitudesOutsideFloatSquaresAreSummedInDouble) {
    // Squares of |v| > ~1.8e19 overflow float and squares of |v| < ~1e-19 underflow it; such
    // blocks are summed in double, so the figures equal a naive double loop's. 40 elements: two
    // vector steps and a tail, per sample.
    for (const float magnitude : {1e25f, 1e-22f}) {
        SCOPED_TRACE(magnitude);
        std::vector<float> x = randomVector(80, 21, -2, 2), y = randomVector(80, 22, -0.1f, 0.1f);
        for (size_t i = 0; i < x.size(); ++i) {
            y[i] = (x[i] + y[i]) * magnitude;
            x[i] *= magnitude;
        }
        ComparisonAccumulator acc;
        ASSERT_TRUE(acc.add(x.data(), y.data(), 80, 2).isOk());
        const ComparisonMetrics m = acc.result();
        ASSERT_TRUE(std::isfinite(m.sqnrDb));
        expectRelNear(m.sqnrDb, naiveFigures(x, y, 40).sqnr, 1e-12);
        expectRelNear(m.sampleSqnr->min, naiveFigures(x, y, 40).sampleMin, 1e-12);
        expectRelNear(m.mse / naiveFigures(x, y, 40).mse, 1.0, 1e-12);
    }
}

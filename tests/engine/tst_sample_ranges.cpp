// The summary of per-sample activation ranges: smallest and largest range, their ratio, and the
// degenerate samples (range at most 1e-6 of the largest) left out of it, on hand-made ranges.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/metrics/sample_ranges.h"

using namespace ql::analysis;

namespace {

SampleRanges ranges(std::vector<float> min, std::vector<float> max) {
    SampleRanges r;
    r.min = std::move(min);
    r.max = std::move(max);
    return r;
}

}  // namespace

TEST(SampleRanges, SmallestLargestAndRatio) {
    // Ranges 5.5 ([-2.5, 3]), 0.25 ([0, 0.25]) and 10 ([-4, 6]): ratio 10 / 0.25 = 40.
    const auto s = summarizeSampleRanges(ranges({-2.5f, 0.0f, -4.0f}, {3.0f, 0.25f, 6.0f}));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->samples, 3);
    EXPECT_EQ(s->degenerate, 0);
    EXPECT_EQ(s->smallest, 0.25);
    EXPECT_EQ(s->largest, 10.0);
    EXPECT_EQ(s->ratio, 40.0);
    EXPECT_EQ(ranges({-2.5f}, {3.0f}).absMax(0), 3.0);
    EXPECT_EQ(ranges({-7.0f}, {3.0f}).absMax(0), 7.0);
}

TEST(SampleRanges, DegenerateSamplesAreLeftOut) {
    // An all-zero sample (range 0) and one of 1e-7 · 8 (under the 1e-6 floor) are left out;
    // 2e-6 · 8 is over it and counts: ratio 8 / 1.6e-5 = 5e5.
    const float tiny = 8e-7f, small = 1.6e-5f;
    const auto s = summarizeSampleRanges(ranges({0, 1, 0, 0}, {0, 1 + 8.0f, tiny, small}));
    ASSERT_TRUE(s);
    EXPECT_EQ(s->degenerate, 2);
    EXPECT_EQ(s->largest, 8.0);
    EXPECT_EQ(s->smallest, double(small));
    EXPECT_DOUBLE_EQ(s->ratio, 8.0 / double(small));
    // One non-degenerate sample: ratio 1.
    const auto one = summarizeSampleRanges(ranges({0, 0, -1}, {0, 0, 1}));
    EXPECT_EQ(one->degenerate, 2);
    EXPECT_EQ(one->ratio, 1.0);
    EXPECT_EQ(one->smallest, 2.0);
}

TEST(SampleRanges, AllZeroNaNAndEmptyGiveNoRatio) {
    const auto zero = summarizeSampleRanges(ranges({0, 0, 0}, {0, 0, 0}));
    ASSERT_TRUE(zero);
    EXPECT_EQ(zero->degenerate, 3);
    EXPECT_EQ(zero->largest, 0.0);
    EXPECT_TRUE(std::isnan(zero->smallest));
    EXPECT_TRUE(std::isnan(zero->ratio));
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto withNaN = summarizeSampleRanges(ranges({0, nan}, {1, nan}));
    ASSERT_TRUE(withNaN);
    EXPECT_TRUE(std::isnan(withNaN->ratio));
    EXPECT_TRUE(std::isnan(withNaN->largest));
    EXPECT_FALSE(summarizeSampleRanges(SampleRanges{}));
}

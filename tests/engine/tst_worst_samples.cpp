// worstSamples: which evaluation samples to look at first, on hand-built output reports: SQNR
// order with NaN last and -inf first, flips beyond the lowest kept up to maxFlips, outputs
// without predictions, and labels.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/suite/worst_samples.h"

using namespace ql::analysis;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

OutputReport report(std::vector<double> sqnr, std::vector<int64_t> floatTop1 = {},
                    std::vector<int64_t> quantTop1 = {}) {
    OutputReport r;
    r.sampleSqnrDb = std::move(sqnr);
    r.floatTop1 = std::move(floatTop1);
    r.quantTop1 = std::move(quantTop1);
    return r;
}

std::vector<int64_t> indices(const std::vector<WorstSample> &worst) {
    std::vector<int64_t> out;
    for (const WorstSample &w : worst) out.push_back(w.index);
    return out;
}

}  // namespace

TEST(WorstSamples, LowestFirstNanLastMinusInfFirst) {
    const auto worst =
        worstSamples(report({20.0, kNaN, 5.0, -kInf, 12.5, kInf, 5.0}), {}, /*lowest=*/10);
    // All 7 (fewer than `lowest`); the tie at 5 dB keeps sample order; +inf before NaN.
    EXPECT_EQ(indices(worst), (std::vector<int64_t>{3, 2, 6, 4, 0, 5, 1}));
    EXPECT_TRUE(std::isinf(worst[0].sqnrDb) && worst[0].sqnrDb < 0);
    EXPECT_TRUE(std::isnan(worst.back().sqnrDb));
    EXPECT_EQ(worst[1].sqnrDb, 5.0);
}

TEST(WorstSamples, LowestCutsTheList) {
    const auto worst = worstSamples(report({30.0, 10.0, 20.0, kNaN, 40.0}), {}, /*lowest=*/2);
    EXPECT_EQ(indices(worst), (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(indices(worstSamples(report({30.0, 10.0}), {}, 0)), std::vector<int64_t>{});
    EXPECT_EQ(indices(worstSamples(report({30.0, 10.0}), {}, -3)), std::vector<int64_t>{});
}

TEST(WorstSamples, FlipsBeyondTheLowestAreIncluded) {
    // Samples 0 and 4 flip; only sample 1 and 2 are among the 2 lowest.
    const auto worst = worstSamples(
        report({30.0, 10.0, 20.0, 25.0, 40.0}, {1, 2, 3, 4, 5}, {7, 2, 3, 4, 8}), {}, /*lowest=*/2);
    EXPECT_EQ(indices(worst), (std::vector<int64_t>{1, 2, 0, 4}));
    EXPECT_FALSE(worst[0].flipped);
    EXPECT_FALSE(worst[1].flipped);
    EXPECT_TRUE(worst[2].flipped);
    EXPECT_TRUE(worst[3].flipped);
    EXPECT_EQ(worst[2].floatTop1, 1);
    EXPECT_EQ(worst[2].quantTop1, 7);
    EXPECT_EQ(worst[1].floatTop1, 3);
    EXPECT_EQ(worst[1].quantTop1, 3);
}

TEST(WorstSamples, MaxFlipsCapsTheFlipsBeyondTheLowest) {
    // Every sample flips. The 2 lowest are kept whatever the cap and count towards it.
    const std::vector<double> sqnr{50.0, 10.0, 40.0, 20.0, 30.0, 60.0};
    const auto everyFlip = report(sqnr, {0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1});
    EXPECT_EQ(indices(worstSamples(everyFlip, {}, 2, 3)), (std::vector<int64_t>{1, 3, 4}));
    EXPECT_EQ(indices(worstSamples(everyFlip, {}, 2, 0)), (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(indices(worstSamples(everyFlip, {}, 0, 2)), (std::vector<int64_t>{1, 3}));
    EXPECT_EQ(worstSamples(everyFlip, {}, 2, 100).size(), 6u);
}

TEST(WorstSamples, NoPredictionsMeansNoFlips) {
    // Predictions of the wrong length (not one per sample) count as none.
    for (const auto &r : {report({3.0, 1.0, 2.0}), report({3.0, 1.0, 2.0}, {1, 2}, {2, 1})}) {
        const auto worst = worstSamples(r, {}, 2);
        EXPECT_EQ(indices(worst), (std::vector<int64_t>{1, 2}));
        for (const WorstSample &w : worst) {
            EXPECT_FALSE(w.floatTop1);
            EXPECT_FALSE(w.quantTop1);
            EXPECT_FALSE(w.flipped);
        }
    }
}

TEST(WorstSamples, LabelsWhenOnePerSample) {
    const auto r = report({3.0, 1.0, 2.0}, {4, 5, 6}, {4, 9, 6});
    const auto worst = worstSamples(r, {7, 8, 9}, 2);
    ASSERT_EQ(indices(worst), (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(worst[0].label, 8);
    EXPECT_EQ(worst[1].label, 9);
    EXPECT_TRUE(worst[0].flipped);
    for (const WorstSample &w : worstSamples(r, {7, 8}, 2)) EXPECT_FALSE(w.label);
    for (const WorstSample &w : worstSamples(r, {}, 2)) EXPECT_FALSE(w.label);
}

TEST(WorstSamples, EmptyReport) {
    EXPECT_TRUE(worstSamples(OutputReport{}, {}).empty());
}

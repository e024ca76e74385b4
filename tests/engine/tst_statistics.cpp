// The calibration lab's statistics against SciPy 1.10 (figures printed by
// tests/tools/statistics_reference.py), and the paired bootstrap against the normal
// approximation on a large sample.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "analysis/metrics/statistics.h"

using namespace ql::analysis;

TEST(Statistics, WilsonIntervalEqualsScipy) {
    struct Case {
        int64_t k, n;
        double low, high;
    };
    const Case cases[] = {{8, 10, 0.4901624715366418, 0.9433178485456248},
                          {0, 10, 0.0, 0.27753279986288926},
                          {10, 10, 0.7224672001371109, 1.0},
                          {55, 64, 0.7538371825842297, 0.9242142744396914},
                          {1, 1, 0.20654931437723745, 1.0},
                          {500, 1000, 0.4690696003681042, 0.5309303996318958}};
    for (const Case &c : cases) {
        SCOPED_TRACE(std::to_string(c.k) + "/" + std::to_string(c.n));
        const Interval ci = wilsonInterval(c.k, c.n);
        EXPECT_NEAR(ci.low, c.low, 1e-12);
        EXPECT_NEAR(ci.high, c.high, 1e-12);
    }
    const Interval none = wilsonInterval(0, 0);
    EXPECT_EQ(none.low, 0.0);
    EXPECT_EQ(none.high, 1.0);
}

TEST(Statistics, ExactMcNemarEqualsScipyBinomtest) {
    struct Case {
        int64_t n01, n10;
        double p;
    };
    const Case cases[] = {{0, 0, 1.0},
                          {1, 0, 1.0},
                          {3, 10, 0.09228515625},
                          {5, 5, 1.0},
                          {2, 9, 0.0654296875},
                          {20, 35, 0.05806414679240905},
                          {100, 140, 0.01166409231767769},
                          {0, 7, 0.015625}};
    for (const Case &c : cases) {
        SCOPED_TRACE(std::to_string(c.n01) + " vs " + std::to_string(c.n10));
        EXPECT_NEAR(mcnemarExactP(c.n01, c.n10), c.p, 1e-12 + 1e-9 * c.p);
        EXPECT_DOUBLE_EQ(mcnemarExactP(c.n01, c.n10), mcnemarExactP(c.n10, c.n01));
    }
}

TEST(Statistics, PairedBootstrapIsSeededAndPaired) {
    std::vector<double> a(64), b(64);
    for (size_t i = 0; i < a.size(); ++i) {
        a[i] = (i * 7 % 10) < 8;  // 80 % correct
        b[i] = (i * 7 % 10) < 7;  // 70 %, right only where a is right
    }
    const Interval first = pairedBootstrapDiff(a, b, 42);
    const Interval again = pairedBootstrapDiff(a, b, 42);
    EXPECT_EQ(first.low, again.low);
    EXPECT_EQ(first.high, again.high);
    // The observed difference lies inside; a model compared with itself differs by nothing.
    double observed = 0.0;
    for (size_t i = 0; i < a.size(); ++i) observed += (a[i] - b[i]) / double(a.size());
    EXPECT_LE(first.low, observed);
    EXPECT_GE(first.high, observed);
    const Interval self = pairedBootstrapDiff(a, a, 42);
    EXPECT_EQ(self.low, 0.0);
    EXPECT_EQ(self.high, 0.0);
    // Paired: b is never right where a is wrong, so every resample's difference is >= 0.
    EXPECT_GE(first.low, 0.0);
}

TEST(Statistics, PairedBootstrapMatchesTheNormalApproximationOnALargeSample) {
    // 4000 samples, difference d_i in {-1, 0, 1}: mean 0.05, the 95 % interval is close to
    // mean +- 1.96 sd / sqrt(n); the percentile ends are within 0.2 standard errors of it.
    const size_t n = 4000;
    std::vector<double> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
        const size_t r = (i * 2654435761u) % 100;
        a[i] = r < 80;
        b[i] = r < 70 || (r >= 80 && r < 85);
    }
    double mean = 0.0, square = 0.0;
    for (size_t i = 0; i < n; ++i) mean += (a[i] - b[i]) / double(n);
    for (size_t i = 0; i < n; ++i) square += std::pow(a[i] - b[i] - mean, 2) / double(n - 1);
    const double se = std::sqrt(square / double(n));
    const Interval ci = pairedBootstrapDiff(a, b, 7, 4000);
    EXPECT_NEAR(ci.low, mean - kZ95 * se, 0.2 * se);
    EXPECT_NEAR(ci.high, mean + kZ95 * se, 0.2 * se);
}

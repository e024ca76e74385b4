#pragma once
// The statistics that say whether a difference between two quantized models is real or noise
// (DESIGN.md, Definitions): the Wilson score interval of an accuracy, the exact McNemar test of
// two models scored on the same samples, and a seeded paired bootstrap interval of the
// difference. Checked against SciPy 1.10 (tst_statistics).

#include <cstdint>
#include <vector>

namespace ql::analysis {

// z of a two-sided 95 % interval: the 0.975 quantile of the standard normal.
constexpr double kZ95 = 1.959963984540054;

// splitmix64: a small generator whose sequence does not depend on the standard library, so a
// seed gives the same draws on every platform.
struct SplitMix64 {
    uint64_t state = 0;
    uint64_t next();
    // Uniform in [0, n): the top bits scaled (Lemire), no modulo bias worth the name.
    uint64_t below(uint64_t n);
};

struct Interval {
    double low = 0.0, high = 0.0;
};

// Wilson score interval of `correct` successes in `n` trials (SciPy binomtest(...).
// proportion_ci(method="wilson")); [0, 1] when n is 0.
Interval wilsonInterval(int64_t correct, int64_t n, double z = kZ95);

// Exact McNemar test: the two-sided binomial test of n01 successes in n01 + n10 discordant
// pairs at p = 0.5 (SciPy binomtest(n01, n01 + n10).pvalue); 1 when there are none.
double mcnemarExactP(int64_t n01, int64_t n10);

// Percentile interval (2.5 %, 97.5 % for level 0.95) of mean(a) - mean(b) over `resamples`
// resamples of the sample indices with replacement, the same indices for both (paired). a and
// b hold one score per sample (1 correct, 0 wrong; or any figure) and have equal sizes. The
// generator is our own (splitmix64), so the interval is the same on every platform for a seed.
Interval pairedBootstrapDiff(const std::vector<double> &a, const std::vector<double> &b,
                             uint64_t seed, int resamples = 2000, double level = 0.95);

}  // namespace ql::analysis

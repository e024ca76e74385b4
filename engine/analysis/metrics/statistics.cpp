#include "analysis/metrics/statistics.h"

#include <algorithm>
#include <cmath>

namespace ql::analysis {

namespace {

// log of the Binomial(n, 1/2) probability of k.
double logHalfBinomial(int64_t k, int64_t n) {
    return std::lgamma(double(n) + 1) - std::lgamma(double(k) + 1) -
           std::lgamma(double(n - k) + 1) - double(n) * std::log(2.0);
}

// Linear interpolation between order statistics (NumPy's default percentile).
double percentile(const std::vector<double> &sorted, double q) {
    const double position = q * double(sorted.size() - 1);
    const size_t below = static_cast<size_t>(std::floor(position));
    const size_t above = std::min(below + 1, sorted.size() - 1);
    return sorted[below] + (position - double(below)) * (sorted[above] - sorted[below]);
}

}  // namespace

uint64_t SplitMix64::next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t SplitMix64::below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
}

Interval wilsonInterval(int64_t correct, int64_t n, double z) {
    if (n <= 0) return {0.0, 1.0};
    const double k = double(correct), m = double(n), z2 = z * z;
    const double center = (k + z2 / 2.0) / (m + z2);
    const double half = z / (m + z2) * std::sqrt(k * (m - k) / m + z2 / 4.0);
    Interval ci{std::max(0.0, center - half), std::min(1.0, center + half)};
    if (correct == 0) ci.low = 0.0;  // exactly, not a rounding residue
    if (correct == n) ci.high = 1.0;
    return ci;
}

double mcnemarExactP(int64_t n01, int64_t n10) {
    const int64_t n = n01 + n10;
    if (n == 0) return 1.0;
    // Symmetric at p = 1/2: twice the tail beyond the observed split (capped at 1).
    const int64_t k = std::min(n01, n10);
    if (2 * k == n) return 1.0;
    double tail = 0.0;
    for (int64_t i = 0; i <= k; ++i) tail += std::exp(logHalfBinomial(i, n));
    return std::min(1.0, 2.0 * tail);
}

Interval pairedBootstrapDiff(const std::vector<double> &a, const std::vector<double> &b,
                             uint64_t seed, int resamples, double level) {
    const size_t n = std::min(a.size(), b.size());
    if (n == 0 || resamples <= 0) return {};
    SplitMix64 rng{seed};
    std::vector<double> diffs(static_cast<size_t>(resamples));
    for (double &diff : diffs) {
        double sum = 0.0;
        for (size_t i = 0; i < n; ++i) {
            const size_t j = rng.below(n);
            sum += a[j] - b[j];
        }
        diff = sum / double(n);
    }
    std::sort(diffs.begin(), diffs.end());
    const double tail = (1.0 - level) / 2.0;
    return {percentile(diffs, tail), percentile(diffs, 1.0 - tail)};
}

}  // namespace ql::analysis

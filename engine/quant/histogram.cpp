#include "quant/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ql::quant {

namespace {

// Bins needed to reach `extent` (>= 0) with bins of `width`; a value on the far edge still fits
// (it is clamped into the last bin), and rounding noise of a few ulps does not cost a bin.
// A double, because a far outlier can need more bins than an int64 holds.
double binsToReach(double extent, double width) {
    if (extent <= 0.0) return 0.0;
    return std::ceil(extent / width * (1.0 - 1e-12));
}

int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

Histogram::Histogram(int bins) : m_counts(static_cast<size_t>(std::max(bins, 4)), 0) {}

int Histogram::binOf(float v) const {
    const int64_t j = static_cast<int64_t>(std::floor(static_cast<double>(v) / m_width));
    return static_cast<int>(std::clamp<int64_t>(j, -m_negativeBins, positiveBins() - 1)) + m_negativeBins;
}

void Histogram::add(const float *data, int64_t n) {
    float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
    int64_t finite = 0;
    for (int64_t i = 0; i < n; ++i) {
        const float v = data[i];
        if (!std::isfinite(v)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        ++finite;
    }
    m_nonFinite += n - finite;
    if (!finite) return;
    m_min = m_total ? std::min(m_min, lo) : lo;
    m_max = m_total ? std::max(m_max, hi) : hi;
    cover(std::min(lo, 0.0f), std::max(hi, 0.0f));
    int64_t zeros = 0;
    for (int64_t i = 0; i < n; ++i) {
        const float v = data[i];
        if (!std::isfinite(v)) continue;
        zeros += v == 0.0f;
        if (m_width > 0.0) ++m_counts[static_cast<size_t>(binOf(v))];
    }
    m_zeros += zeros;  // after cover(): initialise() moves only the zeros of earlier batches
    m_total += finite;
}

void Histogram::initialise(double lo, double hi) {
    const int n = bins();
    if (lo < 0.0 && hi > 0.0) {
        const double share = -lo / (hi - lo);
        m_negativeBins = static_cast<int>(std::clamp<long>(std::lround(n * share), 1, n - 1));
    } else {
        m_negativeBins = lo < 0.0 ? n : 0;
    }
    const int positive = n - m_negativeBins;
    m_width = std::max(m_negativeBins ? -lo / m_negativeBins : 0.0, positive ? hi / positive : 0.0);
    std::fill(m_counts.begin(), m_counts.end(), 0);
    if (m_zeros) m_counts[static_cast<size_t>(binOf(0.0f))] += m_zeros;  // all earlier values were 0
}

void Histogram::cover(double lo, double hi) {
    if (lo == 0.0 && hi == 0.0) return;
    if (m_width == 0.0) {
        initialise(lo, hi);
        return;
    }
    const int64_t n = bins();
    if (binsToReach(-lo, m_width) <= m_negativeBins && binsToReach(hi, m_width) <= positiveBins()) return;

    // Extent of the bins in use, so that no counted bin is lost by the merge.
    int64_t usedNegative = 0, usedPositive = 0;
    for (int64_t j = -m_negativeBins; j < positiveBins(); ++j) {
        if (!m_counts[static_cast<size_t>(j + m_negativeBins)]) continue;
        if (j < 0) usedNegative = std::max(usedNegative, -j);
        else usedPositive = std::max(usedPositive, j + 1);
    }
    // The smallest integer merge factor k that fits both the new data and the counted bins. The
    // fit is monotone in k; k is a double because an outlier can be 1e30 bins away.
    auto needs = [&](double k, double &negative, double &positive) {
        negative = std::max(binsToReach(-lo, m_width * k), std::ceil(static_cast<double>(usedNegative) / k));
        positive = std::max(binsToReach(hi, m_width * k), std::ceil(static_cast<double>(usedPositive) / k));
        return negative + positive <= static_cast<double>(n);
    };
    const double extent = std::max(-lo, usedNegative * m_width) + std::max(hi, usedPositive * m_width);
    // No k below extent / (w n) fits (each side needs at least its extent / (k w) bins), every k
    // from extent / (w (n - 2)) does (ceil adds less than one bin per side); k = 1 did not fit.
    double low = std::max(1.0, std::floor(extent / (m_width * static_cast<double>(n))));
    double high = std::max(low + 1.0, std::ceil(extent / (m_width * static_cast<double>(n - 2))));
    double needNegative = 0.0, needPositive = 0.0;
    if (low >= 2.0 && needs(low, needNegative, needPositive)) high = low;
    while (high - low > 1.0) {  // low does not fit, high fits
        const double mid = std::floor((low + high) / 2.0);
        if (mid <= low || mid >= high) break;  // beyond 2^53 doubles skip integers
        (needs(mid, needNegative, needPositive) ? high : low) = mid;
    }
    const double k = high;
    needs(k, needNegative, needPositive);
    // Spare bins go half to each side that has data, so later growth needs fewer merges; a side
    // that never had data gets none (a Relu output keeps all bins for its positive range).
    const int64_t spare = n - static_cast<int64_t>(needNegative + needPositive);
    int64_t negative = static_cast<int64_t>(needNegative);
    if (needNegative > 0 && needPositive > 0) negative += spare / 2;
    else if (needPositive == 0) negative = n;

    // Beyond n every old bin lands in bin -1 or 0 anyway; keeps the integer division in range.
    const int64_t mergeFactor = static_cast<int64_t>(std::min(k, static_cast<double>(n + 1)));
    std::vector<int64_t> merged(static_cast<size_t>(n), 0);
    for (int64_t j = -m_negativeBins; j < positiveBins(); ++j) {
        const int64_t c = m_counts[static_cast<size_t>(j + m_negativeBins)];
        if (!c) continue;
        merged[static_cast<size_t>(floorDiv(j, mergeFactor) + negative)] += c;
    }
    m_counts.swap(merged);
    m_negativeBins = static_cast<int>(negative);
    m_width *= k;
}

std::vector<int64_t> Histogram::absoluteCounts() const {
    std::vector<int64_t> out(static_cast<size_t>(std::max(m_negativeBins, positiveBins())), 0);
    for (int j = -m_negativeBins; j < positiveBins(); ++j) {
        const int a = j < 0 ? -j - 1 : j;  // [-(a+1)w, -a w) folds onto [a w, (a+1) w)
        out[static_cast<size_t>(a)] += count(j);
    }
    return out;
}

}  // namespace ql::quant

#include "quant/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ql::quant {

namespace {

// Bins needed to reach `extent` (>= 0) with bins of `width`; a value on the far edge still fits
// (it is clamped into the last bin), and rounding noise of a few ulps does not cost a bin.
int64_t binsToReach(double extent, double width) {
    if (extent <= 0.0) return 0;
    return static_cast<int64_t>(std::ceil(extent / width * (1.0 - 1e-12)));
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

Histogram::Histogram(int bins) : m_counts(static_cast<size_t>(std::max(bins, 2)), 0) {}

int Histogram::binOf(float v) const {
    const int64_t j = static_cast<int64_t>(std::floor(static_cast<double>(v) / m_width));
    return static_cast<int>(std::clamp<int64_t>(j, -m_negativeBins, positiveBins() - 1)) + m_negativeBins;
}

void Histogram::add(const float *data, int64_t n) {
    float lo = 0.0f, hi = 0.0f;
    int64_t finite = 0;
    for (int64_t i = 0; i < n; ++i) {
        const float v = data[i];
        if (!std::isfinite(v)) {
            ++m_nonFinite;
            continue;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        ++finite;
    }
    if (!finite) return;
    if (m_total == 0) {
        m_min = std::numeric_limits<float>::max();
        m_max = std::numeric_limits<float>::lowest();
    }
    for (int64_t i = 0; i < n; ++i) {  // exact min/max (lo/hi above include 0)
        const float v = data[i];
        if (!std::isfinite(v)) continue;
        m_min = std::min(m_min, v);
        m_max = std::max(m_max, v);
    }
    cover(lo, hi);
    for (int64_t i = 0; i < n; ++i) {
        const float v = data[i];
        if (!std::isfinite(v)) continue;
        if (v == 0.0f) ++m_zeros;
        if (m_width > 0.0) ++m_counts[static_cast<size_t>(binOf(v))];
    }
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
    int64_t k = 2, needNegative = 0, needPositive = 0;
    for (;; ++k) {
        needNegative = std::max(binsToReach(-lo, m_width * k), ceilDiv(usedNegative, k));
        needPositive = std::max(binsToReach(hi, m_width * k), ceilDiv(usedPositive, k));
        if (needNegative + needPositive <= n) break;
    }
    // Spare bins go half to each side that has data, so later growth needs fewer merges; a side
    // that never had data gets none (a Relu output keeps all bins for its positive range).
    const int64_t spare = n - needNegative - needPositive;
    int64_t negative = needNegative;
    if (needNegative > 0 && needPositive > 0) negative += spare / 2;
    else if (needPositive == 0) negative = n;

    std::vector<int64_t> merged(static_cast<size_t>(n), 0);
    for (int64_t j = -m_negativeBins; j < positiveBins(); ++j) {
        const int64_t c = m_counts[static_cast<size_t>(j + m_negativeBins)];
        if (!c) continue;
        merged[static_cast<size_t>(floorDiv(j, k) + negative)] += c;
    }
    m_counts.swap(merged);
    m_negativeBins = static_cast<int>(negative);
    m_width *= static_cast<double>(k);
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

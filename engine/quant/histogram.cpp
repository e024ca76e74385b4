#include "quant/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ql::quant {

namespace {

// Bins a grid of width w needs below and above 0 for data spanning [lo, hi] (lo <= 0 <= hi):
// a value v lies in bin floor(v / w), so hi needs floor(hi / w) + 1 bins from 0 up.
double negativeBinsFor(double lo, double w) {
    return lo < 0.0 ? -std::floor(lo / w) : 0.0;
}
double positiveBinsFor(double hi, double w) {
    return std::floor(hi / w) + 1.0;
}

bool fits(double lo, double hi, double w, int bins) {
    return negativeBinsFor(lo, w) + positiveBinsFor(hi, w) <= static_cast<double>(bins);
}

// The smallest power of two, at least `atLeast`, whose grid holds [lo, hi] in `bins` bins. No
// width below (hi - lo) / bins fits, so the search starts at the power of two just below that.
double canonicalWidth(double lo, double hi, int bins, double atLeast) {
    int exponent = 0;
    std::frexp((hi - lo) / static_cast<double>(bins), &exponent);  // x = m * 2^e, m in [0.5, 1)
    double w = std::max(std::ldexp(1.0, exponent - 1), atLeast);
    while (!fits(lo, hi, w, bins)) w *= 2.0;
    return w;
}

// Bins below 0 for the canonical layout: what the data needs, plus half the spare bins when the
// data has both signs (so later growth needs fewer merges), all of them when it is non-positive.
int negativeLayout(double lo, double hi, double w, int bins) {
    const int negative = static_cast<int>(negativeBinsFor(lo, w));
    const int spare = bins - negative - static_cast<int>(positiveBinsFor(hi, w));
    if (lo < 0.0 && hi > 0.0) return negative + spare / 2;
    return lo < 0.0 ? negative + spare : 0;
}

// log2 of the ratio of two power-of-two widths (coarse >= fine): bin j of the fine grid is bin
// j >> shift of the coarse one (an arithmetic shift floors negative bins too). Beyond 62 every
// bin lands in bin -1 or 0 anyway, which a shift of 62 also gives.
int widthShift(double coarse, double fine) {
    int exponent = 0;
    std::frexp(coarse / fine, &exponent);  // ratio = 0.5 * 2^exponent
    return std::min(exponent - 1, 62);
}

// Adds the counts of one grid (`fromNegative` bins below 0) onto a grid `shift` powers of two
// coarser (`toNegative` bins below 0): the counts move, none is split.
void addRebinned(const std::vector<int64_t> &from, int fromNegative, int shift,
                 std::vector<int64_t> &to, int toNegative) {
    for (size_t i = 0; i < from.size(); ++i)
        if (from[i])
            to[static_cast<size_t>(((static_cast<int64_t>(i) - fromNegative) >> shift) +
                                   toNegative)] += from[i];
}

}  // namespace

Histogram::Histogram(int bins) : m_counts(static_cast<size_t>(std::max(bins, 4)), 0) {}

int Histogram::binOf(float v) const {
    const int64_t j = static_cast<int64_t>(std::floor(static_cast<double>(v) / m_width));
    return static_cast<int>(std::clamp<int64_t>(j, -m_negativeBins, positiveBins() - 1)) +
           m_negativeBins;
}

void Histogram::add(const float *data, int64_t n) { add(data, n, summarizeFinite(data, n)); }

void Histogram::add(const float *data, int64_t n, const FiniteSummary &summary) {
    m_nonFinite += n - summary.finite;
    if (!summary.finite) return;
    m_min = m_total ? std::min(m_min, summary.lo) : summary.lo;
    m_max = m_total ? std::max(m_max, summary.hi) : summary.hi;
    regrid(std::min(m_min, 0.0f), std::max(m_max, 0.0f));
    m_zeros += summary.zeros;  // after regrid(): it moves only the zeros of earlier batches
    m_total += summary.finite;
    if (m_width == 0.0) return;  // all zeros so far: only counted in m_zeros
    // Counts are integers, so splitting the data over threads with a histogram each and adding
    // them up gives the same counts in any order.
    // binOf() without its division and libm floor: 1 / w is exact (w is a power of two), and
    // clamping to the integer bin bounds before the floor gives the same bin as after it.
    const size_t bins = m_counts.size();
    const double inverse = 1.0 / m_width;
    const double first = -m_negativeBins, last = positiveBins() - 1;
#pragma omp parallel if (n > (1 << 16))
    {
        std::vector<int64_t> local(bins, 0);
#pragma omp for nowait
        for (int64_t i = 0; i < n; ++i) {
            const float v = data[i];
            if (!(std::fabs(v) <= std::numeric_limits<float>::max())) continue;
            double x = static_cast<double>(v) * inverse;
            x = x < first ? first : (x > last ? last : x);
            int64_t j = static_cast<int64_t>(x);
            j -= static_cast<double>(j) > x;  // floor for negative x
            ++local[static_cast<size_t>(j + m_negativeBins)];
        }
#pragma omp critical(ql_histogram_add)
        for (size_t b = 0; b < bins; ++b) m_counts[b] += local[b];
    }
}

void Histogram::merge(const Histogram &other) {
    m_nonFinite += other.m_nonFinite;
    if (other.empty()) return;
    m_min = m_total ? std::min(m_min, other.m_min) : other.m_min;
    m_max = m_total ? std::max(m_max, other.m_max) : other.m_max;
    regrid(std::min(m_min, 0.0f), std::max(m_max, 0.0f));
    addCountsOf(other);
    m_zeros += other.m_zeros;
    m_total += other.m_total;
}

void Histogram::addCountsOf(const Histogram &other) {
    if (m_width == 0.0) return;  // both saw only zeros: they are counted in m_zeros
    if (other.m_width == 0.0) {
        m_counts[static_cast<size_t>(binOf(0.0f))] += other.m_zeros;
        return;
    }
    // The union's grid is the coarser.
    addRebinned(other.m_counts, other.m_negativeBins, widthShift(m_width, other.m_width), m_counts,
                m_negativeBins);
}

void Histogram::regrid(double lo, double hi) {
    if (lo == 0.0 && hi == 0.0) return;
    const int n = bins();
    const double width = canonicalWidth(lo, hi, n, m_width);
    const int negative = negativeLayout(lo, hi, width, n);
    if (width == m_width && negative == m_negativeBins) return;

    std::vector<int64_t> moved(static_cast<size_t>(n), 0);
    if (m_width == 0.0) {
        moved[static_cast<size_t>(negative)] += m_zeros;  // every earlier value was 0
    } else {
        addRebinned(m_counts, m_negativeBins, widthShift(width, m_width), moved, negative);
    }
    m_counts.swap(moved);
    m_width = width;
    m_negativeBins = negative;
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

#include "quant/range_selection.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace ql::quant {

namespace {

// The value below which `fraction` of the mass of `counts` lies, bins [j*w, (j+1)*w) shifted by
// `origin`; linear inside a bin.
double quantileOf(const std::vector<int64_t> &counts, double origin, double width, double fraction) {
    double total = 0.0;
    for (int64_t c : counts) total += static_cast<double>(c);
    const double target = fraction * total;
    double cumulative = 0.0;
    for (size_t j = 0; j < counts.size(); ++j) {
        const double c = static_cast<double>(counts[j]);
        if (c > 0.0 && cumulative + c >= target) {
            const double inside = std::clamp((target - cumulative) / c, 0.0, 1.0);
            return origin + (static_cast<double>(j) + inside) * width;
        }
        cumulative += c;
    }
    return origin + static_cast<double>(counts.size()) * width;
}

std::pair<float, float> clampToObserved(const Histogram &h, double lo, double hi) {
    const double mn = h.observedMin(), mx = h.observedMax();
    // + 0.0f turns a -0 (from -0 * width) into 0, which prints and compares more plainly.
    return {static_cast<float>(std::clamp(lo, mn, mx)) + 0.0f, static_cast<float>(std::clamp(hi, mn, mx)) + 0.0f};
}

// Range [-t, t] (or [min, t] for non-negative data) limited to the observed values.
std::pair<float, float> fromThreshold(const Histogram &h, double t) {
    if (h.observedMin() >= 0.0f) return clampToObserved(h, h.observedMin(), t);
    return clampToObserved(h, -t, t);
}

// Adds eps to empty bins and takes the same mass from the nonzero ones (MXNet / ONNX Runtime's
// smoothing); false when a nonzero bin would become non-positive.
bool smooth(std::vector<double> &d, double eps = 1e-4) {
    size_t zeros = 0;
    for (double v : d) zeros += v == 0.0;
    const size_t nonzeros = d.size() - zeros;
    if (nonzeros == 0) return false;
    const double take = eps * static_cast<double>(zeros) / static_cast<double>(nonzeros);
    for (double &v : d) {
        if (v == 0.0) v = eps;
        else if ((v -= take) <= 0.0) return false;
    }
    return true;
}

double klDivergence(const std::vector<double> &p, const std::vector<double> &q) {
    double sp = 0.0, sq = 0.0;
    for (size_t i = 0; i < p.size(); ++i) sp += p[i], sq += q[i];
    double kl = 0.0;
    for (size_t i = 0; i < p.size(); ++i) {
        const double pi = p[i] / sp, qi = q[i] / sq;
        kl += pi * std::log(pi / qi);
    }
    return kl;
}

// Prefix sums of count, count*x and count*x^2 over bins (x uniform within a bin), for O(1)
// clipping errors.
struct Moments {
    std::vector<double> s0, s1, s2;  // s[k] = sum over bins [0, k)
    double origin = 0.0, width = 0.0;
    std::vector<int64_t> counts;

    explicit Moments(const Histogram &h) : origin(h.lowerEdge()), width(h.binWidth()), counts(h.counts()) {
        const size_t n = counts.size();
        s0.assign(n + 1, 0.0), s1.assign(n + 1, 0.0), s2.assign(n + 1, 0.0);
        for (size_t j = 0; j < n; ++j) {
            const double c = static_cast<double>(counts[j]);
            const double m = origin + (static_cast<double>(j) + 0.5) * width;
            s0[j + 1] = s0[j] + c;
            s1[j + 1] = s1[j] + c * m;
            s2[j + 1] = s2[j] + c * (m * m + width * width / 12.0);
        }
    }
    // Sum of (x - b)^2 over bins [from, to) treated as whole bins.
    double squaredDistance(size_t from, size_t to, double b) const {
        return (s2[to] - s2[from]) - 2.0 * b * (s1[to] - s1[from]) + b * b * (s0[to] - s0[from]);
    }
    // Count and sum of (x - b)^2 of values above b.
    void above(double b, double &count, double &error) const {
        const size_t n = counts.size();
        const double pos = (b - origin) / width;
        if (pos >= static_cast<double>(n)) { count = error = 0.0; return; }
        if (pos < 0.0) { count = s0[n]; error = squaredDistance(0, n, b); return; }
        const size_t j = static_cast<size_t>(pos);
        const double r = origin + static_cast<double>(j + 1) * width;
        const double part = static_cast<double>(counts[j]) * (r - b) / width;
        count = (s0[n] - s0[j + 1]) + part;
        error = squaredDistance(j + 1, n, b) + part * (r - b) * (r - b) / 3.0;
    }
    void below(double a, double &count, double &error) const {
        const size_t n = counts.size();
        const double pos = (a - origin) / width;
        if (pos <= 0.0) { count = error = 0.0; return; }
        if (pos >= static_cast<double>(n)) { count = s0[n]; error = squaredDistance(0, n, a); return; }
        const size_t j = static_cast<size_t>(pos);
        const double l = origin + static_cast<double>(j) * width;
        const double part = static_cast<double>(counts[j]) * (a - l) / width;
        count = s0[j] + part;
        error = squaredDistance(0, j, a) + part * (a - l) * (a - l) / 3.0;
    }
};

double expectedMse(const Moments &m, const Histogram &h, float lo, float hi, const QRangeOptions &target) {
    const QParams qp = qparamsFromRange(lo, hi, target);
    const auto [qmin, qmax] = quantizedRange(target);
    const double s = qp.scale[0];
    const double lower = s * (qmin - qp.zeroPoint[0]), upper = s * (qmax - qp.zeroPoint[0]);
    double countAbove = 0.0, errorAbove = 0.0, countBelow = 0.0, errorBelow = 0.0;
    m.above(upper, countAbove, errorAbove);
    m.below(lower, countBelow, errorBelow);
    const double total = static_cast<double>(h.total());
    const double rounded = std::max(0.0, total - countAbove - countBelow - static_cast<double>(h.zeroCount()));
    return (rounded * s * s / 12.0 + errorAbove + errorBelow) / total;
}

// Edges j * width for j in [0, used], at most `limit` + 1 of them, always including `used`.
std::vector<int64_t> candidateEdges(int64_t used, int limit) {
    std::vector<int64_t> out;
    const int64_t stride = std::max<int64_t>(1, (used + limit - 1) / std::max(limit, 1));
    for (int64_t j = 0; j < used; j += stride) out.push_back(j);
    out.push_back(used);
    return out;
}

}  // namespace

std::pair<float, float> percentileRange(const Histogram &h, double percentile) {
    if (h.empty() || h.binWidth() == 0.0) return {0.0f, 0.0f};
    const double fraction = std::clamp(percentile / 100.0, 0.0, 1.0);
    if (h.observedMin() >= 0.0f) {
        return clampToObserved(h, h.observedMin(), quantileOf(h.counts(), h.lowerEdge(), h.binWidth(), fraction));
    }
    return fromThreshold(h, quantileOf(h.absoluteCounts(), 0.0, h.binWidth(), fraction));
}

std::pair<float, float> entropyRange(const Histogram &h, int quantizedBins) {
    if (h.empty() || h.binWidth() == 0.0) return {0.0f, 0.0f};
    std::vector<int64_t> abs = h.absoluteCounts();
    if (abs.size() > 1) abs[0] = abs[1];  // the Relu zero spike (see header)
    size_t used = abs.size();
    while (used > 0 && abs[used - 1] == 0) --used;
    const size_t q = static_cast<size_t>(std::max(quantizedBins, 1));
    if (used <= q) return fromThreshold(h, static_cast<double>(used) * h.binWidth());

    // tail[i]: the mass beyond bin i - 1 (bins i .. used-1), summed from the top.
    std::vector<double> tail(used + 1, 0.0);
    for (size_t i = used; i-- > 0;) tail[i] = tail[i + 1] + static_cast<double>(abs[i]);
    // Every threshold i in [q, used] is independent: the divergences are computed in parallel
    // (the search is the calibration's most expensive step) and compared in order below.
    const int64_t candidates = static_cast<int64_t>(used - q + 1);
    std::vector<double> divergence(static_cast<size_t>(candidates), std::numeric_limits<double>::infinity());
#pragma omp parallel
    {
        std::vector<double> p, candidate;
#pragma omp for schedule(dynamic, 16)
        for (int64_t k = 0; k < candidates; ++k) {
            const size_t i = q + static_cast<size_t>(k);
            p.assign(abs.begin(), abs.begin() + static_cast<std::ptrdiff_t>(i));
            p[i - 1] += tail[i];
            candidate.assign(i, 0.0);
            const size_t merge = i / q;
            for (size_t g = 0; g < q; ++g) {
                const size_t start = g * merge, end = g + 1 == q ? i : start + merge;
                double sum = 0.0;
                size_t nonzero = 0;
                for (size_t j = start; j < end; ++j) {
                    sum += static_cast<double>(abs[j]);
                    nonzero += p[j] != 0.0;
                }
                if (!nonzero) continue;
                for (size_t j = start; j < end; ++j) candidate[j] = p[j] != 0.0 ? sum / static_cast<double>(nonzero) : 0.0;
            }
            if (smooth(p) && smooth(candidate)) divergence[static_cast<size_t>(k)] = klDivergence(p, candidate);
        }
    }
    double best = std::numeric_limits<double>::infinity();
    size_t bestBins = used;
    for (size_t i = used; i >= q; --i) {
        const double kl = divergence[i - q];
        if (kl < best) best = kl, bestBins = i;  // ties keep the larger threshold
        if (i == q) break;
    }
    return fromThreshold(h, static_cast<double>(bestBins) * h.binWidth());
}

int entropyQuantizedBinsFor(const Histogram &h, const QRangeOptions &target) {
    const auto [qmin, qmax] = quantizedRange(target);
    const int levels = qmax - qmin + 1;
    return h.observedMin() >= 0.0f && !target.symmetric ? levels : levels / 2;
}

double expectedQuantizationMse(const Histogram &h, float lo, float hi, const QRangeOptions &target) {
    if (h.empty()) return 0.0;
    if (h.binWidth() == 0.0) return 0.0;  // only zeros: exact whatever the range
    return expectedMse(Moments(h), h, lo, hi, target);
}

std::pair<float, float> mseRange(const Histogram &h, const QRangeOptions &target, int maxCandidatesPerSide) {
    if (h.empty() || h.binWidth() == 0.0) return {0.0f, 0.0f};
    const Moments moments(h);
    const double w = h.binWidth();
    const int64_t usedNegative = h.observedMin() < 0.0f ? static_cast<int64_t>(std::ceil(-h.observedMin() / w)) : 0;
    const int64_t usedPositive = h.observedMax() > 0.0f ? static_cast<int64_t>(std::ceil(h.observedMax() / w)) : 0;
    double best = std::numeric_limits<double>::infinity();
    double bestLo = h.observedMin(), bestHi = h.observedMax();
    auto consider = [&](double lo, double hi) {
        if (lo == 0.0 && hi == 0.0) return;
        const double e = expectedMse(moments, h, static_cast<float>(lo), static_cast<float>(hi), target);
        if (e < best) best = e, bestLo = lo, bestHi = hi;
    };
    // The exact observed range (MinMax's choice) competes too: it is rarely on a bin edge, and
    // without it a coarse grid could pick worse than MinMax.
    const double observedLo = std::min(0.0f, h.observedMin()), observedHi = std::max(0.0f, h.observedMax());
    if (target.symmetric) consider(-std::max(-observedLo, observedHi), std::max(-observedLo, observedHi));
    else consider(observedLo, observedHi);
    if (target.symmetric) {
        for (int64_t j : candidateEdges(std::max(usedNegative, usedPositive), maxCandidatesPerSide))
            consider(-static_cast<double>(j) * w, static_cast<double>(j) * w);
    } else {
        // Coarse grid over both ends, then every edge within one coarse step of the best pair.
        const int coarse = std::max(2, maxCandidatesPerSide / 16);
        const std::vector<int64_t> lows = candidateEdges(usedNegative, coarse);
        const std::vector<int64_t> highs = candidateEdges(usedPositive, coarse);
        for (int64_t a : lows)
            for (int64_t b : highs) consider(-static_cast<double>(a) * w, static_cast<double>(b) * w);
        const int64_t strideLow = lows.size() > 1 ? lows[1] - lows[0] : 1;
        const int64_t strideHigh = highs.size() > 1 ? highs[1] - highs[0] : 1;
        const int64_t a0 = std::llround(-bestLo / w), b0 = std::llround(bestHi / w);
        for (int64_t a = std::max<int64_t>(0, a0 - strideLow); a <= std::min(usedNegative, a0 + strideLow); ++a)
            for (int64_t b = std::max<int64_t>(0, b0 - strideHigh); b <= std::min(usedPositive, b0 + strideHigh); ++b)
                consider(-static_cast<double>(a) * w, static_cast<double>(b) * w);
    }
    return clampToObserved(h, bestLo, bestHi);
}

}  // namespace ql::quant

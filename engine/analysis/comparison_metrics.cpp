#include "analysis/comparison_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace ql::analysis {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Plain double sums over blocks this long, then compensated sums of the blocks: the plain part's
// rounding error stays ~ blockLength·eps, independent of the sample size.
constexpr int64_t kBlockLength = 1024;

struct SampleSums {
    CompensatedSum xx, yy, xy, ee;
    double maxAbsError = 0.0;
};

// NaN-propagating max: once a NaN is seen it sticks.
double maxPropagatingNaN(double current, double value) {
    if (std::isnan(current)) return current;
    if (std::isnan(value) || value > current) return value;
    return current;
}

// Four independent lanes per block (element i - start goes to lane (i - start) % 4) so that the
// sums are not one long chain of dependent additions; the lanes are combined in a fixed order, so
// a sample's sums depend only on its values, never on how samples were batched. A NaN error
// makes the block's Σ(x−y)² NaN, which then also makes the max abs error NaN.
void sumSample(const float *x, const float *y, int64_t n, SampleSums &sums) {
    constexpr int kLanes = 4;
    for (int64_t start = 0; start < n; start += kBlockLength) {
        const int64_t end = std::min(n, start + kBlockLength);
        double xx[kLanes] = {}, yy[kLanes] = {}, xy[kLanes] = {}, ee[kLanes] = {}, maxAbs[kLanes] = {};
        int64_t i = start;
        for (; i + kLanes <= end; i += kLanes) {
            for (int k = 0; k < kLanes; ++k) {
                const double xv = x[i + k];
                const double yv = y[i + k];
                const double e = xv - yv;
                xx[k] += xv * xv;
                yy[k] += yv * yv;
                xy[k] += xv * yv;
                ee[k] += e * e;
                const double a = std::fabs(e);
                maxAbs[k] = a > maxAbs[k] ? a : maxAbs[k];
            }
        }
        for (int k = 0; i < end; ++i, ++k) {
            const double xv = x[i];
            const double yv = y[i];
            const double e = xv - yv;
            xx[k] += xv * xv;
            yy[k] += yv * yv;
            xy[k] += xv * yv;
            ee[k] += e * e;
            const double a = std::fabs(e);
            maxAbs[k] = a > maxAbs[k] ? a : maxAbs[k];
        }
        const double blockEe = (ee[0] + ee[1]) + (ee[2] + ee[3]);
        sums.xx.add((xx[0] + xx[1]) + (xx[2] + xx[3]));
        sums.yy.add((yy[0] + yy[1]) + (yy[2] + yy[3]));
        sums.xy.add((xy[0] + xy[1]) + (xy[2] + xy[3]));
        sums.ee.add(blockEe);
        const double blockMax = std::isnan(blockEe) ? kNaN
                                                    : std::max(std::max(maxAbs[0], maxAbs[1]), std::max(maxAbs[2], maxAbs[3]));
        sums.maxAbsError = maxPropagatingNaN(sums.maxAbsError, blockMax);
    }
}

template <class Q>
int64_t countSaturated(const Q *q, int64_t n, int32_t qmin, int32_t qmax) {
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) {
        const int32_t v = q[i];
        if (v <= qmin || v >= qmax) ++count;
    }
    return count;
}

}  // namespace

double sqnrDb(double signalEnergy, double noiseEnergy) {
    if (std::isnan(signalEnergy) || std::isnan(noiseEnergy)) return kNaN;
    if (noiseEnergy == 0.0) return kInf;
    if (signalEnergy == 0.0) return -kInf;
    return 10.0 * std::log10(signalEnergy / noiseEnergy);
}

double percentileSorted(const std::vector<double> &sorted, double p) {
    if (sorted.empty()) return kNaN;
    const double h = static_cast<double>(sorted.size() - 1) * (p / 100.0);
    const size_t lo = static_cast<size_t>(std::floor(h));
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double fraction = h - static_cast<double>(lo);
    const double a = sorted[lo];
    const double b = sorted[hi];
    if (fraction == 0.0 || a == b) return a;
    // Limits of the interpolation when an endpoint is infinite (inf - inf would give NaN).
    if (std::isinf(a) && a < 0) return a;
    if (std::isinf(b) && b > 0) return b;
    return a + fraction * (b - a);
}

void CompensatedSum::add(double value) {
    const double t = m_sum + value;
    if (std::fabs(m_sum) >= std::fabs(value))
        m_compensation += (m_sum - t) + value;
    else
        m_compensation += (value - t) + m_sum;
    m_sum = t;
}

void CompensatedSum::merge(const CompensatedSum &other) {
    add(other.m_sum);
    m_compensation += other.m_compensation;
}

ComparisonAccumulator::ComparisonAccumulator(int64_t sampleCapacity)
    : m_sampleCapacity(std::max<int64_t>(0, sampleCapacity)) {}

Status ComparisonAccumulator::add(const float *x, const float *y, int64_t n, int64_t samples) {
    if (n < 0) return Status::badInput("comparison: negative element count " + std::to_string(n));
    if (n == 0) return Status::ok();
    if (samples <= 0 || n % samples != 0)
        return Status::badInput("comparison: " + std::to_string(n) +
                                " elements do not split into " + std::to_string(samples) +
                                " equal samples");
    const int64_t sampleSize = n / samples;
    for (int64_t s = 0; s < samples; ++s) {
        SampleSums sums;
        sumSample(x + s * sampleSize, y + s * sampleSize, sampleSize, sums);
        m_sumXX.merge(sums.xx);
        m_sumYY.merge(sums.yy);
        m_sumXY.merge(sums.xy);
        m_sumEE.merge(sums.ee);
        m_maxAbsError = maxPropagatingNaN(m_maxAbsError, sums.maxAbsError);
        storeSampleSqnr(sqnrDb(sums.xx.value(), sums.ee.value()));
    }
    m_samples += samples;
    m_elements += n;
    return Status::ok();
}

void ComparisonAccumulator::addQuantized(const uint8_t *q, int64_t n, int32_t qmin, int32_t qmax) {
    if (n <= 0) return;
    m_saturatedValues += countSaturated(q, n, qmin, qmax);
    m_quantizedValues += n;
}

void ComparisonAccumulator::addQuantized(const int8_t *q, int64_t n, int32_t qmin, int32_t qmax) {
    if (n <= 0) return;
    m_saturatedValues += countSaturated(q, n, qmin, qmax);
    m_quantizedValues += n;
}

void ComparisonAccumulator::addSaturationFromDequantized(const float *y, int64_t n, float scale,
                                                         int32_t zeroPoint, int32_t qmin,
                                                         int32_t qmax) {
    if (n <= 0 || !(scale > 0.0f)) return;
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) {
        // y was computed as scale·(q − zp) in float, so y / scale is within rounding of an integer.
        const double q = std::nearbyint(static_cast<double>(y[i]) / scale) + zeroPoint;
        if (q <= qmin || q >= qmax) ++count;
    }
    m_saturatedValues += count;
    m_quantizedValues += n;
}

void ComparisonAccumulator::merge(const ComparisonAccumulator &other) {
    m_sumXX.merge(other.m_sumXX);
    m_sumYY.merge(other.m_sumYY);
    m_sumXY.merge(other.m_sumXY);
    m_sumEE.merge(other.m_sumEE);
    m_maxAbsError = maxPropagatingNaN(m_maxAbsError, other.m_maxAbsError);
    m_samples += other.m_samples;
    m_elements += other.m_elements;
    m_quantizedValues += other.m_quantizedValues;
    m_saturatedValues += other.m_saturatedValues;
    if (!(m_outputScale > 0.0)) m_outputScale = other.m_outputScale;
    for (double v : other.m_sampleSqnrDb) storeSampleSqnr(v);
}

void ComparisonAccumulator::storeSampleSqnr(double value) {
    if (static_cast<int64_t>(m_sampleSqnrDb.size()) < m_sampleCapacity)
        m_sampleSqnrDb.push_back(value);
}

ComparisonMetrics ComparisonAccumulator::result() const {
    ComparisonMetrics m;
    m.samples = m_samples;
    m.elements = m_elements;
    if (m_elements == 0) {
        m.sqnrDb = m.cosine = m.mse = m.maxAbsError = kNaN;
    } else {
        const double xx = m_sumXX.value();
        const double yy = m_sumYY.value();
        const double ee = m_sumEE.value();
        m.sqnrDb = sqnrDb(xx, ee);
        if (xx == 0.0 && yy == 0.0)
            m.cosine = 1.0;
        else if (xx == 0.0 || yy == 0.0)
            m.cosine = 0.0;
        else
            m.cosine = std::clamp(m_sumXY.value() / std::sqrt(xx * yy), -1.0, 1.0);
        m.mse = ee / static_cast<double>(m_elements);
        m.maxAbsError = m_maxAbsError;
        if (m_outputScale > 0.0) m.rmseOverScale = std::sqrt(m.mse) / m_outputScale;
    }
    if (m_quantizedValues > 0)
        m.saturationPct =
            100.0 * static_cast<double>(m_saturatedValues) / static_cast<double>(m_quantizedValues);
    if (!m_sampleSqnrDb.empty()) {
        SampleSqnrSummary summary;
        summary.stored = static_cast<int64_t>(m_sampleSqnrDb.size());
        const bool anyNaN = std::any_of(m_sampleSqnrDb.begin(), m_sampleSqnrDb.end(),
                                        [](double v) { return std::isnan(v); });
        if (anyNaN) {  // NaN input in some sample: no order exists, say so rather than guess
            summary.min = summary.p5 = summary.median = kNaN;
        } else {
            std::vector<double> sorted = m_sampleSqnrDb;
            std::sort(sorted.begin(), sorted.end());
            summary.min = sorted.front();
            summary.p5 = percentileSorted(sorted, 5.0);
            summary.median = percentileSorted(sorted, 50.0);
        }
        m.sampleSqnr = summary;
    }
    return m;
}

}  // namespace ql::analysis

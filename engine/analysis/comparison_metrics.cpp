#include "analysis/comparison_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
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
    double xMin = kInf, xMax = -kInf;
};

// NaN-propagating max: once a NaN is seen it sticks.
double maxPropagatingNaN(double current, double value) {
    if (std::isnan(current)) return current;
    if (std::isnan(value) || value > current) return value;
    return current;
}

// NaN-propagating min, the counterpart of maxPropagatingNaN.
double minPropagatingNaN(double current, double value) {
    if (std::isnan(current)) return current;
    if (std::isnan(value) || value < current) return value;
    return current;
}

struct BlockSums {
    double xx, yy, xy, ee, maxAbs;
    double xMin, xMax;  // of the reference x
};

// One block's sums in four lanes of a double vector, combined in a fixed order. The arithmetic
// is the same for every instruction set the clones target (no reassociation, and no fused
// multiply-add: see the pragma), so figures do not depend on the CPU. A NaN anywhere makes ee
// NaN, and then maxAbs too; a NaN in x makes xx NaN, and then xMin and xMax too.
typedef float Float4 __attribute__((vector_size(16)));
typedef double Double4 __attribute__((vector_size(32)));

#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
__attribute__((target_clones("avx512f", "avx2", "default"))) BlockSums sumBlock(const float *x,
                                                                                const float *y,
                                                                                int64_t n) {
    Double4 xx = {}, yy = {}, xy = {}, ee = {}, mx = {};
    Double4 lo = {kInf, kInf, kInf, kInf}, hi = -lo;
    const Double4 zero = {};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        Float4 xf, yf;
        std::memcpy(&xf, x + i, sizeof xf);
        std::memcpy(&yf, y + i, sizeof yf);
        const Double4 xv = __builtin_convertvector(xf, Double4);
        const Double4 yv = __builtin_convertvector(yf, Double4);
        const Double4 e = xv - yv;
        xx += xv * xv;
        yy += yv * yv;
        xy += xv * yv;
        ee += e * e;
        const Double4 a = e < zero ? -e : e;
        mx = a > mx ? a : mx;
        lo = xv < lo ? xv : lo;
        hi = xv > hi ? xv : hi;
    }
    for (int l = 0; i < n; ++i, ++l) {
        const double xv = x[i], yv = y[i], e = xv - yv;
        xx[l] += xv * xv;
        yy[l] += yv * yv;
        xy[l] += xv * yv;
        ee[l] += e * e;
        const double a = e < 0 ? -e : e;
        mx[l] = a > mx[l] ? a : mx[l];
        lo[l] = xv < lo[l] ? xv : lo[l];
        hi[l] = xv > hi[l] ? xv : hi[l];
    }
    BlockSums sums{(xx[0] + xx[1]) + (xx[2] + xx[3]),
                   (yy[0] + yy[1]) + (yy[2] + yy[3]),
                   (xy[0] + xy[1]) + (xy[2] + xy[3]),
                   (ee[0] + ee[1]) + (ee[2] + ee[3]),
                   std::max(std::max(mx[0], mx[1]), std::max(mx[2], mx[3])),
                   std::min(std::min(lo[0], lo[1]), std::min(lo[2], lo[3])),
                   std::max(std::max(hi[0], hi[1]), std::max(hi[2], hi[3]))};
    if (std::isnan(sums.ee)) sums.maxAbs = sums.ee;
    if (std::isnan(sums.xx)) sums.xMin = sums.xMax = sums.xx;
    return sums;
}
#pragma GCC pop_options

// y block by block through `load` (which fills a block of float y values, e.g. dequantizing a
// quantized tensor on the fly, so no dequantized copy of the tensor is made).
template <class Load>
void sumSample(const float *x, const Load &load, int64_t first, int64_t n, SampleSums &sums) {
    float y[kBlockLength];
    for (int64_t start = 0; start < n; start += kBlockLength) {
        const int64_t length = std::min(n - start, kBlockLength);
        const float *block = load(first + start, length, y);
        const BlockSums b = sumBlock(x + start, block, length);
        sums.xx.add(b.xx);
        sums.yy.add(b.yy);
        sums.xy.add(b.xy);
        sums.ee.add(b.ee);
        sums.maxAbsError = maxPropagatingNaN(sums.maxAbsError, b.maxAbs);
        sums.xMin = minPropagatingNaN(sums.xMin, b.xMin);
        sums.xMax = maxPropagatingNaN(sums.xMax, b.xMax);
    }
}

// For float x: x < v exactly when x < floatAtLeast(v), and x > v exactly when x > floatAtMost(v).
float floatAtLeast(double v) {
    const float f = static_cast<float>(v);
    return static_cast<double>(f) < v ? std::nextafter(f, std::numeric_limits<float>::infinity())
                                      : f;
}
float floatAtMost(double v) {
    const float f = static_cast<float>(v);
    return static_cast<double>(f) > v ? std::nextafter(f, -std::numeric_limits<float>::infinity())
                                      : f;
}

__attribute__((target_clones("avx512f", "avx2", "default"))) int64_t countOutside(const float *x,
                                                                                  int64_t n,
                                                                                  float lo,
                                                                                  float hi) {
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += (x[i] < lo) | (x[i] > hi);
    return count;
}

Status checkSplit(int64_t n, int64_t samples) {
    if (n < 0) return Status::badInput("comparison: negative element count " + std::to_string(n));
    if (n > 0 && (samples <= 0 || n % samples != 0))
        return Status::badInput("comparison: " + std::to_string(n) +
                                " elements do not split into " + std::to_string(samples) +
                                " equal samples");
    return Status::ok();
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

template <class Load>
void ComparisonAccumulator::addSamples(const float *x, const Load &load, int64_t n,
                                       int64_t samples) {
    const int64_t sampleSize = n / samples;
    // Samples are summed in parallel, then merged in sample order: the figures do not depend on
    // the thread count.
    std::vector<SampleSums> perSample(static_cast<size_t>(samples));
#pragma omp parallel for schedule(dynamic, 1) if (n >= 65536)
    for (int64_t s = 0; s < samples; ++s)
        sumSample(x + s * sampleSize, load, s * sampleSize, sampleSize,
                  perSample[static_cast<size_t>(s)]);
    for (const SampleSums &sums : perSample) {
        m_sumXX.merge(sums.xx);
        m_sumYY.merge(sums.yy);
        m_sumXY.merge(sums.xy);
        m_sumEE.merge(sums.ee);
        m_maxAbsError = maxPropagatingNaN(m_maxAbsError, sums.maxAbsError);
        storeSample(sqnrDb(sums.xx.value(), sums.ee.value()), static_cast<float>(sums.xMin),
                    static_cast<float>(sums.xMax));
    }
    m_samples += samples;
    m_elements += n;
}

Status ComparisonAccumulator::add(const float *x, const float *y, int64_t n, int64_t samples) {
    QL_RETURN_IF_ERROR(checkSplit(n, samples));
    if (n > 0)
        addSamples(
            x, [y](int64_t first, int64_t, float *) { return y + first; }, n, samples);
    return Status::ok();
}

template <class Q>
Status ComparisonAccumulator::addDequantizedValues(const float *x, const Q *q, int64_t n,
                                                   int64_t samples, float scale,
                                                   int32_t zeroPoint) {
    QL_RETURN_IF_ERROR(checkSplit(n, samples));
    // As DequantizeLinear computes it: float(q - zero point) * scale.
    if (n > 0)
        addSamples(
            x,
            [=](int64_t first, int64_t length, float *block) {
                for (int64_t i = 0; i < length; ++i)
                    block[i] = static_cast<float>(q[first + i] - zeroPoint) * scale;
                return static_cast<const float *>(block);
            },
            n, samples);
    return Status::ok();
}

Status ComparisonAccumulator::addDequantized(const float *x, const uint8_t *q, int64_t n,
                                             int64_t samples, float scale, int32_t zeroPoint) {
    return addDequantizedValues(x, q, n, samples, scale, zeroPoint);
}

Status ComparisonAccumulator::addDequantized(const float *x, const int8_t *q, int64_t n,
                                             int64_t samples, float scale, int32_t zeroPoint) {
    return addDequantizedValues(x, q, n, samples, scale, zeroPoint);
}

void ComparisonAccumulator::addClipping(const float *x, int64_t n, float scale, int32_t zeroPoint,
                                        int32_t qmin, int32_t qmax) {
    if (n <= 0 || !(scale > 0.0f)) return;
    // x quantizes to round(x / scale) + zp; outside [qmin, qmax] the quantizer clamps it.
    // Boundaries in real units, half a step beyond the extreme levels (ties count as clipped
    // only when rounding half to even would leave the range; the difference is immaterial).
    const double lo = (static_cast<double>(qmin - zeroPoint) - 0.5) * scale;
    const double hi = (static_cast<double>(qmax - zeroPoint) + 0.5) * scale;
    const int64_t count = countOutside(x, n, floatAtLeast(lo), floatAtMost(hi));
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
    for (size_t i = 0; i < other.m_sampleSqnrDb.size(); ++i)
        storeSample(other.m_sampleSqnrDb[i], other.m_sampleRanges.min[i],
                    other.m_sampleRanges.max[i]);
}

void ComparisonAccumulator::storeSample(double sqnrDb, float referenceMin, float referenceMax) {
    if (static_cast<int64_t>(m_sampleSqnrDb.size()) >= m_sampleCapacity) return;
    m_sampleSqnrDb.push_back(sqnrDb);
    m_sampleRanges.min.push_back(referenceMin);
    m_sampleRanges.max.push_back(referenceMax);
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
        m.sampleSqnrValues = m_sampleSqnrDb;
    }
    return m;
}

}  // namespace ql::analysis

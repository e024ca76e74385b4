#include "analysis/comparison_metrics.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "ir/channel_runs.h"

namespace ql::analysis {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Plain double sums over blocks this long, then compensated sums of the blocks: the plain part's
// rounding error stays ~ blockLength·eps, independent of the sample size.
constexpr int64_t kBlockLength = 1024;
// Elements one parallel task sums: a sample this long or longer is split, so a single large
// sample (batch 1) still uses every thread. Fixed, so the figures do not depend on threads.
constexpr int64_t kChunkLength = 1 << 16;

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
    double xx, yy, ee, maxAbs;
    double xMin, xMax;  // of the reference x
    int64_t clipped;    // x outside the quantizer's bounds
};

struct RangeSums {
    CompensatedSum xx, yy, ee;
    double maxAbsError = 0.0;
    double xMin = kInf, xMax = -kInf;
    int64_t clipped = 0;

    void add(const BlockSums &b) {
        xx.add(b.xx);
        yy.add(b.yy);
        ee.add(b.ee);
        maxAbsError = maxPropagatingNaN(maxAbsError, b.maxAbs);
        xMin = minPropagatingNaN(xMin, b.xMin);
        xMax = maxPropagatingNaN(xMax, b.xMax);
        clipped += b.clipped;
    }
    void merge(const RangeSums &o) {
        xx.merge(o.xx);
        yy.merge(o.yy);
        ee.merge(o.ee);
        maxAbsError = maxPropagatingNaN(maxAbsError, o.maxAbsError);
        xMin = minPropagatingNaN(xMin, o.xMin);
        xMax = maxPropagatingNaN(xMax, o.xMax);
        clipped += o.clipped;
    }
};

// Vectors are only passed between always-inlined functions: no ABI is involved.
#pragma GCC diagnostic ignored "-Wpsabi"

// Sixteen float lanes (one AVX-512 register, two AVX2 ones), their double widening, and the
// matching integer lanes. The lane count is fixed, not the ISA's, so every clone does the same
// arithmetic in the same order.
typedef float Float16 __attribute__((vector_size(64)));
typedef double Double16 __attribute__((vector_size(128)));
typedef int32_t Int16x32 __attribute__((vector_size(64)));
constexpr int kLanes = 16;

// The value compared with x: float, or 8-bit dequantized as DequantizeLinear computes it,
// float(q − zero point)·scale, in registers (no dequantized copy).
struct FloatValues {
    const float *y;
    __attribute__((always_inline)) Float16 load(int64_t i) const {
        Float16 v;
        std::memcpy(&v, y + i, sizeof v);
        return v;
    }
    __attribute__((always_inline)) float at(int64_t i) const { return y[i]; }
};

template <class Q>
struct QuantizedValues {
    const Q *q;
    float scale;
    int32_t zeroPoint;
    __attribute__((always_inline)) Float16 load(int64_t i) const {
        Int16x32 d;
        for (int l = 0; l < kLanes; ++l) d[l] = int32_t(q[i + l]) - zeroPoint;
        return __builtin_convertvector(d, Float16) * scale;
    }
    __attribute__((always_inline)) float at(int64_t i) const {
        return static_cast<float>(int32_t(q[i]) - zeroPoint) * scale;
    }
};

// Elements a float lane sums before its sums are added to the double lanes: a float sum of k
// non-negative terms is within k·2⁻²⁴ of the exact sum, so each figure stays within ~1e-6
// relative of the exact one (hundredths of a dB need 2e-3).
constexpr int64_t kFloatRun = 16;
// Float squares are exact to 2⁻²⁴ only between underflow and overflow; a block with a magnitude
// outside this range is summed again in double.
constexpr double kFloatSafeMax = 1e18, kFloatSafeMin = 1e-15;

// One block's sums, lane by lane, combined in a fixed order. The arithmetic is the same for every
// instruction set the clones target (no reassociation, and no fused multiply-add: see the
// pragma), so figures do not depend on the CPU. Squares and differences are float, as the values
// are (x − y is exact when the two are within a factor of two, the case that decides the SQNR);
// the sums widen to double every kFloatRun elements per lane, or throughout with `exact`. A NaN
// anywhere makes ee NaN, and then maxAbs too; a NaN in x makes xx NaN, and then xMin and xMax
// too. Values below `lo` or above `hi` count as clipped (NaN does not).
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
template <bool exact, bool clipping, class Y>
__attribute__((always_inline)) inline BlockSums sumBlockOf(const float *x, const Y &y,
                                                           int64_t first, int64_t n, float lo,
                                                           float hi) {
    x += first;
    Double16 xx = {}, yy = {}, ee = {}, mx = {};
    Float16 mn = {}, mxx = {};  // the range of x, in float: exact
    mn += std::numeric_limits<float>::infinity();
    mxx -= std::numeric_limits<float>::infinity();
    Int16x32 clipped = {};
    const Int16x32 none = {}, one = none + 1;
    const Float16 zero = {}, low = zero + lo, high = zero + hi;
    int64_t i = 0;
    while (i + kLanes <= n) {
        const int64_t runEnd = exact ? n : std::min(n, i + kFloatRun * kLanes);
        Float16 fxx = {}, fyy = {}, fee = {}, fmx = {};
        for (; i + kLanes <= runEnd; i += kLanes) {
            Float16 xf;
            std::memcpy(&xf, x + i, sizeof xf);
            const Float16 yf = y.load(first + i);
            if constexpr (exact) {
                const Double16 xv = __builtin_convertvector(xf, Double16);
                const Double16 yv = __builtin_convertvector(yf, Double16);
                const Double16 e = xv - yv, a = e < 0.0 ? -e : e;
                xx += xv * xv;
                yy += yv * yv;
                ee += e * e;
                mx = a > mx ? a : mx;
            } else {
                const Float16 e = xf - yf, a = e < zero ? -e : e;
                fxx += xf * xf;
                fyy += yf * yf;
                fee += e * e;
                fmx = a > fmx ? a : fmx;
            }
            mn = xf < mn ? xf : mn;
            mxx = xf > mxx ? xf : mxx;
            if constexpr (clipping) {
                clipped += xf < low ? one : none;
                clipped += xf > high ? one : none;
            }
        }
        if constexpr (!exact) {
            xx += __builtin_convertvector(fxx, Double16);
            yy += __builtin_convertvector(fyy, Double16);
            ee += __builtin_convertvector(fee, Double16);
            const Double16 a = __builtin_convertvector(fmx, Double16);
            mx = a > mx ? a : mx;
        }
    }
    for (int l = 0; i < n; ++i, ++l) {
        const double xv = x[i], yv = y.at(first + i), e = xv - yv;
        xx[l] += xv * xv;
        yy[l] += yv * yv;
        ee[l] += e * e;
        const double a = e < 0 ? -e : e;
        mx[l] = a > mx[l] ? a : mx[l];
        mn[l] = x[i] < mn[l] ? x[i] : mn[l];
        mxx[l] = x[i] > mxx[l] ? x[i] : mxx[l];
        clipped[l] += (x[i] < lo) | (x[i] > hi);
    }
    auto sum16 = [](const Double16 &v) {
        double half[2];
        for (int h = 0; h < 2; ++h) {
            const double *w = &v[0] + 8 * h;
            half[h] = ((w[0] + w[1]) + (w[2] + w[3])) + ((w[4] + w[5]) + (w[6] + w[7]));
        }
        return half[0] + half[1];
    };
    BlockSums sums{sum16(xx), sum16(yy), sum16(ee), mx[0], mn[0], mxx[0], 0};
    for (int l = 0; l < kLanes; ++l) {
        sums.maxAbs = std::max(sums.maxAbs, mx[l]);
        sums.xMin = std::min(sums.xMin, double(mn[l]));
        sums.xMax = std::max(sums.xMax, double(mxx[l]));
        sums.clipped += clipped[l];
    }
    if (std::isnan(sums.ee)) sums.maxAbs = sums.ee;
    if (std::isnan(sums.xx)) sums.xMin = sums.xMax = sums.xx;
    return sums;
}

// Whether a block summed in float lanes may have overflowed or underflowed.
bool outsideFloatRange(const BlockSums &b) {
    const double xAbs = std::max(std::fabs(b.xMin), std::fabs(b.xMax));
    auto risky = [](double m) { return m > kFloatSafeMax || (m > 0.0 && m < kFloatSafeMin); };
    return risky(xAbs) || risky(b.maxAbs) || std::isinf(b.yy);
}

template <class Y>
__attribute__((always_inline)) inline BlockSums sumBlockChecked(const float *x, const Y &y,
                                                                int64_t first, int64_t n, float lo,
                                                                float hi) {
    // Without a quantizer nothing is clipped: the bounds are infinite.
    const bool clipping =
        lo > -std::numeric_limits<float>::infinity() || hi < std::numeric_limits<float>::infinity();
    const BlockSums sums = clipping ? sumBlockOf<false, true>(x, y, first, n, lo, hi)
                                    : sumBlockOf<false, false>(x, y, first, n, lo, hi);
    if (!outsideFloatRange(sums)) return sums;
    return sumBlockOf<true, true>(x, y, first, n, lo, hi);
}

#define QL_SUM_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
QL_SUM_CLONES BlockSums sumFloatBlock(const float *x, FloatValues y, int64_t first, int64_t n,
                                      float lo, float hi) {
    return sumBlockChecked(x, y, first, n, lo, hi);
}
QL_SUM_CLONES BlockSums sumUint8Block(const float *x, QuantizedValues<uint8_t> y, int64_t first,
                                      int64_t n, float lo, float hi) {
    return sumBlockChecked(x, y, first, n, lo, hi);
}
QL_SUM_CLONES BlockSums sumInt8Block(const float *x, QuantizedValues<int8_t> y, int64_t first,
                                     int64_t n, float lo, float hi) {
    return sumBlockChecked(x, y, first, n, lo, hi);
}
#undef QL_SUM_CLONES
#pragma GCC pop_options

// One block of one comparison, by the type of its y.
BlockSums sumBlock(const float *x, const SweepComparison &c, int64_t first, int64_t n, float lo,
                   float hi) {
    switch (c.type) {
        case DataType::UInt8:
            return sumUint8Block(x, {static_cast<const uint8_t *>(c.y), c.scale, c.zeroPoint},
                                 first, n, lo, hi);
        case DataType::Int8:
            return sumInt8Block(x, {static_cast<const int8_t *>(c.y), c.scale, c.zeroPoint}, first,
                                n, lo, hi);
        default:
            return sumFloatBlock(x, {static_cast<const float *>(c.y)}, first, n, lo, hi);
    }
}

void quantizeBlock(const float *x, const SweepQuantization &q, int64_t first, int64_t n) {
    if (q.type == DataType::Int8)
        quantizeValues(x + first, static_cast<int8_t *>(q.out) + first, n, q.scale, q.zeroPoint);
    else
        quantizeValues(x + first, static_cast<uint8_t *>(q.out) + first, n, q.scale, q.zeroPoint);
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

Status sweepValue(const float *x, int64_t n, int64_t samples,
                  const std::vector<SweepComparison> &comparisons,
                  const std::vector<SweepQuantization> &quantizations) {
    QL_RETURN_IF_ERROR(checkSplit(n, samples));
    for (const SweepComparison &c : comparisons)
        if (c.type != DataType::Float && c.type != DataType::UInt8 && c.type != DataType::Int8)
            return Status::internal("comparison with a " + dataTypeName(c.type) + " value");
    for (const SweepQuantization &q : quantizations)
        if (q.type != DataType::UInt8 && q.type != DataType::Int8)
            return Status::internal("quantization to " + dataTypeName(q.type));
    if (n == 0) return Status::ok();
    const int64_t sampleSize = n / samples;
    const int64_t chunks = std::max<int64_t>(1, (sampleSize + kChunkLength - 1) / kChunkLength);
    const int64_t tasks = samples * chunks;
    // Chunks are summed in parallel, then merged in order: the figures do not depend on the
    // thread count. Within a chunk every use takes a block in turn while it is in cache.
    std::vector<RangeSums> parts(comparisons.size() * static_cast<size_t>(tasks));
#pragma omp parallel for schedule(dynamic, 1) if (n >= 65536)
    for (int64_t t = 0; t < tasks; ++t) {
        const int64_t s = t / chunks, c = t % chunks;
        const int64_t first = s * sampleSize + c * kChunkLength;
        const int64_t end = first + std::min(kChunkLength, sampleSize - c * kChunkLength);
        for (int64_t start = first; start < end; start += kBlockLength) {
            const int64_t length = std::min(end - start, kBlockLength);
            for (size_t j = 0; j < comparisons.size(); ++j) {
                const ComparisonAccumulator &acc = *comparisons[j].into;
                parts[j * static_cast<size_t>(tasks) + static_cast<size_t>(t)].add(sumBlock(
                    x, comparisons[j], start, length, acc.m_clipLow, acc.m_clipHigh));
            }
            for (const SweepQuantization &q : quantizations) quantizeBlock(x, q, start, length);
        }
    }
    for (size_t j = 0; j < comparisons.size(); ++j) {
        ComparisonAccumulator &acc = *comparisons[j].into;
        const RangeSums *mine = parts.data() + j * static_cast<size_t>(tasks);
        for (int64_t s = 0; s < samples; ++s) {
            RangeSums sums = mine[s * chunks];
            for (int64_t c = 1; c < chunks; ++c) sums.merge(mine[s * chunks + c]);
            acc.addSample(sums.xx, sums.yy, sums.ee, sums.maxAbsError, sums.xMin, sums.xMax,
                          sums.clipped);
        }
        if (acc.m_clipping) acc.m_quantizedValues += n;
        acc.m_samples += samples;
        acc.m_elements += n;
    }
    return Status::ok();
}

void ComparisonAccumulator::addSample(const CompensatedSum &xx, const CompensatedSum &yy,
                                      const CompensatedSum &ee, double maxAbsError, double xMin,
                                      double xMax, int64_t clipped) {
    m_sumXX.merge(xx);
    m_sumYY.merge(yy);
    m_sumEE.merge(ee);
    m_maxAbsError = maxPropagatingNaN(m_maxAbsError, maxAbsError);
    if (m_clipping) m_saturatedValues += clipped;
    storeSample(sqnrDb(xx.value(), ee.value()), static_cast<float>(xMin), static_cast<float>(xMax));
}

Status ComparisonAccumulator::add(const float *x, const float *y, int64_t n, int64_t samples) {
    return sweepValue(x, n, samples, {{this, DataType::Float, y}}, {});
}

Status ComparisonAccumulator::addDequantized(const float *x, const uint8_t *q, int64_t n,
                                             int64_t samples, float scale, int32_t zeroPoint) {
    return sweepValue(x, n, samples, {{this, DataType::UInt8, q, scale, zeroPoint}}, {});
}

Status ComparisonAccumulator::addDequantized(const float *x, const int8_t *q, int64_t n,
                                             int64_t samples, float scale, int32_t zeroPoint) {
    return sweepValue(x, n, samples, {{this, DataType::Int8, q, scale, zeroPoint}}, {});
}

void ComparisonAccumulator::setQuantizer(float scale, int32_t zeroPoint, int32_t qmin,
                                         int32_t qmax) {
    if (!(scale > 0.0f)) return;
    // x quantizes to round(x / scale) + zp; outside [qmin, qmax] the quantizer clamps it.
    // Boundaries in real units, half a step beyond the extreme levels (ties count as clipped
    // only when rounding half to even would leave the range; the difference is immaterial).
    m_clipping = true;
    m_clipLow = floatAtLeast((static_cast<double>(qmin - zeroPoint) - 0.5) * scale);
    m_clipHigh = floatAtMost((static_cast<double>(qmax - zeroPoint) + 0.5) * scale);
}

void ComparisonAccumulator::merge(const ComparisonAccumulator &other) {
    m_sumXX.merge(other.m_sumXX);
    m_sumYY.merge(other.m_sumYY);
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
            // Σxy = (Σx² + Σy² − Σ(x−y)²) / 2: one sum less per element, and accurate where it
            // matters: its error is ~eps·(Σx² + Σy²), tiny against sqrt(Σx²·Σy²) unless one
            // side is negligible, and then the cosine is ~0 either way.
            m.cosine = std::clamp((xx + yy - ee) / 2.0 / std::sqrt(xx * yy), -1.0, 1.0);
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

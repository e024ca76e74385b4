#include "analysis/metrics/comparison_metrics.h"

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

// One use of x in a block: the values y compared with it, and the bounds of the quantizer whose
// clipping it counts (kClip; without a quantizer the bounds are infinite and nothing is counted).
template <bool kClip, class Y>
struct BlockUse {
    static constexpr bool clip = kClip;
    const Y &y;
    float lo, hi;
};

// What else a block's pass does with x: nothing, or quantize it as QuantizeLinear does (the same
// arithmetic as quantizeValues, so the same values), while the division of one vector overlaps
// the comparisons of the next.
struct NoSink {
    __attribute__((always_inline)) void apply(const Float16 &, int64_t) const {}
    __attribute__((always_inline)) void applyAt(float, int64_t) const {}
};
template <class Q>
struct QuantizeSink {
    typedef Q Q16 __attribute__((vector_size(16)));
    Q *out;
    float scale;
    int32_t zeroPoint;
    float lo, hi;  // the integer range, less the zero point
    QuantizeSink(void *o, float s, int32_t z)
        : out(static_cast<Q *>(o)),
          scale(s),
          zeroPoint(z),
          lo(static_cast<float>(std::numeric_limits<Q>::min()) - static_cast<float>(z)),
          hi(static_cast<float>(std::numeric_limits<Q>::max()) - static_cast<float>(z)) {}
    __attribute__((always_inline)) void apply(const Float16 &xf, int64_t index) const {
        const Float16 zero = {}, low = zero + lo, high = zero + hi;
        Float16 v = xf / scale;
        v = v >= low ? v : low;
        v = v <= high ? v : high;
        v = (v + kRoundingMagic) - kRoundingMagic;
        const Int16x32 q = __builtin_convertvector(v, Int16x32) + zeroPoint;
        const Q16 narrow = __builtin_convertvector(q, Q16);
        std::memcpy(out + index, &narrow, sizeof narrow);
    }
    void applyAt(float x, int64_t index) const { quantizeValues(&x, out + index, 1, scale, zeroPoint); }
};

// What one use adds up, lane by lane: float lanes for a run, double lanes across runs.
struct UseLanes {
    Double16 yy = {}, ee = {}, mx = {};
    Float16 fyy = {}, fee = {}, fmx = {};
    Int16x32 clipped = {};
};

// One block's sums for every use of x, lane by lane, combined in a fixed order: what depends on
// x alone (Σx², its range) once, the rest per use, so each use gets exactly the sums it would
// get alone. The arithmetic is the same for every instruction set the clones target (no
// reassociation, and no fused multiply-add: see the pragma), so figures do not depend on the
// CPU. Squares and differences are float, as the values are (x − y is exact when the two are
// within a factor of two, the case that decides the SQNR); the sums widen to double every
// kFloatRun elements per lane, or throughout with `exact`. A NaN anywhere makes ee NaN, and then
// maxAbs too; a NaN in x makes xx NaN, and then xMin and xMax too. Values below a use's `lo` or
// above its `hi` count as clipped (NaN does not).
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
template <bool exact, class Use>
__attribute__((always_inline)) inline void addUse(UseLanes &l, const Float16 &xf, const Use &use,
                                                  int64_t index) {
    const Float16 yf = use.y.load(index);
    if constexpr (exact) {
        const Double16 xv = __builtin_convertvector(xf, Double16);
        const Double16 yv = __builtin_convertvector(yf, Double16);
        const Double16 e = xv - yv, a = e < 0.0 ? -e : e;
        l.yy += yv * yv;
        l.ee += e * e;
        l.mx = a > l.mx ? a : l.mx;
    } else {
        const Float16 zero = {};
        const Float16 e = xf - yf, a = e < zero ? -e : e;
        l.fyy += yf * yf;
        l.fee += e * e;
        l.fmx = a > l.fmx ? a : l.fmx;
    }
    if constexpr (Use::clip) {
        const Int16x32 none = {}, one = none + 1;
        const Float16 zero = {}, low = zero + use.lo, high = zero + use.hi;
        l.clipped += xf < low ? one : none;
        l.clipped += xf > high ? one : none;
    }
}

template <class Use>
__attribute__((always_inline)) inline void addUseAt(UseLanes &l, float x, const Use &use,
                                                    int64_t index, int lane) {
    const double xv = x, yv = use.y.at(index), e = xv - yv;
    l.yy[lane] += yv * yv;
    l.ee[lane] += e * e;
    const double a = e < 0 ? -e : e;
    l.mx[lane] = a > l.mx[lane] ? a : l.mx[lane];
    l.clipped[lane] += (x < use.lo) | (x > use.hi);
}

template <bool exact, class Sink, class... Uses>
__attribute__((always_inline)) inline void sumBlockOf(const float *x, int64_t first, int64_t n,
                                                      BlockSums *out, const Sink &sink,
                                                      const Uses &...uses) {
    x += first;
    Double16 xx = {};
    Float16 mn = {}, mxx = {};  // the range of x, in float: exact
    mn += std::numeric_limits<float>::infinity();
    mxx -= std::numeric_limits<float>::infinity();
    UseLanes lanes[sizeof...(Uses)];
    int64_t i = 0;
    while (i + kLanes <= n) {
        const int64_t runEnd = exact ? n : std::min(n, i + kFloatRun * kLanes);
        Float16 fxx = {};
        for (UseLanes &l : lanes) l.fyy = l.fee = l.fmx = Float16{};
        for (; i + kLanes <= runEnd; i += kLanes) {
            Float16 xf;
            std::memcpy(&xf, x + i, sizeof xf);
            if constexpr (exact) {
                const Double16 xv = __builtin_convertvector(xf, Double16);
                xx += xv * xv;
            } else {
                fxx += xf * xf;
            }
            mn = xf < mn ? xf : mn;
            mxx = xf > mxx ? xf : mxx;
            sink.apply(xf, first + i);
            size_t u = 0;
            (addUse<exact>(lanes[u++], xf, uses, first + i), ...);
        }
        if constexpr (!exact) {
            xx += __builtin_convertvector(fxx, Double16);
            for (UseLanes &l : lanes) {
                l.yy += __builtin_convertvector(l.fyy, Double16);
                l.ee += __builtin_convertvector(l.fee, Double16);
                const Double16 a = __builtin_convertvector(l.fmx, Double16);
                l.mx = a > l.mx ? a : l.mx;
            }
        }
    }
    for (int l = 0; i < n; ++i, ++l) {
        const double xv = x[i];
        xx[l] += xv * xv;
        mn[l] = x[i] < mn[l] ? x[i] : mn[l];
        mxx[l] = x[i] > mxx[l] ? x[i] : mxx[l];
        sink.applyAt(x[i], first + i);
        size_t u = 0;
        (addUseAt(lanes[u++], x[i], uses, first + i, l), ...);
    }
    auto sum16 = [](const Double16 &v) {
        auto sum8 = [&v](int b) {
            return ((v[b] + v[b + 1]) + (v[b + 2] + v[b + 3])) +
                   ((v[b + 4] + v[b + 5]) + (v[b + 6] + v[b + 7]));
        };
        return sum8(0) + sum8(8);
    };
    double xMin = mn[0], xMax = mxx[0];
    for (int l = 0; l < kLanes; ++l) {
        xMin = std::min(xMin, double(mn[l]));
        xMax = std::max(xMax, double(mxx[l]));
    }
    const double xxSum = sum16(xx);
    if (std::isnan(xxSum)) xMin = xMax = xxSum;
    for (size_t u = 0; u < sizeof...(Uses); ++u) {
        const UseLanes &l = lanes[u];
        BlockSums sums{xxSum, sum16(l.yy), sum16(l.ee), l.mx[0], xMin, xMax, 0};
        for (int lane = 0; lane < kLanes; ++lane) {
            sums.maxAbs = std::max(sums.maxAbs, l.mx[lane]);
            sums.clipped += l.clipped[lane];
        }
        if (std::isnan(sums.ee)) sums.maxAbs = sums.ee;
        out[u] = sums;
    }
}

// Whether a block summed in float lanes may have overflowed or underflowed.
bool outsideFloatRange(const BlockSums &b) {
    const double xAbs = std::max(std::fabs(b.xMin), std::fabs(b.xMax));
    auto risky = [](double m) { return m > kFloatSafeMax || (m > 0.0 && m < kFloatSafeMin); };
    return risky(xAbs) || risky(b.maxAbs) || std::isinf(b.yy);
}

bool clips(float lo, float hi) {
    return lo > -std::numeric_limits<float>::infinity() ||
           hi < std::numeric_limits<float>::infinity();
}

// A use's block sums again in double when its float lanes may have overflowed or underflowed.
template <class Y>
__attribute__((always_inline)) inline void recheckInDouble(const float *x, const Y &y, float lo,
                                                           float hi, int64_t first, int64_t n,
                                                           BlockSums &sums) {
    if (outsideFloatRange(sums))
        sumBlockOf<true>(x, first, n, &sums, NoSink{}, BlockUse<true, Y>{y, lo, hi});
}

template <class Y>
__attribute__((always_inline)) inline BlockSums sumBlockChecked(const float *x, const Y &y,
                                                                int64_t first, int64_t n, float lo,
                                                                float hi) {
    BlockSums sums;
    if (clips(lo, hi))
        sumBlockOf<false>(x, first, n, &sums, NoSink{}, BlockUse<true, Y>{y, lo, hi});
    else
        sumBlockOf<false>(x, first, n, &sums, NoSink{}, BlockUse<false, Y>{y, lo, hi});
    recheckInDouble(x, y, lo, hi, first, n, sums);
    return sums;
}

// Two uses of x with values of the same type in one pass, quantizing x on the way when `sink`
// is a QuantizeSink: the cumulative and the isolated comparison of a layer output, and the
// next layers' isolated input. The first use may clip, the second usually not.
template <class Y, class Sink>
__attribute__((always_inline)) inline void sumBlockPairChecked(const float *x, const Y &y1,
                                                               float lo1, float hi1, const Y &y2,
                                                               float lo2, float hi2, int64_t first,
                                                               int64_t n, BlockSums *out,
                                                               const Sink &sink) {
    if (clips(lo2, hi2))
        sumBlockOf<false>(x, first, n, out, sink, BlockUse<true, Y>{y1, lo1, hi1},
                          BlockUse<true, Y>{y2, lo2, hi2});
    else
        sumBlockOf<false>(x, first, n, out, sink, BlockUse<true, Y>{y1, lo1, hi1},
                          BlockUse<false, Y>{y2, lo2, hi2});
    recheckInDouble(x, y1, lo1, hi1, first, n, out[0]);
    recheckInDouble(x, y2, lo2, hi2, first, n, out[1]);
}

// The pair with the quantization `q` (nullptr: none) as a sink.
template <class Y>
__attribute__((always_inline)) inline void sumBlockPairQuantizing(
    const float *x, const Y &y1, float lo1, float hi1, const Y &y2, float lo2, float hi2,
    int64_t first, int64_t n, BlockSums *out, const SweepQuantization *q) {
    if (!q)
        sumBlockPairChecked(x, y1, lo1, hi1, y2, lo2, hi2, first, n, out, NoSink{});
    else if (q->type == DataType::Int8)
        sumBlockPairChecked(x, y1, lo1, hi1, y2, lo2, hi2, first, n, out,
                            QuantizeSink<int8_t>(q->out, q->scale, q->zeroPoint));
    else
        sumBlockPairChecked(x, y1, lo1, hi1, y2, lo2, hi2, first, n, out,
                            QuantizeSink<uint8_t>(q->out, q->scale, q->zeroPoint));
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
QL_SUM_CLONES void sumUint8Pair(const float *x, QuantizedValues<uint8_t> y1, float lo1, float hi1,
                                QuantizedValues<uint8_t> y2, float lo2, float hi2, int64_t first,
                                int64_t n, BlockSums *out, const SweepQuantization *q) {
    sumBlockPairQuantizing(x, y1, lo1, hi1, y2, lo2, hi2, first, n, out, q);
}
QL_SUM_CLONES void sumInt8Pair(const float *x, QuantizedValues<int8_t> y1, float lo1, float hi1,
                               QuantizedValues<int8_t> y2, float lo2, float hi2, int64_t first,
                               int64_t n, BlockSums *out, const SweepQuantization *q) {
    sumBlockPairQuantizing(x, y1, lo1, hi1, y2, lo2, hi2, first, n, out, q);
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

// Two comparisons with values of one 8-bit type in one pass, which also makes the quantization
// `q` when not null; false (nothing done) for other types.
bool sumBlockPair(const float *x, const SweepComparison &a, float loA, float hiA,
                  const SweepComparison &b, float loB, float hiB, int64_t first, int64_t n,
                  BlockSums *out, const SweepQuantization *q) {
    if (a.type != b.type) return false;
    if (a.type == DataType::UInt8) {
        sumUint8Pair(x, {static_cast<const uint8_t *>(a.y), a.scale, a.zeroPoint}, loA, hiA,
                     {static_cast<const uint8_t *>(b.y), b.scale, b.zeroPoint}, loB, hiB, first, n,
                     out, q);
        return true;
    }
    if (a.type == DataType::Int8) {
        sumInt8Pair(x, {static_cast<const int8_t *>(a.y), a.scale, a.zeroPoint}, loA, hiA,
                    {static_cast<const int8_t *>(b.y), b.scale, b.zeroPoint}, loB, hiB, first, n,
                    out, q);
        return true;
    }
    return false;
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
            auto part = [&](size_t j) -> RangeSums & {
                return parts[j * static_cast<size_t>(tasks) + static_cast<size_t>(t)];
            };
            // The first quantization rides along with the first pair of comparisons, if any.
            const SweepQuantization *riding = quantizations.empty() ? nullptr : &quantizations[0];
            for (size_t j = 0; j < comparisons.size();) {
                const ComparisonAccumulator &a = *comparisons[j].into;
                BlockSums two[2];
                if (j + 1 < comparisons.size() &&
                    sumBlockPair(x, comparisons[j], a.m_clipLow, a.m_clipHigh, comparisons[j + 1],
                                 comparisons[j + 1].into->m_clipLow,
                                 comparisons[j + 1].into->m_clipHigh, start, length, two, riding)) {
                    part(j).add(two[0]);
                    part(j + 1).add(two[1]);
                    riding = nullptr;
                    j += 2;
                } else {
                    part(j).add(
                        sumBlock(x, comparisons[j], start, length, a.m_clipLow, a.m_clipHigh));
                    j += 1;
                }
            }
            for (const SweepQuantization &q : quantizations)
                if (&q != &quantizations[0] || riding) quantizeBlock(x, q, start, length);
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

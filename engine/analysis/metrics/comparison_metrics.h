#pragma once
// Streaming comparison of a float reference x with a dequantized quantized value y, fed batch by
// batch. Memory does not grow with the number of samples except the per-sample SQNR store, which
// keeps EXACTLY one double per sample up to `sampleCapacity` samples (the first ones seen, or
// for merged accumulators, this one's first, then the other's); later samples still count in
// every other figure, and `SampleSqnrSummary::stored < samples` tells that the distribution
// covers only a prefix.
//
// Definitions (shared/DESIGN.md), over all elements of all samples:
//  * SQNR dB = 10·log10(Σx² / Σ(x−y)²). Σ(x−y)² = 0 -> +inf (also when Σx² = 0: identical);
//    Σx² = 0 < Σ(x−y)² -> -inf (all noise, the formula's limit; PyTorch compute_sqnr agrees).
//  * cosine = Σxy / sqrt(Σx²·Σy²), clamped to [-1, 1]; both all zero -> 1, one all zero -> 0.
//  * MSE = Σ(x−y)² / N; max abs error = max |x−y|; rmse/scale = sqrt(MSE) / output scale
//    (nullopt when no positive scale was given).
//  * saturation % = 100 · (float reference values the layer's quantizer clips: round(x/scale) + zp
//    outside [qmin, qmax]) / (values seen); nullopt when no quantizer was given (addClipping).
//  * per-sample SQNR: the same SQNR formula per sample; min, 5th percentile and median with
//    numpy's default percentile rule (linear interpolation between closest ranks:
//    h = (n−1)·p, v[floor h] + (h − floor h)·(v[floor h + 1] − v[floor h]) on the sorted values).
//    With an infinite endpoint the interpolation takes the limit (-inf below, +inf above).
// With no elements added the float figures are NaN. NaN inputs propagate into the figures.
//  * per-sample reference range (sampleRanges()): min and max of the float reference x over each
//    sample's elements, found in the same pass, stored like the per-sample SQNRs (same samples,
//    same capacity). A sample holding a NaN gets NaN for both.
// Squares and differences are float, like the values; float lanes sum 16 of them at a time, then
// double takes over: each batch is summed per sample in double, and the totals are kept with
// Neumaier compensation. So every sum is within ~1e-6 relative of the exact one (a few 1e-6 dB)
// however many elements there are. Blocks with magnitudes whose float squares would overflow or
// underflow are summed in double throughout.

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "analysis/metrics/sample_ranges.h"
#include "core/status.h"
#include "ir/tensor.h"

namespace ql::analysis {

// 10·log10(signal / noise) with the conventions above.
double sqnrDb(double signalEnergy, double noiseEnergy);

// numpy-default (linear) percentile, p in [0, 100], of values sorted ascending; NaN when empty.
double percentileSorted(const std::vector<double> &sorted, double p);

// A double sum with Neumaier compensation; merging two keeps the compensation.
class CompensatedSum {
public:
    void add(double value);
    void merge(const CompensatedSum &other);
    double value() const { return m_sum + m_compensation; }

private:
    double m_sum = 0.0;
    double m_compensation = 0.0;
};

struct SampleSqnrSummary {
    double min = 0.0;
    double p5 = 0.0;
    double median = 0.0;
    int64_t stored = 0;  // samples the distribution covers (<= the accumulator's samples)
};

struct ComparisonMetrics {
    int64_t samples = 0;
    int64_t elements = 0;
    double sqnrDb = 0.0;
    double cosine = 0.0;
    double mse = 0.0;
    double maxAbsError = 0.0;
    std::optional<double> rmseOverScale;
    std::optional<double> saturationPct;
    std::optional<SampleSqnrSummary> sampleSqnr;  // nullopt when no sample was stored
    std::vector<double> sampleSqnrValues;         // the stored per-sample SQNRs, in sample order
};

class ComparisonAccumulator;

// The uses of one float value x that one pass over it serves (sweepValue).
// A comparison of x with y: float, or 8-bit read as (q − zeroPoint)·scale (DequantizeLinear).
struct SweepComparison {
    ComparisonAccumulator *into = nullptr;
    DataType type = DataType::Float;  // of y: Float, UInt8 or Int8
    const void *y = nullptr;
    float scale = 1.0f;
    int32_t zeroPoint = 0;
};
// A quantization of x into `out` (UInt8 or Int8), as QuantizeLinear with these parameters.
struct SweepQuantization {
    DataType type = DataType::UInt8;
    void *out = nullptr;
    float scale = 1.0f;
    int32_t zeroPoint = 0;
};

// One pass over x (n elements in `samples` equal samples; every y and out holds n elements in
// x's element order) for all of them, block by block, so that x comes from memory once however
// many uses it has. Each accumulator gets exactly the figures its own add / addDequantized gives
// (the same blocks summed in the same order); each output exactly QuantizeLinear's values.
Status sweepValue(const float *x, int64_t n, int64_t samples,
                  const std::vector<SweepComparison> &comparisons,
                  const std::vector<SweepQuantization> &quantizations);

class ComparisonAccumulator {
public:
    static constexpr int64_t kDefaultSampleCapacity = 65536;  // 512 KB of per-sample SQNR

    explicit ComparisonAccumulator(int64_t sampleCapacity = kDefaultSampleCapacity);

    // A batch of `samples` equal-sized samples, n elements in all (n divisible by samples;
    // samples >= 1 when n > 0). x is the float reference, y the dequantized value.
    Status add(const float *x, const float *y, int64_t n, int64_t samples);

    // The same with y = float(q − zeroPoint)·scale read from a quantized tensor (per-tensor
    // parameters), as DequantizeLinear computes it, without a dequantized copy.
    Status addDequantized(const float *x, const uint8_t *q, int64_t n, int64_t samples, float scale,
                          int32_t zeroPoint);
    Status addDequantized(const float *x, const int8_t *q, int64_t n, int64_t samples, float scale,
                          int32_t zeroPoint);

    // Saturation: from now on every add also counts the float reference values x that the
    // layer's quantizer (scale, zero point, [qmin, qmax]) clips, i.e. whose
    // round(x / scale) + zeroPoint falls outside [qmin, qmax], in the same pass over x. A Relu
    // output's zeros sit exactly on qmin = zero point and are not clipped. scale <= 0: no-op.
    void setQuantizer(float scale, int32_t zeroPoint, int32_t qmin, int32_t qmax);

    // Output quantization scale for rmse/scale; <= 0 or never set -> no rmse/scale.
    void setOutputScale(double scale) { m_outputScale = scale; }

    // Folds another accumulator in (parallel use); the figures equal those of one accumulator
    // fed both streams, up to rounding. The output scale is taken from `other` if unset here.
    void merge(const ComparisonAccumulator &other);

    ComparisonMetrics result() const;
    // The float reference's per-sample min and max, for the samples the SQNR store covers.
    const SampleRanges &sampleRanges() const { return m_sampleRanges; }

    int64_t samples() const { return m_samples; }
    int64_t elements() const { return m_elements; }
    // Σx² and Σ(x − y)² so far: the SQNR's numerator and denominator.
    double signalEnergy() const { return m_sumXX.value(); }
    double noiseEnergy() const { return m_sumEE.value(); }
    int64_t sampleCapacity() const { return m_sampleCapacity; }

private:
    friend Status sweepValue(const float *, int64_t, int64_t, const std::vector<SweepComparison> &,
                             const std::vector<SweepQuantization> &);
    // One sample's sums from sweepValue.
    void addSample(const CompensatedSum &xx, const CompensatedSum &yy, const CompensatedSum &ee,
                   double maxAbsError, double xMin, double xMax, int64_t clipped);
    void storeSample(double sqnrDb, float referenceMin, float referenceMax);

    int64_t m_sampleCapacity;
    int64_t m_samples = 0;
    int64_t m_elements = 0;
    CompensatedSum m_sumXX;
    CompensatedSum m_sumYY;
    CompensatedSum m_sumEE;  // Σ(x−y)²
    double m_maxAbsError = 0.0;
    double m_outputScale = 0.0;
    bool m_clipping = false;  // setQuantizer was called: count clipped values
    // The quantizer's bounds; infinite (nothing to count) until setQuantizer.
    float m_clipLow = -std::numeric_limits<float>::infinity();
    float m_clipHigh = std::numeric_limits<float>::infinity();
    int64_t m_quantizedValues = 0;
    int64_t m_saturatedValues = 0;
    std::vector<double> m_sampleSqnrDb;
    SampleRanges m_sampleRanges;  // parallel to m_sampleSqnrDb
};

}  // namespace ql::analysis

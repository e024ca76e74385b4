#pragma once
// A fixed-size histogram of float values whose range grows with the data, for calibration.
//
// The bin grid is anchored at 0: bin j (j from -negativeBins() to positiveBins()-1) covers
// [j * w, (j + 1) * w). Keeping 0 on an edge makes folding to |x| exact and puts exact zeros
// (Relu outputs, padding) in the first non-negative bin.
//
// The grid is canonical: w is the smallest power of two for which the data's [min(lo, 0),
// max(hi, 0)] fits in the bins, and the split of the spare bins between the sides depends only on
// that range. So the histogram depends on the values seen and not on how they were batched or
// ordered, and merging two histograms equals one histogram fed both: the calibration lab keeps one
// per sample and merges them per run, and `quantize` on those samples gets the same ranges
// whatever its calibration batch size. Growing multiplies w by a power of two and merges
// neighbouring bins: counts move, they are never split or interpolated, so re-binning is exact
// (value / w is exact for a power-of-two w). The price: the data fills between half and all of
// the bins. (ONNX Runtime adds bins instead, PyTorch interpolates.)

#include <cstddef>
#include <cstdint>
#include <vector>

#include "quant/finite_summary.h"

namespace ql::quant {

class Histogram {
public:
    explicit Histogram(int bins = 2048);  // at least 4 bins

    // Adds the finite values; NaN and +-Inf are skipped and counted in nonFiniteCount().
    void add(const float *data, int64_t n);
    // The same, with the data's summary already made (summarizeFinite(data, n)).
    void add(const float *data, int64_t n, const FiniteSummary &summary);
    // Adds everything `other` saw; the result equals one histogram fed both streams. Both must
    // have the same number of bins.
    void merge(const Histogram &other);

    int bins() const { return static_cast<int>(m_counts.size()); }
    double binWidth() const { return m_width; }        // 0 until a nonzero value was seen
    int negativeBins() const { return m_negativeBins; }
    int positiveBins() const { return bins() - m_negativeBins; }
    double lowerEdge() const { return -m_negativeBins * m_width; }
    double upperEdge() const { return positiveBins() * m_width; }
    // Count of bin j in [-negativeBins(), positiveBins()); bin j covers [j*w, (j+1)*w).
    int64_t count(int j) const { return m_counts[static_cast<size_t>(j + m_negativeBins)]; }
    // Counts from the lowest bin to the highest (index 0 is bin -negativeBins()). While
    // binWidth() is 0 every value seen was 0 and they are only in zeroCount().
    const std::vector<int64_t> &counts() const { return m_counts; }

    int64_t total() const { return m_total; }          // finite values added
    int64_t zeroCount() const { return m_zeros; }       // values exactly 0
    int64_t nonFiniteCount() const { return m_nonFinite; }
    bool empty() const { return m_total == 0; }
    float observedMin() const { return m_min; }        // exact; 0 when empty
    float observedMax() const { return m_max; }

    // Histogram of |x|: bin j (0 <= j < size) covers [j*w, (j+1)*w). Exact (grid anchored at 0).
    std::vector<int64_t> absoluteCounts() const;

private:
    // Makes the grid canonical for data spanning [lo, hi] (lo <= 0 <= hi), moving the counts.
    void regrid(double lo, double hi);
    int binOf(float v) const;
    void addCountsOf(const Histogram &other);

    std::vector<int64_t> m_counts;
    int m_negativeBins = 0;
    double m_width = 0.0;
    int64_t m_total = 0, m_zeros = 0, m_nonFinite = 0;
    float m_min = 0.0f, m_max = 0.0f;
};

}  // namespace ql::quant

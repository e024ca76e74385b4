#pragma once
// Observers: running statistics of a float value over calibration batches, and the range
// each derives from them. One observe() call is one batch.
//  * MinMax: the exact min and max of everything seen.
//  * MovingAverageMinMax (PyTorch MovingAverageMinMaxObserver): the first batch sets min/max,
//    then per batch min += c * (batchMin - min), max += c * (batchMax - max), c = 0.01.
//  * Histogram (2048 bins, quant/histogram.h) with Percentile, Entropy or Mse range selection
//    (quant/range_selection.h); with RangeMethod::MinMax it gives the exact min/max.
// NaN and Inf values are skipped and counted (nonFiniteCount()).

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "quant/histogram.h"
#include "quant/qparams.h"

namespace ql::quant {

enum class RangeMethod { MinMax, MovingAverageMinMax, Percentile, Entropy, Mse };

// "minmax", "moving_average", "percentile", "entropy", "mse".
const char *rangeMethodName(RangeMethod method);
// Accepts the names above (case-insensitive), plus "moving-average" / "kl"; false otherwise.
bool parseRangeMethod(const std::string &text, RangeMethod &out);

struct ObserverOptions {
    RangeMethod method = RangeMethod::MinMax;
    double averagingConstant = 0.01;  // MovingAverageMinMax
    int histogramBins = 2048;         // Percentile, Entropy, Mse
    double percentile = 99.999;       // Percentile
    int entropyQuantizedBins = 0;     // Entropy; 0: from the target (entropyQuantizedBinsFor)
    QRangeOptions target;             // Mse and Entropy: the integer grid the range is chosen for
};

class Observer {
public:
    virtual ~Observer() = default;
    virtual void observe(const float *data, int64_t n) = 0;
    // The chosen real range; {0, 0} when nothing finite was observed. Not yet extended to 0:
    // qparamsFromRange does that.
    virtual std::pair<float, float> range() const = 0;
    virtual bool empty() const = 0;
    virtual int64_t nonFiniteCount() const = 0;
    virtual std::unique_ptr<Observer> clone() const = 0;
};

class MinMaxObserver : public Observer {
public:
    void observe(const float *data, int64_t n) override;
    // One batch of n values given by its summary.
    void observe(const FiniteSummary &summary, int64_t n);
    // Adds what `other` saw (min of mins, max of maxes).
    void merge(const MinMaxObserver &other);
    std::pair<float, float> range() const override;
    bool empty() const override { return !m_seen; }
    int64_t nonFiniteCount() const override { return m_nonFinite; }
    std::unique_ptr<Observer> clone() const override { return std::make_unique<MinMaxObserver>(*this); }

private:
    float m_min = 0.0f, m_max = 0.0f;
    bool m_seen = false;
    int64_t m_nonFinite = 0;
};

class MovingAverageMinMaxObserver : public Observer {
public:
    explicit MovingAverageMinMaxObserver(double averagingConstant = 0.01) : m_constant(averagingConstant) {}
    void observe(const float *data, int64_t n) override;
    void observe(const FiniteSummary &summary, int64_t n);
    // One batch given by its finite min and max (a batch assembled from parts observed apart).
    void observeRange(float lo, float hi);
    std::pair<float, float> range() const override;
    bool empty() const override { return !m_seen; }
    int64_t nonFiniteCount() const override { return m_nonFinite; }
    std::unique_ptr<Observer> clone() const override {
        return std::make_unique<MovingAverageMinMaxObserver>(*this);
    }

private:
    double m_constant;
    double m_min = 0.0, m_max = 0.0;
    bool m_seen = false;
    int64_t m_nonFinite = 0;
};

class HistogramObserver : public Observer {
public:
    explicit HistogramObserver(const ObserverOptions &options = {});
    void observe(const float *data, int64_t n) override { m_histogram.add(data, n); }
    void observe(const float *data, int64_t n, const FiniteSummary &summary) {
        m_histogram.add(data, n, summary);
    }
    void merge(const HistogramObserver &other) { m_histogram.merge(other.m_histogram); }
    std::pair<float, float> range() const override { return rangeFor(m_options); }
    // The range another method / percentile / target would choose from the same histogram
    // (MovingAverageMinMax is not derivable from a histogram and gives the exact min/max).
    std::pair<float, float> rangeFor(const ObserverOptions &options) const;
    bool empty() const override { return m_histogram.empty(); }
    int64_t nonFiniteCount() const override { return m_histogram.nonFiniteCount(); }
    std::unique_ptr<Observer> clone() const override { return std::make_unique<HistogramObserver>(*this); }
    const Histogram &histogram() const { return m_histogram; }

private:
    ObserverOptions m_options;
    Histogram m_histogram;
};

// MinMax -> MinMaxObserver, MovingAverageMinMax -> MovingAverageMinMaxObserver,
// Percentile / Entropy / Mse -> HistogramObserver.
std::unique_ptr<Observer> makeObserver(const ObserverOptions &options);

}  // namespace ql::quant

#include "quant/observers.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "quant/range_selection.h"

namespace ql::quant {

const char *rangeMethodName(RangeMethod method) {
    switch (method) {
    case RangeMethod::MinMax: return "minmax";
    case RangeMethod::MovingAverageMinMax: return "moving_average";
    case RangeMethod::Percentile: return "percentile";
    case RangeMethod::Entropy: return "entropy";
    case RangeMethod::Mse: return "mse";
    }
    return "minmax";
}

bool parseRangeMethod(const std::string &text, RangeMethod &out) {
    std::string t;
    for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (t == "minmax") out = RangeMethod::MinMax;
    else if (t == "moving_average" || t == "moving-average" || t == "movingaverage") out = RangeMethod::MovingAverageMinMax;
    else if (t == "percentile") out = RangeMethod::Percentile;
    else if (t == "entropy" || t == "kl") out = RangeMethod::Entropy;
    else if (t == "mse") out = RangeMethod::Mse;
    else return false;
    return true;
}

void MinMaxObserver::observe(const float *data, int64_t n) { observe(summarizeFinite(data, n), n); }

void MinMaxObserver::observe(const FiniteSummary &summary, int64_t n) {
    m_nonFinite += n - summary.finite;
    if (!summary.finite) return;
    m_min = m_seen ? std::min(m_min, summary.lo) : summary.lo;
    m_max = m_seen ? std::max(m_max, summary.hi) : summary.hi;
    m_seen = true;
}

std::pair<float, float> MinMaxObserver::range() const { return {m_min, m_max}; }

void MinMaxObserver::merge(const MinMaxObserver &other) {
    m_nonFinite += other.m_nonFinite;
    if (!other.m_seen) return;
    m_min = m_seen ? std::min(m_min, other.m_min) : other.m_min;
    m_max = m_seen ? std::max(m_max, other.m_max) : other.m_max;
    m_seen = true;
}

void MovingAverageMinMaxObserver::observe(const float *data, int64_t n) {
    observe(summarizeFinite(data, n), n);
}

void MovingAverageMinMaxObserver::observe(const FiniteSummary &summary, int64_t n) {
    m_nonFinite += n - summary.finite;
    if (summary.finite) observeRange(summary.lo, summary.hi);
}

void MovingAverageMinMaxObserver::observeRange(float lo, float hi) {
    if (!m_seen) {
        m_min = lo, m_max = hi, m_seen = true;
        return;
    }
    m_min += m_constant * (lo - m_min);
    m_max += m_constant * (hi - m_max);
}

std::pair<float, float> MovingAverageMinMaxObserver::range() const {
    return {static_cast<float>(m_min), static_cast<float>(m_max)};
}

HistogramObserver::HistogramObserver(const ObserverOptions &options)
    : m_options(options), m_histogram(options.histogramBins) {}

std::pair<float, float> HistogramObserver::rangeFor(const ObserverOptions &options) const {
    switch (options.method) {
    case RangeMethod::Percentile: return percentileRange(m_histogram, options.percentile);
    case RangeMethod::Entropy:
        return entropyRange(m_histogram, options.entropyQuantizedBins > 0
                                             ? options.entropyQuantizedBins
                                             : entropyQuantizedBinsFor(m_histogram, options.target));
    case RangeMethod::Mse: return mseRange(m_histogram, options.target);
    case RangeMethod::MinMax:
    case RangeMethod::MovingAverageMinMax: break;
    }
    return {m_histogram.observedMin(), m_histogram.observedMax()};
}

std::unique_ptr<Observer> makeObserver(const ObserverOptions &options) {
    switch (options.method) {
    case RangeMethod::MinMax: return std::make_unique<MinMaxObserver>();
    case RangeMethod::MovingAverageMinMax: return std::make_unique<MovingAverageMinMaxObserver>(options.averagingConstant);
    case RangeMethod::Percentile:
    case RangeMethod::Entropy:
    case RangeMethod::Mse: break;
    }
    return std::make_unique<HistogramObserver>(options);
}

}  // namespace ql::quant

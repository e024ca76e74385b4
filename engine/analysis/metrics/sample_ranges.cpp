#include "analysis/metrics/sample_ranges.h"

#include <algorithm>
#include <cmath>

namespace ql::analysis {

double SampleRanges::absMax(size_t sample) const {
    return std::max(-double(min[sample]), double(max[sample]));
}

std::optional<SampleRangeSummary> summarizeSampleRanges(const SampleRanges &ranges,
                                                        double degenerateRelative) {
    if (ranges.empty() || ranges.max.size() != ranges.min.size()) return std::nullopt;
    SampleRangeSummary s;
    s.samples = static_cast<int64_t>(ranges.size());
    double largest = 0.0;
    for (size_t i = 0; i < ranges.size(); ++i) {
        const double r = ranges.range(i);
        if (std::isnan(r)) return s;  // NaN input: every figure NaN
        largest = std::max(largest, r);
    }
    s.largest = largest;
    const double floor = largest * degenerateRelative;
    double smallest = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < ranges.size(); ++i) {
        const double r = ranges.range(i);
        if (largest == 0.0 || r <= floor)
            ++s.degenerate;
        else
            smallest = std::min(smallest, r);
    }
    if (s.degenerate < s.samples) {
        s.smallest = smallest;
        s.ratio = largest / smallest;
    }
    return s;
}

}  // namespace ql::analysis

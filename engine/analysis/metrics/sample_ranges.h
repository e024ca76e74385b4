#pragma once
// Per-sample value ranges of a float activation and how much they vary between samples. One int8
// scale serves every sample, so a layer whose output range differs 40x between inputs either
// clips the wide samples or spends most of its 256 levels on values the narrow ones never reach:
// its error depends on the data (diagnosis.h, ActivationRangeVaries).
//
// A sample's range is max − min over its elements (computed in double); its largest magnitude
// max|x| is max(−min, max), so it is not stored separately.
//
// Degenerate samples: a range at most kDegenerateRangeRelative times the largest range (an
// all-zero Relu output, a constant map) says nothing about the scale the layer needs, and its
// ratio to the others would be absurd (infinite for an all-zero sample). Such samples are left
// out of `smallest` and `ratio` and counted in `degenerate`.

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace ql::analysis {

constexpr double kDegenerateRangeRelative = 1e-6;

struct SampleRanges {
    std::vector<float> min, max;  // per sample, in sample order (equal lengths)

    size_t size() const { return min.size(); }
    bool empty() const { return min.empty(); }
    double range(size_t sample) const { return double(max[sample]) - double(min[sample]); }
    double absMax(size_t sample) const;
};

struct SampleRangeSummary {
    int64_t samples = 0;     // samples summarised
    int64_t degenerate = 0;  // samples left out of `smallest` and `ratio`
    double smallest = std::numeric_limits<double>::quiet_NaN();  // smallest non-degenerate range
    double largest = std::numeric_limits<double>::quiet_NaN();   // largest range
    // largest / smallest (1 with a single non-degenerate sample). NaN when every range is
    // degenerate (e.g. all zero) or a sample held NaN (no order exists; nothing is guessed).
    double ratio = std::numeric_limits<double>::quiet_NaN();
};

// nullopt when there are no samples.
std::optional<SampleRangeSummary> summarizeSampleRanges(
    const SampleRanges &ranges, double degenerateRelative = kDegenerateRangeRelative);

}  // namespace ql::analysis

#include "analysis/suite/worst_samples.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ql::analysis {
namespace {

// Sample indices by ascending SQNR. NaN (an all-zero sample: no figure) sorts last; -inf (nothing
// of the float output survived) sorts first as the smallest value. Stable: ties keep sample order.
std::vector<size_t> bySqnr(const std::vector<double> &sqnr) {
    std::vector<size_t> order(sqnr.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&sqnr](size_t a, size_t b) {
        const double x = sqnr[a], y = sqnr[b];
        return std::isnan(y) ? !std::isnan(x) : x < y;
    });
    return order;
}

}  // namespace

std::vector<WorstSample> worstSamples(const OutputReport &output,
                                      const std::vector<int64_t> &labels, int lowest,
                                      int maxFlips) {
    const size_t samples = output.sampleSqnrDb.size();
    const bool predictions =
        output.floatTop1.size() == samples && output.quantTop1.size() == samples;
    const bool labelled = labels.size() == samples;
    const size_t lowestCount = size_t(std::max(lowest, 0));
    std::vector<WorstSample> worst;
    int flips = 0;
    const std::vector<size_t> order = bySqnr(output.sampleSqnrDb);
    for (size_t rank = 0; rank < samples; ++rank) {
        const size_t i = order[rank];
        const bool flipped = predictions && output.floatTop1[i] != output.quantTop1[i];
        if (rank >= lowestCount && (!flipped || flips >= maxFlips)) continue;
        if (flipped) ++flips;
        WorstSample sample;
        sample.index = int64_t(i);
        sample.sqnrDb = output.sampleSqnrDb[i];
        if (labelled) sample.label = labels[i];
        if (predictions) {
            sample.floatTop1 = output.floatTop1[i];
            sample.quantTop1 = output.quantTop1[i];
        }
        sample.flipped = flipped;
        worst.push_back(sample);
    }
    return worst;
}

}  // namespace ql::analysis

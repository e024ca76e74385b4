#pragma once
// The evaluation samples to look at first after an analysis: those with the lowest output SQNR
// and those whose top-1 class changes under quantization. Shared by `quantlens analyze`'s
// worst_samples and the GUI's thumbnail strip, so both name the same samples in the same order.

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/suite/numeric_suite.h"

namespace ql::analysis {

struct WorstSample {
    int64_t index = 0;                            // evaluation sample
    double sqnrDb = 0.0;                          // its output SQNR (may be NaN or -inf)
    std::optional<int64_t> label;                 // when labels are known
    std::optional<int64_t> floatTop1, quantTop1;  // classifier outputs only
    bool flipped = false;                         // top-1 differs between float and int8
};

// The `lowest` lowest-SQNR samples and every top-1 flip (at most maxFlips), lowest SQNR first
// (NaN last, -inf first). labels: per sample or empty.
//
// Flips among the `lowest` are always kept and count towards maxFlips; the cap only limits the
// flips added beyond them. Predictions (and so flips) exist when the output report has one top-1
// per sample for both models; labels are used when there is one per sample.
std::vector<WorstSample> worstSamples(const OutputReport &output,
                                      const std::vector<int64_t> &labels, int lowest = 10,
                                      int maxFlips = 100);

}  // namespace ql::analysis

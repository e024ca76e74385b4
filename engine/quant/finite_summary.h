#pragma once
// One pass over a calibration value that every observer shares: the finite values' min, max and
// count, and the count of exact zeros. Vectorised and split over the OpenMP threads for large
// values, so the statistics of a batch cost about one read of each activation.

#include <cstdint>

namespace ql::quant {

struct FiniteSummary {
    float lo = 0.0f, hi = 0.0f;  // of the finite values; 0 when there are none
    int64_t finite = 0, zeros = 0;
};

FiniteSummary summarizeFinite(const float *data, int64_t n);

}  // namespace ql::quant

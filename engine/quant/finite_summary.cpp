#include "quant/finite_summary.h"

#include <cfloat>
#include <cmath>

namespace ql::quant {

FiniteSummary summarizeFinite(const float *data, int64_t n) {
    float lo = FLT_MAX, hi = -FLT_MAX;
    int64_t finite = 0, zeros = 0;
    // |v| <= FLT_MAX is false for NaN and +-Inf, and vectorises (std::isfinite does not).
#pragma omp parallel for simd reduction(min : lo) reduction(max : hi) reduction(+ : finite, zeros) \
    if (n > (1 << 16))
    for (int64_t i = 0; i < n; ++i) {
        const float v = data[i];
        const bool isFinite = std::fabs(v) <= FLT_MAX;
        finite += isFinite;
        zeros += v == 0.0f;
        lo = isFinite && v < lo ? v : lo;
        hi = isFinite && v > hi ? v : hi;
    }
    if (finite == 0) return {};
    return {lo, hi, finite, zeros};
}

}  // namespace ql::quant

#include "quant/finite_summary.h"

#include <omp.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace ql::quant {

namespace {

// Compiled for AVX-512, AVX2 and baseline x86-64 (clang, the fuzz build, cannot clone). A
// function of its own because OpenMP's outlined loop bodies would not inherit the clones.
#if defined(__clang__)
#define QL_SUMMARY_CLONES
#else
#define QL_SUMMARY_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
QL_SUMMARY_CLONES FiniteSummary summarizeChunk(const float *data, int64_t n) {
    float lo = FLT_MAX, hi = -FLT_MAX;
    int64_t finite = 0, zeros = 0;
    // |v| <= FLT_MAX is false for NaN and +-Inf, and vectorises (std::isfinite does not).
#pragma omp simd reduction(min : lo) reduction(max : hi) reduction(+ : finite, zeros)
    for (int64_t i = 0; i < n; ++i) {
        const float v = data[i];
        const bool isFinite = std::fabs(v) <= FLT_MAX;
        finite += isFinite;
        zeros += v == 0.0f;
        lo = isFinite && v < lo ? v : lo;
        hi = isFinite && v > hi ? v : hi;
    }
    return {lo, hi, finite, zeros};
}
#undef QL_SUMMARY_CLONES

}  // namespace

FiniteSummary summarizeFinite(const float *data, int64_t n) {
    FiniteSummary total = summarizeChunk(data, 0);  // the empty summary, with +-FLT_MAX bounds
    const int threads = n > (1 << 16) ? omp_get_max_threads() : 1;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
        const int64_t parts = omp_get_num_threads(), part = omp_get_thread_num();
        const int64_t begin = n * part / parts, end = n * (part + 1) / parts;
        const FiniteSummary s = summarizeChunk(data + begin, end - begin);
#pragma omp critical(ql_finite_summary)
        {
            total.lo = std::min(total.lo, s.lo);
            total.hi = std::max(total.hi, s.hi);
            total.finite += s.finite;
            total.zeros += s.zeros;
        }
    }
    if (total.finite == 0) return {};
    return total;
}

}  // namespace ql::quant

#pragma once
// Internal to the elementwise and binary kernel families: a parallel loop helper, dtype
// dispatch and dtype conversion (the heart of Cast).

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/status.h"
#include "ir/tensor.h"
#include "kernels/type_dispatch.h"

namespace ql::elementwise {

// Compiles a hot float loop for AVX-512, AVX2 and baseline x86-64 and picks one at load time
// (the engine itself targets generic x86-64). Bodies it calls must be always-inline. Clang (the
// fuzz build) cannot clone function templates: there the loops stay baseline.
#if defined(__clang__)
#define QL_SIMD_CLONES
#else
#define QL_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
#define QL_ALWAYS_INLINE __attribute__((always_inline)) inline

// Below this many elements a loop stays on the calling thread.
constexpr int64_t kParallelThreshold = int64_t(1) << 16;

// Calls fn(begin, end) over [0, n), split across the OpenMP threads when n is large.
// Chunk starts are multiples of 64 elements so threads do not share cache lines.
template <class Fn>
void parallelRange(int64_t n, Fn &&fn, int64_t threshold = kParallelThreshold) {
    if (n <= 0) return;
    const int maxThreads = omp_get_max_threads();
    if (n < threshold || maxThreads <= 1 || omp_in_parallel()) {
        fn(int64_t(0), n);
        return;
    }
#pragma omp parallel
    {
        const int64_t threads = omp_get_num_threads();
        const int64_t t = omp_get_thread_num();
        int64_t chunk = (n + threads - 1) / threads;
        chunk = (chunk + 63) / 64 * 64;
        const int64_t begin = std::min(n, t * chunk);
        const int64_t end = std::min(n, begin + chunk);
        if (begin < end) fn(begin, end);
    }
}

// Calls fn(T{}) for the C++ type of a numeric dtype; false for bool, half types and others.
template <class Fn>
bool dispatchNumeric(DataType type, Fn &&fn) {
    return dispatchAmong<float, double, int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t,
                         uint32_t, uint64_t>(type, fn);
}

inline bool isHalfType(DataType type) {
    return type == DataType::Float16 || type == DataType::BFloat16;
}

// A new tensor of `to` with the same shape and layout, converted per ONNX Cast: floats to
// integers truncate toward zero, anything to bool is "!= 0", float16/bfloat16 round to
// nearest even. Unsupported for string and undefined types.
Result<Tensor> castTensor(const Tensor &input, DataType to);
enum class BFloat16Rounding { NearestEven, Truncate };
// Converts into existing storage of the same element count (layout is the caller's concern).
// saturateFloat8: Cast-19's saturate for float8 targets.
Status castInto(const Tensor &input, Tensor &output,
                BFloat16Rounding rounding = BFloat16Rounding::NearestEven,
                bool saturateFloat8 = true);

}  // namespace ql::elementwise

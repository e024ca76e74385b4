#pragma once
// Internal to the elementwise and binary kernel families: a parallel loop helper, dtype
// dispatch, dtype conversion (the heart of Cast) and vectorisable float exp/erf.

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "core/status.h"
#include "ir/tensor.h"

namespace ql::elementwise {

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
    switch (type) {
        case DataType::Float: fn(float{}); return true;
        case DataType::Double: fn(double{}); return true;
        case DataType::Int8: fn(int8_t{}); return true;
        case DataType::Int16: fn(int16_t{}); return true;
        case DataType::Int32: fn(int32_t{}); return true;
        case DataType::Int64: fn(int64_t{}); return true;
        case DataType::UInt8: fn(uint8_t{}); return true;
        case DataType::UInt16: fn(uint16_t{}); return true;
        case DataType::UInt32: fn(uint32_t{}); return true;
        case DataType::UInt64: fn(uint64_t{}); return true;
        default: return false;
    }
}

inline bool isHalfType(DataType type) {
    return type == DataType::Float16 || type == DataType::BFloat16;
}

// A new tensor of `to` with the same shape and layout, converted per ONNX Cast: floats to
// integers truncate toward zero, anything to bool is "!= 0", float16/bfloat16 round to
// nearest even. Unsupported for string and undefined types.
Result<Tensor> castTensor(const Tensor &input, DataType to);
// Converts into existing storage of the same element count (layout is the caller's concern).
Status castInto(const Tensor &input, Tensor &output);

// Bit-level float helpers: GCC vectorises these, while a `c ? f(x) : g(x)` whose arms can
// raise FP exceptions stays a branch under the default -ftrapping-math.
inline int32_t floatBits(float f) {
    union { float f; int32_t i; } u;
    u.f = f;
    return u.i;
}
inline float bitsFloat(int32_t i) {
    union { int32_t i; float f; } u;
    u.i = i;
    return u.f;
}
inline float selectFloat(bool condition, float a, float b) {
    const int32_t mask = -static_cast<int32_t>(condition);
    return bitsFloat((floatBits(a) & mask) | (floatBits(b) & ~mask));
}

// exp(x) for float with ~2 ulp error, written so GCC vectorises loops that call it.
inline float fastExp(float x) {
    x = x < -87.33f ? -87.33f : x;
    x = x > 88.37f ? 88.37f : x;  // keeps 2^n a normal float
    // n = round(x / ln2) by the 1.5 * 2^23 trick (exact for |n| < 2^22).
    const float n = (x * 1.44269504f + 12582912.0f) - 12582912.0f;
    const float r = (x - n * 0.693145752f) - n * 1.42860677e-6f;  // two-part ln2 keeps r exact
    // Taylor series of e^r to degree 7 for |r| <= ln2/2: error below 1e-8.
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    return p * bitsFloat((static_cast<int32_t>(n) + 127) << 23);
}

// erf(x) for float, absolute error below 5e-7: a Taylor series near zero (keeps relative
// accuracy for tiny x) and Abramowitz & Stegun 7.1.26 elsewhere. Vectorisable.
inline float fastErf(float x) {
    const float ax = std::fabs(x);
    const float x2 = x * x;
    // 2/sqrt(pi) * (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320)
    float s = -1.0f / 1320.0f;
    s = s * x2 + 1.0f / 216.0f;
    s = s * x2 - 1.0f / 42.0f;
    s = s * x2 + 1.0f / 10.0f;
    s = s * x2 - 1.0f / 3.0f;
    s = s * x2 + 1.0f;
    const float small = 1.12837917f * x * s;
    const float t = 1.0f / (1.0f + 0.3275911f * ax);
    float q = 1.061405429f;
    q = q * t - 1.453152027f;
    q = q * t + 1.421413741f;
    q = q * t - 0.284496736f;
    q = q * t + 0.254829592f;
    const float large = 1.0f - q * t * fastExp(-x2);
    // Sign of x onto `large`, then pick by magnitude.
    const float signedLarge = bitsFloat(floatBits(large) | (floatBits(x) & int32_t(0x80000000u)));
    return selectFloat(ax < 0.5f, small, signedLarge);
}

}  // namespace ql::elementwise

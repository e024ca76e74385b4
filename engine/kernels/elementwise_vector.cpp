// Explicitly vectorised float loops for transcendental unary ops. GCC vector extensions make
// the SIMD code portable; target_clones compiles each loop for AVX-512, AVX2 and baseline
// SSE2 and picks one at load time, since the engine itself is built for generic x86-64.

#include <cstring>

#include "kernels/elementwise_vector.h"

#pragma GCC diagnostic ignored "-Wpsabi"

namespace ql::elementwise {

namespace {

constexpr int kLanes = 16;
typedef float FloatV __attribute__((vector_size(kLanes * sizeof(float))));
typedef int32_t IntV __attribute__((vector_size(kLanes * sizeof(int32_t))));

#define QL_INLINE __attribute__((always_inline)) inline

// e^x, ~2 ulp: round x/ln2 to n by the 1.5 * 2^23 trick, a degree-5 polynomial for e^r on
// |r| <= ln2/2 (coefficients fitted for minimax relative error, 1.4e-7 in float), scale by 2^n
// built in the exponent bits. Degree 5 instead of 7 saves FMA-port time, which bounds this loop.
QL_INLINE void expV(FloatV &x) {
    x = x < -87.33f ? -87.33f : x;
    x = x > 88.37f ? 88.37f : x;  // keeps 2^n a normal float
    const FloatV n = (x * 1.44269504f + 12582912.0f) - 12582912.0f;
    const FloatV r = (x - n * 0.693145752f) - n * 1.42860677e-6f;  // two-part ln2 keeps r exact
    FloatV p = r * 0.008297654800117016f + 0.04191538318991661f;
    p = p * r + 0.16667574644088745f;
    p = p * r + 0.49998894333839417f;
    p = p * r + 0.9999997019767761f;
    p = p * r + 1.0000001192092896f;
    const IntV scale = (__builtin_convertvector(n, IntV) + 127) << 23;
    x = p * (FloatV)scale;  // a vector cast reinterprets the bits
}

// erf: an odd Taylor series for |x| < 0.5 (keeps relative accuracy for tiny x), Abramowitz &
// Stegun 7.1.26 (absolute error 1.5e-7) elsewhere.
QL_INLINE void erfV(FloatV &x) {
    const IntV bits = (IntV)x;
    const IntV sign = bits & static_cast<int32_t>(0x80000000u);
    const FloatV ax = (FloatV)(bits & 0x7fffffff);
    const FloatV x2 = x * x;
    FloatV s = x2 * (-1.0f / 1320.0f) + 1.0f / 216.0f;
    s = s * x2 - 1.0f / 42.0f;
    s = s * x2 + 1.0f / 10.0f;
    s = s * x2 - 1.0f / 3.0f;
    s = s * x2 + 1.0f;
    const FloatV small = 1.12837917f * x * s;
    const FloatV t = 1.0f / (1.0f + 0.3275911f * ax);
    FloatV q = t * 1.061405429f - 1.453152027f;
    q = q * t + 1.421413741f;
    q = q * t - 0.284496736f;
    q = q * t + 0.254829592f;
    FloatV e = -x2;
    expV(e);
    const FloatV large = 1.0f - q * t * e;
    x = ax < 0.5f ? small : (FloatV)((IntV)large | sign);
}

// GELU as exporters write it, x * (1 + erf(x / sqrt(2))) * 0.5, with the erf above: the same
// figures as the unfused chain (passes/fuse_gelu.h) to an ulp.
QL_INLINE void geluV(FloatV &x) {
    FloatV e = x * 0.70710678118654752f;
    erfV(e);
    x = x * (1.0f + e) * 0.5f;
}

QL_INLINE void sigmoidV(FloatV &x) {
    FloatV e = -x;
    expV(e);
    x = 1.0f / (1.0f + e);
}

// tanh(x) = 1 - 2 / (e^2x + 1), with an odd Taylor polynomial near zero where that formula
// would cancel.
QL_INLINE void tanhV(FloatV &x) {
    // Taylor coefficients of tanh up to x^13: error below 1e-7 relative for |x| < 0.5.
    const FloatV x2 = x * x;
    FloatV p = x2 * (21844.0f / 6081075.0f) - 1382.0f / 155925.0f;
    p = p * x2 + 62.0f / 2835.0f;
    p = p * x2 - 17.0f / 315.0f;
    p = p * x2 + 2.0f / 15.0f;
    p = p * x2 - 1.0f / 3.0f;
    const FloatV small = x + x * x2 * p;
    FloatV e = x + x;
    expV(e);
    const FloatV large = 1.0f - 2.0f / (e + 1.0f);
    x = x2 < 0.25f ? small : large;
}

// Full vectors straight from memory, the tail through a zero-padded vector.
template <void (*Op)(FloatV &)>
QL_INLINE void bulk(const float *in, float *out, int64_t n) {
    int64_t i = 0;
    for (; i + kLanes <= n; i += kLanes) {
        FloatV v;
        std::memcpy(&v, in + i, sizeof v);
        Op(v);
        std::memcpy(out + i, &v, sizeof v);
    }
    if (i < n) {
        FloatV v = {};
        const size_t bytes = static_cast<size_t>(n - i) * sizeof(float);
        std::memcpy(&v, in + i, bytes);
        Op(v);
        std::memcpy(out + i, &v, bytes);
    }
}

}  // namespace

#define QL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

QL_CLONES void expFloat(const float *in, float *out, int64_t n) {
    bulk<expV>(in, out, n);
}
QL_CLONES void erfFloat(const float *in, float *out, int64_t n) {
    bulk<erfV>(in, out, n);
}
QL_CLONES void geluFloat(const float *in, float *out, int64_t n) {
    bulk<geluV>(in, out, n);
}
QL_CLONES void sigmoidFloat(const float *in, float *out, int64_t n) {
    bulk<sigmoidV>(in, out, n);
}
QL_CLONES void tanhFloat(const float *in, float *out, int64_t n) {
    bulk<tanhV>(in, out, n);
}

}  // namespace ql::elementwise

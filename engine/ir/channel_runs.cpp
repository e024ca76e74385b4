#include "ir/channel_runs.h"

#include <limits>

namespace ql {
namespace {

template <class Wide, class Q>
__attribute__((always_inline)) inline void dequantizeLoop(const Q *src, float *dst, int64_t n,
                                                          float scale, int32_t zeroPoint) {
    for (int64_t i = 0; i < n; ++i)
        dst[i] = static_cast<float>(static_cast<Wide>(src[i]) - static_cast<Wide>(zeroPoint)) * scale;
}

template <class Q>
__attribute__((always_inline)) inline void quantizeLoop(const float *src, Q *dst, int64_t n,
                                                        float scale, int32_t zeroPoint) {
    const float z = static_cast<float>(zeroPoint);
    const float lo = static_cast<float>(std::numeric_limits<Q>::min()) - z;
    const float hi = static_cast<float>(std::numeric_limits<Q>::max()) - z;
    for (int64_t i = 0; i < n; ++i)
        dst[i] = static_cast<Q>(static_cast<int32_t>(clampRound(src[i] / scale, lo, hi)) + zeroPoint);
}

}  // namespace

// Compiled for AVX-512, AVX2 and baseline x86-64 (clang, the fuzz build, cannot clone).
#if defined(__clang__)
#define QL_DEQUANTIZE_CLONES
#else
#define QL_DEQUANTIZE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif
QL_DEQUANTIZE_CLONES void dequantizeValues(const uint8_t *q, float *dst, int64_t n, float scale,
                                           int32_t zeroPoint) {
    dequantizeLoop<int32_t>(q, dst, n, scale, zeroPoint);
}
QL_DEQUANTIZE_CLONES void dequantizeValues(const int8_t *q, float *dst, int64_t n, float scale,
                                           int32_t zeroPoint) {
    dequantizeLoop<int32_t>(q, dst, n, scale, zeroPoint);
}
QL_DEQUANTIZE_CLONES void dequantizeValues(const int32_t *q, float *dst, int64_t n, float scale,
                                           int32_t zeroPoint) {
    dequantizeLoop<int64_t>(q, dst, n, scale, zeroPoint);
}
QL_DEQUANTIZE_CLONES void quantizeValues(const float *src, uint8_t *dst, int64_t n, float scale,
                                         int32_t zeroPoint) {
    quantizeLoop(src, dst, n, scale, zeroPoint);
}
QL_DEQUANTIZE_CLONES void quantizeValues(const float *src, int8_t *dst, int64_t n, float scale,
                                         int32_t zeroPoint) {
    quantizeLoop(src, dst, n, scale, zeroPoint);
}
#undef QL_DEQUANTIZE_CLONES

Tensor dequantizeToFloat(const Tensor &quantized, const std::vector<float> &scale,
                         const std::vector<int32_t> &zeroPoint, int64_t axis) {
    const Tensor q = quantized.toPlain();
    Tensor out(DataType::Float, q.shape());
    float *dst = out.data<float>();
    forEachChannelRun(
        q.shape(), scale.size() > 1 ? axis : -1, [&](int64_t start, int64_t count, int64_t c) {
            const float s = scale[static_cast<size_t>(c)];
            const int32_t z = zeroPoint[static_cast<size_t>(c)];
            switch (q.dtype()) {
                case DataType::UInt8:
                    return dequantizeValues(q.data<uint8_t>() + start, dst + start, count, s,
                                                  z);
                case DataType::Int8:
                    return dequantizeValues(q.data<int8_t>() + start, dst + start, count, s,
                                                  z);
                case DataType::Int32:
                    return dequantizeValues(q.data<int32_t>() + start, dst + start, count, s,
                                                  z);
                default:
                    for (int64_t i = start; i < start + count; ++i)
                        dst[i] =
                            static_cast<float>(static_cast<int64_t>(q.valueAsDouble(i)) - z) * s;
            }
        });
    return out;
}

}  // namespace ql

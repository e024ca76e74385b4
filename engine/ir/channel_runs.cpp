#include "ir/channel_runs.h"

#include <algorithm>
#include <limits>

namespace ql {
namespace {

template <class Wide, class Q>
__attribute__((always_inline)) inline void dequantizeLoop(const Q *src, float *dst, int64_t n,
                                                          float scale, int32_t zeroPoint) {
    for (int64_t i = 0; i < n; ++i)
        dst[i] = static_cast<float>(static_cast<Wide>(src[i]) - static_cast<Wide>(zeroPoint)) * scale;
}

// One scale and zero point per element: consecutive channels of an innermost channel axis.
template <class Wide, class Q>
__attribute__((always_inline)) inline void dequantizeChannelLoop(const Q *src, float *dst,
                                                                 int64_t n, const float *scale,
                                                                 const int32_t *zeroPoint) {
    for (int64_t i = 0; i < n; ++i)
        dst[i] = static_cast<float>(static_cast<Wide>(src[i]) - static_cast<Wide>(zeroPoint[i])) *
                 scale[i];
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

// One scale and zero point per element.
template <class Q>
__attribute__((always_inline)) inline void quantizeChannelLoop(const float *src, Q *dst, int64_t n,
                                                               const float *scale,
                                                               const int32_t *zeroPoint) {
    constexpr float qmin = static_cast<float>(std::numeric_limits<Q>::min());
    constexpr float qmax = static_cast<float>(std::numeric_limits<Q>::max());
    for (int64_t i = 0; i < n; ++i) {
        const float z = static_cast<float>(zeroPoint[i]);
        dst[i] = static_cast<Q>(static_cast<int32_t>(clampRound(src[i] / scale[i], qmin - z, qmax - z)) +
                                zeroPoint[i]);
    }
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
QL_DEQUANTIZE_CLONES void dequantizeValues(const uint16_t *q, float *dst, int64_t n, float scale,
                                           int32_t zeroPoint) {
    dequantizeLoop<int32_t>(q, dst, n, scale, zeroPoint);
}
QL_DEQUANTIZE_CLONES void dequantizeValues(const int16_t *q, float *dst, int64_t n, float scale,
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
QL_DEQUANTIZE_CLONES void quantizeValues(const float *src, uint16_t *dst, int64_t n, float scale,
                                         int32_t zeroPoint) {
    quantizeLoop(src, dst, n, scale, zeroPoint);
}
QL_DEQUANTIZE_CLONES void quantizeValues(const float *src, int16_t *dst, int64_t n, float scale,
                                         int32_t zeroPoint) {
    quantizeLoop(src, dst, n, scale, zeroPoint);
}

QL_DEQUANTIZE_CLONES void dequantizeChannels(const uint8_t *q, float *dst, int64_t n,
                                             const float *scale, const int32_t *zeroPoint) {
    dequantizeChannelLoop<int32_t>(q, dst, n, scale, zeroPoint);
}
QL_DEQUANTIZE_CLONES void dequantizeChannels(const int8_t *q, float *dst, int64_t n,
                                             const float *scale, const int32_t *zeroPoint) {
    dequantizeChannelLoop<int32_t>(q, dst, n, scale, zeroPoint);
}
QL_DEQUANTIZE_CLONES void dequantizeChannels(const uint16_t *q, float *dst, int64_t n,
                                             const float *scale, const int32_t *zeroPoint) {
    dequantizeChannelLoop<int32_t>(q, dst, n, scale, zeroPoint);
}
QL_DEQUANTIZE_CLONES void dequantizeChannels(const int16_t *q, float *dst, int64_t n,
                                             const float *scale, const int32_t *zeroPoint) {
    dequantizeChannelLoop<int32_t>(q, dst, n, scale, zeroPoint);
}
QL_DEQUANTIZE_CLONES void dequantizeChannels(const int32_t *q, float *dst, int64_t n,
                                             const float *scale, const int32_t *zeroPoint) {
    dequantizeChannelLoop<int64_t>(q, dst, n, scale, zeroPoint);
}
QL_DEQUANTIZE_CLONES void quantizeChannels(const float *src, uint8_t *dst, int64_t n,
                                           const float *scale, const int32_t *zeroPoint) {
    quantizeChannelLoop(src, dst, n, scale, zeroPoint);
}
QL_DEQUANTIZE_CLONES void quantizeChannels(const float *src, int8_t *dst, int64_t n,
                                           const float *scale, const int32_t *zeroPoint) {
    quantizeChannelLoop(src, dst, n, scale, zeroPoint);
}
#undef QL_DEQUANTIZE_CLONES

namespace {

// One scale and zero point for a whole run, or one per element (consecutive channels of an
// innermost channel axis).
struct OneScale {
    float scale;
    int32_t zeroPoint;
    template <class Q>
    void dequantize(const Q *q, float *dst, int64_t n) const {
        dequantizeValues(q, dst, n, scale, zeroPoint);
    }
    float scaleAt(int64_t) const { return scale; }
    int32_t zeroPointAt(int64_t) const { return zeroPoint; }
};

struct ScalePerElement {
    const float *scale;
    const int32_t *zeroPoint;
    template <class Q>
    void dequantize(const Q *q, float *dst, int64_t n) const {
        dequantizeChannels(q, dst, n, scale, zeroPoint);
    }
    float scaleAt(int64_t i) const { return scale[i]; }
    int32_t zeroPointAt(int64_t i) const { return zeroPoint[i]; }
};

// Elements [start, start + count) of q dequantized with `params` into dst.
template <class Params>
void dequantizeRun(const Tensor &q, int64_t start, int64_t count, const Params &params,
                   float *dst) {
    switch (storageType(q.dtype())) {  // 4-bit values are held a byte each
        case DataType::UInt8:
            return params.dequantize(q.data<uint8_t>() + start, dst, count);
        case DataType::Int8:
            return params.dequantize(q.data<int8_t>() + start, dst, count);
        case DataType::UInt16:
            return params.dequantize(q.data<uint16_t>() + start, dst, count);
        case DataType::Int16:
            return params.dequantize(q.data<int16_t>() + start, dst, count);
        case DataType::Int32:
            return params.dequantize(q.data<int32_t>() + start, dst, count);
        default:  // others: element by element in storage order (any layout)
            for (int64_t i = 0; i < count; ++i)
                dst[i] = static_cast<float>(static_cast<int64_t>(elementAsDouble(
                                                q.dtype(), q.rawData(), start + i)) -
                                            params.zeroPointAt(i)) *
                         params.scaleAt(i);
    }
}

}  // namespace

void dequantizeSpan(const Tensor &q, const std::vector<float> &scale,
                    const std::vector<int32_t> &zeroPoint, int64_t axis, int64_t start,
                    int64_t count, float *dst) {
    const Shape &shape = q.shape();
    if (scale.size() <= 1 || axis < 0 || axis >= static_cast<int64_t>(shape.size())) {
        if (count > 0) dequantizeRun(q, start, count, OneScale{scale.at(0), zeroPoint.at(0)}, dst);
        return;
    }
    const int64_t channels = shape[static_cast<size_t>(axis)];
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    if (channels <= 0 || inner <= 0) return;
    if (inner == 1) {
        // A row at a time: from channel start % channels to the row's end.
        while (count > 0) {
            const int64_t c = start % channels;
            const int64_t run = std::min(count, channels - c);
            dequantizeRun(q, start, run, ScalePerElement{scale.data() + c, zeroPoint.data() + c},
                          dst);
            start += run, dst += run, count -= run;
        }
        return;
    }
    while (count > 0) {
        const size_t c = static_cast<size_t>((start / inner) % channels);
        const int64_t run = std::min(count, inner - start % inner);
        dequantizeRun(q, start, run, OneScale{scale[c], zeroPoint[c]}, dst);
        start += run, dst += run, count -= run;
    }
}

Tensor dequantizeToFloat(const Tensor &quantized, const std::vector<float> &scale,
                         const std::vector<int32_t> &zeroPoint, int64_t axis) {
    const Tensor q = quantized.toPlain();
    Tensor out = Tensor::uninitialized(DataType::Float, q.shape());
    dequantizeSpan(q, scale, zeroPoint, scale.size() > 1 ? axis : -1, 0, q.numel(),
                   out.data<float>());
    return out;
}

Tensor dequantizeBlocksToFloat(const Tensor &quantized, const std::vector<float> &scale,
                               const std::vector<int32_t> &zeroPoint, int64_t axis,
                               int64_t blockSize) {
    const Tensor q = quantized.toPlain();
    Tensor out = Tensor::uninitialized(DataType::Float, q.shape());
    float *dst = out.data<float>();
    const BlockScaleIndex at(q.shape(), axis, blockSize);
    for (int64_t i = 0; i < q.numel(); ++i) {
        const size_t k = static_cast<size_t>(at(i));
        dst[i] = static_cast<float>(q.valueAsDouble(i) - zeroPoint.at(k)) * scale.at(k);
    }
    return out;
}

}  // namespace ql

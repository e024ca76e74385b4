#pragma once
// Walking a plain tensor channel by channel along one axis, a contiguous run at a time, so that
// per-channel loops (quantization parameters, per-channel sums) stay tight and vectorise
// instead of dividing every flat index by the inner size.

#include <cstdint>
#include <vector>

#include "ir/tensor.h"

namespace ql {

// Calls fn(start, count, channel) for every run of consecutive elements of a plain tensor of
// `shape` that share one index along `axis`, in element order. axis < 0 (per tensor): one run,
// channel 0.
template <class Fn>
void forEachChannelRun(const Shape &shape, int64_t axis, Fn &&fn) {
    const int64_t total = shapeElementCount(shape);
    if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) {
        if (total > 0) fn(int64_t(0), total, int64_t(0));
        return;
    }
    const int64_t channels = shape[static_cast<size_t>(axis)];
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    if (channels <= 0 || inner <= 0) return;
    for (int64_t start = 0, run = 0; start < total; start += inner, ++run)
        fn(start, inner, run % channels);
}

// Index of the scale of element i of a plain tensor of `shape` quantized in blocks of
// `blockSize` along `axis` (ONNX opset 21): the scale has the tensor's shape with
// ceil(dim / blockSize) along the axis.
struct BlockScaleIndex {
    int64_t length = 1, inner = 1, block = 1, blocks = 1;
    BlockScaleIndex(const Shape &shape, int64_t axis, int64_t blockSize) : block(blockSize) {
        length = shape[static_cast<size_t>(axis)];
        blocks = (length + blockSize - 1) / blockSize;
        for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner *= shape[d];
    }
    int64_t operator()(int64_t i) const {
        const int64_t outer = i / (length * inner), along = (i / inner) % length;
        return (outer * blocks + along / block) * inner + i % inner;
    }
};

// forEachChannelRun, except where the channel axis is the innermost one (a MatMul weight's
// output columns): there rowFn(start, channels) is called once per row of channels 0, 1, ...
// instead of runFn once per element.
template <class RunFn, class RowFn>
void forEachChannelRunOrRow(const Shape &shape, int64_t axis, RunFn &&runFn, RowFn &&rowFn) {
    const bool innermost = axis >= 0 && axis == static_cast<int64_t>(shape.size()) - 1 && shape.size() > 1;
    if (!innermost) return forEachChannelRun(shape, axis, runFn);
    const int64_t channels = shape.back(), total = shapeElementCount(shape);
    if (channels <= 0) return;
    for (int64_t start = 0; start < total; start += channels) rowFn(start, channels);
}

// Adding and then subtracting 1.5 * 2^23 rounds a float with |v| < 2^22 to an integer, half to
// even (the default rounding mode): unlike nearbyint it vectorises. Vector-extension code writes
// (v + kRoundingMagic) - kRoundingMagic itself, since a vector passed by value to a function
// compiled for the baseline would change the ABI in the AVX-512 clones.
constexpr float kRoundingMagic = 12582912.0f;

// Round half to even for |v| < 2^22; callers clamp v to the 8-bit range first.
inline float roundHalfEvenSmall(float v) {
    return (v + kRoundingMagic) - kRoundingMagic;
}

// Clamps to [lo, hi] (NaN goes to lo, as saturateTo does) and rounds half to even.
inline float clampRound(float v, float lo, float hi) {
    v = v >= lo ? v : lo;
    v = v <= hi ? v : hi;
    return roundHalfEvenSmall(v);
}

// QuantizeLinear's saturate(round_half_even(v / scale) + zero point) of n float values into the
// 8-bit type, vectorised (clamping before rounding changes nothing; NaN goes to the low end).
void quantizeValues(const float *src, uint8_t *dst, int64_t n, float scale, int32_t zeroPoint);
void quantizeValues(const float *src, int8_t *dst, int64_t n, float scale, int32_t zeroPoint);
void quantizeValues(const float *src, uint16_t *dst, int64_t n, float scale, int32_t zeroPoint);
void quantizeValues(const float *src, int16_t *dst, int64_t n, float scale, int32_t zeroPoint);
// The same with scale[i] and zeroPoint[i] for value i (consecutive channels).
void quantizeChannels(const float *src, uint8_t *dst, int64_t n, const float *scale,
                      const int32_t *zeroPoint);
void quantizeChannels(const float *src, int8_t *dst, int64_t n, const float *scale,
                      const int32_t *zeroPoint);

// DequantizeLinear's (q − zero point)·scale of n values, vectorised: integer difference (exact in
// int32 for 8- and 16-bit values, int64 for int32 ones), then one float multiply.
void dequantizeValues(const uint8_t *q, float *dst, int64_t n, float scale, int32_t zeroPoint);
void dequantizeValues(const int8_t *q, float *dst, int64_t n, float scale, int32_t zeroPoint);
void dequantizeValues(const uint16_t *q, float *dst, int64_t n, float scale, int32_t zeroPoint);
void dequantizeValues(const int16_t *q, float *dst, int64_t n, float scale, int32_t zeroPoint);
void dequantizeValues(const int32_t *q, float *dst, int64_t n, float scale, int32_t zeroPoint);
// The same with scale[i] and zeroPoint[i] for value i (consecutive channels).
void dequantizeChannels(const uint8_t *q, float *dst, int64_t n, const float *scale,
                        const int32_t *zeroPoint);
void dequantizeChannels(const int8_t *q, float *dst, int64_t n, const float *scale,
                        const int32_t *zeroPoint);
void dequantizeChannels(const uint16_t *q, float *dst, int64_t n, const float *scale,
                        const int32_t *zeroPoint);
void dequantizeChannels(const int16_t *q, float *dst, int64_t n, const float *scale,
                        const int32_t *zeroPoint);
void dequantizeChannels(const int32_t *q, float *dst, int64_t n, const float *scale,
                        const int32_t *zeroPoint);

// Elements [start, start + count) of the plain 8-bit or int32 tensor `quantized` dequantized
// into dst, with one scale and zero point or one per channel along `axis`. Where the channel
// axis is the innermost (a MatMul weight's output columns) a row of channels is one vectorised
// loop rather than one call per element.
void dequantizeSpan(const Tensor &quantized, const std::vector<float> &scale,
                    const std::vector<int32_t> &zeroPoint, int64_t axis, int64_t start,
                    int64_t count, float *dst);

// DequantizeLinear's (q − zero point)·scale of an 8-bit or int32 tensor with one scale and zero
// point, or one per channel along `axis`, as a plain float tensor.
Tensor dequantizeToFloat(const Tensor &quantized, const std::vector<float> &scale,
                         const std::vector<int32_t> &zeroPoint, int64_t axis);

// The same with a scale and zero point per block of `blockSize` values along `axis` (opset 21),
// in BlockScaleIndex's order; any integer type (4-bit and 16-bit included).
Tensor dequantizeBlocksToFloat(const Tensor &quantized, const std::vector<float> &scale,
                               const std::vector<int32_t> &zeroPoint, int64_t axis,
                               int64_t blockSize);

}  // namespace ql

#include "ir/channel_runs.h"

namespace ql {
namespace {

// Same arithmetic as DequantizeLinear: integer difference, then one float multiply. The
// difference is exact in int32 for 8-bit values; wider values take int64.
template <class Wide, class Q>
void dequantizeRun(const Q *src, float *dst, int64_t count, float scale, int32_t zeroPoint) {
    for (int64_t i = 0; i < count; ++i)
        dst[i] =
            static_cast<float>(static_cast<Wide>(src[i]) - static_cast<Wide>(zeroPoint)) * scale;
}

}  // namespace

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
                    return dequantizeRun<int32_t>(q.data<uint8_t>() + start, dst + start, count, s,
                                                  z);
                case DataType::Int8:
                    return dequantizeRun<int32_t>(q.data<int8_t>() + start, dst + start, count, s,
                                                  z);
                case DataType::Int32:
                    return dequantizeRun<int64_t>(q.data<int32_t>() + start, dst + start, count, s,
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

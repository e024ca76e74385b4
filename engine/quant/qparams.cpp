#include "quant/qparams.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "ir/channel_runs.h"

namespace ql::quant {

namespace {

// A plain tensor's values as float: its own storage when it is float32 (a weight can be hundreds
// of MB; no copy), else converted into `converted`.
const float *floatValues(const Tensor &plain, std::vector<float> &converted) {
    if (plain.dtype() == DataType::Float) return plain.data<float>();
    converted = plain.toFloatVector();
    return converted.data();
}

}  // namespace

std::pair<int32_t, int32_t> quantizedRange(const QRangeOptions &options) {
    if (options.type == DataType::Int16) return {-32768, 32767};  // reduceRange is 8-bit only
    if (options.type == DataType::UInt16) return {0, 65535};
    if (options.type == DataType::Int8) return options.reduceRange ? std::make_pair(-64, 63) : std::make_pair(-128, 127);
    return options.reduceRange ? std::make_pair(0, 127) : std::make_pair(0, 255);
}

bool isSixteenBit(DataType type) {
    return type == DataType::Int16 || type == DataType::UInt16;
}

int32_t quantizeValue(float x, float scale, int32_t zeroPoint, int32_t qmin, int32_t qmax) {
    const float q = std::nearbyint(x / scale) + static_cast<float>(zeroPoint);
    if (!(q >= static_cast<float>(qmin))) return qmin;  // NaN saturates low, as the Q kernel
    if (q > static_cast<float>(qmax)) return qmax;
    return static_cast<int32_t>(q);
}

QParams qparamsFromRange(float min, float max, const QRangeOptions &options) {
    QParams out;
    out.type = options.type == DataType::Int8 || isSixteenBit(options.type) ? options.type
                                                                            : DataType::UInt8;
    const auto [qmin, qmax] = quantizedRange(options);
    const double lo = std::isnan(min) ? 0.0 : std::min<double>(min, 0.0);
    const double hi = std::isnan(max) ? 0.0 : std::max<double>(max, 0.0);
    const double levels = static_cast<double>(qmax) - static_cast<double>(qmin);

    int32_t symmetricZeroPoint = 0;
    if (out.type == DataType::UInt8 || out.type == DataType::UInt16)
        symmetricZeroPoint = (qmin + qmax + 1) / 2;  // 128 (64 reduced), 32768

    float scale = 1.0f;
    int32_t zeroPoint = options.symmetric ? symmetricZeroPoint : std::clamp<int32_t>(0, qmin, qmax);
    if (options.symmetric) {
        const double absMax = std::max(-lo, hi);
        if (absMax > 0.0) scale = static_cast<float>(absMax / (levels / 2.0));
    } else if (hi - lo > 0.0) {
        scale = static_cast<float>((hi - lo) / levels);
    }
    if (!(scale >= FLT_MIN)) scale = FLT_MIN;  // a range of denormals: keep the scale normal
    if (!options.symmetric && hi - lo > 0.0) {
        const double zp = static_cast<double>(qmin) - std::nearbyint(lo / static_cast<double>(scale));
        zeroPoint = static_cast<int32_t>(std::clamp<double>(zp, qmin, qmax));
    }
    out.scale = {scale};
    out.zeroPoint = {zeroPoint};
    out.axis = -1;
    return out;
}

QParams weightQParams(const Tensor &weight, int64_t axis, bool perChannel, const QRangeOptions &options) {
    const Tensor plain = weight.toPlain();
    std::vector<float> converted;
    const float *values = floatValues(plain, converted);
    const int rank = plain.rank();
    if (axis < 0) axis += rank;
    const bool channelwise = perChannel && axis >= 0 && axis < rank;
    if (!channelwise) {
        float lo = 0.0f, hi = 0.0f;
        for (int64_t i = 0; i < plain.numel(); ++i) {
            const float v = values[i];
            if (std::isnan(v)) continue;
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
        return qparamsFromRange(lo, hi, options);
    }
    const int64_t channels = plain.shape()[static_cast<size_t>(axis)];
    std::vector<float> lo(static_cast<size_t>(channels), 0.0f), hi(static_cast<size_t>(channels), 0.0f);
    // NaN compares false, so it changes neither bound.
    forEachChannelRunOrRow(
        plain.shape(), axis,
        [&](int64_t start, int64_t count, int64_t c) {
            for (int64_t i = start; i < start + count; ++i) {
                lo[c] = values[i] < lo[c] ? values[i] : lo[c];
                hi[c] = values[i] > hi[c] ? values[i] : hi[c];
            }
        },
        [&](int64_t start, int64_t count) {
            const float *row = values + start;
            for (int64_t c = 0; c < count; ++c) {
                lo[c] = row[c] < lo[c] ? row[c] : lo[c];
                hi[c] = row[c] > hi[c] ? row[c] : hi[c];
            }
        });
    QParams out;
    out.axis = axis;
    for (int64_t c = 0; c < channels; ++c) {
        const QParams one = qparamsFromRange(lo[static_cast<size_t>(c)], hi[static_cast<size_t>(c)], options);
        out.type = one.type;
        out.scale.push_back(one.scale[0]);
        out.zeroPoint.push_back(one.zeroPoint[0]);
    }
    return out;
}

Tensor quantizeTensor(const Tensor &x, const QParams &params) {
    const Tensor plain = x.toPlain();
    std::vector<float> converted;
    const float *values = floatValues(plain, converted);
    if (isSixteenBit(params.type)) {  // weights of 16-bit layers: rare and small, one by one
        Tensor out = Tensor::uninitialized(params.type, plain.shape());
        const auto [qmin, qmax] = quantizedRange({params.type, false, false});
        forEachChannelRun(plain.shape(), params.scale.size() > 1 ? params.axis : -1,
                          [&](int64_t start, int64_t count, int64_t c) {
                              for (int64_t i = start; i < start + count; ++i) {
                                  const int32_t q =
                                      quantizeValue(values[i], params.scale[size_t(c)],
                                                    params.zeroPoint[size_t(c)], qmin, qmax);
                                  if (params.type == DataType::Int16)
                                      out.data<int16_t>()[i] = static_cast<int16_t>(q);
                                  else
                                      out.data<uint16_t>()[i] = static_cast<uint16_t>(q);
                              }
                          });
        return out;
    }
    const DataType type = params.type == DataType::Int8 ? DataType::Int8 : DataType::UInt8;
    Tensor out = Tensor::uninitialized(type, plain.shape());
    // Vectorised runs (a row of channels where the channel axis is innermost), the same
    // saturate(round_half_even(x / scale) + zero point) as quantizeValue.
    auto quantize = [&](auto *dst) {
        forEachChannelRunOrRow(
            plain.shape(), params.scale.size() > 1 ? params.axis : -1,
            [&](int64_t start, int64_t count, int64_t c) {
                quantizeValues(values + start, dst + start, count, params.scale[size_t(c)],
                               params.zeroPoint[size_t(c)]);
            },
            [&](int64_t start, int64_t count) {
                quantizeChannels(values + start, dst + start, count, params.scale.data(),
                                 params.zeroPoint.data());
            });
    };
    if (type == DataType::Int8)
        quantize(out.data<int8_t>());
    else
        quantize(out.data<uint8_t>());
    return out;
}

Tensor dequantizeTensor(const Tensor &q, const QParams &params) {
    if (params.blockSize > 0)
        return dequantizeBlocksToFloat(q, params.scale, params.zeroPoint, params.axis,
                                       params.blockSize);
    return dequantizeToFloat(q, params.scale, params.zeroPoint, params.axis);
}

Tensor fakeQuantizeTensor(const Tensor &x, const QParams &params) {
    return dequantizeTensor(quantizeTensor(x, params), params);
}

}  // namespace ql::quant

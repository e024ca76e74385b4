#pragma once
// Internal to the com.microsoft QLinear* kernels (ONNX Runtime's contrib signatures): per-tensor
// quantization parameters read from inputs, and the fused requantization arithmetic.
// Every op computes in float from dequantized values: y = q(f(s_x * (x - z_x))), rounded half to
// even and saturated, as a DequantizeLinear -> float op -> QuantizeLinear chain would.

#include <cstdint>
#include <string>
#include <type_traits>

#include "core/status.h"
#include "ir/channel_runs.h"
#include "ir/tensor.h"
#include "kernels/kernel.h"

namespace ql::quant {

// The pooling and concat half of the family (qlinear_pooling.cpp); registerQLinearContribKernels
// calls it.
void registerQLinearPoolingKernels(KernelRegistry &registry);

// One scale and zero point (per tensor). The contrib ops take no per-axis parameters.
struct ScalarQParams {
    float scale = 1.0f;
    int32_t zeroPoint = 0;
};

// Reads input `scaleIndex` (float, one value, positive and finite) and the optional input
// `zeroPointIndex` (one value within `type`'s range, of any integer type; absent means 0).
// Errors start with `what` (e.g. "A: scale must be positive and finite, got 0 at index 0").
Status readScalarQParams(const KernelContext &ctx, size_t scaleIndex, size_t zeroPointIndex,
                         DataType type, const std::string &what, ScalarQParams &out);

// Unsupported unless `type` is uint8 or int8; `what` names the tensor.
Status checkEightBit(DataType type, const std::string &what);

// 256-entry table of y = q(f(dequantize(x))) for every 8-bit x, indexed by x's bit pattern.
template <class T, class Fn>
void buildLookupTable(const ScalarQParams &in, const ScalarQParams &out, Fn &&fn, T table[256]) {
    const float lo = std::is_signed<T>::value ? -128.0f : 0.0f;
    const float hi = std::is_signed<T>::value ? 127.0f : 255.0f;
    for (int b = 0; b < 256; ++b) {
        const T x = static_cast<T>(static_cast<uint8_t>(b));
        const float real = in.scale * static_cast<float>(static_cast<int32_t>(x) - in.zeroPoint);
        const float q = fn(real) / out.scale;
        // Zero point added after rounding: exact for any |q|, as the ONNX QuantizeLinear rule.
        const float zp = static_cast<float>(out.zeroPoint);
        table[b] = static_cast<T>(clampRound(q, lo - zp, hi - zp) + zp);
    }
}

}  // namespace ql::quant

#pragma once
// Internal to the engine: parameter validation, rounding and saturation shared by the Q/DQ
// kernels and the integer Conv/MatMul references (and, for the checks and the int32 bias rule,
// the QDQ passes and the quantizer).

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/tensor.h"
#include "kernels/kernel.h"

namespace ql::quant {

// The registered QLinearConv / QLinearMatMul / com.microsoft QGemm factories: oneDNN int8 kernels
// (quantized_conv_dnnl.cpp, quantized_matmul_dnnl.cpp) that hand cases oneDNN cannot do exactly
// (uint8 weights, nonzero weight zero points, ...) to the exact references.
Result<KernelPtr> makeQLinearConv(const KernelBuildInfo &info);
Result<KernelPtr> makeQLinearMatMul(const KernelBuildInfo &info);
Result<KernelPtr> makeQGemm(const KernelBuildInfo &info);
// Exact integer references (plain loops), for fallback and for comparisons in tests.
Result<KernelPtr> makeQLinearConvReference(const KernelBuildInfo &info);
Result<KernelPtr> makeQLinearMatMulReference(const KernelBuildInfo &info);
Result<KernelPtr> makeQGemmReference(const KernelBuildInfo &info);
Result<KernelPtr> makeConvInteger(const KernelBuildInfo &info);
Result<KernelPtr> makeMatMulIntegerReference(const KernelBuildInfo &info);
Result<KernelPtr> makeMatMulIntegerToFloatReference(const KernelBuildInfo &info);
// MatMulInteger and com.microsoft MatMulIntegerToFloat (ONNX Runtime's fusion of MatMulInteger,
// Cast, the scale Mul and the bias Add) on oneDNN (quantized_batched_matmul_dnnl.cpp), the
// reference where it cannot.
Result<KernelPtr> makeMatMulInteger(const KernelBuildInfo &info);
Result<KernelPtr> makeMatMulIntegerToFloat(const KernelBuildInfo &info);

// Node attribute (int, default 0): 1 lets QLinearConv / QLinearMatMul / QGemm run as one oneDNN
// primitive even where int16 pair saturation is possible (no VNNI), like ONNX Runtime's U8S8
// path on AVX2: about twice as fast there, but no longer exact. s8 inputs are still fed as u8.
inline constexpr const char *kAllowSaturationAttr = "ql_allow_saturation";

// True when oneDNN's int8 dot products are exact (VNNI: 32-bit accumulation of u8 x s8).
bool cpuHasExactInt8Dot();

// Activation fused into QLinearConv / QLinearMatMul / QGemm by the int8 lowering: node attributes
// ql_activation = "Relu" | "Clip" with ql_clip_min / ql_clip_max in real (dequantized) units.
struct QuantActivation {
    enum class Kind { None, Relu, Clip } kind = Kind::None;
    float clipMin = 0.0f, clipMax = 0.0f;
};
// BadInput for an unknown activation or a Clip without min <= max.
Status readQuantActivation(const Node &node, QuantActivation &out);
// Narrows the quantized output range [lo, hi] so that clamping to it applies the activation
// (rounding is monotonic, so clamping after requantization equals clipping before it).
void narrowToActivation(const QuantActivation &act, float yScale, int32_t yZeroPoint, int64_t &lo,
                        int64_t &hi);

// Inclusive value range of an 8/16/32-bit integer type; Unsupported for other types.
Status integerRange(DataType type, int64_t &lo, int64_t &hi);

// Scale values (float32 only), each checked to be positive and finite.
Status readScales(const Tensor &scale, std::vector<float> &out);
// Zero point values as int32, checked to fit `target` (a zero point may come as a wider
// integer type than the data it describes). Unsupported for non-integer zero points.
Status readZeroPoints(const Tensor &zeroPoint, DataType target, std::vector<int32_t> &out);
// BadInput unless the scale and the zero point have the same shape.
Status checkSameShape(const Tensor &scale, const Tensor &zeroPoint);
// Normalises a possibly negative axis; BadInput when out of range for `rank`.
Status normalizeAxis(int64_t axis, int rank, int64_t &out);

// Round half to even (the default FE_TONEAREST mode), as numpy.rint and the ONNX spec.
inline float roundHalfEven(float v) { return std::nearbyint(v); }

// value / scale rounded half to even and saturated to int32 (NaN saturates low): how an fp32
// bias becomes the int32 bias of a quantized Conv / Gemm, at scale input_scale * weight_scale.
inline int32_t quantizeBiasValue(double value, double scale) {
    const double q = std::nearbyint(value / scale);
    if (!(q >= static_cast<double>(INT32_MIN))) return INT32_MIN;
    if (q > static_cast<double>(INT32_MAX)) return INT32_MAX;
    return static_cast<int32_t>(q);
}

template <class T>
inline T saturateTo(float v, int64_t lo, int64_t hi) {
    if (!(v >= static_cast<float>(lo))) return static_cast<T>(lo);  // NaN saturates low
    if (v > static_cast<float>(hi)) return static_cast<T>(hi);
    return static_cast<T>(v);
}

// Per-tensor or per-row/column parameters of one MatMul operand: values[index(batch, line)].
template <class V>
struct LineParams {
    std::vector<V> values;
    bool perBatch = false, perLine = false;
    int64_t lines = 1;
    V at(int64_t batch, int64_t line) const {
        return values[(perBatch ? batch * lines : 0) + (perLine ? line : 0)];
    }
};

// Shape rules for a MatMul operand parameter (scale or zero point): one value, a 1-D vector of
// `lines` values, or the operand's shape with the reduced dim set to 1.
// `rowOperand` is true for A (lines = rows M, reduced dim last), false for B (lines = N).
Status resolveLineLayout(const Tensor &param, const Shape &operand, bool rowOperand,
                         const std::string &what, bool &perBatch, bool &perLine, int64_t &lines);

}  // namespace ql::quant

#pragma once
// Quantization parameters (scale, zero point) from a real-valued range, and tensor
// quantize / dequantize with them.
//
// Conventions (PyTorch torch.ao.quantization observers `_calculate_qparams`, ONNX Runtime
// quant_utils `compute_scale_zp`); r = scale * (q - zeroPoint):
//  * The range is first extended to contain 0: min' = min(min, 0), max' = max(max, 0), so that
//    real 0 (padding, Relu output) is exactly representable.
//  * Integer range [qmin, qmax]: uint8 0..255, int8 -128..127; with reduceRange one bit less
//    (PyTorch `reduce_range`): uint8 0..127, int8 -64..63.
//  * Asymmetric (affine): scale = (max' - min') / (qmax - qmin),
//    zeroPoint = clamp(qmin - round(min' / scale), qmin, qmax)   (round half to even).
//    Example: [-1, 3] uint8 -> scale 4/255, zeroPoint 64.
//  * Symmetric: a = max(|min'|, |max'|), scale = a / ((qmax - qmin) / 2)  (PyTorch; int8 full range:
//    a / 127.5). zeroPoint = 0 for int8; for uint8 the middle of the range, 128 (PyTorch) or 64
//    with reduceRange (PyTorch would keep 128, outside 0..127; we use (qmin + qmax + 1) / 2).
//    ONNX Runtime instead restricts symmetric int8 to -127..127 (scale a / 127); we follow PyTorch,
//    whose FX exports are the fixtures this project compares against.
//  * Zero range (min' == max' == 0): scale 1.0 and the scheme's zero point (0 for asymmetric,
//    as ONNX Runtime). PyTorch clamps the scale to float epsilon instead; we take 1.0 because the
//    tensor is all zeros then, any scale represents it exactly, and a tiny scale would saturate
//    every nonzero value met later at run time.
//  * Scale is computed in double and stored as float; the zero point is derived from the stored
//    float scale, so both agree with what QuantizeLinear sees.
//  * Quantization (as ONNX QuantizeLinear): q = saturate(roundHalfEven(x / scale) + zeroPoint).

#include <cstdint>
#include <utility>
#include <vector>

#include "ir/data_type.h"
#include "ir/tensor.h"

namespace ql::quant {

struct QParams {                       // per tensor when axis < 0
    DataType type = DataType::UInt8;   // UInt8 or Int8; UInt16 / Int16 for 16-bit layers
    std::vector<float> scale;          // 1 value, or one per channel along axis
    std::vector<int32_t> zeroPoint;    // same length as scale
    int64_t axis = -1;
    // > 0: one scale per block of this many values along axis (opset 21; read from models, never
    // chosen by the quantizer); scale then holds the block grid (channel_runs.h).
    int64_t blockSize = 0;

    bool perChannel() const { return axis >= 0; }
};

struct QRangeOptions {
    DataType type = DataType::UInt8;
    bool symmetric = false;
    bool reduceRange = false;
};

// Weights default: per-channel symmetric int8 (PyTorch per_channel_symmetric, onednn backend).
inline QRangeOptions defaultWeightOptions() { return {DataType::Int8, true, false}; }

// [qmin, qmax] for the type (UInt8, Int8, UInt16 or Int16; anything else is treated as UInt8)
// and reduceRange (8-bit types only).
std::pair<int32_t, int32_t> quantizedRange(const QRangeOptions &options);
bool isSixteenBit(DataType type);  // UInt16 or Int16

// Range always extended to contain 0; formulas above. NaN bounds are treated as 0.
QParams qparamsFromRange(float min, float max, const QRangeOptions &options);

// Qparams of a constant weight tensor: per channel along `axis` (negative counts from the back)
// when perChannel, else per tensor (the result's axis is then -1). An axis outside the tensor's
// rank gives per-tensor parameters. NaN weights are ignored for the range.
QParams weightQParams(const Tensor &weight, int64_t axis, bool perChannel, const QRangeOptions &options);

// Quantizes a float tensor (plain order) to params.type as ONNX QuantizeLinear does.
// Per-channel params need params.scale.size() == x.dim(axis).
Tensor quantizeTensor(const Tensor &x, const QParams &params);
// Dequantizes an integer tensor: (q - zeroPoint) * scale, as ONNX DequantizeLinear (per tensor,
// per channel or per block).
Tensor dequantizeTensor(const Tensor &q, const QParams &params);
// dequantize(quantize(x)): the float values a Q/DQ pair would pass on.
Tensor fakeQuantizeTensor(const Tensor &x, const QParams &params);

// Quantize / dequantize one value with one (scale, zeroPoint) pair in [qmin, qmax].
int32_t quantizeValue(float x, float scale, int32_t zeroPoint, int32_t qmin, int32_t qmax);
inline float dequantizeValue(int32_t q, float scale, int32_t zeroPoint) {
    return static_cast<float>(q - zeroPoint) * scale;
}

}  // namespace ql::quant

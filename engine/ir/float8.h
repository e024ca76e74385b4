#pragma once
// The four float8 formats of ONNX (opset 19): E4M3FN and E5M2 (OCP FP8), and the FNUZ variants
// (one NaN, no negative zero, exponent bias one higher). Conversions follow the tables of the
// ONNX Cast operator: round to nearest even, then saturate or not.

#include <cstdint>

#include "ir/data_type.h"

namespace ql {

// The float value of a float8 bit pattern of `type` (exact; NaN for the NaN patterns).
float float8ToFloat(uint8_t bits, DataType type);

// x rounded to nearest even in `type`. saturate: values beyond the largest finite value and the
// infinities become ±that value; otherwise they become NaN, or ±Inf in E5M2. NaN stays NaN;
// FNUZ types have no infinity, no negative zero and one NaN.
uint8_t floatToFloat8(float x, DataType type, bool saturate);

}  // namespace ql

#include "ir/float8.h"

#include <cmath>

namespace ql {

namespace {

struct Float8Format {
    int mantissaBits;
    int bias;
    bool ieee;          // E5M2: the top exponent holds Inf and NaN
    bool unsignedZero;  // FNUZ: 0x80 is the one NaN
    float max;          // largest finite value
};

Float8Format formatOf(DataType type) {
    switch (type) {
        case DataType::Float8E4M3FN:
            return {3, 7, false, false, 448.0f};
        case DataType::Float8E4M3FNUZ:
            return {3, 8, false, true, 240.0f};
        case DataType::Float8E5M2:
            return {2, 15, true, false, 57344.0f};
        default:
            return {2, 16, false, true, 57344.0f};  // Float8E5M2FNUZ
    }
}

uint8_t nanBits(const Float8Format &f, bool negative) {
    if (f.unsignedZero) return 0x80;
    return static_cast<uint8_t>((negative ? 0x80 : 0) | 0x7F);
}

// The bits of a finite magnitude that is exactly representable and at most f.max.
uint8_t encodeMagnitude(const Float8Format &f, float magnitude) {
    if (magnitude == 0.0f) return 0;
    const int minExponent = 1 - f.bias;  // of the smallest normal value
    int exponent = std::ilogb(magnitude);
    if (exponent < minExponent) {  // subnormal: exponent field 0
        return static_cast<uint8_t>(std::ldexp(magnitude, f.mantissaBits - minExponent));
    }
    const int mantissa =
        static_cast<int>(std::ldexp(magnitude, f.mantissaBits - exponent)) - (1 << f.mantissaBits);
    return static_cast<uint8_t>(((exponent + f.bias) << f.mantissaBits) | mantissa);
}

}  // namespace

float float8ToFloat(uint8_t bits, DataType type) {
    const Float8Format f = formatOf(type);
    const bool negative = bits & 0x80;
    const int exponentField = (bits & 0x7F) >> f.mantissaBits;
    const int mantissa = bits & ((1 << f.mantissaBits) - 1);
    const int topExponent = (0x7F >> f.mantissaBits);
    if (f.unsignedZero && bits == 0x80) return NAN;
    if (f.ieee && exponentField == topExponent)
        return mantissa ? NAN : (negative ? -INFINITY : INFINITY);
    if (!f.ieee && !f.unsignedZero && (bits & 0x7F) == 0x7F) return NAN;  // E4M3FN
    const float magnitude =
        exponentField == 0 ? std::ldexp(static_cast<float>(mantissa), 1 - f.bias - f.mantissaBits)
                           : std::ldexp(static_cast<float>(mantissa + (1 << f.mantissaBits)),
                                        exponentField - f.bias - f.mantissaBits);
    return negative ? -magnitude : magnitude;
}

uint8_t floatToFloat8(float x, DataType type, bool saturate) {
    const Float8Format f = formatOf(type);
    const bool negative = std::signbit(x);
    if (std::isnan(x)) return nanBits(f, negative);
    const uint8_t sign = negative ? 0x80 : 0;
    const float magnitude = std::fabs(x);
    const uint8_t maxBits = encodeMagnitude(f, f.max);
    if (std::isinf(x)) {
        // Saturating, FNUZ types too take ±Inf to ±max: so do ONNX's reference conversion
        // (onnx.helper) and ONNX Runtime, though the Cast table lists NaN for them.
        if (saturate) return sign | maxBits;
        if (f.unsignedZero) return nanBits(f, negative);
        return f.ieee ? static_cast<uint8_t>(sign | 0x7C) : nanBits(f, negative);
    }
    // [x]: the magnitude rounded to the target's mantissa width, to nearest even. Its quantum
    // is that of the magnitude's binade, or of the subnormals below the smallest normal.
    const int minExponent = 1 - f.bias;
    const int exponent =
        magnitude == 0.0f ? minExponent : std::max(std::ilogb(magnitude), minExponent);
    const int quantumExponent = exponent - f.mantissaBits;
    const float rounded =
        std::ldexp(std::nearbyint(std::ldexp(magnitude, -quantumExponent)), quantumExponent);
    if (rounded > f.max) {
        if (saturate) return sign | maxBits;
        return f.ieee ? static_cast<uint8_t>(sign | 0x7C) : nanBits(f, negative);
    }
    const uint8_t bits = encodeMagnitude(f, rounded);
    return bits == 0 && f.unsignedZero ? 0 : static_cast<uint8_t>(sign | bits);
}

}  // namespace ql

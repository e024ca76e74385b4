#include "ir/data_type.h"

#include <cmath>
#include <cstring>

namespace ql {

size_t dataTypeSize(DataType type) {
    switch (type) {
        case DataType::Float: return 4;
        case DataType::UInt8: return 1;
        case DataType::Int8: return 1;
        case DataType::UInt16: return 2;
        case DataType::Int16: return 2;
        case DataType::Int32: return 4;
        case DataType::Int64: return 8;
        case DataType::Bool: return 1;
        case DataType::Float16: return 2;
        case DataType::Double: return 8;
        case DataType::UInt32: return 4;
        case DataType::UInt64: return 8;
        case DataType::BFloat16: return 2;
        case DataType::Float8E4M3FN:
        case DataType::Float8E4M3FNUZ:
        case DataType::Float8E5M2:
        case DataType::Float8E5M2FNUZ:
        case DataType::UInt4:
        case DataType::Int4:
            return 1;
        case DataType::String:
        case DataType::Undefined: return 0;
    }
    return 0;
}

std::string dataTypeName(DataType type) {
    switch (type) {
        case DataType::Float: return "float32";
        case DataType::UInt8: return "uint8";
        case DataType::Int8: return "int8";
        case DataType::UInt16: return "uint16";
        case DataType::Int16: return "int16";
        case DataType::Int32: return "int32";
        case DataType::Int64: return "int64";
        case DataType::Bool: return "bool";
        case DataType::Float16: return "float16";
        case DataType::Double: return "float64";
        case DataType::UInt32: return "uint32";
        case DataType::UInt64: return "uint64";
        case DataType::BFloat16: return "bfloat16";
        case DataType::Float8E4M3FN:
            return "float8e4m3fn";
        case DataType::Float8E4M3FNUZ:
            return "float8e4m3fnuz";
        case DataType::Float8E5M2:
            return "float8e5m2";
        case DataType::Float8E5M2FNUZ:
            return "float8e5m2fnuz";
        case DataType::UInt4:
            return "uint4";
        case DataType::Int4:
            return "int4";
        case DataType::String: return "string";
        case DataType::Undefined: return "undefined";
    }
    // ONNX types the engine does not hold, named for messages (onnx.proto's TensorProto.DataType).
    switch (static_cast<int>(type)) {
        case 14:
            return "complex64";
        case 15:
            return "complex128";
        case 23:
            return "float4e2m1";
    }
    return "type " + std::to_string(static_cast<int>(type));
}

bool isFloatingPoint(DataType type) {
    return type == DataType::Float || type == DataType::Double || type == DataType::Float16 ||
           type == DataType::BFloat16;
}

bool isFloat8(DataType type) {
    return type == DataType::Float8E4M3FN || type == DataType::Float8E4M3FNUZ ||
           type == DataType::Float8E5M2 || type == DataType::Float8E5M2FNUZ;
}

bool isFourBit(DataType type) {
    return type == DataType::Int4 || type == DataType::UInt4;
}

DataType storageType(DataType type) {
    if (type == DataType::Int4) return DataType::Int8;
    if (type == DataType::UInt4) return DataType::UInt8;
    return type;
}

bool isInteger(DataType type) {
    switch (type) {
        case DataType::UInt8: case DataType::Int8: case DataType::UInt16: case DataType::Int16:
        case DataType::Int32: case DataType::Int64: case DataType::UInt32: case DataType::UInt64:
            return true;
        default: return false;
    }
}

float halfToFloat(uint16_t h) {
    const uint32_t sign = (h & 0x8000u) << 16;
    const uint32_t exponent = (h >> 10) & 0x1f;
    const uint32_t mantissa = h & 0x3ffu;
    float magnitude;
    if (exponent == 0) {
        magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // subnormal
    } else if (exponent == 31) {
        magnitude = mantissa ? NAN : INFINITY;
    } else {
        magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
    }
    uint32_t bits;
    std::memcpy(&bits, &magnitude, 4);
    bits |= sign;
    float out;
    std::memcpy(&out, &bits, 4);
    return out;
}

uint16_t floatToHalf(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const float magnitude = std::fabs(value);
    if (std::isnan(value)) return sign | 0x7e00u;
    if (magnitude >= 65520.0f) return sign | 0x7c00u;  // rounds to infinity
    if (magnitude < std::ldexp(1.0f, -24 - 1)) return sign;
    int exponent;
    std::frexp(magnitude, &exponent);  // magnitude = m * 2^exponent, m in [0.5, 1)
    if (exponent < -13) {               // subnormal half: unit is 2^-24
        const float units = std::nearbyint(std::ldexp(magnitude, 24));
        return sign | static_cast<uint16_t>(units);
    }
    const float units = std::nearbyint(std::ldexp(magnitude, 11 - exponent));  // 11-bit significand
    uint32_t significand = static_cast<uint32_t>(units);
    int biased = exponent - 1 + 15;
    if (significand == 0x800u) {  // rounding carried into the next binade
        significand = 0x400u;
        ++biased;
    }
    if (biased >= 31) return sign | 0x7c00u;
    return sign | static_cast<uint16_t>(biased << 10) | static_cast<uint16_t>(significand & 0x3ffu);
}

float bfloat16ToFloat(uint16_t bits) {
    const uint32_t wide = static_cast<uint32_t>(bits) << 16;
    float out;
    std::memcpy(&out, &wide, 4);
    return out;
}

uint16_t floatToBfloat16(float value) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    if (std::isnan(value)) return static_cast<uint16_t>((bits >> 16) | 0x40u);
    const uint32_t roundingBias = 0x7fffu + ((bits >> 16) & 1u);  // round to nearest even
    return static_cast<uint16_t>((bits + roundingBias) >> 16);
}

}  // namespace ql

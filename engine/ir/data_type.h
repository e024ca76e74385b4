#pragma once
// Element types, numbered as onnx::TensorProto::DataType so conversion is a cast.

#include <cstddef>
#include <cstdint>
#include <string>

namespace ql {

enum class DataType : int {
    Undefined = 0,
    Float = 1,
    UInt8 = 2,
    Int8 = 3,
    UInt16 = 4,
    Int16 = 5,
    Int32 = 6,
    Int64 = 7,
    String = 8,
    Bool = 9,
    Float16 = 10,
    Double = 11,
    UInt32 = 12,
    UInt64 = 13,
    BFloat16 = 16,
    // In memory one byte per element: float8 as its bit pattern, 4-bit integers unpacked (int4
    // sign-extended). Files pack 4-bit values two per byte; the engine never does.
    Float8E4M3FN = 17,
    Float8E4M3FNUZ = 18,
    Float8E5M2 = 19,
    Float8E5M2FNUZ = 20,
    UInt4 = 21,
    Int4 = 22,
};

// Bytes per element; 0 for Undefined and String (not storable in a Tensor).
size_t dataTypeSize(DataType type);
std::string dataTypeName(DataType type);  // "float32", "int64", ... (numpy names)
bool isFloatingPoint(DataType type);
bool isInteger(DataType type);  // 8 bits and wider; not the 4-bit types
bool isFloat8(DataType type);
bool isFourBit(DataType type);  // Int4, UInt4
// The 8-bit type whose bytes hold a 4-bit type's elements; other types unchanged.
DataType storageType(DataType type);

float halfToFloat(uint16_t bits);
uint16_t floatToHalf(float value);
float bfloat16ToFloat(uint16_t bits);
uint16_t floatToBfloat16(float value);

template <class T>
struct DataTypeOf;
template <> struct DataTypeOf<float> { static constexpr DataType value = DataType::Float; };
template <> struct DataTypeOf<double> { static constexpr DataType value = DataType::Double; };
template <> struct DataTypeOf<uint8_t> { static constexpr DataType value = DataType::UInt8; };
template <> struct DataTypeOf<int8_t> { static constexpr DataType value = DataType::Int8; };
template <> struct DataTypeOf<uint16_t> { static constexpr DataType value = DataType::UInt16; };
template <> struct DataTypeOf<int16_t> { static constexpr DataType value = DataType::Int16; };
template <> struct DataTypeOf<int32_t> { static constexpr DataType value = DataType::Int32; };
template <> struct DataTypeOf<int64_t> { static constexpr DataType value = DataType::Int64; };
template <> struct DataTypeOf<uint32_t> { static constexpr DataType value = DataType::UInt32; };
template <> struct DataTypeOf<uint64_t> { static constexpr DataType value = DataType::UInt64; };
template <> struct DataTypeOf<bool> { static constexpr DataType value = DataType::Bool; };

}  // namespace ql

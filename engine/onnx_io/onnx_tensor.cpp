#include "onnx_io/onnx_tensor.h"

#include <cstring>
#include <limits>

namespace ql {

namespace {

template <class Field, class Out>
void copyField(const Field &field, Out *out, int64_t count) {
    for (int64_t i = 0; i < count; ++i) out[i] = static_cast<Out>(field.Get(static_cast<int>(i)));
}

// Number of elements, or -1 when it or its byte size overflows (a corrupt or hostile file).
int64_t checkedElementCount(const Shape &shape, size_t elementSize) {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    int64_t count = 1;
    for (int64_t d : shape) {
        if (d != 0 && count > kMax / d) return -1;
        count *= d;
    }
    if (elementSize && count > kMax / static_cast<int64_t>(elementSize)) return -1;
    return count;
}

Tensor halfToFloatTensor(const Tensor &half, bool bfloat) {
    Tensor out(DataType::Float, half.shape());
    const uint16_t *in = half.data<uint16_t>();
    float *dst = out.data<float>();
    for (int64_t i = 0; i < half.numel(); ++i) dst[i] = bfloat ? bfloat16ToFloat(in[i]) : halfToFloat(in[i]);
    return out;
}

size_t packedBytes(int64_t count) {
    return static_cast<size_t>((count + 1) / 2);
}

// 4-bit values two per byte, the first in the low nibble (ONNX's layout), into one byte each;
// int4 sign-extended.
template <class Packed>
void unpackFourBit(const Packed &packed, bool isSigned, int64_t count, uint8_t *out) {
    for (int64_t i = 0; i < count; ++i) {
        const uint8_t byte = static_cast<uint8_t>(packed[static_cast<size_t>(i / 2)]);
        const uint8_t nibble = i % 2 ? byte >> 4 : byte & 0x0F;
        out[i] = isSigned && (nibble & 0x08) ? static_cast<uint8_t>(nibble | 0xF0) : nibble;
    }
}

// What a TensorProto holds, checked against its shape before anything is allocated: a corrupt
// file must not trigger a huge allocation.
struct ProtoLayout {
    DataType type = DataType::Undefined;
    Shape shape;
    int64_t count = 0;
    size_t bytes = 0;
};

Result<ProtoLayout> checkProto(const onnx::TensorProto &proto, const std::string &what) {
    ProtoLayout layout;
    layout.type = static_cast<DataType>(proto.data_type());
    const DataType type = layout.type;
    if (type == DataType::String) return Status::unsupported(what + ": string tensors are not supported");
    if (dataTypeSize(type) == 0)
        return Status::unsupported(what + ": tensor type " + dataTypeName(type) + " (ONNX type " +
                                   std::to_string(proto.data_type()) + ") is not supported");
    if (proto.data_location() == onnx::TensorProto::EXTERNAL)
        return Status::internal(what + ": external data was not resolved");
    layout.shape.assign(proto.dims().begin(), proto.dims().end());
    const Shape &shape = layout.shape;
    for (int64_t d : shape)
        if (d < 0) return Status::badInput(what + ": negative dimension in " + shapeToString(shape));
    layout.count = checkedElementCount(shape, dataTypeSize(type));
    if (layout.count < 0)
        return Status::badInput(what + ": shape " + shapeToString(shape) + " is impossibly large");
    layout.bytes = static_cast<size_t>(layout.count) * dataTypeSize(type);
    const size_t stored = isFourBit(type) ? packedBytes(layout.count) : layout.bytes;
    if (proto.has_raw_data()) {
        if (proto.raw_data().size() != stored) {
            return Status::badInput(what + ": raw data holds " +
                                    std::to_string(proto.raw_data().size()) + " bytes, shape " +
                                    shapeToString(shape) + " of " + dataTypeName(type) + " needs " +
                                    std::to_string(stored));
        }
        return layout;
    }
    int64_t available = 0;
    switch (type) {
        case DataType::Float:
            available = proto.float_data_size();
            break;
        case DataType::Double:
            available = proto.double_data_size();
            break;
        case DataType::Int64:
            available = proto.int64_data_size();
            break;
        case DataType::UInt32:
        case DataType::UInt64:
            available = proto.uint64_data_size();
            break;
        default:
            available = proto.int32_data_size();
            break;
    }
    // 4-bit values sit packed in int32_data too, one byte of two values per entry.
    const int64_t needed = isFourBit(type) ? static_cast<int64_t>(stored) : layout.count;
    if (available != needed) {
        return Status::badInput(what + ": holds " + std::to_string(available) + " values, shape " +
                                shapeToString(shape) + " needs " + std::to_string(needed));
    }
    return layout;
}

Result<Tensor> halfToFloatIfAsked(Tensor tensor, bool convertHalfToFloat) {
    const DataType type = tensor.dtype();
    if (convertHalfToFloat && (type == DataType::Float16 || type == DataType::BFloat16))
        return halfToFloatTensor(tensor, type == DataType::BFloat16);
    return tensor;
}

}  // namespace

Result<Tensor> tensorFromProto(const onnx::TensorProto &proto, const std::string &what,
                               bool convertHalfToFloat) {
    auto layout = checkProto(proto, what);
    if (!layout) return layout.status();
    const auto &[type, shape, count, bytes] = *layout;
    Tensor tensor(type, shape, std::make_shared<Storage>(bytes));  // every byte is written below
    if (isFourBit(type)) {
        uint8_t *out = tensor.data<uint8_t>();
        if (proto.has_raw_data())
            unpackFourBit(proto.raw_data(), type == DataType::Int4, count, out);
        else
            unpackFourBit(proto.int32_data(), type == DataType::Int4, count, out);
    } else if (proto.has_raw_data()) {
        if (bytes) std::memcpy(tensor.rawData(), proto.raw_data().data(), bytes);
    } else {
        switch (type) {
            case DataType::Float: copyField(proto.float_data(), tensor.data<float>(), count); break;
            case DataType::Double: copyField(proto.double_data(), tensor.data<double>(), count); break;
            case DataType::Int64: copyField(proto.int64_data(), tensor.data<int64_t>(), count); break;
            case DataType::UInt32: copyField(proto.uint64_data(), tensor.data<uint32_t>(), count); break;
            case DataType::UInt64: copyField(proto.uint64_data(), tensor.data<uint64_t>(), count); break;
            case DataType::Int32: copyField(proto.int32_data(), tensor.data<int32_t>(), count); break;
            case DataType::Int16: copyField(proto.int32_data(), tensor.data<int16_t>(), count); break;
            case DataType::UInt16: case DataType::Float16: case DataType::BFloat16:
                copyField(proto.int32_data(), tensor.data<uint16_t>(), count);
                break;
            case DataType::Int8: copyField(proto.int32_data(), tensor.data<int8_t>(), count); break;
            case DataType::UInt8:
            case DataType::Bool:
            case DataType::Float8E4M3FN:
            case DataType::Float8E4M3FNUZ:
            case DataType::Float8E5M2:
            case DataType::Float8E5M2FNUZ:
                copyField(proto.int32_data(), tensor.data<uint8_t>(), count);
                break;
            default: return Status::unsupported(what + ": unsupported data type " + dataTypeName(type));
        }
    }
    return halfToFloatIfAsked(std::move(tensor), convertHalfToFloat);
}

Result<Tensor> takeTensorFromProto(onnx::TensorProto &proto, const std::string &what,
                                   bool convertHalfToFloat) {
    if (!proto.has_raw_data() || isFourBit(static_cast<DataType>(proto.data_type())))
        return tensorFromProto(proto, what, convertHalfToFloat);
    auto layout = checkProto(proto, what);
    if (!layout) return layout.status();
    std::unique_ptr<std::string> bytes(proto.release_raw_data());
    Tensor tensor(layout->type, layout->shape, std::make_shared<Storage>(std::move(bytes)));
    return halfToFloatIfAsked(std::move(tensor), convertHalfToFloat);
}

void tensorHeaderToProto(const Tensor &plain, const std::string &name, onnx::TensorProto *proto) {
    proto->Clear();
    proto->set_name(name);
    proto->set_data_type(static_cast<int>(plain.dtype()));
    for (int64_t d : plain.shape()) proto->add_dims(d);
}

Tensor storedValues(const Tensor &tensor) {
    Tensor plain = tensor.toPlain();
    if (!isFourBit(plain.dtype())) return plain;
    const int64_t n = plain.numel();
    Tensor packed(DataType::UInt8, {static_cast<int64_t>(packedBytes(n))});
    const uint8_t *in = plain.data<uint8_t>();
    uint8_t *out = packed.data<uint8_t>();
    for (int64_t i = 0; i < n; i += 2) {
        const uint8_t high = i + 1 < n ? static_cast<uint8_t>(in[i + 1] << 4) : 0;
        out[i / 2] = static_cast<uint8_t>(high | (in[i] & 0x0F));
    }
    return packed;
}

void tensorToProto(const Tensor &tensor, const std::string &name, onnx::TensorProto *proto) {
    const Tensor plain = tensor.toPlain();
    tensorHeaderToProto(plain, name, proto);
    const Tensor stored = storedValues(plain);
    proto->set_raw_data(stored.rawData(), stored.byteSize());
}

}  // namespace ql

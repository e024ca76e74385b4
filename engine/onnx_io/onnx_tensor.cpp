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
    if (proto.has_raw_data()) {
        if (proto.raw_data().size() != layout.bytes) {
            return Status::badInput(what + ": raw data holds " +
                                    std::to_string(proto.raw_data().size()) + " bytes, shape " +
                                    shapeToString(shape) + " of " + dataTypeName(type) + " needs " +
                                    std::to_string(layout.bytes));
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
    if (available != layout.count) {
        return Status::badInput(what + ": holds " + std::to_string(available) + " values, shape " +
                                shapeToString(shape) + " needs " + std::to_string(layout.count));
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
    if (proto.has_raw_data()) {
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
            case DataType::UInt8: case DataType::Bool:
                copyField(proto.int32_data(), tensor.data<uint8_t>(), count);
                break;
            default: return Status::unsupported(what + ": unsupported data type " + dataTypeName(type));
        }
    }
    return halfToFloatIfAsked(std::move(tensor), convertHalfToFloat);
}

Result<Tensor> takeTensorFromProto(onnx::TensorProto &proto, const std::string &what,
                                   bool convertHalfToFloat) {
    if (!proto.has_raw_data()) return tensorFromProto(proto, what, convertHalfToFloat);
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

void tensorToProto(const Tensor &tensor, const std::string &name, onnx::TensorProto *proto) {
    const Tensor plain = tensor.toPlain();
    tensorHeaderToProto(plain, name, proto);
    proto->set_raw_data(plain.rawData(), plain.byteSize());
}

}  // namespace ql

#include "onnx_io/tensor_file.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

#include "onnx_io/atomic_file.h"
#include "onnx_io/onnx_tensor.h"

namespace ql {

namespace {

Result<std::string> readAll(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::badInput(path + ": cannot open file");
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

bool npyTypeFromDescr(const std::string &descr, DataType *type) {
    static const std::pair<const char *, DataType> table[] = {
        {"f4", DataType::Float}, {"f8", DataType::Double}, {"f2", DataType::Float16},
        {"u1", DataType::UInt8}, {"i1", DataType::Int8},   {"u2", DataType::UInt16},
        {"i2", DataType::Int16}, {"i4", DataType::Int32},  {"u4", DataType::UInt32},
        {"i8", DataType::Int64}, {"u8", DataType::UInt64}, {"b1", DataType::Bool}};
    if (descr.size() != 3 || (descr[0] != '<' && descr[0] != '|' && descr[0] != '=')) return false;
    for (const auto &[code, dtype] : table) {
        if (descr.compare(1, 2, code) == 0) {
            *type = dtype;
            return true;
        }
    }
    return false;
}

const char *npyDescr(DataType type) {
    switch (type) {
        case DataType::Float: return "<f4";
        case DataType::Double: return "<f8";
        case DataType::Float16: return "<f2";
        case DataType::UInt8:
        case DataType::UInt4:
            return "|u1";  // 4-bit: one value a byte
        case DataType::Int8:
        case DataType::Int4:
            return "|i1";
        case DataType::UInt16: return "<u2";
        case DataType::Int16: return "<i2";
        case DataType::Int32: return "<i4";
        case DataType::UInt32: return "<u4";
        case DataType::Int64: return "<i8";
        case DataType::UInt64: return "<u8";
        case DataType::Bool: return "|b1";
        default: return nullptr;
    }
}

// Value of `key` in a Python dict literal such as {'descr': '<f4', 'shape': (2, 3), }.
std::string dictValue(const std::string &header, const std::string &key) {
    const size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) return {};
    size_t v = header.find(':', k);
    if (v == std::string::npos) return {};
    ++v;
    while (v < header.size() && header[v] == ' ') ++v;
    if (v >= header.size()) return {};
    const char open = header[v];
    if (open == '\'' ) return header.substr(v + 1, header.find('\'', v + 1) - v - 1);
    if (open == '(') return header.substr(v + 1, header.find(')', v) - v - 1);
    const size_t end = header.find_first_of(",}", v);
    return header.substr(v, end - v);
}

// Reads `size` bytes at `offset` of a .npy into `out`; false when the source falls short. Lets
// one parser serve files (read in place, a range of rows at a time) and .npz members in memory.
using NpyReader = std::function<bool(uint64_t offset, void *out, size_t size)>;

NpyReader fileReader(std::ifstream &in) {
    return [&in](uint64_t offset, void *out, size_t size) {
        in.seekg(static_cast<std::streamoff>(offset));
        in.read(static_cast<char *>(out), static_cast<std::streamsize>(size));
        return bool(in);
    };
}

NpyReader memoryReader(const char *bytes, uint64_t available) {
    return [bytes, available](uint64_t offset, void *out, size_t size) {
        if (offset > available || size > available - offset) return false;
        if (size) std::memcpy(out, bytes + offset, size);
        return true;
    };
}

// The header of a .npy of `fileSize` bytes; `name` starts the messages.
Result<NpyHeader> parseNpyHeader(const NpyReader &read, uint64_t fileSize,
                                 const std::string &name) {
    auto bad = [&](const std::string &why) { return Status::badInput(name + ": " + why); };
    char lead[12] = {};
    const size_t leadSize = fileSize < 12 ? static_cast<size_t>(fileSize) : 12;
    if (!read(0, lead, leadSize)) return bad("read failed");
    if (fileSize < 10 || std::memcmp(lead, "\x93NUMPY", 6) != 0) return bad("not a .npy file (bad magic)");
    const int major = static_cast<uint8_t>(lead[6]);
    uint64_t headerLength, headerStart;
    if (major == 1) {
        headerLength = static_cast<uint8_t>(lead[8]) | (static_cast<uint8_t>(lead[9]) << 8);
        headerStart = 10;
    } else if (major == 2 || major == 3) {
        if (fileSize < 12) return bad("truncated .npy header");
        uint32_t len;
        std::memcpy(&len, lead + 8, 4);
        headerLength = len;
        headerStart = 12;
    } else {
        return bad("unsupported .npy version " + std::to_string(major));
    }
    if (headerStart + headerLength > fileSize) return bad("truncated .npy header");
    std::string header(static_cast<size_t>(headerLength), '\0');
    if (!read(headerStart, header.data(), header.size())) return bad("read failed");
    NpyHeader result;
    const std::string descr = dictValue(header, "descr");
    if (!npyTypeFromDescr(descr, &result.dtype)) {
        if (!descr.empty() && descr[0] == '>') return bad("big-endian .npy data is not supported ('" + descr + "')");
        return bad("unsupported .npy dtype '" + descr + "'");
    }
    if (dictValue(header, "fortran_order").find("True") != std::string::npos)
        return bad("Fortran-ordered .npy arrays are not supported; save with numpy.ascontiguousarray");
    std::stringstream dims(dictValue(header, "shape"));
    std::string item;
    while (std::getline(dims, item, ',')) {
        if (item.find_first_not_of(' ') == std::string::npos) continue;
        try {
            result.shape.push_back(std::stoll(item));
        } catch (const std::exception &) {
            return bad("malformed .npy shape");
        }
        if (result.shape.back() < 0) return bad("malformed .npy shape");
    }
    // Check the size against the file before anyone allocates, so a corrupt header cannot ask
    // for an absurd allocation.
    result.dataOffset = headerStart + headerLength;
    const uint64_t available = fileSize - result.dataOffset;
    uint64_t needed = dataTypeSize(result.dtype);
    bool overflow = false;  // then more than any file holds, however large the dimensions
    for (int64_t d : result.shape)
        overflow = overflow || __builtin_mul_overflow(needed, static_cast<uint64_t>(d), &needed);
    if (overflow || needed > available) {
        const std::string need =
            overflow ? "more than 2^64 bytes" : std::to_string(needed) + " bytes";
        return bad("truncated .npy data: shape " + shapeToString(result.shape) + " of " +
                   dataTypeName(result.dtype) + " needs " + need + ", file has " + std::to_string(available) +
                   " bytes");
    }
    return result;
}

// Rows [first, first + count) of the data `header` describes.
Result<Tensor> readNpyData(const NpyReader &read, const NpyHeader &header, int64_t first,
                           int64_t count, const std::string &name,
                           std::shared_ptr<Storage> *reuse = nullptr) {
    Shape shape = header.shape;
    if (shape.empty()) {
        if (first != 0 || count != 1) return Status::badInput(name + ": a scalar .npy has one row");
    } else {
        if (first < 0 || count < 0 || first + count > shape[0])
            return Status::badInput(name + ": rows [" + std::to_string(first) + ", " +
                                    std::to_string(first + count) + ") outside the " +
                                    std::to_string(shape[0]) + " rows of the file");
        shape[0] = count;
    }
    const Shape rowShape(header.shape.empty() ? header.shape.begin() : header.shape.begin() + 1, header.shape.end());
    const uint64_t rowBytes = static_cast<uint64_t>(shapeElementCount(rowShape)) * dataTypeSize(header.dtype);
    Tensor tensor;
    try {
        // Not zeroed: the read fills every byte.
        const size_t bytes = checkedByteSize(header.dtype, shape);
        const bool reusable = reuse && *reuse && reuse->use_count() == 1 &&
                              (*reuse)->capacity() >= bytes;
        auto storage = reusable ? *reuse : std::make_shared<Storage>(bytes);
        if (reuse) *reuse = storage;
        tensor = Tensor(header.dtype, shape, std::move(storage));
    } catch (const TensorTooLarge &e) {
        return Status::badInput(name + ": " + e.what());
    }
    if (!read(header.dataOffset + static_cast<uint64_t>(first) * rowBytes, tensor.rawData(),
              tensor.byteSize()))
        return Status::badInput(name + ": read failed");
    return tensor;
}

}  // namespace

Result<NpyHeader> readNpyHeader(const std::string &path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) return Status::badInput(path + ": cannot open file");
    const uint64_t fileSize = static_cast<uint64_t>(in.tellg());
    return parseNpyHeader(fileReader(in), fileSize, path);
}

Result<Tensor> readNpyRows(const std::string &path, const NpyHeader &header, int64_t first,
                           int64_t count, std::shared_ptr<Storage> *reuse) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::badInput(path + ": cannot open file");
    return readNpyData(fileReader(in), header, first, count, path, reuse);
}

Result<Tensor> readNpy(const std::string &path) {
    auto header = readNpyHeader(path);
    if (!header) return header.status();
    return readNpyRows(path, *header, 0, header->shape.empty() ? 1 : header->shape[0]);
}

Result<Tensor> readNpyFromMemory(const void *bytes, size_t size, const std::string &name) {
    const NpyReader read = memoryReader(static_cast<const char *>(bytes), size);
    auto header = parseNpyHeader(read, size, name);
    if (!header) return header.status();
    return readNpyData(read, *header, 0, header->shape.empty() ? 1 : header->shape[0], name);
}

Result<Tensor> readTensorProtoFile(const std::string &path) {
    auto bytes = readAll(path);
    if (!bytes) return bytes.status();
    onnx::TensorProto proto;
    if (!proto.ParseFromString(bytes.value()))
        return Status::badInput(path + ": not a serialized ONNX TensorProto");
    auto tensor = tensorFromProto(proto, path, false);
    if (!tensor) return Status::error(tensor.status().kind(), tensor.status().message());
    return tensor;
}

Result<Tensor> readTensorFile(const std::string &path) {
    auto endsWith = [&](const char *ext) {
        const size_t n = std::strlen(ext);
        return path.size() >= n && path.compare(path.size() - n, n, ext) == 0;
    };
    if (endsWith(".npy")) return readNpy(path);
    if (endsWith(".pb")) return readTensorProtoFile(path);
    return Status::badInput(path + ": unknown tensor file type (expected .npy or .pb)");
}

Status writeNpy(const std::string &path, const Tensor &tensor) {
    const char *descr = npyDescr(tensor.dtype());
    if (!descr) return Status::unsupported(path + ": cannot write " + dataTypeName(tensor.dtype()) + " to .npy");
    std::string shape = "(";
    for (int i = 0; i < tensor.rank(); ++i) shape += (i ? ", " : "") + std::to_string(tensor.shape()[i]);
    shape += tensor.rank() == 1 ? ",)" : ")";  // Python's one-element tuple
    std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    const size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    const Tensor plain = tensor.toPlain();
    return writeFileAtomically(path, [&](std::ostream &out) {
        const uint16_t length = static_cast<uint16_t>(header.size());
        out.write("\x93NUMPY\x01\x00", 8);
        out.put(static_cast<char>(length & 0xff));
        out.put(static_cast<char>(length >> 8));
        out << header;
        out.write(static_cast<const char *>(plain.rawData()),
                  static_cast<std::streamsize>(plain.byteSize()));
        return bool(out);
    });
}

Status writeTensorProtoFile(const std::string &path, const Tensor &tensor, const std::string &name) {
    onnx::TensorProto proto;
    tensorToProto(tensor, name, &proto);
    return writeFileAtomically(path,
                               [&](std::ostream &out) { return proto.SerializeToOstream(&out); });
}

}  // namespace ql

#include "ir/tensor.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>

#include "ir/float8.h"

namespace ql {

int64_t shapeElementCount(const Shape &shape) {
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    return count;
}

std::string shapeToString(const Shape &shape) {
    std::ostringstream out;
    out << '[';
    for (size_t i = 0; i < shape.size(); ++i) out << (i ? "," : "") << shape[i];
    out << ']';
    return out.str();
}

size_t maxTensorBytes() {
    static const size_t budget = [] {
        const char *text = std::getenv("QL_MAX_TENSOR_BYTES");
        char *end = nullptr;
        const unsigned long long value = text ? std::strtoull(text, &end, 10) : 0;
        return value > 0 && end && *end == '\0' ? size_t(value) : size_t(4) << 30;
    }();
    return budget;
}

size_t checkedByteSize(DataType type, const Shape &shape) {
    uint64_t bytes = dataTypeSize(type);
    bool overflow = false;
    for (int64_t d : shape) {
        if (d < 0)
            throw TensorTooLarge("negative dimension in tensor shape " + shapeToString(shape));
        overflow = overflow || __builtin_mul_overflow(bytes, uint64_t(d), &bytes);
    }
    if (overflow || bytes > maxTensorBytes())
        throw TensorTooLarge("a tensor of shape " + shapeToString(shape) + " " +
                             dataTypeName(type) + " would take " +
                             (overflow ? std::string("more than 2^64") : std::to_string(bytes)) +
                             " bytes, over the limit of " + std::to_string(maxTensorBytes()) +
                             " (QL_MAX_TENSOR_BYTES)");
    return size_t(bytes);
}

Storage::Storage(size_t bytes) : m_capacity(bytes) {
    if (bytes > maxTensorBytes())
        throw TensorTooLarge("a buffer of " + std::to_string(bytes) + " bytes is over the limit of " +
                             std::to_string(maxTensorBytes()) + " (QL_MAX_TENSOR_BYTES)");
    const size_t rounded = ((bytes + 63) / 64) * 64;
    m_data = std::aligned_alloc(64, rounded ? rounded : 64);
    if (!m_data) throw std::bad_alloc();
}

Storage::Storage(std::unique_ptr<std::string> bytes)
    : m_data(bytes->data()), m_capacity(bytes->size()), m_owner(std::move(bytes)) {}

Storage::Storage(void *data, size_t capacity, std::shared_ptr<const void> owner)
    : m_data(data), m_capacity(capacity), m_owner(std::move(owner)) {}

Storage::~Storage() {
    if (!m_owner) std::free(m_data);
}

Tensor::Tensor(DataType type, Shape shape, Layout layout)
    : m_type(type), m_shape(std::move(shape)), m_layout(layout) {
    m_storage = std::make_shared<Storage>(checkedByteSize(m_type, m_shape));
    std::memset(m_storage->data(), 0, byteSize());
}

Tensor Tensor::uninitialized(DataType type, Shape shape, Layout layout) {
    auto storage = std::make_shared<Storage>(checkedByteSize(type, shape));
    return Tensor(type, std::move(shape), std::move(storage), layout);
}

Tensor::Tensor(DataType type, Shape shape, std::shared_ptr<Storage> storage, Layout layout)
    : m_type(type), m_shape(std::move(shape)), m_layout(layout), m_storage(std::move(storage)) {
    assert(m_storage && m_storage->capacity() >= byteSize());
}

Tensor Tensor::reshaped(const Shape &shape) const {
    assert(m_layout == Layout::Plain && shapeElementCount(shape) == numel());
    return Tensor(m_type, shape, m_storage, Layout::Plain);
}

Tensor Tensor::clone() const {
    Tensor copy = uninitialized(m_type, m_shape, m_layout);
    if (byteSize()) std::memcpy(copy.rawData(), rawData(), byteSize());
    return copy;
}

Tensor Tensor::toPlain() const {
    if (m_layout == Layout::Plain) return *this;
    Tensor plain = uninitialized(m_type, m_shape, Layout::Plain);
    nhwcToNchw(rawData(), plain.rawData(), m_shape, dataTypeSize(m_type));
    return plain;
}

Tensor Tensor::toChannelsLast() const {
    assert(rank() == 4);
    if (m_layout == Layout::ChannelsLast) return *this;
    Tensor cl = uninitialized(m_type, m_shape, Layout::ChannelsLast);
    nchwToNhwc(rawData(), cl.rawData(), m_shape, dataTypeSize(m_type));
    return cl;
}

namespace {

// Transposes a [rows, cols] matrix of elements of type T into [cols, rows], in cache tiles.
template <class T>
void transposePlane(const T *in, T *out, int64_t rows, int64_t cols) {
    constexpr int64_t tile = 32;
    for (int64_t r0 = 0; r0 < rows; r0 += tile)
        for (int64_t c0 = 0; c0 < cols; c0 += tile)
            for (int64_t r = r0; r < std::min(rows, r0 + tile); ++r)
                for (int64_t c = c0; c < std::min(cols, c0 + tile); ++c) out[c * rows + r] = in[r * cols + c];
}

// NCHW <-> NHWC is, per image, a transpose of [C, HW] <-> [HW, C].
void transposeImages(const void *src, void *dst, int64_t images, int64_t rows, int64_t cols, size_t es) {
    const int64_t plane = rows * cols;
    const bool parallel = images * plane > (1 << 16);
#pragma omp parallel for if (parallel)
    for (int64_t n = 0; n < images; ++n) {
        const auto *in = static_cast<const uint8_t *>(src) + n * plane * es;
        auto *out = static_cast<uint8_t *>(dst) + n * plane * es;
        switch (es) {
            case 1: transposePlane(in, out, rows, cols); break;
            case 2: transposePlane(reinterpret_cast<const uint16_t *>(in), reinterpret_cast<uint16_t *>(out), rows, cols); break;
            case 4: transposePlane(reinterpret_cast<const uint32_t *>(in), reinterpret_cast<uint32_t *>(out), rows, cols); break;
            default: transposePlane(reinterpret_cast<const uint64_t *>(in), reinterpret_cast<uint64_t *>(out), rows, cols); break;
        }
    }
}

}  // namespace

void nchwToNhwc(const void *src, void *dst, const Shape &s, size_t es) {
    transposeImages(src, dst, s[0], s[1], s[2] * s[3], es);
}

void nhwcToNchw(const void *src, void *dst, const Shape &s, size_t es) {
    transposeImages(src, dst, s[0], s[2] * s[3], s[1], es);
}

double elementAsDouble(DataType type, const void *p, int64_t i) {
    switch (type) {
        case DataType::Float: return static_cast<const float *>(p)[i];
        case DataType::Double: return static_cast<const double *>(p)[i];
        case DataType::UInt8: return static_cast<const uint8_t *>(p)[i];
        case DataType::Int8: return static_cast<const int8_t *>(p)[i];
        case DataType::UInt16: return static_cast<const uint16_t *>(p)[i];
        case DataType::Int16: return static_cast<const int16_t *>(p)[i];
        case DataType::Int32: return static_cast<const int32_t *>(p)[i];
        case DataType::Int64: return static_cast<double>(static_cast<const int64_t *>(p)[i]);
        case DataType::UInt32: return static_cast<const uint32_t *>(p)[i];
        case DataType::UInt64: return static_cast<double>(static_cast<const uint64_t *>(p)[i]);
        case DataType::Bool: return static_cast<const uint8_t *>(p)[i] ? 1.0 : 0.0;
        case DataType::Float16: return halfToFloat(static_cast<const uint16_t *>(p)[i]);
        case DataType::BFloat16: return bfloat16ToFloat(static_cast<const uint16_t *>(p)[i]);
        case DataType::Int4:
            return static_cast<const int8_t *>(p)[i];
        case DataType::UInt4:
            return static_cast<const uint8_t *>(p)[i];
        case DataType::Float8E4M3FN:
        case DataType::Float8E4M3FNUZ:
        case DataType::Float8E5M2:
        case DataType::Float8E5M2FNUZ:
            return float8ToFloat(static_cast<const uint8_t *>(p)[i], type);
        default: return 0.0;
    }
}

double Tensor::valueAsDouble(int64_t i) const {
    if (m_layout != Layout::Plain) return toPlain().valueAsDouble(i);
    return elementAsDouble(m_type, rawData(), i);
}

std::vector<float> Tensor::toFloatVector() const {
    const Tensor plain = toPlain();
    std::vector<float> out(static_cast<size_t>(numel()));
    for (int64_t i = 0; i < numel(); ++i)
        out[i] = static_cast<float>(elementAsDouble(m_type, plain.rawData(), i));
    return out;
}

std::vector<int64_t> Tensor::toInt64Vector() const {
    std::vector<int64_t> out(static_cast<size_t>(numel()));
    if (m_type == DataType::Int64 && m_layout == Layout::Plain) {
        if (numel()) std::memcpy(out.data(), rawData(), byteSize());
        return out;
    }
    const Tensor plain = toPlain();
    for (int64_t i = 0; i < numel(); ++i) {
        out[i] = m_type == DataType::UInt64
                     ? static_cast<int64_t>(plain.data<uint64_t>()[i])
                     : static_cast<int64_t>(elementAsDouble(m_type, plain.rawData(), i));
    }
    return out;
}

}  // namespace ql

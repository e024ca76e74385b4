#pragma once
// A typed n-dimensional array with shared storage, 64-byte aligned (16 for bytes taken over from
// a model file).
// Shapes are always logical (ONNX order, NCHW for images). A rank-4 tensor may be stored
// channels-last (NHWC) between layout-aware kernels: that is a storage detail, and
// Tensor::toPlain() gives the ONNX-order copy anyone outside the kernels should see.

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/data_type.h"

namespace ql {

using Shape = std::vector<int64_t>;

int64_t shapeElementCount(const Shape &shape);
std::string shapeToString(const Shape &shape);  // "[1,3,224,224]"

// A tensor larger than one may be (a hostile or broken shape: Tile by 10^9, ConstantOfShape of
// [10^9, 10^9], an initializer claiming 2^62 values): thrown before anything is allocated; the
// execution plan reports it as bad input naming the node.
// Element i of `data` (of `type`, one element after another) as a double: exact for every
// type but 64-bit integers beyond 2^53; 0 for types without a value (string).
double elementAsDouble(DataType type, const void *data, int64_t i);

class TensorTooLarge : public std::length_error {
public:
    using std::length_error::length_error;
};

// Bytes one tensor may take: QL_MAX_TENSOR_BYTES when set, else 4 GiB (the largest activation
// of the models QuantLens is for, at batch 64, is well under 1 GiB).
size_t maxTensorBytes();
// The bytes of a tensor of `type` and `shape`; throws TensorTooLarge on a negative dimension,
// an overflowing count or more than maxTensorBytes().
size_t checkedByteSize(DataType type, const Shape &shape);

enum class Layout { Plain, ChannelsLast };

// Raw aligned bytes; a Tensor views a prefix of it. Reused by the execution plan's pool.
class Storage {
public:
    explicit Storage(size_t bytes);
    // Takes over `bytes` without copying them (an initializer's raw data as the file parser read
    // it): aligned as malloc aligns, to 16 bytes, which no kernel depends on.
    explicit Storage(std::unique_ptr<std::string> bytes);
    // Views `capacity` bytes at `data` that `owner` keeps alive (a buffer pool's arena).
    Storage(void *data, size_t capacity, std::shared_ptr<const void> owner);
    ~Storage();
    Storage(const Storage &) = delete;
    Storage &operator=(const Storage &) = delete;
    void *data() const { return m_data; }
    size_t capacity() const { return m_capacity; }

private:
    void *m_data = nullptr;
    size_t m_capacity = 0;
    std::shared_ptr<const void> m_owner;  // owns m_data when set; else m_data is ours to free
};

class Tensor {
public:
    Tensor() = default;
    // Allocates zero-initialised storage.
    Tensor(DataType type, Shape shape, Layout layout = Layout::Plain);
    // Views existing storage (must hold at least byteSize() bytes).
    Tensor(DataType type, Shape shape, std::shared_ptr<Storage> storage,
           Layout layout = Layout::Plain);
    // Allocates storage left as it comes, for a caller that writes every element: zeroing a
    // large tensor first costs a pass over fresh memory.
    static Tensor uninitialized(DataType type, Shape shape, Layout layout = Layout::Plain);

    template <class T>
    static Tensor fromVector(const Shape &shape, const std::vector<T> &values);
    template <class T>
    static Tensor scalar(T value) { return fromVector<T>({}, {value}); }

    bool defined() const { return m_type != DataType::Undefined; }
    DataType dtype() const { return m_type; }
    const Shape &shape() const { return m_shape; }
    int rank() const { return static_cast<int>(m_shape.size()); }
    int64_t dim(int axis) const { return m_shape[axis < 0 ? axis + rank() : axis]; }
    int64_t numel() const { return shapeElementCount(m_shape); }
    size_t byteSize() const { return static_cast<size_t>(numel()) * dataTypeSize(m_type); }
    Layout layout() const { return m_layout; }
    const std::shared_ptr<Storage> &storage() const { return m_storage; }

    void *rawData() { return m_storage ? m_storage->data() : nullptr; }
    const void *rawData() const { return m_storage ? m_storage->data() : nullptr; }
    template <class T>
    T *data() { return static_cast<T *>(rawData()); }
    template <class T>
    const T *data() const { return static_cast<const T *>(rawData()); }

    // Same storage, another shape with the same element count (plain layout only).
    Tensor reshaped(const Shape &shape) const;
    // A deep copy in plain (ONNX) order; cheap-to-call no-op copy share for plain tensors.
    Tensor toPlain() const;
    // A deep copy stored channels-last; requires rank 4.
    Tensor toChannelsLast() const;
    Tensor clone() const;

    // Element i (plain order) converted to double; for tests, metrics and printing.
    double valueAsDouble(int64_t index) const;
    // Values converted to float / int64 (plain order); for small tensors such as shapes.
    std::vector<float> toFloatVector() const;
    std::vector<int64_t> toInt64Vector() const;

private:
    DataType m_type = DataType::Undefined;
    Shape m_shape;
    Layout m_layout = Layout::Plain;
    std::shared_ptr<Storage> m_storage;
};

// Copies between NCHW and NHWC orders for an element size in bytes.
void nchwToNhwc(const void *src, void *dst, const Shape &nchw, size_t elementSize);
void nhwcToNchw(const void *src, void *dst, const Shape &nchw, size_t elementSize);

template <class T>
Tensor Tensor::fromVector(const Shape &shape, const std::vector<T> &values) {
    Tensor t(DataTypeOf<T>::value, shape);
    T *out = t.data<T>();
    for (size_t i = 0; i < values.size() && static_cast<int64_t>(i) < t.numel(); ++i) out[i] = values[i];
    return t;
}

}  // namespace ql

#include "kernels/shape_common.h"

#include <cstring>

namespace ql::shape {

Status normalizeAxis(int64_t axis, int64_t rank, const std::string &what, int64_t *out) {
    if (axis < -rank || axis >= rank) {
        return Status::badInput(what + " " + std::to_string(axis) + " is out of range for rank " +
                                std::to_string(rank));
    }
    *out = axis < 0 ? axis + rank : axis;
    return Status::ok();
}

Status readInts(const Tensor &tensor, const std::string &what, std::vector<int64_t> *out) {
    if (tensor.dtype() != DataType::Int64 && tensor.dtype() != DataType::Int32) {
        return Status::badInput(what + " must be int64 or int32, got " +
                                dataTypeName(tensor.dtype()));
    }
    *out = tensor.toInt64Vector();
    return Status::ok();
}

std::vector<int64_t> contiguousStrides(const Shape &shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
        strides[i] = strides[i + 1] * shape[i + 1];
    return strides;
}

std::vector<int64_t> logicalStrides(const Tensor &tensor) {
    if (tensor.layout() != Layout::ChannelsLast) return contiguousStrides(tensor.shape());
    const Shape &s = tensor.shape();  // stored [N, H, W, C]
    return {s[2] * s[3] * s[1], 1, s[3] * s[1], s[1]};
}

void parallelCopy(void *dst, const void *src, size_t bytes) {
    if (bytes == 0) return;
    const int64_t units = static_cast<int64_t>(bytes / 64);
    if (units < 2) {
        std::memcpy(dst, src, bytes);
        return;
    }
    // 64-byte units, the tail goes with the last chunk; 16 "elements" of work per unit.
    parallelChunks(units, 16, [&](int64_t begin, int64_t end) {
        const size_t from = static_cast<size_t>(begin) * 64;
        const size_t to = end == units ? bytes : static_cast<size_t>(end) * 64;
        std::memcpy(static_cast<uint8_t *>(dst) + from, static_cast<const uint8_t *>(src) + from,
                    to - from);
    });
}

namespace {

template <class T>
void fillTyped(void *dst, const void *element, int64_t count) {
    T value;
    std::memcpy(&value, element, sizeof(T));
    T *out = static_cast<T *>(dst);
    std::fill(out, out + count, value);
}

}  // namespace

void fillElements(void *dst, const void *element, int64_t count, size_t elementSize) {
    const bool typed = withElementType(
        elementSize, [&](auto tag) { fillTyped<decltype(tag)>(dst, element, count); });
    if (typed) return;
    for (int64_t i = 0; i < count; ++i)
        std::memcpy(static_cast<uint8_t *>(dst) + i * elementSize, element, elementSize);
}

bool encodeScalar(DataType type, double value, uint8_t out[8]) {
    auto put = [out](auto v) { std::memcpy(out, &v, sizeof(v)); };
    switch (type) {
        case DataType::Bool:
            put(static_cast<uint8_t>(value != 0.0));
            return true;
        case DataType::Float16:
            put(floatToHalf(static_cast<float>(value)));
            return true;
        case DataType::BFloat16:
            put(floatToBfloat16(static_cast<float>(value)));
            return true;
        default:
            return dispatchAmong<float, double, uint8_t, int8_t, uint16_t, int16_t, int32_t,
                                 int64_t, uint32_t, uint64_t>(
                type, [&](auto tag) { put(static_cast<decltype(tag)>(value)); });
    }
}

// ---- strided copy -------------------------------------------------------------------------

namespace {

// Walks a multi-index in row-major order, tracking a source and a destination offset.
struct Odometer {
    std::vector<int64_t> dims, srcStrides, dstStrides, index;
    int64_t src = 0, dst = 0;

    void seek(int64_t linear) {
        index.assign(dims.size(), 0);
        src = dst = 0;
        for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
            index[d] = linear % dims[d];
            linear /= dims[d];
            src += index[d] * srcStrides[d];
            dst += index[d] * dstStrides[d];
        }
    }
    void next() {
        for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
            src += srcStrides[d];
            dst += dstStrides[d];
            if (++index[d] < dims[d]) return;
            src -= srcStrides[d] * dims[d];
            dst -= dstStrides[d] * dims[d];
            index[d] = 0;
        }
    }
};

// Copies element-wise with a source stride; T has the element's size.
template <class T>
void copyRun(const T *src, int64_t stride, T *dst, int64_t count) {
    if (stride == 1) {
        std::memcpy(dst, src, static_cast<size_t>(count) * sizeof(T));
    } else if (stride == 0) {
        std::fill(dst, dst + count, *src);
    } else {
        for (int64_t i = 0; i < count; ++i) dst[i] = src[i * stride];
    }
}

template <class T>
void copyStridedTyped(const T *src, const std::vector<int64_t> &dims,
                      const std::vector<int64_t> &strides, T *dst) {
    const int n = static_cast<int>(dims.size());
    const int64_t total = shapeElementCount(dims);
    const int64_t inner = dims[n - 1], innerStride = strides[n - 1];

    // A transposition: some outer dim is contiguous in the source. Copy square tiles so both
    // the reads and the writes stay within a few cache lines.
    int k = -1;
    for (int d = 0; d < n - 1 && innerStride != 1 && innerStride != 0; ++d)
        if (strides[d] == 1 && dims[d] >= 4 && inner >= 4) k = d;
    if (k >= 0) {
        const std::vector<int64_t> dstStrides = contiguousStrides(dims);
        Odometer outer;
        for (int d = 0; d < n - 1; ++d) {
            if (d == k) continue;
            outer.dims.push_back(dims[d]);
            outer.srcStrides.push_back(strides[d]);
            outer.dstStrides.push_back(dstStrides[d]);
        }
        constexpr int64_t kTile = 16;
        const int64_t K = dims[k], dK = dstStrides[k];
        const int64_t kBlocks = (K + kTile - 1) / kTile;
        const int64_t outerCount = shapeElementCount(outer.dims);
        parallelChunks(outerCount * kBlocks, kTile * inner, [&](int64_t begin, int64_t end) {
            Odometer it = outer;
            for (int64_t item = begin; item < end; ++item) {
                it.seek(item / kBlocks);
                const int64_t k0 = (item % kBlocks) * kTile, k1 = std::min(K, k0 + kTile);
                for (int64_t l0 = 0; l0 < inner; l0 += kTile) {
                    const int64_t l1 = std::min(inner, l0 + kTile);
                    for (int64_t kk = k0; kk < k1; ++kk) {
                        const T *s = src + it.src + kk;
                        T *o = dst + it.dst + kk * dK;
                        for (int64_t l = l0; l < l1; ++l) o[l] = s[l * innerStride];
                    }
                }
            }
        });
        return;
    }

    if (n == 1) {
        if (innerStride == 1) {
            parallelCopy(dst, src, static_cast<size_t>(inner) * sizeof(T));
            return;
        }
        parallelChunks(inner, 1, [&](int64_t begin, int64_t end) {
            copyRun(src + begin * innerStride, innerStride, dst + begin, end - begin);
        });
        return;
    }
    Odometer rows;
    rows.dims.assign(dims.begin(), dims.end() - 1);
    rows.srcStrides.assign(strides.begin(), strides.end() - 1);
    rows.dstStrides = contiguousStrides(rows.dims);
    for (int64_t &s : rows.dstStrides) s *= inner;
    parallelChunks(total / inner, inner, [&](int64_t begin, int64_t end) {
        Odometer it = rows;
        it.seek(begin);
        for (int64_t r = begin; r < end; ++r, it.next())
            copyRun(src + it.src, innerStride, dst + it.dst, inner);
    });
}

}  // namespace

void copyStrided(const void *src, const StridedView &view, void *dst, size_t elementSize) {
    if (shapeElementCount(view.shape) == 0) return;
    // Drop unit dims and merge neighbours that stay adjacent in the source.
    std::vector<int64_t> dims, strides;
    for (size_t i = 0; i < view.shape.size(); ++i) {
        if (view.shape[i] == 1) continue;
        if (!dims.empty() && strides.back() == view.strides[i] * view.shape[i]) {
            dims.back() *= view.shape[i];
            strides.back() = view.strides[i];
        } else {
            dims.push_back(view.shape[i]);
            strides.push_back(view.strides[i]);
        }
    }
    const uint8_t *base =
        static_cast<const uint8_t *>(src) + view.offset * static_cast<int64_t>(elementSize);
    if (dims.empty()) {
        std::memcpy(dst, base, elementSize);
        return;
    }
    const bool typed = withElementType(elementSize, [&](auto tag) {
        using T = decltype(tag);
        copyStridedTyped(reinterpret_cast<const T *>(base), dims, strides, static_cast<T *>(dst));
    });
    if (typed) return;
    // Other element sizes do not occur with the current dtypes; kept correct anyway.
    Odometer it;
    it.dims = dims;
    it.srcStrides = strides;
    it.dstStrides = contiguousStrides(dims);
    it.seek(0);
    const int64_t total = shapeElementCount(dims), es = static_cast<int64_t>(elementSize);
    for (int64_t i = 0; i < total; ++i, it.next())
        std::memcpy(static_cast<uint8_t *>(dst) + i * es, base + it.src * es, elementSize);
}

Status writeView(KernelContext &ctx, const Tensor &data, const StridedView &view,
                 const Shape &shape) {
    Tensor &out = ctx.allocateOutput(0, data.dtype(), shape);
    copyStrided(data.rawData(), view, out.rawData(), dataTypeSize(data.dtype()));
    return Status::ok();
}

}  // namespace ql::shape

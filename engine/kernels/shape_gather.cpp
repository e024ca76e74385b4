// Index-driven copies: Gather, GatherElements, GatherND, ScatterND, ScatterElements (and the
// deprecated Scatter). Every index is validated before any copy and named in the error.

#include <algorithm>
#include <cstring>

#include "kernels/kernel.h"
#include "kernels/shape_common.h"

namespace ql::shape {

namespace {

// Reads indices, wraps negatives and checks the range [-dim, dim).
Status readIndices(const Tensor &indices, const std::string &op, int64_t axis, int64_t dim,
                   std::vector<int64_t> *out) {
    QL_RETURN_IF_ERROR(readInts(indices, op + " 'indices'", out));
    for (int64_t &i : *out) {
        if (i < -dim || i >= dim) {
            return Status::badInput(op + " index " + std::to_string(i) +
                                    " is out of range for axis " + std::to_string(axis) +
                                    " of size " + std::to_string(dim));
        }
        if (i < 0) i += dim;
    }
    return Status::ok();
}

template <class T>
void gatherElementsTyped(const T *src, const int64_t *index, T *dst, int64_t outer, int64_t count,
                         int64_t dim) {
    parallelChunks(outer, count, [&](int64_t begin, int64_t end) {
        for (int64_t o = begin; o < end; ++o)
            for (int64_t j = 0; j < count; ++j) dst[o * count + j] = src[o * dim + index[j]];
    });
}

class GatherKernel : public Kernel {
public:
    explicit GatherKernel(const KernelBuildInfo &info) : m_axis(info.node.attrInt("axis", 0)) {}

    Status run(KernelContext &ctx) override {
        const Tensor &data = ctx.input(0), &indicesTensor = ctx.input(1);
        int64_t axis = 0;
        QL_RETURN_IF_ERROR(normalizeAxis(m_axis, data.rank(), "Gather axis", &axis));
        const int64_t dim = data.shape()[axis];
        std::vector<int64_t> index;
        QL_RETURN_IF_ERROR(readIndices(indicesTensor, "Gather", axis, dim, &index));
        Shape outShape(data.shape().begin(), data.shape().begin() + axis);
        outShape.insert(outShape.end(), indicesTensor.shape().begin(), indicesTensor.shape().end());
        outShape.insert(outShape.end(), data.shape().begin() + axis + 1, data.shape().end());
        Tensor &out = ctx.allocateOutput(0, data.dtype(), outShape);
        if (out.numel() == 0) return Status::ok();
        const size_t es = dataTypeSize(data.dtype());
        const int64_t outer = productOf(data.shape(), 0, axis);
        const int64_t inner = productOf(data.shape(), axis + 1, data.shape().size());
        const int64_t count = static_cast<int64_t>(index.size());
        // Per-element gathers use typed copies instead of tiny memcpys.
        if (inner == 1 && withElementType(es, [&](auto tag) {
                using T = decltype(tag);
                gatherElementsTyped(data.data<T>(), index.data(), out.data<T>(), outer, count, dim);
            })) {
            return Status::ok();
        }
        const size_t chunk = static_cast<size_t>(inner) * es;
        const auto *src = static_cast<const uint8_t *>(data.rawData());
        auto *dst = static_cast<uint8_t *>(out.rawData());
        parallelChunks(outer * count, inner, [&](int64_t begin, int64_t end) {
            for (int64_t k = begin; k < end; ++k) {
                const int64_t o = k / count, j = k % count;
                std::memcpy(dst + k * chunk, src + (o * dim + index[j]) * chunk, chunk);
            }
        });
        return Status::ok();
    }

private:
    int64_t m_axis;
};

// Offsets into `data` for an element-wise index tensor along `axis` (GatherElements, Scatter*).
// indices may be smaller than data in every dim; offsets follow indices' row-major order.
Status elementOffsets(const Tensor &data, const Tensor &indices, int64_t axis,
                      const std::string &op, std::vector<int64_t> *offsets) {
    if (indices.rank() != data.rank()) {
        return Status::badInput(op + ": indices rank " + std::to_string(indices.rank()) +
                                " differs from data rank " + std::to_string(data.rank()));
    }
    for (int d = 0; d < data.rank(); ++d) {
        if (d != axis && indices.shape()[d] > data.shape()[d]) {
            return Status::badInput(op + ": indices shape " + shapeToString(indices.shape()) +
                                    " exceeds data shape " + shapeToString(data.shape()) +
                                    " outside the axis");
        }
    }
    std::vector<int64_t> index;
    QL_RETURN_IF_ERROR(readIndices(indices, op, axis, data.shape()[axis], &index));
    const std::vector<int64_t> strides = contiguousStrides(data.shape());
    const Shape &is = indices.shape();
    std::vector<int64_t> pos(is.size(), 0);
    offsets->resize(index.size());
    int64_t base = 0;  // offset of pos with the axis coordinate left out
    for (size_t k = 0; k < index.size(); ++k) {
        (*offsets)[k] = base + index[k] * strides[axis];
        for (int d = static_cast<int>(is.size()) - 1; d >= 0; --d) {
            if (d != axis) base += strides[d];
            if (++pos[d] < is[d]) break;
            if (d != axis) base -= strides[d] * is[d];
            pos[d] = 0;
        }
    }
    return Status::ok();
}

class GatherElementsKernel : public Kernel {
public:
    explicit GatherElementsKernel(const KernelBuildInfo &info)
        : m_axis(info.node.attrInt("axis", 0)) {}

    Status run(KernelContext &ctx) override {
        const Tensor &data = ctx.input(0), &indices = ctx.input(1);
        int64_t axis = 0;
        QL_RETURN_IF_ERROR(normalizeAxis(m_axis, data.rank(), "GatherElements axis", &axis));
        std::vector<int64_t> offsets;
        QL_RETURN_IF_ERROR(elementOffsets(data, indices, axis, "GatherElements", &offsets));
        Tensor &out = ctx.allocateOutput(0, data.dtype(), indices.shape());
        const size_t es = dataTypeSize(data.dtype());
        const auto *src = static_cast<const uint8_t *>(data.rawData());
        auto *dst = static_cast<uint8_t *>(out.rawData());
        for (size_t k = 0; k < offsets.size(); ++k)
            std::memcpy(dst + k * es, src + offsets[k] * es, es);
        return Status::ok();
    }

private:
    int64_t m_axis;
};

// Splits [batch..., M..., k] indices into per-tuple source offsets of `data` slices.
Status tupleOffsets(const Tensor &data, const Tensor &indices, int64_t batchDims,
                    const std::string &op, std::vector<int64_t> *offsets, int64_t *sliceSize) {
    const int64_t r = data.rank(), q = indices.rank();
    if (q < 1 || batchDims < 0 || batchDims >= q || batchDims >= r)
        return Status::badInput(op + ": invalid indices rank " + std::to_string(q) +
                                " or batch_dims");
    const int64_t k = indices.shape()[q - 1];
    if (k < 1 || k > r - batchDims)
        return Status::badInput(op + ": index tuples of length " + std::to_string(k) +
                                " do not fit data rank " + std::to_string(r));
    for (int64_t d = 0; d < batchDims; ++d) {
        if (indices.shape()[d] != data.shape()[d])
            return Status::badInput(op + ": batch dims of " + shapeToString(indices.shape()) +
                                    " and " + shapeToString(data.shape()) + " differ");
    }
    std::vector<int64_t> raw;
    QL_RETURN_IF_ERROR(readInts(indices, op + " 'indices'", &raw));
    const std::vector<int64_t> strides = contiguousStrides(data.shape());
    const int64_t batch = productOf(data.shape(), 0, batchDims);
    const int64_t batchStride = productOf(data.shape(), batchDims, r);
    const int64_t tuples = static_cast<int64_t>(raw.size()) / k;
    const int64_t perBatch = tuples / std::max<int64_t>(batch, 1);
    *sliceSize = productOf(data.shape(), batchDims + k, r);
    offsets->resize(tuples);
    for (int64_t t = 0; t < tuples; ++t) {
        int64_t offset = (perBatch ? t / perBatch : 0) * batchStride;
        for (int64_t j = 0; j < k; ++j) {
            const int64_t dim = data.shape()[batchDims + j];
            int64_t i = raw[t * k + j];
            if (i < -dim || i >= dim) {
                return Status::badInput(
                    op + " index " + std::to_string(i) + " is out of range for axis " +
                    std::to_string(batchDims + j) + " of size " + std::to_string(dim));
            }
            offset += (i < 0 ? i + dim : i) * strides[batchDims + j];
        }
        (*offsets)[t] = offset;
    }
    return Status::ok();
}

class GatherNDKernel : public Kernel {
public:
    explicit GatherNDKernel(const KernelBuildInfo &info)
        : m_batchDims(info.node.attrInt("batch_dims", 0)) {}

    Status run(KernelContext &ctx) override {
        const Tensor &data = ctx.input(0), &indices = ctx.input(1);
        std::vector<int64_t> offsets;
        int64_t slice = 0;
        QL_RETURN_IF_ERROR(tupleOffsets(data, indices, m_batchDims, "GatherND", &offsets, &slice));
        Shape outShape(indices.shape().begin(), indices.shape().end() - 1);
        const int64_t k = indices.shape().back();
        outShape.insert(outShape.end(), data.shape().begin() + m_batchDims + k, data.shape().end());
        Tensor &out = ctx.allocateOutput(0, data.dtype(), outShape);
        const size_t chunk = static_cast<size_t>(slice) * dataTypeSize(data.dtype());
        const size_t es = dataTypeSize(data.dtype());
        for (size_t t = 0; t < offsets.size(); ++t)
            std::memcpy(out.data<uint8_t>() + t * chunk, data.data<uint8_t>() + offsets[t] * es,
                        chunk);
        return Status::ok();
    }

private:
    int64_t m_batchDims;
};

enum class Reduction { None, Add, Mul, Max, Min };

template <class T>
void combine(T *dst, const T *src, int64_t count, Reduction r) {
    for (int64_t i = 0; i < count; ++i) {
        switch (r) {
            case Reduction::Add:
                dst[i] = static_cast<T>(dst[i] + src[i]);
                break;
            case Reduction::Mul:
                dst[i] = static_cast<T>(dst[i] * src[i]);
                break;
            case Reduction::Max:
                dst[i] = std::max(dst[i], src[i]);
                break;
            case Reduction::Min:
                dst[i] = std::min(dst[i], src[i]);
                break;
            case Reduction::None:
                dst[i] = src[i];
                break;
        }
    }
}

// Scatters `count`-element slices of updates into a copy of data at the given offsets.
Status scatter(KernelContext &ctx, const Tensor &data, const Tensor &updates,
               const std::vector<int64_t> &offsets, int64_t count, Reduction reduction,
               const std::string &op) {
    if (updates.dtype() != data.dtype())
        return Status::badInput(op + ": updates dtype differs from data");
    if (updates.numel() != static_cast<int64_t>(offsets.size()) * count) {
        return Status::badInput(op + ": updates shape " + shapeToString(updates.shape()) +
                                " does not match the indices");
    }
    Tensor &out = ctx.allocateOutput(0, data.dtype(), data.shape());
    if (data.byteSize()) std::memcpy(out.rawData(), data.rawData(), data.byteSize());
    const size_t es = dataTypeSize(data.dtype());
    auto *dst = static_cast<uint8_t *>(out.rawData());
    const auto *src = static_cast<const uint8_t *>(updates.rawData());
    if (reduction == Reduction::None) {
        for (size_t t = 0; t < offsets.size(); ++t)
            std::memcpy(dst + offsets[t] * es, src + t * count * es, count * es);
        return Status::ok();
    }
    auto apply = [&](auto tag) {
        using T = decltype(tag);
        for (size_t t = 0; t < offsets.size(); ++t)
            combine(reinterpret_cast<T *>(dst) + offsets[t],
                    reinterpret_cast<const T *>(src) + t * count, count, reduction);
    };
    if (!dispatchAmong<float, double, int32_t, int64_t, int8_t, uint8_t>(data.dtype(), apply)) {
        return Status::unsupported(op + " reduction does not support dtype " +
                                   dataTypeName(data.dtype()));
    }
    return Status::ok();
}

Result<Reduction> parseReduction(const std::string &name, const std::string &op) {
    if (name == "none") return Reduction::None;
    if (name == "add") return Reduction::Add;
    if (name == "mul") return Reduction::Mul;
    if (name == "max") return Reduction::Max;
    if (name == "min") return Reduction::Min;
    return Status::unsupported(op + " reduction '" + name + "' is not supported");
}

class ScatterNDKernel : public Kernel {
public:
    explicit ScatterNDKernel(const KernelBuildInfo &info)
        : m_reduction(info.node.attrString("reduction", "none")) {}

    Status run(KernelContext &ctx) override {
        auto reduction = parseReduction(m_reduction, "ScatterND");
        if (!reduction) return reduction.status();
        std::vector<int64_t> offsets;
        int64_t slice = 0;
        QL_RETURN_IF_ERROR(
            tupleOffsets(ctx.input(0), ctx.input(1), 0, "ScatterND", &offsets, &slice));
        return scatter(ctx, ctx.input(0), ctx.input(2), offsets, slice, *reduction, "ScatterND");
    }

private:
    std::string m_reduction;
};

class ScatterElementsKernel : public Kernel {
public:
    explicit ScatterElementsKernel(const KernelBuildInfo &info)
        : m_axis(info.node.attrInt("axis", 0)),
          m_reduction(info.node.attrString("reduction", "none")) {}

    Status run(KernelContext &ctx) override {
        auto reduction = parseReduction(m_reduction, "ScatterElements");
        if (!reduction) return reduction.status();
        const Tensor &data = ctx.input(0), &indices = ctx.input(1), &updates = ctx.input(2);
        if (updates.shape() != indices.shape()) {
            return Status::badInput(
                "ScatterElements: updates shape " + shapeToString(updates.shape()) +
                " differs from indices shape " + shapeToString(indices.shape()));
        }
        int64_t axis = 0;
        QL_RETURN_IF_ERROR(normalizeAxis(m_axis, data.rank(), "ScatterElements axis", &axis));
        std::vector<int64_t> offsets;
        QL_RETURN_IF_ERROR(elementOffsets(data, indices, axis, "ScatterElements", &offsets));
        return scatter(ctx, data, updates, offsets, 1, *reduction, "ScatterElements");
    }

private:
    int64_t m_axis;
    std::string m_reduction;
};

}  // namespace

void registerGatherKernels(KernelRegistry &registry) {
    registry.add("Gather", makeFactory<GatherKernel>());
    registry.add("GatherElements", makeFactory<GatherElementsKernel>());
    registry.add("GatherND", makeFactory<GatherNDKernel>());
    registry.add("ScatterND", makeFactory<ScatterNDKernel>());
    registry.add("ScatterElements", makeFactory<ScatterElementsKernel>());
    registry.add("Scatter", makeFactory<ScatterElementsKernel>());
}

}  // namespace ql::shape

// LayerNormalization (opset 17) and InstanceNormalization: mean/variance over contiguous rows,
// one row per OpenMP iteration. Statistics accumulate in double for accuracy; the per-element
// affine step stays in the input type so it vectorises.

#include <cmath>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/reduction_common.h"

namespace ql::reduction {

namespace {

// Mean and 1/sqrt(var + eps) of one contiguous row (two passes: stable for large means).
template <class T>
void rowStatistics(const T *x, int64_t n, double epsilon, double &mean, double &invStd) {
    double sum = 0.0;
#pragma omp simd reduction(+ : sum)
    for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]);
    mean = n ? sum / static_cast<double>(n) : 0.0;
    double sq = 0.0;
#pragma omp simd reduction(+ : sq)
    for (int64_t i = 0; i < n; ++i) {
        const double d = static_cast<double>(x[i]) - mean;
        sq += d * d;
    }
    const double variance = n ? sq / static_cast<double>(n) : 0.0;
    invStd = 1.0 / std::sqrt(variance + epsilon);
}

bool hasOutput(const Node &node, size_t i) {
    return i < node.outputs.size() && !node.outputs[i].empty();
}

// Broadcasts a Scale/B tensor to the normalised shape (right-aligned, numpy rules) and returns
// it flattened; `data` points into the tensor itself when no expansion is needed.
template <class T>
Status expandToRow(const Tensor &t, const Shape &rowShape, const char *what, std::vector<T> &buffer,
                   const T *&data) {
    const int64_t n = shapeElementCount(rowShape);
    const int extra = t.rank() - static_cast<int>(rowShape.size());
    bool ok = true;
    for (int d = 0; d < t.rank() && ok; ++d) {
        const int64_t dim = t.shape()[d];
        if (d < extra)
            ok = dim == 1;
        else
            ok = dim == 1 || dim == rowShape[d - extra];
    }
    if (!ok) {
        return Status::badInput(std::string(what) + " of shape " + shapeToString(t.shape()) +
                                " does not broadcast to the normalised shape " +
                                shapeToString(rowShape));
    }
    if (t.numel() == n) {
        data = t.data<T>();
        return Status::ok();
    }
    buffer.resize(static_cast<size_t>(n));
    const T *src = t.data<T>();
    const int rank = static_cast<int>(rowShape.size());
    for (int64_t i = 0; i < n; ++i) {
        int64_t rest = i, srcIndex = 0, srcStride = 1;
        for (int d = rank - 1; d >= 0; --d) {
            const int64_t coord = rest % rowShape[d];
            rest /= rowShape[d];
            const int td = d + extra;
            if (td < 0) continue;
            const int64_t tdim = t.shape()[td];
            if (tdim != 1) srcIndex += coord * srcStride;
            srcStride *= tdim;
        }
        buffer[i] = src[srcIndex];
    }
    data = buffer.data();
    return Status::ok();
}

class LayerNormKernel : public Kernel {
public:
    explicit LayerNormKernel(const KernelBuildInfo &info) {
        m_axis = info.node.attrInt("axis", -1);
        m_epsilon = info.node.attrFloat("epsilon", 1e-5f);
        m_wantMean = hasOutput(info.node, 1);
        m_wantInvStd = hasOutput(info.node, 2);
    }

    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        if (x.dtype() == DataType::Float) return runTyped<float>(ctx);
        if (x.dtype() == DataType::Double) return runTyped<double>(ctx);
        return Status::unsupported("LayerNormalization does not support dtype " +
                                   dataTypeName(x.dtype()));
    }

private:
    template <class T>
    Status runTyped(KernelContext &ctx) {
        const Tensor &x = ctx.input(0);
        int64_t axis = 0;
        QL_RETURN_IF_ERROR(normalizeAxis(m_axis, x.rank(), axis));
        const Shape rowShape(x.shape().begin() + axis, x.shape().end());
        const int64_t outer = dimProduct(x.shape(), 0, axis);
        const int64_t inner = shapeElementCount(rowShape);
        if (!ctx.hasInput(1)) return Status::badInput("missing Scale input");
        const Tensor &scaleTensor = ctx.input(1);
        const bool hasBias = ctx.hasInput(2);
        for (size_t i = 1; i <= (hasBias ? 2u : 1u); ++i) {
            if (ctx.input(i).dtype() != x.dtype()) {
                return Status::badInput(std::string(i == 1 ? "Scale" : "B") + " is " +
                                        dataTypeName(ctx.input(i).dtype()) + " but X is " +
                                        dataTypeName(x.dtype()));
            }
        }
        const T *scale = nullptr;
        const T *bias = nullptr;
        std::vector<T> scaleBuffer, biasBuffer;  // only filled when Scale/B need broadcasting
        QL_RETURN_IF_ERROR(expandToRow<T>(scaleTensor, rowShape, "Scale", scaleBuffer, scale));
        if (hasBias)
            QL_RETURN_IF_ERROR(expandToRow<T>(ctx.input(2), rowShape, "B", biasBuffer, bias));

        Tensor &y = ctx.allocateOutput(0, x.dtype(), x.shape());
        Shape statShape(x.shape().begin(), x.shape().begin() + axis);
        statShape.resize(static_cast<size_t>(x.rank()), 1);
        float *meanOut =
            m_wantMean ? ctx.allocateOutput(1, DataType::Float, statShape).data<float>() : nullptr;
        float *invStdOut = m_wantInvStd
                               ? ctx.allocateOutput(2, DataType::Float, statShape).data<float>()
                               : nullptr;

        const T *src = x.data<T>();
        T *dst = y.data<T>();
        const double epsilon = m_epsilon;
        const bool parallel = outer > 1 && outer * inner > kParallelThreshold;
#pragma omp parallel for if (parallel) schedule(static)
        for (int64_t o = 0; o < outer; ++o) {
            const T *row = src + o * inner;
            T *out = dst + o * inner;
            double mean = 0.0, invStd = 0.0;
            rowStatistics(row, inner, epsilon, mean, invStd);
            const T m = static_cast<T>(mean), r = static_cast<T>(invStd);
            if (bias) {
#pragma omp simd
                for (int64_t i = 0; i < inner; ++i) out[i] = (row[i] - m) * r * scale[i] + bias[i];
            } else {
#pragma omp simd
                for (int64_t i = 0; i < inner; ++i) out[i] = (row[i] - m) * r * scale[i];
            }
            if (meanOut) meanOut[o] = static_cast<float>(mean);
            if (invStdOut) invStdOut[o] = static_cast<float>(invStd);
        }
        return Status::ok();
    }

    int64_t m_axis;
    float m_epsilon;
    bool m_wantMean;
    bool m_wantInvStd;
};

// y = scale[c] * (x - mean) / sqrt(var + eps) + B[c], statistics per (n, c) over the spatial dims.
class InstanceNormKernel : public Kernel {
public:
    explicit InstanceNormKernel(const KernelBuildInfo &info) {
        m_epsilon = info.node.attrFloat("epsilon", 1e-5f);
    }

    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        if (x.dtype() == DataType::Float) return runTyped<float>(ctx);
        if (x.dtype() == DataType::Double) return runTyped<double>(ctx);
        return Status::unsupported("InstanceNormalization does not support dtype " +
                                   dataTypeName(x.dtype()));
    }

private:
    template <class T>
    Status runTyped(KernelContext &ctx) {
        const Tensor &x = ctx.input(0);
        if (x.rank() < 2)
            return Status::badInput("input must have rank >= 2, got " + shapeToString(x.shape()));
        if (!ctx.hasInput(1) || !ctx.hasInput(2))
            return Status::badInput("needs inputs scale and B");
        const int64_t channels = x.shape()[1];
        const Tensor &scaleTensor = ctx.input(1), &biasTensor = ctx.input(2);
        for (const Tensor *t : {&scaleTensor, &biasTensor}) {
            if (t->dtype() != x.dtype() || t->numel() != channels) {
                return Status::badInput("scale and B must be " + dataTypeName(x.dtype()) +
                                        " with " + std::to_string(channels) + " elements, got " +
                                        dataTypeName(t->dtype()) + " " + shapeToString(t->shape()));
            }
        }
        const int64_t rows = x.shape()[0] * channels;
        const int64_t spatial = dimProduct(x.shape(), 2, x.rank());
        Tensor &y = ctx.allocateOutput(0, x.dtype(), x.shape());
        const T *src = x.data<T>();
        const T *scale = scaleTensor.data<T>();
        const T *bias = biasTensor.data<T>();
        T *dst = y.data<T>();
        const double epsilon = m_epsilon;
        const bool parallel = rows > 1 && rows * spatial > kParallelThreshold;
#pragma omp parallel for if (parallel) schedule(static)
        for (int64_t r = 0; r < rows; ++r) {
            const T *row = src + r * spatial;
            T *out = dst + r * spatial;
            double mean = 0.0, invStd = 0.0;
            rowStatistics(row, spatial, epsilon, mean, invStd);
            const int64_t c = r % channels;
            const T m = static_cast<T>(mean);
            const T a = static_cast<T>(invStd * static_cast<double>(scale[c]));
            const T b = bias[c];
#pragma omp simd
            for (int64_t i = 0; i < spatial; ++i) out[i] = (row[i] - m) * a + b;
        }
        return Status::ok();
    }

    float m_epsilon;
};

}  // namespace

void registerNormKernels(KernelRegistry &registry) {
    registry.add("LayerNormalization", makeFactory<LayerNormKernel>());
    registry.add("InstanceNormalization", makeFactory<InstanceNormKernel>());
}

}  // namespace ql::reduction

// BatchNormalization, inference form: y = x * scale' + shift' per channel, with
// scale' = scale / sqrt(var + eps) and shift' = B - mean * scale'. A memory-bound loop over the
// tensor's own storage order (plain or channels-last), so no layout conversion is ever needed.
#include <cmath>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/kernel_families.h"

namespace ql {

namespace {

constexpr int64_t kParallelThreshold = 1 << 16;

class BatchNormKernel : public Kernel {
public:
    explicit BatchNormKernel(const KernelBuildInfo &info) {
        const Node &node = info.node;
        m_epsilon = node.attrFloat("epsilon", 1e-5f);
        m_spatial = info.opset < 9 ? node.attrInt("spatial", 1) != 0 : true;
        bool training = info.opset >= 14 && node.attrInt("training_mode", 0) != 0;
        size_t extraOutputs = 0;
        for (size_t o = 1; o < node.outputs.size(); ++o)
            extraOutputs += node.outputs[o].empty() ? 0 : 1;
        // Before opset 14 the extra outputs exist only in training mode.
        if (info.opset < 14 && extraOutputs > 0) training = true;
        if (training && extraOutputs > 0) {
            m_status = Status::unsupported(
                "BatchNormalization in training mode (batch statistics and running-stat outputs) "
                "is not supported; only the inference form is");
        }
        m_passStats = !training && extraOutputs > 0;
        bool allConstant = true;
        for (size_t i = 1; i <= 4; ++i)
            allConstant = allConstant && info.constantInput(i) != nullptr;
        m_constantParams = allConstant;
    }

    bool acceptsChannelsLast(size_t i) const override { return i == 0; }
    Status run(KernelContext &ctx) override;

private:
    template <class T>
    void apply(const Tensor &x, Tensor &y, int64_t inner) const;
    Status prepare(KernelContext &ctx, int64_t channels, int64_t inner);

    float m_epsilon = 1e-5f;
    bool m_spatial = true;
    bool m_passStats = false;
    bool m_constantParams = false;
    Status m_status;
    std::vector<double> m_scale, m_shift;  // folded per channel (or per activation)
    bool m_prepared = false;
};

Status BatchNormKernel::prepare(KernelContext &ctx, int64_t channels, int64_t inner) {
    const int64_t expected = m_spatial ? channels : channels * inner;
    for (size_t i = 1; i <= 4; ++i) {
        if (!ctx.hasInput(i)) return Status::badInput("BatchNormalization needs 5 inputs");
        const Tensor &p = ctx.input(i);
        if (!isFloatingPoint(p.dtype()))
            return Status::unsupported("BatchNormalization parameter of type " +
                                       dataTypeName(p.dtype()));
        if (p.numel() != expected) {
            return Status::badInput("BatchNormalization parameter " + std::to_string(i) +
                                    " has shape " + shapeToString(p.shape()) + ", expected " +
                                    std::to_string(expected) + " values");
        }
    }
    if (m_prepared && m_constantParams && static_cast<int64_t>(m_scale.size()) == expected)
        return Status::ok();
    const std::vector<float> scale = ctx.input(1).toFloatVector(),
                             bias = ctx.input(2).toFloatVector(),
                             mean = ctx.input(3).toFloatVector(),
                             var = ctx.input(4).toFloatVector();
    m_scale.resize(expected);
    m_shift.resize(expected);
    for (int64_t c = 0; c < expected; ++c) {
        m_scale[c] = scale[c] / std::sqrt(static_cast<double>(var[c]) + m_epsilon);
        m_shift[c] = bias[c] - mean[c] * m_scale[c];
    }
    m_prepared = true;
    return Status::ok();
}

template <class T>
void BatchNormKernel::apply(const Tensor &x, Tensor &y, int64_t inner) const {
    const T *in = x.data<T>();
    T *out = y.data<T>();
    const int64_t batch = x.dim(0), channels = x.dim(1);
    std::vector<T> scale(m_scale.begin(), m_scale.end()), shift(m_shift.begin(), m_shift.end());
    const T *s = scale.data(), *b = shift.data();
    const bool parallel = x.numel() > kParallelThreshold;
    if (x.layout() == Layout::ChannelsLast) {
        // [N, inner, C] storage: the channel vector is contiguous.
        const int64_t pixels = batch * inner;
        const int64_t paramStride = m_spatial ? 0 : 1;
#pragma omp parallel for if (parallel)
        for (int64_t p = 0; p < pixels; ++p) {
            const T *xi = in + p * channels;
            T *yo = out + p * channels;
            const int64_t offset = paramStride * (p % inner);
            if (m_spatial) {
                for (int64_t c = 0; c < channels; ++c) yo[c] = xi[c] * s[c] + b[c];
            } else {
                for (int64_t c = 0; c < channels; ++c)
                    yo[c] = xi[c] * s[c * inner + offset] + b[c * inner + offset];
            }
        }
        return;
    }
    const int64_t planes = batch * channels;
#pragma omp parallel for if (parallel)
    for (int64_t plane = 0; plane < planes; ++plane) {
        const int64_t c = plane % channels;
        const T *xi = in + plane * inner;
        T *yo = out + plane * inner;
        if (m_spatial) {
            const T sc = s[c], sh = b[c];
            for (int64_t i = 0; i < inner; ++i) yo[i] = xi[i] * sc + sh;
        } else {
            const T *sc = s + c * inner, *sh = b + c * inner;
            for (int64_t i = 0; i < inner; ++i) yo[i] = xi[i] * sc[i] + sh[i];
        }
    }
}

Status BatchNormKernel::run(KernelContext &ctx) {
    QL_RETURN_IF_ERROR(m_status);
    const Tensor &x = ctx.input(0);
    if (x.dtype() != DataType::Float && x.dtype() != DataType::Double)
        return Status::unsupported("BatchNormalization on " + dataTypeName(x.dtype()) +
                                   " is not supported");
    if (x.rank() < 2)
        return Status::badInput("BatchNormalization input " + shapeToString(x.shape()) +
                                " has rank < 2");
    const int64_t channels = x.dim(1);
    const int64_t inner = channels ? x.numel() / (x.dim(0) * channels) : 0;
    if (x.numel() == 0) {
        ctx.allocateOutput(0, x.dtype(), x.shape(), x.layout());
    } else {
        QL_RETURN_IF_ERROR(prepare(ctx, channels, inner));
        Tensor &y = ctx.allocateOutput(0, x.dtype(), x.shape(), x.layout());
        if (x.dtype() == DataType::Float)
            apply<float>(x, y, inner);
        else
            apply<double>(x, y, inner);
    }
    if (m_passStats) {  // inference: the running statistics stay as they were
        if (ctx.outputCount() > 1) ctx.setOutput(1, ctx.input(3));
        if (ctx.outputCount() > 2) ctx.setOutput(2, ctx.input(4));
    }
    return Status::ok();
}

}  // namespace

void registerNormalizationKernels(KernelRegistry &registry) {
    registry.add("BatchNormalization", makeFactory<BatchNormKernel>());
}

}  // namespace ql

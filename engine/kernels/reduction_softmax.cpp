// Softmax and LogSoftmax. float goes through oneDNN's softmax (vectorised exp, rows in
// parallel); double and anything oneDNN refuses use the plain loops below.

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/dnnl_scratchpad.h"
#include "kernels/dnnl_support.h"
#include "kernels/kernel.h"
#include "kernels/reduction_common.h"

namespace ql::reduction {

namespace {

namespace ds = dnnl_support;

// Softmax over the middle dim of [outer, len, inner], numerically stable (max subtracted).
template <class T>
void softmaxLoop(const T *x, T *y, int64_t outer, int64_t len, int64_t inner, bool isLog) {
    const bool parallel = outer * len * inner > kParallelThreshold;
#pragma omp parallel for collapse(2) if (parallel) schedule(static)
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
            const T *src = x + o * len * inner + i;
            T *dst = y + o * len * inner + i;
            T maxValue = -std::numeric_limits<T>::infinity();
            for (int64_t l = 0; l < len; ++l) maxValue = std::max(maxValue, src[l * inner]);
            double sum = 0.0;
            for (int64_t l = 0; l < len; ++l) {
                const T e = std::exp(src[l * inner] - maxValue);
                if (!isLog) dst[l * inner] = e;
                sum += e;
            }
            if (isLog) {
                const T shift = maxValue + static_cast<T>(std::log(sum));
                for (int64_t l = 0; l < len; ++l) dst[l * inner] = src[l * inner] - shift;
            } else {
                const T scale = static_cast<T>(1.0 / sum);
                for (int64_t l = 0; l < len; ++l) dst[l * inner] *= scale;
            }
        }
    }
}

class SoftmaxKernel : public Kernel {
public:
    SoftmaxKernel(const KernelBuildInfo &info, bool isLog)
        : m_isLog(isLog), m_opType(info.node.opType), m_legacy(info.opset < 13) {
        // Before opset 13 the input is coerced to 2-D at `axis` (default 1); from 13 on the
        // softmax runs along `axis` alone (default -1).
        m_axis = info.node.attrInt("axis", m_legacy ? 1 : -1);
    }

    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        int64_t outer = 1, len = 1, inner = 1;
        if (m_legacy) {
            // Coercion accepts axis == rank too (everything lands in the outer dim).
            if (m_axis < -x.rank() || m_axis > x.rank())
                return Status::badInput("axis " + std::to_string(m_axis) +
                                        " is out of range for rank " + std::to_string(x.rank()));
            const int64_t axis = m_axis < 0 ? m_axis + x.rank() : m_axis;
            outer = dimProduct(x.shape(), 0, axis);
            len = dimProduct(x.shape(), axis, x.rank());
        } else {
            int64_t axis = 0;
            QL_RETURN_IF_ERROR(normalizeAxis(m_axis, x.rank(), axis));
            outer = dimProduct(x.shape(), 0, axis);
            len = x.shape()[axis];
            inner = dimProduct(x.shape(), axis + 1, x.rank());
        }
        if (x.dtype() != DataType::Float && x.dtype() != DataType::Double)
            return Status::unsupported(m_opType + " does not support dtype " +
                                       dataTypeName(x.dtype()));
        Tensor &y = ctx.allocateOutput(0, x.dtype(), x.shape());
        if (x.numel() == 0) return Status::ok();
        if (x.dtype() == DataType::Double) {
            softmaxLoop(x.data<double>(), y.data<double>(), outer, len, inner, m_isLog);
            return Status::ok();
        }
        if (runDnnl(x, y, outer, len, inner)) return Status::ok();
        softmaxLoop(x.data<float>(), y.data<float>(), outer, len, inner, m_isLog);
        return Status::ok();
    }

private:
    // False when oneDNN cannot build the primitive; the caller then uses the plain loop.
    bool runDnnl(const Tensor &x, Tensor &y, int64_t outer, int64_t len, int64_t inner) {
        const Shape key{outer, len, inner};
        if (key != m_cachedKey) {
            m_cachedKey = key;
            m_primitiveOk = false;
            try {
                using dt = dnnl::memory::data_type;
                const dnnl::memory::dims dims = inner == 1 ? dnnl::memory::dims{outer, len}
                                                           : dnnl::memory::dims{outer, len, inner};
                m_desc =
                    dnnl::memory::desc(dims, dt::f32, ds::plainTag(static_cast<int>(dims.size())));
                const auto alg =
                    m_isLog ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate;
                dnnl::softmax_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg, m_desc,
                                                    m_desc, 1);
                m_primitive = dnnl::softmax_v2_forward(dnnl::softmax_v2_forward::primitive_desc(
                    desc, ds::ownScratchpad(), ds::cpuEngine()));
                m_primitiveOk = true;
            } catch (const dnnl::error &) {
                m_primitiveOk = false;
            }
        }
        if (!m_primitiveOk) return false;
        dnnl::memory src = ds::wrap(x, m_desc);
        dnnl::memory dst = ds::wrap(y, m_desc);
        dnnl::stream &stream = ds::threadStream();
        ds::execute(m_primitive, stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
        stream.wait();
        return true;
    }

    bool m_isLog;
    std::string m_opType;
    bool m_legacy;
    int64_t m_axis;
    Shape m_cachedKey;
    bool m_primitiveOk = false;
    dnnl::memory::desc m_desc;
    dnnl::softmax_v2_forward m_primitive;
};

}  // namespace

void registerSoftmaxKernels(KernelRegistry &registry) {
    registry.add("Softmax", [](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new SoftmaxKernel(info, false));
    });
    registry.add("LogSoftmax", [](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new SoftmaxKernel(info, true));
    });
}

}  // namespace ql::reduction

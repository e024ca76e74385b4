#pragma once
// Internal: one generic kernel for the layout-agnostic unary ops. Each op is a generic lambda
// (called with float, double or an integer type); float tensors of useful size may instead run
// a oneDNN eltwise primitive (JIT-vectorised, much faster for exp/tanh-like functions).

#include <dnnl.hpp>

#include <string>
#include <type_traits>
#include <utility>

#include "ir/data_type.h"
#include "kernels/elementwise_support.h"
#include "kernels/elementwise_vector.h"
#include "kernels/kernel.h"

namespace ql::elementwise {

// Which dtypes a unary op accepts besides float, double, float16 and bfloat16.
enum class IntSupport { None, Signed, All };

struct DnnlEltwise {
    dnnl::algorithm algorithm = dnnl::algorithm::undef;
    float alpha = 0.0f;
    float beta = 0.0f;
};

// Below this element count a plain loop beats launching a oneDNN primitive.
constexpr int64_t kDnnlMinElements = 2048;

// A oneDNN eltwise primitive over a flat f32 buffer, rebuilt when the element count changes.
class EltwiseRunner {
public:
    explicit EltwiseRunner(DnnlEltwise op) : m_op(op) {}
    bool enabled() const { return m_op.algorithm != dnnl::algorithm::undef; }
    Status run(const Tensor &input, Tensor &output);

private:
    DnnlEltwise m_op;
    int64_t m_elements = -1;
    dnnl::eltwise_forward m_primitive;
    dnnl::memory::desc m_desc;
};

template <class T, class Op>
QL_ALWAYS_INLINE void unaryLoop(const T *in, T *out, int64_t n, const Op &op) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(op(in[i]));
}

template <class Op>
QL_SIMD_CLONES void unaryLoopFloat(const float *in, float *out, int64_t n, Op op) {
    unaryLoop(in, out, n, op);
}

template <class T, class Op>
void applyUnary(const T *in, T *out, int64_t n, const Op &op) {
    parallelRange(n, [&](int64_t begin, int64_t end) {
        if constexpr (std::is_same_v<T, float>)
            unaryLoopFloat(in + begin, out + begin, end - begin, op);
        else
            unaryLoop(in + begin, out + begin, end - begin, op);
    });
}

// float16/bfloat16: convert a block to float, apply, convert back.
template <class Op>
void applyUnaryHalf(const uint16_t *in, uint16_t *out, int64_t n, const Op &op, bool bfloat) {
    parallelRange(n, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            const float x = bfloat ? bfloat16ToFloat(in[i]) : halfToFloat(in[i]);
            const float y = static_cast<float>(op(x));
            out[i] = bfloat ? floatToBfloat16(y) : floatToHalf(y);
        }
    });
}

template <class Op, IntSupport Ints>
class UnaryKernel final : public Kernel {
public:
    UnaryKernel(Op op, DnnlEltwise dnnl, FloatBulkFn bulk)
        : m_op(std::move(op)), m_dnnl(dnnl), m_bulk(bulk) {}

    bool acceptsChannelsLast(size_t) const override { return true; }

    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        const DataType type = x.dtype();
        if (!supports(type)) {
            return Status::unsupported("input type " + dataTypeName(type) + " is not supported");
        }
        Tensor &y = ctx.allocateOutput(0, type, x.shape(), x.layout());
        const int64_t n = x.numel();
        if (type == DataType::Float && m_bulk) {
            const float *in = x.data<float>();
            float *out = y.data<float>();
            parallelRange(n, [&](int64_t begin, int64_t end) {
                m_bulk(in + begin, out + begin, end - begin);
            });
            return Status::ok();
        }
        if (type == DataType::Float && m_dnnl.enabled() && n >= kDnnlMinElements)
            return m_dnnl.run(x, y);
        if (isHalfType(type)) {
            applyUnaryHalf(x.data<uint16_t>(), y.data<uint16_t>(), n, m_op,
                           type == DataType::BFloat16);
            return Status::ok();
        }
        dispatchNumeric(type, [&](auto tag) {
            using T = decltype(tag);
            if constexpr (supportsType<T>()) applyUnary(x.data<T>(), y.data<T>(), n, m_op);
        });
        return Status::ok();
    }

private:
    template <class T>
    static constexpr bool supportsType() {
        if constexpr (std::is_floating_point_v<T>)
            return true;
        else if constexpr (std::is_signed_v<T>)
            return Ints != IntSupport::None;
        else
            return Ints == IntSupport::All;
    }

    static bool supports(DataType type) {
        if (isFloatingPoint(type)) return true;
        if (!isInteger(type)) return false;
        const bool isUnsigned = type == DataType::UInt8 || type == DataType::UInt16 ||
                                type == DataType::UInt32 || type == DataType::UInt64;
        return isUnsigned ? Ints == IntSupport::All : Ints != IntSupport::None;
    }

    Op m_op;
    EltwiseRunner m_dnnl;
    FloatBulkFn m_bulk;
};

// `dnnl` serves float tensors of kDnnlMinElements or more; `bulk`, when given, all float tensors.
template <IntSupport Ints = IntSupport::None, class Op>
Result<KernelPtr> makeUnary(Op op, DnnlEltwise dnnl = {}, FloatBulkFn bulk = nullptr) {
    return KernelPtr(new UnaryKernel<Op, Ints>(std::move(op), dnnl, bulk));
}

// Registers the ops that are not plain lambdas: Cast, CastLike, Clip, Dropout, Identity, Not.
void registerElementwiseMiscKernels(KernelRegistry &registry);

}  // namespace ql::elementwise

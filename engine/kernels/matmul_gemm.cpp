// Gemm: Y = alpha * A' * B' + beta * C on oneDNN matmul. Transposes are strided views, C is
// the matmul bias (it broadcasts the same way), alpha a linear post-op. Constant B is packed once.
#include <unordered_map>
#include <vector>

#include "kernels/dnnl_scratchpad.h"
#include "kernels/dnnl_support.h"
#include "kernels/matmul_common.h"

namespace ql::matmul {

namespace {

using dnnl::memory;
namespace ds = dnnl_support;

class GemmKernel : public Kernel {
public:
    explicit GemmKernel(const KernelBuildInfo &info) {
        const Node &node = info.node;
        m_alpha = node.attrFloat("alpha", 1.0f);
        m_beta = node.attrFloat("beta", 1.0f);
        m_transA = node.attrInt("transA", 0) != 0;
        m_transB = node.attrInt("transB", 0) != 0;
        if (const Tensor *b = info.constantInput(1)) m_constB = *b;
        if (const Tensor *c = info.constantInput(2)) m_constC = *c;
    }
    Status run(KernelContext &ctx) override;

private:
    struct Entry {
        Shape aShape, bShape, cShape;
        bool hasBias = false;
        dnnl::matmul primitive;
        memory src, dst, bias;
        ds::PackedWeights weights;
        std::vector<float> scaledBias;  // beta/alpha * C when that differs from C
        bool biasReady = false;
    };
    Status build(int64_t m, int64_t k, int64_t n, const Shape &cShape, bool constantB,
                 Entry &e) const;
    template <class T>
    void naiveGemm(const Tensor &a, const Tensor &b, const Tensor *c, Tensor &out, int64_t m,
                   int64_t k, int64_t n) const;

    float m_alpha = 1.0f, m_beta = 1.0f;
    bool m_transA = false, m_transB = false;
    Tensor m_constB, m_constC;
    ds::ShapeCache<Entry> m_cache;
};

// C broadcast to [m, n] as (rows, cols) of 1 or the full size; false when it does not fit.
bool biasDims(const Shape &c, int64_t m, int64_t n, int64_t &rows, int64_t &cols) {
    if (c.size() > 2) return false;
    rows = c.size() == 2 ? c[0] : 1;
    cols = c.empty() ? 1 : c.back();
    return (rows == 1 || rows == m) && (cols == 1 || cols == n);
}

Status GemmKernel::build(int64_t m, int64_t k, int64_t n, const Shape &cShape, bool constantB,
                         Entry &e) const {
    const auto f32 = memory::data_type::f32;
    const memory::desc srcDesc({m, k}, f32, m_transA ? memory::dims{1, m} : memory::dims{k, 1});
    const memory::desc userWeights({k, n}, f32, m_transB ? memory::dims{1, k} : memory::dims{n, 1});
    const memory::desc dstDesc({m, n}, f32, memory::format_tag::ab);
    memory::desc biasDesc;
    if (e.hasBias) {
        int64_t rows = 1, cols = 1;
        biasDims(cShape, m, n, rows, cols);
        biasDesc = memory::desc({rows, cols}, f32, memory::format_tag::ab);
    }
    dnnl::primitive_attr attr = ds::ownScratchpad();
    if (m_alpha != 1.0f) {
        dnnl::post_ops ops;
        ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_linear, m_alpha, 0.0f);
        attr.set_post_ops(ops);
    }
    try {
        const memory::desc weightsDesc =
            constantB ? memory::desc({k, n}, f32, memory::format_tag::any) : userWeights;
        dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(srcDesc, weightsDesc, biasDesc, dstDesc),
                                        attr, ds::cpuEngine());
        e.primitive = dnnl::matmul(pd);
        e.src = memory(srcDesc, ds::cpuEngine(), nullptr);
        e.dst = memory(dstDesc, ds::cpuEngine(), nullptr);
        e.weights.init(userWeights, pd.weights_desc());
        if (e.hasBias) e.bias = memory(biasDesc, ds::cpuEngine(), nullptr);
    } catch (const dnnl::error &err) {
        return ds::dnnlFailure("Gemm [" + std::to_string(m) + "x" + std::to_string(k) + "] x [" +
                                   std::to_string(k) + "x" + std::to_string(n) + "]",
                               err, true);
    }
    return Status::ok();
}

template <class T>
void GemmKernel::naiveGemm(const Tensor &a, const Tensor &b, const Tensor *c, Tensor &out,
                           int64_t m, int64_t k, int64_t n) const {
    T *y = out.data<T>();
    naiveProduct(a.data<T>(), m_transA ? 1 : k, m_transA ? m : 1, b.data<T>(), m_transB ? 1 : n,
                 m_transB ? k : 1, y, m, k, n);
    const T alpha = static_cast<T>(m_alpha), beta = static_cast<T>(m_beta);
    int64_t rows = 1, cols = 1;
    if (c) biasDims(c->shape(), m, n, rows, cols);
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            T v = alpha * y[i * n + j];
            if (c) v += beta * c->data<T>()[(rows == 1 ? 0 : i) * cols + (cols == 1 ? 0 : j)];
            y[i * n + j] = v;
        }
    }
}

Status GemmKernel::run(KernelContext &ctx) {
    const Tensor &a = ctx.input(0);
    const Tensor &b = ctx.input(1);
    const Tensor *c = ctx.hasInput(2) ? &ctx.input(2) : nullptr;
    if (a.rank() != 2 || b.rank() != 2) {
        return Status::badInput("Gemm needs 2-D A and B, got " + shapeToString(a.shape()) +
                                " and " + shapeToString(b.shape()));
    }
    if (a.dtype() != b.dtype() || (c && c->dtype() != a.dtype()))
        return Status::badInput("Gemm operands differ in type");
    const int64_t m = m_transA ? a.dim(1) : a.dim(0), k = m_transA ? a.dim(0) : a.dim(1);
    const int64_t kb = m_transB ? b.dim(1) : b.dim(0), n = m_transB ? b.dim(0) : b.dim(1);
    if (k != kb) {
        return Status::badInput("Gemm inner dimensions differ: A " + shapeToString(a.shape()) +
                                ", B " + shapeToString(b.shape()) + (m_transA ? " (transA)" : "") +
                                (m_transB ? " (transB)" : ""));
    }
    int64_t rows = 1, cols = 1;
    if (c && !biasDims(c->shape(), m, n, rows, cols)) {
        return Status::badInput("Gemm C " + shapeToString(c->shape()) + " does not broadcast to [" +
                                std::to_string(m) + "," + std::to_string(n) + "]");
    }
    Tensor &out = ctx.allocateOutput(0, a.dtype(), {m, n});
    if (out.numel() == 0) return Status::ok();
    if (a.dtype() != DataType::Float || k == 0 || m_alpha == 0.0f) {
        return dispatchFallbackType(a.dtype(), "Gemm", [&](auto zero) {
            naiveGemm<decltype(zero)>(a, b, c, out, m, k, n);
        });
    }
    const bool useBias = c && m_beta != 0.0f;
    const Shape cShape = c ? c->shape() : Shape{};
    const bool constantB = m_constB.defined() && b.storage() == m_constB.storage();
    Result<Entry *> entry = m_cache.findOrBuild(
        [&](const Entry &e) {
            return e.aShape == a.shape() && e.bShape == b.shape() && e.cShape == cShape &&
                   e.hasBias == useBias;
        },
        [&](Entry &e) {
            e.aShape = a.shape();
            e.bShape = b.shape();
            e.cShape = cShape;
            e.hasBias = useBias;
            return build(m, k, n, cShape, constantB, e);
        });
    if (!entry) return entry.status();
    Entry &e = *entry.value();
    return ds::runOnStream("Gemm", [&](dnnl::stream &stream) {
        e.src.set_data_handle(const_cast<void *>(a.rawData()));
        e.dst.set_data_handle(out.rawData());
        std::unordered_map<int, memory> args{
            {DNNL_ARG_SRC, e.src},
            {DNNL_ARG_WEIGHTS, e.weights.prepare(stream, b.rawData(), constantB, &b)},
            {DNNL_ARG_DST, e.dst}};
        if (useBias) {
            // The post-op scales the bias by alpha too, so the bias carries beta / alpha.
            const float factor = m_beta / m_alpha;
            if (factor == 1.0f) {
                e.bias.set_data_handle(const_cast<void *>(c->rawData()));
            } else {
                const bool constantC = m_constC.defined() && c->storage() == m_constC.storage();
                if (!constantC || !e.biasReady) {
                    e.scaledBias.resize(static_cast<size_t>(c->numel()));
                    for (int64_t i = 0; i < c->numel(); ++i)
                        e.scaledBias[i] = c->data<float>()[i] * factor;
                    e.biasReady = constantC;
                }
                e.bias.set_data_handle(e.scaledBias.data());
            }
            args[DNNL_ARG_BIAS] = e.bias;
        }
        ds::execute(e.primitive, stream, args);
    });
}

}  // namespace

Result<KernelPtr> makeGemmKernel(const KernelBuildInfo &info) {
    return KernelPtr(new GemmKernel(info));
}

}  // namespace ql::matmul

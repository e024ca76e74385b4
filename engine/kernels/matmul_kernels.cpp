// MatMul (numpy semantics: 1-D operands, broadcast batch dims) on oneDNN matmul for float32,
// with constant right-hand sides packed once, on their second run; plain loops for the other
// numeric types.
#include <optional>
#include <unordered_map>
#include <vector>

#include "kernels/dnnl_scratchpad.h"
#include "kernels/dnnl_support.h"
#include "kernels/kernel.h"
#include "kernels/kernel_families.h"
#include "kernels/matmul_common.h"

namespace ql {

namespace {

using dnnl::memory;
namespace ds = dnnl_support;
using namespace matmul;

constexpr size_t kMaxDnnlRank = 12;

memory::dims rowMajorStrides(const memory::dims &dims) {
    memory::dims strides(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
    return strides;
}

memory::desc plainDesc(const memory::dims &dims) {
    return memory::desc(dims, memory::data_type::f32, rowMajorStrides(dims));
}

template <class T>
void naiveBatchedMatMul(const MatMulShapes &s, const T *a, const T *b, T *out) {
    const size_t rank = s.batch.size();
    const int64_t batches = shapeElementCount(s.batch);
    // Element offsets of each batch dim in a and b; 0 where the operand is broadcast.
    std::vector<int64_t> aStride(rank), bStride(rank);
    int64_t as = s.m * s.k, bs = s.k * s.n;
    for (size_t i = rank; i-- > 0;) {
        aStride[i] = s.a[i] == 1 ? 0 : as;
        bStride[i] = s.b[i] == 1 ? 0 : bs;
        as *= s.a[i];
        bs *= s.b[i];
    }
    const bool parallel = batches > 1 && batches * s.m * s.n * s.k > (1 << 16);
#pragma omp parallel for if (parallel)
    for (int64_t bi = 0; bi < batches; ++bi) {
        int64_t rest = bi, aOff = 0, bOff = 0;
        for (size_t i = rank; i-- > 0;) {
            const int64_t idx = rest % s.batch[i];
            rest /= s.batch[i];
            aOff += idx * aStride[i];
            bOff += idx * bStride[i];
        }
        naiveProduct(a + aOff, s.k, 1, b + bOff, s.n, 1, out + bi * s.m * s.n, s.m, s.k, s.n);
    }
}

class MatMulKernel : public Kernel {
public:
    explicit MatMulKernel(const KernelBuildInfo &info) {
        if (const Tensor *b = info.constantInput(1)) m_constB = *b;
    }
    Status run(KernelContext &ctx) override;

private:
    struct Entry {
        Shape aShape, bShape;
        bool fallback = false;  // oneDNN refused: use the loop
        dnnl::matmul primitive;
        // A constant right-hand side's first run reads it as it is (PackedWeights::packNow).
        std::optional<dnnl::matmul> plainPrimitive;
        memory src, dst;
        ds::PackedWeights weights;
    };
    void build(const MatMulShapes &s, bool constantB, Entry &e) const;

    Tensor m_constB;
    ds::ShapeCache<Entry> m_cache;
};

// When the right-hand side is one matrix for every batch (its batch dims all 1: a weight, or
// broadcast), the batches of the left-hand side are more rows of one GEMM: [B..., M, K] x [K, N]
// is [B...*M, K] x [K, N] in the same memory. One large GEMM (with the weight packed once) instead
// of many small ones: ViT's attention projection multiplies [197, 1, 768] by [1, 768, 2304], 197
// GEMVs otherwise.
MatMulShapes foldBatchesIntoRows(const MatMulShapes &s) {
    if (s.batch.empty()) return s;
    for (size_t i = 0; i < s.batch.size(); ++i)
        if (s.b[i] != 1) return s;
    MatMulShapes folded = s;
    folded.m = shapeElementCount(s.batch) * s.m;
    folded.batch.clear();
    folded.a = {folded.m, s.k};
    folded.b = {s.k, s.n};
    return folded;
}

void MatMulKernel::build(const MatMulShapes &shapes, bool constantB, Entry &e) const {
    const MatMulShapes s = foldBatchesIntoRows(shapes);
    const size_t rank = s.batch.size() + 2;
    if (rank > kMaxDnnlRank) {
        e.fallback = true;
        return;
    }
    memory::dims dstDims(s.batch.begin(), s.batch.end());
    dstDims.push_back(s.m);
    dstDims.push_back(s.n);
    const memory::desc srcDesc = plainDesc(ds::toDims(s.a)),
                       userWeights = plainDesc(ds::toDims(s.b));
    const memory::desc dstDesc = plainDesc(dstDims);
    try {
        const memory::desc weightsDesc =
            constantB
                ? memory::desc(ds::toDims(s.b), memory::data_type::f32, memory::format_tag::any)
                : userWeights;
        dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(srcDesc, weightsDesc, dstDesc),
                                        ds::ownScratchpad(), ds::cpuEngine());
        e.primitive = dnnl::matmul(pd);
        e.src = memory(srcDesc, ds::cpuEngine(), nullptr);
        e.dst = memory(dstDesc, ds::cpuEngine(), nullptr);
        e.weights.init(userWeights, pd.weights_desc());
        if (pd.weights_desc() != userWeights)
            e.plainPrimitive = dnnl::matmul(
                dnnl::matmul::primitive_desc(dnnl::matmul::desc(srcDesc, userWeights, dstDesc),
                                             ds::ownScratchpad(), ds::cpuEngine()));
    } catch (const dnnl::error &) {
        e.fallback = true;  // e.g. a broadcast pattern this oneDNN build does not implement
    }
}

Status MatMulKernel::run(KernelContext &ctx) {
    const Tensor &a = ctx.input(0);
    const Tensor &b = ctx.input(1);
    if (a.dtype() != b.dtype()) {
        return Status::badInput("MatMul operands differ in type: " + dataTypeName(a.dtype()) +
                                " and " + dataTypeName(b.dtype()));
    }
    MatMulShapes s;
    QL_RETURN_IF_ERROR(resolveShapes(a.shape(), b.shape(), s));
    Tensor &out = ctx.allocateOutput(0, a.dtype(), s.output);
    if (out.numel() == 0) return Status::ok();
    if (a.dtype() == DataType::Float && s.k > 0) {
        const bool constantB = m_constB.defined() && b.storage() == m_constB.storage();
        Result<Entry *> entry = m_cache.findOrBuild(
            [&](const Entry &e) { return e.aShape == a.shape() && e.bShape == b.shape(); },
            [&](Entry &e) {
                e.aShape = a.shape();
                e.bShape = b.shape();
                build(s, constantB, e);
                return Status::ok();
            });
        Entry &e = *entry.value();  // building never fails: a refused primitive means fallback
        if (!e.fallback) {
            return ds::runOnStream("MatMul", [&](dnnl::stream &stream) {
                e.src.set_data_handle(const_cast<void *>(a.rawData()));
                e.dst.set_data_handle(out.rawData());
                const bool packed =
                    !e.plainPrimitive || e.weights.packNow(b.rawData(), constantB, &b);
                ds::execute(packed ? e.primitive : *e.plainPrimitive, stream,
                            {{DNNL_ARG_SRC, e.src},
                             {DNNL_ARG_WEIGHTS,
                              packed ? e.weights.prepare(stream, b.rawData(), constantB, &b)
                                     : e.weights.plain(b.rawData())},
                             {DNNL_ARG_DST, e.dst}});
            });
        }
    }
    return dispatchFallbackType(a.dtype(), "MatMul", [&](auto zero) {
        using T = decltype(zero);
        naiveBatchedMatMul<T>(s, a.data<T>(), b.data<T>(), out.data<T>());
    });
}

}  // namespace

void registerMatMulKernels(KernelRegistry &registry) {
    registry.add("MatMul", makeFactory<MatMulKernel>());
    registry.add("Gemm", matmul::makeGemmKernel);
}

namespace matmul {

Status resolveShapes(const Shape &aIn, const Shape &bIn, MatMulShapes &s) {
    if (aIn.empty() || bIn.empty()) return Status::badInput("MatMul operands must have rank >= 1");
    Shape a = aIn, b = bIn;
    if (a.size() == 1) a.insert(a.begin(), 1);
    if (b.size() == 1) b.push_back(1);
    s.m = a[a.size() - 2];
    s.k = a.back();
    s.n = b.back();
    if (b[b.size() - 2] != s.k) {
        return Status::badInput("MatMul inner dimensions differ: " + shapeToString(aIn) + " x " +
                                shapeToString(bIn));
    }
    const size_t batchRank = std::max(a.size(), b.size()) - 2;
    a.insert(a.begin(), batchRank + 2 - a.size(), 1);
    b.insert(b.begin(), batchRank + 2 - b.size(), 1);
    s.batch.clear();
    for (size_t i = 0; i < batchRank; ++i) {
        if (a[i] != b[i] && a[i] != 1 && b[i] != 1) {
            return Status::badInput("MatMul batch dimensions do not broadcast: " +
                                    shapeToString(aIn) + " x " + shapeToString(bIn));
        }
        s.batch.push_back(a[i] == 1 ? b[i] : a[i]);
    }
    s.a = a;
    s.b = b;
    s.output = s.batch;
    if (aIn.size() > 1) s.output.push_back(s.m);
    if (bIn.size() > 1) s.output.push_back(s.n);
    return Status::ok();
}

}  // namespace matmul

}  // namespace ql

// QLinearMatMul and com.microsoft QGemm on oneDNN int8 matmul, plus the exact QGemm reference.
// oneDNN takes the common case: per-tensor A parameters, s8 B (2-D, per-tensor or per-column
// scale, zero zero point), a bias that is per column at most. QLinearMatMul hands the rest to the
// batched kernel (quantized_batched_matmul_dnnl.cpp), QGemm to its exact reference.
// QGemm (ONNX Runtime's contrib op): Y = alpha * a_scale * b_scale[n] * (A'B' + C), then
// quantized with y_scale / y_zero_point, or float32 when y_scale is absent.

#include <cmath>
#include <optional>
#include <unordered_map>
#include <vector>

#include "kernels/dnnl_scratchpad.h"
#include "kernels/dnnl_support.h"
#include "kernels/quantized_dnnl_common.h"
#include "kernels/type_dispatch.h"

namespace ql::quant {
namespace {

using dnnl::memory;
namespace ds = dnnl_support;

// One matrix product as oneDNN sees it: y[M,N] = x[M,K] w[K,N] (+ bias[N]).
struct MatMulKey {
    int64_t m = 0, k = 0, n = 0;
    bool transA = false, transB = false;
    DataType aType = DataType::UInt8, yType = DataType::UInt8;  // yType Float: QGemm w/o y_scale
    std::vector<float> mult;                                    // 1 or N values
    int32_t aZp = 0, yZp = 0;
    bool hasBias = false;
    float yScale = 1.0f;
    bool operator==(const MatMulKey &o) const {
        return m == o.m && k == o.k && n == o.n && transA == o.transA && transB == o.transB &&
               aType == o.aType && yType == o.yType && mult == o.mult && aZp == o.aZp &&
               yZp == o.yZp && hasBias == o.hasBias && yScale == o.yScale;
    }
};

// Input positions: QLinearMatMul (a, as, azp, b, bs, bzp, ys, yzp); QGemm (a, as, azp, b, bs,
// bzp, C, ys, yzp). The same up to b_zero_point.
struct Inputs {
    size_t bias = 0, yScale = 6, yZp = 7;  // bias 0 = none
};

bool scalarFloat(const KernelContext &ctx, size_t i, float &out) {
    std::vector<float> v;
    if (!ctx.hasInput(i) || ctx.input(i).numel() != 1 || !readScales(ctx.input(i), v).isOk())
        return false;
    out = v[0];
    return true;
}

class QuantMatMulDnnl : public Kernel {
public:
    QuantMatMulDnnl(const KernelBuildInfo &info, KernelPtr fallback, bool gemm)
        : m_fallback(std::move(fallback)), m_gemm(gemm) {
        m_status = readQuantActivation(info.node, m_act);
        if (const Tensor *b = info.constantInput(3)) m_constB = *b;
        if (gemm) {
            m_in = Inputs{6, 7, 8};
            m_transA = info.node.attrInt("transA", 0) != 0;
            m_transB = info.node.attrInt("transB", 0) != 0;
            m_alpha = info.node.attrFloat("alpha", 1.0f);
        }
        m_name = info.node.opType + " '" + info.node.name + "'";
        m_allowSaturation = info.node.attrInt(kAllowSaturationAttr, 0) != 0;
    }
    Status run(KernelContext &ctx) override;

private:
    struct Entry {
        MatMulKey key;
        bool flipSrc = false, split = false;
        // Constant B without VNNI: one pass on B with the smaller weight of every pair (2j, 2j+1)
        // along K that could saturate int16 set to 0 (as in quantized_conv_fixups.h); those
        // weights are added back here, column by column.
        bool sparse = false;
        std::vector<int32_t> fixK, fixN, fixValue;
        dnnl::matmul first, second;
        std::optional<dnnl::matmul> firstPlain;  // `first` on B as stored
        memory src, dst, bias, srcZp, dstZp, acc;
        std::vector<uint8_t> flipped;
        std::vector<int32_t> accBuffer;
        std::vector<int8_t> wA, wB;
        bool splitReady = false;
        ds::PackedWeights weights, weightsB;
        int32_t srcZpValue = 0, dstZpValue = 0;
        Requantizer requant;
    };
    bool readKey(const KernelContext &ctx, MatMulKey &k) const;
    Status build(const MatMulKey &key, bool constantB, Entry &e) const;
    Status execute(KernelContext &ctx, Entry &e, const Shape &outShape);

    KernelPtr m_fallback;
    bool m_gemm;
    Inputs m_in;
    bool m_transA = false, m_transB = false;
    float m_alpha = 1.0f;
    QuantActivation m_act;
    bool m_allowSaturation = false;
    Status m_status;
    Tensor m_constB;
    std::string m_name;
    ds::ShapeCache<Entry> m_cache;
};

bool QuantMatMulDnnl::readKey(const KernelContext &ctx, MatMulKey &k) const {
    const Tensor &a = ctx.input(0), &b = ctx.input(3);
    if ((a.dtype() != DataType::UInt8 && a.dtype() != DataType::Int8) ||
        b.dtype() != DataType::Int8)
        return false;
    if (b.rank() != 2 || a.rank() < 2 || (m_gemm && a.rank() != 2)) return false;
    if (a.numel() == 0 || b.numel() == 0) return false;
    k.transA = m_transA;
    k.transB = m_transB;
    k.k = m_transA ? a.dim(0) : a.dim(a.rank() - 1);
    k.m = m_transA ? a.dim(1) : a.numel() / std::max<int64_t>(1, k.k);
    k.n = m_transB ? b.dim(0) : b.dim(1);
    if ((m_transB ? b.dim(1) : b.dim(0)) != k.k) return false;
    k.aType = a.dtype();
    float as = 0.0f;
    if (!scalarFloat(ctx, 1, as)) return false;
    std::vector<int32_t> zp;
    if (ctx.hasInput(2)) {
        if (ctx.input(2).numel() != 1 || !readZeroPoints(ctx.input(2), a.dtype(), zp).isOk())
            return false;
        k.aZp = zp[0];
    }
    std::vector<float> bs;
    if (!ctx.hasInput(4) || !readScales(ctx.input(4), bs).isOk()) return false;
    if (bs.size() != 1 && !(ctx.input(4).rank() == 1 && int64_t(bs.size()) == k.n)) return false;
    if (ctx.hasInput(5)) {
        if (ctx.input(5).shape() != ctx.input(4).shape() ||
            !readZeroPoints(ctx.input(5), DataType::Int8, zp).isOk())
            return false;
        for (int32_t z : zp)
            if (z != 0) return false;
    }
    k.yType = DataType::Float;
    if (ctx.hasInput(m_in.yScale)) {
        if (!scalarFloat(ctx, m_in.yScale, k.yScale)) return false;
        k.yType = ctx.hasInput(m_in.yZp) ? ctx.input(m_in.yZp).dtype() : a.dtype();
        if (k.yType != DataType::UInt8 && k.yType != DataType::Int8) return false;
        if (ctx.hasInput(m_in.yZp)) {
            if (ctx.input(m_in.yZp).numel() != 1 ||
                !readZeroPoints(ctx.input(m_in.yZp), k.yType, zp).isOk())
                return false;
            k.yZp = zp[0];
        }
    } else if (!m_gemm) {
        return false;
    }
    k.hasBias = m_in.bias && ctx.hasInput(m_in.bias);
    if (k.hasBias) {  // per column at most: [N], [1, N] or one value broadcast
        const Tensor &c = ctx.input(m_in.bias);
        const bool perColumn =
            c.numel() == k.n && (c.rank() == 1 || (c.rank() == 2 && c.dim(0) == 1));
        if (c.dtype() != DataType::Int32 || !(perColumn && k.n > 0)) return false;
    }
    k.mult.resize(bs.size());
    for (size_t i = 0; i < bs.size(); ++i)
        k.mult[i] =
            k.yType == DataType::Float ? m_alpha * as * bs[i] : m_alpha * as * bs[i] / k.yScale;
    return true;
}

Status QuantMatMulDnnl::build(const MatMulKey &key, bool constantB, Entry &e) const {
    using dt = memory::data_type;
    using tag = memory::format_tag;
    e.key = key;
    const bool exactDot = cpuHasExactInt8Dot();
    e.flipSrc = !exactDot && key.aType == DataType::Int8;
    // The gemm kernels pair B along K like vpmaddubsw does (consecutive k from 0) when K is a
    // multiple of 4 (measured: with K = 514 or 518 they do not, the blocks of K start at odd
    // k); only constant B is known ahead. Everything else is split in two exact halves.
    e.split = !exactDot && !m_allowSaturation;
    if (e.split && constantB && m_constB.defined() && key.k % 4 == 0) {
        const int8_t *b = m_constB.data<int8_t>();
        auto at = [&](int64_t k, int64_t n) { return key.transB ? n * key.k + k : k * key.n + n; };
        e.wA.assign(b, b + key.k * key.n);
        for (int64_t n = 0; n < key.n; ++n) {
            for (int64_t k = 0; k + 1 < key.k; k += 2) {
                const int v0 = b[at(k, n)], v1 = b[at(k + 1, n)];
                const bool sameSign = (v0 > 0 && v1 > 0) || (v0 < 0 && v1 < 0);
                if (!sameSign || std::abs(v0) + std::abs(v1) <= 128) continue;
                const int64_t moved = std::abs(v0) < std::abs(v1) ? k : k + 1;
                e.fixK.push_back(static_cast<int32_t>(moved));
                e.fixN.push_back(static_cast<int32_t>(n));
                e.fixValue.push_back(b[at(moved, n)]);
                e.wA[at(moved, n)] = 0;
            }
        }
        e.sparse = true;
        e.splitReady = true;
    }
    e.srcZpValue = e.flipSrc ? key.aZp + 128 : key.aZp;
    e.dstZpValue = key.yZp;
    const dt srcType = e.flipSrc ? dt::u8 : dnnlType(key.aType);
    const memory::desc srcDesc({key.m, key.k}, srcType, key.transA ? tag::ba : tag::ab);
    const memory::desc wUser({key.k, key.n}, dt::s8, key.transB ? tag::ba : tag::ab);
    const memory::desc wWanted({key.k, key.n}, dt::s8,
                               constantB ? tag::any : (key.transB ? tag::ba : tag::ab));
    const memory::desc biasDesc({1, key.n}, dt::s32, tag::ab);
    const memory::desc zpDesc({1}, dt::s32, tag::a);
    const int scaleMask = key.mult.size() > 1 ? 1 << 1 : 0;
    try {
        auto &eng = ds::cpuEngine();
        auto makePd = [&](dt dstType, const dnnl::primitive_attr &attr, bool withBias,
                          const memory::desc &weights) {
            const memory::desc dstDesc({key.m, key.n}, dstType, tag::ab);
            dnnl::matmul::desc desc(srcDesc, weights, withBias ? biasDesc : memory::desc(),
                                    dstDesc);
            return dnnl::matmul::primitive_desc(desc, attr, eng);
        };
        if (!e.split) {
            dnnl::primitive_attr attr = ds::ownScratchpad();
            attr.set_output_scales(scaleMask, key.mult);
            if (e.srcZpValue != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
            if (e.dstZpValue != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
            dnnl::post_ops ops;
            if (key.yType != DataType::Float) appendActivation(ops, m_act, key.yScale);
            attr.set_post_ops(ops);
            auto pd = makePd(dnnlType(key.yType), attr, key.hasBias, wWanted);
            e.first = dnnl::matmul(pd);
            e.weights.init(wUser, pd.weights_desc());
            // Exact products are the same from plain weights: a constant's first run reads it
            // as stored (PackedWeights::packNow). Saturating ones could pair B differently.
            if (constantB && exactDot && pd.weights_desc() != wUser)
                e.firstPlain = dnnl::matmul(makePd(dnnlType(key.yType), attr, key.hasBias, wUser));
            e.dst = memory(pd.dst_desc(), eng, nullptr);
        } else {
            const SplitPassAttributes attrs = makeSplitPassAttributes(e.srcZpValue != 0);
            auto pd1 = makePd(dt::s32, attrs.first, key.hasBias, wWanted);
            e.first = dnnl::matmul(pd1);
            e.weights.init(wUser, pd1.weights_desc());
            if (!e.sparse) {
                auto pd2 = makePd(dt::s32, attrs.second, false, wWanted);
                e.second = dnnl::matmul(pd2);
                e.weightsB.init(wUser, pd2.weights_desc());
                e.wA.resize(static_cast<size_t>(key.k * key.n));
                e.wB.resize(e.wA.size());
            }
            e.accBuffer.resize(static_cast<size_t>(key.m * key.n));
            e.acc = memory(pd1.dst_desc(), eng, e.accBuffer.data());
            e.requant.multiplier = key.mult;  // one per column: no expansion per run
            if (key.mult.size() == 1) e.requant.multiplier.assign(key.n, key.mult[0]);
            e.requant.zeroPoint = static_cast<float>(key.yZp);
            if (key.yType != DataType::Float) {
                QL_RETURN_IF_ERROR(integerRange(key.yType, e.requant.lo, e.requant.hi));
                narrowToActivation(m_act, key.yScale, key.yZp, e.requant.lo, e.requant.hi);
            }
        }
        e.src = memory(srcDesc, eng, nullptr);
        if (key.hasBias) e.bias = memory(biasDesc, eng, nullptr);
        // The values' addresses are bound at run time: the entry moves into the cache.
        e.srcZp = memory(zpDesc, eng, nullptr);
        e.dstZp = memory(zpDesc, eng, nullptr);
    } catch (const dnnl::error &err) {
        return ds::dnnlFailure(m_name, err, true);
    }
    return Status::ok();
}

Status QuantMatMulDnnl::execute(KernelContext &ctx, Entry &e, const Shape &outShape) {
    const Tensor &a = ctx.input(0), &b = ctx.input(3);
    const MatMulKey &k = e.key;
    const bool constB = m_constB.defined() && b.storage() == m_constB.storage();
    Tensor &y = ctx.allocateOutput(0, k.yType, outShape);
    const void *srcData = a.rawData();
    if (e.flipSrc) {
        e.flipped.resize(static_cast<size_t>(a.numel()));
        flipSignBit(a.data<int8_t>(), e.flipped.data(), a.numel());
        srcData = e.flipped.data();
    }
    if (e.split && !(constB && e.splitReady)) {
        splitWeights(b.data<int8_t>(), b.numel(), e.wA.data(), e.wB.data());
        e.splitReady = constB;
    }
    return ds::runOnStream(m_name, [&](dnnl::stream &stream) {
        e.src.set_data_handle(const_cast<void *>(srcData));
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, e.src}};
        e.srcZp.set_data_handle(&e.srcZpValue);
        e.dstZp.set_data_handle(&e.dstZpValue);
        if (e.srcZpValue != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = e.srcZp;
        if (k.hasBias) {
            e.bias.set_data_handle(const_cast<void *>(ctx.input(m_in.bias).rawData()));
            args[DNNL_ARG_BIAS] = e.bias;
        }
        if (!e.split) {
            const bool packed = !e.firstPlain || e.weights.packNow(b.rawData(), constB, &b);
            args[DNNL_ARG_WEIGHTS] = packed ? e.weights.prepare(stream, b.rawData(), constB, &b)
                                            : e.weights.plain(b.rawData());
            if (e.dstZpValue != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = e.dstZp;
            e.dst.set_data_handle(y.rawData());
            args[DNNL_ARG_DST] = e.dst;
            ds::execute(packed ? e.first : *e.firstPlain, stream, args);
            return;
        }
        args[DNNL_ARG_WEIGHTS] = e.weights.prepare(stream, e.wA.data(), constB);
        args[DNNL_ARG_DST] = e.acc;
        ds::execute(e.first, stream, args);
        if (e.sparse) {
            stream.wait();
            // acc[i][n] += value * (a[i][k] - a_zp) for every fix-up (k, n, value).
            const auto *src = static_cast<const uint8_t *>(srcData);
            const int64_t fixes = static_cast<int64_t>(e.fixK.size());
#pragma omp parallel for if (k.m * fixes > (1 << 16))
            for (int64_t i = 0; i < k.m; ++i) {
                int32_t *row = e.accBuffer.data() + i * k.n;
                for (int64_t f = 0; f < fixes; ++f) {
                    const int64_t at = k.transA ? e.fixK[f] * k.m + i : i * k.k + e.fixK[f];
                    row[e.fixN[f]] += e.fixValue[f] * (static_cast<int32_t>(src[at]) - e.srcZpValue);
                }
            }
        } else {
            args.erase(DNNL_ARG_BIAS);
            args[DNNL_ARG_WEIGHTS] = e.weightsB.prepare(stream, e.wB.data(), constB);
            ds::execute(e.second, stream, args);
            stream.wait();
        }
        if (k.yType != DataType::Float) {
            e.requant.run(e.accBuffer.data(), k.m, k.n, k.yType, y.rawData(), k.n, 1);
            return;
        }
        float *dst = y.data<float>();
        const bool perColumn = k.mult.size() > 1;
        for (int64_t i = 0; i < k.m * k.n; ++i)
            dst[i] = static_cast<float>(e.accBuffer[i]) * k.mult[perColumn ? i % k.n : 0];
    });
}

Status QuantMatMulDnnl::run(KernelContext &ctx) {
    QL_RETURN_IF_ERROR(m_status);
    MatMulKey key;
    if (!readKey(ctx, key)) return runReferenceOnPlain(*m_fallback, ctx);
    const Tensor &a = ctx.input(0), &b = ctx.input(3);
    Shape outShape = {key.m, key.n};
    if (!m_gemm) {
        outShape = a.shape();
        outShape.back() = key.n;
    }
    const bool constB = m_constB.defined() && b.storage() == m_constB.storage();
    Result<Entry *> entry = m_cache.findOrBuild([&](const Entry &e) { return e.key == key; },
                                                [&](Entry &e) { return build(key, constB, e); });
    if (!entry) return runReferenceOnPlain(*m_fallback, ctx);
    return execute(ctx, *entry.value(), outShape);
}

// The exact QGemm reference: int32 accumulation of zero-point-shifted operands.
class QGemmReference : public Kernel {
public:
    explicit QGemmReference(const KernelBuildInfo &info)
        : m_transA(info.node.attrInt("transA", 0) != 0),
          m_transB(info.node.attrInt("transB", 0) != 0),
          m_alpha(info.node.attrFloat("alpha", 1.0f)) {
        m_status = readQuantActivation(info.node, m_act);
    }
    Status run(KernelContext &ctx) override;

private:
    bool m_transA, m_transB;
    float m_alpha;
    QuantActivation m_act;
    Status m_status;
};

Status QGemmReference::run(KernelContext &ctx) {
    QL_RETURN_IF_ERROR(m_status);
    const Tensor &a = ctx.input(0), &b = ctx.input(3);
    auto is8 = [](const Tensor &t) {
        return t.dtype() == DataType::UInt8 || t.dtype() == DataType::Int8;
    };
    if (!is8(a) || !is8(b))
        return Status::unsupported("QGemm on " + dataTypeName(a.dtype()) + " x " +
                                   dataTypeName(b.dtype()) + " is not supported (uint8 or int8)");
    if (a.rank() != 2 || b.rank() != 2)
        return Status::badInput("QGemm needs 2-D A and B, got " + shapeToString(a.shape()) +
                                " and " + shapeToString(b.shape()));
    const int64_t m = m_transA ? a.dim(1) : a.dim(0), k = m_transA ? a.dim(0) : a.dim(1);
    const int64_t n = m_transB ? b.dim(0) : b.dim(1);
    if ((m_transB ? b.dim(1) : b.dim(0)) != k)
        return Status::badInput("QGemm inner dimensions of " + shapeToString(a.shape()) + " and " +
                                shapeToString(b.shape()) + " differ");
    std::vector<float> as, bs, ys;
    std::vector<int32_t> az{0}, bz{0}, yz{0};
    QL_RETURN_IF_ERROR(readScales(ctx.input(1), as));
    if (as.size() != 1) return Status::badInput("QGemm a_scale must hold one value");
    if (ctx.hasInput(2)) QL_RETURN_IF_ERROR(readZeroPoints(ctx.input(2), a.dtype(), az));
    if (az.size() != 1) return Status::badInput("QGemm a_zero_point must hold one value");
    QL_RETURN_IF_ERROR(readScales(ctx.input(4), bs));
    if (ctx.hasInput(5)) QL_RETURN_IF_ERROR(readZeroPoints(ctx.input(5), b.dtype(), bz));
    for (size_t size : {bs.size(), bz.size()})
        if (size != 1 && int64_t(size) != n)
            return Status::badInput("QGemm b_scale / b_zero_point must hold 1 or " +
                                    std::to_string(n) + " values");
    const Tensor *c = ctx.hasInput(6) ? &ctx.input(6) : nullptr;
    int64_t cRows = 1, cCols = 1;
    if (c) {
        if (c->dtype() != DataType::Int32) return Status::unsupported("QGemm bias C must be int32");
        const Shape &cs = c->shape();
        cCols = cs.empty() ? 1 : cs.back();
        cRows = cs.size() == 2 ? cs[0] : 1;
        if (cs.size() > 2 || (cCols != 1 && cCols != n) || (cRows != 1 && cRows != m))
            return Status::badInput("QGemm bias C " + shapeToString(cs) +
                                    " does not broadcast to " + shapeToString({m, n}));
    }
    const bool floatOut = !ctx.hasInput(7);
    DataType outType = DataType::Float;
    int64_t lo = 0, hi = 0;
    if (!floatOut) {
        QL_RETURN_IF_ERROR(readScales(ctx.input(7), ys));
        if (ys.size() != 1) return Status::badInput("QGemm y_scale must hold one value");
        outType = ctx.hasInput(8) ? ctx.input(8).dtype() : a.dtype();
        QL_RETURN_IF_ERROR(integerRange(outType, lo, hi));
        if (ctx.hasInput(8)) QL_RETURN_IF_ERROR(readZeroPoints(ctx.input(8), outType, yz));
        narrowToActivation(m_act, ys[0], yz[0], lo, hi);
    }
    Tensor &y = ctx.allocateOutput(0, outType, {m, n});
    auto elem = [](const Tensor &t, int64_t i) {
        return t.dtype() == DataType::UInt8 ? int32_t(t.data<uint8_t>()[i])
                                            : int32_t(t.data<int8_t>()[i]);
    };
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            const int32_t zb = bz[bz.size() == 1 ? 0 : j];
            int32_t acc = 0;
            for (int64_t p = 0; p < k; ++p) {
                const int32_t av = elem(a, m_transA ? p * m + i : i * k + p);
                const int32_t bv = elem(b, m_transB ? j * k + p : p * n + j);
                acc += (av - az[0]) * (bv - zb);
            }
            if (c) acc += c->data<int32_t>()[(cRows == 1 ? 0 : i) * cCols + (cCols == 1 ? 0 : j)];
            const float scale = m_alpha * as[0] * bs[bs.size() == 1 ? 0 : j];
            if (floatOut) {
                y.data<float>()[i * n + j] = static_cast<float>(acc) * scale;
                continue;
            }
            const float v = roundHalfEven(static_cast<float>(acc) * (scale / ys[0])) +
                            static_cast<float>(yz[0]);
            if (outType == DataType::UInt8)
                y.data<uint8_t>()[i * n + j] = saturateTo<uint8_t>(v, lo, hi);
            else
                y.data<int8_t>()[i * n + j] = saturateTo<int8_t>(v, lo, hi);
        }
    }
    return Status::ok();
}

}  // namespace

Result<KernelPtr> makeQGemmReference(const KernelBuildInfo &info) {
    return KernelPtr(new QGemmReference(info));
}

Result<KernelPtr> makeQLinearMatMul(const KernelBuildInfo &info) {
    Result<KernelPtr> general = makeBatchedQLinearMatMul(info);
    if (!general) return general;
    const Tensor *b = info.constantInput(3);
    if (b && (b->dtype() != DataType::Int8 || b->rank() != 2)) return general;
    return KernelPtr(new QuantMatMulDnnl(info, std::move(general.value()), false));
}

Result<KernelPtr> makeQGemm(const KernelBuildInfo &info) {
    Result<KernelPtr> reference = makeQGemmReference(info);
    if (!reference) return reference;
    const Tensor *b = info.constantInput(3);
    if (b && b->dtype() != DataType::Int8) return reference;
    return KernelPtr(new QuantMatMulDnnl(info, std::move(reference.value()), true));
}

}  // namespace ql::quant

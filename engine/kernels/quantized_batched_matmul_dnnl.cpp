// QLinearMatMul and MatMulInteger in their general form on one batched oneDNN int8 matmul:
// any batch dims with numpy broadcasting, B an activation (attention's Q·Kᵀ and A·V) or a
// constant of any rank, uint8 or int8 on either side, nonzero B zero points.
//
// oneDNN 2.6 takes s8 weights and a source zero point only, so B is fed as s8 (uint8 values
// x ^ 0x80, the zero point moved by -128, exact) and B's zero point is applied here:
//   sum_k (a - za)(b - zb) = sum_k (a - za) b' - zb' * rowsum_k(a - za).
// oneDNN accumulates sum_k (a - za) b' in int32 over all batches in one call (on CPUs without
// VNNI in two passes of split B, as the 2-D kernel does); one pass here subtracts the zero-point
// term and requantizes (or stores int32 for MatMulInteger). When B's zero point is 0 and the
// dot product is exact, the whole node is one oneDNN call with scales, zero point and the fused
// activation as attributes. com.microsoft MatMulIntegerToFloat (scales known only at run time,
// from DynamicQuantizeLinear) accumulates the same way and writes float in that one pass:
// acc * a_scale * b_scale + bias. Per-tensor A parameters and per-tensor or per-column B
// parameters; anything else runs on the exact reference the factory was given.

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <vector>

#include "kernels/dnnl_scratchpad.h"
#include "kernels/dnnl_support.h"
#include "kernels/matmul_common.h"
#include "kernels/quantized_dnnl_common.h"

namespace ql::quant {
namespace {

using dnnl::memory;
namespace ds = dnnl_support;

constexpr size_t kMaxDnnlRank = 12;

enum class Kind { QLinear, Integer, ToFloat };

// Input positions of the three ops.
struct Positions {
    size_t b, aZp, bZp, aScale = 0, bScale = 0, yScale = 0, yZp = 0, bias = 0;  // 0: absent
};
constexpr Positions kQLinear{3, 2, 5, 1, 4, 6, 7};
constexpr Positions kInteger{1, 2, 3};
constexpr Positions kToFloat{1, 4, 5, 2, 3, 0, 0, 6};

Positions positionsOf(Kind kind) {
    return kind == Kind::QLinear ? kQLinear : kind == Kind::Integer ? kInteger : kToFloat;
}

// Everything a primitive depends on: shapes, types and quantization parameters.
struct Key {
    Shape a, b, batch;  // padded to one rank
    Shape output;       // the ONNX output shape
    int64_t m = 0, k = 0, n = 0;
    DataType aType = DataType::UInt8, bType = DataType::Int8, yType = DataType::Int32;
    int32_t aZp = 0, yZp = 0;
    float yScale = 1.0f;
    std::vector<int32_t> bZp;  // 1 or N values, in B's own type
    std::vector<float> mult;   // 1 or N values: a_scale * b_scale / y_scale
    bool operator==(const Key &o) const {
        return a == o.a && b == o.b && output == o.output && aType == o.aType && bType == o.bType && yType == o.yType &&
               aZp == o.aZp && yZp == o.yZp && yScale == o.yScale && bZp == o.bZp &&
               mult == o.mult;
    }
};

memory::dims withRows(const Shape &batch, int64_t rows, int64_t cols) {
    memory::dims d(batch.begin(), batch.end());
    d.push_back(rows);
    d.push_back(cols);
    return d;
}

class BatchedQuantMatMul : public Kernel {
public:
    BatchedQuantMatMul(const KernelBuildInfo &info, KernelPtr reference, Kind kind)
        : m_reference(std::move(reference)), m_qlinear(kind == Kind::QLinear),
          m_toFloat(kind == Kind::ToFloat), m_in(positionsOf(kind)) {
        m_status = readQuantActivation(info.node, m_act);
        if (const Tensor *b = info.constantInput(m_in.b)) m_constB = *b;
        m_allowSaturation = info.node.attrInt(kAllowSaturationAttr, 0) != 0;
        m_name = info.node.opType + " '" + info.node.name + "'";
    }
    Status run(KernelContext &ctx) override;

private:
    struct Entry {
        Key key;
        bool flipA = false, flipB = false, split = false, direct = false;
        bool bZpNonZero = false;
        dnnl::matmul first, second;
        memory src, dst, acc, srcZp, dstZp;
        ds::PackedWeights weights, weightsB;
        std::vector<uint8_t> aFlipped;
        std::vector<int8_t> b8, wA, wB;  // B as s8; its two halves when split
        bool bReady = false;             // b8 / wA / wB hold the constant B already
        std::vector<int32_t> rowSum;
        std::vector<int64_t> aBatchOf;  // per output batch, A's batch index
        int32_t srcZpValue = 0, dstZpValue = 0;
        Requantizer requant;
    };
    bool readKey(const KernelContext &ctx, Key &key) const;
    Status build(const Key &key, bool constantB, Entry &e) const;
    Status execute(KernelContext &ctx, Entry &e, bool constantB);
    void subtractZeroPointTerm(Entry &e, const Tensor &a, int32_t *acc) const;
    // MatMulIntegerToFloat's output: acc * a_scale * b_scale + bias; false when its scales or
    // bias are not what readKey assumed (the reference then runs).
    bool writeFloat(KernelContext &ctx, const Entry &e, const int32_t *acc, Tensor &y) const;

    KernelPtr m_reference;
    bool m_qlinear, m_toFloat;
    Positions m_in;
    QuantActivation m_act;
    bool m_allowSaturation = false;
    Status m_status;
    Tensor m_constB;
    std::string m_name;
    ds::ShapeCache<Entry> m_cache;
};

// The int32 accumulators of a call: one buffer per thread, reused by every call on it (no zero
// fill, no fresh pages after the first call). One per kernel and shape kept 15 MB for each
// attention product of a vit_b_16 analysis at batch 8, in the suite's plan and again in each
// layer's isolated plan.
int32_t *threadAccumulators(int64_t count) {
    thread_local std::unique_ptr<int32_t[]> buffer;
    thread_local int64_t capacity = 0;
    if (count > capacity) {
        buffer.reset(new int32_t[static_cast<size_t>(count)]);
        capacity = count;
    }
    return buffer.get();
}

bool is8Bit(DataType t) { return t == DataType::UInt8 || t == DataType::Int8; }

bool BatchedQuantMatMul::readKey(const KernelContext &ctx, Key &key) const {
    const Tensor &a = ctx.input(0), &b = ctx.input(m_in.b);
    if (!is8Bit(a.dtype()) || !is8Bit(b.dtype()) || a.rank() < 2 || b.rank() < 2) return false;
    if (a.numel() == 0 || b.numel() == 0) return false;
    matmul::MatMulShapes s;
    if (!matmul::resolveShapes(a.shape(), b.shape(), s).isOk() || s.a.size() > kMaxDnnlRank)
        return false;
    key.output = s.output;
    key.a = s.a;
    key.b = s.b;
    key.batch = s.batch;
    // One B for every batch (a weight): A's batches are more rows of one product, not many
    // small ones ([128, 1, 512] x [512, 1536] is one 128-row GEMM, not 128 GEMVs).
    if (std::all_of(s.b.begin(), s.b.end() - 2, [](int64_t d) { return d == 1; })) {
        s.m = a.numel() / s.k;
        key.a = {s.m, s.k};
        key.b = {s.k, s.n};
        key.batch.clear();
    }
    key.m = s.m;
    key.k = s.k;
    key.n = s.n;
    key.aType = a.dtype();
    key.bType = b.dtype();
    std::vector<int32_t> zp;
    if (ctx.hasInput(m_in.aZp)) {
        if (ctx.input(m_in.aZp).numel() != 1 ||
            !readZeroPoints(ctx.input(m_in.aZp), a.dtype(), zp).isOk())
            return false;
        key.aZp = zp[0];
    }
    // B's parameters: one value, or one per column of a 2-D B.
    auto perColumnOk = [&](const Tensor &t) {
        return t.numel() == 1 || (t.rank() == 1 && t.dim(0) == key.n && b.rank() == 2);
    };
    key.bZp.assign(1, 0);
    if (ctx.hasInput(m_in.bZp)) {
        const Tensor &z = ctx.input(m_in.bZp);
        if (!perColumnOk(z) || !readZeroPoints(z, b.dtype(), key.bZp).isOk()) return false;
    }
    if (m_toFloat) {  // scales and bias are read per run (a_scale changes with every input)
        key.yType = DataType::Float;
        return ctx.input(m_in.aScale).numel() == 1 && perColumnOk(ctx.input(m_in.bScale)) &&
               (!ctx.hasInput(m_in.bias) || ctx.input(m_in.bias).numel() == key.n);
    }
    if (!m_qlinear) {
        key.yType = DataType::Int32;
        return true;
    }
    std::vector<float> as, bs, ys;
    const Tensor &bScale = ctx.input(m_in.bScale);
    if (ctx.input(m_in.aScale).numel() != 1 || !readScales(ctx.input(m_in.aScale), as).isOk() ||
        !perColumnOk(bScale) || !readScales(bScale, bs).isOk() ||
        ctx.input(m_in.yScale).numel() != 1 || !readScales(ctx.input(m_in.yScale), ys).isOk())
        return false;
    if (key.bZp.size() > 1 && bs.size() == 1) bs.assign(key.bZp.size(), bs[0]);
    key.yType = ctx.hasInput(m_in.yZp) ? ctx.input(m_in.yZp).dtype() : a.dtype();
    if (!is8Bit(key.yType)) return false;
    if (ctx.hasInput(m_in.yZp)) {
        if (ctx.input(m_in.yZp).numel() != 1 ||
            !readZeroPoints(ctx.input(m_in.yZp), key.yType, zp).isOk())
            return false;
        key.yZp = zp[0];
    }
    key.yScale = ys[0];
    key.mult.resize(bs.size());
    for (size_t i = 0; i < bs.size(); ++i) key.mult[i] = as[0] * bs[i] / ys[0];  // as the reference
    return true;
}

Status BatchedQuantMatMul::build(const Key &key, bool constantB, Entry &e) const {
    using dt = memory::data_type;
    e.key = key;
    const bool exactDot = cpuHasExactInt8Dot();
    e.flipA = !exactDot && key.aType == DataType::Int8;
    e.flipB = key.bType == DataType::UInt8;
    e.split = !exactDot && !m_allowSaturation;
    e.srcZpValue = e.flipA ? key.aZp + 128 : key.aZp;
    for (int32_t z : key.bZp) e.bZpNonZero = e.bZpNonZero || (e.flipB ? z - 128 : z) != 0;
    e.direct = m_qlinear && !e.split && !e.bZpNonZero;
    e.dstZpValue = key.yZp;
    if (m_qlinear) {
        e.requant.multiplier = key.mult;
        e.requant.zeroPoint = static_cast<float>(key.yZp);
        QL_RETURN_IF_ERROR(integerRange(key.yType, e.requant.lo, e.requant.hi));
        narrowToActivation(m_act, key.yScale, key.yZp, e.requant.lo, e.requant.hi);
    }

    const memory::dims srcDims(key.a.begin(), key.a.end()), weiDims(key.b.begin(), key.b.end());
    const memory::dims dstDims = withRows(key.batch, key.m, key.n);
    const auto plain = ds::plainTag(static_cast<int>(srcDims.size()));
    const memory::desc srcDesc(srcDims, e.flipA ? dt::u8 : dnnlType(key.aType), plain);
    const memory::desc weiUser(weiDims, dt::s8, plain);
    const memory::desc weiWanted(weiDims, dt::s8, constantB ? memory::format_tag::any : plain);
    const memory::desc zpDesc({1}, dt::s32, memory::format_tag::a);
    // Per-column scales: mask over dst's last dim.
    const int scaleMask = key.mult.size() > 1 ? 1 << (dstDims.size() - 1) : 0;
    try {
        auto &eng = ds::cpuEngine();
        auto makePd = [&](dt dstType, const dnnl::primitive_attr &attr) {
            const memory::desc dstDesc(dstDims, dstType, plain);
            return dnnl::matmul::primitive_desc(
                dnnl::matmul::desc(srcDesc, weiWanted, dstDesc), attr, eng);
        };
        if (e.direct) {
            dnnl::primitive_attr attr = ds::ownScratchpad();
            attr.set_output_scales(scaleMask, key.mult);
            if (e.srcZpValue != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
            if (e.dstZpValue != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
            dnnl::post_ops ops;
            appendActivation(ops, m_act, key.yScale);
            attr.set_post_ops(ops);
            auto pd = makePd(dnnlType(key.yType), attr);
            e.first = dnnl::matmul(pd);
            e.weights.init(weiUser, pd.weights_desc());
            e.dst = memory(pd.dst_desc(), eng, nullptr);
        } else {
            const SplitPassAttributes attrs = makeSplitPassAttributes(e.srcZpValue != 0);
            auto pd1 = makePd(dt::s32, attrs.first);
            e.first = dnnl::matmul(pd1);
            e.weights.init(weiUser, pd1.weights_desc());
            if (e.split) {
                auto pd2 = makePd(dt::s32, attrs.second);
                e.second = dnnl::matmul(pd2);
                e.weightsB.init(weiUser, pd2.weights_desc());
            }
            e.acc = memory(pd1.dst_desc(), eng, nullptr);
        }
        e.src = memory(srcDesc, eng, nullptr);
        e.srcZp = memory(zpDesc, eng, nullptr);
        e.dstZp = memory(zpDesc, eng, nullptr);
    } catch (const dnnl::error &err) {
        return ds::dnnlFailure(m_name, err, true);
    }
    // Output batch -> A's batch index (A may be broadcast along some batch dims).
    const size_t rank = key.batch.size();
    const int64_t batches = shapeElementCount(key.batch);
    e.aBatchOf.resize(static_cast<size_t>(batches));
    for (int64_t q = 0; q < batches; ++q) {
        int64_t rest = q, index = 0, stride = 1;
        for (size_t i = rank; i-- > 0;) {
            const int64_t at = rest % key.batch[i];
            rest /= key.batch[i];
            if (key.a[i] != 1) index += at * stride;
            stride *= key.a[i];
        }
        e.aBatchOf[static_cast<size_t>(q)] = index;
    }
    return Status::ok();
}

bool BatchedQuantMatMul::writeFloat(KernelContext &ctx, const Entry &e, const int32_t *acc,
                                    Tensor &y) const {
    const Key &k = e.key;
    std::vector<float> as, bs;
    if (!readScales(ctx.input(m_in.aScale), as).isOk() ||
        !readScales(ctx.input(m_in.bScale), bs).isOk() || as.size() != 1)
        return false;
    std::vector<float> scale(static_cast<size_t>(k.n)), bias(static_cast<size_t>(k.n), 0.0f);
    for (int64_t j = 0; j < k.n; ++j)
        scale[j] = as[0] * bs[bs.size() == 1 ? 0 : static_cast<size_t>(j)];  // as the reference
    if (ctx.hasInput(m_in.bias)) {
        const Tensor &b = ctx.input(m_in.bias);
        if (b.dtype() != DataType::Float) return false;
        std::copy(b.data<float>(), b.data<float>() + k.n, bias.begin());
    }
    const int64_t rows = shapeElementCount(k.batch) * k.m;
    float *out = y.data<float>();
#pragma omp parallel for if (rows * k.n > (1 << 15))
    for (int64_t r = 0; r < rows; ++r) {
        const int32_t *in = acc + r * k.n;
        float *row = out + r * k.n;
        for (int64_t j = 0; j < k.n; ++j)
            row[j] = static_cast<float>(in[j]) * scale[j] + bias[j];
    }
    return true;
}

// acc[q][i][n] -= zb'[n] * sum_k (a[i][k] - za), the B zero-point term oneDNN did not apply.
void BatchedQuantMatMul::subtractZeroPointTerm(Entry &e, const Tensor &a, int32_t *acc) const {
    const Key &k = e.key;
    const int64_t rows = a.numel() / k.k;
    e.rowSum.resize(static_cast<size_t>(rows));
    const bool isU8 = a.dtype() == DataType::UInt8;
#pragma omp parallel for if (a.numel() > (1 << 16))
    for (int64_t r = 0; r < rows; ++r) {
        int32_t sum = 0;
        if (isU8) {
            const uint8_t *row = a.data<uint8_t>() + r * k.k;
            for (int64_t p = 0; p < k.k; ++p) sum += row[p];
        } else {
            const int8_t *row = a.data<int8_t>() + r * k.k;
            for (int64_t p = 0; p < k.k; ++p) sum += row[p];
        }
        e.rowSum[static_cast<size_t>(r)] = sum - static_cast<int32_t>(k.k) * k.aZp;
    }
    std::vector<int32_t> zb(k.bZp.size());
    for (size_t j = 0; j < zb.size(); ++j) zb[j] = e.flipB ? k.bZp[j] - 128 : k.bZp[j];
    const bool perColumn = zb.size() > 1;
    const int64_t batches = static_cast<int64_t>(e.aBatchOf.size());
#pragma omp parallel for collapse(2) if (batches * k.m * k.n > (1 << 15))
    for (int64_t q = 0; q < batches; ++q) {
        for (int64_t i = 0; i < k.m; ++i) {
            const int32_t rs = e.rowSum[static_cast<size_t>(e.aBatchOf[q] * k.m + i)];
            int32_t *row = acc + (q * k.m + i) * k.n;
            if (perColumn)
                for (int64_t j = 0; j < k.n; ++j) row[j] -= zb[j] * rs;
            else
                for (int64_t j = 0; j < k.n; ++j) row[j] -= zb[0] * rs;
        }
    }
}

Status BatchedQuantMatMul::execute(KernelContext &ctx, Entry &e, bool constantB) {
    const Tensor &a = ctx.input(0), &b = ctx.input(m_in.b);
    const Key &k = e.key;
    Tensor &y = ctx.allocateOutput(0, k.yType, k.output);
    const void *aData = a.rawData();
    if (e.flipA) {
        e.aFlipped.resize(static_cast<size_t>(a.numel()));
        flipSignBit(a.data<int8_t>(), e.aFlipped.data(), a.numel());
        aData = e.aFlipped.data();
    }
    const int8_t *b8 = static_cast<const int8_t *>(b.rawData());
    if (e.flipB) {
        if (!(constantB && e.bReady)) {
            e.b8.resize(static_cast<size_t>(b.numel()));
            flipSignBit(b8, reinterpret_cast<uint8_t *>(e.b8.data()), b.numel());
        }
        b8 = e.b8.data();
    }
    if (e.split && !(constantB && e.bReady)) {
        e.wA.resize(static_cast<size_t>(b.numel()));
        e.wB.resize(e.wA.size());
        splitWeights(b8, b.numel(), e.wA.data(), e.wB.data());
    }
    e.bReady = constantB;
    // MatMulInteger accumulates in its output.
    int32_t *acc = k.yType == DataType::Int32 ? y.data<int32_t>() : threadAccumulators(y.numel());
    QL_RETURN_IF_ERROR(ds::runOnStream(m_name, [&](dnnl::stream &stream) {
        e.src.set_data_handle(const_cast<void *>(aData));
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, e.src}};
        e.srcZp.set_data_handle(&e.srcZpValue);
        e.dstZp.set_data_handle(&e.dstZpValue);
        if (e.srcZpValue != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = e.srcZp;
        if (e.direct) {
            args[DNNL_ARG_WEIGHTS] = e.weights.prepare(stream, b8, constantB, &b);
            if (e.dstZpValue != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = e.dstZp;
            e.dst.set_data_handle(y.rawData());
            args[DNNL_ARG_DST] = e.dst;
            ds::execute(e.first, stream, args);
            return;
        }
        e.acc.set_data_handle(acc);
        args[DNNL_ARG_DST] = e.acc;
        args[DNNL_ARG_WEIGHTS] = e.weights.prepare(stream, e.split ? e.wA.data() : b8, constantB, &b);
        ds::execute(e.first, stream, args);
        if (e.split) {
            args[DNNL_ARG_WEIGHTS] = e.weightsB.prepare(stream, e.wB.data(), constantB);
            ds::execute(e.second, stream, args);
        }
    }));
    if (e.direct) return Status::ok();
    if (e.bZpNonZero) subtractZeroPointTerm(e, a, acc);
    if (m_toFloat)
        return writeFloat(ctx, e, acc, y) ? Status::ok() : runReferenceOnPlain(*m_reference, ctx);
    if (k.yType != DataType::Int32)
        e.requant.run(acc, shapeElementCount(k.batch) * k.m, k.n, k.yType, y.rawData(), k.n, 1);
    return Status::ok();
}

Status BatchedQuantMatMul::run(KernelContext &ctx) {
    QL_RETURN_IF_ERROR(m_status);
    Key key;
    if (!readKey(ctx, key)) return runReferenceOnPlain(*m_reference, ctx);
    const Tensor &b = ctx.input(m_in.b);
    const bool constantB = m_constB.defined() && b.storage() == m_constB.storage();
    Result<Entry *> entry = m_cache.findOrBuild([&](const Entry &e) { return e.key == key; },
                                                [&](Entry &e) { return build(key, constantB, e); });
    if (!entry) return runReferenceOnPlain(*m_reference, ctx);
    return execute(ctx, *entry.value(), constantB);
}

}  // namespace

namespace {

// The batched kernel of `kind`, with the exact reference `makeReference` builds for its fallback.
Result<KernelPtr> makeBatched(const KernelBuildInfo &info,
                              Result<KernelPtr> (*makeReference)(const KernelBuildInfo &), Kind kind) {
    Result<KernelPtr> reference = makeReference(info);
    if (!reference) return reference;
    return KernelPtr(new BatchedQuantMatMul(info, std::move(reference.value()), kind));
}

}  // namespace

Result<KernelPtr> makeBatchedQLinearMatMul(const KernelBuildInfo &info) {
    return makeBatched(info, makeQLinearMatMulReference, Kind::QLinear);
}

Result<KernelPtr> makeMatMulInteger(const KernelBuildInfo &info) {
    return makeBatched(info, makeMatMulIntegerReference, Kind::Integer);
}

Result<KernelPtr> makeMatMulIntegerToFloat(const KernelBuildInfo &info) {
    return makeBatched(info, makeMatMulIntegerToFloatReference, Kind::ToFloat);
}

}  // namespace ql::quant

// com.microsoft QLinearAdd, QLinearMul (numpy broadcasting) and the table-driven QLinearSigmoid,
// QLinearLeakyRelu. These sit between int8 convolutions of residual networks, so they keep a
// channels-last input channels-last and the same-shape case is one vectorised loop.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>

#include "kernels/binary_broadcast.h"
#include "kernels/elementwise_support.h"
#include "kernels/kernel.h"
#include "kernels/kernel_families.h"
#include "kernels/qlinear_common.h"
#include "kernels/quantization_common.h"
#include "kernels/type_dispatch.h"

namespace ql {
namespace quant {

Status checkEightBit(DataType type, const std::string &what) {
    if (type == DataType::UInt8 || type == DataType::Int8) return Status::ok();
    return Status::unsupported(what + " of type " + dataTypeName(type) +
                               " is not supported (uint8 or int8 expected)");
}

Status readScalarQParams(const KernelContext &ctx, size_t scaleIndex, size_t zeroPointIndex,
                         DataType type, const std::string &what, ScalarQParams &out) {
    if (!ctx.hasInput(scaleIndex)) return Status::badInput(what + ": scale input is missing");
    const Tensor &scale = ctx.input(scaleIndex);
    if (scale.numel() != 1)
        return Status::badInput(what + ": scale must hold one value (per tensor), got shape " +
                                shapeToString(scale.shape()));
    std::vector<float> scales;
    Status s = readScales(scale, scales);
    if (!s) return s.withContext(what);
    out.scale = scales[0];
    out.zeroPoint = 0;
    if (!ctx.hasInput(zeroPointIndex)) return Status::ok();
    const Tensor &zp = ctx.input(zeroPointIndex);
    if (zp.numel() != 1)
        return Status::badInput(what + ": zero point must hold one value (per tensor), got shape " +
                                shapeToString(zp.shape()));
    std::vector<int32_t> zps;
    s = readZeroPoints(zp, type, zps);
    if (!s) return s.withContext(what);
    out.zeroPoint = zps[0];
    return Status::ok();
}

namespace {

using binary::Prepared;

template <class T>
constexpr float lowOf() { return std::is_signed<T>::value ? -128.0f : 0.0f; }
template <class T>
constexpr float highOf() { return std::is_signed<T>::value ? 127.0f : 255.0f; }

// y = q(sa*(a-za) + sb*(b-zb)) folded into one multiply-add per operand:
// y = clampRound(ra*a + rb*b + bias) + zc with ra = sa/sc, rb = sb/sc.
struct AddCoefficients {
    float ra, rb, bias, lo, hi;
    int32_t zc;
};
// y = q(sa*sb*(a-za)*(b-zb)) = clampRound(k*(a-za)*(b-zb)) + zc with k = sa*sb/sc.
struct MulCoefficients {
    float k, za, zb, lo, hi;
    int32_t zc;
};

template <class T>
QL_ALWAYS_INLINE T combine(T a, T b, const AddCoefficients &c) {
    const float v = c.ra * static_cast<float>(a) + c.rb * static_cast<float>(b) + c.bias;
    return static_cast<T>(static_cast<int32_t>(clampRound(v, c.lo, c.hi)) + c.zc);
}

template <class T>
QL_ALWAYS_INLINE T combine(T a, T b, const MulCoefficients &c) {
    const float v = c.k * (static_cast<float>(a) - c.za) * (static_cast<float>(b) - c.zb);
    return static_cast<T>(static_cast<int32_t>(clampRound(v, c.lo, c.hi)) + c.zc);
}

typedef float Float16 __attribute__((vector_size(64)));
typedef int32_t Int32x16 __attribute__((vector_size(64)));
template <class T>
struct Bytes16;
template <>
struct Bytes16<uint8_t> {
    typedef uint8_t type __attribute__((vector_size(16)));
};
template <>
struct Bytes16<int8_t> {
    typedef int8_t type __attribute__((vector_size(16)));
};

// 16 8-bit lanes as floats. Written lane by lane, GCC makes one vpmovzxbd / vpmovsxbd of it;
// __builtin_convertvector from 8-bit lanes came out as one insert per lane.
template <class Bytes>
QL_ALWAYS_INLINE void widen(const Bytes &q, Float16 &out) {
    const Int32x16 i = {q[0], q[1], q[2],  q[3],  q[4],  q[5],  q[6],  q[7],
                        q[8], q[9], q[10], q[11], q[12], q[13], q[14], q[15]};
    out = __builtin_convertvector(i, Float16);
}

// combine() of 16 neighbours at once, in explicit 16-lane vectors: the loop vectoriser kept
// the AVX-512 clone at 256-bit registers, and the residual adds of a ResNet were about an
// eighth of its int8 time. Element for element the arithmetic of combine().
// (The result comes back through a reference: returning a 64-byte vector by value changes the
// ABI outside the AVX-512 clone.)
QL_ALWAYS_INLINE void apply16(const Float16 &fa, const Float16 &fb, const AddCoefficients &c,
                              Float16 &v) {
    const Float16 zero = {};
    v = (zero + c.ra) * fa + (zero + c.rb) * fb + (zero + c.bias);
}
QL_ALWAYS_INLINE void apply16(const Float16 &fa, const Float16 &fb, const MulCoefficients &c,
                              Float16 &v) {
    const Float16 zero = {};
    v = (zero + c.k) * (fa - c.za) * (fb - c.zb);
}

template <class T, class Coefficients>
QL_ALWAYS_INLINE void combine16(const T *a, const T *b, T *y, const Coefficients &c) {
    using Bytes = typename Bytes16<T>::type;
    Bytes qa, qb;
    std::memcpy(&qa, a, sizeof qa);
    std::memcpy(&qb, b, sizeof qb);
    const Float16 zero = {};
    Float16 fa, fb;
    widen(qa, fa);
    widen(qb, fb);
    Float16 v;
    apply16(fa, fb, c, v);
    const Float16 lo = zero + c.lo, hi = zero + c.hi;
    v = v >= lo ? v : lo;
    v = v <= hi ? v : hi;
    v = (v + kRoundingMagic) - kRoundingMagic;
    const Bytes out = __builtin_convertvector(__builtin_convertvector(v, Int32x16) + c.zc, Bytes);
    std::memcpy(y, &out, sizeof out);
}

// Contiguous rows; strideA/strideB are 1 (same shape) or 0 (a broadcast scalar along the row,
// fed to combine16 as 16 copies).
// Coefficients (AddCoefficients or MulCoefficients) picks the operation at compile time. No
// fused multiply-add (see the pragma): the AVX-512 clone computes what the others do.
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#if defined(__clang__)
#define QL_COMBINE_CLONES
#else  // x86-64-v4: AVX-512, for combine16's 16-lane vectors
#define QL_COMBINE_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
template <class T, class Coefficients>
QL_COMBINE_CLONES void combineRow(const T *a, int64_t strideA, const T *b, int64_t strideB, T *y,
                                  int64_t n, Coefficients c) {
    if ((strideA == 0 || strideA == 1) && (strideB == 0 || strideB == 1)) {
        T copiesA[16], copiesB[16];
        std::fill(copiesA, copiesA + 16, a[0]);
        std::fill(copiesB, copiesB + 16, b[0]);
        int64_t i = 0;
        for (; i + 16 <= n; i += 16)
            combine16(strideA ? a + i : copiesA, strideB ? b + i : copiesB, y + i, c);
        for (; i < n; ++i) y[i] = combine(a[i * strideA], b[i * strideB], c);
    } else {
        for (int64_t i = 0; i < n; ++i) y[i] = combine(a[i * strideA], b[i * strideB], c);
    }
}
#undef QL_COMBINE_CLONES
#pragma GCC pop_options

// QLinearAdd / QLinearMul: A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale,
// C_zero_point (zero points optional).
class QLinearBinaryKernel final : public Kernel {
public:
    QLinearBinaryKernel(const KernelBuildInfo &, bool isMul) : m_isMul(isMul) {}

    bool acceptsChannelsLast(size_t i) const override { return i == 0 || i == 3; }

    Status run(KernelContext &ctx) override {
        if (ctx.inputCount() < 7 || !ctx.hasInput(0) || !ctx.hasInput(3))
            return Status::badInput("expects inputs A, A_scale, A_zero_point, B, B_scale, "
                                    "B_zero_point, C_scale[, C_zero_point]");
        const DataType type = ctx.input(0).dtype();
        QL_RETURN_IF_ERROR(checkEightBit(type, "A"));
        if (ctx.input(3).dtype() != type)
            return Status::badInput("A is " + dataTypeName(type) + " but B is " +
                                    dataTypeName(ctx.input(3).dtype()));
        ScalarQParams qa, qb, qc;
        QL_RETURN_IF_ERROR(readScalarQParams(ctx, 1, 2, type, "A", qa));
        QL_RETURN_IF_ERROR(readScalarQParams(ctx, 4, 5, type, "B", qb));
        QL_RETURN_IF_ERROR(readScalarQParams(ctx, 6, 7, type, "C", qc));

        Prepared p;
        QL_RETURN_IF_ERROR(binary::prepareBroadcast({ctx.input(0), ctx.input(3)}, true, p));
        Tensor &y = ctx.allocateOutput(0, type, p.outShape, p.outLayout);
        dispatchAmong<uint8_t, int8_t>(type, [&](auto tag) {
            using T = decltype(tag);
            compute<T>(p, qa, qb, qc, y.data<T>());
        });
        return Status::ok();
    }

private:
    template <class T>
    void compute(const Prepared &p, const ScalarQParams &qa, const ScalarQParams &qb,
                 const ScalarQParams &qc, T *y) const {
        const T *a = p.inputs[0].data<T>();
        const T *b = p.inputs[1].data<T>();
        const float zc = static_cast<float>(qc.zeroPoint);
        const float lo = lowOf<T>() - zc, hi = highOf<T>() - zc;
        AddCoefficients add{};
        MulCoefficients mul{};
        if (m_isMul) {
            mul = {qa.scale * qb.scale / qc.scale, static_cast<float>(qa.zeroPoint),
                   static_cast<float>(qb.zeroPoint), lo, hi, qc.zeroPoint};
        } else {
            const float ra = qa.scale / qc.scale, rb = qb.scale / qc.scale;
            add = {ra, rb, -(ra * static_cast<float>(qa.zeroPoint) + rb * static_cast<float>(qb.zeroPoint)),
                   lo, hi, qc.zeroPoint};
        }
        auto row = [&](const T *ra, int64_t sa, const T *rb, int64_t sb, T *out, int64_t n) {
            if (m_isMul)
                combineRow<T>(ra, sa, rb, sb, out, n, mul);
            else
                combineRow<T>(ra, sa, rb, sb, out, n, add);
        };
        const int64_t total = shapeElementCount(p.outShape);
        if (p.shapes[0] == p.iterOut && p.shapes[1] == p.iterOut) {
            elementwise::parallelRange(total, [&](int64_t begin, int64_t end) {
                row(a + begin, 1, b + begin, 1, y + begin, end - begin);
            });
            return;
        }
        const binary::BroadcastPlan plan = binary::makePlan(p.iterOut, {p.shapes[0], p.shapes[1]});
        const int64_t strideA = plan.innerStride(0), strideB = plan.innerStride(1);
        elementwise::parallelRange(total, [&](int64_t begin, int64_t end) {
            binary::forEachRow(plan, begin, end, [&](const int64_t *offsets, int64_t pos, int64_t n) {
                row(a + offsets[0], strideA, b + offsets[1], strideB, y + pos, n);
            });
        });
    }

    bool m_isMul;
};

// QLinearSigmoid / QLinearLeakyRelu: X, X_scale, X_zero_point, Y_scale, Y_zero_point. An 8-bit
// input has 256 values, so the whole op is one table lookup per element.
class QLinearLookupKernel final : public Kernel {
public:
    enum class Function { Sigmoid, LeakyRelu };

    QLinearLookupKernel(const KernelBuildInfo &info, Function function)
        : m_function(function), m_alpha(info.node.attrFloat("alpha", 0.01f)) {}

    bool acceptsChannelsLast(size_t i) const override { return i == 0; }

    Status run(KernelContext &ctx) override {
        if (ctx.inputCount() < 4 || !ctx.hasInput(0))
            return Status::badInput("expects inputs X, X_scale, X_zero_point, Y_scale[, Y_zero_point]");
        const Tensor &x = ctx.input(0);
        const DataType type = x.dtype();
        QL_RETURN_IF_ERROR(checkEightBit(type, "X"));
        ScalarQParams qx, qy;
        QL_RETURN_IF_ERROR(readScalarQParams(ctx, 1, 2, type, "X", qx));
        QL_RETURN_IF_ERROR(readScalarQParams(ctx, 3, 4, type, "Y", qy));
        prepareTable(type, qx, qy);
        Tensor &y = ctx.allocateOutput(0, type, x.shape(), x.layout());
        const uint8_t *src = static_cast<const uint8_t *>(x.rawData());
        uint8_t *dst = static_cast<uint8_t *>(y.rawData());
        const uint8_t *table = m_table;
        elementwise::parallelRange(x.numel(), [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i) dst[i] = table[src[i]];
        });
        return Status::ok();
    }

private:
    // The table depends only on the parameters, which are constants in practice: rebuilt only
    // when they change.
    void prepareTable(DataType type, const ScalarQParams &qx, const ScalarQParams &qy) {
        if (m_tableValid && type == m_tableType && qx.scale == m_qx.scale &&
            qx.zeroPoint == m_qx.zeroPoint && qy.scale == m_qy.scale &&
            qy.zeroPoint == m_qy.zeroPoint)
            return;
        const float alpha = m_alpha;
        auto fn = [&](float r) {
            if (m_function == Function::Sigmoid) return 1.0f / (1.0f + std::exp(-r));
            return r >= 0.0f ? r : alpha * r;
        };
        dispatchAmong<uint8_t, int8_t>(type, [&](auto tag) {
            using T = decltype(tag);
            T typed[256];
            buildLookupTable<T>(qx, qy, fn, typed);
            for (int b = 0; b < 256; ++b) m_table[b] = static_cast<uint8_t>(typed[b]);
        });
        m_tableType = type;
        m_qx = qx;
        m_qy = qy;
        m_tableValid = true;
    }

    Function m_function;
    float m_alpha;
    bool m_tableValid = false;
    DataType m_tableType = DataType::Undefined;
    ScalarQParams m_qx, m_qy;
    uint8_t m_table[256] = {};
};

}  // namespace
}  // namespace quant

void registerQLinearContribKernels(KernelRegistry &registry) {
    using quant::QLinearBinaryKernel;
    using quant::QLinearLookupKernel;
    const std::string ms = "com.microsoft";
    registry.add("QLinearAdd", [](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new QLinearBinaryKernel(info, false));
    }, ms);
    registry.add("QLinearMul", [](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new QLinearBinaryKernel(info, true));
    }, ms);
    registry.add("QLinearSigmoid", [](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new QLinearLookupKernel(info, QLinearLookupKernel::Function::Sigmoid));
    }, ms);
    registry.add("QLinearLeakyRelu", [](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new QLinearLookupKernel(info, QLinearLookupKernel::Function::LeakyRelu));
    }, ms);
    quant::registerQLinearPoolingKernels(registry);
}

}  // namespace ql

// Exact integer references for QLinearConv, ConvInteger, QLinearMatMul and MatMulInteger:
// products accumulate in int32 from zero-point-shifted operands; the QLinear ops then
// requantize with a float32 multiplier (x_scale * w_scale / y_scale), as ONNX Runtime does.

#include <algorithm>
#include <cmath>

#include "kernels/convolution_common.h"
#include "kernels/kernel.h"
#include "kernels/quantization_common.h"
#include "kernels/type_dispatch.h"

namespace ql::quant {
namespace {

bool isQuantized8(DataType t) { return t == DataType::UInt8 || t == DataType::Int8; }

Status check8Bit(const std::string &op, const std::string &what, const Tensor &t) {
    if (isQuantized8(t.dtype())) return Status::ok();
    return Status::unsupported(op + " " + what + " of type " + dataTypeName(t.dtype()) +
                               " is not supported (uint8 or int8 expected)");
}

// Per-tensor scale or zero point (one value).
Status scalarParam(const Tensor &t, const std::string &what) {
    if (t.numel() == 1) return Status::ok();
    return Status::badInput(what + " must hold one value, got shape " + shapeToString(t.shape()));
}

// Per-tensor or per-output-channel (length M) parameter of the weights.
Status channelParam(const Tensor &t, int64_t channels, const std::string &what) {
    if (t.numel() == 1 || (t.rank() == 1 && t.dim(0) == channels)) return Status::ok();
    return Status::badInput(what + " has " + std::to_string(t.numel()) +
                            " values but the weights have " + std::to_string(channels) +
                            " output channels");
}

// int32 accumulators acc[n, m, out...] = sum (x - xzp) * (w - wzp[m]).
template <class TX, class TW>
void convAccumulate(const TX *x, const Shape &xs, int32_t xzp, const TW *w, const Shape &ws,
                    const std::vector<int32_t> &wzp, const conv::ConvGeometry &g, int32_t *acc) {
    const int rank = g.spatialRank;
    int64_t inSpatial = 1, outSpatial = 1, taps = 1;
    for (int i = 0; i < rank; ++i) {
        inSpatial *= xs[2 + i];
        outSpatial *= g.outputShape[2 + i];
        taps *= g.kernel[i];
    }
    // Per output position, the (tap, input offset) pairs that fall inside the input.
    std::vector<int64_t> start(static_cast<size_t>(outSpatial) + 1, 0);
    std::vector<std::pair<int64_t, int64_t>> pairs;
    std::vector<int64_t> o(rank), k(rank);
    for (int64_t p = 0; p < outSpatial; ++p) {
        for (int64_t r = p, i = rank - 1; i >= 0; --i) {
            o[i] = r % g.outputShape[2 + i];
            r /= g.outputShape[2 + i];
        }
        for (int64_t t = 0; t < taps; ++t) {
            for (int64_t r = t, i = rank - 1; i >= 0; --i) {
                k[i] = r % g.kernel[i];
                r /= g.kernel[i];
            }
            int64_t off = 0;
            bool inside = true;
            for (int i = 0; i < rank && inside; ++i) {
                const int64_t c = o[i] * g.strides[i] - g.padBegin[i] + k[i] * g.dilations[i];
                inside = c >= 0 && c < xs[2 + i];
                off = off * xs[2 + i] + c;
            }
            if (inside) pairs.emplace_back(t, off);
        }
        start[p + 1] = static_cast<int64_t>(pairs.size());
    }
    const int64_t batch = xs[0], outCh = ws[0], groupOut = outCh / g.group, groupIn = ws[1];
    const int64_t work = batch * outCh;
#pragma omp parallel for if (work * outSpatial * taps * groupIn > 65536)
    for (int64_t nm = 0; nm < work; ++nm) {
        const int64_t n = nm / outCh, m = nm % outCh, grp = m / groupOut;
        const int32_t wz = wzp.size() == 1 ? wzp[0] : wzp[m];
        int32_t *dst = acc + nm * outSpatial;
        for (int64_t p = 0; p < outSpatial; ++p) {
            int32_t sum = 0;
            for (int64_t c = 0; c < groupIn; ++c) {
                const TX *xc = x + (n * xs[1] + grp * groupIn + c) * inSpatial;
                const TW *wc = w + (m * groupIn + c) * taps;
                for (int64_t q = start[p]; q < start[p + 1]; ++q)
                    sum += (static_cast<int32_t>(xc[pairs[q].second]) - xzp) *
                           (static_cast<int32_t>(wc[pairs[q].first]) - wz);
            }
            dst[p] = sum;
        }
    }
}

// Shared by QLinearConv and ConvInteger: input indices differ, the integer core does not.
class IntegerConvKernel : public Kernel {
public:
    IntegerConvKernel(const KernelBuildInfo &info, bool qlinear)
        : m_attrs(conv::readConvAttributes(info.node)), m_qlinear(qlinear) {
        m_actStatus = readQuantActivation(info.node, m_act);
    }

    Status run(KernelContext &ctx) override {
        QL_RETURN_IF_ERROR(m_actStatus);
        const std::string op = m_qlinear ? "QLinearConv" : "ConvInteger";
        const size_t xi = 0, wi = m_qlinear ? 3 : 1;
        const Tensor &x = ctx.input(xi), &w = ctx.input(wi);
        QL_RETURN_IF_ERROR(check8Bit(op, "input", x));
        QL_RETURN_IF_ERROR(check8Bit(op, "weights", w));
        if (x.rank() < 3 || w.rank() != x.rank())
            return Status::badInput("input " + shapeToString(x.shape()) + " and weights " +
                                    shapeToString(w.shape()) + " need the same rank >= 3");
        conv::ConvGeometry g;
        QL_RETURN_IF_ERROR(conv::resolveConvGeometry(m_attrs, x.shape(), w.shape(), g));
        const int64_t outCh = w.dim(0);

        std::vector<int32_t> xzp{0}, wzp{0};
        const size_t xzi = m_qlinear ? 2 : 2, wzi = m_qlinear ? 5 : 3;
        if (ctx.hasInput(xzi)) {
            QL_RETURN_IF_ERROR(scalarParam(ctx.input(xzi), "x zero point"));
            QL_RETURN_IF_ERROR(readZeroPoints(ctx.input(xzi), x.dtype(), xzp).withContext("x zero point"));
        }
        if (ctx.hasInput(wzi)) {
            QL_RETURN_IF_ERROR(channelParam(ctx.input(wzi), outCh, "w zero point"));
            QL_RETURN_IF_ERROR(readZeroPoints(ctx.input(wzi), w.dtype(), wzp).withContext("w zero point"));
        }
        std::vector<float> xs, ws, ys;
        std::vector<int32_t> yzp{0}, bias;
        DataType outType = DataType::Int32;
        if (m_qlinear) {
            QL_RETURN_IF_ERROR(readScales(ctx.input(1), xs).withContext("x scale"));
            QL_RETURN_IF_ERROR(scalarParam(ctx.input(1), "x scale"));
            QL_RETURN_IF_ERROR(readScales(ctx.input(4), ws).withContext("w scale"));
            QL_RETURN_IF_ERROR(channelParam(ctx.input(4), outCh, "w scale"));
            if (ctx.hasInput(5)) QL_RETURN_IF_ERROR(checkSameShape(ctx.input(4), ctx.input(5)));
            QL_RETURN_IF_ERROR(readScales(ctx.input(6), ys).withContext("y scale"));
            QL_RETURN_IF_ERROR(scalarParam(ctx.input(6), "y scale"));
            outType = ctx.hasInput(7) ? ctx.input(7).dtype() : x.dtype();
            if (!isQuantized8(outType))
                return Status::unsupported("QLinearConv output type " + dataTypeName(outType) +
                                           " is not supported (uint8 or int8 expected)");
            if (ctx.hasInput(7)) {
                QL_RETURN_IF_ERROR(scalarParam(ctx.input(7), "y zero point"));
                QL_RETURN_IF_ERROR(readZeroPoints(ctx.input(7), outType, yzp).withContext("y zero point"));
            }
            if (ctx.hasInput(8)) {
                const Tensor &b = ctx.input(8);
                if (b.dtype() != DataType::Int32)
                    return Status::unsupported("QLinearConv bias of type " +
                                               dataTypeName(b.dtype()) + " is not supported");
                if (b.rank() != 1 || b.dim(0) != outCh)
                    return Status::badInput("bias shape " + shapeToString(b.shape()) +
                                            " does not match " + std::to_string(outCh) +
                                            " output channels");
                bias.assign(b.data<int32_t>(), b.data<int32_t>() + outCh);
            }
        }

        const int64_t total = shapeElementCount(g.outputShape);
        std::vector<int32_t> scratch;
        int32_t *acc = nullptr;
        if (!m_qlinear) {
            acc = ctx.allocateOutput(0, DataType::Int32, g.outputShape).data<int32_t>();
        } else {
            scratch.resize(static_cast<size_t>(total));
            acc = scratch.data();
        }
        dispatchAmong<uint8_t, int8_t>(x.dtype(), [&](auto xt) {
            using TX = decltype(xt);
            dispatchAmong<uint8_t, int8_t>(w.dtype(), [&](auto wt) {
                using TW = decltype(wt);
                convAccumulate(x.data<TX>(), x.shape(), xzp[0], w.data<TW>(), w.shape(), wzp, g,
                               acc);
            });
        });
        if (!m_qlinear) return Status::ok();

        int64_t lo = 0, hi = 0;
        QL_RETURN_IF_ERROR(integerRange(outType, lo, hi));
        narrowToActivation(m_act, ys[0], yzp[0], lo, hi);
        const int64_t spatial = total / (g.outputShape[0] * outCh);
        Tensor &y = ctx.allocateOutput(0, outType, g.outputShape);
        dispatchAmong<uint8_t, int8_t>(outType, [&](auto yt) {
            using TY = decltype(yt);
            TY *dst = y.data<TY>();
            const float z = static_cast<float>(yzp[0]);
            for (int64_t i = 0; i < total; ++i) {
                const int64_t m = (i / spatial) % outCh;
                const float mult = xs[0] * ws[ws.size() == 1 ? 0 : m] / ys[0];
                const int32_t a = acc[i] + (bias.empty() ? 0 : bias[m]);
                dst[i] = saturateTo<TY>(roundHalfEven(static_cast<float>(a) * mult) + z, lo, hi);
            }
        });
        return Status::ok();
    }

private:
    conv::ConvAttributes m_attrs;
    bool m_qlinear;
    QuantActivation m_act;
    Status m_actStatus;
};

// numpy.matmul shapes with batch broadcasting; 1-D operands gain and then lose a unit dim.
struct MatMulShapes {
    int64_t m = 0, k = 0, n = 0;
    Shape outShape, batchShape;
    std::vector<int64_t> aBatchOf, bBatchOf;  // per output batch, the operands' batch index
};

Status resolveMatMul(const Shape &a0, const Shape &b0, MatMulShapes &s) {
    if (a0.empty() || b0.empty()) return Status::badInput("MatMul operands must have rank >= 1");
    Shape a = a0, b = b0;
    if (a.size() == 1) a.insert(a.begin(), 1);
    if (b.size() == 1) b.push_back(1);
    s.m = a[a.size() - 2];
    s.k = a.back();
    s.n = b.back();
    if (b[b.size() - 2] != s.k)
        return Status::badInput("inner dimensions of " + shapeToString(a0) + " and " +
                                shapeToString(b0) + " differ");
    const size_t ra = a.size() - 2, rb = b.size() - 2, r = std::max(ra, rb);
    Shape ab(r, 1), bb(r, 1);
    std::copy(a.begin(), a.begin() + ra, ab.begin() + (r - ra));
    std::copy(b.begin(), b.begin() + rb, bb.begin() + (r - rb));
    s.batchShape.assign(r, 1);
    for (size_t i = 0; i < r; ++i) {
        if (ab[i] != bb[i] && ab[i] != 1 && bb[i] != 1)
            return Status::badInput("batch dimensions of " + shapeToString(a0) + " and " +
                                    shapeToString(b0) + " do not broadcast");
        s.batchShape[i] = std::max(ab[i], bb[i]);
    }
    const int64_t batches = shapeElementCount(s.batchShape);
    s.aBatchOf.assign(batches, 0);
    s.bBatchOf.assign(batches, 0);
    for (int64_t bi = 0; bi < batches; ++bi) {
        int64_t rem = bi, ai = 0, bj = 0, aStride = 1, bStride = 1;
        for (size_t i = r; i-- > 0;) {
            const int64_t c = rem % s.batchShape[i];
            rem /= s.batchShape[i];
            if (ab[i] != 1) ai += c * aStride;
            if (bb[i] != 1) bj += c * bStride;
            aStride *= ab[i];
            bStride *= bb[i];
        }
        s.aBatchOf[bi] = ai;
        s.bBatchOf[bi] = bj;
    }
    s.outShape = s.batchShape;
    if (a0.size() > 1) s.outShape.push_back(s.m);
    if (b0.size() > 1) s.outShape.push_back(s.n);
    return Status::ok();
}

template <class V>
Status readLineParams(const Tensor *t, const Shape &operand, bool rowOperand,
                      const std::string &what, DataType qtype, LineParams<V> &p) {
    p.values.assign(1, V(0));
    if (!t) return Status::ok();
    QL_RETURN_IF_ERROR(
        resolveLineLayout(*t, operand, rowOperand, what, p.perBatch, p.perLine, p.lines));
    if constexpr (std::is_same_v<V, float>) {
        (void)qtype;
        return readScales(*t, p.values).withContext(what);
    } else {
        return readZeroPoints(*t, qtype, p.values).withContext(what);
    }
}

enum class IntegerMatMulKind { QLinear, Integer, ToFloat };

// Shared by QLinearMatMul (inputs a, as, azp, b, bs, bzp, ys, yzp), MatMulInteger (a, b, azp,
// bzp) and com.microsoft MatMulIntegerToFloat (a, b, as, bs, azp, bzp, bias: float output
// (a - azp)(b - bzp) * as * bs + bias).
class IntegerMatMulKernel : public Kernel {
public:
    IntegerMatMulKernel(const KernelBuildInfo &info, IntegerMatMulKind kind)
        : m_qlinear(kind == IntegerMatMulKind::QLinear), m_toFloat(kind == IntegerMatMulKind::ToFloat) {
        m_actStatus = readQuantActivation(info.node, m_act);
    }

    Status run(KernelContext &ctx) override {
        QL_RETURN_IF_ERROR(m_actStatus);
        const std::string op = m_qlinear ? "QLinearMatMul" : m_toFloat ? "MatMulIntegerToFloat" : "MatMulInteger";
        const size_t ai = 0, bi = m_qlinear ? 3 : 1, azi = m_toFloat ? 4 : 2,
                     bzi = m_qlinear ? 5 : m_toFloat ? 5 : 3;
        const Tensor &a = ctx.input(ai), &b = ctx.input(bi);
        QL_RETURN_IF_ERROR(check8Bit(op, "A", a));
        QL_RETURN_IF_ERROR(check8Bit(op, "B", b));
        MatMulShapes s;
        QL_RETURN_IF_ERROR(resolveMatMul(a.shape(), b.shape(), s));
        auto opt = [&](size_t i) { return ctx.hasInput(i) ? &ctx.input(i) : nullptr; };
        LineParams<int32_t> az, bz;
        LineParams<float> as, bs;
        QL_RETURN_IF_ERROR(readLineParams(opt(azi), a.shape(), true, "a zero point", a.dtype(), az));
        QL_RETURN_IF_ERROR(readLineParams(opt(bzi), b.shape(), false, "b zero point", b.dtype(), bz));
        std::vector<float> ys;
        std::vector<int32_t> yzp{0};
        DataType outType = DataType::Int32;
        if (m_qlinear) {
            QL_RETURN_IF_ERROR(readLineParams(opt(1), a.shape(), true, "a scale", a.dtype(), as));
            QL_RETURN_IF_ERROR(readLineParams(opt(4), b.shape(), false, "b scale", b.dtype(), bs));
            if (opt(2)) QL_RETURN_IF_ERROR(checkSameShape(ctx.input(1), ctx.input(2)));
            if (opt(5)) QL_RETURN_IF_ERROR(checkSameShape(ctx.input(4), ctx.input(5)));
            QL_RETURN_IF_ERROR(readScales(ctx.input(6), ys).withContext("y scale"));
            QL_RETURN_IF_ERROR(scalarParam(ctx.input(6), "y scale"));
            outType = ctx.hasInput(7) ? ctx.input(7).dtype() : a.dtype();
            if (!isQuantized8(outType))
                return Status::unsupported("QLinearMatMul output type " + dataTypeName(outType) +
                                           " is not supported (uint8 or int8 expected)");
            if (ctx.hasInput(7)) {
                QL_RETURN_IF_ERROR(scalarParam(ctx.input(7), "y zero point"));
                QL_RETURN_IF_ERROR(readZeroPoints(ctx.input(7), outType, yzp).withContext("y zero point"));
            }
        }
        std::vector<float> bias;
        if (m_toFloat) {
            QL_RETURN_IF_ERROR(readLineParams(opt(2), a.shape(), true, "a scale", a.dtype(), as));
            QL_RETURN_IF_ERROR(readLineParams(opt(3), b.shape(), false, "b scale", b.dtype(), bs));
            if (const Tensor *t = opt(6)) {
                if (t->dtype() != DataType::Float || t->numel() != s.n)
                    return Status::badInput(op + ": bias must be float with one value per column");
                bias = t->toFloatVector();
            }
            outType = DataType::Float;
        }
        int64_t lo = 0, hi = 0;
        if (!m_toFloat) QL_RETURN_IF_ERROR(integerRange(outType, lo, hi));
        if (m_qlinear) narrowToActivation(m_act, ys[0], yzp[0], lo, hi);
        Tensor &y = ctx.allocateOutput(0, outType, s.outShape);
        const int64_t batches = static_cast<int64_t>(s.aBatchOf.size());
        dispatchAmong<uint8_t, int8_t>(a.dtype(), [&](auto at) {
            using TA = decltype(at);
            dispatchAmong<uint8_t, int8_t>(b.dtype(), [&](auto bt) {
                using TB = decltype(bt);
                const TA *pa = a.data<TA>();
                const TB *pb = b.data<TB>();
                for (int64_t q = 0; q < batches; ++q) {
                    const int64_t ab = s.aBatchOf[q], bb = s.bBatchOf[q];
                    const TA *am = pa + ab * s.m * s.k;
                    const TB *bm = pb + bb * s.k * s.n;
                    for (int64_t i = 0; i < s.m; ++i) {
                        const int32_t za = az.at(ab, i);
                        for (int64_t j = 0; j < s.n; ++j) {
                            const int32_t zb = bz.at(bb, j);
                            int32_t acc = 0;
                            for (int64_t p = 0; p < s.k; ++p)
                                acc += (static_cast<int32_t>(am[i * s.k + p]) - za) *
                                       (static_cast<int32_t>(bm[p * s.n + j]) - zb);
                            const int64_t o = (q * s.m + i) * s.n + j;
                            if (m_toFloat) {
                                y.data<float>()[o] = static_cast<float>(acc) * as.at(ab, i) *
                                                         bs.at(bb, j) +
                                                     (bias.empty() ? 0.0f : bias[j]);
                                continue;
                            }
                            if (!m_qlinear) {
                                y.data<int32_t>()[o] = acc;
                                continue;
                            }
                            const float mult = as.at(ab, i) * bs.at(bb, j) / ys[0];
                            const float v = roundHalfEven(static_cast<float>(acc) * mult) +
                                            static_cast<float>(yzp[0]);
                            if (outType == DataType::UInt8)
                                y.data<uint8_t>()[o] = saturateTo<uint8_t>(v, lo, hi);
                            else
                                y.data<int8_t>()[o] = saturateTo<int8_t>(v, lo, hi);
                        }
                    }
                }
            });
        });
        return Status::ok();
    }

private:
    bool m_qlinear, m_toFloat;
    QuantActivation m_act;
    Status m_actStatus;
};

}  // namespace

Status readQuantActivation(const Node &node, QuantActivation &out) {
    out = QuantActivation();
    const std::string kind = node.attrString("ql_activation", "");
    if (kind.empty()) return Status::ok();
    if (kind == "Relu") {
        out.kind = QuantActivation::Kind::Relu;
        return Status::ok();
    }
    if (kind != "Clip")
        return Status::badInput(node.opType + " '" + node.name + "': fused activation '" + kind +
                                "' is not supported (Relu or Clip expected)");
    out.kind = QuantActivation::Kind::Clip;
    out.clipMin = node.attrFloat("ql_clip_min", -INFINITY);
    out.clipMax = node.attrFloat("ql_clip_max", INFINITY);
    if (!(out.clipMin <= out.clipMax))
        return Status::badInput(node.opType + " '" + node.name + "': fused Clip needs min <= max");
    return Status::ok();
}

void narrowToActivation(const QuantActivation &act, float yScale, int32_t yZeroPoint, int64_t &lo,
                        int64_t &hi) {
    auto level = [&](float real) {  // the quantized value of a real bound, kept in [lo, hi]
        const float q = roundHalfEven(real / yScale) + static_cast<float>(yZeroPoint);
        return static_cast<int64_t>(std::min<float>(std::max<float>(q, lo), hi));
    };
    if (act.kind == QuantActivation::Kind::Relu) {
        lo = std::max<int64_t>(lo, yZeroPoint);
    } else if (act.kind == QuantActivation::Kind::Clip) {
        const int64_t newLo = level(act.clipMin), newHi = level(act.clipMax);
        lo = std::max(lo, newLo);
        hi = std::min(hi, newHi);
    }
}

Result<KernelPtr> makeQLinearConvReference(const KernelBuildInfo &info) {
    return KernelPtr(new IntegerConvKernel(info, true));
}
Result<KernelPtr> makeConvInteger(const KernelBuildInfo &info) {
    return KernelPtr(new IntegerConvKernel(info, false));
}
Result<KernelPtr> makeQLinearMatMulReference(const KernelBuildInfo &info) {
    return KernelPtr(new IntegerMatMulKernel(info, IntegerMatMulKind::QLinear));
}
Result<KernelPtr> makeMatMulIntegerReference(const KernelBuildInfo &info) {
    return KernelPtr(new IntegerMatMulKernel(info, IntegerMatMulKind::Integer));
}
Result<KernelPtr> makeMatMulIntegerToFloatReference(const KernelBuildInfo &info) {
    return KernelPtr(new IntegerMatMulKernel(info, IntegerMatMulKind::ToFloat));
}

}  // namespace ql::quant

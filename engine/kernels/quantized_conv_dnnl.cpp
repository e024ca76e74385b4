// QLinearConv on oneDNN int8 convolution. Output scales (x_scale * w_scale[c] / y_scale) are
// fixed when the primitive is created (oneDNN 2.6 has no int8 convolution with runtime scales),
// so primitives are cached per input shape AND per scale / zero-point values. oneDNN v2 adds the
// s32 bias to the s32 accumulator before scaling, so y = round(mult * (acc + bias)) + y_zp, as
// the reference computes. 4-D activations stay channels-last (NHWC) in and out.
// Cases oneDNN cannot do (uint8 weights, nonzero weight zero points, odd parameter shapes) run
// on the exact reference kernel, which also produces the error messages for bad parameters.

#include <cstring>
#include <unordered_map>
#include <vector>

#include "kernels/convolution_common.h"
#include "kernels/dnnl_scratchpad.h"
#include "kernels/dnnl_support.h"
#include "kernels/quantized_conv_fixups.h"
#include "kernels/quantized_dnnl_common.h"

namespace ql::quant {
namespace {

using dnnl::memory;
namespace ds = dnnl_support;

// Everything besides shapes that a primitive bakes in.
struct ConvQuantKey {
    DataType xType = DataType::UInt8, yType = DataType::UInt8;
    float xScale = 1.0f, yScale = 1.0f;
    std::vector<float> wScale;
    int32_t xZp = 0, yZp = 0;
    bool hasBias = false;
    bool operator==(const ConvQuantKey &o) const {
        return xType == o.xType && yType == o.yType && xScale == o.xScale && yScale == o.yScale &&
               wScale == o.wScale && xZp == o.xZp && yZp == o.yZp && hasBias == o.hasBias;
    }
};

// Reads the quantization inputs; false when oneDNN cannot take them (the reference decides
// whether they are valid at all).
bool readKey(const KernelContext &ctx, int64_t outChannels, ConvQuantKey &k) {
    const Tensor &x = ctx.input(0), &w = ctx.input(3);
    if ((x.dtype() != DataType::UInt8 && x.dtype() != DataType::Int8) ||
        w.dtype() != DataType::Int8)
        return false;
    for (size_t i : {size_t(1), size_t(4), size_t(6)})
        if (!ctx.hasInput(i) || ctx.input(i).dtype() != DataType::Float) return false;
    std::vector<float> xs, ws, ys;
    if (!readScales(ctx.input(1), xs).isOk() || xs.size() != 1) return false;
    if (!readScales(ctx.input(4), ws).isOk()) return false;
    if (ws.size() != 1 && !(ctx.input(4).rank() == 1 && int64_t(ws.size()) == outChannels))
        return false;
    if (!readScales(ctx.input(6), ys).isOk() || ys.size() != 1) return false;
    k.xType = x.dtype();
    k.yType = ctx.hasInput(7) ? ctx.input(7).dtype() : x.dtype();
    if (k.yType != DataType::UInt8 && k.yType != DataType::Int8) return false;
    std::vector<int32_t> zp;
    if (ctx.hasInput(2)) {
        if (ctx.input(2).numel() != 1 || !readZeroPoints(ctx.input(2), x.dtype(), zp).isOk())
            return false;
        k.xZp = zp[0];
    }
    if (ctx.hasInput(5)) {
        if (!readZeroPoints(ctx.input(5), DataType::Int8, zp).isOk()) return false;
        if (ctx.input(5).shape() != ctx.input(4).shape()) return false;
        for (int32_t z : zp)
            if (z != 0) return false;  // oneDNN convolution has no weight zero points
    }
    if (ctx.hasInput(7)) {
        if (ctx.input(7).numel() != 1 || !readZeroPoints(ctx.input(7), k.yType, zp).isOk())
            return false;
        k.yZp = zp[0];
    }
    k.hasBias = ctx.hasInput(8);
    if (k.hasBias) {
        const Tensor &b = ctx.input(8);
        if (b.dtype() != DataType::Int32 || b.rank() != 1 || b.dim(0) != outChannels) return false;
    }
    k.xScale = xs[0];
    k.yScale = ys[0];
    k.wScale = ws;
    return true;
}

class QLinearConvDnnl : public Kernel {
public:
    QLinearConvDnnl(const KernelBuildInfo &info, KernelPtr reference)
        : m_attrs(conv::readConvAttributes(info.node)), m_reference(std::move(reference)) {
        m_status = readQuantActivation(info.node, m_act);
        if (const Tensor *w = info.constantInput(3)) m_constWeights = *w;
        m_name = "QLinearConv '" + info.node.name + "'";
        m_allowSaturation = info.node.attrInt(kAllowSaturationAttr, 0) != 0;
    }

    bool acceptsChannelsLast(size_t i) const override { return i == 0; }
    Status run(KernelContext &ctx) override;

private:
    struct Entry {
        Shape xShape, wShape;
        Layout xLayout = Layout::Plain;
        ConvQuantKey key;
        conv::ConvGeometry g;
        bool flipSrc = false;     // s8 input fed as u8 (no VNNI)
        bool reorderSrc = false;  // plain input made channels-last first
        bool split = false;       // W = A + B, int32 accumulation, requantized here
        bool sparse = false;      // W = A + F, F sparse (quantized_conv_fixups.h), one pass
        std::vector<ConvFixup> fixups;
        FixupGeometry fixGeometry;
        std::vector<float> multiplier;  // per output channel
        std::vector<int16_t> fixupPlanes;
        FixupGroups fixupGroups;
        bool dstTemp = false;     // non-4-D output: channels-last temp, then reorder to plain
        dnnl::convolution_forward first, second;
        memory src, srcCl, dst, dstPlain, acc, bias, srcZp, dstZp;
        dnnl::reorder srcReorder, dstReorder;
        std::vector<uint8_t> flipped;
        std::vector<int32_t> accBuffer;
        std::vector<int8_t> wA, wB;
        bool splitReady = false;  // wA / wB hold the constant weights' halves
        ds::PackedWeights weights, weightsB;
        int32_t srcZpValue = 0, dstZpValue = 0;
        Requantizer requant;
    };

    Status build(const KernelContext &ctx, const ConvQuantKey &key, Entry &e) const;
    Status execute(KernelContext &ctx, Entry &e);

    conv::ConvAttributes m_attrs;
    KernelPtr m_reference;
    QuantActivation m_act;
    bool m_allowSaturation = false;
    Status m_status;
    Tensor m_constWeights;
    std::string m_name;
    ds::ShapeCache<Entry> m_cache;
};

Status QLinearConvDnnl::build(const KernelContext &ctx, const ConvQuantKey &key, Entry &e) const {
    using dt = memory::data_type;
    const Tensor &x = ctx.input(0), &w = ctx.input(3);
    QL_RETURN_IF_ERROR(conv::resolveConvGeometry(m_attrs, x.shape(), w.shape(), e.g));
    const conv::ConvGeometry &g = e.g;
    e.xShape = x.shape();
    e.wShape = w.shape();
    e.xLayout = x.layout();
    e.key = key;
    const bool exactDot = cpuHasExactInt8Dot();
    e.flipSrc = !exactDot && key.xType == DataType::Int8;
    const dt srcType = e.flipSrc ? dt::u8 : dnnlType(key.xType);
    e.srcZpValue = e.flipSrc ? key.xZp + 128 : key.xZp;
    e.dstZpValue = key.yZp;
    const int rank = x.rank();
    const int64_t pixels = shapeElementCount(x.shape()) / (x.dim(0) * x.dim(1));
    const bool clIn = x.layout() == Layout::ChannelsLast || x.dim(1) == 1 || pixels == 1;
    e.reorderSrc = !clIn;
    e.dstTemp = rank != 4;

    const memory::dims srcDims = ds::toDims(x.shape()), dstDims = ds::toDims(g.outputShape);
    const memory::desc srcUser(srcDims, srcType, conv::activationTag(g.spatialRank, clIn));
    const memory::desc srcDesc(srcDims, srcType, conv::activationTag(g.spatialRank, true));
    const memory::dims wDims = conv::convWeightDims(g, w.shape());
    const memory::desc wAny(wDims, dt::s8, memory::format_tag::any);
    const memory::desc wUser(wDims, dt::s8, ds::plainTag(w.rank() + (g.group > 1)));
    const memory::desc biasDesc =
        key.hasBias ? memory::desc({g.outChannels}, dt::s32, memory::format_tag::a)
                    : memory::desc();
    const memory::desc zpDesc({1}, dt::s32, memory::format_tag::a);

    std::vector<float> mult(static_cast<size_t>(g.outChannels));
    for (int64_t c = 0; c < g.outChannels; ++c)
        mult[c] = key.xScale * key.wScale[key.wScale.size() == 1 ? 0 : c] / key.yScale;

    auto makePd = [&](dt dstType, const dnnl::primitive_attr &attr, bool withBias) {
        const memory::desc dstDesc(dstDims, dstType, conv::activationTag(g.spatialRank, true));
        dnnl::convolution_forward::desc desc(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, srcDesc, wAny,
            withBias ? biasDesc : memory::desc(), dstDesc, ds::toDims(g.strides),
            conv::oneDnnDilations(g), ds::toDims(g.padBegin), ds::toDims(g.padEnd));
        return dnnl::convolution_forward::primitive_desc(desc, attr, ds::cpuEngine());
    };
    try {
        auto &eng = ds::cpuEngine();
        dnnl::primitive_attr fusedAttr = ds::ownScratchpad();
        fusedAttr.set_output_scales(1 << 1, mult);
        if (e.srcZpValue != 0) fusedAttr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
        if (e.dstZpValue != 0) fusedAttr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
        dnnl::post_ops ops;
        appendActivation(ops, m_act, key.yScale);
        fusedAttr.set_post_ops(ops);
        auto pd = makePd(dnnlType(key.yType), fusedAttr, key.hasBias);
        if (!exactDot && !m_allowSaturation) {
            // Pairs of adjacent input channels share one int16 in vpmaddubsw; only the direct
            // jit kernels are known to pair along input channels (depthwise: no pairs at all).
            auto pairsAlongChannels = [](const std::string &impl) {
                return impl.rfind("jit", 0) == 0 && impl.find("int8") != std::string::npos;
            };
            const bool constant =
                m_constWeights.defined() && w.storage() == m_constWeights.storage();
            const int64_t taps = shapeElementCount(w.shape()) / (w.dim(0) * w.dim(1));
            if (!constant || !pairsAlongChannels(pd.impl_info_str())) {
                e.split = true;
            } else if (adjacentPairsMayOverflow(w.data<int8_t>(), w.dim(0), w.dim(1), taps)) {
                e.split = true;
                if (rank == 4) {  // one pass on the safe weights + sparse fix-ups
                    dnnl::primitive_attr attr = ds::ownScratchpad();
                    if (e.srcZpValue != 0)
                        attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
                    auto pdAcc = makePd(dt::s32, attr, key.hasBias);
                    if (pairsAlongChannels(pdAcc.impl_info_str())) {
                        e.split = false;
                        e.sparse = true;
                        const int64_t dilH = g.dilations.empty() ? 1 : g.dilations[0];
                        const int64_t dilW = g.dilations.size() < 2 ? 1 : g.dilations[1];
                        splitSaturatingPairs(w.data<int8_t>(), w.dim(0), w.dim(1), w.dim(2),
                                             w.dim(3), g.group, dilH, dilW, e.wA, e.fixups);
                        e.splitReady = true;
                        e.first = dnnl::convolution_forward(pdAcc);
                        e.weights.init(wUser, pdAcc.weights_desc());
                        e.accBuffer.resize(static_cast<size_t>(shapeElementCount(g.outputShape)));
                        e.acc = memory(pdAcc.dst_desc(), eng, e.accBuffer.data());
                        e.multiplier = mult;
                        e.requant.multiplier = mult;
                        e.requant.zeroPoint = static_cast<float>(key.yZp);
                        QL_RETURN_IF_ERROR(integerRange(key.yType, e.requant.lo, e.requant.hi));
                        narrowToActivation(m_act, key.yScale, key.yZp, e.requant.lo,
                                           e.requant.hi);
                        FixupGeometry &fg = e.fixGeometry;
                        fg.batch = x.dim(0);
                        fg.inC = x.dim(1);
                        fg.inH = x.dim(2);
                        fg.inW = x.dim(3);
                        fg.outC = g.outChannels;
                        fg.outH = g.outputShape[2];
                        fg.outW = g.outputShape[3];
                        fg.strideH = g.strides[0];
                        fg.strideW = g.strides[1];
                        fg.padTop = g.padBegin[0];
                        fg.padLeft = g.padBegin[1];
                        setFixupColumns(e.fixups, fg);
                        e.fixupGroups = groupFixups(e.fixups);
                        e.fixupPlanes.resize(static_cast<size_t>(fixupPlaneSize(fg)));
                    }
                }
            }
        }
        if (e.sparse) {
            // primitive and weights built above
        } else if (!e.split) {
            e.first = dnnl::convolution_forward(pd);
            e.weights.init(wUser, pd.weights_desc());
        } else {
            const SplitPassAttributes attrs = makeSplitPassAttributes(e.srcZpValue != 0);
            auto pd1 = makePd(dt::s32, attrs.first, key.hasBias);
            auto pd2 = makePd(dt::s32, attrs.second, false);
            e.first = dnnl::convolution_forward(pd1);
            e.second = dnnl::convolution_forward(pd2);
            e.weights.init(wUser, pd1.weights_desc());
            e.weightsB.init(wUser, pd2.weights_desc());
            e.accBuffer.resize(static_cast<size_t>(shapeElementCount(g.outputShape)));
            e.acc = memory(pd1.dst_desc(), eng, e.accBuffer.data());
            e.wA.resize(static_cast<size_t>(w.numel()));
            e.wB.resize(static_cast<size_t>(w.numel()));
            e.requant.multiplier = mult;
            e.requant.zeroPoint = static_cast<float>(key.yZp);
            QL_RETURN_IF_ERROR(integerRange(key.yType, e.requant.lo, e.requant.hi));
            narrowToActivation(m_act, key.yScale, key.yZp, e.requant.lo, e.requant.hi);
        }
        e.src = memory(srcUser, eng, nullptr);
        if (e.reorderSrc) {
            e.srcCl = memory(srcDesc, eng);
            e.srcReorder = ds::makeReorder(e.src, e.srcCl);
        }
        if (e.flipSrc) e.flipped.resize(static_cast<size_t>(x.numel()));
        const memory::desc dstCl(dstDims, dnnlType(key.yType),
                                 conv::activationTag(g.spatialRank, true));
        if (!e.split && !e.sparse) {
            if (e.dstTemp) {
                e.dst = memory(dstCl, eng);
                const memory::desc dstPlain(dstDims, dnnlType(key.yType),
                                            conv::activationTag(g.spatialRank, false));
                e.dstPlain = memory(dstPlain, eng, nullptr);
                e.dstReorder = ds::makeReorder(e.dst, e.dstPlain);
            } else {
                e.dst = memory(dstCl, eng, nullptr);
            }
        }
        if (key.hasBias) e.bias = memory(biasDesc, eng, nullptr);
        // The values' addresses are bound at run time: the entry moves into the cache.
        e.srcZp = memory(zpDesc, eng, nullptr);
        e.dstZp = memory(zpDesc, eng, nullptr);
    } catch (const dnnl::error &err) {
        return ds::dnnlFailure(m_name + " with input " + shapeToString(x.shape()), err, true);
    }
    return Status::ok();
}

Status QLinearConvDnnl::execute(KernelContext &ctx, Entry &e) {
    const Tensor &x = ctx.input(0), &w = ctx.input(3);
    const conv::ConvGeometry &g = e.g;
    const bool constWeights = m_constWeights.defined() && w.storage() == m_constWeights.storage();
    Tensor &y = ctx.allocateOutput(0, e.key.yType, g.outputShape,
                                   e.dstTemp ? Layout::Plain : Layout::ChannelsLast);
    const void *srcData = x.rawData();
    if (e.flipSrc) {
        flipSignBit(x.data<int8_t>(), e.flipped.data(), x.numel());
        srcData = e.flipped.data();
    }
    if (e.split && !(constWeights && e.splitReady)) {
        splitWeights(w.data<int8_t>(), w.numel(), e.wA.data(), e.wB.data());
        e.splitReady = constWeights;
    }
    return ds::runOnStream(m_name, [&](dnnl::stream &stream) {
        e.src.set_data_handle(const_cast<void *>(srcData));
        memory src = e.src;
        if (e.reorderSrc) {
            ds::execute(e.srcReorder, stream, e.src, e.srcCl);
            src = e.srcCl;
        }
        std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}};
        e.srcZp.set_data_handle(&e.srcZpValue);
        e.dstZp.set_data_handle(&e.dstZpValue);
        if (e.srcZpValue != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC] = e.srcZp;
        if (e.key.hasBias) {
            e.bias.set_data_handle(const_cast<void *>(ctx.input(8).rawData()));
            args[DNNL_ARG_BIAS] = e.bias;
        }
        if (e.sparse) {
            args[DNNL_ARG_WEIGHTS] = e.weights.prepare(stream, e.wA.data(), true);
            args[DNNL_ARG_DST] = e.acc;
            ds::execute(e.first, stream, args);
            stream.wait();
            const auto *xCl = static_cast<const uint8_t *>(e.reorderSrc ? e.srcCl.get_data_handle()
                                                                        : srcData);
            applyFixupsAndRequantize(e.accBuffer.data(), xCl, e.srcZpValue, e.fixups, e.fixupGroups,
                                     e.fixGeometry, e.multiplier.data(), e.requant.zeroPoint,
                                     e.requant.lo, e.requant.hi, e.key.yType, y.rawData(),
                                     e.fixupPlanes.data());
            return;
        }
        if (!e.split) {
            args[DNNL_ARG_WEIGHTS] = e.weights.prepare(stream, w.rawData(), constWeights, &w);
            if (e.dstZpValue != 0) args[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST] = e.dstZp;
            if (!e.dstTemp) e.dst.set_data_handle(y.rawData());
            args[DNNL_ARG_DST] = e.dst;
            ds::execute(e.first, stream, args);
            if (e.dstTemp) {
                e.dstPlain.set_data_handle(y.rawData());
                ds::execute(e.dstReorder, stream, e.dst, e.dstPlain);
            }
            return;
        }
        args[DNNL_ARG_WEIGHTS] = e.weights.prepare(stream, e.wA.data(), constWeights);
        args[DNNL_ARG_DST] = e.acc;
        ds::execute(e.first, stream, args);
        args.erase(DNNL_ARG_BIAS);
        args[DNNL_ARG_WEIGHTS] = e.weightsB.prepare(stream, e.wB.data(), constWeights);
        ds::execute(e.second, stream, args);
        stream.wait();
        // acc is [N][pixels][M]; y is channels-last for 4-D, else plain [N][M][pixels].
        const int64_t n = g.outputShape[0], m = g.outChannels;
        const int64_t pixels = shapeElementCount(g.outputShape) / (n * m);
        for (int64_t b = 0; b < n; ++b) {
            const int32_t *acc = e.accBuffer.data() + b * pixels * m;
            const size_t offset = static_cast<size_t>(b * pixels * m);
            void *dst = static_cast<uint8_t *>(y.rawData()) + offset;
            if (e.dstTemp)
                e.requant.run(acc, pixels, m, e.key.yType, dst, 1, pixels);
            else
                e.requant.run(acc, pixels, m, e.key.yType, dst, m, 1);
        }
    });
}

Status QLinearConvDnnl::run(KernelContext &ctx) {
    QL_RETURN_IF_ERROR(m_status);
    const Tensor &x = ctx.input(0), &w = ctx.input(3);
    ConvQuantKey key;
    if (x.rank() < 3 || x.rank() > 5 || w.rank() != x.rank() || x.numel() == 0 || w.numel() == 0 ||
        !readKey(ctx, w.dim(0), key)) {
        return runReferenceOnPlain(*m_reference, ctx);
    }
    Result<Entry *> entry = m_cache.findOrBuild(
        [&](const Entry &e) {
            return e.xShape == x.shape() && e.xLayout == x.layout() && e.wShape == w.shape() &&
                   e.key == key;
        },
        [&](Entry &e) { return build(ctx, key, e); });
    if (!entry) {
        // A shape error is the reference's to report; oneDNN refusing means: run the reference.
        return runReferenceOnPlain(*m_reference, ctx);
    }
    return execute(ctx, *entry.value());
}

}  // namespace

Result<KernelPtr> makeQLinearConv(const KernelBuildInfo &info) {
    Result<KernelPtr> reference = makeQLinearConvReference(info);
    if (!reference) return reference;
    const Tensor *w = info.constantInput(3);
    if (w && w->dtype() != DataType::Int8) return reference;  // oneDNN has no u8 weights
    return KernelPtr(new QLinearConvDnnl(info, std::move(reference.value())));
}

}  // namespace ql::quant

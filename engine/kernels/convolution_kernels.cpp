// Conv on oneDNN convolution_forward. 2-D convolutions always produce channels-last output:
// oneDNN's fast f32 kernels (brgconv) want NHWC activations, plain NCHW falls to gemm.
#include <unordered_map>
#include <vector>

#include "kernels/convolution_common.h"
#include "kernels/convolution_transpose.h"
#include "kernels/dnnl_scratchpad.h"
#include "kernels/dnnl_support.h"
#include "kernels/kernel.h"
#include "kernels/kernel_families.h"
#include "passes/fuse_activations.h"

namespace ql {

namespace {

using namespace conv;
using dnnl::memory;
namespace ds = dnnl_support;

class ConvKernel : public Kernel {
public:
    explicit ConvKernel(const KernelBuildInfo &info) : m_attrs(readConvAttributes(info.node)) {
        if (const Tensor *w = info.constantInput(1)) m_constWeights = *w;
        m_status = readFusedOps(info.node, m_fused);
    }

    bool acceptsChannelsLast(size_t i) const override {
        return i == 0 || i == fused::kResidualInput;
    }
    Status run(KernelContext &ctx) override;

private:
    struct Entry : ConvEntry {
        dnnl::convolution_forward primitive;
        bool reorderSrc = false;  // plain input converted to NHWC before the primitive
        memory srcNhwc;
        dnnl::reorder srcReorder;
    };

    Status build(const Tensor &x, const Tensor &w, bool hasBias, Entry &entry) const;
    Result<void *> prepareOutput(KernelContext &ctx, const Entry &entry) const;

    ConvAttributes m_attrs;
    FusedOps m_fused;
    Status m_status;
    Tensor m_constWeights;
    ds::ShapeCache<Entry> m_cache;
};

Status ConvKernel::build(const Tensor &x, const Tensor &w, bool hasBias, Entry &e) const {
    QL_RETURN_IF_ERROR(resolveConvGeometry(m_attrs, x.shape(), w.shape(), e.geometry));
    const ConvGeometry &g = e.geometry;
    e.setKey(x, w);
    e.dstChannelsLast = g.spatialRank == 2;
    const auto f32 = memory::data_type::f32;
    const memory::dims dstDims = ds::toDims(g.outputShape);
    const memory::desc dstDesc(dstDims, f32, activationTag(g.spatialRank, e.dstChannelsLast));
    const memory::desc weightsAny(convWeightDims(g, w.shape()), f32, memory::format_tag::any);
    const memory::desc biasDesc =
        hasBias ? memory::desc({g.outChannels}, f32, memory::format_tag::a) : memory::desc();
    dnnl::primitive_attr attr = ds::ownScratchpad();
    if (!m_fused.ops.empty()) attr.set_post_ops(makePostOps(m_fused));

    auto makePd = [&](const memory::desc &srcDesc) {
        dnnl::convolution_forward::desc desc(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, srcDesc,
            weightsAny, biasDesc, dstDesc, ds::toDims(g.strides), oneDnnDilations(g),
            ds::toDims(g.padBegin), ds::toDims(g.padEnd));
        return dnnl::convolution_forward::primitive_desc(desc, attr, ds::cpuEngine());
    };
    // With one channel or one pixel, plain and channels-last storage are the same bytes.
    const int64_t outer = x.dim(0) * x.dim(1);
    const int64_t pixels = outer ? shapeElementCount(x.shape()) / outer : 0;
    const bool channelsLastIn = x.layout() == Layout::ChannelsLast ||
                                (g.spatialRank == 2 && (pixels == 1 || x.dim(1) == 1));
    const memory::desc srcDesc(ds::toDims(x.shape()), f32,
                               activationTag(g.spatialRank, channelsLastIn));
    dnnl::convolution_forward::primitive_desc pd;
    try {
        pd = makePd(srcDesc);
        // A plain 2-D input may land on slow code; NHWC after one reorder is then faster.
        const std::string impl = pd.impl_info_str();
        e.reorderSrc = !channelsLastIn && g.spatialRank == 2 &&
                       (isReferenceImpl(impl) || impl.find("gemm") != std::string::npos);
        if (e.reorderSrc) {
            const memory::desc nhwc(ds::toDims(x.shape()), f32, memory::format_tag::nhwc);
            pd = makePd(nhwc);
            e.srcNhwc = memory(nhwc, ds::cpuEngine());
        }
        e.primitive = dnnl::convolution_forward(pd);
        e.src = memory(srcDesc, ds::cpuEngine(), nullptr);
        e.dst = memory(pd.dst_desc(), ds::cpuEngine(), nullptr);
        const memory::desc userWeights(convWeightDims(g, w.shape()), f32,
                                       ds::plainTag(w.rank() + (g.group > 1)));
        e.weights.init(userWeights, pd.weights_desc());
        if (hasBias) e.bias = memory(biasDesc, ds::cpuEngine(), nullptr);
        if (e.reorderSrc) e.srcReorder = ds::makeReorder(e.src, e.srcNhwc);
    } catch (const dnnl::error &err) {
        return ds::dnnlFailure("Conv with input " + shapeToString(x.shape()) + " and weights " +
                                   shapeToString(w.shape()),
                               err, true);
    }
    return Status::ok();
}

Result<void *> ConvKernel::prepareOutput(KernelContext &ctx, const Entry &e) const {
    const Layout layout = e.dstChannelsLast ? Layout::ChannelsLast : Layout::Plain;
    if (!m_fused.hasSum)
        return ctx.allocateOutput(0, DataType::Float, e.geometry.outputShape, layout).rawData();
    // The sum post-op accumulates into dst, so dst must start as the residual.
    const Tensor &residual = ctx.input(fused::kResidualInput);
    if (residual.dtype() != DataType::Float || residual.shape() != e.geometry.outputShape) {
        return Status::badInput("fused Add operand " + shapeToString(residual.shape()) +
                                " does not match the convolution output " +
                                shapeToString(e.geometry.outputShape));
    }
    // Overwrite the residual in place only when nothing else can see its buffer: the fusion
    // pass proved it dead after this node, and the only other owner is the plan's pool.
    const Tensor &x = ctx.input(0);
    if (m_fused.sumInPlace && residual.layout() == layout && residual.storage().use_count() == 2 &&
        residual.storage() != x.storage()) {
        ctx.setOutput(0, residual);
        return residual.storage()->data();
    }
    Tensor &out = ctx.allocateOutput(0, DataType::Float, e.geometry.outputShape, layout);
    copyIntoLayout(residual, out);
    return out.rawData();
}

Status ConvKernel::run(KernelContext &ctx) {
    QL_RETURN_IF_ERROR(m_status);
    const Tensor &x = ctx.input(0);
    const Tensor &w = ctx.input(1);
    Result<Entry *> entry =
        findEntry("Conv", ctx, m_cache, [&](Entry &e) { return build(x, w, ctx.hasInput(2), e); });
    if (!entry) return entry.status();
    Entry &e = *entry.value();
    Result<void *> out = prepareOutput(ctx, e);
    if (!out) return out.status();
    const bool constWeights = m_constWeights.defined() && w.storage() == m_constWeights.storage();
    return ds::runOnStream("Conv", [&](dnnl::stream &stream) {
        std::unordered_map<int, memory> args = e.bind(ctx, out.value(), stream, constWeights);
        if (e.reorderSrc) {
            ds::execute(e.srcReorder, stream, e.src, e.srcNhwc);
            args[DNNL_ARG_SRC] = e.srcNhwc;
        }
        ds::execute(e.primitive, stream, args);
    });
}

}  // namespace

void registerConvolutionKernels(KernelRegistry &registry) {
    registry.add("Conv", makeFactory<ConvKernel>());
    registry.add("ConvTranspose", conv::makeConvTransposeKernel);
}

}  // namespace ql

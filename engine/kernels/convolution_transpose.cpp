// ConvTranspose on oneDNN deconvolution_forward; 2-D runs channels-last like Conv.
#include "kernels/convolution_transpose.h"

#include <vector>

#include "kernels/convolution_common.h"
#include "kernels/dnnl_scratchpad.h"
#include "kernels/dnnl_support.h"

namespace ql::conv {

namespace {

using dnnl::memory;
namespace ds = dnnl_support;

class ConvTransposeKernel : public Kernel {
public:
    explicit ConvTransposeKernel(const KernelBuildInfo &info)
        : m_attrs(readConvAttributes(info.node)) {
        if (const Tensor *w = info.constantInput(1)) m_constWeights = *w;
    }

    bool acceptsChannelsLast(size_t i) const override { return i == 0; }
    Status run(KernelContext &ctx) override;

private:
    struct Entry : ConvEntry {
        dnnl::deconvolution_forward primitive;
    };
    Status build(const Tensor &x, const Tensor &w, bool hasBias, Entry &entry) const;

    ConvAttributes m_attrs;
    Tensor m_constWeights;
    ds::ShapeCache<Entry> m_cache;
};

// ONNX stores ConvTranspose weights as [C, M/g, k...]: in oneDNN's logical order
// {g, M/g, C/g, k...} that is a strided (input-channel-major) view.
memory::desc onnxWeightsDesc(const ConvGeometry &g, const Shape &w) {
    const int64_t icPerGroup = w[0] / g.group, ocPerGroup = w[1];
    int64_t kernelSize = 1;
    for (int64_t k : g.kernel) kernelSize *= k;
    memory::dims dims, strides;
    if (g.group > 1) {
        dims.push_back(g.group);
        strides.push_back(icPerGroup * ocPerGroup * kernelSize);
    }
    dims.push_back(ocPerGroup);
    strides.push_back(kernelSize);
    dims.push_back(icPerGroup);
    strides.push_back(ocPerGroup * kernelSize);
    int64_t stride = kernelSize;
    for (int64_t k : g.kernel) {
        stride /= k;
        dims.push_back(k);
        strides.push_back(stride);
    }
    return memory::desc(dims, memory::data_type::f32, strides);
}

Status ConvTransposeKernel::build(const Tensor &x, const Tensor &w, bool hasBias, Entry &e) const {
    QL_RETURN_IF_ERROR(resolveTransposeGeometry(m_attrs, x.shape(), w.shape(), e.geometry));
    const ConvGeometry &g = e.geometry;
    e.setKey(x, w);
    e.dstChannelsLast = g.spatialRank == 2;
    const auto f32 = memory::data_type::f32;
    const memory::desc userWeights = onnxWeightsDesc(g, w.shape());
    memory::dims weightDims = userWeights.dims();
    const memory::desc weightsAny(weightDims, f32, memory::format_tag::any);
    const memory::desc dstDesc(ds::toDims(g.outputShape), f32,
                               activationTag(g.spatialRank, e.dstChannelsLast));
    const memory::desc srcDesc(ds::toDims(x.shape()), f32,
                               activationTag(g.spatialRank, x.layout() == Layout::ChannelsLast));
    const memory::desc biasDesc =
        hasBias ? memory::desc({g.outChannels}, f32, memory::format_tag::a) : memory::desc();
    try {
        dnnl::deconvolution_forward::desc desc(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, srcDesc,
            weightsAny, biasDesc, dstDesc, ds::toDims(g.strides), oneDnnDilations(g),
            ds::toDims(g.padBegin), ds::toDims(g.padEnd));
        dnnl::deconvolution_forward::primitive_desc pd(desc, ds::ownScratchpad(), ds::cpuEngine());
        e.primitive = dnnl::deconvolution_forward(pd);
        e.src = memory(srcDesc, ds::cpuEngine(), nullptr);
        e.dst = memory(pd.dst_desc(), ds::cpuEngine(), nullptr);
        e.weights.init(userWeights, pd.weights_desc());
        if (hasBias) e.bias = memory(biasDesc, ds::cpuEngine(), nullptr);
    } catch (const dnnl::error &err) {
        return ds::dnnlFailure("ConvTranspose with input " + shapeToString(x.shape()) +
                                   " and weights " + shapeToString(w.shape()),
                               err, true);
    }
    return Status::ok();
}

Status ConvTransposeKernel::run(KernelContext &ctx) {
    const Tensor &x = ctx.input(0);
    const Tensor &w = ctx.input(1);
    Result<Entry *> entry = findEntry("ConvTranspose", ctx, m_cache,
                                      [&](Entry &e) { return build(x, w, ctx.hasInput(2), e); });
    if (!entry) return entry.status();
    Entry &e = *entry.value();
    Tensor &out = ctx.allocateOutput(0, DataType::Float, e.geometry.outputShape,
                                     e.dstChannelsLast ? Layout::ChannelsLast : Layout::Plain);
    const bool constWeights = m_constWeights.defined() && w.storage() == m_constWeights.storage();
    return ds::runOnStream("ConvTranspose", [&](dnnl::stream &stream) {
        ds::execute(e.primitive, stream, e.bind(ctx, out.rawData(), stream, constWeights));
    });
}

}  // namespace

Result<KernelPtr> makeConvTransposeKernel(const KernelBuildInfo &info) {
    return KernelPtr(new ConvTransposeKernel(info));
}

}  // namespace ql::conv

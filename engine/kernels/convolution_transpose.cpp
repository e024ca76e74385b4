// ConvTranspose on oneDNN deconvolution_forward; 2-D runs channels-last like Conv.
#include "kernels/convolution_transpose.h"

#include <unordered_map>
#include <vector>

#include "kernels/convolution_common.h"
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
    struct Entry {
        Shape xShape, wShape;
        Layout xLayout = Layout::Plain;
        ConvGeometry geometry;
        bool dstChannelsLast = false;
        dnnl::deconvolution_forward primitive;
        memory src, dst, weights, userWeights, bias;
        bool reorderWeights = false;
        bool weightsReady = false;
        dnnl::reorder weightsReorder;
    };
    Status build(const Tensor &x, const Tensor &w, bool hasBias, Entry &entry) const;

    ConvAttributes m_attrs;
    Tensor m_constWeights;
    std::vector<Entry> m_cache;
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
    e.xShape = x.shape();
    e.wShape = w.shape();
    e.xLayout = x.layout();
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
        dnnl::deconvolution_forward::primitive_desc pd(desc, ds::cpuEngine());
        e.primitive = dnnl::deconvolution_forward(pd);
        e.src = memory(srcDesc, ds::cpuEngine(), nullptr);
        e.dst = memory(pd.dst_desc(), ds::cpuEngine(), nullptr);
        e.userWeights = memory(userWeights, ds::cpuEngine(), nullptr);
        e.reorderWeights = pd.weights_desc() != userWeights;
        e.weights = e.reorderWeights ? memory(pd.weights_desc(), ds::cpuEngine()) : e.userWeights;
        if (e.reorderWeights) e.weightsReorder = dnnl::reorder(e.userWeights, e.weights);
        if (hasBias) e.bias = memory(biasDesc, ds::cpuEngine(), nullptr);
    } catch (const dnnl::error &err) {
        return dnnlFailure("ConvTranspose with input " + shapeToString(x.shape()) +
                               " and weights " + shapeToString(w.shape()),
                           err, true);
    }
    return Status::ok();
}

Status ConvTransposeKernel::run(KernelContext &ctx) {
    const Tensor &x = ctx.input(0);
    const Tensor &w = ctx.input(1);
    const bool hasBias = ctx.hasInput(2);
    if (x.dtype() != DataType::Float || w.dtype() != DataType::Float ||
        (hasBias && ctx.input(2).dtype() != DataType::Float)) {
        return Status::unsupported("ConvTranspose supports float32 only, got input " +
                                   dataTypeName(x.dtype()) + " and weights " +
                                   dataTypeName(w.dtype()));
    }
    Entry *entry = nullptr;
    for (Entry &e : m_cache)
        if (e.xShape == x.shape() && e.xLayout == x.layout() && e.wShape == w.shape()) entry = &e;
    if (!entry) {
        Entry fresh;
        QL_RETURN_IF_ERROR(build(x, w, hasBias, fresh));
        if (m_cache.size() >= kMaxCachedShapes) m_cache.erase(m_cache.begin());
        m_cache.push_back(std::move(fresh));
        entry = &m_cache.back();
    }
    Entry &e = *entry;
    if (hasBias && ctx.input(2).numel() != e.geometry.outChannels) {
        return Status::badInput("bias " + shapeToString(ctx.input(2).shape()) + " does not match " +
                                std::to_string(e.geometry.outChannels) + " output channels");
    }
    Tensor &out = ctx.allocateOutput(0, DataType::Float, e.geometry.outputShape,
                                     e.dstChannelsLast ? Layout::ChannelsLast : Layout::Plain);
    const bool constWeights = m_constWeights.defined() && w.storage() == m_constWeights.storage();
    try {
        dnnl::stream &stream = ds::threadStream();
        e.userWeights.set_data_handle(const_cast<void *>(w.rawData()));
        if (e.reorderWeights && (!constWeights || !e.weightsReady)) {
            e.weightsReorder.execute(stream, e.userWeights, e.weights);
            e.weightsReady = constWeights;
        }
        e.src.set_data_handle(const_cast<void *>(x.rawData()));
        e.dst.set_data_handle(out.rawData());
        std::unordered_map<int, memory> args{
            {DNNL_ARG_SRC, e.src}, {DNNL_ARG_WEIGHTS, e.weights}, {DNNL_ARG_DST, e.dst}};
        if (hasBias) {
            e.bias.set_data_handle(const_cast<void *>(ctx.input(2).rawData()));
            args[DNNL_ARG_BIAS] = e.bias;
        }
        e.primitive.execute(stream, args);
        stream.wait();
    } catch (const dnnl::error &err) {
        return dnnlFailure("ConvTranspose", err, false);
    }
    return Status::ok();
}

}  // namespace

Result<KernelPtr> makeConvTransposeKernel(const KernelBuildInfo &info) {
    return KernelPtr(new ConvTransposeKernel(info));
}

}  // namespace ql::conv

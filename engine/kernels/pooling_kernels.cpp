// MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool.
// 2-D float pooling and 2-D uint8/int8 max pooling run on oneDNN (plain or channels-last, the
// output keeps the input's layout); everything else (1-D, 3-D, other integer types, the Indices
// output, count_include_pad windows that overhang the padding in ceil_mode) uses the plain loops
// of pooling_reference.cpp.

#include <string>

#include "kernels/dnnl_scratchpad.h"
#include "kernels/dnnl_support.h"
#include "kernels/kernel.h"
#include "kernels/kernel_families.h"
#include "kernels/pooling_common.h"

namespace ql {

namespace {

namespace ds = dnnl_support;
using pooling::PoolAttributes;
using pooling::PoolGeometry;

bool hasOutput(const Node &node, size_t i) {
    return i < node.outputs.size() && !node.outputs[i].empty();
}

class PoolKernel : public Kernel {
public:
    PoolKernel(const KernelBuildInfo &info, bool isMax, PoolAttributes attrs)
        : m_isMax(isMax), m_attrs(std::move(attrs)) {
        m_wantIndices = isMax && hasOutput(info.node, 1);
    }

    // oneDNN handles channels-last directly; the plain fallback converts for itself.
    bool acceptsChannelsLast(size_t i) const override { return i == 0 && !m_wantIndices; }

    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        PoolGeometry g;
        QL_RETURN_IF_ERROR(pooling::computePoolGeometry(m_attrs, x.shape(), g));
        const Shape outShape = g.outputShape();
        // oneDNN divides by the whole window with include_padding, which is wrong for windows that
        // reach past the padding in ceil_mode: ONNX never counts that overhang.
        // Max pooling of uint8/int8 data (int8 networks) runs on oneDNN as well.
        const bool eightBit = x.dtype() == DataType::UInt8 || x.dtype() == DataType::Int8;
        const bool dnnlEligible =
            (x.dtype() == DataType::Float || (m_isMax && eightBit)) && g.spatial == 2 &&
            !m_wantIndices &&
            !(!m_isMax && m_attrs.countIncludePad && g.overhang) && shapeElementCount(outShape) > 0;
        if (dnnlEligible && prepareDnnl(x, g)) {
            Tensor &y = ctx.allocateOutput(0, x.dtype(), outShape, x.layout());
            dnnl::memory src = ds::wrap(x, m_srcDesc);
            dnnl::memory dst = ds::wrap(y, m_dstDesc);
            dnnl::stream &stream = ds::threadStream();
            ds::execute(m_primitive, stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
            stream.wait();
            return Status::ok();
        }
        const Tensor plain = x.toPlain();
        Tensor &y = ctx.allocateOutput(0, x.dtype(), outShape);
        Tensor *indices =
            m_wantIndices ? &ctx.allocateOutput(1, DataType::Int64, outShape) : nullptr;
        return pooling::poolReference(plain, y, indices, g, m_isMax, m_attrs);
    }

private:
    // Builds (or reuses) the primitive for this input shape and layout; false if oneDNN refuses.
    bool prepareDnnl(const Tensor &x, const PoolGeometry &g) {
        Shape key = x.shape();
        key.push_back(x.layout() == Layout::ChannelsLast ? 1 : 0);
        key.push_back(static_cast<int64_t>(x.dtype()));
        if (key == m_cachedKey) return m_primitiveOk;
        m_cachedKey = key;
        m_primitiveOk = false;
        try {
            using tag = dnnl::memory::format_tag;
            dnnl::memory::dims strides, kernel, dilation, padL, padR;
            for (int d = 0; d < g.spatial; ++d) {
                strides.push_back(g.stride[d]);
                kernel.push_back(g.kernel[d]);
                dilation.push_back(g.dilation[d] - 1);  // oneDNN counts the gaps
                padL.push_back(g.padBegin[d]);
                // Exactly what the last window needs: covers ceil_mode, and oneDNN checks the
                // output size against (in + padL + padR - extent) / stride + 1.
                padR.push_back((g.out[d] - 1) * g.stride[d] + g.extent(d) - g.in[d] -
                               g.padBegin[d]);
            }
            const dnnl::memory::data_type type =
                x.dtype() == DataType::UInt8  ? dnnl::memory::data_type::u8
                : x.dtype() == DataType::Int8 ? dnnl::memory::data_type::s8
                                              : dnnl::memory::data_type::f32;
            m_srcDesc = ds::describe(x, type);
            const tag dstTag =
                x.layout() == Layout::ChannelsLast ? tag::acdb : ds::plainTag(x.rank());
            m_dstDesc = dnnl::memory::desc(ds::toDims(g.outputShape()), type, dstTag);
            const dnnl::algorithm alg = m_isMax ? dnnl::algorithm::pooling_max
                                        : m_attrs.countIncludePad
                                            ? dnnl::algorithm::pooling_avg_include_padding
                                            : dnnl::algorithm::pooling_avg_exclude_padding;
            dnnl::pooling_v2_forward::desc desc(dnnl::prop_kind::forward_inference, alg, m_srcDesc,
                                                m_dstDesc, strides, kernel, dilation, padL, padR);
            m_primitive = dnnl::pooling_v2_forward(dnnl::pooling_v2_forward::primitive_desc(
                desc, ds::ownScratchpad(), ds::cpuEngine()));
            m_primitiveOk = true;
        } catch (const dnnl::error &) {
            m_primitiveOk = false;  // e.g. padding wider than the window: the plain loop handles it
        }
        return m_primitiveOk;
    }

    bool m_isMax;
    PoolAttributes m_attrs;
    bool m_wantIndices = false;
    Shape m_cachedKey;
    bool m_primitiveOk = false;
    dnnl::memory::desc m_srcDesc, m_dstDesc;
    dnnl::pooling_v2_forward m_primitive;
};

class GlobalPoolKernel : public Kernel {
public:
    GlobalPoolKernel(const KernelBuildInfo &, bool isMax) : m_isMax(isMax) {}

    bool acceptsChannelsLast(size_t i) const override { return i == 0; }

    Status run(KernelContext &ctx) override {
        const Tensor &x = ctx.input(0);
        if (x.rank() < 3)
            return Status::badInput("expects an input [N, C, spatial...], got " +
                                    shapeToString(x.shape()));
        Shape outShape(static_cast<size_t>(x.rank()), 1);
        outShape[0] = x.shape()[0];
        outShape[1] = x.shape()[1];
        // [N, C, 1, 1] is the same bytes in either layout: always emit it plain.
        Tensor &y = ctx.allocateOutput(0, x.dtype(), outShape);
        return pooling::globalPool(x, y, m_isMax);
    }

private:
    bool m_isMax;
};

KernelFactory poolFactory(bool isMax) {
    return [isMax](const KernelBuildInfo &info) -> Result<KernelPtr> {
        PoolAttributes attrs;
        Status parsed = pooling::parsePoolAttributes(info.node, attrs);
        if (!parsed) return parsed.withContext(info.node.describe());
        return KernelPtr(new PoolKernel(info, isMax, std::move(attrs)));
    };
}

KernelFactory globalFactory(bool isMax) {
    return [isMax](const KernelBuildInfo &info) -> Result<KernelPtr> {
        return KernelPtr(new GlobalPoolKernel(info, isMax));
    };
}

}  // namespace

void registerPoolingKernels(KernelRegistry &registry) {
    registry.add("MaxPool", poolFactory(true));
    registry.add("AveragePool", poolFactory(false));
    registry.add("GlobalMaxPool", globalFactory(true));
    registry.add("GlobalAveragePool", globalFactory(false));
}

}  // namespace ql

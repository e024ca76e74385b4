#include "kernels/convolution_common.h"

#include <cstring>
#include <limits>

#include "passes/fuse_activations.h"

namespace ql::conv {

namespace {

using tag = dnnl::memory::format_tag;

// Python-style floor division: the ONNX reference splits negative paddings this way.
int64_t floorDiv(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::string listToString(const std::vector<int64_t> &v) {
    return shapeToString(v);
}

// Fills per-axis vectors with defaults and checks their lengths.
Status commonGeometry(const ConvAttributes &attrs, const Shape &x, const Shape &w,
                      ConvGeometry &g) {
    if (x.size() < 3 || x.size() > 5) {
        return Status::unsupported(
            "only 1-D, 2-D and 3-D convolutions are supported, input has shape " +
            shapeToString(x));
    }
    if (w.size() != x.size()) {
        return Status::badInput("weights " + shapeToString(w) + " and input " + shapeToString(x) +
                                " differ in rank");
    }
    const size_t n = x.size() - 2;
    g.spatialRank = static_cast<int>(n);
    g.kernel.assign(w.begin() + 2, w.end());
    if (!attrs.kernelShape.empty() && attrs.kernelShape != g.kernel) {
        return Status::badInput("kernel_shape " + listToString(attrs.kernelShape) +
                                " does not match weights " + shapeToString(w));
    }
    g.strides = attrs.strides.empty() ? std::vector<int64_t>(n, 1) : attrs.strides;
    g.dilations = attrs.dilations.empty() ? std::vector<int64_t>(n, 1) : attrs.dilations;
    if (g.strides.size() != n || g.dilations.size() != n) {
        return Status::badInput("strides " + listToString(g.strides) + " / dilations " +
                                listToString(g.dilations) + " need " + std::to_string(n) +
                                " values");
    }
    for (size_t i = 0; i < n; ++i) {
        if (g.strides[i] < 1 || g.dilations[i] < 1 || g.kernel[i] < 1)
            return Status::badInput("strides, dilations and kernel sizes must be positive");
    }
    const std::vector<int64_t> pads =
        attrs.pads.empty() ? std::vector<int64_t>(2 * n, 0) : attrs.pads;
    if (pads.size() != 2 * n)
        return Status::badInput("pads " + listToString(pads) + " need " + std::to_string(2 * n) +
                                " values");
    g.padBegin.assign(pads.begin(), pads.begin() + n);
    g.padEnd.assign(pads.begin() + n, pads.end());
    g.group = attrs.group;
    if (g.group < 1) return Status::badInput("group must be positive");
    if (attrs.autoPad != "NOTSET" && attrs.autoPad != "VALID" && attrs.autoPad != "SAME_UPPER" &&
        attrs.autoPad != "SAME_LOWER")
        return Status::badInput("unknown auto_pad '" + attrs.autoPad + "'");
    return Status::ok();
}

}  // namespace

ConvAttributes readConvAttributes(const Node &node) {
    ConvAttributes a;
    a.autoPad = node.attrString("auto_pad", "NOTSET");
    if (a.autoPad.empty()) a.autoPad = "NOTSET";
    a.kernelShape = node.attrInts("kernel_shape");
    a.strides = node.attrInts("strides");
    a.dilations = node.attrInts("dilations");
    a.pads = node.attrInts("pads");
    a.outputPadding = node.attrInts("output_padding");
    a.outputShape = node.attrInts("output_shape");
    a.group = node.attrInt("group", 1);
    return a;
}

Status resolveConvGeometry(const ConvAttributes &attrs, const Shape &x, const Shape &w,
                           ConvGeometry &g) {
    QL_RETURN_IF_ERROR(commonGeometry(attrs, x, w, g));
    if (x[1] != w[1] * g.group || w[0] % g.group != 0) {
        return Status::badInput("input " + shapeToString(x) + " and weights " + shapeToString(w) +
                                " do not fit group " + std::to_string(g.group));
    }
    g.outChannels = w[0];
    g.outputShape = {x[0], w[0]};
    for (int i = 0; i < g.spatialRank; ++i) {
        const int64_t in = x[2 + i], s = g.strides[i];
        const int64_t extent = (g.kernel[i] - 1) * g.dilations[i] + 1;
        if (attrs.autoPad == "VALID") {
            g.padBegin[i] = g.padEnd[i] = 0;
        } else if (attrs.autoPad != "NOTSET") {
            const int64_t out = (in + s - 1) / s;
            const int64_t total = std::max<int64_t>(0, (out - 1) * s + extent - in);
            const int64_t small = total / 2;
            g.padBegin[i] = attrs.autoPad == "SAME_UPPER" ? small : total - small;
            g.padEnd[i] = total - g.padBegin[i];
        }
        const int64_t span = in + g.padBegin[i] + g.padEnd[i] - extent;
        if (span < 0) {
            return Status::badInput("kernel extent " + std::to_string(extent) +
                                    " exceeds padded input " + shapeToString(x));
        }
        g.outputShape.push_back(span / s + 1);
    }
    return Status::ok();
}

Status resolveTransposeGeometry(const ConvAttributes &attrs, const Shape &x, const Shape &w,
                                ConvGeometry &g) {
    QL_RETURN_IF_ERROR(commonGeometry(attrs, x, w, g));
    const size_t n = static_cast<size_t>(g.spatialRank);
    if (x[1] != w[0] || x[1] % g.group != 0) {
        return Status::badInput("input " + shapeToString(x) + " and weights " + shapeToString(w) +
                                " do not fit group " + std::to_string(g.group));
    }
    g.outChannels = w[1] * g.group;
    std::vector<int64_t> outPad =
        attrs.outputPadding.empty() ? std::vector<int64_t>(n, 0) : attrs.outputPadding;
    if (outPad.size() != n)
        return Status::badInput("output_padding needs " + std::to_string(n) + " values");
    // output_shape may list the spatial dims only or the full shape.
    std::vector<int64_t> outShape = attrs.outputShape;
    if (outShape.size() == n + 2) outShape.erase(outShape.begin(), outShape.begin() + 2);
    if (!outShape.empty() && outShape.size() != n)
        return Status::badInput("output_shape " + listToString(attrs.outputShape) +
                                " does not fit the input");
    const bool same = attrs.autoPad == "SAME_UPPER" || attrs.autoPad == "SAME_LOWER";
    g.outputShape = {x[0], g.outChannels};
    for (size_t i = 0; i < n; ++i) {
        const int64_t in = x[2 + i], s = g.strides[i];
        const int64_t extent = (g.kernel[i] - 1) * g.dilations[i] + 1;
        const int64_t full = s * (in - 1) + outPad[i] + extent;
        if (!outShape.empty() || same) {
            const int64_t target = outShape.empty() ? in * s : outShape[i];
            const int64_t total = full - target;
            if (attrs.autoPad == "SAME_UPPER") {
                g.padBegin[i] = floorDiv(total, 2);
                g.padEnd[i] = total - g.padBegin[i];
            } else {
                g.padEnd[i] = floorDiv(total, 2);
                g.padBegin[i] = total - g.padEnd[i];
            }
        } else if (attrs.autoPad == "VALID") {
            g.padBegin[i] = g.padEnd[i] = 0;
        }
        const int64_t out = full - g.padBegin[i] - g.padEnd[i];
        if (out < 1)
            return Status::badInput("ConvTranspose output would be empty for input " +
                                    shapeToString(x));
        if (g.padBegin[i] < 0)
            return Status::unsupported("negative leading padding " + std::to_string(g.padBegin[i]));
        // oneDNN only checks that dst fits the source (placement depends on padding_l alone),
        // so output_padding and a negative trailing pad are absorbed by the larger dst.
        const int64_t trailing = std::max<int64_t>(0, g.padEnd[i]);
        if (outPad[i] + trailing - g.padEnd[i] >= s) {
            return Status::unsupported("output_padding " + std::to_string(outPad[i]) +
                                       " (with output_shape) not smaller than stride " +
                                       std::to_string(s));
        }
        g.padEnd[i] = trailing;
        g.outputShape.push_back(out);
    }
    return Status::ok();
}

tag activationTag(int spatialRank, bool channelsLast) {
    switch (spatialRank) {
        case 1:
            return channelsLast ? tag::nwc : tag::ncw;
        case 2:
            return channelsLast ? tag::nhwc : tag::nchw;
        case 3:
            return channelsLast ? tag::ndhwc : tag::ncdhw;
        default:
            return tag::undef;
    }
}

dnnl::memory::dims convWeightDims(const ConvGeometry &g, const Shape &w) {
    dnnl::memory::dims dims(w.begin(), w.end());
    if (g.group == 1) return dims;
    dims[0] /= g.group;
    dims.insert(dims.begin(), g.group);
    return dims;
}

dnnl::memory::dims oneDnnDilations(const ConvGeometry &g) {
    dnnl::memory::dims d;
    for (int64_t v : g.dilations) d.push_back(v - 1);
    return d;
}

Status readFusedOps(const Node &node, FusedOps &fused) {
    auto ops = node.attributes.find(fused::kOps);
    if (ops != node.attributes.end()) fused.ops = ops->second.strings;
    fused.alphas = node.attrFloats(fused::kAlphas);
    fused.betas = node.attrFloats(fused::kBetas);
    fused.sumInPlace = node.attrInt(fused::kSumInPlace, 0) != 0;
    if (fused.alphas.size() != fused.ops.size() || fused.betas.size() != fused.ops.size())
        return Status::internal("fused op parameters do not match the op list");
    int sums = 0;
    for (const std::string &op : fused.ops) {
        if (op == "Add") {
            ++sums;
        } else if (op != "Relu" && op != "LeakyRelu" && op != "Clip" && op != "HardSigmoid" &&
                   op != "HardSwish" && op != "Sigmoid" && op != "Swish") {
            return Status::internal("cannot fuse " + op + " into a convolution");
        }
    }
    if (sums > 1) return Status::internal("at most one Add can be fused into a convolution");
    fused.hasSum = sums == 1;
    if (fused.hasSum && !node.hasInput(fused::kResidualInput))
        return Status::internal("fused Add without its residual input");
    return Status::ok();
}

dnnl::post_ops makePostOps(const FusedOps &fused) {
    using alg = dnnl::algorithm;
    dnnl::post_ops ops;
    for (size_t i = 0; i < fused.ops.size(); ++i) {
        const std::string &op = fused.ops[i];
        const float a = fused.alphas[i], b = fused.betas[i];
        if (op == "Add")
            ops.append_sum(1.0f);
        else if (op == "Relu")
            ops.append_eltwise(1.0f, alg::eltwise_relu, 0.0f, 0.0f);
        else if (op == "LeakyRelu")
            ops.append_eltwise(1.0f, alg::eltwise_relu, a, 0.0f);
        else if (op == "Clip")
            ops.append_eltwise(1.0f, alg::eltwise_clip, a, b);
        else if (op == "Swish")
            ops.append_eltwise(1.0f, alg::eltwise_swish, 1.0f, 0.0f);
        else if (op == "Sigmoid")
            ops.append_eltwise(1.0f, alg::eltwise_logistic, 0.0f, 0.0f);
        else if (op == "HardSwish")
            ops.append_eltwise(1.0f, alg::eltwise_hardswish, 0.0f, 0.0f);
        else if (op == "HardSigmoid") {  // max(0, min(1, a*x + b)) in two steps
            ops.append_eltwise(1.0f, alg::eltwise_linear, a, b);
            ops.append_eltwise(1.0f, alg::eltwise_clip, 0.0f, 1.0f);
        }
    }
    return ops;
}

void copyIntoLayout(const Tensor &src, Tensor &dst) {
    if (src.layout() == dst.layout()) {
        std::memcpy(dst.rawData(), src.rawData(), src.byteSize());
    } else if (dst.layout() == Layout::ChannelsLast) {
        nchwToNhwc(src.rawData(), dst.rawData(), src.shape(), dataTypeSize(src.dtype()));
    } else {
        nhwcToNchw(src.rawData(), dst.rawData(), src.shape(), dataTypeSize(src.dtype()));
    }
}

Status checkFloatInputs(const std::string &op, const KernelContext &ctx) {
    const Tensor &x = ctx.input(0), &w = ctx.input(1);
    if (x.dtype() != DataType::Float || w.dtype() != DataType::Float ||
        (ctx.hasInput(2) && ctx.input(2).dtype() != DataType::Float)) {
        return Status::unsupported(op + " supports float32 only, got input " +
                                   dataTypeName(x.dtype()) + " and weights " +
                                   dataTypeName(w.dtype()));
    }
    return Status::ok();
}

void ConvEntry::setKey(const Tensor &x, const Tensor &w) {
    xShape = x.shape();
    xLayout = x.layout();
    wShape = w.shape();
}

bool ConvEntry::matches(const Tensor &x, const Tensor &w) const {
    return xShape == x.shape() && xLayout == x.layout() && wShape == w.shape();
}

Status ConvEntry::checkBias(const KernelContext &ctx) const {
    if (ctx.hasInput(2) && ctx.input(2).numel() != geometry.outChannels) {
        return Status::badInput("bias " + shapeToString(ctx.input(2).shape()) + " does not match " +
                                std::to_string(geometry.outChannels) + " output channels");
    }
    return Status::ok();
}

std::unordered_map<int, dnnl::memory> ConvEntry::bind(const KernelContext &ctx, void *out,
                                                      dnnl::stream &stream, bool constantWeights) {
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_WEIGHTS, weights.prepare(stream, ctx.input(1).rawData(), constantWeights, &ctx.input(1))}};
    src.set_data_handle(const_cast<void *>(ctx.input(0).rawData()));
    dst.set_data_handle(out);
    args[DNNL_ARG_SRC] = src;
    args[DNNL_ARG_DST] = dst;
    if (ctx.hasInput(2)) {
        bias.set_data_handle(const_cast<void *>(ctx.input(2).rawData()));
        args[DNNL_ARG_BIAS] = bias;
    }
    return args;
}

bool isReferenceImpl(const std::string &implInfo) {
    return implInfo.find("ref") != std::string::npos;
}

}  // namespace ql::conv

#pragma once
// Internal to the convolution kernels: ONNX padding/shape rules and oneDNN glue shared by
// Conv and ConvTranspose.

#include <dnnl.hpp>

#include <string>
#include <unordered_map>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "kernels/dnnl_support.h"
#include "kernels/kernel.h"

namespace ql::conv {

// The attributes of a Conv / ConvTranspose node, read once at build time.
struct ConvAttributes {
    std::string autoPad = "NOTSET";
    std::vector<int64_t> kernelShape, strides, dilations, pads;
    std::vector<int64_t> outputPadding, outputShape;  // ConvTranspose only
    int64_t group = 1;
};
ConvAttributes readConvAttributes(const Node &node);

// Resolved per input shape: everything oneDNN needs, in oneDNN conventions.
struct ConvGeometry {
    int spatialRank = 0;
    std::vector<int64_t> kernel, strides, dilations;  // dilations as ONNX (1 = dense)
    std::vector<int64_t> padBegin, padEnd;            // as oneDNN padding_l / padding_r
    Shape outputShape;                                // logical NCHW order
    int64_t group = 1;
    int64_t outChannels = 0;
};

// x: [N, C, D...], w: [M, C/group, k...].
Status resolveConvGeometry(const ConvAttributes &attrs, const Shape &x, const Shape &w,
                           ConvGeometry &geometry);
// x: [N, C, D...], w: [C, M/group, k...].
Status resolveTransposeGeometry(const ConvAttributes &attrs, const Shape &x, const Shape &w,
                                ConvGeometry &geometry);

// Format tags for activations of a spatial rank, plain (ncw/nchw/ncdhw) or channels-last.
dnnl::memory::format_tag activationTag(int spatialRank, bool channelsLast);
// oneDNN weight dims: {M, C/g, k...} or {g, M/g, C/g, k...} when grouped.
dnnl::memory::dims convWeightDims(const ConvGeometry &geometry, const Shape &w);
dnnl::memory::dims oneDnnDilations(const ConvGeometry &geometry);

// Post-ops of a fused Conv, parsed from the internal _fused_* attributes.
struct FusedOps {
    std::vector<std::string> ops;
    std::vector<float> alphas, betas;
    bool hasSum = false;
    bool sumInPlace = false;
};
Status readFusedOps(const Node &node, FusedOps &fused);
dnnl::post_ops makePostOps(const FusedOps &fused);

// Copies `src` (any layout) into `dst` stored in `dst`'s layout; same logical shape.
void copyIntoLayout(const Tensor &src, Tensor &dst);

// What Conv and ConvTranspose keep per input shape, besides their primitive.
struct ConvEntry {
    Shape xShape, wShape;
    Layout xLayout = Layout::Plain;
    ConvGeometry geometry;
    bool dstChannelsLast = false;
    dnnl::memory src, dst, bias;  // bias stays empty without one
    dnnl_support::PackedWeights weights;

    void setKey(const Tensor &x, const Tensor &w);
    bool matches(const Tensor &x, const Tensor &w) const;
    // BadInput unless the bias (input 2), when given, has one value per output channel.
    Status checkBias(const KernelContext &ctx) const;
    // Points src, dst and bias at this run's buffers; returns the primitive arguments with the
    // weights prepared. Throws dnnl::error.
    std::unordered_map<int, dnnl::memory> bind(const KernelContext &ctx, void *out,
                                               dnnl::stream &stream, bool constantWeights);
};

// Unsupported unless X, W and the optional bias (inputs 0-2) are float32.
Status checkFloatInputs(const std::string &op, const KernelContext &ctx);

// The start of a Conv / ConvTranspose run: type checks, the cached entry for these input
// shapes (made by build(Entry &) when new), and the bias check against it.
template <class Entry, class Build>
Result<Entry *> findEntry(const std::string &op, const KernelContext &ctx,
                          dnnl_support::ShapeCache<Entry> &cache, Build &&build) {
    QL_RETURN_IF_ERROR(checkFloatInputs(op, ctx));
    const Tensor &x = ctx.input(0), &w = ctx.input(1);
    Result<Entry *> entry = cache.findOrBuild([&](const Entry &e) { return e.matches(x, w); },
                                              std::forward<Build>(build));
    if (entry) QL_RETURN_IF_ERROR(entry.value()->checkBias(ctx));
    return entry;
}

// True when a primitive descriptor landed on oneDNN's slow reference code.
bool isReferenceImpl(const std::string &implInfo);

}  // namespace ql::conv

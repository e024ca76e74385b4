#pragma once
// Internal to the convolution kernels: ONNX padding/shape rules and oneDNN glue shared by
// Conv and ConvTranspose.

#include <dnnl.hpp>

#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql::conv {

// Primitives kept per kernel for distinct input shapes; the oldest goes first beyond this.
inline constexpr size_t kMaxCachedShapes = 8;

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

// Turns a oneDNN exception into a Status naming what was attempted.
Status dnnlFailure(const std::string &what, const dnnl::error &e, bool creating);

// True when a primitive descriptor landed on oneDNN's slow reference code.
bool isReferenceImpl(const std::string &implInfo);

}  // namespace ql::conv

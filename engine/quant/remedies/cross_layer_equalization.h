#pragma once
// Cross-layer equalization (Nagel et al., "Data-Free Quantization", ICCV 2019, section 4.1).
// Two convolutions joined through an operation that commutes with a positive per-channel scale
// (nothing, or Relu: relu(x / s) = relu(x) / s for s > 0) compute the same function when output
// channel i of the first is divided by s_i (weights and bias) and input channel i of the second
// is multiplied by s_i. With r1_i = max|W1[i, ...]| and r2_i = max|W2[:, i, ...]|,
//   s_i = sqrt(r1_i / r2_i)
// gives both channels the range sqrt(r1_i · r2_i): channels whose ranges were orders of magnitude
// apart (depthwise convolutions after BatchNorm folding) then share a per-tensor int8 scale far
// better. A depthwise convolution's channel i is both an input and an output channel, so in a
// chain pointwise → depthwise → pointwise each equalization moves the other pair's balance: the
// pairs are equalized in turn until no scale moves by more than the tolerance.
//
// Run it on the float graph after BatchNormalization folding (quant::prepareFloatGraph) and before
// calibration: the activations between the pair change by 1/s_i per channel, the graph's outputs
// do not. Pairs that cannot be equalized exactly are left alone with the reason recorded:
// Clip/Relu6 between them (their bound does not scale per channel), grouped convolutions other
// than depthwise, weights shared with other nodes or not constant, an intermediate value read
// elsewhere.

#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace ql::quant {

struct CrossLayerEqualizationOptions {
    int maxIterations = 20;
    double tolerance = 1e-6;  // stop once every scale of an iteration is within this of 1
};

struct EqualizedPair {
    std::string first, second;  // Conv node names: first's output channels feed second
    std::string between;        // "" or the op between them ("Relu")
    std::vector<double>
        scales;  // s_i of all iterations multiplied: first's channel i was divided by it
    // max / min over the channels of the per-channel weight range, before and after; the first
    // layer's output channels and the second layer's input channels.
    double firstSpreadBefore = 0, firstSpreadAfter = 0;
    double secondSpreadBefore = 0, secondSpreadAfter = 0;
};

struct SkippedPair {
    std::string first, second;
    std::string reason;
};

struct CrossLayerEqualizationReport {
    std::vector<EqualizedPair> pairs;
    std::vector<SkippedPair> skipped;
    int iterations = 0;
    bool converged = false;
};

// Equalizes every eligible pair of `graph` in place; a pair that does not fit (shapes, types,
// sharing) is left as it is with its reason in the report, so this does not fail today.
Result<CrossLayerEqualizationReport> equalizeCrossLayer(
    Graph &graph, const CrossLayerEqualizationOptions &options = {});

// "cross-layer equalization: 5 pairs in 3 iterations; ..." for the command line and reports.
std::string describe(const CrossLayerEqualizationReport &report);

}  // namespace ql::quant

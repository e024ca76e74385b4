#pragma once
// SmoothQuant (Xiao et al., "SmoothQuant: Accurate and Efficient Post-Training Quantization for
// Large Language Models", ICML 2023). Transformers' activations carry a few outlier channels (after
// LayerNorm, tens of times larger than the rest); a per-tensor int8 scale wide enough for them
// leaves the other channels a few levels. Weights are easy to quantize. A linear layer computes
// the same with its input's channel j divided by s_j and its weight's input row j multiplied by
// s_j; with m_j = max|X_j| over the calibration data and w_j = max|W[j, :]|,
//   s_j = m_j^α / w_j^(1−α)   (α = 0.5 by default)
// moves part of the outliers' range into the weights: both then have channel ranges
// m_j^(1−α) · w_j^α.
//
// Layers: MatMul with a constant 2-D weight, Gemm (transA = 0) with a constant B, Conv with a
// constant weight and group = 1 (channel axis 1). The layers reading one activation share its
// scales (w_j is the largest over them: Q, K and V after a LayerNorm). The division by s goes
// into the activation's producer when the activation feeds only those layers:
//   LayerNormalization (scale and bias), a per-channel Mul (+ Add) such as a LayerNorm written
//   out node by node ends with, BatchNormalization (Conv layers);
// otherwise into an explicit Mul by 1/s on a new value that only those layers read (the
// activation also feeds a residual Add, or its producer is none of the above). The quantization
// plan runs that Mul in float on the unquantized activation, so its output is quantized once.
//
// Run it on the float graph after BatchNormalization folding and before calibration, like CLE:
// the graph's outputs do not change; the smoothed activations and weights do, so the smoothed
// float model is the float side to compare the quantized one with. By default an activation is
// smoothed when it has outlier channels (the largest channel maximum ≥ minOutlierRatio times the
// median one); layers named in `layers` are smoothed whatever their spread.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "quant/calibration.h"

namespace ql::quant {

struct SmoothQuantOptions {
    double alpha = 0.5;
    std::map<std::string, double> layerAlpha;  // node name -> α for the activation it reads
    std::set<std::string> layers;              // smooth only the inputs of these; empty: all
    double minOutlierRatio = 8.0;              // for unnamed layers; see above
    int threads = 0;                           // of the statistics pass; 0: all hardware threads
    ProgressCallback progress;                 // (batches done, 0) per batch; false cancels
};

struct SmoothedActivation {
    std::string value;                // the activation in the float graph before smoothing
    std::vector<std::string> layers;  // the weighted layers that read it
    std::string foldedInto;           // "LayerNormalization 'ln'" or "inserted Mul 'x_smooth'"
    double alpha = 0.5;
    std::vector<double> scales;  // s_j; channel j of the activation was divided by it
    // Largest / median over the channels of max|X_j| (activation) and of max|W[j, :]| (the
    // layers' input rows), before and after.
    double activationSpreadBefore = 0, activationSpreadAfter = 0;
    double weightSpreadBefore = 0, weightSpreadAfter = 0;
};

struct UnsmoothedActivation {
    std::string value;
    std::vector<std::string> layers;
    std::string reason;
};

struct SmoothQuantReport {
    std::vector<SmoothedActivation> smoothed;  // graph order
    std::vector<UnsmoothedActivation> skipped;
    int64_t samples = 0;
};

// Smooths `graph` in place with statistics from one float pass over `data`. Errors: a named
// layer that is not in the graph, data that does not fit the model, cancellation.
Result<SmoothQuantReport> smoothQuant(Graph &graph, const BatchSourceOpener &data,
                                      const SmoothQuantOptions &options = {});

// "smoothquant: 5 activations over 64 samples; largest channel spread 40x -> 6.3x; ..."
std::string describe(const SmoothQuantReport &report);

}  // namespace ql::quant

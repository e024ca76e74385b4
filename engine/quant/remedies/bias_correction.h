#pragma once
// Empirical bias correction (Nagel et al., "Data-Free Quantization", ICCV 2019, section 4.2;
// AIMET's empirical variant). Rounding a layer's weights shifts the mean of its output channels:
// E[W̃x] − E[Wx] = (W̃ − W)·E[x] is rarely zero, and per-tensor weights with few values per
// channel (depthwise convolutions) shift most. The shift passes on to every later layer. For each
// int8 Conv / ConvTranspose / Gemm with an int32 bias in the plan, in execution order, the
// quantized model (its QDQ graph run as written, so every pre-quantization value is seen) and the
// float model run on calibration data; the per-output-channel mean of the layer's error
// (quantized − float output) is subtracted from the layer's float bias, which the plan then
// quantizes to int32 as before. Each layer is measured with the layers before it already
// corrected, so a correction also absorbs what the earlier corrections left.
//
// A mean estimated from few samples is noisy: subtracting it adds its noise to every output of
// the channel. Each channel's shift is the mean shrunk towards zero by its standard error over
// samples, m · max(0, 1 − se²/m²) (positive-part James-Stein), so a mean no larger than its noise
// is left alone.
//
// Layers whose corrections cannot affect each other (no corrected layer between them) are
// measured in one pass; a chain of n layers takes n passes, each stopping both models after the
// pass's last layer, and one more pass measures the result.

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "quant/calibration.h"
#include "quant/quantization_plan.h"

namespace ql::quant {

struct BiasCorrectionOptions {
    std::set<std::string> layers;  // node names to correct; empty: every eligible layer
    int threads = 0;               // of the execution plans; 0: all hardware threads
    ProgressCallback progress;     // (passes done, passes); false cancels (ErrorKind::Cancelled)
};

struct CorrectedLayer {
    std::string node, opType;
    int64_t channels = 0;
    int64_t channelsShifted = 0;  // channels whose mean error stood out of its noise
    // Root mean square over the output channels of the per-channel mean error (quantized −
    // float), on the calibration data: before this layer's correction (with the earlier layers
    // corrected) and in the corrected model; standardError: the same RMS of the means' standard
    // errors (the noise floor of those figures). outputRms: of the float output, for scale.
    double meanErrorBefore = 0, meanErrorAfter = 0, standardError = 0, outputRms = 0;
    double largestShift = 0;  // the largest |shift| of a channel's bias
};

struct UncorrectedLayer {
    std::string node, reason;
};

struct BiasCorrectionReport {
    std::vector<CorrectedLayer> layers;  // execution order
    std::vector<UncorrectedLayer> skipped;
    std::vector<std::string> biasesAdded;  // layers that had no bias (given a zero one first)
    int passes = 0;  // over the data (both models each), the final measurement included
    int64_t samples = 0;
};

// Gives every Conv, ConvTranspose and Gemm without a bias a zero float bias (Gemm only when it
// has C's place free and beta = 1), so that the plan quantizes one that correction can move.
// The function of the graph is unchanged. Only the nodes named in `only` when it is not empty.
// Returns the nodes changed. Call before planning.
std::vector<std::string> addZeroBiases(Graph &prepared, const std::set<std::string> &only = {});

// Corrects the float biases of `prepared` (the graph `plan` was built on) in place; the caller
// then builds the QDQ graph again (buildQdqGraph) from the corrected graph and the same plan.
// Errors: a plan or pass that cannot run, data that does not fit the model, cancellation.
Result<BiasCorrectionReport> correctBiases(Graph &prepared, const QuantizationPlan &plan,
                                           const BatchSourceOpener &data,
                                           const BiasCorrectionOptions &options = {});

// "bias correction: 12 layers in 9 passes over 32 samples; mean error ..." for reports.
std::string describe(const BiasCorrectionReport &report);

}  // namespace ql::quant

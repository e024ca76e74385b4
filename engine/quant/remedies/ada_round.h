#pragma once
// AdaRound (Nagel et al., "Up or Down? Adaptive Rounding for Post-Training Quantization", ICML
// 2020). Rounding each weight to the nearest grid point is not what minimises a layer's output
// error: the errors of a row's weights add up through the inputs' correlations. AdaRound chooses
// per weight between rounding down and up, W̃ = s · clip(⌊W/s⌋ + h(V), qmin, qmax), with the
// rectified sigmoid h(V) = clip(σ(V)·(ζ − γ) + γ, 0, 1) (ζ = 1.1, γ = −0.1) relaxed during the
// optimisation and forced to 0 or 1 by the regulariser Σ 1 − |2h − 1|^β, β annealed from 20 to 2
// after a warm-up without it. V starts where h equals the fractional part (round to nearest
// in the limit), and Adam minimises, per layer,
//     |(W̃ − W) x_q|² / E₀ + λ · mean over weights of (1 − |2h − 1|^β)
// with x_q the layer's input in the quantized model (every layer rounded to nearest) and E₀ the
// same error with nearest rounding (so λ does not depend on the layer's scale). The output is
// compared before the activation function after it.
//
// Differences from the paper and AIMET, and why: the squared error over all calibration columns
// is a quadratic form in W̃ (quant/remedies/reconstruction_statistics.h), so each step uses the
// exact gradient over all the data instead of a mini-batch, and one pass over the data serves
// every layer. The paper's asymmetric variant, |W̃ x_q − W x_f|², which lets the weights absorb
// the input's quantization error too, fitted the calibration samples' noise here: on the
// Fashion-MNIST MobileNet fixture (per-tensor weights) it took output SQNR on the test images
// from 27.5 to 11.9 dB, where the form above gives 33.8 dB.
//
// Every fourth calibration sample is held apart (its columns, up to a cap, are not in the
// statistics): a layer keeps its adaptive rounding only when that reconstructs the held-apart
// columns better than rounding to nearest, so a layer where the choice only fits the calibration
// samples (white inputs leave nothing to gain) stays as it was, which the report says. With fewer
// than four samples the calibration columns decide.
//
// The weights of the float graph are replaced by the chosen grid values s·(q − z), which the
// plan's qparams (unchanged) quantize back to exactly q: rebuild the QDQ graph from the graph
// and the same plan; do not plan again from these weights.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "quant/calibration.h"
#include "quant/quantization_plan.h"

namespace ql::quant {

struct AdaRoundOptions {
    std::set<std::string> layers;  // node names to round adaptively; empty: every eligible layer
    int iterations = 500;          // Adam steps per layer
    double learningRate = 0.1;     // Adam's; V moves by about this much per step
    double regularization = 100;   // λ
    double warmup = 0.2;           // share of the steps without the regulariser
    double betaStart = 20, betaEnd = 2;
    int64_t columnsPerSample = 256;   // input columns (output positions) per sample and layer
    uint64_t seed = 0;                // of the positions drawn; one seed gives one result
    int holdOutEvery = 4;             // every n-th sample validates; 0: none
    int64_t heldApartColumns = 1024;  // at most, per layer (and group)
    int threads = 0;                  // of the execution plans; 0: all hardware threads
    // (per mille done, 1000): the pass over the data is the first 100; false cancels
    // (ErrorKind::Cancelled).
    ProgressCallback progress;
};

struct RoundedLayer {
    std::string node, opType;
    int64_t weights = 0;
    int64_t changed = 0;    // weights whose grid value differs from rounding to nearest
    int64_t undecided = 0;  // h still between 0.01 and 0.99 after the last step (read as ≥ 0.5)
    int64_t columns = 0;    // input columns the reconstruction was measured on
    // SQNR of the layer's output (without bias and activation) on the calibration columns, in
    // dB, of the weights' rounding alone (W̃ x_q against W x_q: what AdaRound minimises)...
    double weightOnlySqnrNearest = 0, weightOnlySqnrAdaptive = 0;
    // ... of the quantized layer as it runs (W̃ x_q against W x_f) ...
    double sqnrNearest = 0, sqnrAdaptive = 0;
    double inputOnlySqnr = 0;  // ... and of the input's quantization alone (W x_q against W x_f)
    // The weights' rounding alone on the held-apart samples' columns (0 columns: not measured).
    int64_t heldApartColumns = 0;
    double heldApartSqnrNearest = 0, heldApartSqnrAdaptive = 0;
    bool keptNearest = false;  // adaptive rounding did not reconstruct the held-apart data better
    double seconds = 0;        // of its optimisation
};

struct UnroundedLayer {
    std::string node, reason;
};

struct AdaRoundReport {
    std::vector<RoundedLayer> layers;  // execution order
    std::vector<UnroundedLayer> skipped;
    AdaRoundOptions options;  // as used (progress cleared)
    int64_t samples = 0;
    double passSeconds = 0, seconds = 0;
};

// Rounds the weights of the int8 layers of `prepared` (the graph `plan` was built on) in place.
// Layers: Conv (1 or 2 spatial dimensions, any group), Gemm (transA = 0), MatMul with a constant
// 2-D weight; others are reported as skipped. Errors: unknown layer names, a pass that cannot
// run, data that does not fit the model, cancellation.
Result<AdaRoundReport> adaRound(Graph &prepared, const QuantizationPlan &plan,
                                const BatchSourceOpener &data, const AdaRoundOptions &options = {});

// "AdaRound: 21 layers in 292.1 s (pass over 64 samples 9.2 s, 500 steps per layer); the weights'
// rounding alone, median over layers on held-apart samples: 38.0 -> 40.3 dB; 1 kept nearest
// rounding".
std::string describe(const AdaRoundReport &report);

}  // namespace ql::quant

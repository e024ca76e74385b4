#pragma once
// The numeric suite: every per-layer figure of a float / quantized model pair in one report, the
// data behind `quantlens analyze` and the inspector window. It matches the layers, compares the
// weights, runs both models on the same inputs (cumulative comparison), feeds each quantized layer
// the float model's input to that layer (isolated comparison) and checks each int8 kernel against
// the reference path; all of it streaming, batch by batch.
//
// Layers are listed in the float model's topological order; a figure that does not apply to a
// layer is nullopt (JSON null): e.g. weight SQNR for a MaxPool, isolated SQNR for a layer whose
// input has no float counterpart.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/suite/activation_comparison.h"
#include "analysis/metrics/comparison_metrics.h"
#include "analysis/metrics/sample_ranges.h"
#include "core/status.h"
#include "ir/graph.h"
#include "passes/int8_kernel_mode.h"

namespace ql::analysis {

// Kernel-vs-reference SQNR below this flags a kernel mismatch (issue 4).
constexpr double kKernelMismatchDb = 40.0;

struct LayerReport {
    std::string name;       // float node name
    std::string quantName;  // quantized node name
    std::string opType;     // float op type
    std::vector<std::string> foldedFloatNodes, foldedQuantNodes;
    std::string matchedBy;        // "weights" | "structure" | "name" (layer_matching.h)
    double matchConfidence = 0.0;  // 0..1
    // How the quantized layer runs: "int8" (int8 kernels), "fp32", or a float computation on
    // other quantized values: "int16", "float8", "int4 weights", ... (NodePrecision::quantizedAs).
    std::string precision;
    std::string precisionReason;  // the lowering's reason ("QLinearConv", "no int8 kernel: ...")
    // The interactive session's user kept this layer in fp32. It may still run int8: a weightless
    // layer (Add, MaxPool) whose int8 neighbours quantize its inputs and output.
    bool fp32Requested = false;
    // The interactive session's per-layer remedies this layer took ("adaround",
    // "bias-correction": analysis/session/layer_remedies.h); its notes say what each did.
    std::vector<std::string> remedies;

    std::optional<double> weightSqnrDb;
    std::vector<double> weightChannelSqnrDb;
    std::vector<float> weightChannelMin, weightChannelMax;

    std::optional<ComparisonMetrics> cumulative;  // activation SQNR, cosine, MSE, ... end to end
    // The float layer output's min and max per evaluation sample (sample_ranges.h), from the
    // cumulative comparison's pass: the same samples as cumulative->sampleSqnrValues. A property
    // of the float model, so toggling layers never changes it; empty exactly when `cumulative`
    // is nullopt (the quantized value was not observed).
    SampleRanges sampleRanges;
    // max |x| per channel of the float output's last axis over the samples, when a MatMul or
    // Gemm with a constant weight reads the output (SmoothQuant's outlier channels); empty
    // otherwise. A property of the float model, like sampleRanges.
    std::vector<float> outputChannelMaxima;
    // Int8 Conv / ConvTranspose / Gemm: per output channel the mean of the cumulative error
    // (quantized − float) over the samples: the shift bias correction removes. Empty otherwise.
    std::vector<double> outputChannelMeanError;
    std::optional<ComparisonMetrics> isolated;  // the layer alone on the float input
    std::optional<double> kernelVsReferenceSqnrDb;
    bool kernelMismatch = false;     // kernelVsReferenceSqnrDb < kKernelMismatchDb
    std::vector<std::string> notes;  // why a figure is missing, in plain words
};

struct UnmatchedLayer {
    std::string name, opType;
    std::string model;  // "float" | "quant"
    std::string reason;  // why it has no counterpart
};

struct OutputReport {
    std::string floatName, quantName;
    double sqnrDb = 0.0;
    double top1Agreement = 0.0;
    std::optional<double> floatAccuracy, quantAccuracy;  // with labels
    // Per evaluation sample, in order (first output only): its SQNR, and each model's top-1 class
    // when the output has one row per sample (a classifier's [N, classes]); else empty.
    std::vector<double> sampleSqnrDb;
    std::vector<int64_t> floatTop1, quantTop1;
};

struct NumericSuiteReport {
    int64_t samples = 0;
    int64_t kernelCheckSamples = 0;     // samples the int8-kernel check covered (0: not run)
    std::string quantPrecision;         // "int8" (or "reference" when asked)
    std::string int8Kernels;            // "exact" | "fast"
    std::vector<OutputReport> outputs;  // graph outputs paired in order; outputs[0] is the headline
    std::vector<LayerReport> layers;
    std::vector<UnmatchedLayer> unmatched;
    // Over matched layers: int8, fp32, and quantized otherwise (16-bit, float8, weight-only).
    int int8Layers = 0, fp32Layers = 0, otherLayers = 0;
    void countLayer(const LayerReport &row);
};

struct NumericSuiteOptions {
    Precision quantPrecision = Precision::Int8;
    Int8Kernels int8Kernels = Int8Kernels::Exact;
    bool isolated = true;     // the shadow comparison (about one more int8 pass)
    bool kernelCheck = true;  // int8 vs reference per layer (about one more fp32 pass per batch)
    // The cumulative figures of every layer; false: of the outputs only (what the fp32 search
    // reads), so that nothing of the float pass but its outputs needs keeping.
    bool compareLayers = true;
    // Samples the kernel check runs on (0: all): the first ones, whatever the batch size. It
    // tests the kernels, not the data: two samples suffice (the second catches a kernel that
    // gets the batch stride wrong) and the rest of the analysis does not pay for it (the
    // reference runs on these samples alone).
    int64_t kernelCheckSamples = 2;
    int threads = 0;
    // Class ids, one per row of the first output's argmax (usually one per sample); empty: no
    // accuracy figures. Fewer labels than rows is an error.
    std::vector<int64_t> labels;
    int expectedBatches = 0;
    // Called after each batch of each pass; return false to cancel (ErrorKind::Cancelled).
    // stage: "weights", "cumulative", "isolated".
    std::function<bool(const std::string &stage, int done, int total)> progress;
    // Incremental updates only (IncrementalSuite::update): called after each batch with the
    // first output's figures so far; false stops the update (ErrorKind::Cancelled, nothing of it
    // kept), for a caller that sees the figure can no longer matter.
    std::function<bool(const OutputTally &sofar, int done, int total)> keepGoing;
};

// Report pieces shared by runNumericSuite and the interactive session's incremental re-runs.
std::vector<OutputReport> outputReports(const ActivationComparisonResult &activations);
std::vector<UnmatchedLayer> unmatchedLayers(const Graph &floatGraph, const Graph &quantGraph,
                                            const LayerMatching &matching);

// Opens the evaluation inputs from the start; called once per pass over them.
using BatchSourceFactory = std::function<Result<ActivationBatchSource>()>;

// Sees the suite's own passes, batch by batch: the interactive session fills its caches from
// them instead of running both models once more (incremental_suite.h).
class SuitePassObserver {
public:
    virtual ~SuitePassObserver() = default;
    // Once, before the passes: the suite's layer matching and cumulative comparison (its lowered
    // quantized graph, the value each layer reads).
    virtual void begin(const LayerMatching &matching, const CumulativeComparison &comparison) = 0;
    // Whether the next quantized pass should hand every node output to quantValue (false stops
    // it, e.g. over a memory budget).
    virtual bool wantsQuantValues() const = 0;
    // A node output of the quantized pass, as stored; keeping the tensor is safe (TapCallback).
    virtual void quantValue(const Node &node, size_t index, const Tensor &value) = 0;
    // After both passes of a batch: the float values the comparisons read (kept shared: the
    // suite does not write into buffers still referenced) and the float outputs.
    virtual void endBatch(const std::map<std::string, Tensor> &floatValues,
                          const std::vector<Tensor> &floatOutputs) = 0;
};

// Both graphs as loaded (topologically sorted). `observer` (optional) sees the passes.
Result<NumericSuiteReport> runNumericSuite(const Graph &floatGraph, const Graph &quantGraph,
                                           const BatchSourceFactory &inputs,
                                           const NumericSuiteOptions &options = {},
                                           SuitePassObserver *observer = nullptr);

}  // namespace ql::analysis

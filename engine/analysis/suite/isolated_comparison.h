#pragma once
// Isolated (shadow) comparison: each matched quantized layer fed the FLOAT model's input to that
// layer, its output compared with the float layer's output (the layer's own error, without the
// error accumulated upstream). And the implementation check: the same isolated layer run by the
// int8 kernels and by the reference path (dequantize -> fp32 op -> quantize); below
// options.kernelMismatchDb (40 dB) the int8 kernel is flagged as a mismatch.
//
// How: every layer is cut out as a small graph of its own (analysis/suite/isolated_layer_graph.h),
// lowered to int8 exactly as the full model would be, and built into its own execution plan
// (and a reference plan). Per batch the float model runs once; its tap hands the values the
// layers need to the IsolatedComparator. An input the layer quantizes first (per tensor) is fed
// already quantized, made in the pass over the float value that the comparisons make anyway
// (ValueSweep); a layer runs as soon as its inputs are there, and its output waits for the float
// output, whose pass compares them. So the isolated work costs about one int8 pass (plus one
// reference pass for the kernel check), and memory holds a layer's quantized inputs and output
// for a moment, not the batch's float activations, and never grows with the number of samples.
//
// Sharing the float pass: a caller that already runs the float model (the cumulative
// comparison) can drive an IsolatedComparator from its own float tap: beginBatch, hand every
// value named in floatValuesNeeded() (graph inputs too) to addFloatValue, endBatch; or, with
// the batch's float values already captured (runAndCapture), call addBatch.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/suite/activation_comparison.h"
#include "analysis/metrics/comparison_metrics.h"
#include "analysis/pairing/layer_matching.h"
#include "analysis/metrics/value_sweep.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "passes/int8_kernel_mode.h"
#include "runtime/buffer_pool.h"

namespace ql::analysis {

struct IsolatedComparisonOptions {
    Int8Kernels int8Kernels = Int8Kernels::Exact;  // as `--int8-kernels`
    bool kernelCheck = true;                       // also run the reference path per layer
    double kernelMismatchDb = 40.0;                // kernel vs reference below this: a mismatch
    // Run the kernel check on the first this-many samples only (0: every sample). An
    // implementation error shows on any data; this bounds the reference path's cost on long runs.
    // Counted in samples, not batches, so that the figure does not depend on the batch size.
    int64_t kernelCheckSamples = 0;
    // Saturation % of the isolated figures. It depends only on the float layer output and the
    // layer's output quantizer, so it equals the cumulative comparison's figure; off by default
    // to save a pass over every output (rmse/scale is given either way).
    bool saturation = false;
    int threads = 0;          // plan threads; 0: all
    // The layers (float node names) to compare; empty: every matched layer. The matching's
    // other layers only tell the layer graphs where their inputs come from, and get no figures.
    std::set<std::string> onlyLayers;
    // Buffers of the layer plans; nullptr: one pool of their own. A caller that runs the layers
    // inside its float pass may share its plans' pool: a buffer is reused only once no tensor
    // refers to it.
    std::shared_ptr<BufferPool> bufferPool;
    int expectedBatches = 0;  // the `total` passed to progress (0 when unknown)
    // Called after each batch; return false to cancel (the call then fails with
    // ErrorKind::Cancelled).
    std::function<bool(int done, int total)> progress;
};

struct LayerIsolatedComparison {
    LayerMatch match;
    // Float values fed to the isolated layer (float-model names), in the layer graph's input order.
    std::vector<std::string> floatInputs;
    bool int8 = false;     // the int8 lowering turned the layer into an int8 kernel
    std::string lowering;  // the lowering's word on the layer ("QLinearConv", or why it fell back)
    std::optional<ComparisonMetrics> metrics;       // isolated figures; nullopt: see note
    std::optional<double> kernelVsReferenceSqnrDb;  // int8 kernel vs reference path
    bool kernelMismatch = false;                    // kernelVsReferenceSqnrDb < kernelMismatchDb
    std::string note;                               // why a figure is missing
};

struct IsolatedComparisonResult {
    int64_t samples = 0;
    int64_t kernelCheckSamples = 0;  // samples the kernel check covered
    int batches = 0;
    std::vector<LayerIsolatedComparison> layers;  // same order as matching.matches
};

class IsolatedComparator {
public:
    static Result<std::unique_ptr<IsolatedComparator>> create(
        const Graph &floatGraph, const Graph &quantGraph, const LayerMatching &matching,
        const IsolatedComparisonOptions &options = {});
    ~IsolatedComparator();
    IsolatedComparator(const IsolatedComparator &) = delete;
    IsolatedComparator &operator=(const IsolatedComparator &) = delete;

    // Float-model value names (graph inputs and node outputs) the layers need.
    const std::set<std::string> &floatValuesNeeded() const;
    void beginBatch();
    // A float value of the current batch, plain or channels-last (a tap with
    // RunOptions::tapStoredLayout saves a transpose). The tensor is kept (shared, not copied: the
    // plan's buffer pool does not reuse storage that is still referenced) until no layer needs it.
    // Layers whose values are all there run at once. Names not needed are ignored.
    Status addFloatValue(const std::string &name, const Tensor &value);
    // The same in two steps, for a caller that sweeps the value for other uses too: the
    // comparisons and quantizations the value's pass serves join `sweep`; after the caller ran
    // it, runReadyLayers runs the layers whose inputs are now all there.
    Status addFloatValue(const std::string &name, const Tensor &value, ValueSweep &sweep);
    Status runReadyLayers();
    // Fails when a layer did not get all its values this batch; drops what is left.
    Status endBatch(int64_t samples);
    // All of one batch at once: beginBatch, addFloatValue for every input and float value,
    // endBatch.
    Status addBatch(const std::map<std::string, Tensor> &inputs,
                    const std::map<std::string, Tensor> &floatValues);
    IsolatedComparisonResult result() const;

private:
    IsolatedComparator();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Runs the float model batch by batch and compares every matched layer in isolation.
Result<IsolatedComparisonResult> compareIsolated(const Graph &floatGraph, const Graph &quantGraph,
                                                 const LayerMatching &matching,
                                                 const ActivationBatchSource &source,
                                                 const IsolatedComparisonOptions &options = {});

}  // namespace ql::analysis

#pragma once
// Cumulative activation comparison: the float model and the quantized model run end to end on the
// same inputs, batch by batch; each matched layer's float output is compared with the quantized
// model's dequantized value for that layer, and the final outputs with each other (SQNR, top-1
// agreement of the argmax over the last dimension).
//
// Streaming: per batch the float plan runs with a tap that copies only the matched float values of
// that batch; then the quantized plan runs with a tap that compares against those copies, which
// are dropped before the next batch. Memory does not grow with the number of samples.
//
// Under Precision::Int8 the lowering rewrites DQ -> op -> Q into QOperator nodes, so the loaded
// graph's DequantizeLinear value may be gone; the quantized tensor behind it (the QuantizeLinear
// output, through Identity/Cast) usually survives and is dequantized here with the scale / zero
// point of the loaded graph. A match whose quantized value exists in neither form in the plan
// (e.g. a Conv output fused with its Relu into one QLinearConv) is reported with observed = false.

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "analysis/metrics/comparison_metrics.h"
#include "analysis/metrics/value_sweep.h"
#include "analysis/pairing/layer_matching.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "passes/int8_kernel_mode.h"
#include "passes/precision.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {

// Fills `batch` (input name -> tensor) and returns true, or returns false when there is no more.
using ActivationBatchSource = std::function<Result<bool>(std::map<std::string, Tensor> &batch)>;

struct ActivationComparisonOptions {
    Precision precision = Precision::Int8;  // how the quantized model runs (Int8 or Reference)
    Int8Kernels int8Kernels = Int8Kernels::Exact;
    int threads = 0;  // plan threads; 0: all
    // false: the outputs alone, no layer (the fp32 search reads nothing else; its caches then
    // hold no float activations).
    bool compareLayers = true;
    // Buffers of the quantized plan; comparisons that never run at the same time (the calibration
    // lab's runs) share one so that each run does not allocate afresh. nullptr: the plan's own.
    std::shared_ptr<BufferPool> bufferPool;
    // Class ids, one per argmax row of the first output (one per sample for [N, classes]), in
    // the order the batches deliver them; empty: no accuracy. Too few labels is an error.
    std::vector<int64_t> labels;
    int expectedBatches = 0;  // the `total` passed to progress (0 when unknown)
    // Called after each batch; return false to cancel (the call then fails with
    // ErrorKind::Cancelled).
    std::function<bool(int done, int total)> progress;
};

struct LayerActivationComparison {
    LayerMatch match;
    bool observed = false;       // the quantized value was seen in the quantized plan
    bool compared = true;        // false: the comparison was asked for the outputs only
    std::string quantValueSeen;  // the plan value that was compared (DQ output or quantized tensor)
    ComparisonMetrics metrics;
    // The float layer output's min and max per sample (sample_ranges.h), found in the pass that
    // compares it; as many samples as metrics.sampleSqnrValues. Empty when not observed.
    SampleRanges sampleRanges;
    // max |x| per channel of the float output's last axis, when a MatMul or Gemm with a constant
    // weight reads it (the channels SmoothQuant balances); empty otherwise or when not observed.
    std::vector<float> channelMaxima;
    // Per output channel (axis 1) of a Conv, ConvTranspose or Gemm: the mean of the error
    // (quantized − float) over samples and positions, the shift bias correction removes; empty
    // for other layers or when not observed.
    std::vector<double> channelMeanError;
};

struct OutputComparison {
    std::string floatName, quantName;
    ComparisonMetrics metrics;
    int64_t rows = 0;  // argmax rows compared (product of all dims but the last)
    int64_t top1Agreements = 0;
    double top1Agreement = 0.0;  // agreements / rows; NaN when rows == 0
    // With labels (first output only): rows whose argmax equals the label, per model.
    int64_t floatCorrect = 0, quantCorrect = 0;
    bool labelled = false;
    // First output only: the argmax of every row, per model, in row order (what accuracy and
    // agreement are counted from; the calibration lab's paired statistics need them).
    std::vector<int64_t> floatTop1, quantTop1;
};

// The first output's running figures over the batches compared so far: enough to bound what a
// whole evaluation can still give, for a caller that only needs to know whether a target is met
// (the fp32 search).
struct OutputTally {
    double signal = 0.0, noise = 0.0;    // Σx² and Σ(x − y)² of the float and quantized output
    int64_t rows = 0, agreements = 0;    // argmax rows compared, and those agreeing
    int64_t floatCorrect = 0, quantCorrect = 0;  // rows matching their label (with labels)
};

struct ActivationComparisonResult {
    int64_t samples = 0;
    int batches = 0;
    std::vector<LayerActivationComparison> layers;  // same order as matching.matches
    std::vector<OutputComparison> outputs;          // graph outputs paired in order
    PrecisionReport precision;                      // how the quantized model's nodes ran
};

// The same comparison fed one batch at a time by a caller that runs the float model itself (so
// that one float pass can serve several comparisons): run the float plan with a tap that keeps
// the values in floatValuesNeeded(), then call addBatch with them and the float outputs.
class CumulativeComparison {
public:
    static Result<std::unique_ptr<CumulativeComparison>> create(
        const Graph &floatGraph, const Graph &quantGraph, const LayerMatching &matching,
        const ActivationComparisonOptions &options);
    ~CumulativeComparison();
    const std::set<std::string> &floatValuesNeeded() const;
    // floatValues: at least floatValuesNeeded() of this batch; floatOutputs: the float graph's
    // outputs. everyValue, when set, also sees every node output of the quantized pass as stored (a
    // caller that caches the pass's values instead of running the model again).
    Status addBatch(const std::map<std::string, Tensor> &inputs,
                    const std::map<std::string, Tensor> &floatValues,
                    const std::vector<Tensor> &floatOutputs, const TapCallback &everyValue = {});
    ActivationComparisonResult result() const;

    // The same with the quantized pass alongside the float one: the float values are compared
    // as the float pass makes them (the larger ones still in cache), and the batch holds the
    // quantized values it compares, a quarter of the bytes, instead of the float ones. Per batch:
    // startQuantizedPass, addFloatValue for each value of floatValuesNeeded() (graph inputs too),
    // finishBatch with the float outputs. Same figures as addBatch.
    // The quantized pass advances node by node, only as far as the value addFloatValue compares
    // next, so it holds few values at a time, and those still in cache when compared;
    // finishBatch runs the rest. runQuantizedPass runs the whole pass at once instead.
    Status startQuantizedPass(const std::map<std::string, Tensor> &inputs,
                              const TapCallback &everyValue = {});
    Status runQuantizedPass(const std::map<std::string, Tensor> &inputs,
                            const TapCallback &everyValue = {});
    Status addFloatValue(const std::string &name, const Tensor &value);
    // The same, with the comparisons added to `sweep` (run by the caller, with the other uses
    // of the value) where the value's pass can serve them.
    Status addFloatValue(const std::string &name, const Tensor &value, ValueSweep &sweep);
    Status finishBatch(const std::map<std::string, Tensor> &inputs,
                       const std::vector<Tensor> &floatOutputs);

    // For a caller that runs the quantized model itself, e.g. only the nodes downstream of a
    // change (analysis_session.h), instead of addBatch: per batch, addQuantValue for the values
    // it sees, then addOutputs. The values named as in quantPlanGraph(), the graph as lowered
    // for the comparison's precision.
    const Graph &quantPlanGraph() const;
    // The plan value match `index` reads ("" when the match cannot be observed).
    const std::string &quantValueRead(size_t index) const;
    // Runs the whole quantized plan (quantPlanGraph()) on one batch, for such a caller when it
    // holds none of the batch's values.
    Status runQuantPlan(const std::map<std::string, Tensor> &inputs, std::vector<Tensor> &outputs,
                        const RunOptions &run);
    // Compares `value` (a quantized-plan value, plain layout) with the float values of the
    // matches in `matches` that read it.
    Status addQuantValue(const std::string &name, const Tensor &value,
                         const std::map<std::string, Tensor> &floatValues,
                         const std::vector<size_t> &matches);
    // The batch's graph outputs of both models; counts the batch and its samples.
    Status addOutputs(const std::map<std::string, Tensor> &inputs,
                      const std::vector<Tensor> &floatOutputs,
                      const std::vector<Tensor> &quantOutputs);
    // The first output's figures over the batches so far.
    OutputTally firstOutputTally() const;

private:
    CumulativeComparison();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Values a pass hands over as the plan makes them (graph inputs first), as stored and shared, to
// a consumer that keeps them only as long as it needs them (an IsolatedComparator). The first
// error the consumer returns is the pass's.
struct StreamedValues {
    std::set<std::string> names;
    std::function<Status(const std::string &name, const Tensor &value)> consume;
};

// Runs `plan` on one batch and keeps the values named in `wanted` in `values` (replacing what it
// held): float ones as the plan stored them (shared, not copied), others converted to float.
// `streamed` (optional) also gets its values during the run.
Status runAndCapture(ExecutionPlan &plan, const std::map<std::string, Tensor> &inputs,
                     const std::set<std::string> &wanted, std::map<std::string, Tensor> &values,
                     std::vector<Tensor> &outputs, const StreamedValues *streamed = nullptr);

// The float model's plan for a comparison's float pass (Q/DQ stripped if it has any), with fused
// operators except where a fusion would hide one of the `tapped` values; its buffers from `pool`
// when given (PlanOptions::bufferPool).
Result<std::unique_ptr<ExecutionPlan>> createFloatPlan(const Graph &floatGraph, int threads,
                                                       const std::set<std::string> &tapped,
                                                       std::shared_ptr<BufferPool> pool = nullptr);

// Float copy of any numeric tensor (plain layout).
Tensor floatCopy(const Tensor &t);

// The argmax over the last dimension of every row (all dims but the last) of a float tensor in
// plain layout; empty for a scalar.
std::vector<int64_t> top1Classes(const Tensor &plainFloat);

Result<ActivationComparisonResult> compareActivations(
    const Graph &floatGraph, const Graph &quantGraph, const LayerMatching &matching,
    const ActivationBatchSource &source, const ActivationComparisonOptions &options = {});

}  // namespace ql::analysis

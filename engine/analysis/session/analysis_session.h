#pragma once
// An interactive analysis: the numeric suite of one float / quantized pair on a fixed set of
// evaluation samples, kept alive so that toggling layers to fp32 re-quantizes and re-runs only
// what the change affects (the inspector window's "keep this layer in fp32"), on cached float
// activations.
//
// The quantized side is either a quantized model file (QDQ or QOperator) or the float model
// quantized in the app from calibration data. Toggling a layer to fp32:
//   * in-app quantization: the layer goes into QuantizationOptions::excludedNodes and the model
//     is re-planned from the cached calibration statistics (no new calibration run);
//   * a quantized model file: the layer's quantized node runs its float computation with the
//     FLOAT model's weights (BatchNormalization folded in when the quantized model folded it)
//     and no QuantizeLinear / DequantizeLinear of its own on its activation inputs and output
//     (Q/DQ pairs shared with other int8 layers stay for them: an input produced by an int8
//     layer is read dequantized, an output read by an int8 layer is requantized for it; see
//     keep_layers_fp32.h). A QOperator model is expanded to QDQ first, so after a toggle
//     quantGraph() is in QDQ form. A weightless layer (Add, MaxPool, ...) between int8
//     neighbours keeps the same DQ -> op -> Q pattern and still runs int8, as in ONNX Runtime.
//
// Toggles are incremental (incremental_suite.h): only the nodes downstream of the change re-run,
// on activations cached at creation; going back to the model as created re-runs nothing. The
// figures equal a full runNumericSuite on the toggled model.
//
// Not thread-safe: one caller at a time (the GUI runs it on a worker thread and hands out
// immutable report snapshots). Progress callbacks may cancel (ErrorKind::Cancelled); a cancelled
// call leaves the session as it was before the call.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/data/data_reader.h"
#include "analysis/session/layer_remedies.h"
#include "analysis/suite/numeric_suite.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "quant/quantization_plan.h"
#include "quant/remedies/ada_round.h"

namespace ql::analysis {

// Evaluation samples held in memory as batches for the model's inputs (a few dozen to a few
// hundred samples: what an interactive session re-runs).
struct EvaluationData {
    std::vector<std::map<std::string, Tensor>> batches;
    std::vector<int64_t> labels;  // empty: no accuracy
    int64_t samples = 0;
    std::vector<std::string> files;    // per sample for image data (one file each); else empty
    std::vector<std::string> classes;  // class folders' names, when labels come from them
    std::string reading;               // what reading applied (DataReader::describe), or ""
    std::vector<SkippedFile> skipped;  // left out as unreadable (DataReader::dropUnreadable)
};

// Files or folders read by `reader` (null: .npy / .pb tensors) for a single-input model, in
// batches. Image data keeps its files, and labels and classes from class folders. Labels come
// from labelsPath when given (BadInput for fewer labels than samples), else from class folders.
Result<EvaluationData> evaluationDataFromFiles(const Graph &floatGraph,
                                               const std::vector<std::string> &paths,
                                               int64_t batchSize,
                                               const std::shared_ptr<const DataReader> &reader = {},
                                               const std::string &labelsPath = {});
// Sample `index` of the data: each input's row, with a batch dim of 1 (copies). BadInput when
// out of range.
Result<std::map<std::string, Tensor>> sampleInputs(const EvaluationData &data, int64_t index);
// Labels for the data, read from `from`; BadInput naming it when fewer than the samples.
Status setLabels(EvaluationData &data, std::vector<int64_t> labels, const std::string &from);
// Splits off the last whole batches holding about `fraction` (0 < fraction < 1) of the samples,
// at least one batch, for a holdout; labels follow their rows. BadInput with fewer than 2 batches.
Result<std::pair<EvaluationData, EvaluationData>> splitHoldout(EvaluationData data, double fraction);
// Class ids from a .npy of integers, shape [N] or [N, 1]; BadInput naming the file otherwise.
Result<std::vector<int64_t>> readLabelsFile(const std::string &path);
// Seeded standard-normal samples of the model's input shapes (symbolic dims other than the
// batch: 1), `samples` in batches of batchSize.
Result<EvaluationData> randomEvaluationData(const Graph &floatGraph, int64_t samples, uint64_t seed,
                                            int64_t batchSize);

// The default memory for a session's caches: a thirty-second of the machine's RAM, within 256 MiB
// and 4 GiB (750 MiB on 24 GB). Enough for a few dozen samples of a CNN held whole; the rest
// re-run (incremental_suite.h), so that the session's memory does not grow with the samples.
size_t defaultCacheBudgetBytes();

struct SessionOptions {
    NumericSuiteOptions suite;  // kernels, isolated, kernel check, threads (labels: from data)
    // In-app quantization only: quantizer options and calibration inputs (the evaluation data
    // when empty).
    quant::QuantizationOptions quantizer;
    std::vector<std::map<std::string, Tensor>> calibrationBatches;
    // In-app quantization only: AdaRound's weights for the int8 layers, chosen once at creation
    // on the calibration inputs (stage "adaround" of the progress); toggles keep them for the
    // layers that stay int8 and the float weights for those kept in fp32. The float graph must
    // be BatchNorm-folded already (quant::prepareFloatGraph), so that it is the graph the plan
    // names.
    std::optional<quant::AdaRoundOptions> adaRound;
    // In-app quantization only: bias correction of every int8 layer that takes it, from the
    // start (they join `remedies` below, so the user can switch each off).
    bool correctBiases = false;
    // In-app quantization only: exactly these per-layer remedies from the start (a restored
    // project, where the user may have switched some off); AdaRound's weights are still
    // optimised for every layer when adaRound is set. nullopt: the layers adaRound kept and, with
    // correctBiases, every layer that takes bias correction.
    std::optional<LayerRemedies> remedies;
    // Toggles re-run only what they affect, from activations cached at creation (the float
    // model's compared values, every value of the quantized model) for the batches that fit in
    // cacheBudgetBytes; the other batches re-run whole. With incremental = false every toggle
    // re-runs the whole suite.
    bool incremental = true;
    size_t cacheBudgetBytes = defaultCacheBudgetBytes();
};

using SessionProgress = std::function<bool(const std::string &stage, int done, int total)>;

class AnalysisSession {
public:
    // quantGraph: the loaded quantized model, or nullopt to quantize floatGraph in the app.
    static Result<std::unique_ptr<AnalysisSession>> create(Graph floatGraph,
                                                           std::optional<Graph> quantGraph,
                                                           EvaluationData data,
                                                           SessionOptions options,
                                                           const SessionProgress &progress = {});
    ~AnalysisSession();

    const NumericSuiteReport &report() const;
    bool quantizedInApp() const;
    const Graph &floatGraph() const;
    // The quantized model as it now stands (toggles applied), QDQ or QOperator as loaded.
    const Graph &quantGraph() const;
    const EvaluationData &data() const;
    // What AdaRound did at creation (SessionOptions::adaRound), nullopt without it.
    const std::optional<quant::AdaRoundReport> &adaRounding() const;
    // The per-layer remedies now applied (in-app quantization; layer_remedies.h), and those a
    // layer can take (as it ran int8 at creation).
    const LayerRemedies &layerRemedies() const;
    std::vector<LayerRemedy> remediesOffered(const std::string &layer) const;

    // Float node names of the layers now kept in fp32 by the user (not the model's own fp32
    // layers).
    const std::set<std::string> &fp32Layers() const;
    // Makes exactly `layers` (float node names of report rows) the user's fp32 layers,
    // re-quantizes, re-runs what changed and returns the new report. BadInput for a name that is
    // not a layer of the report.
    Result<NumericSuiteReport> setFp32Layers(const std::set<std::string> &layers,
                                             const SessionProgress &progress = {});
    // The same for a caller that only needs to know whether a figure is reached: after each
    // batch of an incremental update, `keepGoing` sees the first output's figures so far; when
    // it returns false the update stops, the session stays as it was and nullopt comes back.
    // (A whole suite run, when the change cannot be incremental, always runs to the end.)
    using KeepGoing = std::function<bool(const OutputTally &sofar, int done, int total)>;
    Result<std::optional<NumericSuiteReport>> tryFp32Layers(const std::set<std::string> &layers,
                                                            const KeepGoing &keepGoing);
    // Makes exactly `remedies` the per-layer remedies, re-quantizes the layers they change from
    // the cached statistics (AdaRound optimises a layer the first time it is asked for; bias
    // corrections are measured again on the calibration data), re-runs what changed and returns
    // the new report. The search's candidates (tryFp32Layers) keep the remedies and reuse the
    // last bias corrections. BadInput for a quantized model file, or a layer that does not take
    // the remedy (remediesOffered).
    Result<NumericSuiteReport> setLayerRemedies(const LayerRemedies &remedies,
                                                const SessionProgress &progress = {});
    // Both at once: exactly these fp32 layers and remedies (one re-run). A layer both in fp32
    // and 16-bit runs in fp32.
    Result<NumericSuiteReport> setLayers(const std::set<std::string> &fp32Layers,
                                         const LayerRemedies &remedies,
                                         const SessionProgress &progress = {});
    // setLayers for a caller that only needs to know whether a figure is reached (tryFp32Layers;
    // the search's 16-bit candidates).
    Result<std::optional<NumericSuiteReport>> tryLayers(const std::set<std::string> &fp32Layers,
                                                        const LayerRemedies &remedies,
                                                        const KeepGoing &keepGoing);

    // What the session stands on: the quantized model, its report and the user's fp32 layers.
    // restoreState() comes back to a state taken earlier without re-running anything (the fp32
    // search tries many sets, then returns to the user's, also when cancelled); the caches of
    // incremental toggles hold for every model they have seen, so later toggles stay exact.
    struct State {
        Graph quantGraph;
        NumericSuiteReport report;
        std::set<std::string> fp32Layers;
        LayerRemedies remedies;
    };
    State state() const;
    void restoreState(State state);

    // Median wall time (ms) of one pass over the evaluation data: the quantized model as it now
    // stands (int8) and the float model, `runs` times each.
    Result<std::pair<double, double>> measureLatencyMs(int runs = 3);
    // Median wall time (ms) of one batch through the quantized model as it now stands: the first
    // `batches` evaluation batches run `runs` times (the first pass, which creates the
    // primitives, untimed), each run's time divided by the batches it ran.
    Result<double> measureInt8BatchLatencyMs(int runs, int batches);
    // Bytes of activations cached for incremental toggles (0: every toggle re-runs the suite).
    size_t cachedBytes() const;
    // Evaluation batches whose values the caches hold whole; a toggle re-runs the others whole.
    size_t wholeCachedBatches() const;
    // Writes the current quantized model (toggles applied) as ONNX.
    Status writeQuantizedModel(const std::string &path) const;

private:
    AnalysisSession();
    // BadInput for remedies on a quantized model file, or a layer that does not take one.
    Status checkRemedies(const LayerRemedies &remedies) const;
    Result<std::optional<NumericSuiteReport>> updateLayers(const std::set<std::string> &layers,
                                                           const LayerRemedies &remedies,
                                                           const SessionProgress &progress,
                                                           const KeepGoing &keepGoing);
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace ql::analysis

#pragma once
// The numeric suite kept alive between toggles: re-running a changed quantized model costs only
// what the change affects (analysis_session.h).
//
// At creation the float model runs once over the evaluation batches, keeping per batch the
// float values the cumulative and isolated comparisons need and the float outputs (the float
// model never changes), and the quantized model (as lowered for the suite's precision) runs
// once, keeping every value it produces as stored (mostly uint8: a quarter of the float size):
// the base model. Or the suite's own passes are recorded (IncrementalCacheRecorder): the same
// values, without running either model again. The current model's values that differ from the base
// model's are kept as an overlay. update() then:
//   * lowers the new quantized model and pairs its nodes by name (graph_diff.h) with the base
//     model's and with the current model's lowering: a value that equals either model's is
//     known, so only nodes that differ from both (changed, or downstream of a change) re-run, as
//     a plan of their own fed the known values that cross the cut. Going back to the base model
//     (undo, reset) re-runs nothing;
//   * re-accumulates the cumulative figures only of layers whose compared value was re-run (or
//     whose quantizer changed), from the cached float values; the output figures from the new
//     outputs; weight figures only of layers whose quantized node or weight changed;
//   * takes every other figure from the base report or the previous one.
// Memory: the caches take what fits in a budget, batch by batch in order: a batch is held whole
// (its float values and outputs and every value of the base model) while the budget allows,
// keeping room for the float outputs of the batches after it; later batches keep their float
// outputs alone, and past the budget nothing. Each update re-runs the whole quantized model on a
// batch that is not held whole, and the float model where it needs float values it has not
// kept: the memory stays bounded whatever the number of samples, and the figures are the same.
// The figures equal a full runNumericSuite on the new model: the same kernels see the same
// inputs, and every accumulator is fed the same batches in the same order. Isolated and
// kernel-check figures depend only on the layer's own unit and quantizers: only layers whose
// unit changed are compared in isolation again, on the cached float inputs.

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "analysis/suite/numeric_suite.h"
#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql::analysis {

// Records the caches from runNumericSuite's own passes (pass it as the suite's observer), so
// that one float and one quantized pass per batch serve both the report and the caches; then
// IncrementalSuite::create(..., recorder) takes them over. It keeps what fits in its budget (see
// above) of the `batches` batches the passes will run.
class IncrementalCacheRecorder : public SuitePassObserver {
public:
    IncrementalCacheRecorder(size_t budgetBytes, size_t batches);
    ~IncrementalCacheRecorder() override;
    void begin(const LayerMatching &matching, const CumulativeComparison &comparison) override;
    bool wantsQuantValues() const override;
    void quantValue(const Node &node, size_t index, const Tensor &value) override;
    void endBatch(const std::map<std::string, Tensor> &floatValues,
                  const std::vector<Tensor> &floatOutputs) override;

private:
    friend class IncrementalSuite;
    struct State;
    std::unique_ptr<State> m_state;
};

class IncrementalSuite {
public:
    // `floatGraph` and `batches` must outlive the object. `report` is runNumericSuite's report on
    // quantGraph with these options; the caches keep what fits in budgetBytes.
    static Result<std::unique_ptr<IncrementalSuite>> create(
        const Graph &floatGraph, const Graph &quantGraph,
        const std::vector<std::map<std::string, Tensor>> &batches, NumericSuiteReport report,
        const NumericSuiteOptions &options, size_t budgetBytes);
    // The same from a recording: `report` is runNumericSuite's report on quantGraph with
    // `recorded` as its observer, over `batches`.
    static Result<std::unique_ptr<IncrementalSuite>> create(
        const Graph &floatGraph, const Graph &quantGraph,
        const std::vector<std::map<std::string, Tensor>> &batches, NumericSuiteReport report,
        IncrementalCacheRecorder &&recorded);
    ~IncrementalSuite();

    // The report for `quantGraph`, a rewrite of the current quantized model (same float model).
    // Layers are paired by float node name: a layer the matching gains (e.g. a Relu no longer
    // fused into an excluded Add) is compared afresh; Unsupported when a float value it needs
    // was not cached (callers then re-run the whole suite). Cancelled through options.progress.
    // On any error the object is as before the call.
    Result<NumericSuiteReport> update(const Graph &quantGraph, const NumericSuiteOptions &options);

    size_t cachedBytes() const;
    // Batches held whole; the others re-run the whole quantized model at every update.
    size_t wholeBatches() const;
    // Nodes of the lowered model re-run by the last update (for tests and benchmarks).
    int lastRerunNodes() const;

private:
    IncrementalSuite();
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace ql::analysis

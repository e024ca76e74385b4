#pragma once
// Calibration statistics the quantizer keeps: one histogram observer per float activation of the
// float model. Every range method (min/max, percentile, entropy, MSE) is derived from the same
// histograms, so a new plan (another method, layers switched to fp32, per-tensor weights) needs no
// new calibration run.

#include <map>
#include <string>

#include "core/status.h"
#include "ir/graph.h"
#include "quant/observers.h"
#include "quant/quantization_plan.h"
#include "runtime/execution_plan.h"

namespace ql::quant {

class ActivationHistograms {
public:
    // Adds a batch of one value (float tensors only; others are ignored).
    void observe(const std::string &value, const Tensor &tensor);
    // Runs the float model once on `inputs` (through `plan`, which must not fuse operators so that
    // every value is seen) and observes the graph inputs and every float node output.
    Status observeRun(ExecutionPlan &plan, const std::map<std::string, Tensor> &inputs);

    bool has(const std::string &value) const { return m_observers.count(value) != 0; }
    size_t valueCount() const { return m_observers.size(); }
    int runs() const { return m_runs; }
    // The range of `value` the options' method chooses; nullopt when never observed.
    std::optional<std::pair<float, float>> range(const std::string &value, const QuantizationOptions &options) const;
    // A lookup for buildPlanFromRanges; it refers to this object, which must outlive it.
    RangeLookup lookup(const QuantizationOptions &options) const;

private:
    std::map<std::string, HistogramObserver> m_observers;
    int m_runs = 0;
};

// The plan from stored statistics: pure, no model run.
Result<QuantizationPlan> buildPlan(const Graph &prepared, const ActivationHistograms &stats,
                                   const QuantizationOptions &options);

}  // namespace ql::quant

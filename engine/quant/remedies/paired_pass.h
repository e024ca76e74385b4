#pragma once
// One pass over calibration data through a float model and its quantized (QDQ) form, side by
// side: the remedies that measure a layer's quantized behaviour against the float one (bias
// correction, AdaRound) read pairs of values through it.

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "core/status.h"
#include "quant/calibration.h"
#include "runtime/execution_plan.h"

namespace ql::quant {

// A plan whose every node can be tapped: no fused operators (a layer's own output, before any
// activation), `threads` as in PlanOptions.
Result<std::unique_ptr<ExecutionPlan>> tapPlan(const Graph &graph, int threads);

// Hands the visitor a value of the float plan with its counterpart in the quantized plan.
using PairVisitor = std::function<Status(const std::string &floatValue, const Tensor &quantized,
                                         const Tensor &reference)>;

// For each batch of `data`: runs the float plan until every key of `quantValue` (float value ->
// the quantized graph's value) was computed, then the quantized plan likewise, calling `visit`
// once per key as its quantized value appears. Graph inputs are taken from the batch. Errors
// name `what` and the batch.
Status runPaired(ExecutionPlan &floatPlan, ExecutionPlan &quantPlan, const BatchSourceOpener &data,
                 const std::map<std::string, std::string> &quantValue, const PairVisitor &visit,
                 const std::string &what);

}  // namespace ql::quant

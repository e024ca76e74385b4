#pragma once
// Latency of whole passes over evaluation batches, as the reports and the fp32 search state it:
// the median of timed passes after an untimed first one (which creates the primitives).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"
#include "passes/int8_kernel_mode.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {

using Batches = std::vector<std::map<std::string, Tensor>>;

// Median time (ms) of one pass over batches[0, count), `runs` times, with fused operators (as
// `quantlens bench` runs a model).
Result<double> medianPassMs(Graph graph, const PlanOptions &planOptions, const Batches &batches,
                            size_t count, int runs);

// One pass over all `batches` with the quantized model's int8 plan and with the float model's
// own fp32 plan: {int8 ms, fp32 ms}.
Result<std::pair<double, double>> measureModelsLatencyMs(const Graph &quantized,
                                                         const Graph &floatModel,
                                                         Int8Kernels kernels,
                                                         const PlanOptions &planOptions,
                                                         const Batches &batches, int runs);

}  // namespace ql::analysis

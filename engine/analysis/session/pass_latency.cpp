#include "analysis/session/pass_latency.h"

#include <algorithm>
#include <chrono>

#include "passes/precision.h"

namespace ql::analysis {

namespace {

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

Result<double> medianPassMs(Graph graph, const PlanOptions &planOptions, const Batches &batches,
                            size_t count, int runs) {
    if (batches.empty()) return Status::badInput("latency: no evaluation batches");
    count = std::clamp<size_t>(count, 1, batches.size());
    PlanOptions deployed = planOptions;
    deployed.fuseOperators = true;  // timed as `bench` and a deployment run it
    deployed.foldBatchNorms = true;
    auto plan = ExecutionPlan::create(std::move(graph), deployed);
    if (!plan) return plan.status();
    std::vector<Tensor> outputs;
    QL_RETURN_IF_ERROR((*plan)->run(batches.front(), outputs));
    std::vector<double> times;
    for (int r = 0; r < std::max(runs, 1); ++r) {
        const auto start = std::chrono::steady_clock::now();
        for (size_t b = 0; b < count; ++b) QL_RETURN_IF_ERROR((*plan)->run(batches[b], outputs));
        times.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count());
    }
    return median(times);
}

Result<std::pair<double, double>> measureModelsLatencyMs(const Graph &quantized,
                                                         const Graph &floatModel,
                                                         Int8Kernels kernels,
                                                         const PlanOptions &planOptions,
                                                         const Batches &batches, int runs) {
    Graph int8 = quantized;
    QL_RETURN_IF_ERROR(preparePrecision(int8, Precision::Int8));
    applyInt8Kernels(int8, kernels);
    Graph fp32 = floatModel;
    QL_RETURN_IF_ERROR(preparePrecision(fp32, Precision::Fp32));
    auto int8Ms = medianPassMs(std::move(int8), planOptions, batches, batches.size(), runs);
    if (!int8Ms) return int8Ms.status();
    auto fp32Ms = medianPassMs(std::move(fp32), planOptions, batches, batches.size(), runs);
    if (!fp32Ms) return fp32Ms.status();
    return std::make_pair(*int8Ms, *fp32Ms);
}

}  // namespace ql::analysis

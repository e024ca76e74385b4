#include "quant/remedies/paired_pass.h"

#include <set>

namespace ql::quant {

Result<std::unique_ptr<ExecutionPlan>> tapPlan(const Graph &graph, int threads) {
    PlanOptions options;
    options.threads = threads;
    options.fuseOperators = false;
    return ExecutionPlan::create(graph, options);
}

namespace {

// Runs `plan` on the batch until `seen()` reaches `wanted` or the plan ends.
Status runUntil(ExecutionPlan &plan, const std::map<std::string, Tensor> &batch,
                const RunOptions &run, const std::function<size_t()> &seen, size_t wanted) {
    QL_RETURN_IF_ERROR(plan.start(batch, run));
    while (seen() < wanted) {
        Result<bool> stepped = plan.step();
        if (!stepped) return stepped.status();
        if (!*stepped) break;
    }
    return Status::ok();
}

}  // namespace

Status runPaired(ExecutionPlan &floatPlan, ExecutionPlan &quantPlan, const BatchSourceOpener &data,
                 const std::map<std::string, std::string> &quantValue, const PairVisitor &visit,
                 const std::string &what) {
    auto source = data();
    if (!source) return source.status();
    std::set<std::string> floatNames, quantNames;
    std::map<std::string, std::set<std::string>> floatValuesOf;  // quantized value -> float values
    for (const auto &entry : quantValue) {
        floatNames.insert(entry.first);
        quantNames.insert(entry.second);
        floatValuesOf[entry.second].insert(entry.first);
    }
    std::map<std::string, Tensor> floatSeen;  // kept until the quantized pass read them
    Status visitStatus = Status::ok();
    size_t quantSeen = 0;
    auto seeQuantized = [&](const std::string &value, const Tensor &tensor, const std::string &at) {
        auto it = floatValuesOf.find(value);
        if (it == floatValuesOf.end()) return;
        for (const std::string &floatValue : it->second) {
            ++quantSeen;
            if (!visitStatus) continue;
            auto reference = floatSeen.find(floatValue);
            visitStatus =
                reference == floatSeen.end()
                    ? Status::badInput(at + ": the float model has no value '" + floatValue + "'")
                    : visit(floatValue, tensor, reference->second);
        }
    };
    RunOptions floatRun, quantRun;
    floatRun.tapFilter = tapNodesProducing(floatNames);
    floatRun.tap = [&](const Node &node, size_t index, const Tensor &value) {
        if (index < node.outputs.size() && floatNames.count(node.outputs[index]))
            floatSeen[node.outputs[index]] = value;
    };
    quantRun.tapFilter = tapNodesProducing(quantNames);
    quantRun.tap = [&](const Node &node, size_t index, const Tensor &value) {
        if (index < node.outputs.size()) seeQuantized(node.outputs[index], value, node.describe());
    };
    std::map<std::string, Tensor> batch;
    for (int number = 1;; ++number) {
        batch.clear();
        Result<bool> more = (*source)(batch);
        if (!more) return more.status();
        if (!*more) break;
        const std::string where = what + ", batch " + std::to_string(number);
        floatSeen.clear();
        quantSeen = 0;
        for (const auto &[name, tensor] : batch)
            if (floatNames.count(name)) floatSeen[name] = tensor;
        QL_RETURN_IF_ERROR(
            runUntil(
                floatPlan, batch, floatRun, [&] { return floatSeen.size(); }, floatNames.size())
                .withContext(where));
        for (const auto &[name, tensor] : batch) seeQuantized(name, tensor, "input '" + name + "'");
        QL_RETURN_IF_ERROR(
            runUntil(
                quantPlan, batch, quantRun, [&] { return quantSeen; }, quantValue.size())
                .withContext(where));
        QL_RETURN_IF_ERROR(visitStatus.withContext(where));
    }
    return Status::ok();
}

}  // namespace ql::quant

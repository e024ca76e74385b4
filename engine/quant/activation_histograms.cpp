#include "quant/activation_histograms.h"

namespace ql::quant {

void ActivationHistograms::observe(const std::string &value, const Tensor &tensor) {
    if (tensor.dtype() != DataType::Float || tensor.numel() == 0) return;
    auto it = m_observers.find(value);
    if (it == m_observers.end()) it = m_observers.emplace(value, HistogramObserver()).first;
    const Tensor plain = tensor.toPlain();
    it->second.observe(plain.data<float>(), plain.numel());
}

Status ActivationHistograms::observeRun(ExecutionPlan &plan, const std::map<std::string, Tensor> &inputs) {
    for (const auto &[name, tensor] : inputs) observe(name, tensor);
    RunOptions options;
    options.tap = [this](const Node &node, size_t output, const Tensor &value) {
        observe(node.outputs[output], value);
    };
    std::vector<Tensor> outputs;
    QL_RETURN_IF_ERROR(plan.run(inputs, outputs, options));
    ++m_runs;
    return Status::ok();
}

std::optional<std::pair<float, float>> ActivationHistograms::range(const std::string &value,
                                                                   const QuantizationOptions &options) const {
    auto it = m_observers.find(value);
    if (it == m_observers.end() || it->second.empty()) return std::nullopt;
    return it->second.rangeFor(options.observerOptions());
}

RangeLookup ActivationHistograms::lookup(const QuantizationOptions &options) const {
    return [this, options](const std::string &value) { return range(value, options); };
}

Result<QuantizationPlan> buildPlan(const Graph &prepared, const ActivationHistograms &stats,
                                   const QuantizationOptions &options) {
    return buildPlanFromRanges(prepared, stats.lookup(options), options);
}

}  // namespace ql::quant

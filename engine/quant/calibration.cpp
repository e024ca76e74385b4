#include "quant/calibration.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

namespace ql::quant {

namespace {

ObserverOptions histogramOptions(const CalibrationOptions &options) {
    ObserverOptions o;
    o.method = RangeMethod::Percentile;
    o.histogramBins = options.histogramBins;
    return o;
}

}  // namespace

ValueStatistics::ValueStatistics(const CalibrationOptions &options)
    : movingAverage(options.averagingConstant), histogram(histogramOptions(options)),
      histogramsObserved(options.histograms) {}

void ValueStatistics::observe(const float *data, int64_t n) {
    const FiniteSummary summary = summarizeFinite(data, n);  // one pass serves all three
    minMax.observe(summary, n);
    // A batch without finite values is no batch for the moving average either (it skips it).
    if (summary.finite == 0) return;
    movingAverage.observe(summary, n);
    if (histogramsObserved) histogram.observe(data, n, summary);
    ++batches;
}

void ValueStatistics::observeBatchOf(const std::vector<const ValueStatistics *> &parts) {
    MinMaxObserver batch;  // the batch's own finite min and max, for the moving average
    for (const ValueStatistics *part : parts) {
        minMax.merge(part->minMax);
        histogram.merge(part->histogram);
        if (part->batches) batch.merge(part->minMax);
    }
    if (batch.empty()) return;  // no finite value: no batch for the moving average either
    const auto [lo, hi] = batch.range();
    movingAverage.observeRange(lo, hi);
    ++batches;
}

std::pair<float, float> ValueStatistics::range(const ObserverOptions &query) const {
    switch (query.method) {
    case RangeMethod::MinMax: return minMax.range();
    case RangeMethod::MovingAverageMinMax: return movingAverage.range();
    case RangeMethod::Percentile:
    case RangeMethod::Entropy:
    case RangeMethod::Mse: break;
    }
    if (!histogramsObserved) return {0.0f, 0.0f};  // as for a value never observed
    return histogram.rangeFor(query);
}

CalibrationStatistics::CalibrationStatistics(CalibrationOptions options) : m_options(std::move(options)) {}

void CalibrationStatistics::observe(const std::string &value, const float *data, int64_t n) {
    auto it = m_values.find(value);
    if (it == m_values.end()) it = m_values.emplace(value, ValueStatistics(m_options)).first;
    it->second.observe(data, n);
}

void CalibrationStatistics::observe(const std::string &value, const Tensor &tensor) {
    if (tensor.dtype() != DataType::Float || !tensor.defined()) return;
    if (tensor.layout() == Layout::Plain) {
        observe(value, tensor.data<float>(), tensor.numel());
        return;
    }
    const Tensor plain = tensor.toPlain();
    observe(value, plain.data<float>(), plain.numel());
}

void CalibrationStatistics::addBatchOf(const std::vector<const CalibrationStatistics *> &parts) {
    std::map<std::string, std::vector<const ValueStatistics *>> byValue;
    int64_t samples = 0;
    for (const CalibrationStatistics *part : parts) {
        for (const auto &[name, stats] : part->m_values) byValue[name].push_back(&stats);
        samples += part->m_samples;
    }
    for (const auto &[name, values] : byValue) {
        auto it = m_values.find(name);
        if (it == m_values.end()) it = m_values.emplace(name, ValueStatistics(m_options)).first;
        it->second.observeBatchOf(values);
    }
    finishBatch(samples);
}

const ValueStatistics *CalibrationStatistics::find(const std::string &value) const {
    auto it = m_values.find(value);
    return it == m_values.end() ? nullptr : &it->second;
}

std::vector<std::string> CalibrationStatistics::valueNames() const {
    std::vector<std::string> out;
    for (const auto &[name, stats] : m_values) out.push_back(name);
    return out;
}

std::map<std::string, int64_t> CalibrationStatistics::nonFiniteValues() const {
    std::map<std::string, int64_t> out;
    for (const auto &[name, stats] : m_values)
        if (stats.minMax.nonFiniteCount()) out[name] = stats.minMax.nonFiniteCount();
    return out;
}

std::pair<float, float> CalibrationStatistics::range(const std::string &value, RangeMethod method,
                                                     double percentile) const {
    ObserverOptions query;
    query.method = method;
    query.percentile = percentile;
    return range(value, query);
}

std::pair<float, float> CalibrationStatistics::range(const std::string &value, const ObserverOptions &query) const {
    const ValueStatistics *stats = find(value);
    if (!stats || stats->minMax.empty()) return {0.0f, 0.0f};
    return stats->range(query);
}

QParams CalibrationStatistics::qparams(const std::string &value, const ObserverOptions &query) const {
    const auto [lo, hi] = range(value, query);
    return qparamsFromRange(lo, hi, query.target);
}

void CalibrationStatistics::clear() {
    m_values.clear();
    m_batches = m_samples = 0;
}

namespace {

// The calibration pass: `target(batch)` is where batch number `batch` (0-based) is observed;
// `finished(outputs)` runs after it with the model's outputs.
Status calibrationPass(const Graph &floatGraph, const BatchSource &source, const CalibrationOptions &options,
                       const std::function<CalibrationStatistics &(int batch)> &target,
                       const std::function<Status(const std::vector<Tensor> &outputs)> &finished,
                       const ProgressCallback &progress,
                       int expectedBatches) {
    PlanOptions planOptions;
    planOptions.threads = options.threads;
    planOptions.fuseOperators = false;  // every node output must reach the tap
    auto plan = ExecutionPlan::create(floatGraph, planOptions);
    if (!plan) return plan.status();

    const auto &filter = options.valueFilter;
    auto wanted = [&](const std::string &value) { return !value.empty() && (!filter || filter(value)); };
    CalibrationStatistics *out = nullptr;
    RunOptions run;
    run.tap = [&](const Node &node, size_t outputIndex, const Tensor &value) {
        if (outputIndex < node.outputs.size() && wanted(node.outputs[outputIndex])) out->observe(node.outputs[outputIndex], value);
    };
    std::map<std::string, Tensor> batch;
    std::vector<Tensor> outputs;
    for (int done = 0;;) {
        batch.clear();
        Result<bool> more = source(batch);
        if (!more) return more.status();
        if (!more.value()) break;
        out = &target(done);
        QL_RETURN_IF_ERROR(plan.value()->run(batch, outputs, run).withContext("calibration batch " + std::to_string(done + 1)));
        int64_t samples = 1;
        for (const ValueInfo &input : floatGraph.inputs) {
            auto it = batch.find(input.name);
            if (it == batch.end()) continue;
            if (wanted(input.name)) out->observe(input.name, it->second);
            if (it->second.rank() > 0) samples = std::max<int64_t>(samples, it->second.dim(0));
        }
        out->finishBatch(samples);
        QL_RETURN_IF_ERROR(finished(outputs));
        ++done;
        if (progress && !progress(done, expectedBatches))
            return Status::error(ErrorKind::Cancelled, "calibration cancelled after " + std::to_string(done) + " batches");
    }
    return Status::ok();
}

}  // namespace

Status calibrate(const Graph &floatGraph, const BatchSource &source, CalibrationStatistics &out,
                 const ProgressCallback &progress, int expectedBatches) {
    return calibrationPass(
        floatGraph, source, out.options(), [&](int) -> CalibrationStatistics & { return out; },
        [](const std::vector<Tensor> &) { return Status::ok(); }, progress, expectedBatches);
}

Status calibrateEachBatch(const Graph &floatGraph, const BatchSource &source, const CalibrationOptions &options,
                          const BatchStatisticsSink &sink,
                          const ProgressCallback &progress, int expectedBatches) {
    std::optional<CalibrationStatistics> current;
    return calibrationPass(
        floatGraph, source, options,
        [&](int) -> CalibrationStatistics & { return current.emplace(options); },
        [&](const std::vector<Tensor> &outputs) { return sink(std::move(*current), outputs); }, progress,
        expectedBatches);
}

BatchSourceOpener batchesOpener(const std::vector<std::map<std::string, Tensor>> &batches) {
    return [&batches]() -> Result<BatchSource> {
        auto next = std::make_shared<size_t>(0);
        return BatchSource([&batches, next](std::map<std::string, Tensor> &batch) -> Result<bool> {
            if (*next >= batches.size()) return false;
            batch = batches[(*next)++];
            return true;
        });
    };
}

Status calibrate(const Graph &floatGraph, const std::vector<std::map<std::string, Tensor>> &batches,
                 CalibrationStatistics &out, const ProgressCallback &progress) {
    auto source = batchesOpener(batches)();
    if (!source) return source.status();
    return calibrate(floatGraph, *source, out, progress, static_cast<int>(batches.size()));
}

}  // namespace ql::quant

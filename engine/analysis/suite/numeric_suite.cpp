#include "analysis/suite/numeric_suite.h"

#include <omp.h>

#include <future>
#include <map>

#include "analysis/suite/isolated_comparison.h"
#include "analysis/pairing/layer_matching.h"
#include "analysis/suite/report_rows.h"
#include "analysis/suite/weight_comparison.h"
#include "core/background_release.h"
#include "core/stop_token.h"
#include "runtime/buffer_pool.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {
namespace {

std::optional<double> accuracy(int64_t correct, int64_t rows) {
    if (rows <= 0) return std::nullopt;
    return static_cast<double>(correct) / static_cast<double>(rows);
}

// Samples in a batch: the first input's leading dimension (a scalar input: one sample).
int64_t batchSamples(const std::map<std::string, Tensor> &batch) {
    if (batch.empty()) return 0;
    const Tensor &first = batch.begin()->second;
    return first.rank() == 0 ? 1 : first.dim(0);
}

}  // namespace

void NumericSuiteReport::countLayer(const LayerReport &row) {
    (row.precision == "int8"   ? int8Layers
     : row.precision == "fp32" ? fp32Layers
                               : otherLayers) += 1;
}

std::vector<OutputReport> outputReports(const ActivationComparisonResult &activations) {
    std::vector<OutputReport> outputs;
    for (const auto &out : activations.outputs) {
        OutputReport o;
        o.floatName = out.floatName;
        o.quantName = out.quantName;
        o.sqnrDb = out.metrics.sqnrDb;
        o.top1Agreement = out.top1Agreement;
        if (out.labelled) {
            o.floatAccuracy = accuracy(out.floatCorrect, out.rows);
            o.quantAccuracy = accuracy(out.quantCorrect, out.rows);
        }
        o.sampleSqnrDb = out.metrics.sampleSqnrValues;
        // Predictions per sample only when a row is a sample (not per token or pixel).
        if (out.rows == activations.samples && int64_t(out.floatTop1.size()) == out.rows) {
            o.floatTop1 = out.floatTop1;
            o.quantTop1 = out.quantTop1;
        }
        outputs.push_back(std::move(o));
    }
    return outputs;
}

std::vector<UnmatchedLayer> unmatchedLayers(const Graph &floatGraph, const Graph &quantGraph,
                                            const LayerMatching &matching) {
    std::vector<UnmatchedLayer> unmatched;
    for (size_t i = 0; i < matching.unmatchedFloat.size(); ++i) {
        const std::string &name = matching.unmatchedFloat[i];
        unmatched.push_back({name, nodeOpType(floatGraph, name), "float", matching.unmatchedFloatWhy[i]});
    }
    for (size_t i = 0; i < matching.unmatchedQuant.size(); ++i) {
        const std::string &name = matching.unmatchedQuant[i];
        unmatched.push_back({name, nodeOpType(quantGraph, name), "quant", matching.unmatchedQuantWhy[i]});
    }
    return unmatched;
}

Result<NumericSuiteReport> runNumericSuite(const Graph &floatGraph, const Graph &quantGraph,
                                           const BatchSourceFactory &inputs,
                                           const NumericSuiteOptions &options,
                                           SuitePassObserver *observer) {
    if (!inputs) return Status::badInput("numeric suite: no inputs");
    if (options.progress && !options.progress("weights", 0, 1))
        return Status::error(ErrorKind::Cancelled, "analysis cancelled");
    auto matching = matchLayers(floatGraph, quantGraph);
    if (!matching) return matching.status();
    // The weight comparison only reads the models: it runs on a thread of its own while this one
    // builds the plans and runs the passes (the future joins it on every return; waiting for it
    // before the passes left a core idle). Its loops stay on that one thread:
    // a second OpenMP team would put four threads on two cores beside the float pass, and
    // threads spinning at a barrier then burn the slices of those they wait for.
    std::future<Result<std::vector<LayerWeightComparison>>> weightsDone =
        std::async(std::launch::async, [&, stop = currentStopFlag()] {
            StopScope scope(stop);
            omp_set_num_threads(1);
            return compareWeights(floatGraph, quantGraph, *matching);
        });

    // One pool for every plan of the analysis: they run on this thread, nested in the float
    // pass, and a buffer is handed out again only once no tensor refers to it. The memory a
    // plan frees serves the next, so the analysis touches less fresh memory.
    const auto pool = std::make_shared<BufferPool>();
    ActivationComparisonOptions cumulativeOptions;
    cumulativeOptions.precision = options.quantPrecision;
    cumulativeOptions.int8Kernels = options.int8Kernels;
    cumulativeOptions.threads = options.threads;
    cumulativeOptions.labels = options.labels;
    cumulativeOptions.compareLayers = options.compareLayers;
    cumulativeOptions.bufferPool = pool;
    auto cumulative =
        CumulativeComparison::create(floatGraph, quantGraph, *matching, cumulativeOptions);
    if (!cumulative) return cumulative.status();

    std::unique_ptr<IsolatedComparator> isolated;
    if (options.isolated || options.kernelCheck) {
        IsolatedComparisonOptions isolatedOptions;
        isolatedOptions.int8Kernels = options.int8Kernels;
        isolatedOptions.kernelCheck = options.kernelCheck;
        isolatedOptions.kernelCheckSamples = options.kernelCheckSamples;
        isolatedOptions.kernelMismatchDb = kKernelMismatchDb;
        isolatedOptions.threads = options.threads;
        isolatedOptions.bufferPool = pool;
        auto created =
            IsolatedComparator::create(floatGraph, quantGraph, *matching, isolatedOptions);
        if (!created) return created.status().withContext("isolated comparison");
        isolated = std::move(*created);
    }

    // Per batch one float pass serves every comparison as it makes the values: the cumulative
    // ones and the isolated layers, while the values are fresh (still in cache for the smaller
    // ones). The quantized pass advances alongside, just far enough to make the value compared
    // next. Nothing of the float pass is kept but what an observer caches.
    const std::set<std::string> &cumulativeNeeds = (*cumulative)->floatValuesNeeded();
    StreamedValues streamed;
    streamed.names = cumulativeNeeds;
    if (isolated)
        streamed.names.insert(isolated->floatValuesNeeded().begin(),
                              isolated->floatValuesNeeded().end());
    Status compared;  // a comparison's own error, reported as it is (not as the float model's)
    // Every use of a float value (comparisons, quantizations for the isolated layers' inputs)
    // is served by one pass over it: a large activation comes from memory once.
    ValueSweep sweep;
    streamed.consume = [&](const std::string &name, const Tensor &value) -> Status {
        compared = (*cumulative)->addFloatValue(name, value, sweep);
        if (compared && isolated)
            compared =
                isolated->addFloatValue(name, value, sweep).withContext("isolated comparison");
        const Status swept = sweep.run(value).withContext("float value '" + name + "'");
        if (compared) compared = swept;
        if (compared && isolated)
            compared = isolated->runReadyLayers().withContext("isolated comparison");
        return compared;
    };
    const std::set<std::string> kept = observer ? streamed.names : std::set<std::string>{};
    auto floatPlan = createFloatPlan(floatGraph, options.threads, streamed.names, pool);
    if (!floatPlan) return floatPlan.status();
    if (observer) observer->begin(*matching, **cumulative);

    auto source = inputs();
    if (!source) return source.status();
    std::map<std::string, Tensor> batch, floatValues;
    std::vector<Tensor> floatOutputs;
    for (int done = 1;; ++done) {
        batch.clear();
        auto more = (*source)(batch);
        if (!more) return more.status();
        if (!*more) break;
        TapCallback everyValue;
        if (observer && observer->wantsQuantValues())
            everyValue = [observer](const Node &node, size_t index, const Tensor &value) {
                observer->quantValue(node, index, value);
            };
        QL_RETURN_IF_ERROR((*cumulative)->startQuantizedPass(batch, everyValue));
        if (isolated) isolated->beginBatch();
        const Status ran =
            runAndCapture(**floatPlan, batch, kept, floatValues, floatOutputs, &streamed);
        QL_RETURN_IF_ERROR(compared);
        QL_RETURN_IF_ERROR(ran.withContext("float model"));
        if (isolated)
            QL_RETURN_IF_ERROR(
                isolated->endBatch(batchSamples(batch)).withContext("isolated comparison"));
        QL_RETURN_IF_ERROR((*cumulative)->finishBatch(batch, floatOutputs));
        if (observer) observer->endBatch(floatValues, floatOutputs);
        if (options.progress && !options.progress("cumulative", done, options.expectedBatches))
            return Status::error(ErrorKind::Cancelled, "analysis cancelled");
    }
    auto weights = weightsDone.get();
    if (!weights) return weights.status().withContext("weight comparison");
    if (options.progress && !options.progress("weights", 1, 1))
        return Status::error(ErrorKind::Cancelled, "analysis cancelled");
    const ActivationComparisonResult activations = (*cumulative)->result();
    if (activations.samples == 0)
        return Status::badInput("numeric suite: the inputs hold no samples");
    if (!options.labels.empty() && !activations.outputs.empty() &&
        activations.outputs[0].rows != static_cast<int64_t>(options.labels.size()))
        return Status::badInput("labels: " + std::to_string(options.labels.size()) +
                                " labels for " + std::to_string(activations.outputs[0].rows) +
                                " samples");

    NumericSuiteReport report;
    report.samples = activations.samples;
    report.quantPrecision = precisionName(options.quantPrecision);
    report.int8Kernels = int8KernelsName(options.int8Kernels);
    const PrecisionByNode precision = precisionByNode(activations.precision);
    const IsolatedComparisonResult shadow =
        isolated ? isolated->result() : IsolatedComparisonResult{};
    report.kernelCheckSamples = shadow.kernelCheckSamples;
    report.layers.resize(matching->matches.size());
    for (size_t i = 0; i < report.layers.size(); ++i) {
        LayerReport &row = report.layers[i];
        setLayerIdentity(row, floatGraph, matching->matches[i], precision);
        setCumulativeFigures(row, activations.layers[i], report.quantPrecision);
        setWeightFigures(row, (*weights)[i]);
        setIsolatedFigures(row, i < shadow.layers.size() ? &shadow.layers[i] : nullptr, options);
        report.countLayer(row);
    }
    report.outputs = outputReports(activations);
    report.unmatched = unmatchedLayers(floatGraph, quantGraph, *matching);
    // The plans and their buffers go back on a helper thread while the caller writes the report.
    struct Built {
        std::unique_ptr<ExecutionPlan> floatPlan;
        std::unique_ptr<IsolatedComparator> isolated;
        std::unique_ptr<CumulativeComparison> cumulative;
        std::shared_ptr<BufferPool> pool;
    };
    releaseInBackground(std::make_shared<Built>(
        Built{std::move(*floatPlan), std::move(isolated), std::move(*cumulative), pool}));
    return report;
}

}  // namespace ql::analysis

#include "analysis/calibration_lab/calibration_lab.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "analysis/suite/activation_comparison.h"
#include "analysis/session/analysis_session.h"
#include "analysis/pairing/layer_matching.h"
#include "core/stop_token.h"
#include "quant/calibration.h"
#include "quant/remedies/ada_round.h"
#include "quant/remedies/bias_correction.h"
#include "runtime/buffer_pool.h"

namespace ql::analysis {

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

Status cancelled(const std::string &what) {
    return Status::error(ErrorKind::Cancelled, "calibration lab cancelled " + what);
}

Status validate(const Graph &graph, const CalibrationLabOptions &o) {
    const std::string lab = "calib-lab: ";
    if (graph.inputs.size() != 1)
        return Status::unsupported(lab + graph.sourcePath + " has " +
                                   std::to_string(graph.inputs.size()) +
                                   " inputs; the lab calibrates models with one input");
    const ValueInfo &input = graph.inputs.front();
    if (input.hasShape && !input.shape.empty() && input.shape[0] > 1)
        return Status::unsupported(
            lab + "input '" + input.name + "' of " + graph.sourcePath + " has a fixed batch of " +
            std::to_string(input.shape[0]) +
            "; the lab calibrates per sample and needs batch 1 or a symbolic batch");
    if (o.poolFiles.empty()) return Status::badInput(lab + "the calibration pool is empty");
    if (o.evalFiles.empty()) return Status::badInput(lab + "the evaluation set is empty");
    if (o.methods.empty()) return Status::badInput(lab + "no calibration method");
    if (o.sizes.empty()) return Status::badInput(lab + "no calibration size");
    if (o.repeats < 1)
        return Status::badInput(lab + "--repeats must be at least 1, got " +
                                std::to_string(o.repeats));
    if (o.calibBatches.empty()) return Status::badInput(lab + "no calibration batch size");
    if (o.remedies.empty()) return Status::badInput(lab + "no remedy set (none is one)");
    const int64_t pool = static_cast<int64_t>(o.poolFiles.size());
    for (int64_t size : o.sizes) {
        if (size < 1)
            return Status::badInput(lab + "size " + std::to_string(size) +
                                    " is not a positive number");
        if (size > pool)
            return Status::badInput(lab + "size " + std::to_string(size) +
                                    " is larger than the pool (" + std::to_string(pool) +
                                    " files)");
    }
    for (int64_t batch : o.calibBatches) {
        if (batch < 1)
            return Status::badInput(lab + "calibration batch " + std::to_string(batch) +
                                    " is not a positive number");
        if (batch > 1 && input.hasShape && !input.shape.empty() && input.shape[0] == 1)
            return Status::badInput(lab + "calibration batch " + std::to_string(batch) +
                                    ": input '" + input.name + "' of " + graph.sourcePath +
                                    " has a fixed batch of 1");
    }
    if (o.evalBatch < 1) return Status::badInput(lab + "the evaluation batch must be positive");
    return quant::validateExcludedNodes(graph, o.quantizer.excludedNodes)
        .withContext(graph.sourcePath);
}

quant::QuantizationOptions runQuantizer(const quant::QuantizationOptions &lab,
                                        const CalibrationRunSpec &spec) {
    quant::QuantizationOptions quantizer = lab;
    quantizer.method = spec.method.method;
    quantizer.percentile = spec.method.percentile;
    return quantizer;
}

// Copies a plan output out of the plan's buffers.
std::vector<Tensor> keep(const std::vector<Tensor> &outputs) {
    std::vector<Tensor> out;
    for (const Tensor &t : outputs) out.push_back(floatCopy(t));
    return out;
}

}  // namespace

struct CalibrationLab::Impl {
    Graph floatGraph;
    CalibrationLabOptions options;
    // Per pool file, per sample: the float model's statistics of that sample alone.
    std::vector<std::vector<quant::CalibrationStatistics>> poolStats;
    std::vector<int64_t> poolClasses;  // the float model's top-1 on each file's first sample
    int64_t poolSamples = 0;
    EvaluationData eval;
    std::vector<std::vector<Tensor>> floatOutputs;           // per evaluation batch
    std::vector<std::map<std::string, Tensor>> floatValues;  // per evaluation batch (layers)
    std::set<std::string> floatValuesKept;
    FloatModelResult floatResult;
    int64_t evalRows = 0;
    std::vector<CalibrationRunSpec> runs;
    double poolSeconds = 0.0, evaluationSeconds = 0.0;

    Status runPool(const LabProgress &progress);
    Status runEvaluation(const std::set<std::string> &values, const LabProgress &progress);
    quant::CalibrationStatistics runStatistics(const CalibrationRunSpec &spec) const;
    Result<std::vector<std::map<std::string, Tensor>>> calibrationBatches(
        const CalibrationRunSpec &spec) const;
    // The run's quantized model: planned from its statistics, then its remedies on its
    // calibration files (AdaRound, then bias correction, as `quantize --remedy` runs them).
    Result<quant::QuantizeResult> quantize(const CalibrationRunSpec &spec, int threads) const;
    // One run; `buffers` is shared by the plans of the runs one worker evaluates in turn.
    Result<CalibrationRunResult> evaluate(const CalibrationRunSpec &spec, int threads,
                                          const std::shared_ptr<BufferPool> &buffers,
                                          const std::function<bool()> &keepGoing);
    // Workers that evaluate runs side by side, one thread each: planning, merging and building
    // the int8 kernels are serial per run, so runs in parallel use the cores better than threads
    // within a run. One (with all threads) when layers may need more cached float values.
    int workers(size_t runs) const;
};

Status CalibrationLab::Impl::runPool(const LabProgress &progress) {
    const auto start = Clock::now();
    // One batch per sample, file after file.
    const DataReader &reader = readerOrDefault(options.reader);
    size_t file = 0;
    std::optional<quant::BatchSource> inFile;
    quant::BatchSource source = [&](std::map<std::string, Tensor> &batch) -> Result<bool> {
        while (file < options.poolFiles.size()) {
            if (!inFile) {
                auto opened = reader.open(floatGraph, {options.poolFiles[file]}, 1);
                if (!opened) return opened.status();
                inFile = std::move(*opened);
                poolStats.emplace_back();
            }
            auto more = (*inFile)(batch);
            if (!more || *more) return more;
            ++file;
            inFile.reset();
        }
        return false;
    };
    quant::CalibrationOptions calibration;
    calibration.threads = options.threads;
    const int files = static_cast<int>(options.poolFiles.size());
    QL_RETURN_IF_ERROR(quant::calibrateEachBatch(
        floatGraph, source, calibration,
        [&](quant::CalibrationStatistics &&stats, const std::vector<Tensor> &outputs) {
            if (poolStats.back().empty()) {
                const std::vector<int64_t> top1 = outputs.empty()
                                                      ? std::vector<int64_t>{}
                                                      : top1Classes(floatCopy(outputs.front()));
                poolClasses.push_back(top1.empty() ? 0 : top1.front());
            }
            poolStats.back().push_back(std::move(stats));
            ++poolSamples;
            return Status::ok();
        },
        [&](int, int) {
            return !progress || progress("pool", static_cast<int>(poolStats.size()), files);
        }));
    poolSeconds = secondsSince(start);
    return Status::ok();
}

Status CalibrationLab::Impl::runEvaluation(const std::set<std::string> &values,
                                           const LabProgress &progress) {
    const auto start = Clock::now();
    auto plan = createFloatPlan(floatGraph, options.threads, values);
    if (!plan) return plan.status();
    floatOutputs.clear();
    floatValues.assign(eval.batches.size(), {});
    std::vector<int64_t> predictions;
    std::vector<Tensor> outputs;
    for (size_t b = 0; b < eval.batches.size(); ++b) {
        QL_RETURN_IF_ERROR(runAndCapture(**plan, eval.batches[b], values, floatValues[b], outputs)
                               .withContext("float model on the evaluation set"));
        floatOutputs.push_back(keep(outputs));
        if (!outputs.empty()) {
            const std::vector<int64_t> top1 = top1Classes(floatOutputs.back().front());
            predictions.insert(predictions.end(), top1.begin(), top1.end());
        }
        if (progress &&
            !progress("evaluation", static_cast<int>(b + 1), static_cast<int>(eval.batches.size())))
            return cancelled("during the evaluation pass");
    }
    floatValuesKept = values;
    floatResult.predictions = std::move(predictions);
    evalRows = static_cast<int64_t>(floatResult.predictions.size());
    evaluationSeconds += secondsSince(start);
    return Status::ok();
}

quant::CalibrationStatistics CalibrationLab::Impl::runStatistics(
    const CalibrationRunSpec &spec) const {
    quant::CalibrationOptions calibration;
    calibration.threads = options.threads;
    quant::CalibrationStatistics stats(calibration);
    // The run's samples in calibration order, grouped as `quantize --calib-batch` groups them.
    std::vector<const quant::CalibrationStatistics *> samples, batch;
    for (int64_t index : spec.calibIndices)
        for (const auto &s : poolStats[static_cast<size_t>(index)]) samples.push_back(&s);
    for (const auto *s : samples) {
        batch.push_back(s);
        if (static_cast<int64_t>(batch.size()) == spec.calibBatch)
            stats.addBatchOf(batch), batch.clear();
    }
    if (!batch.empty()) stats.addBatchOf(batch);
    return stats;
}

int CalibrationLab::Impl::workers(size_t runs) const {
    if (options.layers) return 1;
    const int cores = options.threads > 0 ? options.threads
                                          : static_cast<int>(std::thread::hardware_concurrency());
    return static_cast<int>(
        std::clamp<size_t>(static_cast<size_t>(std::max(cores, 1)), 1, std::max<size_t>(runs, 1)));
}

Result<std::vector<std::map<std::string, Tensor>>> CalibrationLab::Impl::calibrationBatches(
    const CalibrationRunSpec &spec) const {
    DataFiles files;
    for (int64_t index : spec.calibIndices)
        files.files.push_back(options.poolFiles[static_cast<size_t>(index)]);
    return readAllBatches(readerOrDefault(options.reader), floatGraph, files, spec.calibBatch);
}

Result<quant::QuantizeResult> CalibrationLab::Impl::quantize(const CalibrationRunSpec &spec,
                                                             int threads) const {
    const quant::QuantizationOptions q = runQuantizer(options.quantizer, spec);
    if (!spec.remedies.any()) return quant::quantizeGraph(floatGraph, runStatistics(spec), q);
    // Bias correction needs a bias to move: bias-less layers get a zero one before planning.
    Graph source = floatGraph;
    if (spec.remedies.biasCorrection) quant::addZeroBiases(source);
    auto quantized = quant::quantizeGraph(source, runStatistics(spec), q);
    if (!quantized) return quantized;
    auto batches = calibrationBatches(spec);
    if (!batches) return batches.status();
    const quant::BatchSourceOpener calibration = quant::batchesOpener(*batches);
    Graph remedied = quant::prepareFloatGraph(source, q.foldBatchNorm);
    if (spec.remedies.adaRound) {
        quant::AdaRoundOptions rounding;  // the default seed: as `quantize --remedy adaround`
        rounding.threads = threads;
        auto rounded = quant::adaRound(remedied, quantized->plan, calibration, rounding);
        if (!rounded) return rounded.status();
    }
    if (spec.remedies.biasCorrection) {
        quant::BiasCorrectionOptions correction;
        correction.threads = threads;
        auto corrected = quant::correctBiases(remedied, quantized->plan, calibration, correction);
        if (!corrected) return corrected.status();
    }
    auto rebuilt = quant::buildQdqGraph(remedied, quantized->plan);
    if (!rebuilt) return rebuilt.status();
    quantized->model = std::move(*rebuilt);
    return quantized;
}

Result<CalibrationRunResult> CalibrationLab::Impl::evaluate(
    const CalibrationRunSpec &spec, int threads, const std::shared_ptr<BufferPool> &buffers,
    const std::function<bool()> &keepGoing) {
    const auto start = Clock::now();
    auto quantized = quantize(spec, threads);
    if (!quantized) return quantized.status().withContext("run " + spec.id);
    LayerMatching matching;
    if (options.layers) {
        auto matched = matchLayers(floatGraph, quantized->model);
        if (!matched) return matched.status().withContext("run " + spec.id);
        matching = std::move(*matched);
    }
    ActivationComparisonOptions compare;
    compare.int8Kernels = options.int8Kernels;
    compare.threads = threads;
    compare.labels = options.labels;
    compare.bufferPool = buffers;
    auto comparison = CumulativeComparison::create(floatGraph, quantized->model, matching, compare);
    if (!comparison) return comparison.status().withContext("run " + spec.id);
    const std::set<std::string> &needed = (*comparison)->floatValuesNeeded();
    if (!std::includes(floatValuesKept.begin(), floatValuesKept.end(), needed.begin(),
                       needed.end())) {
        std::set<std::string> all = floatValuesKept;
        all.insert(needed.begin(), needed.end());
        QL_RETURN_IF_ERROR(runEvaluation(all, {}));
    }
    for (size_t b = 0; b < eval.batches.size(); ++b) {
        QL_RETURN_IF_ERROR((*comparison)
                               ->addBatch(eval.batches[b], floatValues[b], floatOutputs[b])
                               .withContext("run " + spec.id));
        if (!keepGoing()) return cancelled("during run " + spec.id);
    }
    const ActivationComparisonResult r = (*comparison)->result();
    CalibrationRunResult out;
    out.spec = spec;
    if (!r.outputs.empty()) {
        const OutputComparison &o = r.outputs.front();
        out.sqnrDb = o.metrics.sqnrDb;
        out.top1Agreement = o.top1Agreement;
        out.top1AgreementCi95 = wilsonInterval(o.top1Agreements, o.rows);
        out.predictions = o.quantTop1;
        if (o.labelled && o.rows > 0) {
            out.accuracy = static_cast<double>(o.quantCorrect) / static_cast<double>(o.rows);
            out.accuracyCi95 = wilsonInterval(o.quantCorrect, o.rows);
        }
    }
    for (const auto &layer : r.layers)
        if (layer.observed) out.layers.push_back({layer.match.floatNode, layer.metrics.sqnrDb});
    out.seconds = secondsSince(start);
    return out;
}

CalibrationLab::CalibrationLab() : m_impl(std::make_unique<Impl>()) {}
CalibrationLab::~CalibrationLab() = default;

Result<std::unique_ptr<CalibrationLab>> CalibrationLab::create(const Graph &floatGraph,
                                                               CalibrationLabOptions options,
                                                               const LabProgress &progress) {
    QL_RETURN_IF_ERROR(validate(floatGraph, options));
    std::unique_ptr<CalibrationLab> lab(new CalibrationLab());
    Impl &d = *lab->m_impl;
    d.floatGraph = floatGraph;
    d.options = std::move(options);
    auto eval = evaluationDataFromFiles(floatGraph, d.options.evalFiles, d.options.evalBatch,
                                        d.options.reader);
    if (!eval) return eval.status().withContext("calib-lab: evaluation set");
    d.eval = std::move(*eval);
    QL_RETURN_IF_ERROR(d.runPool(progress).withContext("calib-lab: pool"));
    QL_RETURN_IF_ERROR(d.runEvaluation({}, progress));
    if (!d.options.labels.empty() && static_cast<int64_t>(d.options.labels.size()) != d.evalRows)
        return Status::badInput("calib-lab: --labels holds " +
                                std::to_string(d.options.labels.size()) + " labels for " +
                                std::to_string(d.evalRows) + " evaluation rows");
    if (!d.options.labels.empty()) {
        int64_t correct = 0;
        for (size_t i = 0; i < d.options.labels.size(); ++i)
            correct += d.floatResult.predictions[i] == d.options.labels[i];
        d.floatResult.accuracy = static_cast<double>(correct) / static_cast<double>(d.evalRows);
        d.floatResult.accuracyCi95 = wilsonInterval(correct, d.evalRows);
    }
    d.runs = planCalibrationRuns(d.options, d.poolClasses);
    return lab;
}

const CalibrationLabOptions &CalibrationLab::options() const {
    return m_impl->options;
}
const std::vector<CalibrationRunSpec> &CalibrationLab::plannedRuns() const {
    return m_impl->runs;
}

const CalibrationRunSpec *CalibrationLab::findRun(const std::string &id) const {
    for (const auto &spec : m_impl->runs)
        if (spec.id == id) return &spec;
    return nullptr;
}

Result<CalibrationLabResult> CalibrationLab::run(const LabProgress &progress) {
    Impl &d = *m_impl;
    const auto start = Clock::now();
    const size_t total = d.runs.size();
    // Runs with the same calibration are evaluated once: sameAs[i] is the first such run.
    std::vector<size_t> sameAs(total), distinct;
    std::vector<int> copies(total, 0);  // runs each distinct run stands for (itself included)
    std::map<std::string, size_t> firstWithKey;
    for (size_t i = 0; i < total; ++i) {
        auto [it, fresh] = firstWithKey.emplace(calibrationKey(d.runs[i]), i);
        sameAs[i] = it->second;
        if (fresh) distinct.push_back(i);
        ++copies[it->second];
    }

    std::vector<std::optional<CalibrationRunResult>> results(total);
    std::atomic<size_t> next{0};
    std::atomic<int> done{0};
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::condition_variable changed;
    Status failure;
    const int workers = d.workers(distinct.size());
    auto work = [&] {
        StopScope scope(&stop);  // a cancel or a failed run stops the others between nodes
        // Alone, a run uses every thread; side by side, one each (plans and OpenMP regions).
        const int threads = workers > 1 ? 1 : d.options.threads;
        if (workers > 1) omp_set_num_threads(1);
        const auto buffers = std::make_shared<BufferPool>();
        for (size_t k; !stop && (k = next++) < distinct.size();) {
            const size_t index = distinct[k];
            auto result = d.evaluate(d.runs[index], threads, buffers, [&] { return !stop; });
            std::lock_guard<std::mutex> lock(mutex);
            if (!result) {
                if (result.status().kind() != ErrorKind::Cancelled && failure.isOk())
                    failure = result.status();
                stop = true;
            } else {
                results[index] = std::move(*result);
                done += copies[index];
            }
            changed.notify_all();
        }
    };
    std::vector<std::thread> pool;
    for (int w = 0; w < workers; ++w) pool.emplace_back(work);
    // This thread reports progress and hears Cancel (at least every 50 ms) while the workers run.
    bool cancelled = false;
    {
        std::unique_lock<std::mutex> lock(mutex);
        while (!stop && done < static_cast<int>(total)) {
            changed.wait_for(lock, std::chrono::milliseconds(50));
            const int finished = done;
            lock.unlock();
            const bool keepGoing =
                !stopRequested() &&
                (!progress || progress("runs", finished, static_cast<int>(total)));
            lock.lock();
            if (!keepGoing) cancelled = stop = true;
        }
    }
    for (std::thread &t : pool) t.join();
    if (!failure.isOk()) return failure;

    CalibrationLabResult lab;
    lab.labelled = !d.options.labels.empty();
    lab.labels = d.options.labels;
    lab.poolSamples = d.poolSamples;
    lab.evalRows = d.evalRows;
    lab.floatModel = d.floatResult;
    lab.runsPlanned = static_cast<int>(total);
    lab.poolSeconds = d.poolSeconds;
    for (size_t i = 0; i < total; ++i) {
        const auto &source = results[sameAs[i]];
        if (!source) continue;  // not finished when the lab was cancelled
        CalibrationRunResult run = *source;
        if (sameAs[i] != i) run.identicalTo = run.spec.id, run.spec = d.runs[i], run.seconds = 0.0;
        lab.runs.push_back(std::move(run));
    }
    lab.complete = !cancelled && lab.runs.size() == total;
    if (progress && lab.complete)
        progress("runs", static_cast<int>(total), static_cast<int>(total));
    lab.evaluationSeconds = d.evaluationSeconds;
    lab.runsSeconds = secondsSince(start);
    lab.comparisons = compareCalibrationRuns(lab, d.options.seed, d.options.bootstrapResamples);
    return lab;
}

quant::QuantizationOptions CalibrationLab::quantizerOptions(const CalibrationRunSpec &spec) const {
    return runQuantizer(m_impl->options.quantizer, spec);
}

Result<quant::QuantizeResult> CalibrationLab::quantizeRun(const CalibrationRunSpec &spec) const {
    return m_impl->quantize(spec, m_impl->options.threads);
}

Result<std::vector<std::map<std::string, Tensor>>> CalibrationLab::calibrationBatches(
    const CalibrationRunSpec &spec) const {
    return m_impl->calibrationBatches(spec);
}

}  // namespace ql::analysis

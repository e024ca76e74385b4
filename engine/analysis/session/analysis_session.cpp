#include "analysis/session/analysis_session.h"

#include <algorithm>
#include <chrono>

#include <unistd.h>

#include "analysis/pairing/layer_matching.h"
#include "analysis/session/in_app_quantizer.h"
#include "analysis/session/incremental_suite.h"
#include "analysis/session/keep_layers_fp32.h"
#include "analysis/session/pass_latency.h"
#include "onnx_io/model_writer.h"
#include "passes/int8_kernel_mode.h"
#include "passes/precision.h"
#include "passes/qoperator_to_qdq.h"
#include "quant/calibration.h"
#include "quant/qdq_builder.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {
namespace {

BatchSourceFactory batchesOf(const EvaluationData &data) {
    const auto *batches = &data.batches;
    return [batches]() -> Result<ActivationBatchSource> {
        auto next = std::make_shared<size_t>(0);
        return ActivationBatchSource(
            [batches, next](std::map<std::string, Tensor> &batch) -> Result<bool> {
                if (*next >= batches->size()) return false;
                batch = (*batches)[(*next)++];
                return true;
            });
    };
}

// Marks the user's toggles. One the lowering still runs int8 (a weightless layer whose int8
// neighbours quantize its inputs and output) says so, so that the user sees why its figures
// barely move.
void markUserToggles(NumericSuiteReport &report, const std::set<std::string> &layers) {
    for (auto &row : report.layers) {
        row.fp32Requested = layers.count(row.name) != 0;
        if (row.fp32Requested && row.precision == "int8")
            row.notes.push_back(
                "kept in fp32 by the user, but its output stays quantized for the int8 layers "
                "that read it, so it still runs int8");
    }
}


}  // namespace

size_t defaultCacheBudgetBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
    const size_t ram = pages > 0 && pageSize > 0 ? size_t(pages) * size_t(pageSize) : 0;
    return std::clamp<size_t>(ram / 32, size_t(256) << 20, size_t(4) << 30);
}

struct AnalysisSession::Impl {
    Graph floatGraph;
    Graph loadedQuant;  // as loaded (or the first in-app quantization)
    Graph qdqBase;      // loadedQuant in QDQ form: where toggles of a model file are applied
    Graph current;      // the quantized model with the toggles applied
    bool inApp = false;
    EvaluationData data;
    SessionOptions options;
    NumericSuiteReport report;
    std::set<std::string> fp32;
    std::set<std::string> layerNames;  // report rows at creation: the names toggles may use
    LayerMatching baseMatching;        // float vs qdqBase
    // The float constants toggled layers read, folded at the first toggle of a model file.
    mutable std::optional<Fp32LayerConstants> fp32Constants;
    std::unique_ptr<IncrementalSuite> incremental;  // null: every toggle re-runs the whole suite
    std::unique_ptr<InAppQuantizer> quantizer;      // in-app quantization only
    std::vector<std::map<std::string, Tensor>> calibration;  // the quantizer's, when not the data
    LayerRemedies remedies;
    std::map<std::string, std::vector<LayerRemedy>> offered;  // per layer, from the first report

    // The quantized model as it now stands, prepared to run int8 with the session's kernels.
    Result<Graph> int8Plan() const {
        Graph quant = current;
        QL_RETURN_IF_ERROR(preparePrecision(quant, Precision::Int8));
        applyInt8Kernels(quant, options.suite.int8Kernels);
        return quant;
    }

    // runNumericSuite on `quant`; its own float and quantized passes fill the caches of the
    // incremental re-runs (`caches`: null when disabled or over the budget).
    Result<NumericSuiteReport> runSuite(const Graph &quant, const SessionProgress &progress,
                                        std::unique_ptr<IncrementalSuite> &caches) const {
        std::optional<IncrementalCacheRecorder> recorder;
        if (options.incremental) recorder.emplace(options.cacheBudgetBytes, data.batches.size());
        auto report = runNumericSuite(floatGraph, quant, batchesOf(data), suiteOptions(progress),
                                      recorder ? &*recorder : nullptr);
        if (!report) return report;
        caches.reset();
        if (!recorder) return report;
        auto created = IncrementalSuite::create(floatGraph, quant, data.batches, *report,
                                                std::move(*recorder));
        if (created)
            caches = std::move(*created);
        else if (created.status().kind() != ErrorKind::Unsupported)
            return created.status();
        return report;
    }

    NumericSuiteOptions suiteOptions(const SessionProgress &progress) const {
        NumericSuiteOptions suite = options.suite;
        suite.labels = data.labels;
        suite.expectedBatches = static_cast<int>(data.batches.size());
        if (progress) suite.progress = progress;
        return suite;
    }
    Result<Graph> quantGraphFor(const std::set<std::string> &layers, const LayerRemedies &remedies,
                                InAppQuantizer::BiasCorrections biases,
                                const SessionProgress &progress) const;
    // The user's marks on a report of the model with `layers` and `remedies`.
    void annotate(NumericSuiteReport &report, const std::set<std::string> &layers,
                  const LayerRemedies &remedies) const {
        markUserToggles(report, layers);
        if (quantizer) quantizer->describeRemedies(report, remedies);
    }
};

Result<Graph> AnalysisSession::Impl::quantGraphFor(const std::set<std::string> &layers,
                                                   const LayerRemedies &remedies,
                                                   InAppQuantizer::BiasCorrections biases,
                                                   const SessionProgress &progress) const {
    if (inApp) return quantizer->quantize(layers, remedies, biases, progress);
    if (layers.empty()) return loadedQuant;
    auto matches = matchesOfLayers(baseMatching, floatGraph, layers);
    if (!matches) return matches.status();
    if (!fp32Constants) {
        auto constants = fp32LayerConstants(floatGraph);
        if (!constants) return constants.status();
        fp32Constants = std::move(*constants);
    }
    Graph g = qdqBase;
    QL_RETURN_IF_ERROR(keepLayersFp32(g, floatGraph, *fp32Constants, *matches));
    return g;
}

AnalysisSession::AnalysisSession() : m_impl(std::make_unique<Impl>()) {}
AnalysisSession::~AnalysisSession() = default;

Result<std::unique_ptr<AnalysisSession>> AnalysisSession::create(Graph floatGraph,
                                                                 std::optional<Graph> quantGraph,
                                                                 EvaluationData data,
                                                                 SessionOptions options,
                                                                 const SessionProgress &progress) {
    if (data.batches.empty()) return Status::badInput("analysis session: no evaluation samples");
    std::unique_ptr<AnalysisSession> self(new AnalysisSession());
    Impl &d = *self->m_impl;
    d.floatGraph = std::move(floatGraph);
    d.data = std::move(data);
    d.options = std::move(options);
    d.inApp = !quantGraph.has_value();
    if (d.inApp) {
        quant::CalibrationOptions calibration;
        calibration.threads = d.options.suite.threads;
        auto stats = std::make_unique<quant::CalibrationStatistics>(calibration);
        // Kept: AdaRound and bias correction, switched per layer later, read them again.
        d.calibration = std::move(d.options.calibrationBatches);
        const auto &batches = d.calibration.empty() ? d.data.batches : d.calibration;
        ProgressCallback calibrationProgress;
        if (progress)
            calibrationProgress = [&progress](int done, int total) {
                return progress("calibration", done, total);
            };
        QL_RETURN_IF_ERROR(quant::calibrate(d.floatGraph, batches, *stats, calibrationProgress));
        d.quantizer = std::make_unique<InAppQuantizer>(
            d.floatGraph, std::move(stats), batches, d.options.quantizer, d.options.suite.threads);
        if (d.options.adaRound) {
            auto rounded = d.quantizer->roundAll(*d.options.adaRound, progress);
            if (!rounded) return rounded.status();
            d.remedies.adaRound = std::move(*rounded);
        }
        if (d.options.correctBiases && !d.options.remedies) {
            auto layers = d.quantizer->layersTaking(LayerRemedy::BiasCorrection);
            if (!layers) return layers.status();
            d.remedies.biasCorrection.insert(layers->begin(), layers->end());
        }
        if (d.options.remedies) d.remedies = *d.options.remedies;
        auto quantized = d.quantizer->quantize({}, d.remedies,
                                               InAppQuantizer::BiasCorrections::Measure, progress);
        if (!quantized) return quantized.status();
        d.loadedQuant = std::move(*quantized);
    } else {
        d.loadedQuant = std::move(*quantGraph);
        if (!isQuantizedModel(d.loadedQuant))
            return Status::badInput(d.loadedQuant.sourcePath + ": has no quantized nodes");
        d.qdqBase = d.loadedQuant;
        if (hasQOperators(d.qdqBase)) QL_RETURN_IF_ERROR(expandQOperatorsToQdq(d.qdqBase));
        auto matching = matchLayers(d.floatGraph, d.qdqBase);
        if (!matching) return matching.status();
        d.baseMatching = std::move(*matching);
    }
    d.current = d.loadedQuant;
    auto report = d.runSuite(d.current, progress, d.incremental);
    if (!report) return report.status();
    d.report = std::move(*report);
    d.annotate(d.report, {}, d.remedies);
    for (const auto &row : d.report.layers) {
        d.layerNames.insert(row.name);
        if (d.inApp) d.offered[row.name] = remediesFor(row);
    }
    return self;
}

const std::optional<quant::AdaRoundReport> &AnalysisSession::adaRounding() const {
    static const std::optional<quant::AdaRoundReport> none;
    return m_impl->quantizer ? m_impl->quantizer->adaRounding() : none;
}

const LayerRemedies &AnalysisSession::layerRemedies() const {
    return m_impl->remedies;
}

std::vector<LayerRemedy> AnalysisSession::remediesOffered(const std::string &layer) const {
    const auto offered = m_impl->offered.find(layer);
    return offered == m_impl->offered.end() ? std::vector<LayerRemedy>{} : offered->second;
}

const NumericSuiteReport &AnalysisSession::report() const {
    return m_impl->report;
}
bool AnalysisSession::quantizedInApp() const {
    return m_impl->inApp;
}
const Graph &AnalysisSession::floatGraph() const {
    return m_impl->floatGraph;
}
const Graph &AnalysisSession::quantGraph() const {
    return m_impl->current;
}
const EvaluationData &AnalysisSession::data() const {
    return m_impl->data;
}
const std::set<std::string> &AnalysisSession::fp32Layers() const {
    return m_impl->fp32;
}

Result<NumericSuiteReport> AnalysisSession::setFp32Layers(const std::set<std::string> &layers,
                                                          const SessionProgress &progress) {
    auto report = updateLayers(layers, m_impl->remedies, progress, {});
    if (!report) return report.status();
    return std::move(**report);
}

Result<NumericSuiteReport> AnalysisSession::setLayerRemedies(const LayerRemedies &remedies,
                                                             const SessionProgress &progress) {
    return setLayers(m_impl->fp32, remedies, progress);
}

Result<NumericSuiteReport> AnalysisSession::setLayers(const std::set<std::string> &fp32Layers,
                                                      const LayerRemedies &remedies,
                                                      const SessionProgress &progress) {
    QL_RETURN_IF_ERROR(checkRemedies(remedies));
    auto report = updateLayers(fp32Layers, remedies, progress, {});
    if (!report) return report.status();
    return std::move(**report);
}

Result<std::optional<NumericSuiteReport>> AnalysisSession::tryLayers(
    const std::set<std::string> &fp32Layers, const LayerRemedies &remedies,
    const KeepGoing &keepGoing) {
    QL_RETURN_IF_ERROR(checkRemedies(remedies));
    return updateLayers(fp32Layers, remedies, {}, keepGoing);
}

Status AnalysisSession::checkRemedies(const LayerRemedies &remedies) const {
    const Impl &d = *m_impl;
    if (!d.inApp && !remedies.empty())
        return Status::badInput(
            "per-layer remedies and 16-bit layers: they re-quantize from the float model and its "
            "calibration statistics, so they need the float model quantized in the app (not a "
            "quantized model file)");
    for (LayerRemedy remedy : kLayerRemedies)
        for (const std::string &layer : remedies.of(remedy)) {
            const auto offered = d.offered.find(layer);
            if (offered == d.offered.end())
                return Status::badInput(std::string(layerRemedyName(remedy)) + ": '" + layer +
                                        "' is not a layer of the analysis");
            // 16 bits: any layer (one the model keeps in fp32 says in its notes that they do not
            // apply); a session created with 16-bit layers offers nothing else for them.
            if (remedy == LayerRemedy::SixteenBit) continue;
            if (std::find(offered->second.begin(), offered->second.end(), remedy) ==
                offered->second.end())
                return Status::badInput(std::string(layerRemedyName(remedy)) + ": '" + layer +
                                        "' is not an int8 layer that takes it");
        }
    return Status::ok();
}

Result<std::optional<NumericSuiteReport>> AnalysisSession::tryFp32Layers(
    const std::set<std::string> &layers, const KeepGoing &keepGoing) {
    return updateLayers(layers, m_impl->remedies, {}, keepGoing);
}

Result<std::optional<NumericSuiteReport>> AnalysisSession::updateLayers(
    const std::set<std::string> &layers, const LayerRemedies &remedies,
    const SessionProgress &progress, const KeepGoing &keepGoing) {
    Impl &d = *m_impl;
    for (const auto &name : layers)
        if (!d.layerNames.count(name))
            return Status::badInput("keep in fp32: '" + name + "' is not a layer of the analysis");
    using Report = std::optional<NumericSuiteReport>;
    if (layers == d.fp32 && remedies == d.remedies) return Report(d.report);
    // The search's candidates keep the user's bias corrections; a change the user makes measures
    // them again.
    const auto biases = keepGoing ? InAppQuantizer::BiasCorrections::ReuseLast
                                  : InAppQuantizer::BiasCorrections::Measure;
    auto graph = d.quantGraphFor(layers, remedies, biases, progress);
    if (!graph) return graph.status();
    const auto accept = [&](NumericSuiteReport report) {
        d.current = std::move(*graph);
        d.report = std::move(report);
        d.fp32 = layers;
        d.remedies = remedies;
        d.annotate(d.report, layers, remedies);
        return Report(d.report);
    };
    if (d.incremental) {
        NumericSuiteOptions options = d.suiteOptions(progress);
        bool stopped = false;
        if (keepGoing)
            options.keepGoing = [&](const OutputTally &sofar, int done, int total) {
                stopped = !keepGoing(sofar, done, total);
                return !stopped;
            };
        auto report = d.incremental->update(*graph, options);
        if (report) return accept(std::move(*report));
        if (stopped) return Report();
        if (report.status().kind() != ErrorKind::Unsupported) return report.status();
    }
    // The whole suite again (no caches, or the layers changed), then new caches for this model.
    // The caches hold pointers to d.floatGraph and d.data, which stay; the model is copied in.
    std::unique_ptr<IncrementalSuite> caches;
    auto report = d.runSuite(*graph, progress, caches);
    if (!report) return report.status();
    d.incremental = std::move(caches);
    return accept(std::move(*report));
}

AnalysisSession::State AnalysisSession::state() const {
    return {m_impl->current, m_impl->report, m_impl->fp32, m_impl->remedies};
}

void AnalysisSession::restoreState(State state) {
    m_impl->current = std::move(state.quantGraph);
    m_impl->report = std::move(state.report);
    m_impl->fp32 = std::move(state.fp32Layers);
    m_impl->remedies = std::move(state.remedies);
}

Result<std::pair<double, double>> AnalysisSession::measureLatencyMs(int runs) {
    Impl &d = *m_impl;
    PlanOptions planOptions;
    planOptions.threads = d.options.suite.threads;
    return measureModelsLatencyMs(d.current, d.floatGraph, d.options.suite.int8Kernels,
                                  planOptions, d.data.batches, runs);
}

Result<double> AnalysisSession::measureInt8BatchLatencyMs(int runs, int batches) {
    Impl &d = *m_impl;
    PlanOptions planOptions;
    planOptions.threads = d.options.suite.threads;
    auto quant = d.int8Plan();
    if (!quant) return quant.status();
    const size_t count = std::clamp<size_t>(std::max(batches, 1), 1, d.data.batches.size());
    auto passMs = medianPassMs(std::move(*quant), planOptions, d.data.batches, count, runs);
    if (!passMs) return passMs.status();
    return *passMs / static_cast<double>(count);
}

size_t AnalysisSession::cachedBytes() const {
    return m_impl->incremental ? m_impl->incremental->cachedBytes() : 0;
}

size_t AnalysisSession::wholeCachedBatches() const {
    return m_impl->incremental ? m_impl->incremental->wholeBatches() : 0;
}

Status AnalysisSession::writeQuantizedModel(const std::string &path) const {
    return writeModel(m_impl->current, path);
}

}  // namespace ql::analysis

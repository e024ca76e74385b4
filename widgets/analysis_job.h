#pragma once
// Runs an interactive analysis (analysis/session/analysis_session.h) off the GUI thread: loading the two
// models and the evaluation data, the first numeric-suite run, fp32 toggles, the latency
// measurement and the export of the re-quantized model. One operation runs at a time on a
// QtConcurrent worker; the session is never touched by the GUI thread while it runs. Toggle
// requests that arrive meanwhile are coalesced (the latest set wins). Results arrive as
// immutable report snapshots. Progress is polled from a shared state (no QObject is touched by
// the worker), so destroying the job while a worker runs is safe: the worker is cancelled and
// finishes on its own.

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/data/session_inputs.h"
#include "analysis/pairing/layer_matching.h"
#include "analysis/search/fp32_search.h"
#include "analysis/session/analysis_session.h"
#include "analysis_report.h"
#include "core/status.h"
#include "quant/remedies/float_remedies.h"

namespace ql::ui {
struct SampleStripData;  // worst_sample_strip.h
}

namespace ql::ui {

// Everything a worker needs to create a session, as plain engine values: the sources (models,
// calibration and evaluation inputs, labels) and how to run them.
struct AnalysisRequest : analysis::SessionSources {
    quant::QuantizationOptions quantizer;
    // In-app quantization only: remedies applied to the float model before calibration (it is
    // then the float side of the analysis; same outputs).
    std::vector<quant::FloatRemedy> remedies;
    // In-app quantization only: AdaRound chooses the int8 layers' weight rounding after
    // calibration (the float model is then BatchNorm-folded, as with the remedies above).
    bool adaRound = false;
    // In-app quantization only: bias correction of every int8 layer that takes it, from the start
    // (each can then be switched off per layer).
    bool correctBiases = false;
    Int8Kernels int8Kernels = Int8Kernels::Exact;
    std::set<std::string> fp32Layers;  // applied right after the first run (project restore)
    // In-app quantization only: exactly these per-layer remedies from the start (project restore,
    // or the live session's for a holdout search); nullopt: adaRound and correctBiases decide.
    std::optional<analysis::LayerRemedies> layerRemedies;
    bool measureLatency = true;
    int threads = 0;  // engine threads; 0: all cores
};

// The session's worst samples (analysis/suite/worst_samples.h), with the files (image data) or input
// rows (tensors) their thumbnails are made from; null when the report has no per-sample figures.
std::shared_ptr<const SampleStripData> worstSampleData(const analysis::AnalysisSession &session);
// The same from a report alone (no tensors: a streamed analysis does not keep them).
std::shared_ptr<SampleStripData> worstSampleData(const analysis::NumericSuiteReport &report,
                                                 const std::vector<int64_t> &labels,
                                                 std::vector<std::string> files,
                                                 std::vector<std::string> classes);

// Loads the request's sources and runs the first analysis with its fp32 layers (any thread; the
// job's Analysis operation, and `quantlens report`).
Result<std::unique_ptr<analysis::AnalysisSession>> createAnalysisSession(
    const AnalysisRequest &request, const analysis::SessionProgress &progress = {});

// An fp32 search (analysis/search/fp32_search.h) asked for from the GUI. Without a holdout it runs on
// the live session, which afterwards goes back to the user's fp32 layers; with one, on a session
// of its own made from the last request's sources, the last batches held out.
struct SearchRequest {
    analysis::SearchOptions options;  // progress: set by the job
    double holdout = 0.0;             // fraction of the evaluation batches; 0: none
};

struct SearchOutcome {
    analysis::SearchTarget target;
    analysis::SearchObjective objective = analysis::SearchObjective::Layers;
    analysis::SearchResult result;
    std::optional<analysis::HoldoutFigure> holdout;
    double seconds = 0.0;
};
using SearchOutcomePtr = std::shared_ptr<const SearchOutcome>;

// The models behind a report, for views that run their own inspections (the layer inspector):
// immutable copies taken on the worker after each change (tensors share storage, so cheap).
struct AnalysisModelsSnapshot {
    std::shared_ptr<const Graph> floatGraph, quantGraph;         // quantGraph: toggles applied
    std::shared_ptr<const std::map<std::string, Tensor>> batch;  // the first evaluation batch
    std::vector<analysis::LayerMatch> matches;  // matchLayers(floatGraph, quantGraph)
    // The report's worst samples (lowest output SQNR, top-1 flips), for the strip; null when
    // the report has no per-sample figures.
    std::shared_ptr<const SampleStripData> worst;
    std::string dataReading;  // EvaluationData::reading: what reading the data applied
    bool adaRounded = false;  // AdaRound chose some int8 layers' weights (layerRemedies().adaRound)
};

// One evaluation sample's own analysis: the per-layer figures of that sample alone, on the
// models as they stood (toggles applied).
struct SampleView {
    int64_t index = 0;
    ReportPtr report;
    std::shared_ptr<const std::map<std::string, Tensor>> inputs;  // its batch of one
};
using SampleViewPtr = std::shared_ptr<const SampleView>;

class AnalysisJob : public QObject {
    Q_OBJECT
public:
    enum class Operation { None, Analysis, Toggle, Latency, Export, Search, Sample };

    explicit AnalysisJob(QObject *parent = nullptr);
    ~AnalysisJob() override;

    // Starts a new session (a running operation is cancelled). The current session and report stay
    // until the new one succeeds, so a bad file loses nothing.
    void start(const AnalysisRequest &request);
    // Asks for exactly these fp32 layers and per-layer remedies; runs now or after the running
    // operation.
    void requestLayers(const std::set<std::string> &fp32Layers,
                       const analysis::LayerRemedies &remedies);
    void requestLatency();
    void requestExport(const QString &path);
    // Runs after the running operation; a second request replaces a waiting one.
    void requestSearch(const SearchRequest &request);
    // The numeric suite on evaluation sample `index` alone (sampleViewReady); after a waiting
    // toggle, which it then reflects. A second request replaces a waiting one.
    void requestSampleView(int64_t index);
    void cancel();

    bool isBusy() const;
    bool hasSession() const { return m_session != nullptr; }
    Operation operation() const { return m_operation; }
    ReportPtr report() const { return m_report; }
    // The models of report(); null members before the first report.
    const AnalysisModelsSnapshot &models() const { return m_models; }
    // The fp32 layers and per-layer remedies of the current report.
    const std::set<std::string> &fp32Layers() const { return m_fp32; }
    const analysis::LayerRemedies &layerRemedies() const { return m_remedies; }
    // A toggle request waits to run after the current operation.
    bool hasPendingToggle() const { return m_pendingToggle.has_value(); }
    QFutureWatcher<void> *watcher() { return &m_watcher; }

signals:
    void busyChanged(bool busy);
    void progress(const QString &stage, int done, int total);
    void reportReady(ql::ui::ReportPtr report);
    void latencyReady(double int8Ms, double fp32Ms);
    void exported(const QString &path);
    // While a search runs: sets measured so far, and the best figure of a set meeting the target
    // (NaN while none does).
    void searchProgress(int evaluations, double bestFigure);
    void searchReady(ql::ui::SearchOutcomePtr outcome);
    void sampleViewReady(ql::ui::SampleViewPtr view);
    // A failed operation; the previous report (if any) stays.
    void failed(const QString &message, ql::ErrorKind kind,
                ql::ui::AnalysisJob::Operation operation);

private:
    struct Shared;
    struct Outcome;
    struct SessionBox;
    using Work = std::function<void(Shared &, Outcome &)>;

    void run(Operation operation, Work work);
    void startNext();
    void onFinished();
    void pollProgress();

    std::shared_ptr<Shared> m_shared;
    std::shared_ptr<SessionBox> m_session;  // kept when a new analysis fails
    std::shared_ptr<Outcome> m_outcome;
    QFutureWatcher<void> m_watcher;
    QTimer m_poll;
    Operation m_operation = Operation::None;
    ReportPtr m_report;
    AnalysisModelsSnapshot m_models;
    std::set<std::string> m_fp32;
    analysis::LayerRemedies m_remedies;
    std::optional<std::pair<std::set<std::string>, analysis::LayerRemedies>> m_pendingToggle;
    bool m_pendingLatency = false;
    QString m_pendingExport;
    std::optional<SearchRequest> m_pendingSearch;
    std::optional<int64_t> m_pendingSample;
    std::optional<AnalysisRequest> m_request;  // of the live session: a holdout search's sources
};

}  // namespace ql::ui

Q_DECLARE_METATYPE(ql::ui::AnalysisJob::Operation)
Q_DECLARE_METATYPE(ql::ui::SearchOutcomePtr)
Q_DECLARE_METATYPE(ql::ui::SampleViewPtr)

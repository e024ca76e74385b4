#include "analysis_job.h"

#include <atomic>
#include <chrono>
#include <mutex>

#include "analysis/suite/worst_samples.h"
#include "core/stop_token.h"
#include "quant/qdq_builder.h"
#include "worker_pool.h"
#include "worst_sample_strip.h"

namespace ql::ui {

struct AnalysisJob::Shared {
    std::atomic<bool> cancelled{false};
    std::mutex mutex;
    std::string stage;
    int done = 0, total = 0;
    bool fresh = false;
    int searched = 0;  // a search: sets measured, best figure meeting the target
    double best = 0.0;

    analysis::SessionProgress callback() {
        return [this](const std::string &name, int doneNow, int totalNow) {
            {
                std::lock_guard<std::mutex> lock(mutex);
                stage = name;
                done = doneNow;
                total = totalNow;
                fresh = true;
            }
            return !cancelled.load();
        };
    }

    std::function<bool(int, double)> searchCallback() {
        return [this](int evaluations, double bestFigure) {
            {
                std::lock_guard<std::mutex> lock(mutex);
                stage = "search";
                done = searched = evaluations;
                total = 0;
                best = bestFigure;
                fresh = true;
            }
            return !cancelled.load();
        };
    }
};

// A worker holds the mutex while it uses the session: a superseded (cancelled) worker that still
// runs never overlaps with the next operation on the same session.
struct AnalysisJob::SessionBox {
    std::mutex mutex;
    std::unique_ptr<analysis::AnalysisSession> session;
};

struct AnalysisJob::Outcome {
    Status status = Status::ok();
    std::shared_ptr<AnalysisJob::SessionBox> session;  // a new session (Analysis)
    ReportPtr report;
    AnalysisModelsSnapshot models;
    std::set<std::string> fp32;
    analysis::LayerRemedies remedies;
    std::optional<std::pair<double, double>> latency;
    QString exportedPath;
    SearchOutcomePtr search;
    SampleViewPtr sample;
};

namespace {

// The suite on one sample of the session's data, on the models as they stand.
Result<SampleView> runSampleView(std::mutex &mutex, const analysis::AnalysisSession &session,
                                 const AnalysisModelsSnapshot &models, int64_t index,
                                 analysis::NumericSuiteOptions options) {
    auto view = SampleView{index, nullptr, nullptr};
    {
        std::lock_guard<std::mutex> lock(mutex);
        auto inputs = analysis::sampleInputs(session.data(), index);
        if (!inputs) return inputs.status();
        view.inputs = std::make_shared<const std::map<std::string, Tensor>>(std::move(*inputs));
        const std::vector<int64_t> &labels = session.data().labels;
        if (index < int64_t(labels.size())) options.labels = {labels[size_t(index)]};
    }
    const auto inputs = view.inputs;
    const analysis::BatchSourceFactory once =
        [inputs]() -> Result<analysis::ActivationBatchSource> {
        auto given = std::make_shared<bool>(false);
        return analysis::ActivationBatchSource(
            [inputs, given](std::map<std::string, Tensor> &batch) -> Result<bool> {
                if (*given) return false;
                *given = true;
                batch = *inputs;
                return true;
            });
    };
    auto report = analysis::runNumericSuite(*models.floatGraph, *models.quantGraph, once, options);
    if (!report) return report.status().withContext("sample " + std::to_string(index));
    view.report = std::make_shared<const analysis::NumericSuiteReport>(std::move(*report));
    return view;
}

// The snapshot of the session's models after a change; the float side and the batch are shared
// with the previous snapshot when given.
AnalysisModelsSnapshot snapshotModels(const analysis::AnalysisSession &session,
                                      const AnalysisModelsSnapshot *previous) {
    AnalysisModelsSnapshot models;
    if (previous && previous->floatGraph) {
        models.floatGraph = previous->floatGraph;
        models.batch = previous->batch;
    } else {
        models.floatGraph = std::make_shared<const Graph>(session.floatGraph());
        if (!session.data().batches.empty())
            models.batch = std::make_shared<const std::map<std::string, Tensor>>(
                session.data().batches.front());
    }
    models.quantGraph = std::make_shared<const Graph>(session.quantGraph());
    models.worst = worstSampleData(session);
    models.dataReading = session.data().reading;
    models.adaRounded = !session.layerRemedies().adaRound.empty();
    auto matching = analysis::matchLayers(*models.floatGraph, *models.quantGraph);
    if (matching) models.matches = matching->matches;
    return models;
}

const char *stageName(const std::string &stage) {
    if (stage == "loading") return QT_TRANSLATE_NOOP("AnalysisJob", "Loading");
    if (stage == "calibration") return QT_TRANSLATE_NOOP("AnalysisJob", "Calibrating");
    if (stage == "adaround") return QT_TRANSLATE_NOOP("AnalysisJob", "Rounding weights (AdaRound)");
    if (stage == "bias-correction") return QT_TRANSLATE_NOOP("AnalysisJob", "Correcting biases");
    if (stage == "weights") return QT_TRANSLATE_NOOP("AnalysisJob", "Comparing weights");
    if (stage == "cumulative") return QT_TRANSLATE_NOOP("AnalysisJob", "Cumulative comparison");
    if (stage == "isolated") return QT_TRANSLATE_NOOP("AnalysisJob", "Isolated comparison");
    if (stage == "latency") return QT_TRANSLATE_NOOP("AnalysisJob", "Measuring latency");
    if (stage == "export") return QT_TRANSLATE_NOOP("AnalysisJob", "Writing the model");
    if (stage == "search") return QT_TRANSLATE_NOOP("AnalysisJob", "Searching fp32 sets");
    return nullptr;
}

// How the request runs its sessions; takes the calibration batches out of `inputs`.
analysis::SessionOptions sessionOptions(const AnalysisRequest &request,
                                        analysis::SessionInputs &inputs) {
    analysis::SessionOptions options;
    options.suite.int8Kernels = request.int8Kernels;
    options.suite.threads = request.threads;
    options.quantizer = request.quantizer;
    options.calibrationBatches = std::move(inputs.calibrationBatches);
    if (request.adaRound) options.adaRound.emplace();
    options.correctBiases = request.correctBiases;
    options.remedies = request.layerRemedies;
    return options;
}

Status createSession(const AnalysisRequest &request, const analysis::SessionProgress &progress,
                     std::unique_ptr<analysis::AnalysisSession> &session, ReportPtr &report) {
    auto created = createAnalysisSession(request, progress);
    if (!created) return created.status();
    session = std::move(*created);
    report = std::make_shared<const analysis::NumericSuiteReport>(session->report());
    return Status::ok();
}

// The search on the live session, which then goes back to the user's layers, report and model
// whatever happened (finished, failed or cancelled), without re-running anything.
Result<SearchOutcome> searchLive(std::mutex &mutex, analysis::AnalysisSession &live,
                                 const analysis::SearchOptions &options) {
    std::lock_guard<std::mutex> lock(mutex);
    analysis::AnalysisSession::State before = live.state();
    auto result = analysis::searchFp32Layers(live, options);
    live.restoreState(std::move(before));  // the user's set, also after a cancel, at no cost
    if (!result) return result.status();
    SearchOutcome outcome;
    outcome.result = std::move(*result);
    return outcome;
}

// The request's sources, with the float model remedied when the app quantizes it.
Result<analysis::SessionInputs> loadInputs(const AnalysisRequest &request,
                                           const analysis::SessionProgress &progress) {
    auto inputs = analysis::loadSessionInputs(request, progress);
    if (!inputs || (request.remedies.empty() && !request.adaRound) || inputs->quantGraph)
        return inputs;
    // The graph the in-app plan names: AdaRound replaces its weights by the plan's.
    Graph prepared = quant::prepareFloatGraph(inputs->floatGraph, request.quantizer.foldBatchNorm);
    const auto &calibration =
        inputs->calibrationBatches.empty() ? inputs->data.batches : inputs->calibrationBatches;
    const ProgressCallback cancel = [&](int done, int) {
        return !progress || progress("calibration", done, 0);
    };
    auto applied = quant::applyFloatRemedies(
        prepared, request.remedies, quant::batchesOpener(calibration), request.threads, cancel);
    if (!applied) return applied.status();
    inputs->floatGraph = std::move(prepared);
    return inputs;
}

// The search on a session of its own: the request's sources with the last batches held out.
Result<SearchOutcome> searchWithHoldout(const AnalysisRequest &request,
                                        analysis::SearchOptions options, double holdout,
                                        const analysis::SessionProgress &progress) {
    auto inputs = loadInputs(request, progress);
    if (!inputs) return inputs.status();
    auto split = analysis::splitHoldout(std::move(inputs->data), holdout);
    if (!split) return split.status();
    const analysis::SessionOptions searchOptions =
        analysis::searchSessionOptions(sessionOptions(request, *inputs));
    auto session = analysis::AnalysisSession::create(
        inputs->floatGraph, inputs->quantGraph, std::move(split->first), searchOptions, progress);
    if (!session) return session.status();
    SearchOutcome outcome;
    auto result = analysis::searchFp32Layers(**session, options);
    if (!result) return result.status();
    outcome.result = std::move(*result);
    auto held = analysis::measureOnHoldout(
        inputs->floatGraph, inputs->quantGraph, std::move(split->second), searchOptions,
        outcome.result.precision, outcome.result.layers, options.target, progress);
    if (!held) return held.status().withContext("holdout");
    outcome.holdout = *held;
    return outcome;
}

}  // namespace

std::shared_ptr<SampleStripData> worstSampleData(const analysis::NumericSuiteReport &report,
                                                 const std::vector<int64_t> &labels,
                                                 std::vector<std::string> files,
                                                 std::vector<std::string> classes) {
    if (report.outputs.empty() || report.outputs.front().sampleSqnrDb.empty()) return nullptr;
    auto strip = std::make_shared<SampleStripData>();
    strip->samples = analysis::worstSamples(report.outputs.front(), labels, strip->lowest);
    strip->files = std::move(files);
    strip->classes = std::move(classes);
    return strip;
}

std::shared_ptr<const SampleStripData> worstSampleData(const analysis::AnalysisSession &session) {
    const analysis::EvaluationData &data = session.data();
    auto strip = worstSampleData(session.report(), data.labels, data.files, data.classes);
    if (strip && strip->files.empty() && !session.floatGraph().inputs.empty()) {
        const std::string &input = session.floatGraph().inputs.front().name;
        for (const analysis::WorstSample &sample : strip->samples) {
            auto rows = analysis::sampleInputs(data, sample.index);
            if (!rows || !rows->count(input)) continue;
            const Tensor &row = rows->at(input);
            const Shape shape(row.shape().begin() + (row.rank() > 0 ? 1 : 0), row.shape().end());
            strip->tensors[sample.index] = row.reshaped(shape);
        }
    }
    return strip;
}

Result<std::unique_ptr<analysis::AnalysisSession>> createAnalysisSession(
    const AnalysisRequest &request, const analysis::SessionProgress &progress) {
    auto inputs = loadInputs(request, progress);
    if (!inputs) return inputs.status();
    analysis::SessionOptions options = sessionOptions(request, *inputs);
    auto session = analysis::AnalysisSession::create(
        std::move(inputs->floatGraph), std::move(inputs->quantGraph), std::move(inputs->data),
        std::move(options), progress);
    if (!session) return session.status();
    // Applied, and checked: a stale name in a project is refused with one line naming it.
    if (!request.fp32Layers.empty() || (request.layerRemedies && !request.layerRemedies->empty())) {
        auto toggled = (*session)->setLayers(
            request.fp32Layers, request.layerRemedies.value_or((*session)->layerRemedies()),
            progress);
        if (!toggled) return toggled.status();
    }
    return session;
}

AnalysisJob::AnalysisJob(QObject *parent) : QObject(parent) {
    qRegisterMetaType<ql::ui::ReportPtr>();
    qRegisterMetaType<ql::ui::AnalysisJob::Operation>();
    qRegisterMetaType<ql::ui::SearchOutcomePtr>();
    qRegisterMetaType<ql::ui::SampleViewPtr>();
    connect(&m_watcher, &QFutureWatcher<void>::finished, this, &AnalysisJob::onFinished);
    m_poll.setInterval(50);
    connect(&m_poll, &QTimer::timeout, this, &AnalysisJob::pollProgress);
}

AnalysisJob::~AnalysisJob() {
    if (m_shared) m_shared->cancelled = true;
    m_watcher.disconnect(this);
}

bool AnalysisJob::isBusy() const {
    return m_operation != Operation::None;
}

void AnalysisJob::start(const AnalysisRequest &request) {
    if (m_shared) m_shared->cancelled = true;
    m_watcher.disconnect(this);  // the superseded worker's result is never read
    m_watcher.setFuture(QFuture<void>());
    connect(&m_watcher, &QFutureWatcher<void>::finished, this, &AnalysisJob::onFinished);
    m_pendingToggle.reset();
    m_pendingLatency = false;
    m_pendingExport.clear();
    m_pendingSearch.reset();
    m_pendingSample.reset();
    m_operation = Operation::None;
    m_request = request;
    const bool latency = request.measureLatency;
    run(Operation::Analysis, [request](Shared &shared, Outcome &outcome) {
        auto box = std::make_shared<SessionBox>();
        outcome.status = createSession(request, shared.callback(), box->session, outcome.report);
        if (!outcome.status) return;
        outcome.fp32 = box->session->fp32Layers();
        outcome.remedies = box->session->layerRemedies();
        outcome.models = snapshotModels(*box->session, nullptr);
        outcome.session = std::move(box);
    });
    m_pendingLatency = latency;
}

void AnalysisJob::requestLayers(const std::set<std::string> &fp32Layers,
                                const analysis::LayerRemedies &remedies) {
    if (!m_session && m_operation != Operation::Analysis) return;
    m_pendingToggle.emplace(fp32Layers, remedies);
    if (!isBusy()) startNext();
}

void AnalysisJob::requestLatency() {
    if (!m_session && m_operation != Operation::Analysis) return;
    m_pendingLatency = true;
    if (!isBusy()) startNext();
}

void AnalysisJob::requestExport(const QString &path) {
    if (!m_session && m_operation != Operation::Analysis) return;
    m_pendingExport = path;
    if (!isBusy()) startNext();
}

void AnalysisJob::requestSearch(const SearchRequest &request) {
    if (!m_session && m_operation != Operation::Analysis) return;
    m_pendingSearch = request;
    if (!isBusy()) startNext();
}

void AnalysisJob::requestSampleView(int64_t index) {
    if (!m_session && m_operation != Operation::Analysis) return;
    m_pendingSample = index;
    if (!isBusy()) startNext();
}

void AnalysisJob::cancel() {
    if (m_shared) m_shared->cancelled = true;
    m_pendingToggle.reset();
    m_pendingSample.reset();
    m_pendingLatency = false;
    m_pendingSearch.reset();
}

void AnalysisJob::run(Operation operation, Work work) {
    const bool wasBusy = isBusy();
    m_operation = operation;
    m_shared = std::make_shared<Shared>();
    m_outcome = std::make_shared<Outcome>();
    std::shared_ptr<Shared> shared = m_shared;
    std::shared_ptr<Outcome> outcome = m_outcome;
    m_watcher.setFuture(runInBackground([shared, outcome, work] {
        StopScope scope(&shared->cancelled);  // Cancel stops the engine between plan nodes
        work(*shared, *outcome);
    }));
    m_poll.start();
    if (!wasBusy) emit busyChanged(true);
}

void AnalysisJob::startNext() {
    std::shared_ptr<SessionBox> session = m_session;
    if (!session) {
        m_operation = Operation::None;
        m_poll.stop();
        emit busyChanged(false);
        return;
    }
    if (m_pendingToggle) {
        const auto [layers, remedies] = *m_pendingToggle;
        m_pendingToggle.reset();
        if (layers != m_fp32 || remedies != m_remedies) {
            m_pendingLatency = true;  // the plan changed: its latency too
            if (m_request) m_request->layerRemedies = remedies;  // a holdout search's sessions
            const AnalysisModelsSnapshot previous = m_models;
            run(Operation::Toggle, [session, layers = layers, remedies = remedies, previous](
                                       Shared &shared, Outcome &outcome) {
                std::lock_guard<std::mutex> lock(session->mutex);
                analysis::AnalysisSession &live = *session->session;
                auto report = live.setLayers(layers, remedies, shared.callback());
                if (!report) {
                    outcome.status = report.status();
                    return;
                }
                outcome.report =
                    std::make_shared<const analysis::NumericSuiteReport>(std::move(*report));
                outcome.fp32 = live.fp32Layers();
                outcome.remedies = live.layerRemedies();
                outcome.models = snapshotModels(live, &previous);
            });
            return;
        }
    }
    if (!m_pendingExport.isEmpty()) {
        const QString path = m_pendingExport;
        m_pendingExport.clear();
        run(Operation::Export, [session, path](Shared &shared, Outcome &outcome) {
            shared.callback()("export", 0, 0);
            std::lock_guard<std::mutex> lock(session->mutex);
            outcome.status = session->session->writeQuantizedModel(path.toStdString());
            outcome.exportedPath = path;
        });
        return;
    }
    if (m_pendingSearch && m_request) {
        SearchRequest request = *m_pendingSearch;
        m_pendingSearch.reset();
        const AnalysisRequest sources = *m_request;
        run(Operation::Search, [session, request, sources](Shared &shared, Outcome &outcome) {
            const auto start = std::chrono::steady_clock::now();
            analysis::SearchOptions options = request.options;
            options.progress = shared.searchCallback();
            Result<SearchOutcome> searched =
                request.holdout > 0.0
                    ? searchWithHoldout(sources, options, request.holdout, shared.callback())
                    : searchLive(session->mutex, *session->session, options);
            if (!searched) {
                outcome.status = searched.status();
                return;
            }
            searched->target = options.target;
            searched->objective = options.objective;
            searched->seconds =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            outcome.search = std::make_shared<const SearchOutcome>(std::move(*searched));
        });
        return;
    }
    if (m_pendingSample && m_request) {
        const int64_t index = *m_pendingSample;
        m_pendingSample.reset();
        analysis::NumericSuiteOptions options;
        options.int8Kernels = m_request->int8Kernels;
        options.threads = m_request->threads;
        const AnalysisModelsSnapshot models = m_models;
        run(Operation::Sample, [session, models, index, options](Shared &shared, Outcome &outcome) {
            analysis::NumericSuiteOptions withProgress = options;
            withProgress.progress = shared.callback();
            auto view = runSampleView(session->mutex, *session->session, models, index,
                                      std::move(withProgress));
            if (!view)
                outcome.status = view.status();
            else
                outcome.sample = std::make_shared<const SampleView>(std::move(*view));
        });
        return;
    }
    if (m_pendingLatency) {
        m_pendingLatency = false;
        run(Operation::Latency, [session](Shared &shared, Outcome &outcome) {
            shared.callback()("latency", 0, 0);
            std::lock_guard<std::mutex> lock(session->mutex);
            auto latency = session->session->measureLatencyMs(3);
            if (!latency)
                outcome.status = latency.status();
            else
                outcome.latency = *latency;
        });
        return;
    }
    m_operation = Operation::None;
    m_poll.stop();
    emit busyChanged(false);
}

void AnalysisJob::onFinished() {
    if (!m_outcome) return;
    std::shared_ptr<Outcome> outcome = std::move(m_outcome);
    const Operation operation = m_operation;
    const bool cancelled = m_shared && m_shared->cancelled.load();
    if (operation == Operation::Analysis && outcome->session)
        m_session = std::move(outcome->session);
    if (!outcome->status) {
        if (operation == Operation::Analysis) m_pendingLatency = false;
        emit failed(QString::fromStdString(outcome->status.message()),
                    cancelled ? ErrorKind::Cancelled : outcome->status.kind(), operation);
    } else if (outcome->report) {
        m_report = outcome->report;
        m_models = std::move(outcome->models);
        m_fp32 = outcome->fp32;
        m_remedies = outcome->remedies;
        emit reportReady(m_report);
    } else if (outcome->latency) {
        emit latencyReady(outcome->latency->first, outcome->latency->second);
    } else if (!outcome->exportedPath.isEmpty()) {
        emit exported(outcome->exportedPath);
    } else if (outcome->search) {
        emit searchReady(outcome->search);
    } else if (outcome->sample) {
        emit sampleViewReady(outcome->sample);
    }
    startNext();
}

void AnalysisJob::pollProgress() {
    if (!m_shared) return;
    QString stage;
    int done = 0, total = 0, searched = 0;
    double best = 0.0;
    {
        std::lock_guard<std::mutex> lock(m_shared->mutex);
        if (!m_shared->fresh) return;
        m_shared->fresh = false;
        const char *name = stageName(m_shared->stage);
        stage = name ? tr(name) : QString::fromStdString(m_shared->stage);
        done = m_shared->done;
        total = m_shared->total;
        searched = m_shared->searched;
        best = m_shared->best;
    }
    emit progress(stage, done, total);
    if (m_operation == Operation::Search && searched > 0) emit searchProgress(searched, best);
}

}  // namespace ql::ui

#include "calibration_lab_job.h"

#include <atomic>
#include <chrono>
#include <mutex>

#include "analysis/session/analysis_session.h"  // readLabelsFile
#include "calibration_lab_format.h"
#include "core/stop_token.h"
#include "onnx_io/model_loader.h"
#include "quant/calibration_data.h"
#include "worker_pool.h"

namespace ql::ui {

namespace {

using Clock = std::chrono::steady_clock;

std::vector<std::string> toStd(const QStringList &list) {
    std::vector<std::string> out;
    for (const QString &item : list) out.push_back(item.toStdString());
    return out;
}

std::vector<int64_t> toStd(const QList<qint64> &list) {
    return std::vector<int64_t>(list.begin(), list.end());
}

const char *stageName(const std::string &stage) {
    if (stage == "loading") return QT_TRANSLATE_NOOP("ql::ui::CalibrationLabJob", "Loading");
    if (stage == "pool")
        return QT_TRANSLATE_NOOP("ql::ui::CalibrationLabJob", "Float model over the pool");
    if (stage == "evaluation")
        return QT_TRANSLATE_NOOP("ql::ui::CalibrationLabJob",
                                 "Float model over the evaluation set");
    if (stage == "runs") return QT_TRANSLATE_NOOP("ql::ui::CalibrationLabJob", "Calibration runs");
    return nullptr;
}

}  // namespace

Result<analysis::CalibrationLabOptions> calibrationLabOptions(
    const CalibrationLabSettings &settings, int threads) {
    const QString problem = settings.validate();
    if (!problem.isEmpty()) return Status::badInput(problem.toStdString());
    analysis::CalibrationLabOptions options;
    auto pool = quant::listCalibrationFiles(toStd(settings.poolPaths));
    if (!pool) return pool.status().withContext("calibration pool");
    options.poolFiles = std::move(*pool);
    auto evaluation = quant::listCalibrationFiles(toStd(settings.evaluationPaths));
    if (!evaluation) return evaluation.status().withContext("evaluation inputs");
    options.evalFiles = std::move(*evaluation);
    if (!settings.labelsPath.isEmpty()) {
        auto labels = analysis::readLabelsFile(settings.labelsPath.toStdString());
        if (!labels) return labels.status();
        options.labels = std::move(*labels);
    }
    for (const QString &text : settings.engineMethods()) {
        auto method = analysis::parseCalibrationMethod(text.toStdString());
        if (!method) return method.status();
        options.methods.push_back(*method);
    }
    options.sizes = toStd(*parsePositiveList(settings.sizes, QString()));
    options.calibBatches = toStd(*parsePositiveList(settings.calibrationBatches, QString()));
    options.remedies.clear();
    for (const QString &set : settings.remedySets()) {
        auto remedies = analysis::parseLabRemedies(set.toStdString());
        if (!remedies) return remedies.status();
        options.remedies.push_back(*remedies);
    }
    options.repeats = settings.repeats;
    analysis::parseCalibrationSelection(settings.selection.toStdString(), options.selection);
    options.seed = settings.seed;
    options.layers = settings.layers;
    options.evalBatch = settings.evaluationBatch;
    options.threads = threads;
    options.quantizer.perChannelWeights = !settings.perTensor;
    options.quantizer.symmetricActivations = settings.symmetricActivations;
    options.quantizer.reduceRange = settings.reduceRange;
    options.quantizer.foldBatchNorm = settings.foldBatchNorm;
    return options;
}

struct CalibrationLabJob::Shared {
    std::atomic<bool> cancelled{false};
    std::mutex mutex;
    std::string stage;
    int done = 0, total = 0;
    Clock::time_point stageStart = Clock::now();
    double etaSeconds = -1.0;
    bool fresh = false;

    analysis::LabProgress callback() {
        return [this](const std::string &name, int doneNow, int totalNow) {
            const Clock::time_point now = Clock::now();
            std::lock_guard<std::mutex> lock(mutex);
            if (name != stage) {
                stage = name;
                stageStart = now;
            }
            done = doneNow;
            total = totalNow;
            // Time left in this stage, from its pace so far.
            const double elapsed = std::chrono::duration<double>(now - stageStart).count();
            etaSeconds = doneNow > 0 && totalNow >= doneNow
                             ? elapsed / doneNow * (totalNow - doneNow)
                             : -1.0;
            fresh = true;
            return !cancelled.load();
        };
    }
};

// What the worker hands back.
struct CalibrationLabJob::Outcome {
    Status status = Status::ok();
    QJsonObject json;
    CalibrationLabPtr lab;
};

namespace {

Status runLab(const CalibrationLabSettings &settings, int threads,
              const analysis::LabProgress &progress, QJsonObject &json, CalibrationLabPtr &live) {
    progress("loading", 0, 0);
    auto options = calibrationLabOptions(settings, threads);
    if (!options) return options.status();
    auto graph = loadModel(settings.floatModel.toStdString());
    if (!graph) return graph.status();
    if (!progress("loading", 0, 0)) return Status::error(ErrorKind::Cancelled, "cancelled");
    // The lab keeps its own copy of the graph (tensors share storage): ours can go.
    auto created = analysis::CalibrationLab::create(*graph, std::move(*options), progress);
    if (!created) return created.status();
    CalibrationLabPtr lab = std::move(*created);
    auto result = lab->run(progress);
    if (!result) return result.status();
    json = calibrationLabJson(*result, lab->options(), settings.floatModel);
    live = std::move(lab);
    return Status::ok();
}

}  // namespace

CalibrationLabJob::CalibrationLabJob(QObject *parent) : QObject(parent) {
    qRegisterMetaType<ql::ui::CalibrationLabPtr>();
    connect(&m_watcher, &QFutureWatcher<void>::finished, this, &CalibrationLabJob::onFinished);
    m_poll.setInterval(50);
    connect(&m_poll, &QTimer::timeout, this, &CalibrationLabJob::pollProgress);
}

CalibrationLabJob::~CalibrationLabJob() {
    if (m_shared) m_shared->cancelled = true;
    m_watcher.disconnect(this);
}

bool CalibrationLabJob::start(const CalibrationLabSettings &settings, int threads) {
    if (isBusy()) return false;
    m_shared = std::make_shared<Shared>();
    m_outcome = std::make_shared<Outcome>();
    std::shared_ptr<Shared> shared = m_shared;
    std::shared_ptr<Outcome> outcome = m_outcome;
    m_watcher.setFuture(runInBackground([shared, outcome, settings, threads] {
        StopScope scope(&shared->cancelled);  // Cancel stops the engine between plan nodes
        outcome->status =
            runLab(settings, threads, shared->callback(), outcome->json, outcome->lab);
    }));
    m_poll.start();
    emit busyChanged(true);
    return true;
}

void CalibrationLabJob::cancel() {
    if (m_shared) m_shared->cancelled = true;
}

bool CalibrationLabJob::isCancelling() const {
    return isBusy() && m_shared && m_shared->cancelled.load();
}

void CalibrationLabJob::onFinished() {
    if (!m_outcome) return;
    pollProgress();  // the last figures before the result
    std::shared_ptr<Outcome> outcome = std::move(m_outcome);
    const bool cancelled = m_shared && m_shared->cancelled.load();
    m_poll.stop();
    emit busyChanged(false);
    if (!outcome->status)
        emit failed(QString::fromStdString(outcome->status.message()),
                    cancelled ? ErrorKind::Cancelled : outcome->status.kind());
    else
        emit finished(outcome->json, outcome->lab);
}

void CalibrationLabJob::pollProgress() {
    if (!m_shared) return;
    QString stage;
    int done = 0, total = 0;
    double eta = -1.0;
    {
        std::lock_guard<std::mutex> lock(m_shared->mutex);
        if (!m_shared->fresh) return;
        m_shared->fresh = false;
        const char *name = stageName(m_shared->stage);
        stage = name ? tr(name) : QString::fromStdString(m_shared->stage);
        done = m_shared->done;
        total = m_shared->total;
        eta = m_shared->etaSeconds;
    }
    emit progress(stage, done, total, eta);
}

}  // namespace ql::ui

#include "calibration_lab_controller.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QThread>

#include <algorithm>
#include <functional>
#include <utility>

#include "calibration_lab_data.h"

namespace {

using PathMap = std::function<QString(const QString &)>;

QJsonArray mappedList(const QJsonValue &value, const PathMap &map) {
    QJsonArray out;
    for (const QJsonValue &item : value.toArray()) out.append(map(item.toString()));
    return out;
}

// The lab's JSON with its file paths (float model, pool, evaluation files) passed through `map`:
// relative to the project when saved, absolute again when read.
QJsonObject mapPaths(QJsonObject lab, const PathMap &map) {
    if (lab.isEmpty()) return lab;
    lab.insert("float_model", map(lab.value("float_model").toString()));
    for (const char *key : {"pool", "evaluation"}) {
        QJsonObject files = lab.value(key).toObject();
        files.insert("files", mappedList(files.value("files"), map));
        lab.insert(key, files);
    }
    return lab;
}

}  // namespace

CalibrationLabController::CalibrationLabController(QObject *parent)
    : QObject(parent), m_job(new ql::ui::CalibrationLabJob(this)) {
    connect(m_job, &ql::ui::CalibrationLabJob::busyChanged, this,
            &CalibrationLabController::busyChanged);
    connect(m_job, &ql::ui::CalibrationLabJob::progress, this, &CalibrationLabController::progress);
    connect(m_job, &ql::ui::CalibrationLabJob::finished, this,
            [this](const QJsonObject &lab, const ql::ui::CalibrationLabPtr &live) {
                if (std::exchange(m_discardRunning, false)) return;
                m_result = lab;
                m_live = live;
                emit resultChanged(m_result);
                emit finished(m_result);
                emit modified();
            });
    connect(m_job, &ql::ui::CalibrationLabJob::failed, this,
            [this](const QString &message, ql::ErrorKind kind) {
                if (!std::exchange(m_discardRunning, false)) emit failed(message, kind);
            });
}

bool CalibrationLabController::start(const ql::ui::CalibrationLabSettings &settings) {
    // One core stays free for the GUI thread (responsive while the engine runs).
    if (!m_job->start(settings, std::max(1, QThread::idealThreadCount() - 1))) return false;
    if (settings != m_settings) {
        m_settings = settings;
        emit modified();
    }
    emit started();
    return true;
}

void CalibrationLabController::cancel() {
    m_job->cancel();
}

bool CalibrationLabController::isBusy() const {
    return m_job->isBusy();
}

QJsonObject CalibrationLabController::toJson(const QDir &base) const {
    const PathMap relative = [&base](const QString &path) {
        return path.isEmpty() ? path : base.relativeFilePath(QFileInfo(path).absoluteFilePath());
    };
    QJsonObject object{{"settings", m_settings.toJson(&base)}};
    if (!m_result.isEmpty()) object.insert("result", mapPaths(m_result, relative));
    return object;
}

void CalibrationLabController::restore(const QJsonObject &object, const QDir &base) {
    discardRunning();
    const PathMap absolute = [&base](const QString &path) {
        return path.isEmpty() ? path : QDir::cleanPath(base.absoluteFilePath(path));
    };
    m_settings =
        ql::ui::CalibrationLabSettings::fromJson(object.value("settings").toObject(), &base);
    m_result = mapPaths(object.value("result").toObject(), absolute);
    m_live.reset();
    emit resultChanged(m_result);
}

void CalibrationLabController::clear() {
    discardRunning();
    const bool had = !isEmpty();
    m_settings = {};
    m_result = {};
    m_live.reset();
    emit resultChanged(m_result);
    if (had) emit modified();
}

void CalibrationLabController::discardRunning() {
    if (!m_job->isBusy()) return;
    m_discardRunning = true;
    m_job->cancel();
}

bool CalibrationLabController::analysisSetupForRun(
    const QJsonObject &lab, const ql::ui::CalibrationLabSettings &settings, const QString &runId,
    const AnalysisSetup &current, AnalysisSetup &setup, std::set<std::string> &fp32Layers,
    QString &error) {
    const ql::ui::CalibrationLabData data = ql::ui::parseCalibrationLab(lab);
    const ql::ui::CalibrationLabRun *run = data.findRun(runId);
    if (!run) {
        error = tr("The calibration lab has no run '%1'").arg(runId);
        return false;
    }
    QStringList calibration;
    for (const qint64 index : run->calibIndices) {
        if (index < 0 || index >= data.poolFiles.size()) {
            error = tr("Run %1: calibration index %2 is outside the pool of %3 files")
                        .arg(runId)
                        .arg(index)
                        .arg(data.poolFiles.size());
            return false;
        }
        calibration.append(data.poolFiles[int(index)]);
    }
    if (calibration.isEmpty()) {
        error = tr("Run %1 lists no calibration files").arg(runId);
        return false;
    }
    setup = AnalysisSetup{};
    setup.floatModel = data.floatModel.isEmpty() ? settings.floatModel : data.floatModel;
    setup.quantizeInApp = true;
    setup.calibrationPaths = calibration;
    // "percentile:99.99" -> percentile 99.99; the setup spells the moving average with '_'.
    const QString engineMethod = run->method.section(QLatin1Char('+'), 0, 0);
    const QString method = engineMethod.section(QLatin1Char(':'), 0, 0);
    setup.quantizer.method =
        method == QLatin1String("moving-average") ? QStringLiteral("moving_average") : method;
    bool parsed = false;
    const double percentile = engineMethod.section(QLatin1Char(':'), 1).toDouble(&parsed);
    // The run's remedies, as the setup's (AdaRound, then bias correction of every int8 layer).
    if (run->remedies != QLatin1String("none"))
        setup.quantizer.remedies = run->remedies.split(QLatin1Char('+'));
    if (run->percentile)
        setup.quantizer.percentile = *run->percentile;
    else if (parsed)
        setup.quantizer.percentile = percentile;
    const QJsonObject quantizer = data.options.value("quantizer").toObject();
    setup.quantizer.perTensor = !quantizer.value("per_channel_weights").toBool(!settings.perTensor);
    setup.quantizer.symmetricActivations =
        quantizer.value("symmetric_activations").toBool(settings.symmetricActivations);
    setup.quantizer.reduceRange = quantizer.value("reduce_range").toBool(settings.reduceRange);
    setup.quantizer.foldBatchNorm =
        quantizer.value("fold_batch_norm").toBool(settings.foldBatchNorm);
    setup.quantizer.calibrationBatch = int(std::max<qint64>(run->calibBatch, 0));
    setup.dataPaths =
        data.evaluationFiles.isEmpty() ? settings.evaluationPaths : data.evaluationFiles;
    if (data.labelled) setup.labelsPath = settings.labelsPath;
    setup.batch = data.options.value("eval_batch").toInt(settings.evaluationBatch);
    setup.int8Kernels = data.options.value("int8_kernels").toString(current.int8Kernels);
    fp32Layers.clear();
    for (const QJsonValue &node : quantizer.value("excluded_nodes").toArray())
        fp32Layers.insert(node.toString().toStdString());
    return true;
}

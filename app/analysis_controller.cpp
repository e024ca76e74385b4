#include "analysis_controller.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QThread>
#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>
#include <cmath>
#include <vector>

#include "analysis_job.h"
#include "analysis_report_format.h"
#include "save_file.h"

namespace {

// One undoable change of the fp32 layers and per-layer remedies: redo applies `after`, undo
// `before`.
class LayerChoicesCommand : public QUndoCommand {
public:
    LayerChoicesCommand(AnalysisController *controller, AnalysisController::LayerChoices before,
                        AnalysisController::LayerChoices after, const QString &text)
        : QUndoCommand(text),
          m_controller(controller),
          m_before(std::move(before)),
          m_after(std::move(after)) {}
    void redo() override { m_controller->applyLayerChoices(m_after); }
    void undo() override { m_controller->applyLayerChoices(m_before); }

private:
    AnalysisController *m_controller;
    AnalysisController::LayerChoices m_before, m_after;
};

std::optional<double> rankingFigure(const ql::analysis::LayerReport &layer) {
    if (auto isolated = ql::ui::isolatedSqnr(layer)) return isolated;
    return ql::ui::cumulativeSqnr(layer);
}

}  // namespace

AnalysisController::AnalysisController(QObject *parent)
    : QObject(parent), m_job(new ql::ui::AnalysisJob(this)), m_undo(new QUndoStack(this)) {
    connect(m_job, &ql::ui::AnalysisJob::reportReady, this,
            [this](const ql::ui::ReportPtr &report) {
                if (m_awaitingAnalysis) {
                    m_awaitingAnalysis = false;
                    m_goodSetup = m_setup;
                    // The setup's AdaRound and bias correction chose layers: from now on the
                    // user switches those.
                    if (m_setup.quantizeInApp && m_job->layerRemedies() != m_remedies) {
                        m_remedies = m_job->layerRemedies();
                        emit fp32LayersChanged();
                    }
                    m_remediesKnown = m_setup.quantizeInApp;
                }
                emit reportReady(report);
            });
    connect(m_job, &ql::ui::AnalysisJob::latencyReady, this, [this](double int8, double fp32) {
        m_latency = std::make_pair(int8, fp32);
        emit latencyReady(int8, fp32);
    });
    connect(m_job, &ql::ui::AnalysisJob::failed, this,
            [this](const QString &message, ql::ErrorKind kind,
                   ql::ui::AnalysisJob::Operation operation) {
                if (operation == ql::ui::AnalysisJob::Operation::Search) {
                    emit searchFailed(message, kind);
                    return;
                }
                // A wish made after the failed operation started is queued and still runs;
                // otherwise the fp32 layers return to what runs (a refused or cancelled change).
                const bool wishQueued = m_job->hasPendingToggle();
                const auto backToJob = [this] {
                    m_fp32 = m_job->fp32Layers();
                    m_remedies = m_job->layerRemedies();
                };
                if (operation == ql::ui::AnalysisJob::Operation::Analysis && m_job->report()) {
                    // The previous analysis stays on screen: so does its setup.
                    m_setup = m_goodSetup;
                    if (!wishQueued) backToJob();
                    emit setupChanged();
                    emit fp32LayersChanged();
                } else if (operation == ql::ui::AnalysisJob::Operation::Toggle && !wishQueued) {
                    backToJob();
                    emit fp32LayersChanged();
                }
                emit failed(kind == ql::ErrorKind::Cancelled ? tr("Analysis cancelled") : message,
                            kind);
            });
    connect(m_job, &ql::ui::AnalysisJob::exported, this, &AnalysisController::exported);
    connect(m_job, &ql::ui::AnalysisJob::searchProgress, this, &AnalysisController::searchProgress);
    connect(m_job, &ql::ui::AnalysisJob::searchReady, this, &AnalysisController::searchReady);
    connect(m_job, &ql::ui::AnalysisJob::busyChanged, this, &AnalysisController::busyChanged);
    connect(m_job, &ql::ui::AnalysisJob::progress, this, &AnalysisController::progress);
}

AnalysisController::~AnalysisController() = default;

ql::ui::ReportPtr AnalysisController::report() const {
    return m_job->report();
}

bool AnalysisController::isBusy() const {
    return m_job->isBusy();
}

void AnalysisController::setSetup(const AnalysisSetup &setup,
                                  const std::set<std::string> &fp32Layers,
                                  const std::optional<ql::analysis::LayerRemedies> &remedies) {
    m_setup = setup;
    m_fp32 = fp32Layers;
    // Remedies re-quantize from the float model: none on a quantized model file.
    m_remediesKnown = setup.quantizeInApp && remedies.has_value();
    m_remedies = m_remediesKnown ? *remedies : ql::analysis::LayerRemedies{};
    m_reasonDb.clear();
    m_undo->clear();
    emit setupChanged();
    emit fp32LayersChanged();
    emit modified();
    if (m_setup.isComplete()) start();
}

void AnalysisController::setFloatModel(const QString &path) {
    AnalysisSetup setup = m_setup;
    setup.floatModel = QFileInfo(path).absoluteFilePath();
    setSetup(setup);
}

void AnalysisController::setQuantModel(const QString &path) {
    AnalysisSetup setup = m_setup;
    setup.quantModel = QFileInfo(path).absoluteFilePath();
    setup.quantizeInApp = false;
    setSetup(setup);
}

void AnalysisController::setQuantizeInApp(const QStringList &calibrationPaths,
                                          const QuantizerSettings &settings) {
    AnalysisSetup setup = m_setup;
    setup.quantizeInApp = true;
    setup.quantModel.clear();
    setup.calibrationPaths = calibrationPaths;
    setup.quantizer = settings;
    setSetup(setup);
}

void AnalysisController::setEvaluationFiles(const QStringList &paths, const QString &labels) {
    AnalysisSetup setup = m_setup;
    setup.randomInputs = false;
    setup.dataPaths = paths;
    setup.labelsPath = labels;
    setSetup(setup, m_fp32);
}

void AnalysisController::setRandomInputs(int count, quint64 seed) {
    AnalysisSetup setup = m_setup;
    setup.randomInputs = true;
    setup.randomCount = count;
    setup.randomSeed = seed;
    setup.labelsPath.clear();  // labels belong to files, not to random inputs
    setSetup(setup, m_fp32);
}

void AnalysisController::rerun() {
    if (m_setup.isComplete()) start();
}

void AnalysisController::cancel() {
    m_job->cancel();
}

void AnalysisController::start() {
    ql::ui::AnalysisRequest request;
    QString error;
    if (!m_setup.toRequest(request, error)) {
        emit failed(error, ql::ErrorKind::BadInput);
        return;
    }
    request.fp32Layers = m_fp32;
    if (m_remediesKnown) request.layerRemedies = m_remedies;
    // One core stays free for the GUI thread (responsive while the engine runs).
    request.threads = m_threads = std::max(1, QThread::idealThreadCount() - 1);
    m_latency.reset();
    m_awaitingAnalysis = true;
    m_job->start(request);
    emit analysisStarted();
}

void AnalysisController::applyLayerChoices(const LayerChoices &choices) {
    if (const ql::ui::ReportPtr current = report()) {
        for (const std::string &name : choices.fp32) {
            if (m_fp32.count(name) || m_reasonDb.count(name)) continue;
            for (const auto &layer : current->layers)
                if (layer.name == name && !ql::ui::isFp32(layer))
                    if (auto figure = rankingFigure(layer)) m_reasonDb[name] = *figure;
        }
    }
    m_fp32 = choices.fp32;
    m_remedies = choices.remedies;
    m_job->requestLayers(m_fp32, m_remedies);
    emit fp32LayersChanged();
    emit modified();
}

void AnalysisController::setFp32Layers(const std::set<std::string> &layers,
                                       const QString &undoText) {
    if (layers == m_fp32) return;
    m_undo->push(
        new LayerChoicesCommand(this, {m_fp32, m_remedies}, {layers, m_remedies}, undoText));
}

void AnalysisController::applySearchSet(ql::analysis::SearchPrecision precision,
                                        const std::set<std::string> &layers,
                                        const QString &undoText) {
    auto [fp32, remedies] = ql::analysis::raisedLayers(
        m_remedies, precision, std::vector<std::string>(layers.begin(), layers.end()));
    if (fp32 == m_fp32 && remedies == m_remedies) return;
    m_undo->push(new LayerChoicesCommand(this, {m_fp32, m_remedies},
                                         {std::move(fp32), std::move(remedies)}, undoText));
}

void AnalysisController::setLayerRemedy(const std::string &name, ql::analysis::LayerRemedy remedy,
                                        bool on) {
    if (!m_setup.quantizeInApp || m_remedies.has(remedy, name) == on) return;
    ql::analysis::LayerRemedies remedies = m_remedies;
    remedies.set(remedy, name, on);
    // Asking for 16 bits takes the layer out of fp32 (fp32 wins where both are asked).
    std::set<std::string> fp32 = m_fp32;
    const bool sixteen = remedy == ql::analysis::LayerRemedy::SixteenBit;
    if (sixteen && on) fp32.erase(name);
    const QString layer = QString::fromStdString(name);
    QString text;
    switch (remedy) {
        case ql::analysis::LayerRemedy::AdaRound:
            text = on ? tr("Round %1 adaptively (AdaRound)").arg(layer)
                      : tr("Round %1 to nearest").arg(layer);
            break;
        case ql::analysis::LayerRemedy::BiasCorrection:
            text = on ? tr("Correct the bias of %1").arg(layer)
                      : tr("Undo the bias correction of %1").arg(layer);
            break;
        case ql::analysis::LayerRemedy::SixteenBit:
            text = on ? tr("Quantize %1 with 16 bits").arg(layer)
                      : tr("Quantize %1 with 8 bits").arg(layer);
            break;
    }
    m_undo->push(new LayerChoicesCommand(this, {m_fp32, m_remedies}, {fp32, remedies}, text));
}

std::vector<std::string> AnalysisController::sixteenBitLayers() const {
    std::vector<std::string> layers;
    for (const std::string &name : m_remedies.int16)
        if (!m_fp32.count(name)) layers.push_back(name);
    return layers;
}

std::optional<ql::analysis::LayerRemedies> AnalysisController::layerRemediesToSave() const {
    if (!m_remediesKnown) return std::nullopt;
    return m_remedies;
}

void AnalysisController::setLayerFp32(const std::string &name, bool fp32) {
    std::set<std::string> layers = m_fp32;
    if (fp32)
        layers.insert(name);
    else
        layers.erase(name);
    const QString text = fp32 ? tr("Keep %1 in fp32").arg(QString::fromStdString(name))
                              : tr("Run %1 in int8").arg(QString::fromStdString(name));
    setFp32Layers(layers, text);
}

void AnalysisController::setLayerFp32(int reportIndex, bool fp32) {
    const ql::ui::ReportPtr current = report();
    if (!current || reportIndex < 0 || reportIndex >= int(current->layers.size())) return;
    setLayerFp32(current->layers[size_t(reportIndex)].name, fp32);
}

void AnalysisController::resetToInt8() {
    ql::analysis::LayerRemedies remedies = m_remedies;
    remedies.int16.clear();
    if (m_fp32.empty() && remedies == m_remedies) return;
    m_undo->push(new LayerChoicesCommand(this, {m_fp32, m_remedies}, {{}, remedies},
                                         tr("Reset to all int8")));
}

std::set<std::string> AnalysisController::worstLayers(int n) const {
    std::set<std::string> worst;
    const ql::ui::ReportPtr current = report();
    if (!current || n <= 0) return worst;
    std::vector<std::pair<double, std::string>> ranked;
    for (const auto &layer : current->layers) {
        if (ql::ui::isFp32(layer) || m_fp32.count(layer.name)) continue;
        if (auto figure = rankingFigure(layer)) ranked.emplace_back(*figure, layer.name);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    for (size_t i = 0; i < ranked.size() && int(i) < n; ++i) worst.insert(ranked[i].second);
    return worst;
}

int AnalysisController::keepWorstInFp32(int n) {
    const std::set<std::string> worst = worstLayers(n);
    if (worst.empty()) return 0;
    std::set<std::string> layers = m_fp32;
    layers.insert(worst.begin(), worst.end());
    setFp32Layers(layers, tr("Keep the %n worst layer(s) in fp32", nullptr, int(worst.size())));
    return int(worst.size());
}

void AnalysisController::setThresholdDb(double thresholdDb) {
    if (qFuzzyCompare(thresholdDb, m_thresholdDb)) return;
    m_thresholdDb = thresholdDb;
    emit thresholdChanged(thresholdDb);
    emit modified();
}

QJsonObject AnalysisController::skipListJson() const {
    QJsonArray nodes;
    QJsonObject reasons;
    for (const std::string &name : m_fp32) {
        const QString node = QString::fromStdString(name);
        nodes.append(node);
        const auto reason = m_reasonDb.find(name);
        if (reason != m_reasonDb.end() && std::isfinite(reason->second))
            reasons.insert(node, tr("kept in fp32 in QuantLens: isolated SQNR %1 dB")
                                     .arg(QString::number(reason->second, 'f', 1)));
        else
            reasons.insert(node, tr("kept in fp32 in QuantLens"));
    }
    QJsonObject json{{"model", QFileInfo(m_setup.floatModel).fileName()},
                     {"fp32_nodes", nodes},
                     {"reason", reasons}};
    QJsonArray int16;
    for (const std::string &name : sixteenBitLayers()) int16.append(QString::fromStdString(name));
    if (!int16.isEmpty()) json.insert(QStringLiteral("int16_nodes"), int16);
    return json;
}

bool AnalysisController::writeFile(const QString &path, const QByteArray &bytes,
                                   QString &error) const {
    const ql::Status saved = ql::ui::saveFile(path, bytes);
    if (!saved) error = QString::fromStdString(saved.message());
    return bool(saved);
}

void AnalysisController::findFp32Set(const ql::ui::SearchRequest &request) {
    m_job->requestSearch(request);
}

bool AnalysisController::exportSkipList(const QString &path, ql::analysis::SkipListDialect dialect,
                                        QString &error) const {
    // Names are checked against the float model (the report's layer names are its node names):
    // a skip-list must work with `quantlens quantize --skip-list`.
    const ql::ui::ReportPtr current = report();
    for (const std::string &name : m_fp32) {
        const bool known =
            current && std::any_of(current->layers.begin(), current->layers.end(),
                                   [&name](const auto &l) { return l.name == name; });
        if (!known) {
            error = tr("'%1' is not a layer of the float model").arg(QString::fromStdString(name));
            return false;
        }
    }
    const QJsonObject json = skipListJson();
    if (dialect == ql::analysis::SkipListDialect::QuantLens)
        return writeFile(path, QJsonDocument(json).toJson(), error);
    const auto floatGraph = m_job->models().floatGraph;
    if (!floatGraph) {
        error = tr("No analysis to export yet");
        return false;
    }
    ql::analysis::SkipList list;
    list.model = json.value(QStringLiteral("model")).toString().toStdString();
    list.nodes.assign(m_fp32.begin(), m_fp32.end());
    list.int16Nodes = sixteenBitLayers();
    const QJsonObject reasons = json.value(QStringLiteral("reason")).toObject();
    for (auto it = reasons.begin(); it != reasons.end(); ++it)
        list.reasons[it.key().toStdString()] = it.value().toString().toStdString();
    list.origin = tr("fp32 layers chosen in QuantLens").toStdString();
    return writeFile(
        path, QByteArray::fromStdString(ql::analysis::formatSkipList(*floatGraph, list, dialect)),
        error);
}

bool AnalysisController::exportAnalysisJson(const QString &path, QString &error) const {
    const ql::ui::ReportPtr current = report();
    if (!current) {
        error = tr("No analysis to export yet");
        return false;
    }
    return writeFile(
        path, QJsonDocument(ql::ui::analysisReportJson(*current, m_setup.analysisModels())).toJson(),
        error);
}

bool AnalysisController::exportAnalysisCsv(const QString &path, QString &error) const {
    const ql::ui::ReportPtr current = report();
    if (!current) {
        error = tr("No analysis to export yet");
        return false;
    }
    return writeFile(path, ql::ui::analysisReportCsv(*current).toUtf8(), error);
}

void AnalysisController::exportQuantizedModel(const QString &path) {
    m_job->requestExport(path);
}

#include "project_controller.h"

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <QMessageBox>
#include <QSaveFile>
#include <QStandardPaths>

#include "analysis_controller.h"
#include "calibration_lab_controller.h"
#include "report_html.h"

const QString ProjectController::kSuffix = QStringLiteral("qlproj");

namespace {
const char kFormat[] = "quantlens-project";
constexpr int kVersion = 1;
}  // namespace

ProjectController::ProjectController(AnalysisController *analysis, QWidget *dialogParent,
                                     bool interactive)
    : QObject(dialogParent),
      m_analysis(analysis),
      m_dialogParent(dialogParent),
      m_interactive(interactive) {
    m_autosaveTimer.setSingleShot(true);
    m_autosaveTimer.setInterval(300);
    connect(&m_autosaveTimer, &QTimer::timeout, this, &ProjectController::autosave);
    connect(m_analysis, &AnalysisController::modified, this, &ProjectController::onContentModified);
}

void ProjectController::setCalibrationLab(CalibrationLabController *lab) {
    m_lab = lab;
    connect(m_lab, &CalibrationLabController::modified, this,
            &ProjectController::onContentModified);
}

void ProjectController::onContentModified() {
    if (m_restoring) return;
    setModified(true);
    if (m_autosaveEnabled) m_autosaveTimer.start();
}

namespace {

QJsonArray namesArray(const std::set<std::string> &names) {
    QJsonArray array;
    for (const std::string &name : names) array.append(QString::fromStdString(name));
    return array;
}

}  // namespace

QJsonObject ProjectController::projectJson(
    const AnalysisSetup &setup, const std::set<std::string> &fp32, double thresholdDb,
    const QDir &base, const std::optional<ql::analysis::LayerRemedies> &remedies) {
    QJsonObject project{{"format", kFormat},
                        {"version", kVersion},
                        {"analysis", setup.toJson(base)},
                        {"fp32_layers", namesArray(fp32)},
                        {"threshold_db", thresholdDb}};
    if (remedies) {
        QJsonObject perLayer;
        for (ql::analysis::LayerRemedy remedy : ql::analysis::kLayerRemedies)
            perLayer.insert(QLatin1String(ql::analysis::layerRemedyName(remedy)),
                            namesArray(remedies->of(remedy)));
        project.insert(QStringLiteral("layer_remedies"), perLayer);
    }
    return project;
}

QJsonObject ProjectController::toJson(const QString &projectPath) const {
    const QDir base = QFileInfo(projectPath).absoluteDir();
    QJsonObject project =
        projectJson(m_analysis->setup(), m_analysis->fp32Layers(), m_analysis->thresholdDb(), base,
                    m_analysis->layerRemediesToSave());
    if (m_lab && !m_lab->isEmpty()) project.insert("calibration_lab", m_lab->toJson(base));
    return project;
}

namespace {

// The first field of a project whose JSON type is not what it must be ("analysis.batch should be
// a number"), or "": a project of wrong types is refused with its name instead of read as empty.
QString wrongTypedField(const QJsonObject &project) {
    using Type = QJsonValue::Type;
    struct Field {
        const char *object, *name;
        Type type;  // arrays hold strings
    };
    static const Field fields[] = {
        {nullptr, "fp32_layers", Type::Array},
        {nullptr, "threshold_db", Type::Double},
        {"analysis", "float_model", Type::String},
        {"analysis", "quant_model", Type::String},
        {"analysis", "labels", Type::String},
        {"analysis", "data", Type::Array},
        {"analysis", "calibration", Type::Array},
        {"analysis", "batch", Type::Double},
        {"analysis", "int8_kernels", Type::String},
        {"analysis", "quantized_in_app", Type::Bool},
        {"analysis", "quantizer", Type::Object},
        {"analysis", "random_inputs", Type::Object},
        {nullptr, "layer_remedies", Type::Object},
        {"layer_remedies", "adaround", Type::Array},
        {"layer_remedies", "bias-correction", Type::Array},
        {"layer_remedies", "int16", Type::Array},
    };
    static const QMap<Type, QString> names = {
        {Type::String, QStringLiteral("a string")}, {Type::Double, QStringLiteral("a number")},
        {Type::Array, QStringLiteral("a list")},    {Type::Bool, QStringLiteral("true or false")},
        {Type::Object, QStringLiteral("an object")}};
    for (const Field &f : fields) {
        const QJsonObject owner =
            f.object ? project.value(QLatin1String(f.object)).toObject() : project;
        const QJsonValue value = owner.value(QLatin1String(f.name));
        const QString path = f.object ? QStringLiteral("%1.%2").arg(QLatin1String(f.object),
                                                                     QLatin1String(f.name))
                                      : QLatin1String(f.name);
        if (value.isUndefined() || value.isNull()) continue;
        if (value.type() != f.type)
            return ProjectController::tr("\"%1\" should be %2").arg(path, names.value(f.type));
        if (f.type == Type::Array)
            for (const QJsonValue &item : value.toArray())
                if (!item.isString())
                    return ProjectController::tr("\"%1\" should hold only strings").arg(path);
    }
    return {};
}

}  // namespace

bool ProjectController::readProject(const QString &file, QJsonObject &project, QString &error) {
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly)) {
        error = tr("%1: cannot open (%2)").arg(QDir::toNativeSeparators(file), in.errorString());
        return false;
    }
    const QByteArray bytes = in.readAll();
    const QString suffix = QFileInfo(file).suffix().toLower();
    if (suffix == QLatin1String("html") || suffix == QLatin1String("htm")) {
        QString why;
        project = ql::ui::projectFromReportHtml(bytes, why);
        if (project.isEmpty()) {
            error = QStringLiteral("%1: %2").arg(QDir::toNativeSeparators(file), why);
            return false;
        }
    } else {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(bytes, &parseError);
        if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
            error = tr("%1: not a QuantLens project (%2)")
                        .arg(QDir::toNativeSeparators(file),
                             parseError.error != QJsonParseError::NoError
                                 ? parseError.errorString()
                                 : tr("JSON, but not an object"));
            return false;
        }
        project = doc.object();
    }
    if (project.value("format").toString() != QLatin1String(kFormat) ||
        !project.value("analysis").isObject()) {
        error = tr("%1: not a QuantLens project").arg(QDir::toNativeSeparators(file));
        return false;
    }
    if (const QString wrong = wrongTypedField(project); !wrong.isEmpty()) {
        error = tr("%1: not a valid QuantLens project (%2)")
                    .arg(QDir::toNativeSeparators(file), wrong);
        return false;
    }
    if (project.value("version").toInt() > kVersion) {
        error = tr("%1: written by a newer QuantLens (version %2)")
                    .arg(QDir::toNativeSeparators(file))
                    .arg(project.value("version").toInt());
        return false;
    }
    return true;
}

void ProjectController::unpackProject(const QJsonObject &project, const QDir &base,
                                      AnalysisSetup &setup, std::set<std::string> &fp32,
                                      double &thresholdDb,
                                      std::optional<ql::analysis::LayerRemedies> *remedies) {
    setup = AnalysisSetup::fromJson(project.value("analysis").toObject(), base);
    fp32.clear();
    for (const QJsonValue &name : project.value("fp32_layers").toArray())
        fp32.insert(name.toString().toStdString());
    if (remedies) {
        remedies->reset();
        if (project.contains(QStringLiteral("layer_remedies"))) {
            ql::analysis::LayerRemedies read;
            const QJsonObject perLayer = project.value("layer_remedies").toObject();
            for (ql::analysis::LayerRemedy remedy : ql::analysis::kLayerRemedies)
                for (const QJsonValue &name :
                     perLayer.value(QLatin1String(ql::analysis::layerRemedyName(remedy))).toArray())
                    read.set(remedy, name.toString().toStdString(), true);
            *remedies = std::move(read);
        }
    }
    thresholdDb = project.value("threshold_db").toDouble(ql::ui::kDefaultThresholdDb);
}

bool ProjectController::save(const QString &path, QString &error) {
    QSaveFile file(path);
    const QByteArray bytes = QJsonDocument(toJson(path)).toJson();
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size() || !file.commit()) {
        error = tr("%1: cannot write the project (%2)")
                    .arg(QDir::toNativeSeparators(path), file.errorString());
        return false;
    }
    removeAutosave();  // the autosave of the old path (or the untitled one)
    setPath(QFileInfo(path).absoluteFilePath());
    removeAutosave();
    setModified(false);
    return true;
}

bool ProjectController::load(const QString &file, const QString &projectPath, QString &error) {
    QJsonObject root;
    if (!readProject(file, root, error)) return false;
    const QDir base = QFileInfo(projectPath).absoluteDir();
    AnalysisSetup setup;
    std::set<std::string> fp32;
    std::optional<ql::analysis::LayerRemedies> remedies;
    double thresholdDb = ql::ui::kDefaultThresholdDb;
    unpackProject(root, base, setup, fp32, thresholdDb, &remedies);
    m_restoring = true;
    if (m_lab) m_lab->restore(root.value("calibration_lab").toObject(), base);
    m_analysis->setThresholdDb(thresholdDb);
    m_analysis->setSetup(setup, fp32, remedies);
    m_restoring = false;
    return true;
}

bool ProjectController::open(const QString &path, QString &error) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
    const QString suffix = QFileInfo(absolute).suffix().toLower();
    if (suffix == QLatin1String("html") || suffix == QLatin1String("htm")) {
        // A report's analysis: reopened untitled, so that saving never writes over the report.
        if (!load(absolute, absolute, error)) return false;
        setPath(QString());
        setModified(true);
        emit opened(absolute);
        return true;
    }
    // Unsaved changes of this project autosaved before a crash: offer them instead.
    const QFileInfo autosaved(absolute + QStringLiteral(".autosave"));
    bool recover = false;
    if (m_interactive && autosaved.exists() &&
        autosaved.lastModified() >= QFileInfo(absolute).lastModified()) {
        recover = QMessageBox::question(
                      m_dialogParent, tr("Recover Project"),
                      tr("%1 has unsaved changes from a session that did not close normally. "
                         "Restore them?")
                          .arg(QFileInfo(absolute).fileName()),
                      QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes) == QMessageBox::Yes;
    }
    if (!load(recover ? autosaved.absoluteFilePath() : absolute, absolute, error)) return false;
    if (!recover) QFile::remove(autosaved.absoluteFilePath());
    setPath(absolute);
    setModified(recover);
    emit opened(absolute);
    return true;
}

bool ProjectController::saveInteractive() {
    if (m_path.isEmpty()) return saveAsInteractive();
    QString error;
    if (save(m_path, error)) return true;
    if (m_interactive) QMessageBox::warning(m_dialogParent, tr("Cannot Save Project"), error);
    return false;
}

bool ProjectController::saveAsInteractive() {
    if (!m_interactive) return false;
    QString suggestion = m_path;
    if (suggestion.isEmpty()) {
        const QFileInfo model(m_analysis->setup().floatModel);
        suggestion =
            model.absoluteDir().filePath(model.completeBaseName() + QStringLiteral(".qlproj"));
    }
    QString path = QFileDialog::getSaveFileName(m_dialogParent, tr("Save Project"), suggestion,
                                                tr("QuantLens projects (*.qlproj)"));
    if (path.isEmpty()) return false;
    if (QFileInfo(path).suffix() != kSuffix) path += QStringLiteral(".qlproj");
    QString error;
    if (save(path, error)) return true;
    QMessageBox::warning(m_dialogParent, tr("Cannot Save Project"), error);
    return false;
}

void ProjectController::openInteractive() {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(m_dialogParent, tr("Open Project"),
                                                      QFileInfo(m_path).absolutePath(),
                                                      tr("QuantLens projects (*.qlproj)"));
    if (path.isEmpty()) return;
    QString error;
    if (!open(path, error)) QMessageBox::warning(m_dialogParent, tr("Cannot Open Project"), error);
}

bool ProjectController::maybeSave() {
    if (!m_modified || !m_interactive) return true;
    const auto answer = QMessageBox::question(
        m_dialogParent, tr("Unsaved Changes"),
        tr("The analysis has unsaved changes (fp32 layers, threshold or inputs). Save them as a "
           "project?"),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Save) return saveInteractive();
    removeAutosave();
    return true;
}

void ProjectController::reset() {
    if (m_lab) {
        m_restoring = true;  // a new analysis: its lab starts empty, nothing to save
        m_lab->clear();
        m_restoring = false;
    }
    removeAutosave();
    setPath({});
    setModified(false);
}

void ProjectController::markUnmodified() {
    m_autosaveTimer.stop();
    setModified(false);
}

QString ProjectController::untitledAutosavePath() {
    const QString folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    return QDir(folder).filePath(QStringLiteral("autosave.qlproj"));
}

QString ProjectController::autosavePath() const {
    return m_path.isEmpty() ? untitledAutosavePath() : m_path + QStringLiteral(".autosave");
}

void ProjectController::autosave() {
    m_autosaveTimer.stop();
    if (!m_autosaveEnabled || !m_modified || m_analysis->setup().floatModel.isEmpty()) return;
    const QString path = autosavePath();
    QDir().mkpath(QFileInfo(path).absolutePath());
    // Paths relative to where the project is (or will be): the autosave reads like the project.
    const QString projectPath = m_path.isEmpty() ? path : m_path;
    QJsonObject json = toJson(projectPath);
    json.insert("autosave_of", m_path);
    QSaveFile file(path);
    const QByteArray bytes = QJsonDocument(json).toJson();
    if (file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size()) file.commit();
}

void ProjectController::removeAutosave() {
    m_autosaveTimer.stop();
    QFile::remove(autosavePath());
}

bool ProjectController::offerRecovery() {
    const QString path = untitledAutosavePath();
    if (!QFileInfo::exists(path)) return false;
    if (m_interactive) {
        const auto answer = QMessageBox::question(
            m_dialogParent, tr("Recover Analysis"),
            tr("QuantLens did not close normally. Restore the analysis it was working on (%1)?")
                .arg(QFileInfo(path).lastModified().toString(Qt::ISODate)),
            QMessageBox::Yes | QMessageBox::Discard, QMessageBox::Yes);
        if (answer != QMessageBox::Yes) {
            QFile::remove(path);
            return false;
        }
    }
    QString error;
    if (!load(path, path, error)) {
        QFile::remove(path);
        return false;
    }
    setModified(true);  // recovered work is not saved anywhere yet
    return true;
}

void ProjectController::setModified(bool modified) {
    if (m_modified == modified) return;
    m_modified = modified;
    emit modifiedChanged(modified);
}

void ProjectController::setPath(const QString &path) {
    if (m_path == path) return;
    m_path = path;
    emit pathChanged(path);
}

#include "project_controller.h"

#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMessageBox>
#include <QSaveFile>
#include <QStandardPaths>

#include "analysis_controller.h"
#include "calibration_lab_controller.h"

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

QJsonObject ProjectController::toJson(const QString &projectPath) const {
    const QDir base = QFileInfo(projectPath).absoluteDir();
    QJsonArray fp32;
    for (const std::string &name : m_analysis->fp32Layers())
        fp32.append(QString::fromStdString(name));
    QJsonObject project{{"format", kFormat},
                        {"version", kVersion},
                        {"analysis", m_analysis->setup().toJson(base)},
                        {"fp32_layers", fp32},
                        {"threshold_db", m_analysis->thresholdDb()}};
    if (m_lab && !m_lab->isEmpty()) project.insert("calibration_lab", m_lab->toJson(base));
    return project;
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
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly)) {
        error = tr("%1: cannot open (%2)").arg(QDir::toNativeSeparators(file), in.errorString());
        return false;
    }
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(in.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject()) {
        error = tr("%1: not a QuantLens project (%2)")
                    .arg(QDir::toNativeSeparators(file), parseError.errorString());
        return false;
    }
    const QJsonObject root = doc.object();
    if (root.value("format").toString() != QLatin1String(kFormat) ||
        !root.value("analysis").isObject()) {
        error = tr("%1: not a QuantLens project").arg(QDir::toNativeSeparators(file));
        return false;
    }
    if (root.value("version").toInt() > kVersion) {
        error = tr("%1: written by a newer QuantLens (version %2)")
                    .arg(QDir::toNativeSeparators(file))
                    .arg(root.value("version").toInt());
        return false;
    }
    const QDir base = QFileInfo(projectPath).absoluteDir();
    const AnalysisSetup setup = AnalysisSetup::fromJson(root.value("analysis").toObject(), base);
    std::set<std::string> fp32;
    for (const QJsonValue &name : root.value("fp32_layers").toArray())
        fp32.insert(name.toString().toStdString());
    m_restoring = true;
    if (m_lab) m_lab->restore(root.value("calibration_lab").toObject(), base);
    m_analysis->setThresholdDb(root.value("threshold_db").toDouble(ql::ui::kDefaultThresholdDb));
    m_analysis->setSetup(setup, fp32);
    m_restoring = false;
    return true;
}

bool ProjectController::open(const QString &path, QString &error) {
    const QString absolute = QFileInfo(path).absoluteFilePath();
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

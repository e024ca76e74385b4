#pragma once
// Projects (.qlproj): the analysis setup with paths relative to the project file, the fp32
// layers, the threshold and the calibration lab (its settings and result), as JSON. Save, save
// as, open (which restores everything and re-runs the analysis), the dirty flag and the
// unsaved-changes prompt, and autosave: every change is written (debounced) to
// PROJECT.qlproj.autosave, or for an untitled analysis to autosave.qlproj in the app's data
// folder, and offered for recovery at the next start.

#include <QDir>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QTimer>

#include <set>
#include <string>

#include "analysis/session/layer_remedies.h"
#include "analysis_setup.h"

class QWidget;
class AnalysisController;
class CalibrationLabController;

class ProjectController : public QObject {
    Q_OBJECT
public:
    static const QString kSuffix;  // "qlproj"

    // interactive: file dialogs and prompts (else saves/opens only by path, never asks).
    ProjectController(AnalysisController *analysis, QWidget *dialogParent, bool interactive);
    // The calibration lab saved with the project (optional).
    void setCalibrationLab(CalibrationLabController *lab);

    QString path() const { return m_path; }
    bool isModified() const { return m_modified; }
    // The project as JSON, paths relative to the folder of `projectPath`.
    QJsonObject toJson(const QString &projectPath) const;
    // A project of `setup` and fp32 layers, paths relative to `base` (reports embed one).
    static QJsonObject projectJson(const AnalysisSetup &setup, const std::set<std::string> &fp32,
                                   double thresholdDb, const QDir &base,
                                   const std::optional<ql::analysis::LayerRemedies> &remedies = {});
    // The project in a .qlproj file, or the one a QuantLens HTML report carries; false with a
    // one-line message naming the file.
    static bool readProject(const QString &file, QJsonObject &project, QString &error);
    // The setup, fp32 layers and threshold of a project read by readProject; paths relative to
    // `base`.
    // Per-layer remedies ("layer_remedies", nullopt when the project has none) into `remedies`
    // when given.
    static void unpackProject(const QJsonObject &project, const QDir &base, AnalysisSetup &setup,
                              std::set<std::string> &fp32, double &thresholdDb,
                              std::optional<ql::analysis::LayerRemedies> *remedies = nullptr);

    bool save(const QString &path, QString &error);
    bool open(const QString &path, QString &error);
    // Menu actions: dialogs and message boxes.
    bool saveInteractive();
    bool saveAsInteractive();
    void openInteractive();
    // Before closing or replacing the analysis: true when it is fine to go on (saved, discarded
    // or nothing to save). Never asks when not interactive.
    bool maybeSave();
    // Forget the analysis' project (a new analysis): untitled, clean.
    void reset();
    // Nothing worth saving yet (e.g. the demo just opened): clean, no autosave pending.
    void markUnmodified();

    // Autosave of the current analysis (existing or not).
    QString autosavePath() const;
    static QString untitledAutosavePath();
    void setAutosaveEnabled(bool enabled) { m_autosaveEnabled = enabled; }
    // Writes the autosave now (the debounce timer calls it).
    void autosave();
    void removeAutosave();
    // At start: an untitled autosave left by a crash; asks to restore it. Returns true if restored.
    bool offerRecovery();

signals:
    void pathChanged(const QString &path);
    void modifiedChanged(bool modified);
    void opened(const QString &path);

private:
    void setModified(bool modified);
    void onContentModified();
    void setPath(const QString &path);
    bool load(const QString &file, const QString &projectPath, QString &error);

    AnalysisController *m_analysis;
    CalibrationLabController *m_lab = nullptr;
    QWidget *m_dialogParent;
    bool m_interactive;
    QString m_path;
    bool m_modified = false;
    bool m_restoring = false;
    bool m_autosaveEnabled = true;
    QTimer m_autosaveTimer;
};

#pragma once
// Owns the project's calibration lab: the settings of the last lab, its result (the lab's JSON,
// widgets/calibration_lab_format.h) and the job that runs it off the GUI thread. The main window
// shows the dialog and the page; the project controller saves and restores settings and result
// (paths relative to the project). A run of the lab becomes an analysis setup (in-app
// quantization on the run's calibration files, method and batch) with analysisSetupForRun.

#include <QJsonObject>
#include <QObject>
#include <QString>

#include <set>
#include <string>

#include "analysis_setup.h"
#include "calibration_lab_job.h"
#include "calibration_lab_settings.h"
#include "core/status.h"

class QDir;

class CalibrationLabController : public QObject {
    Q_OBJECT
public:
    explicit CalibrationLabController(QObject *parent = nullptr);

    // Runs a lab with these settings (they become the project's); false while one runs.
    bool start(const ql::ui::CalibrationLabSettings &settings);
    void cancel();
    bool isBusy() const;
    ql::ui::CalibrationLabJob *job() const { return m_job; }

    const ql::ui::CalibrationLabSettings &settings() const { return m_settings; }
    // The last lab's JSON; empty before the first one.
    const QJsonObject &result() const { return m_result; }
    // The engine's lab behind result() while this session ran it (null after a project restore).
    const ql::ui::CalibrationLabPtr &liveLab() const { return m_live; }
    bool isEmpty() const {
        return m_result.isEmpty() && m_settings == ql::ui::CalibrationLabSettings{};
    }

    // The project's "calibration_lab" object: {"settings": ..., "result": ...}, paths relative to
    // `base`; restore() reads it back (an empty object clears).
    QJsonObject toJson(const QDir &base) const;
    void restore(const QJsonObject &object, const QDir &base);
    // Forgets settings and result (a new analysis); a running lab is cancelled.
    void clear();

    // Run `runId` of `lab` as an analysis: the pool files at its calibration indices (in that
    // order), its method, percentile and calibration batch, the lab's other quantizer options
    // (excluded nodes become fp32 layers), the lab's evaluation files, labels, evaluation batch
    // and int8 kernels (`current`'s kernels when the lab does not say). False with a one-line
    // message.
    static bool analysisSetupForRun(const QJsonObject &lab,
                                    const ql::ui::CalibrationLabSettings &settings,
                                    const QString &runId, const AnalysisSetup &current,
                                    AnalysisSetup &setup, std::set<std::string> &fp32Layers,
                                    QString &error);

signals:
    void started();
    void busyChanged(bool busy);
    void progress(const QString &stage, int done, int total, double etaSeconds);
    // A new result (a finished or cancelled lab, or a restored project; empty after clear()).
    void resultChanged(const QJsonObject &lab);
    void finished(const QJsonObject &lab);
    void failed(const QString &message, ql::ErrorKind kind);
    // Anything a project stores changed (dirty flag, autosave).
    void modified();

private:
    // A lab still running no longer belongs here: cancelled, and its result dropped.
    void discardRunning();

    ql::ui::CalibrationLabJob *m_job;
    ql::ui::CalibrationLabSettings m_settings;
    QJsonObject m_result;
    ql::ui::CalibrationLabPtr m_live;
    bool m_discardRunning = false;  // the running lab was replaced (restore, clear)
};

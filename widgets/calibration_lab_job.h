#pragma once
// Runs a calibration lab (analysis/calibration_lab/calibration_lab.h) off the GUI thread: loads the float model,
// lists the pool and evaluation folders, reads the labels, creates the lab (the float passes over
// the pool and the evaluation set) and runs every planned calibration. Progress (stage, done of
// total, an estimate of the time left) is polled from a shared state, as in AnalysisJob, so no
// QObject is touched by the worker. Cancel sets a flag the engine's progress callback reads:
// during the runs the engine stops within about a second and the finished runs arrive with
// complete = false; before them, the job fails with ErrorKind::Cancelled. Destroying the job while
// it runs cancels the worker, which finishes on its own.

#include <QFutureWatcher>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QTimer>

#include <memory>

#include "analysis/calibration_lab/calibration_lab.h"
#include "calibration_lab_settings.h"
#include "core/status.h"

namespace ql::ui {

using CalibrationLabPtr = std::shared_ptr<analysis::CalibrationLab>;

// The engine options of `settings`: folders listed, the labels file read, methods and lists
// parsed. Reads files: call it off the GUI thread. `threads`: the engine's threads (0: all cores).
Result<analysis::CalibrationLabOptions> calibrationLabOptions(
    const CalibrationLabSettings &settings, int threads = 0);

class CalibrationLabJob : public QObject {
    Q_OBJECT
public:
    explicit CalibrationLabJob(QObject *parent = nullptr);
    ~CalibrationLabJob() override;

    // Starts a lab; false (nothing started) while one runs. `threads`: as calibrationLabOptions.
    bool start(const CalibrationLabSettings &settings, int threads = 0);
    void cancel();
    bool isBusy() const { return m_outcome != nullptr; }
    bool isCancelling() const;
    QFutureWatcher<void> *watcher() { return &m_watcher; }

signals:
    void busyChanged(bool busy);
    // stage: translated ("Float model over the pool", ...); etaSeconds < 0: not known yet.
    void progress(const QString &stage, int done, int total, double etaSeconds);
    // The lab as JSON (calibration_lab_format.h) and the live lab, which can quantize any of its
    // runs again. A cancelled lab arrives here too, with "complete": false.
    void finished(const QJsonObject &lab, ql::ui::CalibrationLabPtr live);
    // A bad file or option, or a cancel before the runs; one line.
    void failed(const QString &message, ql::ErrorKind kind);

private:
    struct Shared;
    struct Outcome;

    void onFinished();
    void pollProgress();

    std::shared_ptr<Shared> m_shared;
    std::shared_ptr<Outcome> m_outcome;
    QFutureWatcher<void> m_watcher;
    QTimer m_poll;
};

}  // namespace ql::ui

Q_DECLARE_METATYPE(ql::ui::CalibrationLabPtr)

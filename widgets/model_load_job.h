#pragma once
// Loads an ONNX model off the GUI thread (QtConcurrent::run) and reports back on it through a
// QFutureWatcher. Starting a new load supersedes the running one: its result is dropped. The
// worker touches no QObject, so destroying the job while a load runs is safe.

#include <QByteArray>
#include <QFutureWatcher>
#include <QObject>

#include "core/status.h"
#include "model_snapshot.h"

namespace ql::ui {

struct LoadOutcome {
    SnapshotPtr snapshot;  // null on failure
    QString error;         // the engine's one-line message
    ErrorKind kind = ErrorKind::None;
    double seconds = 0.0;
};

class ModelLoadJob : public QObject {
    Q_OBJECT
public:
    explicit ModelLoadJob(QObject *parent = nullptr);
    ~ModelLoadJob() override;

    void loadFile(const QString &path);
    // bytes: a whole .onnx file already in memory (e.g. from a Qt resource).
    void loadBytes(const QByteArray &bytes, const QString &displayName);

    bool isRunning() const;
    QFutureWatcher<LoadOutcome> *watcher() { return &m_watcher; }

signals:
    void started(const QString &displayName);
    void loaded(ql::ui::SnapshotPtr snapshot, double seconds);
    void failed(const QString &message, ql::ErrorKind kind);

private:
    void start(QFuture<LoadOutcome> future, const QString &displayName);
    void onFinished();

    QFutureWatcher<LoadOutcome> m_watcher;
};

}  // namespace ql::ui

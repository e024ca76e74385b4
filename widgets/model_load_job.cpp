#include "model_load_job.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include "onnx_io/model_loader.h"
#include "worker_pool.h"

namespace ql::ui {

namespace {

LoadOutcome finish(Result<Graph> graph, const QString &displayName, const QElapsedTimer &timer) {
    LoadOutcome outcome;
    if (graph) {
        outcome.snapshot = ModelSnapshot::fromGraph(std::move(graph.value()), displayName);
    } else {
        outcome.error = QString::fromStdString(graph.status().message());
        outcome.kind = graph.status().kind();
    }
    outcome.seconds = timer.elapsed() / 1000.0;
    return outcome;
}

}  // namespace

ModelLoadJob::ModelLoadJob(QObject *parent) : QObject(parent) {
    qRegisterMetaType<ql::ui::SnapshotPtr>();
    connect(&m_watcher, &QFutureWatcher<LoadOutcome>::finished, this, &ModelLoadJob::onFinished);
}

ModelLoadJob::~ModelLoadJob() {
    // The worker owns copies of everything it uses; just stop listening.
    m_watcher.disconnect(this);
}

void ModelLoadJob::loadFile(const QString &path) {
    const QString displayName = QFileInfo(path).fileName();
    const std::string file = QFileInfo(path).absoluteFilePath().toStdString();
    start(runInBackground([file, displayName] {
              QElapsedTimer timer;
              timer.start();
              return finish(loadModel(file), displayName, timer);
          }),
          displayName);
}

void ModelLoadJob::loadBytes(const QByteArray &bytes, const QString &displayName) {
    const std::string name = displayName.toStdString();
    start(runInBackground([bytes, name, displayName] {
              QElapsedTimer timer;
              timer.start();
              return finish(loadModelFromBytes(bytes.toStdString(), name, std::string()),
                            displayName, timer);
          }),
          displayName);
}

bool ModelLoadJob::isRunning() const {
    return m_watcher.isRunning();
}

void ModelLoadJob::start(QFuture<LoadOutcome> future, const QString &displayName) {
    m_watcher.setFuture(future);  // a running load is superseded; its result is never read
    emit started(displayName);
}

void ModelLoadJob::onFinished() {
    const QFuture<LoadOutcome> future = m_watcher.future();
    if (future.isCanceled() || future.resultCount() == 0) return;
    const LoadOutcome outcome = future.result();
    if (outcome.snapshot)
        emit loaded(outcome.snapshot, outcome.seconds);
    else
        emit failed(outcome.error, outcome.kind);
}

}  // namespace ql::ui

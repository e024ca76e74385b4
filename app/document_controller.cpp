#include "document_controller.h"

#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QWidget>

#include "model_load_job.h"

const QString DocumentController::kDemoModel = QStringLiteral(":/demo/fashion_cnn.onnx");
const QString DocumentController::kDemoSamples = QStringLiteral(":/demo/samples.npy");
const QString DocumentController::kDemoLabels = QStringLiteral(":/demo/labels.npy");

namespace {
const char kLastFolderKey[] = "paths/lastModelFolder";
}

DocumentController::DocumentController(QWidget *dialogParent)
    : QObject(dialogParent), m_dialogParent(dialogParent), m_job(new ql::ui::ModelLoadJob(this)) {
    connect(m_job, &ql::ui::ModelLoadJob::started, this, &DocumentController::loadingStarted);
    connect(m_job, &ql::ui::ModelLoadJob::loaded, this,
            [this](const ql::ui::SnapshotPtr &snapshot, double seconds) {
                m_current = snapshot;
                m_currentFile = m_pendingFile;
                emit modelLoaded(snapshot, seconds);
                if (!m_currentFile.isEmpty()) emit fileLoaded(m_currentFile);
            });
    connect(m_job, &ql::ui::ModelLoadJob::failed, this,
            [this](const QString &message, ql::ErrorKind kind) {
                emit loadFailed(m_pendingFile, message, kind);
            });
}

bool DocumentController::isLoading() const {
    return m_job->isRunning();
}

void DocumentController::openFile(const QString &path) {
    m_pendingFile = QFileInfo(path).absoluteFilePath();
    m_job->loadFile(m_pendingFile);
}

void DocumentController::openDemo() {
    m_pendingFile.clear();
    QFile file(kDemoModel);
    if (!file.open(QIODevice::ReadOnly)) {
        // Only a broken build lacks the resource; say so instead of failing silently.
        emit loadFailed({}, tr("The demo model is missing from this build (%1).").arg(kDemoModel),
                        ql::ErrorKind::Internal);
        return;
    }
    m_job->loadBytes(file.readAll(), tr("fashion_cnn.onnx (demo)"));
}

void DocumentController::openWithDialog() {
    QSettings settings;
    QString folder = m_persistent ? settings.value(kLastFolderKey).toString() : QString();
    if (folder.isEmpty() && !m_currentFile.isEmpty())
        folder = QFileInfo(m_currentFile).absolutePath();
    if (folder.isEmpty()) folder = QStandardPaths::writableLocation(QStandardPaths::HomeLocation);
    const QString path = QFileDialog::getOpenFileName(m_dialogParent, tr("Open Model"), folder,
                                                      tr("ONNX models (*.onnx);;All files (*)"));
    if (path.isEmpty()) return;
    if (m_persistent) settings.setValue(kLastFolderKey, QFileInfo(path).absolutePath());
    openFile(path);
}

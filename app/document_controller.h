#pragma once
// Owns "the open model": opening files, the embedded demo and dropped files, the load job that
// runs off the GUI thread, and the snapshot everyone else displays. The main window wires its
// panels to the signals; later controllers (quantized model, calibration data) follow suit.

#include <QObject>
#include <QString>

#include "core/status.h"
#include "model_snapshot.h"

class QWidget;

namespace ql::ui {
class ModelLoadJob;
}

class DocumentController : public QObject {
    Q_OBJECT
public:
    // Qt resource paths of the embedded demo (tests/tools/make_demo.py builds the files).
    static const QString kDemoModel;
    static const QString kDemoSamples;
    static const QString kDemoLabels;

    // dialogParent: parent of the file dialog; the controller shows no other UI.
    explicit DocumentController(QWidget *dialogParent);

    void openFile(const QString &path);
    void openDemo();
    // File > Open Model...: asks for a file, remembering the last folder.
    void openWithDialog();

    const ql::ui::SnapshotPtr &current() const { return m_current; }
    QString currentFile() const { return m_currentFile; }  // empty for the demo
    bool isLoading() const;
    ql::ui::ModelLoadJob *loadJob() const { return m_job; }
    // Whether openWithDialog() remembers the last folder in QSettings.
    void setPersistent(bool persistent) { m_persistent = persistent; }

signals:
    void loadingStarted(const QString &displayName);
    void modelLoaded(const ql::ui::SnapshotPtr &snapshot, double seconds);
    // A model file that loaded; for the recent-files list.
    void fileLoaded(const QString &path);
    // path is empty for the demo.
    void loadFailed(const QString &path, const QString &message, ql::ErrorKind kind);

private:
    QWidget *m_dialogParent;
    ql::ui::ModelLoadJob *m_job;
    ql::ui::SnapshotPtr m_current;
    QString m_currentFile;
    QString m_pendingFile;
    bool m_persistent = true;
};

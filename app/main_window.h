#pragma once
// The main window: menus, the welcome page, and the model page (summary strip, layer table,
// layer details). Features live in controllers (DocumentController, RecentFilesController, and
// later the quantization and analysis ones); this class only lays out and wires them.

#include <QMainWindow>

#include "core/status.h"
#include "model_snapshot.h"

class QLabel;
class QProgressBar;
class QSplitter;
class QStackedWidget;
class DocumentController;
class RecentFilesController;

namespace ql::ui {
class LayerDetailsWidget;
class LayerTablePanel;
class ModelSummaryWidget;
class WelcomePage;
}  // namespace ql::ui

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    struct Options {
        bool persistSettings = true;    // read/write geometry and recent files in QSettings
        bool interactiveErrors = true;  // load errors in a message box (else only the signal)
    };

    explicit MainWindow(const Options &options, QWidget *parent = nullptr);
    explicit MainWindow(QWidget *parent = nullptr) : MainWindow(Options{}, parent) {}
    ~MainWindow() override;

    DocumentController *documents() const { return m_documents; }
    RecentFilesController *recentFiles() const { return m_recent; }
    ql::ui::LayerTablePanel *layerPanel() const { return m_layers; }
    ql::ui::ModelSummaryWidget *summary() const { return m_summary; }
    ql::ui::LayerDetailsWidget *layerDetails() const { return m_details; }

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createMenus();
    void createPages();
    void restoreSettings();
    void saveSettings();
    void onLoadingStarted(const QString &displayName);
    void onModelLoaded(const ql::ui::SnapshotPtr &snapshot, double seconds);
    void onLoadFailed(const QString &path, const QString &message, ql::ErrorKind kind);
    void showAbout();

    Options m_options;
    DocumentController *m_documents;
    RecentFilesController *m_recent = nullptr;
    QStackedWidget *m_pages = nullptr;
    ql::ui::WelcomePage *m_welcome = nullptr;
    QWidget *m_modelPage = nullptr;
    QSplitter *m_splitter = nullptr;
    ql::ui::ModelSummaryWidget *m_summary = nullptr;
    ql::ui::LayerTablePanel *m_layers = nullptr;
    ql::ui::LayerDetailsWidget *m_details = nullptr;
    QLabel *m_status = nullptr;
    QProgressBar *m_busy = nullptr;
};

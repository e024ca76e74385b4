#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QVBoxLayout>

#include "document_controller.h"
#include "layer_details_widget.h"
#include "layer_table_panel.h"
#include "model_summary_widget.h"
#include "recent_files_controller.h"
#include "welcome_page.h"

namespace {
const char kGeometryKey[] = "mainWindow/geometry";
const char kStateKey[] = "mainWindow/state";
const char kSplitterKey[] = "mainWindow/layerSplitter";

bool isOnnxUrl(const QUrl &url) {
    return url.isLocalFile() &&
           url.toLocalFile().endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive);
}
}  // namespace

MainWindow::MainWindow(const Options &options, QWidget *parent)
    : QMainWindow(parent), m_options(options), m_documents(new DocumentController(this)) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("QuantLens"));
    setAcceptDrops(true);
    m_documents->setPersistent(options.persistSettings);
    createPages();
    createMenus();

    m_status = new QLabel(this);
    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0);  // indeterminate: the loader reports no progress
    m_busy->setMaximumWidth(160);
    m_busy->hide();
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_busy);

    connect(m_documents, &DocumentController::loadingStarted, this, &MainWindow::onLoadingStarted);
    connect(m_documents, &DocumentController::modelLoaded, this, &MainWindow::onModelLoaded);
    connect(m_documents, &DocumentController::loadFailed, this, &MainWindow::onLoadFailed);
    connect(m_documents, &DocumentController::fileLoaded, m_recent, &RecentFilesController::add);
    connect(m_recent, &RecentFilesController::openRequested, m_documents,
            &DocumentController::openFile);
    restoreSettings();
}

MainWindow::~MainWindow() = default;

void MainWindow::createPages() {
    m_welcome = new ql::ui::WelcomePage(this);
    connect(m_welcome, &ql::ui::WelcomePage::openModelRequested, this,
            [this] { m_documents->openWithDialog(); });
    connect(m_welcome, &ql::ui::WelcomePage::openDemoRequested, this,
            [this] { m_documents->openDemo(); });

    m_modelPage = new QWidget(this);
    m_summary = new ql::ui::ModelSummaryWidget(m_modelPage);
    m_layers = new ql::ui::LayerTablePanel(m_modelPage);
    m_details = new ql::ui::LayerDetailsWidget(m_modelPage);
    m_splitter = new QSplitter(Qt::Horizontal, m_modelPage);
    m_splitter->addWidget(m_layers);
    m_splitter->addWidget(m_details);
    m_splitter->setStretchFactor(0, 2);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setSizes({640, 320});
    m_splitter->setChildrenCollapsible(false);
    auto *layout = new QVBoxLayout(m_modelPage);
    layout->addWidget(m_summary);
    layout->addWidget(m_splitter, 1);
    connect(m_layers, &ql::ui::LayerTablePanel::currentLayerChanged, m_details,
            &ql::ui::LayerDetailsWidget::showLayer);

    m_pages = new QStackedWidget(this);
    m_pages->addWidget(m_welcome);
    m_pages->addWidget(m_modelPage);
    setCentralWidget(m_pages);
}

void MainWindow::createMenus() {
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *open =
        file->addAction(tr("&Open Model…"), m_documents, &DocumentController::openWithDialog);
    open->setShortcut(QKeySequence::Open);
    open->setObjectName(QStringLiteral("actionOpenModel"));
    QMenu *recentMenu = file->addMenu(tr("Open &Recent"));
    m_recent = new RecentFilesController(recentMenu, m_options.persistSettings, this);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    QAction *find =
        edit->addAction(tr("&Find Layer"), m_layers, &ql::ui::LayerTablePanel::focusFilter);
    find->setShortcut(QKeySequence::Find);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *demo = help->addAction(tr("Open &Demo"), m_documents, &DocumentController::openDemo);
    demo->setObjectName(QStringLiteral("actionOpenDemo"));
    demo->setStatusTip(tr("A small BatchNorm CNN trained on Fashion-MNIST, with 64 test images"));
    help->addSeparator();
    help->addAction(tr("&About QuantLens"), this, &MainWindow::showAbout)
        ->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)
        ->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::restoreSettings() {
    const QSettings settings;
    const bool restored =
        m_options.persistSettings && restoreGeometry(settings.value(kGeometryKey).toByteArray());
    if (!restored) {
        const QSize wanted(1200, 760);
        const QRect screen =
            this->screen() ? this->screen()->availableGeometry() : QRect(0, 0, 1200, 760);
        resize(wanted.boundedTo(screen.size() * 0.9));
    }
    if (m_options.persistSettings) {
        restoreState(settings.value(kStateKey).toByteArray());
        m_splitter->restoreState(settings.value(kSplitterKey).toByteArray());
    }
}

void MainWindow::saveSettings() {
    if (!m_options.persistSettings) return;
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    settings.setValue(kSplitterKey, m_splitter->saveState());
}

void MainWindow::closeEvent(QCloseEvent *event) {
    saveSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() == 1 && isOnnxUrl(urls.first())) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.size() != 1 || !isOnnxUrl(urls.first())) return;
    event->acceptProposedAction();
    m_documents->openFile(urls.first().toLocalFile());
}

void MainWindow::onLoadingStarted(const QString &displayName) {
    m_status->setText(tr("Loading %1…").arg(displayName));
    m_busy->show();
}

void MainWindow::onModelLoaded(const ql::ui::SnapshotPtr &snapshot, double seconds) {
    m_busy->hide();
    m_summary->setSnapshot(snapshot);
    m_layers->setSnapshot(snapshot);
    m_details->setSnapshot(snapshot);
    m_pages->setCurrentWidget(m_modelPage);
    m_layers->selectLayer(0);  // the details panel shows something useful straight away
    setWindowTitle(tr("%1 — QuantLens").arg(snapshot->displayName));
    QString status =
        tr("Loaded %1 in %2 s").arg(snapshot->displayName, QLocale().toString(seconds, 'f', 2));
    if (!snapshot->warnings.isEmpty())
        status += QStringLiteral(" — ") + tr("loader warnings: %1").arg(snapshot->warnings.size());
    m_status->setText(status);
}

void MainWindow::onLoadFailed(const QString &path, const QString &message, ql::ErrorKind) {
    m_busy->hide();
    m_status->setText(tr("Could not open the model"));
    if (!path.isEmpty() && !QFileInfo::exists(path)) m_recent->remove(path);
    if (m_options.interactiveErrors) QMessageBox::warning(this, tr("Cannot Open Model"), message);
}

void MainWindow::showAbout() {
    QMessageBox::about(
        this, tr("About QuantLens"),
        tr("<h3>QuantLens %1</h3>"
           "<p>Find out why an int8-quantized neural network lost accuracy, and fix it: "
           "per-layer weight and activation SQNR, layers back to fp32, calibration choices side "
           "by side.</p>"
           "<p>Built with Qt %2, oneDNN and ONNX.</p>")
            .arg(QApplication::applicationVersion(), QString::fromLatin1(qVersion())));
}

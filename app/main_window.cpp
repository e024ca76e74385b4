#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGraphicsView>
#include <QLabel>
#include <QLocale>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QScreen>
#include <QSettings>
#include <QShortcut>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include "analysis_controller.h"
#include "analysis_job.h"
#include "analysis_panel.h"
#include "analysis_setup_dialog.h"
#include "analysis_table_model.h"
#include "diagnosis_list.h"
#include "document_controller.h"
#include "graph_view.h"
#include "image_dataset.h"
#include "layer_choices_bar.h"
#include "layer_details_widget.h"
#include "layer_inspector.h"
#include "layer_table_panel.h"
#include "model_summary_widget.h"
#include "project_controller.h"
#include "recent_files_controller.h"
#include "report_export.h"
#include "sample_view_bar.h"
#include "save_file.h"
#include "sqnr_chart.h"
#include "welcome_page.h"

namespace {
const char kGeometryKey[] = "mainWindow/geometry";
const char kStateKey[] = "mainWindow/state";
const char kSplitterKey[] = "mainWindow/layerSplitter";
const char kAnalysisSplitterKey[] = "mainWindow/analysisSplitter";
const char kInspectorSplitterKey[] = "mainWindow/inspectorSplitter";
const char kSideSplitterKey[] = "mainWindow/sideSplitter";

// Evaluation data rather than a model or project: tensors, images, or a folder of either.
bool isDataPath(const QString &path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("npy") || suffix == QLatin1String("pb") ||
           ql::ui::isImageFile(path.toStdString()) || QFileInfo(path).isDir();
}

bool isAcceptedUrl(const QUrl &url) {
    if (!url.isLocalFile()) return false;
    const QString suffix = QFileInfo(url.toLocalFile()).suffix().toLower();
    return suffix == QLatin1String("onnx") || suffix == QLatin1String("qlproj") ||
           suffix == QLatin1String("html") || suffix == QLatin1String("htm") ||
           isDataPath(url.toLocalFile());
}

// Whether an ONNX file holds quantized nodes, from the op type strings near its start (nodes come
// before initializers in a serialized GraphProto): quick enough for a drop, without loading it.
bool looksQuantized(const QString &path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return false;
    const QByteArray head = file.read(4 << 20);
    return head.contains("DequantizeLinear") || head.contains("QLinear") ||
           head.contains("ConvInteger") || head.contains("MatMulInteger");
}
}  // namespace

MainWindow::MainWindow(const Options &options, QWidget *parent)
    : QMainWindow(parent),
      m_options(options),
      m_documents(new DocumentController(this)),
      m_analysis(new AnalysisController(this)),
      m_project(new ProjectController(m_analysis, this, options.interactiveErrors)) {
    setObjectName(QStringLiteral("mainWindow"));
    setAcceptDrops(true);
    m_documents->setPersistent(options.persistSettings);
    m_project->setAutosaveEnabled(options.autosave);
    createPages();
    createActions();
    createCalibrationLab();
    createFp32Search();
    createReportExport();
    createMenus();
    createStatusBar();

    connect(m_documents, &DocumentController::loadingStarted, this, &MainWindow::onLoadingStarted);
    connect(m_documents, &DocumentController::modelLoaded, this, &MainWindow::onModelLoaded);
    connect(m_documents, &DocumentController::loadFailed, this, &MainWindow::onLoadFailed);
    connect(m_documents, &DocumentController::fileLoaded, m_recent, &RecentFilesController::add);
    connect(m_recent, &RecentFilesController::openRequested, this,
            [this](const QString &path) { openPath(path); });
    connect(m_project, &ProjectController::opened, m_recent, &RecentFilesController::add);
    connect(m_project, &ProjectController::pathChanged, this, &MainWindow::updateTitle);
    connect(m_project, &ProjectController::modifiedChanged, this, &MainWindow::updateTitle);
    connectAnalysis();
    restoreSettings();
    updateTitle();
    updateActions();
}

MainWindow::~MainWindow() = default;

void MainWindow::createPages() {
    m_welcome = new ql::ui::WelcomePage(this);
    connect(m_welcome, &ql::ui::WelcomePage::newAnalysisRequested, this,
            [this] { showAnalysisSetup(0); });
    connect(m_welcome, &ql::ui::WelcomePage::openModelRequested, this,
            &MainWindow::openFloatWithDialog);
    connect(m_welcome, &ql::ui::WelcomePage::openDemoRequested, this, &MainWindow::openDemo);

    m_modelPage = new QWidget(this);
    m_modelPage->setObjectName(QStringLiteral("modelPage"));
    m_summary = new ql::ui::ModelSummaryWidget(m_modelPage);
    m_layers = new ql::ui::LayerTablePanel(m_modelPage);
    m_details = new ql::ui::LayerDetailsWidget(m_modelPage);
    m_modelGraph = new ql::ui::GraphView(m_modelPage);
    m_modelGraph->setObjectName(QStringLiteral("modelGraphView"));
    m_modelViews = new QStackedWidget(m_modelPage);
    m_modelViews->addWidget(m_layers);
    m_modelViews->addWidget(m_modelGraph);
    m_splitter = new QSplitter(Qt::Horizontal, m_modelPage);
    m_splitter->addWidget(m_modelViews);
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
    connect(m_layers, &ql::ui::LayerTablePanel::currentLayerChanged, m_modelGraph,
            &ql::ui::GraphView::selectLayer);
    connect(m_modelGraph, &ql::ui::GraphView::currentLayerChanged, m_layers,
            &ql::ui::LayerTablePanel::selectLayer);

    m_analysisPanel = new ql::ui::AnalysisPanel(this);
    m_analysisPanel->setObjectName(QStringLiteral("analysisPanel"));
    m_inspector = new ql::ui::LayerInspector(this);
    m_inspector->setObjectName(QStringLiteral("layerInspector"));
    // Explicit minimums: the pages' size hints would otherwise make the whole window wide.
    m_inspector->setMinimumSize(240, 200);
    m_analysisPanel->setMinimumSize(360, 300);
    m_diagnosis = new ql::ui::DiagnosisList(this);
    m_diagnosis->setObjectName(QStringLiteral("diagnosisList"));
    m_diagnosis->setMinimumSize(240, 60);
    m_sideSplitter = new QSplitter(Qt::Vertical, this);
    m_sideSplitter->setObjectName(QStringLiteral("sideSplitter"));
    m_sideSplitter->addWidget(m_diagnosis);
    m_sideSplitter->addWidget(m_inspector);
    m_sideSplitter->setStretchFactor(0, 1);
    m_sideSplitter->setStretchFactor(1, 4);
    m_sideSplitter->setSizes({150, 650});
    m_analysisSplitter = new QSplitter(Qt::Horizontal, this);
    m_analysisSplitter->setObjectName(QStringLiteral("analysisPage"));
    m_analysisSplitter->addWidget(createSamplesPane(m_analysisPanel));
    m_analysisSplitter->addWidget(m_sideSplitter);
    m_analysisSplitter->setStretchFactor(0, 2);
    m_analysisSplitter->setStretchFactor(1, 1);
    m_analysisSplitter->setSizes({1150, 650});
    m_analysisSplitter->setChildrenCollapsible(true);
    // Space on the selected layer (table or chart) toggles it, like the checkbox.
    for (QWidget *target : {static_cast<QWidget *>(m_analysisPanel->tableView()),
                            static_cast<QWidget *>(m_analysisPanel->chart()),
                            static_cast<QWidget *>(m_analysisPanel->graphView()->canvas())}) {
        auto *space = new QShortcut(QKeySequence(Qt::Key_Space), target, nullptr, nullptr,
                                    Qt::WidgetWithChildrenShortcut);
        connect(space, &QShortcut::activated, this, &MainWindow::toggleCurrentLayer);
    }

    m_pages = new QStackedWidget(this);
    m_pages->addWidget(m_welcome);
    m_pages->addWidget(m_modelPage);
    m_pages->addWidget(m_analysisSplitter);
    setCentralWidget(m_pages);
}

void MainWindow::createStatusBar() {
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("statusText"));
    m_busy = new QProgressBar(this);
    m_busy->setObjectName(QStringLiteral("analysisProgress"));
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(200);
    m_busy->setTextVisible(false);
    m_busy->hide();
    m_cancel = new QToolButton(this);
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    m_cancel->setText(tr("Cancel"));
    m_cancel->setAutoRaise(true);
    m_cancel->hide();
    connect(m_cancel, &QToolButton::clicked, m_analysis, &AnalysisController::cancel);
    connect(m_cancel, &QToolButton::clicked, m_reportExport, &ql::ui::ReportExport::cancel);
    statusBar()->addWidget(m_status, 1);
    statusBar()->addPermanentWidget(m_busy);
    statusBar()->addPermanentWidget(m_cancel);
}

void MainWindow::connectAnalysis() {
    connect(m_analysis, &AnalysisController::analysisStarted, this, [this] {
        m_lastOperationFailed = false;
        m_status->setText(tr("Analysing…"));
        updateActions();
    });
    connect(m_analysis, &AnalysisController::reportReady, this, &MainWindow::onReportReady);
    connect(m_analysis, &AnalysisController::latencyReady, this,
            [this](double, double) { showLatency(); });
    connect(m_analysis, &AnalysisController::failed, this, &MainWindow::onAnalysisFailed);
    connect(m_analysis, &AnalysisController::busyChanged, this, [this](bool busy) {
        m_busy->setVisible(busy || m_loadingModel);
        m_cancel->setVisible(busy);
        if (!busy && m_analysis->report() && !m_lastOperationFailed)
            m_status->setText(m_sampleView ? tr("Showing sample #%1 alone").arg(m_sampleView->index)
                                           : tr("Ready"));
        updateActions();
    });
    connect(m_analysis, &AnalysisController::progress, this,
            [this](const QString &stage, int done, int total) {
                m_busy->setRange(0, total > 0 ? total : 0);
                if (total > 0) m_busy->setValue(done);
                m_status->setText(total > 0 ? tr("%1: %2 of %3").arg(stage).arg(done).arg(total)
                                            : stage + QStringLiteral("…"));
            });
    connect(m_analysis, &AnalysisController::exported, this, [this](const QString &path) {
        m_status->setText(tr("Wrote %1").arg(QDir::toNativeSeparators(path)));
    });
    connect(m_analysis, &AnalysisController::setupChanged, this, [this] {
        updateTitle();
        const QString missing = m_analysis->setup().missingText();
        if (!missing.isEmpty() && !m_analysis->setup().floatModel.isEmpty())
            m_status->setText(missing);
        updateActions();
    });
    connect(m_analysis, &AnalysisController::fp32LayersChanged, this, &MainWindow::updateActions);
    // Per-layer choices: the layer menus (chart, table, graph) and the inspector's boxes.
    const auto showChoices = [this] {
        const bool inApp = m_analysis->setup().quantizeInApp;
        m_analysisPanel->setLayerRemedies(m_analysis->layerRemedies(), inApp);
        m_diagnosis->setRemediesAvailable(inApp);
        m_inspector->choicesBar()->setChoices(m_analysis->fp32Layers(), m_analysis->layerRemedies(),
                                              inApp);
    };
    connect(m_analysis, &AnalysisController::fp32LayersChanged, this, showChoices);
    connect(m_analysis, &AnalysisController::setupChanged, this, showChoices);
    const auto toggleRemedy = [this](int layer, ql::analysis::LayerRemedy remedy, bool on) {
        const ql::ui::ReportPtr report = m_analysis->report();
        if (report && layer >= 0 && layer < int(report->layers.size()))
            m_analysis->setLayerRemedy(report->layers[size_t(layer)].name, remedy, on);
    };
    connect(m_analysisPanel, &ql::ui::AnalysisPanel::remedyToggled, this, toggleRemedy);
    connect(m_diagnosis, &ql::ui::DiagnosisList::remedyRequested, this,
            [toggleRemedy](int layer, ql::analysis::LayerRemedy remedy) {
                toggleRemedy(layer, remedy, true);
            });
    connect(m_diagnosis, &ql::ui::DiagnosisList::quantizerSettingsRequested, this,
            [this] { showAnalysisSetup(1); });
    connect(m_inspector->choicesBar(), &ql::ui::LayerChoicesBar::remedyToggled, this, toggleRemedy);
    connect(m_inspector->choicesBar(), &ql::ui::LayerChoicesBar::fp32Toggled, this,
            [this](int layer, bool fp32) { m_analysis->setLayerFp32(layer, fp32); });
    connect(m_analysis, &AnalysisController::thresholdChanged, m_analysisPanel,
            &ql::ui::AnalysisPanel::setThresholdDb);
    connect(m_analysisPanel, &ql::ui::AnalysisPanel::thresholdChanged, m_analysis,
            &AnalysisController::setThresholdDb);
    connect(m_analysisPanel, &ql::ui::AnalysisPanel::precisionToggled, this,
            [this](int layer, bool fp32) { m_analysis->setLayerFp32(layer, fp32); });
    connect(m_analysisPanel, &ql::ui::AnalysisPanel::currentLayerChanged, this,
            &MainWindow::updateActions);
    connect(m_analysisPanel, &ql::ui::AnalysisPanel::currentLayerChanged, m_inspector,
            &ql::ui::LayerInspector::setLayer);
    connect(m_diagnosis, &ql::ui::DiagnosisList::layerActivated, m_analysisPanel,
            &ql::ui::AnalysisPanel::selectLayer);
    connect(m_diagnosis, &ql::ui::DiagnosisList::findingsChanged, this,
            [this] { m_analysisPanel->graphView()->setFindings(m_diagnosis->findings()); });
    connect(m_analysis, &AnalysisController::thresholdChanged, m_diagnosis,
            &ql::ui::DiagnosisList::setThresholdDb);
}

QString MainWindow::statusText() const {
    return m_status->text();
}

QString MainWindow::demoFolder() {
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation))
        .filePath(QStringLiteral("demo"));
}

void MainWindow::openDemo() {
    if (!m_project->maybeSave()) return;
    // The analysis reads files: the embedded demo is copied out once (and refreshed if it changed).
    const QDir folder(demoFolder());
    QDir().mkpath(folder.path());
    QStringList names{QStringLiteral("fashion_cnn.onnx"), QStringLiteral("fashion_cnn_int8.onnx"),
                      QStringLiteral("samples.npy"), QStringLiteral("labels.npy")};
    // The calibration lab's pool (pool/ beside the model), when the build embeds it.
    for (const QString &name : QDir(QStringLiteral(":/demo/pool")).entryList(QDir::Files)) {
        QDir().mkpath(folder.filePath(QStringLiteral("pool")));
        names.append(QStringLiteral("pool/") + name);
    }
    for (const QString &name : names) {
        QFile resource(QStringLiteral(":/demo/") + name);
        const QString target = folder.filePath(name);
        if (!resource.open(QIODevice::ReadOnly)) {
            showError(tr("Cannot Open Demo"),
                      tr("The demo is missing from this build (%1).").arg(name));
            return;
        }
        const QByteArray bytes = resource.readAll();
        QFile existing(target);
        if (existing.open(QIODevice::ReadOnly) && existing.readAll() == bytes) continue;
        existing.close();
        if (const ql::Status saved = ql::ui::saveFile(target, bytes); !saved) {
            showError(tr("Cannot Open Demo"), QString::fromStdString(saved.message()));
            return;
        }
    }
    AnalysisSetup setup;
    setup.floatModel = folder.filePath(names[0]);
    setup.quantModel = folder.filePath(names[1]);
    setup.dataPaths = QStringList{folder.filePath(names[2])};
    setup.labelsPath = folder.filePath(names[3]);
    m_project->reset();
    m_documents->openDemo();
    m_analysis->setSetup(setup);
    m_project->markUnmodified();  // the demo as shipped: nothing to save until the user changes it
}

void MainWindow::openPath(const QString &path, bool asDrop) {
    const QFileInfo info(path);
    const QString suffix = info.suffix().toLower();
    // A project, or an HTML report carrying one.
    if (suffix == ProjectController::kSuffix || suffix == QLatin1String("html") ||
        suffix == QLatin1String("htm")) {
        if (!m_project->maybeSave()) return;
        QString error;
        if (!m_project->open(path, error)) {
            if (!info.exists()) m_recent->remove(path);
            showError(tr("Cannot Open Project"), error);
            return;
        }
        const QString floatModel = m_analysis->setup().floatModel;
        if (!floatModel.isEmpty()) m_documents->openFile(floatModel);
        return;
    }
    if (isDataPath(path)) {
        setEvaluationData({info.absoluteFilePath()});
        return;
    }
    if (asDrop && !m_analysis->setup().floatModel.isEmpty() && looksQuantized(path)) {
        m_analysis->setQuantModel(path);
        m_status->setText(tr("Quantized model: %1").arg(info.fileName()));
        return;
    }
    // A new float model starts a new analysis: the old one's unsaved changes first.
    if (!m_project->maybeSave()) return;
    m_project->reset();
    m_documents->openFile(path);
    m_analysis->setFloatModel(path);
}

bool MainWindow::recoverAutosave() {
    if (!m_project->offerRecovery()) return false;
    if (!m_analysis->setup().floatModel.isEmpty())
        m_documents->openFile(m_analysis->setup().floatModel);
    return true;
}

void MainWindow::restoreSettings() {
    const QSettings settings;
    const bool restored =
        m_options.persistSettings && restoreGeometry(settings.value(kGeometryKey).toByteArray());
    if (!restored) {
        const QSize wanted(1280, 800);
        const QRect screen =
            this->screen() ? this->screen()->availableGeometry() : QRect(0, 0, 1280, 800);
        resize(wanted.boundedTo(screen.size() * 0.9));
    }
    if (m_options.persistSettings) {
        restoreState(settings.value(kStateKey).toByteArray());
        m_splitter->restoreState(settings.value(kSplitterKey).toByteArray());
        m_analysisPanel->splitter()->restoreState(
            settings.value(kAnalysisSplitterKey).toByteArray());
        m_analysisSplitter->restoreState(settings.value(kInspectorSplitterKey).toByteArray());
        m_sideSplitter->restoreState(settings.value(kSideSplitterKey).toByteArray());
    }
}

void MainWindow::saveSettings() {
    if (!m_options.persistSettings) return;
    QSettings settings;
    settings.setValue(kGeometryKey, saveGeometry());
    settings.setValue(kStateKey, saveState());
    settings.setValue(kSplitterKey, m_splitter->saveState());
    settings.setValue(kAnalysisSplitterKey, m_analysisPanel->splitter()->saveState());
    settings.setValue(kInspectorSplitterKey, m_analysisSplitter->saveState());
    settings.setValue(kSideSplitterKey, m_sideSplitter->saveState());
}

void MainWindow::closeEvent(QCloseEvent *event) {
    if (!m_project->maybeSave()) {
        event->ignore();
        return;
    }
    m_analysis->cancel();
    m_project->removeAutosave();  // a normal close: nothing to recover
    saveSettings();
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (!urls.isEmpty() && std::all_of(urls.begin(), urls.end(), isAcceptedUrl))
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !std::all_of(urls.begin(), urls.end(), isAcceptedUrl)) return;
    event->acceptProposedAction();
    QStringList data;
    for (const QUrl &url : urls) {
        const QString path = url.toLocalFile();
        if (isDataPath(path))
            data.append(QFileInfo(path).absoluteFilePath());
        else
            openPath(path, true);
    }
    if (!data.isEmpty()) setEvaluationData(data);
}

void MainWindow::setEvaluationData(const QStringList &paths) {
    std::vector<std::string> files;
    for (const QString &path : paths) files.push_back(path.toStdString());
    // Images are labelled by their class folders (or a labels file chosen for them): the labels
    // of earlier tensor data do not carry over.
    const bool images = ql::ui::pathsHoldImages(files);
    m_analysis->setEvaluationFiles(paths, images ? QString() : m_analysis->setup().labelsPath);
}

void MainWindow::onLoadingStarted(const QString &displayName) {
    m_loadingModel = true;
    m_status->setText(tr("Loading %1…").arg(displayName));
    m_busy->show();
}

void MainWindow::onModelLoaded(const ql::ui::SnapshotPtr &snapshot, double seconds) {
    m_loadingModel = false;
    m_busy->setVisible(m_analysis->isBusy());
    m_summary->setSnapshot(snapshot);
    m_layers->setSnapshot(snapshot);
    m_details->setSnapshot(snapshot);
    m_modelGraph->setGraph(snapshot->sharedGraph());
    if (m_pages->currentWidget() != m_analysisSplitter) m_pages->setCurrentWidget(m_modelPage);
    m_layers->selectLayer(0);  // the details panel shows something useful straight away
    updateTitle();
    updateActions();
    // The analysis' progress, error or result says more than the load.
    if (m_analysis->isBusy() || m_lastOperationFailed || m_analysis->report()) return;
    QString status =
        tr("Loaded %1 in %2 s").arg(snapshot->displayName, QLocale().toString(seconds, 'f', 2));
    if (!snapshot->warnings.isEmpty())
        status += QStringLiteral(" — ") + tr("loader warnings: %1").arg(snapshot->warnings.size());
    const QString missing = m_analysis->setup().missingText();
    if (!missing.isEmpty()) status += QStringLiteral(" — ") + missing;
    m_status->setText(status);
}

void MainWindow::onLoadFailed(const QString &path, const QString &message, ql::ErrorKind) {
    m_loadingModel = false;
    m_busy->setVisible(m_analysis->isBusy());
    m_status->setText(tr("Could not open the model: %1").arg(message));
    if (!path.isEmpty() && !QFileInfo::exists(path)) m_recent->remove(path);
    if (m_options.interactiveErrors) QMessageBox::warning(this, tr("Cannot Open Model"), message);
}

void MainWindow::showLatency() {
    const auto latency = m_analysis->latency();
    ql::ui::LatencyConditions how;
    how.threads = m_analysis->threads();
    // The batch the plans ran: the first evaluation batch's (a fixed-batch model sets its own).
    const auto &batch = m_analysis->job()->models().batch;
    if (batch && !batch->empty() && batch->begin()->second.rank() > 0)
        how.batch = batch->begin()->second.dim(0);
    m_analysisPanel->setLatency(latency ? std::optional<double>(latency->first) : std::nullopt,
                                latency ? std::optional<double>(latency->second) : std::nullopt,
                                how);
}

void MainWindow::onReportReady(const ql::ui::ReportPtr &report) {
    m_lastOperationFailed = false;
    const int layer = m_analysisPanel->currentLayer();
    const ql::ui::AnalysisModelsSnapshot &models = m_analysis->job()->models();
    m_sampleView.reset();
    setInspectorContext(report, models.batch);
    m_diagnosisFloatGraph = models.floatGraph;  // the list keeps a plain pointer to it
    m_analysisPanel->setFloatGraph(models.floatGraph);
    ql::analysis::DiagnosisOptions diagnosis;
    diagnosis.sqnrThresholdDb = m_analysis->thresholdDb();
    diagnosis.weightsRoundedToNearest = !models.adaRounded;
    m_diagnosis->setReport(report, m_diagnosisFloatGraph.get(), diagnosis);
    m_analysisPanel->setReport(report);
    if (m_analysisPanel->thresholdDb() != m_analysis->thresholdDb())
        m_analysisPanel->setThresholdDb(m_analysis->thresholdDb());
    showLatency();
    m_analysisPanel->selectLayer(layer >= 0 && layer < int(report->layers.size()) ? layer : 0);
    showWorstSamples();
    m_pages->setCurrentWidget(m_analysisSplitter);
    updateTitle();
    updateActions();
}

void MainWindow::setInspectorContext(
    const ql::ui::ReportPtr &report,
    std::shared_ptr<const std::map<std::string, ql::Tensor>> batch) {
    const ql::ui::AnalysisModelsSnapshot &models = m_analysis->job()->models();
    ql::ui::InspectorContext context;
    context.floatGraph = models.floatGraph;
    context.quantGraph = models.quantGraph;
    context.batch = std::move(batch);
    context.report = report;
    context.matches = models.matches;
    ql::parseInt8Kernels(m_analysis->setup().int8Kernels.toStdString(),
                         context.options.capture.int8Kernels);
    context.options.capture.threads = 1;  // the engine's worker has the other cores
    m_inspector->setContext(std::move(context));
}

void MainWindow::onAnalysisFailed(const QString &message, ql::ErrorKind kind) {
    const ql::ui::ReportPtr report = m_analysis->report();
    if (report && m_analysisPanel->report() == report) {
        // The table's checkboxes show the refused wish: back to what runs.
        const int layer = m_analysisPanel->currentLayer();
        m_analysisPanel->setReport(report);
        m_analysisPanel->selectLayer(layer);
    }
    m_lastOperationFailed = true;
    if (!m_sampleView) m_sampleBar->hide();  // a sample's own analysis that did not come
    m_status->setText(message);
    if (kind != ql::ErrorKind::Cancelled) showError(tr("Analysis Failed"), message);
}

void MainWindow::showError(const QString &title, const QString &message) {
    m_status->setText(message);
    emit errorShown(message);
    if (m_options.interactiveErrors) QMessageBox::warning(this, title, message);
}

void MainWindow::updateTitle() {
    QString name;
    if (!m_project->path().isEmpty())
        name = QFileInfo(m_project->path()).fileName();
    else if (m_documents->current())
        name = m_documents->current()->displayName;
    else if (!m_analysis->setup().floatModel.isEmpty())
        name = QFileInfo(m_analysis->setup().floatModel).fileName();
    if (name.isEmpty()) {
        setWindowTitle(tr("QuantLens"));
        return;
    }
    setWindowTitle(tr("%1[*] — QuantLens").arg(name));
    setWindowModified(m_project->isModified());
}

void MainWindow::updateActions() {
    const bool hasReport = m_analysis->report() != nullptr;
    const bool busy = m_analysis->isBusy();
    const bool hasSetup = !m_analysis->setup().floatModel.isEmpty();
    m_toggleLayer->setEnabled(
        hasReport && m_analysisPanel->tableModel()->isToggleable(m_analysisPanel->currentLayer()));
    m_resetInt8->setEnabled(hasReport && (!m_analysis->fp32Layers().empty() ||
                                          !m_analysis->sixteenBitLayers().empty()));
    m_keepWorst->setEnabled(hasReport);
    m_findFp32Set->setEnabled(hasReport);
    m_exportSkipList->setEnabled(hasReport);
    m_exportJson->setEnabled(hasReport);
    m_exportCsv->setEnabled(hasReport);
    m_exportModel->setEnabled(hasReport);
    m_exportReport->setEnabled(hasReport && !m_reportExport->isBusy());
    m_saveProject->setEnabled(hasSetup);
    m_saveProjectAs->setEnabled(hasSetup);
    m_rerun->setEnabled(m_analysis->setup().isComplete());
    m_cancelAction->setEnabled(busy);
    m_showAnalysis->setEnabled(hasReport);
    m_showGraph->setEnabled(hasReport || m_documents->current());
}

void MainWindow::showGraph() {
    if (m_analysis->report()) {
        m_analysisPanel->setView(ql::ui::AnalysisPanel::View::Graph);
        m_pages->setCurrentWidget(m_analysisSplitter);
        m_analysisPanel->graphView()->canvas()->setFocus();
    } else if (m_documents->current()) {
        m_modelViews->setCurrentWidget(m_modelGraph);
        m_pages->setCurrentWidget(m_modelPage);
        m_modelGraph->canvas()->setFocus();
    }
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

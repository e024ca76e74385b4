#pragma once
// The main window: menus, toolbar, the welcome page, the model page (summary strip, layer table,
// layer details), the analysis page (headline, SQNR chart, analysis table) and the calibration
// lab page. Features live in controllers (DocumentController: the model on view;
// AnalysisController: the analysis, toggles, exports; ProjectController: .qlproj files and
// autosave; CalibrationLabController: the lab and its job; RecentFilesController); this class
// only lays out and wires them, and owns the status bar (progress with Cancel).

#include <QMainWindow>

#include <memory>
#include <optional>

#include "analysis_job.h"
#include "analysis_report.h"
#include "core/status.h"
#include "ir/graph.h"
#include "model_snapshot.h"

class QAction;
class QLabel;
class QProgressBar;
class QSplitter;
class QStackedWidget;
class QToolButton;
class AnalysisController;
class CalibrationLabController;
class DocumentController;
class ProjectController;
class RecentFilesController;

namespace ql::ui {
class AnalysisPanel;
class CalibrationLabView;
class Fp32SearchDialog;
class HelpBrowser;
class LayerDetailsWidget;
class LayerInspector;
class DiagnosisList;
class GraphView;
class ReportExport;
class LayerTablePanel;
class ModelSummaryWidget;
class WelcomePage;
class WorstSampleStrip;
class SampleViewBar;
}  // namespace ql::ui

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    struct Options {
        bool persistSettings = true;    // read/write geometry and recent files in QSettings
        bool interactiveErrors = true;  // errors in a message box, prompts (else only the signal)
        bool autosave = true;           // autosave the analysis (project or untitled)
    };

    explicit MainWindow(const Options &options, QWidget *parent = nullptr);
    explicit MainWindow(QWidget *parent = nullptr) : MainWindow(Options{}, parent) {}
    ~MainWindow() override;

    DocumentController *documents() const { return m_documents; }
    AnalysisController *analysis() const { return m_analysis; }
    ProjectController *project() const { return m_project; }
    RecentFilesController *recentFiles() const { return m_recent; }
    CalibrationLabController *calibrationLab() const { return m_lab; }
    ql::ui::CalibrationLabView *calibrationLabView() const { return m_labView; }
    ql::ui::LayerTablePanel *layerPanel() const { return m_layers; }
    // The model page's graph (a float model alone; the analysis has its own in its panel).
    ql::ui::GraphView *modelGraph() const { return m_modelGraph; }
    // View > Graph: the analysis' graph when there is a report, else the model page's.
    void showGraph();
    ql::ui::ModelSummaryWidget *summary() const { return m_summary; }
    ql::ui::LayerDetailsWidget *layerDetails() const { return m_details; }
    ql::ui::AnalysisPanel *analysisPanel() const { return m_analysisPanel; }
    ql::ui::LayerInspector *inspector() const { return m_inspector; }
    ql::ui::DiagnosisList *diagnosis() const { return m_diagnosis; }
    ql::ui::WorstSampleStrip *worstSamples() const { return m_worstStrip; }
    ql::ui::SampleViewBar *sampleViewBar() const { return m_sampleBar; }
    // The sample whose own figures the analysis shows (a strip tile was clicked); nullopt: all.
    std::optional<int64_t> shownSample() const;
    // Runs the analysis of evaluation sample `index` alone and shows it (a strip tile's click).
    void showSample(int64_t index);
    // Edit > Find fp32 Set…'s dialog (null before its first use).
    ql::ui::Fp32SearchDialog *searchDialog() const { return m_searchDialog; }
    // Help > User Guide (F1): the guide at the section of the view that has focus.
    ql::ui::HelpBrowser *showHelp();
    QProgressBar *progressBar() const { return m_busy; }
    QString statusText() const;

    // Opens the embedded demo: the float model, its int8 pair, samples and labels; runs the
    // analysis.
    void openDemo();
    // A model file: the float side, or (dropped while a float model is open) the quantized side
    // when it holds Q/DQ or QLinear nodes. A .qlproj opens as a project.
    void openPath(const QString &path, bool asDrop = false);
    // At start: an untitled analysis autosaved before a crash is offered back (and re-run).
    bool recoverAutosave();
    // The folder the demo files are extracted to (the analysis reads files).
    static QString demoFolder();
    // File > Export Report…: HTML or PDF by the extension; asks for the path when none is given.
    void exportReport(const QString &path = QString());
    ql::ui::ReportExport *reportExport() const { return m_reportExport; }
    // Opens a run of the calibration lab as the analysis (the lab page's double-click).
    void openCalibrationRun(const QString &runId);

signals:
    // An error the user is told of (a message box when interactive, the status bar always).
    void errorShown(const QString &message);

protected:
    void closeEvent(QCloseEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createActions();
    void createMenus();
    void createPages();
    void createStatusBar();
    void createCalibrationLab();  // main_window_calibration_lab.cpp
    void showCalibrationLabDialog();
    void createFp32Search();  // main_window_search.cpp
    void showFp32SearchDialog();
    void createReportExport();  // main_window_report.cpp
    // main_window_samples.cpp: the worst-samples strip under the analysis, and one sample's view.
    QWidget *createSamplesPane(QWidget *analysis);
    void showWorstSamples();
    void onSampleViewReady(const ql::ui::SampleViewPtr &view);
    void showAllSamples();
    // Chart, table, graph and inspector on `report` (the whole analysis or one sample's), the
    // selected layer kept.
    void showInPanel(const ql::ui::ReportPtr &report,
                     std::shared_ptr<const std::map<std::string, ql::Tensor>> batch);
    void connectAnalysis();
    void restoreSettings();
    void saveSettings();
    void onLoadingStarted(const QString &displayName);
    void onModelLoaded(const ql::ui::SnapshotPtr &snapshot, double seconds);
    void onLoadFailed(const QString &path, const QString &message, ql::ErrorKind kind);
    void onReportReady(const ql::ui::ReportPtr &report);
    // Dropped or opened data (tensors, images, folders) becomes the evaluation inputs.
    void setEvaluationData(const QStringList &paths);
    // The inspector on `report`, its histograms from `batch` (the first batch, or one sample's).
    void setInspectorContext(const ql::ui::ReportPtr &report,
                             std::shared_ptr<const std::map<std::string, ql::Tensor>> batch);
    void showLatency();  // the headline's latency, with the batch and threads it was timed with
    void onAnalysisFailed(const QString &message, ql::ErrorKind kind);
    void showError(const QString &title, const QString &message);
    void showAnalysisSetup(int focus);
    void openQuantizedWithDialog();
    void openFloatWithDialog();
    void toggleCurrentLayer();
    void keepWorstDialog();
    void exportSkipList();
    void exportAnalysis(bool csv);
    void exportQuantizedModel();
    void updateTitle();
    void updateActions();
    void showAbout();
    QString askSavePath(const QString &title, const QString &suggestedName, const QString &filter,
                        QString *selectedFilter = nullptr);

    Options m_options;
    DocumentController *m_documents;
    AnalysisController *m_analysis;
    ProjectController *m_project;
    RecentFilesController *m_recent = nullptr;
    CalibrationLabController *m_lab = nullptr;
    ql::ui::CalibrationLabView *m_labView = nullptr;
    QStackedWidget *m_pages = nullptr;
    ql::ui::WelcomePage *m_welcome = nullptr;
    QWidget *m_modelPage = nullptr;
    QSplitter *m_splitter = nullptr;
    ql::ui::ModelSummaryWidget *m_summary = nullptr;
    ql::ui::LayerTablePanel *m_layers = nullptr;
    ql::ui::GraphView *m_modelGraph = nullptr;
    QStackedWidget *m_modelViews = nullptr;  // the layer table or the graph
    ql::ui::LayerDetailsWidget *m_details = nullptr;
    ql::ui::AnalysisPanel *m_analysisPanel = nullptr;
    ql::ui::LayerInspector *m_inspector = nullptr;
    ql::ui::DiagnosisList *m_diagnosis = nullptr;
    ql::ui::WorstSampleStrip *m_worstStrip = nullptr;
    ql::ui::SampleViewBar *m_sampleBar = nullptr;
    ql::ui::SampleViewPtr m_sampleView;   // shown instead of the whole report; null: all samples
    QSplitter *m_sideSplitter = nullptr;  // diagnosis over inspector
    std::shared_ptr<const ql::Graph> m_diagnosisFloatGraph;
    QSplitter *m_analysisSplitter = nullptr;  // panel | inspector
    QLabel *m_status = nullptr;
    QProgressBar *m_busy = nullptr;
    QToolButton *m_cancel = nullptr;
    bool m_loadingModel = false;
    bool m_lastOperationFailed = false;  // keeps the error in the status bar
    QString m_demoTitle;

    QAction *m_newAnalysis = nullptr, *m_openFloat = nullptr, *m_openQuant = nullptr,
            *m_quantizeInApp = nullptr;
    QAction *m_evaluationData = nullptr, *m_openProject = nullptr, *m_saveProject = nullptr,
            *m_saveProjectAs = nullptr;
    QAction *m_exportSkipList = nullptr, *m_exportJson = nullptr, *m_exportCsv = nullptr,
            *m_exportModel = nullptr;
    QAction *m_undo = nullptr, *m_redo = nullptr, *m_toggleLayer = nullptr, *m_resetInt8 = nullptr;
    QAction *m_keepWorst = nullptr, *m_rerun = nullptr, *m_cancelAction = nullptr;
    QAction *m_showModel = nullptr, *m_showAnalysis = nullptr, *m_showGraph = nullptr,
            *m_demo = nullptr;
    QAction *m_calibrationLab = nullptr, *m_showCalibrationLab = nullptr;
    QAction *m_findFp32Set = nullptr;
    ql::ui::Fp32SearchDialog *m_searchDialog = nullptr;  // made on first use
    ql::ui::HelpBrowser *m_help = nullptr;               // made on first use
    QAction *m_exportReport = nullptr;
    ql::ui::ReportExport *m_reportExport = nullptr;
};

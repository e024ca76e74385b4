// The main window's actions (with their shortcuts), menus and toolbar.
#include <QAction>
#include <QApplication>
#include <QMenuBar>
#include <QToolBar>
#include <QUndoStack>

#include "analysis_controller.h"
#include "analysis_panel.h"
#include "document_controller.h"
#include "help_browser.h"
#include "layer_table_panel.h"
#include "main_window.h"
#include "project_controller.h"
#include "recent_files_controller.h"

#include <QLineEdit>
#include <QSplitter>
#include <QStackedWidget>

void MainWindow::createActions() {
    auto make = [this](const QString &text, const char *name, const QKeySequence &shortcut = {}) {
        auto *action = new QAction(text, this);
        action->setObjectName(QString::fromLatin1(name));
        if (!shortcut.isEmpty()) action->setShortcut(shortcut);
        return action;
    };
    m_newAnalysis = make(tr("&New Analysis…"), "actionNewAnalysis", QKeySequence::New);
    m_newAnalysis->setStatusTip(
        tr("Choose the float model, the quantized side and the evaluation inputs"));
    connect(m_newAnalysis, &QAction::triggered, this, [this] { showAnalysisSetup(0); });
    m_openFloat = make(tr("&Open Float Model…"), "actionOpenModel", QKeySequence::Open);
    connect(m_openFloat, &QAction::triggered, this, &MainWindow::openFloatWithDialog);
    m_openQuant = make(tr("Open &Quantized Model…"), "actionOpenQuantModel",
                       QKeySequence(tr("Ctrl+Shift+O")));
    connect(m_openQuant, &QAction::triggered, this, &MainWindow::openQuantizedWithDialog);
    m_quantizeInApp =
        make(tr("Quantize in &App…"), "actionQuantizeInApp", QKeySequence(tr("Ctrl+Shift+Q")));
    connect(m_quantizeInApp, &QAction::triggered, this, [this] { showAnalysisSetup(1); });
    m_evaluationData =
        make(tr("&Evaluation Data…"), "actionEvaluationData", QKeySequence(tr("Ctrl+E")));
    connect(m_evaluationData, &QAction::triggered, this, [this] { showAnalysisSetup(2); });
    m_openProject =
        make(tr("Open &Project…"), "actionOpenProject", QKeySequence(tr("Ctrl+Shift+P")));
    connect(m_openProject, &QAction::triggered, m_project, &ProjectController::openInteractive);
    m_saveProject = make(tr("&Save Project"), "actionSaveProject", QKeySequence::Save);
    connect(m_saveProject, &QAction::triggered, m_project, &ProjectController::saveInteractive);
    m_saveProjectAs = make(tr("Save Project &As…"), "actionSaveProjectAs", QKeySequence::SaveAs);
    connect(m_saveProjectAs, &QAction::triggered, m_project, &ProjectController::saveAsInteractive);
    m_exportSkipList =
        make(tr("&Skip-List…"), "actionExportSkipList", QKeySequence(tr("Ctrl+Shift+E")));
    m_exportSkipList->setStatusTip(
        tr("The fp32 layers for QuantLens, ONNX Runtime, NNCF, PyTorch, Neural Compressor or "
           "TensorRT"));
    connect(m_exportSkipList, &QAction::triggered, this, &MainWindow::exportSkipList);
    m_exportJson = make(tr("Analysis as &JSON…"), "actionExportJson");
    connect(m_exportJson, &QAction::triggered, this, [this] { exportAnalysis(false); });
    m_exportCsv = make(tr("Analysis as &CSV…"), "actionExportCsv");
    connect(m_exportCsv, &QAction::triggered, this, [this] { exportAnalysis(true); });
    m_exportModel = make(tr("Re-quantized &Model (ONNX)…"), "actionExportModel");
    connect(m_exportModel, &QAction::triggered, this, &MainWindow::exportQuantizedModel);

    m_undo = m_analysis->undoStack()->createUndoAction(this, tr("&Undo"));
    m_undo->setObjectName(QStringLiteral("actionUndo"));
    m_undo->setShortcut(QKeySequence::Undo);
    m_redo = m_analysis->undoStack()->createRedoAction(this, tr("&Redo"));
    m_redo->setObjectName(QStringLiteral("actionRedo"));
    m_redo->setShortcuts({QKeySequence(tr("Ctrl+Shift+Z")), QKeySequence(tr("Ctrl+Y"))});
    m_toggleLayer =
        make(tr("Toggle &fp32 for the Selected Layer"), "actionToggleLayer", QKeySequence(tr("F")));
    connect(m_toggleLayer, &QAction::triggered, this, &MainWindow::toggleCurrentLayer);
    m_resetInt8 = make(tr("&Reset to All int8"), "actionResetInt8", QKeySequence(tr("Ctrl+R")));
    connect(m_resetInt8, &QAction::triggered, m_analysis, &AnalysisController::resetToInt8);
    m_keepWorst =
        make(tr("Keep the N &Worst in fp32…"), "actionKeepWorst", QKeySequence(tr("Ctrl+K")));
    m_keepWorst->setStatusTip(tr("Move the layers with the lowest isolated SQNR to fp32"));
    connect(m_keepWorst, &QAction::triggered, this, &MainWindow::keepWorstDialog);
    m_rerun = make(tr("&Run Analysis Again"), "actionRerun", QKeySequence::Refresh);
    connect(m_rerun, &QAction::triggered, m_analysis, &AnalysisController::rerun);
    m_cancelAction = make(tr("&Cancel"), "actionCancel", QKeySequence(tr("Ctrl+.")));
    connect(m_cancelAction, &QAction::triggered, m_analysis, &AnalysisController::cancel);
    m_showModel = make(tr("&Model"), "actionShowModel", QKeySequence(tr("Ctrl+1")));
    connect(m_showModel, &QAction::triggered, this, [this] {
        if (!m_documents->current()) return;
        m_modelViews->setCurrentWidget(m_layers);
        m_pages->setCurrentWidget(m_modelPage);
    });
    m_showAnalysis = make(tr("&Analysis Chart"), "actionShowAnalysis", QKeySequence(tr("Ctrl+2")));
    connect(m_showAnalysis, &QAction::triggered, this, [this] {
        if (!m_analysis->report()) return;
        m_analysisPanel->setView(ql::ui::AnalysisPanel::View::Chart);
        m_pages->setCurrentWidget(m_analysisSplitter);
    });
    m_showGraph = make(tr("&Graph"), "actionShowGraph", QKeySequence(tr("Ctrl+3")));
    m_showGraph->setStatusTip(
        tr("The model as a laid-out graph, boxes filled by SQNR; click a group to open it"));
    connect(m_showGraph, &QAction::triggered, this, &MainWindow::showGraph);
    m_demo = make(tr("Open &Demo"), "actionOpenDemo");
    m_demo->setStatusTip(
        tr("A small BatchNorm CNN trained on Fashion-MNIST, its int8 pair and 64 test images"));
    connect(m_demo, &QAction::triggered, this, &MainWindow::openDemo);
}

void MainWindow::createMenus() {
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_newAnalysis);
    file->addAction(m_openFloat);
    file->addAction(m_openQuant);
    file->addAction(m_quantizeInApp);
    file->addAction(m_evaluationData);
    QMenu *recentMenu = file->addMenu(tr("Open &Recent"));
    m_recent = new RecentFilesController(recentMenu, m_options.persistSettings, this);
    file->addSeparator();
    file->addAction(m_openProject);
    file->addAction(m_saveProject);
    file->addAction(m_saveProjectAs);
    file->addSeparator();
    file->addAction(m_exportReport);
    QMenu *exportMenu = file->addMenu(tr("E&xport"));
    exportMenu->addAction(m_exportSkipList);
    exportMenu->addAction(m_exportJson);
    exportMenu->addAction(m_exportCsv);
    exportMenu->addAction(m_exportModel);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    edit->addAction(m_undo);
    edit->addAction(m_redo);
    edit->addSeparator();
    edit->addAction(m_toggleLayer);
    edit->addAction(m_resetInt8);
    edit->addAction(m_keepWorst);
    edit->addAction(m_findFp32Set);
    edit->addSeparator();
    QAction *find = edit->addAction(tr("&Find Layer"), this, [this] {
        if (m_pages->currentWidget() == m_analysisSplitter)
            m_analysisPanel->filterEdit()->setFocus();
        else
            m_layers->focusFilter();
    });
    find->setShortcut(QKeySequence(tr("Ctrl+Shift+F")));  // Ctrl+F: Find fp32 Set

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_showModel);
    view->addAction(m_showAnalysis);
    view->addAction(m_showGraph);
    view->addAction(m_showCalibrationLab);
    QMenu *analysisMenu = menuBar()->addMenu(tr("&Analysis"));
    analysisMenu->addAction(m_rerun);
    analysisMenu->addAction(m_cancelAction);
    analysisMenu->addSeparator();
    analysisMenu->addAction(m_calibrationLab);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    QAction *guide = help->addAction(tr("&User Guide"), this, [this] { showHelp(); });
    guide->setObjectName(QStringLiteral("actionUserGuide"));
    guide->setShortcut(QKeySequence::HelpContents);
    guide->setShortcutContext(Qt::ApplicationShortcut);  // F1 in the dialogs too
    guide->setStatusTip(tr("The guide, offline, at the section of the view that has focus"));
    help->addAction(m_demo);
    help->addSeparator();
    help->addAction(tr("&About QuantLens"), this, &MainWindow::showAbout)
        ->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt)
        ->setMenuRole(QAction::AboutQtRole);

    QToolBar *tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->setToolButtonStyle(Qt::ToolButtonTextOnly);
    tools->setMovable(false);
    for (QAction *action : {m_newAnalysis, m_openFloat, m_openQuant, m_evaluationData})
        tools->addAction(action);
    tools->addSeparator();
    for (QAction *action : {m_undo, m_redo, m_resetInt8, m_keepWorst, m_findFp32Set})
        tools->addAction(action);
    tools->addSeparator();
    tools->addAction(m_exportSkipList);
}

ql::ui::HelpBrowser *MainWindow::showHelp() {
    // The topic of the widget that has focus, before the guide takes it.
    const ql::ui::HelpTopic topic = ql::ui::helpTopicFor(QApplication::focusWidget());
    if (!m_help) m_help = new ql::ui::HelpBrowser(this);
    m_help->showTopic(topic.chapter, topic.phrase);
    m_help->show();
    m_help->raise();
    m_help->activateWindow();
    return m_help;
}

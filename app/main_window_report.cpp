// The main window's reports: File > Export Report… writes the current analysis as a
// self-contained HTML report or a PDF (by the extension chosen), prepared off the GUI thread with
// the status bar's progress and Cancel (report_export.h).
#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>

#include "analysis_controller.h"
#include "analysis_job.h"
#include "main_window.h"
#include "project_controller.h"
#include "report_export.h"

void MainWindow::createReportExport() {
    m_reportExport = new ql::ui::ReportExport(this);
    m_exportReport = new QAction(tr("Export &Report…"), this);
    m_exportReport->setObjectName(QStringLiteral("actionExportReport"));
    m_exportReport->setShortcut(QKeySequence(tr("Ctrl+Shift+R")));
    m_exportReport->setStatusTip(
        tr("The analysis as one HTML file (which reopens it) or as a PDF, for a reviewer"));
    connect(m_exportReport, &QAction::triggered, this, [this] { exportReport(); });
    connect(m_reportExport, &ql::ui::ReportExport::busyChanged, this, [this](bool busy) {
        if (busy) {
            m_busy->setRange(0, 0);
            m_status->setText(tr("Writing the report…"));
        }
        m_busy->setVisible(busy || m_analysis->isBusy() || m_loadingModel);
        m_cancel->setVisible(busy || m_analysis->isBusy());
        updateActions();
    });
    connect(m_reportExport, &ql::ui::ReportExport::written, this, [this](const QString &path) {
        m_status->setText(tr("Wrote %1").arg(QDir::toNativeSeparators(path)));
    });
    connect(m_reportExport, &ql::ui::ReportExport::failed, this,
            [this](const QString &message) { showError(tr("Cannot Export"), message); });
}

void MainWindow::exportReport(const QString &chosenPath) {
    const ql::ui::ReportPtr report = m_analysis->report();
    const ql::ui::AnalysisModelsSnapshot &models = m_analysis->job()->models();
    if (!report || !models.floatGraph || m_reportExport->isBusy()) return;
    const AnalysisSetup &setup = m_analysis->setup();
    QString path = chosenPath;
    if (path.isEmpty()) {
        const QString html = tr("HTML report (*.html)"), pdf = tr("PDF report (*.pdf)");
        QString selected;
        path = askSavePath(
            tr("Export Report"),
            QFileInfo(setup.floatModel).completeBaseName() + QStringLiteral("_report.html"),
            html + QStringLiteral(";;") + pdf, &selected);
        if (path.isEmpty()) return;
        if (QFileInfo(path).suffix().isEmpty())
            path += selected == pdf ? QStringLiteral(".pdf") : QStringLiteral(".html");
    }
    ql::ui::ReportInput input;
    input.report = report;
    input.models = setup.analysisModels();
    input.data = setup.dataText(models.dataReading);
    input.latencyMs = m_analysis->latency();
    input.latencySamples = int(report->samples);
    input.floatGraph = models.floatGraph;
    input.quantGraph = models.quantGraph;
    input.batch = models.batch;
    input.worstSamples = models.worst;
    input.fp32Layers = m_analysis->fp32Layers();
    input.skipList = m_analysis->skipListJson();
    input.thresholdDb = m_analysis->thresholdDb();
    input.howMade =
        tr("the QuantLens window (File > Export Report…); the setup is the one this "
           "report carries");
    input.project = ProjectController::projectJson(setup, input.fp32Layers, input.thresholdDb,
                                                   QFileInfo(path).absoluteDir(),
                                                   m_analysis->layerRemediesToSave());
    m_reportExport->start(std::move(input), path);
}

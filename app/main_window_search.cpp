// The main window's fp32 search: Edit > Find fp32 Set… (Ctrl+F) opens the non-modal search
// dialog on the current analysis; its answer, or a point of its Pareto front, becomes the fp32
// layers in one undoable step.
#include <QAction>
#include <QLabel>

#include <cmath>

#include "analysis_controller.h"
#include "analysis_job.h"
#include "fp32_search_dialog.h"
#include "main_window.h"

namespace {

// Evaluation batches of the analysis (a holdout needs two): samples over the batch the session
// runs at (a fixed-batch model's own).
int evaluationBatches(const AnalysisController &analysis) {
    const ql::ui::ReportPtr report = analysis.report();
    const auto &batch = analysis.job()->models().batch;
    if (!report || !batch || batch->empty() || batch->begin()->second.rank() == 0) return 0;
    const int64_t perBatch = std::max<int64_t>(batch->begin()->second.dim(0), 1);
    return int((report->samples + perBatch - 1) / perBatch);
}

}  // namespace

void MainWindow::createFp32Search() {
    m_findFp32Set = new QAction(tr("Find fp32 &Set…"), this);
    m_findFp32Set->setObjectName(QStringLiteral("actionFindFp32Set"));
    m_findFp32Set->setShortcut(QKeySequence(tr("Ctrl+F")));
    m_findFp32Set->setStatusTip(
        tr("The fewest layers (or the fastest plan) to keep in fp32 for a target, every "
           "candidate set measured"));
    connect(m_findFp32Set, &QAction::triggered, this, &MainWindow::showFp32SearchDialog);
}

void MainWindow::showFp32SearchDialog() {
    const ql::ui::ReportPtr report = m_analysis->report();
    if (!report) return;
    if (!m_searchDialog) {
        m_searchDialog = new ql::ui::Fp32SearchDialog(this);
        auto *dialog = m_searchDialog;
        connect(dialog, &ql::ui::Fp32SearchDialog::searchRequested, m_analysis,
                &AnalysisController::findFp32Set);
        connect(dialog, &ql::ui::Fp32SearchDialog::cancelRequested, m_analysis,
                &AnalysisController::cancel);
        connect(dialog, &ql::ui::Fp32SearchDialog::applyRequested, this,
                [this, dialog](ql::analysis::SearchPrecision precision,
                               const std::set<std::string> &layers, const QString &description) {
                    m_analysis->applySearchSet(precision, layers, description);
                    dialog->showApplied(precision, int(layers.size()));
                });
        connect(m_analysis, &AnalysisController::searchProgress, dialog,
                &ql::ui::Fp32SearchDialog::showProgress);
        connect(m_analysis, &AnalysisController::searchReady, dialog,
                &ql::ui::Fp32SearchDialog::showOutcome);
        connect(m_analysis, &AnalysisController::searchFailed, dialog,
                [this, dialog](const QString &message, ql::ErrorKind kind) {
                    dialog->showFailure(message, kind == ql::ErrorKind::Cancelled);
                    m_status->setText(kind == ql::ErrorKind::Cancelled
                                          ? tr("fp32 search cancelled")
                                          : tr("fp32 search failed: %1").arg(message));
                });
    }
    const auto &outputs = report->outputs;
    m_searchDialog->setAnalysis(!outputs.empty() && outputs.front().floatAccuracy.has_value(),
                                evaluationBatches(*m_analysis), m_analysis->setup().quantizeInApp);
    m_searchDialog->show();
    m_searchDialog->raise();
    m_searchDialog->activateWindow();
}

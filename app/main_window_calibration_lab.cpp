// The main window's calibration lab: Analysis > Calibration Lab… (the dialog, then the job with
// its progress and Cancel on the lab's page), View > Calibration Lab, and a run of the lab opened
// as the analysis.
#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QJsonObject>
#include <QLabel>
#include <QStackedWidget>

#include "analysis_controller.h"
#include "calibration_lab_controller.h"
#include "calibration_lab_dialog.h"
#include "calibration_lab_view.h"
#include "document_controller.h"
#include "main_window.h"
#include "project_controller.h"

namespace {

// The dialog starts from the last lab; for another model than the last lab's, from the
// analysis' model and data, and a folder named "pool" beside the model (the demo's) as the pool
// when the analysis has no calibration inputs.
ql::ui::CalibrationLabSettings dialogSettings(const ql::ui::CalibrationLabSettings &last,
                                              const AnalysisSetup &setup) {
    ql::ui::CalibrationLabSettings s = last;
    if (setup.floatModel.isEmpty() || setup.floatModel == last.floatModel) return s;
    s.floatModel = setup.floatModel;
    s.poolPaths = setup.quantizeInApp ? setup.calibrationPaths : QStringList();
    const QString besideModel = QFileInfo(setup.floatModel).dir().filePath(QStringLiteral("pool"));
    if (s.poolPaths.isEmpty() && QFileInfo(besideModel).isDir()) s.poolPaths = {besideModel};
    s.evaluationPaths = setup.randomInputs ? QStringList() : setup.dataPaths;
    s.labelsPath = setup.randomInputs ? QString() : setup.labelsPath;
    if (setup.quantizeInApp) {
        s.perTensor = setup.quantizer.perTensor;
        s.symmetricActivations = setup.quantizer.symmetricActivations;
        s.reduceRange = setup.quantizer.reduceRange;
        s.foldBatchNorm = setup.quantizer.foldBatchNorm;
    }
    return s;
}

}  // namespace

void MainWindow::createCalibrationLab() {
    m_lab = new CalibrationLabController(this);
    m_project->setCalibrationLab(m_lab);
    m_labView = new ql::ui::CalibrationLabView(this);
    m_labView->setObjectName(QStringLiteral("calibrationLabPage"));
    m_pages->addWidget(m_labView);

    m_calibrationLab = new QAction(tr("Calibration &Lab…"), this);
    m_calibrationLab->setObjectName(QStringLiteral("actionCalibrationLab"));
    m_calibrationLab->setShortcut(QKeySequence(tr("Ctrl+L")));
    m_calibrationLab->setStatusTip(
        tr("Compare calibration methods, sizes and repeats, with the statistics that tell a "
           "real difference from noise"));
    connect(m_calibrationLab, &QAction::triggered, this, &MainWindow::showCalibrationLabDialog);
    m_showCalibrationLab = new QAction(tr("&Calibration Lab"), this);
    m_showCalibrationLab->setObjectName(QStringLiteral("actionShowCalibrationLab"));
    m_showCalibrationLab->setShortcut(QKeySequence(tr("Ctrl+4")));
    connect(m_showCalibrationLab, &QAction::triggered, this,
            [this] { m_pages->setCurrentWidget(m_labView); });
    auto updateLabActions = [this] {
        m_calibrationLab->setEnabled(!m_lab->isBusy());
        m_showCalibrationLab->setEnabled(m_lab->isBusy() || !m_lab->result().isEmpty());
    };
    updateLabActions();

    connect(m_lab, &CalibrationLabController::started, this, [this] {
        m_labView->setRunning(true);
        m_pages->setCurrentWidget(m_labView);
    });
    connect(m_lab, &CalibrationLabController::busyChanged, this,
            [this, updateLabActions](bool busy) {
                m_labView->setRunning(busy);
                updateLabActions();
            });
    connect(m_lab, &CalibrationLabController::progress, m_labView,
            &ql::ui::CalibrationLabView::setProgress);
    connect(m_lab, &CalibrationLabController::resultChanged, this,
            [this, updateLabActions](const QJsonObject &lab) {
                m_labView->setLab(lab);
                updateLabActions();
            });
    // After resultChanged: the page holds the new lab.
    connect(m_lab, &CalibrationLabController::finished, this, [this] {
        const ql::ui::CalibrationLabData &data = *m_labView->labData();
        const int runs = int(data.runs.size());
        m_status->setText(data.complete ? tr("Calibration lab: %n run(s)", nullptr, runs)
                                        : tr("Calibration lab cancelled: %n finished run(s) kept",
                                             nullptr, runs));
    });
    connect(m_lab, &CalibrationLabController::failed, this,
            [this](const QString &message, ql::ErrorKind kind) {
                if (kind == ql::ErrorKind::Cancelled)
                    m_status->setText(tr("Calibration lab cancelled"));
                else
                    showError(tr("Calibration Lab Failed"), message);
            });
    connect(m_labView, &ql::ui::CalibrationLabView::cancelRequested, m_lab,
            &CalibrationLabController::cancel);
    connect(m_labView, &ql::ui::CalibrationLabView::runActivated, this,
            &MainWindow::openCalibrationRun);
}

void MainWindow::showCalibrationLabDialog() {
    if (m_lab->isBusy()) return;
    ql::ui::CalibrationLabDialog dialog(dialogSettings(m_lab->settings(), m_analysis->setup()),
                                        this);
    if (dialog.exec() != QDialog::Accepted) return;
    m_lab->start(dialog.settings());
}

void MainWindow::openCalibrationRun(const QString &runId) {
    AnalysisSetup setup;
    std::set<std::string> fp32;
    QString error;
    if (!CalibrationLabController::analysisSetupForRun(m_lab->result(), m_lab->settings(), runId,
                                                       m_analysis->setup(), setup, fp32, error))
        return showError(tr("Cannot Open the Run"), error);
    if (setup.floatModel != m_documents->currentFile()) m_documents->openFile(setup.floatModel);
    m_analysis->setSetup(setup, fp32);
    m_status->setText(tr("Analysing calibration run %1…").arg(runId));
}

// The main window's commands that ask the user something first: open and export file dialogs,
// the analysis setup dialog and "keep the N worst".
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QSettings>

#include "analysis_controller.h"
#include "analysis_panel.h"
#include "analysis_setup_dialog.h"
#include "document_controller.h"
#include "main_window.h"
#include "project_controller.h"

namespace {
const char kLastFolderKey[] = "paths/lastExportFolder";
const char kWorstCountKey[] = "analysis/keepWorstCount";
}  // namespace

void MainWindow::openFloatWithDialog() {
    QSettings settings;
    QString folder = QFileInfo(m_analysis->setup().floatModel).absolutePath();
    if (m_analysis->setup().floatModel.isEmpty())
        folder = m_options.persistSettings ? settings.value("paths/lastModelFolder").toString()
                                           : QString();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Float Model"), folder,
        tr("ONNX models (*.onnx);;QuantLens projects (*.qlproj);;All files (*)"));
    if (path.isEmpty()) return;
    if (m_options.persistSettings)
        settings.setValue("paths/lastModelFolder", QFileInfo(path).absolutePath());
    openPath(path);
}

void MainWindow::openQuantizedWithDialog() {
    const QString folder = QFileInfo(m_analysis->setup().floatModel).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Quantized Model"), folder,
                                                      tr("ONNX models (*.onnx);;All files (*)"));
    if (!path.isEmpty()) m_analysis->setQuantModel(path);
}

void MainWindow::showAnalysisSetup(int focus) {
    AnalysisSetupDialog dialog(m_analysis->setup(), static_cast<AnalysisSetupDialog::Focus>(focus),
                               this);
    if (dialog.exec() != QDialog::Accepted) return;
    const AnalysisSetup setup = dialog.setup();
    const bool newFloat = setup.floatModel != m_analysis->setup().floatModel;
    if (newFloat) {
        if (!m_project->maybeSave()) return;
        m_project->reset();
        m_documents->openFile(setup.floatModel);
    }
    // The per-layer remedies stay while the setup's remedies do; a changed choice (AdaRound or
    // bias correction newly on or off) applies to every layer afresh.
    const bool sameRemedies = setup.quantizer.remedies == m_analysis->setup().quantizer.remedies;
    if (newFloat)
        m_analysis->setSetup(setup);
    else
        m_analysis->setSetup(setup, m_analysis->fp32Layers(),
                             sameRemedies ? m_analysis->layerRemediesToSave() : std::nullopt);
}

void MainWindow::toggleCurrentLayer() {
    const int layer = m_analysisPanel->currentLayer();
    const ql::ui::ReportPtr report = m_analysis->report();
    if (!report || layer < 0 || layer >= int(report->layers.size())) return;
    const std::string &name = report->layers[size_t(layer)].name;
    const bool nowFp32 = m_analysis->fp32Layers().count(name) != 0;
    m_analysis->setLayerFp32(name, !nowFp32);
}

void MainWindow::keepWorstDialog() {
    QSettings settings;
    const int previous = m_options.persistSettings ? settings.value(kWorstCountKey, 3).toInt() : 3;
    bool ok = false;
    const int n = QInputDialog::getInt(this, tr("Keep the Worst Layers in fp32"),
                                       tr("Number of layers (lowest isolated SQNR first):"),
                                       previous, 1, 1000, 1, &ok);
    if (!ok) return;
    if (m_options.persistSettings) settings.setValue(kWorstCountKey, n);
    const int added = m_analysis->keepWorstInFp32(n);
    m_status->setText(tr("%n layer(s) moved to fp32", nullptr, added));
}

QString MainWindow::askSavePath(const QString &title, const QString &suggestedName,
                                const QString &filter, QString *selectedFilter) {
    QSettings settings;
    QString folder =
        m_options.persistSettings ? settings.value(kLastFolderKey).toString() : QString();
    if (folder.isEmpty())
        folder = QFileInfo(m_project->path().isEmpty() ? m_analysis->setup().floatModel
                                                       : m_project->path())
                     .absolutePath();
    const QString path = QFileDialog::getSaveFileName(
        this, title, QDir(folder).filePath(suggestedName), filter, selectedFilter);
    if (!path.isEmpty() && m_options.persistSettings)
        settings.setValue(kLastFolderKey, QFileInfo(path).absolutePath());
    return path;
}

namespace {

// The skip-list dialects as the save dialog offers them: filter and suggested file name suffix.
struct DialectChoice {
    ql::analysis::SkipListDialect dialect;
    const char *filter;
    const char *suffix;
};
const DialectChoice kDialectChoices[] = {
    {ql::analysis::SkipListDialect::QuantLens,
     QT_TRANSLATE_NOOP("MainWindow", "QuantLens skip-list (*.json)"), "_skip_list.json"},
    {ql::analysis::SkipListDialect::Ort,
     QT_TRANSLATE_NOOP("MainWindow", "ONNX Runtime quantize_static nodes_to_exclude (*.py)"),
     "_ort_nodes_to_exclude.py"},
    {ql::analysis::SkipListDialect::Nncf,
     QT_TRANSLATE_NOOP("MainWindow", "NNCF IgnoredScope (*.py)"), "_nncf_ignored_scope.py"},
    {ql::analysis::SkipListDialect::PyTorch,
     QT_TRANSLATE_NOOP("MainWindow", "PyTorch QConfigMapping (*.py)"), "_qconfig_mapping.py"},
    {ql::analysis::SkipListDialect::Inc,
     QT_TRANSLATE_NOOP("MainWindow", "Intel Neural Compressor op_name_dict (*.py)"),
     "_inc_op_name_dict.py"},
    {ql::analysis::SkipListDialect::Trt,
     QT_TRANSLATE_NOOP("MainWindow", "TensorRT trtexec options (*.txt)"), "_trtexec.txt"},
};
constexpr char kSkipListDialectKey[] = "export/skipListDialect";

}  // namespace

void MainWindow::exportSkipList() {
    QSettings settings;
    const QString last =
        m_options.persistSettings ? settings.value(kSkipListDialectKey).toString() : QString();
    QStringList filters;
    const DialectChoice *choice = &kDialectChoices[0];
    for (const DialectChoice &c : kDialectChoices) {
        filters << tr(c.filter);
        if (last == QLatin1String(ql::analysis::skipListDialectName(c.dialect))) choice = &c;
    }
    QString selected = tr(choice->filter);
    const QString base = QFileInfo(m_analysis->setup().floatModel).completeBaseName();
    const QString path = askSavePath(tr("Export Skip-List"), base + QLatin1String(choice->suffix),
                                     filters.join(QStringLiteral(";;")), &selected);
    if (path.isEmpty()) return;
    for (const DialectChoice &c : kDialectChoices)
        if (selected == tr(c.filter)) choice = &c;
    if (m_options.persistSettings)
        settings.setValue(kSkipListDialectKey,
                          QLatin1String(ql::analysis::skipListDialectName(choice->dialect)));
    QString error;
    if (!m_analysis->exportSkipList(path, choice->dialect, error))
        return showError(tr("Cannot Export"), error);
    m_status->setText(tr("Wrote %1").arg(QDir::toNativeSeparators(path)));
}

void MainWindow::exportAnalysis(bool csv) {
    const QString base =
        QFileInfo(m_analysis->setup().floatModel).completeBaseName() + QStringLiteral("_analysis");
    const QString path =
        csv ? askSavePath(tr("Export Analysis"), base + QStringLiteral(".csv"), tr("CSV (*.csv)"))
            : askSavePath(tr("Export Analysis"), base + QStringLiteral(".json"),
                          tr("JSON (*.json)"));
    if (path.isEmpty()) return;
    QString error;
    const bool ok = csv ? m_analysis->exportAnalysisCsv(path, error)
                        : m_analysis->exportAnalysisJson(path, error);
    if (!ok) return showError(tr("Cannot Export"), error);
    m_status->setText(tr("Wrote %1").arg(QDir::toNativeSeparators(path)));
}

void MainWindow::exportQuantizedModel() {
    const QString base =
        QFileInfo(m_analysis->setup().floatModel).completeBaseName() + QStringLiteral("_int8.onnx");
    const QString path =
        askSavePath(tr("Export Re-quantized Model"), base, tr("ONNX models (*.onnx)"));
    if (!path.isEmpty()) m_analysis->exportQuantizedModel(path);
}

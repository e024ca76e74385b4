#pragma once
// The diagnosis list: the engine's findings (analysis/suite/diagnosis.h) as plain-language lines
// with the numbers behind them, an icon per severity, errors first. Activating a line that names a
// layer emits layerActivated(index into the report's layers), so the chart, table and inspector
// can select it. A finding that names a remedy offers it in its context menu: AdaRound and bias
// correction on the finding's layer (remedyRequested), CLE and SmoothQuant in the quantizer
// settings (quantizerSettingsRequested).

#include <QListWidget>

class QMenu;

#include <vector>

#include "analysis/session/layer_remedies.h"
#include "analysis/suite/diagnosis.h"
#include "analysis_report.h"

namespace ql::ui {

class DiagnosisList : public QListWidget {
    Q_OBJECT
public:
    explicit DiagnosisList(QWidget *parent = nullptr);

    // Diagnoses `report` (floatGraph, optional, names the node a BatchNormalization follows).
    void setReport(ReportPtr report, const Graph *floatGraph = nullptr,
                   const analysis::DiagnosisOptions &options = {});
    void setFindings(std::vector<analysis::Finding> findings);
    const std::vector<analysis::Finding> &findings() const { return m_findings; }

    // One finding in the user's language, e.g. "BatchNormalization after /b1/Add is not folded
    // and runs int8: 12.3 dB".
    static QString describe(const analysis::Finding &finding);

    // Whether per-layer remedies can apply (the float model quantized in the app).
    void setRemediesAvailable(bool available) { m_remediesAvailable = available; }
    // The context menu of finding `index` (into findings()): select its layer, apply its remedy.
    // The caller owns the menu.
    QMenu *createFindingMenu(int index, QWidget *parent);

public slots:
    // Findings depend on the SQNR threshold; the last report is diagnosed again.
    void setThresholdDb(double thresholdDb);

signals:
    void layerActivated(int layer);
    // From a finding's menu: switch `remedy` on for `layer` (an index into the report's layers).
    void remedyRequested(int layer, ql::analysis::LayerRemedy remedy);
    // From a finding's menu: CLE or SmoothQuant, which the quantizer settings apply.
    void quantizerSettingsRequested();
    void findingsChanged();  // a new report or threshold

private:
    void rebuild();

    ReportPtr m_report;
    const Graph *m_floatGraph = nullptr;
    analysis::DiagnosisOptions m_options;
    std::vector<analysis::Finding> m_findings;
    bool m_remediesAvailable = false;
};

}  // namespace ql::ui

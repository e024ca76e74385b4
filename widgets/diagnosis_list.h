#pragma once
// The diagnosis list: the engine's findings (analysis/suite/diagnosis.h) as plain-language lines with
// the numbers behind them, an icon per severity, errors first. Activating a line that names a
// layer emits layerActivated(index into the report's layers), so the chart, table and inspector
// can select it.

#include <QListWidget>

#include <vector>

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

public slots:
    // Findings depend on the SQNR threshold; the last report is diagnosed again.
    void setThresholdDb(double thresholdDb);

signals:
    void layerActivated(int layer);
    void findingsChanged();  // a new report or threshold

private:
    void rebuild();

    ReportPtr m_report;
    const Graph *m_floatGraph = nullptr;
    analysis::DiagnosisOptions m_options;
    std::vector<analysis::Finding> m_findings;
};

}  // namespace ql::ui

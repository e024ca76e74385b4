#pragma once
// The calibration lab's page, over the lab's JSON (calibration_lab_data.h): a header line (the
// float model's accuracy with its interval, runs done of planned, "cancelled"), a progress row
// with Cancel while a lab runs, the chart of score against size per method, the run table
// (sortable; double-click or Enter opens a run) and the paired comparisons with their verdicts.

#include <QJsonObject>
#include <QWidget>

#include "calibration_lab_data.h"

class QLabel;
class QModelIndex;
class QProgressBar;
class QSplitter;
class QTableView;
class QToolButton;

namespace ql::ui {

class CalibrationComparisonModel;
class CalibrationLabChart;
class CalibrationRunModel;
class LayerProxyModel;

class CalibrationLabView : public QWidget {
    Q_OBJECT
public:
    explicit CalibrationLabView(QWidget *parent = nullptr);

    // An empty object clears the page.
    void setLab(const QJsonObject &lab);
    const QJsonObject &lab() const { return m_json; }
    const CalibrationLabDataPtr &labData() const { return m_lab; }

    // While a lab runs: the progress row with Cancel.
    void setRunning(bool running);
    // etaSeconds < 0: not known.
    void setProgress(const QString &stage, int done, int total, double etaSeconds);
    // Selects a run's row (and scrolls to it).
    void selectRun(const QString &id);

    QString headerText() const;
    QString progressText() const;
    CalibrationLabChart *chart() const { return m_chart; }
    QTableView *runTable() const { return m_runTable; }
    CalibrationRunModel *runModel() const { return m_runModel; }
    LayerProxyModel *runProxy() const { return m_runProxy; }
    QTableView *comparisonTable() const { return m_comparisonTable; }
    CalibrationComparisonModel *comparisonModel() const { return m_comparisonModel; }
    QToolButton *cancelButton() const { return m_cancel; }
    QSplitter *splitter() const { return m_splitter; }

signals:
    // Open this run as the analysis (double-click, Enter, the context menu or the chart).
    void runActivated(const QString &id);
    void cancelRequested();

private:
    QWidget *makeProgressRow();
    QTableView *makeTable(QWidget *parent);
    void showRunMenu(const QPoint &position);
    void updateHeader();

    QJsonObject m_json;
    CalibrationLabDataPtr m_lab;
    QLabel *m_header;
    QWidget *m_progressRow = nullptr;
    QLabel *m_progressText = nullptr;
    QProgressBar *m_progress = nullptr;
    QToolButton *m_cancel = nullptr;
    CalibrationLabChart *m_chart;
    CalibrationRunModel *m_runModel;
    LayerProxyModel *m_runProxy;
    QTableView *m_runTable = nullptr;
    CalibrationComparisonModel *m_comparisonModel;
    LayerProxyModel *m_comparisonProxy;
    QTableView *m_comparisonTable = nullptr;
    QSplitter *m_splitter;
    bool m_running = false;
};

}  // namespace ql::ui

#pragma once
// The analysis view: the headline strip on top, then the per-layer SQNR chart over the layer
// table in a splitter. The selected layer is the same in chart and table (either one drives),
// and the threshold spin box moves with the chart's draggable threshold line.

#include <QWidget>

#include <optional>

#include "analysis_headline.h"
#include "analysis_report.h"

class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QMenu;
class QSplitter;
class QTableView;

namespace ql::ui {

class AnalysisHeadline;
class AnalysisProxyModel;
class AnalysisTableModel;
class SqnrChart;

class AnalysisPanel : public QWidget {
    Q_OBJECT
public:
    explicit AnalysisPanel(QWidget *parent = nullptr);

    void setReport(ReportPtr report);
    const ReportPtr &report() const { return m_report; }
    void setLatency(std::optional<double> int8Ms, std::optional<double> fp32Ms,
                    LatencyConditions how = {});

    double thresholdDb() const;
    int currentLayer() const { return m_currentLayer; }

    AnalysisHeadline *headline() const { return m_headline; }
    SqnrChart *chart() const { return m_chart; }
    AnalysisTableModel *tableModel() const { return m_model; }
    AnalysisProxyModel *proxyModel() const { return m_proxy; }
    QTableView *tableView() const { return m_view; }
    QDoubleSpinBox *thresholdSpinBox() const { return m_threshold; }
    QLineEdit *filterEdit() const { return m_filter; }
    QSplitter *splitter() const { return m_splitter; }

    // The chart's context menu for a layer (-1: none under the mouse): keep it in fp32, show all
    // layers. The caller owns the menu.
    QMenu *createChartMenu(int layer, QWidget *parent);

public slots:
    void setThresholdDb(double thresholdDb);
    // Selects a layer (report index; -1: none) in the chart and the table.
    void selectLayer(int layer);

signals:
    void currentLayerChanged(int layer);
    // Forwarded from the table's precision checkboxes.
    void precisionToggled(int layer, bool fp32);
    void thresholdChanged(double thresholdDb);

private:
    QWidget *makeThresholdBar();
    QWidget *makeTablePart();
    void onThresholdChanged(double thresholdDb);
    void updateCounts();
    void fitColumns();

    ReportPtr m_report;
    int m_currentLayer = -1;
    AnalysisHeadline *m_headline;
    SqnrChart *m_chart;
    AnalysisTableModel *m_model;
    AnalysisProxyModel *m_proxy;
    QTableView *m_view = nullptr;
    QDoubleSpinBox *m_threshold = nullptr;
    QLabel *m_underCount = nullptr;
    QLineEdit *m_filter = nullptr;
    QLabel *m_rowCount = nullptr;
    QSplitter *m_splitter;
};

}  // namespace ql::ui

#pragma once
// The analysis view: the headline strip on top, then the per-layer SQNR chart (or the graph
// view in its place) over the layer table in a splitter. The selected layer is the same in
// chart, graph and table (any one drives), and the threshold spin box moves with the chart's
// draggable threshold line.

#include <QWidget>

#include <optional>

#include "analysis/session/layer_remedies.h"
#include "analysis_headline.h"
#include "analysis_report.h"
#include "ir/graph.h"

class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QMenu;
class QSplitter;
class QStackedWidget;
class QTableView;

namespace ql::ui {

class AnalysisHeadline;
class AnalysisProxyModel;
class AnalysisTableModel;
class GraphView;
class SqnrChart;

class AnalysisPanel : public QWidget {
    Q_OBJECT
public:
    enum class View { Chart, Graph };

    explicit AnalysisPanel(QWidget *parent = nullptr);

    void setReport(ReportPtr report);
    // The float model the report is about, for the graph view (laid out when first shown).
    void setFloatGraph(std::shared_ptr<const Graph> graph);
    void setView(View view);
    View view() const;
    const ReportPtr &report() const { return m_report; }
    void setLatency(std::optional<double> int8Ms, std::optional<double> fp32Ms,
                    LatencyConditions how = {});

    double thresholdDb() const;
    int currentLayer() const { return m_currentLayer; }

    AnalysisHeadline *headline() const { return m_headline; }
    SqnrChart *chart() const { return m_chart; }
    GraphView *graphView() const { return m_graph; }
    AnalysisTableModel *tableModel() const { return m_model; }
    AnalysisProxyModel *proxyModel() const { return m_proxy; }
    QTableView *tableView() const { return m_view; }
    QDoubleSpinBox *thresholdSpinBox() const { return m_threshold; }
    QLineEdit *filterEdit() const { return m_filter; }
    QSplitter *splitter() const { return m_splitter; }

    // The context menu of a layer in the chart, the table and the graph (-1: none under the
    // mouse): keep it in fp32, its per-layer remedies, show all layers. The caller owns the menu.
    QMenu *createLayerMenu(int layer, QWidget *parent);
    // The per-layer remedies the user asked for, and whether the analysis can apply them (the
    // float model quantized in the app), for the layer menus.
    void setLayerRemedies(const analysis::LayerRemedies &remedies, bool available);

public slots:
    void setThresholdDb(double thresholdDb);
    // Selects a layer (report index; -1: none) in the chart and the table.
    void selectLayer(int layer);

signals:
    void currentLayerChanged(int layer);
    // Forwarded from the table's precision checkboxes.
    void precisionToggled(int layer, bool fp32);
    // From a layer menu: a per-layer remedy on or off.
    void remedyToggled(int layer, ql::analysis::LayerRemedy remedy, bool on);
    void thresholdChanged(double thresholdDb);

private:
    QWidget *makeThresholdBar();
    QWidget *makeTablePart();
    void onThresholdChanged(double thresholdDb);
    void updateCounts();
    void fitColumns();
    void addRemedyActions(QMenu *menu, int layer);

    ReportPtr m_report;
    int m_currentLayer = -1;
    AnalysisHeadline *m_headline;
    SqnrChart *m_chart;
    GraphView *m_graph;
    QStackedWidget *m_views;  // the chart (with its threshold bar) or the graph
    AnalysisTableModel *m_model;
    AnalysisProxyModel *m_proxy;
    QTableView *m_view = nullptr;
    QDoubleSpinBox *m_threshold = nullptr;
    QLabel *m_underCount = nullptr;
    QLineEdit *m_filter = nullptr;
    QLabel *m_rowCount = nullptr;
    QSplitter *m_splitter;
    analysis::LayerRemedies m_remedies;
    bool m_remediesAvailable = false;
};

}  // namespace ql::ui

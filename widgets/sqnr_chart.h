#pragma once
// The per-layer SQNR chart of a numeric-suite report (QCustomPlot). Layers run along x in the
// report's topological order; bars show weight SQNR, a line with dots the cumulative activation
// SQNR, diamonds the isolated SQNR. A dashed threshold line (default 30 dB) can be dragged or set;
// layers whose cumulative or isolated SQNR is under it get a red band and red rings. fp32 layers
// get a grey hatched band. Figures above the scale (+inf for identical outputs, or 100+ dB) are
// drawn on an "∞" row above it with a triangle; missing figures are not drawn.
// Mouse: wheel zooms and drag pans along x, double-click shows all layers, click selects a layer,
// hovering shows the layer's figures.

#include <QSharedPointer>
#include <QVector>
#include <QWidget>

#include "analysis_report.h"

class QCustomPlot;
class QCPBars;
class QCPGraph;
class QCPItemRect;
class QCPItemStraightLine;
class QCPItemText;
class QCPRange;
class QMouseEvent;

namespace ql::ui {

class SqnrAxisTicker;

class SqnrChart : public QWidget {
    Q_OBJECT
public:
    explicit SqnrChart(QWidget *parent = nullptr);

    void setReport(ReportPtr report);
    const ReportPtr &report() const { return m_report; }

    double thresholdDb() const { return m_thresholdDb; }
    int selectedLayer() const { return m_selected; }
    // Report indices of the layers under the threshold, ascending.
    QVector<int> layersUnderThreshold() const;
    // Where off-scale figures are drawn (the "∞" row) and where the dB scale ends.
    double scaleTopDb() const { return m_scaleTop; }
    double topRowDb() const { return m_topRow; }
    double bottomRowDb() const { return m_bottomRow; }
    // The hover text of a layer: name, op type, precision and its figures.
    QString toolTipText(int layer) const;
    // The layer under a point of plot() (-1 outside the plot area or the layers).
    int layerAt(const QPoint &plotPosition) const;
    // The pixel of (layer, dB) in plot() coordinates.
    QPoint pixelFor(int layer, double db) const;

    QCustomPlot *plot() const { return m_plot; }
    QCPBars *weightBars() const { return m_weightBars; }
    QCPBars *fp32WeightBars() const { return m_fp32WeightBars; }
    QCPGraph *cumulativeGraph() const { return m_cumulative; }
    QCPGraph *cumulativeLineGraph() const { return m_cumulativeLine; }
    QCPGraph *isolatedGraph() const { return m_isolated; }
    QCPGraph *underThresholdGraph() const { return m_underThreshold; }
    QCPGraph *offScaleGraph() const { return m_offScale; }
    // For a printed copy: the legend does not offer to drag the threshold.
    void setPrinted();

public slots:
    void setThresholdDb(double thresholdDb);
    // Highlights a layer (-1: none) and brings it into view.
    void selectLayer(int layer);
    // Shows every layer.
    void resetZoom();

signals:
    // The selected layer changed, by a click or by selectLayer (-1: none).
    void layerSelected(int layer);
    // The threshold changed, by dragging the line or by setThresholdDb.
    void thresholdChanged(double thresholdDb);

protected:
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;
    // Keys on the plot: Left / Right step the selection, Home / End jump to the ends.
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void setUpPlot();
    void applyPalette();
    void computeScale();
    double plotted(double db) const;  // db mapped onto the scale or an off-scale row
    void rebuildData();
    void rebuildThresholdMarks();
    void rebuildFp32Bands();
    void updateThresholdLine();
    void updateSelectionBand();
    void updateXTicks();
    void updateMarkerSizes(double perLayerPx);
    void clampXRange(const QCPRange &range);
    QCPItemRect *makeBand(const QBrush &brush, const QPen &pen);
    int layerCount() const;

    void onMousePress(QMouseEvent *event);
    void onMouseMove(QMouseEvent *event);
    void onMouseRelease(QMouseEvent *event);
    void onMouseDoubleClick(QMouseEvent *event);
    bool nearThresholdLine(const QPoint &position) const;

    ReportPtr m_report;
    double m_thresholdDb = kDefaultThresholdDb;
    int m_selected = -1;
    double m_scaleBottom = 0.0, m_scaleTop = 60.0;
    double m_topRow = 0.0, m_bottomRow = 0.0;  // == scale ends when nothing is off scale
    bool m_hasTopRow = false, m_hasBottomRow = false;

    QCustomPlot *m_plot;
    QSharedPointer<SqnrAxisTicker> m_yTicker;
    QCPBars *m_weightBars;
    QCPBars *m_fp32WeightBars;
    QCPGraph *m_cumulative;      // markers at every figure (off-scale ones on their row)
    QCPGraph *m_cumulativeLine;  // the line through on-scale figures, broken at off-scale ones
    QCPGraph *m_isolated;
    QCPGraph *m_underThreshold;
    QCPGraph *m_offScale;
    QCPGraph *m_thresholdLegend;  // no data: the threshold line's legend entry
    QCPItemStraightLine *m_thresholdLine;
    QCPItemText *m_thresholdLabel;
    QCPItemRect *m_selectionBand;
    QVector<QCPItemRect *> m_thresholdBands;
    QVector<QCPItemRect *> m_fp32Bands;
    QVector<QCPItemText *> m_fp32Labels;
    QStringList m_shortNames;

    QPoint m_pressPosition;
    bool m_draggingThreshold = false;
    int m_hoveredLayer = -1;
};

}  // namespace ql::ui

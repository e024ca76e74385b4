#pragma once
// The fp32 search's Pareto front (QCustomPlot): the int8 plan's latency per batch along x, the
// target's figure along y, one point per timed set labelled with its number of fp32 layers;
// sets meeting the target filled, the others hollow, the search's answer ringed, the target a
// dashed line. Figures far above the rest (all layers in fp32 is the float model: SQNR near
// infinity) are drawn at the top edge with their value. Hover names the set's layers; a click on
// a point emits its index in the front.

#include <QVector>
#include <QWidget>

#include "analysis/search/fp32_search.h"

class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QMouseEvent;

namespace ql::ui {

class Fp32ParetoChart : public QWidget {
    Q_OBJECT
public:
    explicit Fp32ParetoChart(QWidget *parent = nullptr);

    // The front of `result`, for `target`; an empty result clears the chart.
    void setFront(const analysis::SearchResult &result, const analysis::SearchTarget &target);

    QCustomPlot *plot() const { return m_plot; }
    int pointCount() const { return m_points.size(); }
    // The front index of the point drawn nearest to a plot() position (a few pixels), or -1.
    int pointAt(const QPoint &plotPosition) const;
    // Where point `index` is drawn, in plot() coordinates.
    QPoint pixelOf(int index) const;

signals:
    void pointClicked(int index);

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Point {
        double x = 0.0, y = 0.0;  // as drawn (y clamped to the top edge)
        QString toolTip;
    };

    void applyPalette();
    void onMouseMove(QMouseEvent *event);

    QCustomPlot *m_plot;
    QCPGraph *m_meeting, *m_missing, *m_meeting16, *m_missing16, *m_answer;
    QCPItemStraightLine *m_targetLine;
    QVector<QCPItemText *> m_labels;
    QVector<Point> m_points;
};

}  // namespace ql::ui

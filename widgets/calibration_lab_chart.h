#pragma once
// The calibration lab's chart (QCustomPlot): score against calibration size, one series per
// method (and calibration batch, when the lab has several). Sizes run along a log2 axis labelled
// with the sizes; each series draws its repeats as points with their 95 % interval bars
// (QCPErrorBars) and their mean per size as a line; series sit slightly apart so their bars do
// not cover each other. With labels, the float model's accuracy is a dashed line over its
// interval band. Hover shows a run; a click selects it, a double-click opens it.

#include <QStringList>
#include <QVector>
#include <QWidget>

#include "calibration_lab_data.h"

class QCustomPlot;
class QCPErrorBars;
class QCPGraph;
class QCPItemRect;
class QCPItemStraightLine;
class QMouseEvent;

namespace ql::ui {

class CalibrationLabChart : public QWidget {
    Q_OBJECT
public:
    explicit CalibrationLabChart(QWidget *parent = nullptr);

    void setLab(CalibrationLabDataPtr lab);

    // One per series, in the order of the lab's runs.
    QStringList seriesNames() const { return m_series; }
    QCPGraph *meanGraph(int series) const { return m_means.value(series); }
    QCPGraph *repeatGraph(int series) const { return m_repeats.value(series); }
    QCPErrorBars *errorBars(int series) const { return m_errorBars.value(series); }
    QCPItemStraightLine *floatLine() const { return m_floatLine; }
    QCustomPlot *plot() const { return m_plot; }
    // The run drawn nearest to a point of plot() (within a few pixels), or empty.
    QString runAt(const QPoint &plotPosition) const;
    // The pixel of a run's point in plot() coordinates (null when it is not drawn).
    QPoint pixelOf(const QString &runId) const;

signals:
    void runClicked(const QString &id);
    void runActivated(const QString &id);

protected:
    void changeEvent(QEvent *event) override;

private:
    struct Point {
        double x = 0.0, y = 0.0;  // plot coordinates
        QString runId;
    };

    void clear();
    void rebuild();
    void applyPalette();
    void onMouseMove(QMouseEvent *event);
    QString toolTipText(const QString &runId) const;

    QCustomPlot *m_plot;
    CalibrationLabDataPtr m_lab;
    QStringList m_series;
    QVector<QCPGraph *> m_means, m_repeats;
    QVector<QCPErrorBars *> m_errorBars;
    QCPGraph *m_floatLegend = nullptr;
    QCPItemStraightLine *m_floatLine = nullptr;
    QCPItemRect *m_floatBand = nullptr;
    QVector<Point> m_points;
    QString m_hovered;
};

}  // namespace ql::ui

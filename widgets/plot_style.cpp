#include "plot_style.h"

#include <qcustomplot.h>

namespace ql::ui {

void applyPlotPalette(QCustomPlot *plot) {
    const QPalette pal = plot->palette();
    const QColor text = pal.color(QPalette::Text);
    QColor grid = pal.color(QPalette::Mid);
    grid.setAlpha(110);
    plot->setBackground(pal.brush(QPalette::Base));
    for (QCPAxis *axis : {plot->xAxis, plot->yAxis}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    }
    plot->legend->setTextColor(text);
    plot->legend->setBrush(pal.brush(QPalette::Base));
    plot->legend->setBorderPen(Qt::NoPen);
}

void putLegendAbovePlot(QCustomPlot *plot) {
    auto *legendRow = new QCPLayoutGrid;
    plot->plotLayout()->insertRow(0);
    plot->plotLayout()->addElement(0, 0, legendRow);
    legendRow->addElement(0, 0, plot->legend);
    legendRow->addElement(0, 1, new QCPLayoutElement(plot));
    legendRow->setColumnStretchFactor(0, 0.001);
    legendRow->setColumnStretchFactor(1, 1.0);
    legendRow->setMargins(QMargins(0, 0, 0, 0));
    plot->legend->setVisible(true);
    plot->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot->legend->setWrap(0);
    plot->legend->setColumnSpacing(14);
    plot->legend->setMargins(QMargins(6, 2, 6, 0));
    plot->plotLayout()->setRowStretchFactor(0, 0.001);
    plot->plotLayout()->setRowSpacing(0);
}

}  // namespace ql::ui

#include "plot_palette.h"

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

}  // namespace ql::ui

#pragma once
// What the charts share in how a QCustomPlot looks.

class QCustomPlot;

namespace ql::ui {

// QCustomPlot draws white on its own: background, axes, grid and legend follow the widget
// palette so that dark themes stay readable. Charts call it on PaletteChange.
void applyPlotPalette(QCustomPlot *plot);

// The legend in a row of its own above the plot, so it never hides data; one line, packed to the
// left (an empty stretching cell takes the rest of the row).
void putLegendAbovePlot(QCustomPlot *plot);

}  // namespace ql::ui

#pragma once
// QCustomPlot draws white on its own; this makes a plot's background, axes, grid and legend
// follow the widget palette so that dark themes stay readable. Charts call it on PaletteChange.

class QCustomPlot;

namespace ql::ui {

void applyPlotPalette(QCustomPlot *plot);

}  // namespace ql::ui

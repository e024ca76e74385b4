#pragma once
// The layer inspector's plots (QCustomPlot), filled from a layer inspection and the layer's row of
// the numeric-suite report: float vs dequantized histograms, the float vs quantized scatter with
// the y = x line, per-channel weight ranges with per-channel weight SQNR, and the per-sample
// SQNR distribution (sorted, with min / 5th percentile / median marked).

#include <QColor>
#include <QString>

#include <vector>

#include "analysis/explain/layer_inspection.h"
#include "analysis/suite/numeric_suite.h"
#include "analysis/metrics/sample_ranges.h"

class QCustomPlot;

namespace ql::ui {

// Colours shared by the plots and their legends.
struct InspectorColors {
    static QColor floatColor();
    static QColor quantColor();
};

// Applies the widget's palette (light or dark) to a plot's axes, grid and legend.
void stylePlot(QCustomPlot *plot);

// Two overlaid step curves (graph 0 float, graph 1 quantized) over the common bins.
// logCount: a logarithmic count axis (empty bins drawn at 0.5 so the curves stay closed).
void plotHistogramPair(QCustomPlot *plot, const analysis::HistogramPair &h, const QString &xLabel,
                       bool logCount = false);
// Dashed vertical lines at the real values of qmin and qmax of the output quantization (what
// the int8 tensor can hold); values outside are clipped. Extends the x range to show them.
void markQuantRange(QCustomPlot *plot, double lo, double hi);
// Graph 0: the points (quantized vs float); the y = x line is an item. error: plot quantized −
// float against float instead, with the y = 0 line.
void plotScatter(QCustomPlot *plot, const analysis::ScatterPoints &s, bool error = false);
// Bars (max, min) per channel on the left axis; graph of channel weight SQNR on the right axis.
void plotChannelRanges(QCustomPlot *plot, const std::vector<float> &channelMin,
                       const std::vector<float> &channelMax,
                       const std::vector<double> &channelSqnrDb);
// Graph 0: finite per-sample SQNRs sorted ascending against their rank; lines at min, p5, median.
// With `ranges` (the same samples, in sample order), graph 1 on the right axis: each of those
// samples' float output range (max − min), so that a narrow-range sample among the worst shows
// one scale not fitting every input. Returns how many samples were infinite (not drawn).
int plotSampleSqnr(QCustomPlot *plot, const std::vector<double> &sampleSqnrDb,
                   const analysis::SampleRanges *ranges = nullptr);
// Removes all data and shows a centred message.
void showPlotMessage(QCustomPlot *plot, const QString &message);

}  // namespace ql::ui

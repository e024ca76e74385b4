#pragma once
// The report's figures, painted as vectors with any QPainter (the PDF writer's, or an SVG
// generator's for the HTML): the per-layer SQNR chart as the app draws it (SqnrChart, light
// palette, no selection) and a float-vs-dequantized histogram of one layer. GUI thread only (the
// chart is a widget).

#include <QByteArray>
#include <QRectF>
#include <QSize>

#include "report_data.h"

class QPainter;

namespace ql::ui {

void paintSqnrChart(QPainter &painter, const QRectF &rect, const ReportData &data);
void paintHistogram(QPainter &painter, const QRectF &rect, const LayerHistogram &histogram);

// The figures as inline SVG (<svg ...>...</svg>, no XML prologue), `size` in CSS pixels.
QByteArray sqnrChartSvg(const ReportData &data, QSize size);
QByteArray histogramSvg(const LayerHistogram &histogram, QSize size);

}  // namespace ql::ui

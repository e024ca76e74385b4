#include "report_figures.h"

#include <qcustomplot.h>
#include <QApplication>
#include <QBuffer>
#include <QLayout>
#include <QPainter>
#include <QPicture>
#include <QRegularExpression>
#include <QResizeEvent>
#include <QStyle>
#include <QSvgGenerator>

#include <memory>

#include "plot_style.h"
#include "sqnr_chart.h"

namespace ql::ui {

namespace {

// Reports are printed: always the light palette, whatever the app runs with.
QPalette lightPalette() {
    return QApplication::style() ? QApplication::style()->standardPalette() : QPalette();
}

// QCustomPlot lays out at a size of its own: `logical` pixels, scaled into `rect`. It paints
// with a QCPPainter of its own, so its drawing is recorded as a QPicture (vector commands) and
// replayed on `painter`.
void paintPlot(QPainter &painter, const QRectF &rect, QCustomPlot *plot, QSize logical) {
    QPicture picture;
    {
        QCPPainter recorder(&picture);
        plot->toPainter(&recorder, logical.width(), logical.height());
    }
    // A QPicture replays in its own resolution's units, scaled to the target device's.
    const double dpiRatio =
        painter.device() ? double(picture.logicalDpiX()) / painter.device()->logicalDpiX() : 1.0;
    painter.save();
    painter.translate(rect.topLeft());
    painter.scale(dpiRatio * rect.width() / logical.width(),
                  dpiRatio * rect.height() / logical.height());
    painter.drawPicture(0, 0, picture);
    painter.restore();
}

constexpr QSize kChartSize(1000, 400);
constexpr double kLogFloor = 0.7;  // the bottom of a histogram's log axis

// Empty bins sit on the bottom of the log axis instead of at minus infinity: SVG output keeps
// no clip path, so a line down to "0" would cross the axis.
QVector<double> onLogScale(QVector<double> counts) {
    for (double &c : counts) c = std::max(c, kLogFloor);
    return counts;
}
constexpr QSize kHistogramSize(480, 260);

// A widget never shown gets no resize events; the chart chooses its tick labels by its width.
void layOutHidden(QWidget &widget) {
    if (widget.layout()) widget.layout()->activate();
    QList<QWidget *> widgets = widget.findChildren<QWidget *>();
    widgets.prepend(&widget);
    for (QWidget *w : widgets) {
        QResizeEvent resize(w->size(), QSize());
        QCoreApplication::sendEvent(w, &resize);
    }
}

template <class Paint>
QByteArray svgOf(QSize size, const QString &title, Paint paint) {
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    generator.setTitle(title);
    {
        QPainter painter(&generator);
        paint(painter, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    // Drop the XML prologue and the fixed size in millimetres (not valid HTML attribute
    // values): the viewBox and the page's CSS size the figure.
    QByteArray svg = buffer.data();
    const int start = svg.indexOf("<svg");
    if (start < 0) return {};
    svg = svg.mid(start);
    static const QRegularExpression fixedSize(QStringLiteral(R"( (width|height)="[0-9.]+mm")"));
    return QString::fromUtf8(svg).replace(fixedSize, QString()).toUtf8();
}

}  // namespace

void paintSqnrChart(QPainter &painter, const QRectF &rect, const ReportData &data) {
    SqnrChart chart;
    chart.setPalette(lightPalette());
    chart.resize(kChartSize);
    layOutHidden(chart);
    chart.setPrinted();
    chart.setReport(data.input.report);
    chart.setThresholdDb(data.input.thresholdDb);
    chart.plot()->replot();
    paintPlot(painter, rect, chart.plot(), kChartSize);
}

void paintHistogram(QPainter &painter, const QRectF &rect, const LayerHistogram &h) {
    QCustomPlot plot;
    plot.setPalette(lightPalette());
    plot.resize(kHistogramSize);
    applyPlotPalette(&plot);
    putLegendAbovePlot(&plot);
    const int bins = h.floatCounts.size();
    QVector<double> x(bins);
    const double width = (h.high - h.low) / std::max(bins, 1);
    for (int i = 0; i < bins; ++i) x[i] = h.low + (i + 0.5) * width;
    QCPGraph *floatGraph = plot.addGraph();
    floatGraph->setName(QCoreApplication::translate("Report", "float"));
    floatGraph->setLineStyle(QCPGraph::lsStepCenter);
    floatGraph->setPen(QPen(QColor(0, 114, 178), 1.5));
    floatGraph->setBrush(QColor(0, 114, 178, 50));
    floatGraph->setData(x, onLogScale(h.floatCounts), true);
    QCPGraph *quantGraph = plot.addGraph();
    quantGraph->setName(QCoreApplication::translate("Report", "int8, dequantized"));
    quantGraph->setLineStyle(QCPGraph::lsStepCenter);
    quantGraph->setPen(QPen(QColor(213, 94, 0), 1.5));
    quantGraph->setData(x, onLogScale(h.quantCounts), true);
    plot.xAxis->setLabel(QCoreApplication::translate("Report", "value"));
    plot.yAxis->setLabel(QCoreApplication::translate("Report", "count (log)"));
    plot.yAxis->setScaleType(QCPAxis::stLogarithmic);
    plot.yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
    double top = 1.0;
    for (int i = 0; i < bins; ++i) top = std::max({top, h.floatCounts[i], h.quantCounts[i]});
    plot.xAxis->setRange(h.low - width, h.high + width);
    plot.yAxis->setRange(kLogFloor, top * 2.0);
    plot.replot();
    paintPlot(painter, rect, &plot, kHistogramSize);
}

QByteArray sqnrChartSvg(const ReportData &data, QSize size) {
    return svgOf(size, QCoreApplication::translate("Report", "Per-layer SQNR"),
                 [&](QPainter &p, const QRectF &r) { paintSqnrChart(p, r, data); });
}

QByteArray histogramSvg(const LayerHistogram &histogram, QSize size) {
    return svgOf(size, histogram.layer,
                 [&](QPainter &p, const QRectF &r) { paintHistogram(p, r, histogram); });
}

}  // namespace ql::ui

#include "layer_inspector_plots.h"

#include <qcustomplot.h>

#include <algorithm>
#include <cmath>

#include "analysis/metrics/comparison_metrics.h"
#include "layer_inspector.h"

namespace ql::ui {
namespace {

void reset(QCustomPlot *plot) {
    plot->clearGraphs();
    plot->clearPlottables();
    plot->clearItems();
    plot->yAxis2->setVisible(false);
    plot->yAxis->setScaleType(QCPAxis::stLinear);
    plot->legend->setVisible(false);
}

QCPItemText *label(QCustomPlot *plot, const QString &text, double x, double y, Qt::Alignment align,
                   const QColor &color) {
    auto *t = new QCPItemText(plot);
    t->position->setType(QCPItemPosition::ptPlotCoords);
    t->position->setCoords(x, y);
    t->setPositionAlignment(align);
    t->setText(text);
    t->setColor(color);
    return t;
}

}  // namespace

QColor InspectorColors::floatColor() {
    return QColor(40, 110, 200);
}
QColor InspectorColors::quantColor() {
    return QColor(235, 125, 20);
}

void stylePlot(QCustomPlot *plot) {
    const QPalette pal = plot->palette();
    const QColor text = pal.color(QPalette::Text);
    QColor grid = pal.color(QPalette::Mid);
    grid.setAlpha(90);
    plot->setBackground(pal.brush(QPalette::Base));
    for (QCPAxis *axis : {plot->xAxis, plot->yAxis, plot->yAxis2}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
        QColor zero = text;
        zero.setAlpha(110);
        axis->grid()->setZeroLinePen(QPen(zero, 1));
    }
    plot->legend->setBrush(pal.brush(QPalette::Base));
    plot->legend->setTextColor(text);
    plot->legend->setBorderPen(QPen(grid));
}

void showPlotMessage(QCustomPlot *plot, const QString &message) {
    reset(plot);
    plot->xAxis->setLabel(QString());
    plot->yAxis->setLabel(QString());
    auto *t = new QCPItemText(plot);
    t->position->setType(QCPItemPosition::ptAxisRectRatio);
    t->position->setCoords(0.5, 0.5);
    t->setText(message);
    t->setColor(plot->palette().color(QPalette::Text));
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void plotHistogramPair(QCustomPlot *plot, const analysis::HistogramPair &h, const QString &xLabel,
                       bool logCount) {
    reset(plot);
    const int bins = static_cast<int>(h.floatCounts.size());
    const double width = h.binWidth();
    QVector<double> x(bins + 2), f(bins + 2), q(bins + 2);
    // Step curves drawn from left edges, closed at both ends.
    for (int i = 0; i < bins; ++i) {
        x[i + 1] = h.lo + i * width;
        f[i + 1] = static_cast<double>(h.floatCounts[i]);
        q[i + 1] = static_cast<double>(h.quantCounts[i]);
    }
    x[0] = h.lo;
    x[bins + 1] = h.hi;
    f[0] = q[0] = f[bins + 1] = q[bins + 1] = 0.0;
    const double floor = 0.5;
    if (logCount)
        for (int i = 0; i < x.size(); ++i) {
            f[i] = std::max(f[i], floor);
            q[i] = std::max(q[i], floor);
        }
    QCPGraph *fg = plot->addGraph();
    fg->setName(LayerInspector::tr("float"));
    fg->setLineStyle(QCPGraph::lsStepLeft);
    QColor fill = InspectorColors::floatColor();
    fill.setAlpha(70);
    fg->setPen(QPen(InspectorColors::floatColor(), 1.5));
    fg->setBrush(fill);
    fg->setData(x, f, true);
    QCPGraph *qg = plot->addGraph();
    qg->setName(LayerInspector::tr("dequantized int8"));
    qg->setLineStyle(QCPGraph::lsStepLeft);
    qg->setPen(QPen(InspectorColors::quantColor(), 1.5));
    qg->setData(x, q, true);
    double top = 1.0;
    for (int i = 0; i < bins; ++i) top = std::max({top, f[i + 1], q[i + 1]});
    plot->xAxis->setRange(h.lo - width, h.hi + width);
    if (logCount) {
        plot->yAxis->setScaleType(QCPAxis::stLogarithmic);
        plot->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        plot->yAxis->setRange(floor, top * 2.0);
        fg->setBrush(Qt::NoBrush);
    } else {
        plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        plot->yAxis->setRange(0.0, top * 1.08);
    }
    plot->xAxis->setLabel(xLabel);
    plot->yAxis->setLabel(logCount ? LayerInspector::tr("count (log)")
                                   : LayerInspector::tr("count"));
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void markQuantRange(QCustomPlot *plot, double lo, double hi) {
    const QColor color(210, 35, 35);
    const QCPRange yr = plot->yAxis->range();
    for (const double v : {lo, hi}) {
        auto *line = new QCPItemStraightLine(plot);
        line->point1->setCoords(v, yr.lower);
        line->point2->setCoords(v, yr.upper);
        line->setPen(QPen(color, 1.2, Qt::DashLine));
    }
    auto *text = label(plot, LayerInspector::tr("int8 range"), hi, 0.0,
                       Qt::AlignRight | Qt::AlignVCenter, color);
    text->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    text->position->setCoords(hi, 0.5);
    text->setRotation(-90.0);
    text->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    QCPRange xr = plot->xAxis->range();
    const double pad = 0.02 * (std::max(xr.upper, hi) - std::min(xr.lower, lo));
    plot->xAxis->setRange(std::min(xr.lower, lo - pad), std::max(xr.upper, hi + pad));
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void plotScatter(QCustomPlot *plot, const analysis::ScatterPoints &s, bool error) {
    reset(plot);
    QVector<double> x(static_cast<int>(s.floatValues.size())), y(x.size());
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < x.size(); ++i) {
        x[i] = s.floatValues[i];
        y[i] = s.quantValues[i];
    }
    if (error) {
        double xlo = INFINITY, xhi = -INFINITY, emax = 0.0;
        for (int i = 0; i < x.size(); ++i) {
            y[i] -= x[i];
            if (!std::isfinite(x[i]) || !std::isfinite(y[i])) continue;
            xlo = std::min(xlo, x[i]);
            xhi = std::max(xhi, x[i]);
            emax = std::max(emax, std::fabs(y[i]));
        }
        if (!(xlo < xhi)) {
            xlo = -1.0;
            xhi = 1.0;
        }
        if (emax == 0.0) emax = 1.0;
        QCPGraph *g = plot->addGraph();
        g->setName(LayerInspector::tr("elements"));
        g->setLineStyle(QCPGraph::lsNone);
        QColor dot = InspectorColors::floatColor();
        dot.setAlpha(110);
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, dot, dot, 3.5));
        g->setData(x, y);
        auto *zero = new QCPItemStraightLine(plot);
        zero->point1->setCoords(xlo, 0.0);
        zero->point2->setCoords(xhi, 0.0);
        zero->setPen(QPen(InspectorColors::quantColor(), 1.2, Qt::DashLine));
        const double pad = 0.04 * (xhi - xlo);
        plot->xAxis->setRange(xlo - pad, xhi + pad);
        plot->yAxis->setRange(-emax * 1.15, emax * 1.15);
        plot->xAxis->setLabel(LayerInspector::tr("float output"));
        plot->yAxis->setLabel(LayerInspector::tr("error: quantized − float"));
        label(plot, LayerInspector::tr("%1 of %2 elements").arg(x.size()).arg(s.population), xlo,
              emax * 1.12, Qt::AlignLeft | Qt::AlignTop, plot->palette().color(QPalette::Text));
        plot->replot(QCustomPlot::rpQueuedReplot);
        return;
    }
    for (int i = 0; i < x.size(); ++i) {
        if (std::isfinite(x[i]) && std::isfinite(y[i])) {
            lo = std::min({lo, x[i], y[i]});
            hi = std::max({hi, x[i], y[i]});
        }
    }
    if (!(lo < hi)) {
        lo = -1.0;
        hi = 1.0;
    }
    const double pad = 0.04 * (hi - lo);
    QCPGraph *g = plot->addGraph();
    g->setName(LayerInspector::tr("elements"));
    g->setLineStyle(QCPGraph::lsNone);
    QColor dot = InspectorColors::floatColor();
    dot.setAlpha(110);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, dot, dot, 3.5));
    g->setData(x, y);
    auto *diagonal = new QCPItemStraightLine(plot);
    diagonal->point1->setCoords(lo, lo);
    diagonal->point2->setCoords(hi, hi);
    diagonal->setPen(QPen(InspectorColors::quantColor(), 1.2, Qt::DashLine));
    plot->xAxis->setRange(lo - pad, hi + pad);
    plot->yAxis->setRange(lo - pad, hi + pad);
    plot->xAxis->setLabel(LayerInspector::tr("float output"));
    plot->yAxis->setLabel(LayerInspector::tr("quantized output (dequantized)"));
    label(plot, LayerInspector::tr("y = x"), hi, hi, Qt::AlignRight | Qt::AlignBottom,
          InspectorColors::quantColor());
    label(plot, LayerInspector::tr("%1 of %2 elements").arg(x.size()).arg(s.population), lo,
          hi + pad * 0.5, Qt::AlignLeft | Qt::AlignTop, plot->palette().color(QPalette::Text));
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void plotChannelRanges(QCustomPlot *plot, const std::vector<float> &channelMin,
                       const std::vector<float> &channelMax,
                       const std::vector<double> &channelSqnrDb) {
    reset(plot);
    const int n = static_cast<int>(std::min(channelMin.size(), channelMax.size()));
    QVector<double> keys(n), maxV(n), minV(n);
    double lo = 0.0, hi = 0.0;
    for (int c = 0; c < n; ++c) {
        keys[c] = c;
        maxV[c] = std::max(0.0f, channelMax[c]);
        minV[c] = std::min(0.0f, channelMin[c]);
        hi = std::max(hi, maxV[c]);
        lo = std::min(lo, minV[c]);
    }
    const double width = n > 48 ? 0.9 : 0.7;
    auto *maxBars = new QCPBars(plot->xAxis, plot->yAxis);
    maxBars->setName(LayerInspector::tr("weight max"));
    maxBars->setWidth(width);
    QColor fc = InspectorColors::floatColor();
    maxBars->setPen(Qt::NoPen);
    maxBars->setBrush(fc);
    maxBars->setData(keys, maxV, true);
    auto *minBars = new QCPBars(plot->xAxis, plot->yAxis);
    minBars->setName(LayerInspector::tr("weight min"));
    minBars->setWidth(width);
    minBars->setPen(Qt::NoPen);
    fc.setAlpha(120);
    minBars->setBrush(fc);
    minBars->setData(keys, minV, true);
    const double pad = 0.06 * std::max(hi - lo, 1e-12);
    plot->yAxis->setRange(lo - pad, hi + pad);
    plot->xAxis->setRange(-0.8, n - 0.2);
    plot->xAxis->setLabel(LayerInspector::tr("output channel"));
    plot->yAxis->setLabel(LayerInspector::tr("float weight range"));
    if (!channelSqnrDb.empty()) {
        plot->yAxis2->setVisible(true);
        plot->yAxis2->setLabel(LayerInspector::tr("channel weight SQNR (dB)"));
        QCPGraph *g = plot->addGraph(plot->xAxis, plot->yAxis2);
        g->setName(LayerInspector::tr("weight SQNR"));
        g->setPen(QPen(InspectorColors::quantColor(), 1.5));
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, InspectorColors::quantColor(),
                                           plot->palette().color(QPalette::Base), 4));
        QVector<double> k, v;
        double dbLo = INFINITY, dbHi = -INFINITY;
        for (size_t c = 0; c < channelSqnrDb.size(); ++c) {
            if (!std::isfinite(channelSqnrDb[c])) continue;
            k << double(c);
            v << channelSqnrDb[c];
            dbLo = std::min(dbLo, channelSqnrDb[c]);
            dbHi = std::max(dbHi, channelSqnrDb[c]);
        }
        g->setData(k, v, true);
        if (dbLo <= dbHi)
            plot->yAxis2->setRange(std::floor(dbLo / 5.0) * 5.0 - 5.0,
                                   std::ceil(dbHi / 5.0) * 5.0 + 5.0);
    }
    plot->legend->setVisible(true);
    plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

int plotSampleSqnr(QCustomPlot *plot, const std::vector<double> &values,
                   const analysis::SampleRanges *ranges) {
    reset(plot);
    std::vector<size_t> order;  // samples with a finite SQNR, worst first
    int infinite = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        if (std::isfinite(values[i]))
            order.push_back(i);
        else if (values[i] > 0)
            ++infinite;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&values](size_t a, size_t b) { return values[a] < values[b]; });
    std::vector<double> sorted;
    for (size_t i : order) sorted.push_back(values[i]);
    QVector<double> x(static_cast<int>(sorted.size())), y(x.size());
    for (int i = 0; i < x.size(); ++i) {
        x[i] = i + 1;
        y[i] = sorted[static_cast<size_t>(i)];
    }
    QCPGraph *g = plot->addGraph();
    g->setName(LayerInspector::tr("samples, sorted"));
    g->setPen(QPen(InspectorColors::floatColor(), 1.5));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, InspectorColors::floatColor(), 4));
    g->setData(x, y, true);
    if (ranges && ranges->size() == values.size() && !order.empty()) {
        QVector<double> r(x.size());
        double top = 0.0;
        for (int i = 0; i < x.size(); ++i) {
            r[i] = ranges->range(order[static_cast<size_t>(i)]);
            if (std::isfinite(r[i])) top = std::max(top, r[i]);
        }
        plot->yAxis2->setVisible(true);
        plot->yAxis2->setLabel(LayerInspector::tr("float output range of the sample"));
        QCPGraph *rg = plot->addGraph(plot->xAxis, plot->yAxis2);
        rg->setName(LayerInspector::tr("range (max − min)"));
        rg->setLineStyle(QCPGraph::lsNone);
        rg->setScatterStyle(
            QCPScatterStyle(QCPScatterStyle::ssCircle, QColor(40, 150, 90), 5));  // not p5's
        rg->setData(x, r, true);
        plot->yAxis2->setRange(0.0, top > 0.0 ? top * 1.08 : 1.0);
    }
    const double lo = sorted.empty() ? 0.0 : sorted.front(),
                 hi = sorted.empty() ? 1.0 : sorted.back();
    const double pad = std::max(1.0, 0.08 * (hi - lo));
    plot->xAxis->setRange(0.0, x.size() + 1.0);
    plot->yAxis->setRange(lo - pad, hi + pad);
    plot->xAxis->setLabel(LayerInspector::tr("sample rank (worst first)"));
    plot->yAxis->setLabel(LayerInspector::tr("per-sample SQNR (dB)"));
    if (!sorted.empty()) {
        const double p5 = analysis::percentileSorted(sorted, 5.0),
                     median = analysis::percentileSorted(sorted, 50.0);
        const QColor text = plot->palette().color(QPalette::Text);
        struct Mark {
            QString name;
            double value;
            QColor color;
            Qt::PenStyle style;
        };
        const Mark marks[] = {{LayerInspector::tr("min %1 dB").arg(lo, 0, 'f', 1), lo,
                               QColor(210, 35, 35), Qt::DotLine},
                              {LayerInspector::tr("p5 %1 dB").arg(p5, 0, 'f', 1), p5,
                               InspectorColors::quantColor(), Qt::DashLine},
                              {LayerInspector::tr("median %1 dB").arg(median, 0, 'f', 1), median,
                               text, Qt::DashLine}};
        double lastLabelY = -INFINITY;
        for (const Mark &m : marks) {
            auto *line = new QCPItemStraightLine(plot);
            line->point1->setCoords(0.0, m.value);
            line->point2->setCoords(1.0, m.value);
            line->setPen(QPen(m.color, 1.2, m.style));
            // Keep labels apart when the marks are close.
            double at = std::max(m.value, lastLabelY + 0.07 * (hi - lo + 2 * pad));
            lastLabelY = at;
            label(plot, m.name, x.size() + 0.5, at, Qt::AlignRight | Qt::AlignBottom, m.color);
        }
    }
    if (infinite > 0)
        label(plot,
              LayerInspector::tr("%n sample(s) without error (+∞ dB) not drawn", nullptr, infinite),
              0.5, hi + pad, Qt::AlignLeft | Qt::AlignTop, plot->palette().color(QPalette::Text));
    plot->replot(QCustomPlot::rpQueuedReplot);
    return infinite;
}

}  // namespace ql::ui

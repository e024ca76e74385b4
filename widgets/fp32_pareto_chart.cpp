#include "fp32_pareto_chart.h"

#include <qcustomplot.h>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "fp32_search_text.h"
#include "plot_style.h"

namespace ql::ui {

namespace {

// Okabe-Ito colours, as the other charts.
const QColor kMeetColor(0, 158, 115);
const QColor kMissColor(213, 94, 0);
const QColor kAnswerColor(0, 114, 178);
const QColor kTargetColor(120, 120, 120);
constexpr int kHitRadiusPx = 9;
// An SQNR this far above the target (or above 60 dB) is "as float": drawn at the top edge so
// that the sets near the target keep the height of the plot.
constexpr double kSqnrHeadroomDb = 30.0;

}  // namespace

Fp32ParetoChart::Fp32ParetoChart(QWidget *parent) : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setObjectName(QStringLiteral("paretoPlot"));
    m_plot->setMouseTracking(true);
    m_plot->setMinimumHeight(220);
    m_plot->setAntialiasedElements(QCP::aePlottables | QCP::aeItems);
    m_plot->xAxis->setLabel(tr("int8 plan latency (ms per batch)"));
    putLegendAbovePlot(m_plot);

    auto scatter = [this](const QString &name, QCPScatterStyle style) {
        QCPGraph *graph = m_plot->addGraph();
        graph->setName(name);
        graph->setLineStyle(QCPGraph::lsNone);
        graph->setScatterStyle(style);
        return graph;
    };
    m_meeting = scatter(
        tr("Meets the target"),
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(kMeetColor, 1.5), QBrush(kMeetColor), 8));
    m_missing = scatter(tr("Misses it"), QCPScatterStyle(QCPScatterStyle::ssCircle,
                                                         QPen(kMissColor, 1.8), Qt::NoBrush, 8));
    // Sets quantized with 16 bits instead of kept in fp32: diamonds, the same colours.
    m_meeting16 = scatter(
        tr("16 bits, meets it"),
        QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(kMeetColor, 1.5), QBrush(kMeetColor), 10));
    m_missing16 = scatter(
        tr("16 bits, misses it"),
        QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(kMissColor, 1.8), Qt::NoBrush, 10));
    m_answer = scatter(
        tr("The search's answer"),
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(kAnswerColor, 2.2), Qt::NoBrush, 16));
    QCPGraph *targetLegend = m_plot->addGraph();
    targetLegend->setName(tr("Target"));
    targetLegend->setPen(QPen(kTargetColor, 1.5, Qt::DashLine));
    m_targetLine = new QCPItemStraightLine(m_plot);
    m_targetLine->setPen(QPen(kTargetColor, 1.5, Qt::DashLine));

    connect(m_plot, &QCustomPlot::mouseMove, this, &Fp32ParetoChart::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        const int index = pointAt(event->pos());
        if (event->button() == Qt::LeftButton && index >= 0) emit pointClicked(index);
    });
    applyPalette();
    setFront({}, {});
}

void Fp32ParetoChart::setFront(const analysis::SearchResult &result,
                               const analysis::SearchTarget &target) {
    for (QCPItemText *label : m_labels) m_plot->removeItem(label);
    m_labels.clear();
    m_points.clear();
    const auto metric = target.metric;
    m_plot->yAxis->setLabel(
        QStringLiteral("%1 (%2)").arg(searchMetricName(metric), searchMetricUnit(metric)));

    // The top of the y range: every figure, but an SQNR "as float" is clamped to it.
    const double clampAbove = metric == analysis::SearchMetric::Sqnr
                                  ? std::max(target.value + kSqnrHeadroomDb, 60.0)
                                  : std::numeric_limits<double>::infinity();
    double yLow = target.value, yHigh = target.value, xLow = 0.0, xHigh = 0.0;
    bool clamped = false;
    for (const auto &p : result.pareto) {
        if (!std::isfinite(p.figure) || p.figure > clampAbove) {
            clamped = clamped || !std::isnan(p.figure);
            continue;
        }
        yLow = std::min(yLow, p.figure);
        yHigh = std::max(yHigh, p.figure);
    }
    const double yPad = std::max((yHigh - yLow) * 0.12, 0.5);
    const double top = clamped ? yHigh + 2.5 * yPad : yHigh + yPad;
    QVector<double> mx, my, nx, ny, mx16, my16, nx16, ny16, ax, ay;
    for (int i = 0; i < int(result.pareto.size()); ++i) {
        const auto &p = result.pareto[size_t(i)];
        const bool sixteen = p.precision == analysis::SearchPrecision::Int16 && !p.layers.empty();
        const bool atTop = std::isinf(p.figure) || p.figure > clampAbove;
        const double y = atTop ? top - 1.5 * yPad : (std::isnan(p.figure) ? yLow : p.figure);
        xLow = i == 0 ? p.latencyMs : std::min(xLow, p.latencyMs);
        xHigh = i == 0 ? p.latencyMs : std::max(xHigh, p.latencyMs);
        (p.meetsTarget ? (sixteen ? mx16 : mx) : (sixteen ? nx16 : nx)) << p.latencyMs;
        (p.meetsTarget ? (sixteen ? my16 : my) : (sixteen ? ny16 : ny)) << y;
        if (p.layers == result.layers && (p.layers.empty() || p.precision == result.precision))
            ax << p.latencyMs, ay << y;

        QStringList names;
        for (const std::string &n : p.layers) names << QString::fromStdString(n);
        const QString figure = formatSearchFigure(p.figure, metric);
        Point point{p.latencyMs, y, QString()};
        point.toolTip =
            (sixteen ? tr("%n layer(s) at 16 bits", nullptr, int(p.layers.size()))
                     : tr("%n layer(s) in fp32", nullptr, int(p.layers.size()))) +
            (names.isEmpty() ? QString()
                             : QStringLiteral(": ") + names.join(QStringLiteral(", "))) +
            QLatin1Char('\n') + figure + QStringLiteral(" · ") +
            tr("%1 ms per batch").arg(QLocale().toString(p.latencyMs, 'f', 3)) + QLatin1Char('\n') +
            tr("Click to apply this set");
        m_points << point;

        auto *label = new QCPItemText(m_plot);
        label->position->setCoords(p.latencyMs, y);
        // A point at the top edge has its figure centred above it, clear of its neighbours'
        // labels (those sit above and to the right of their points).
        label->setPositionAlignment(atTop ? Qt::AlignHCenter | Qt::AlignBottom
                                          : Qt::AlignLeft | Qt::AlignBottom);
        label->setPadding(atTop ? QMargins(0, 0, 0, 7) : QMargins(7, 0, 0, 5));
        const QString count =
            sixteen ? tr("%1×16-bit").arg(p.layers.size()) : QString::number(p.layers.size());
        label->setText(atTop ? QStringLiteral("%1 · %2").arg(count, figure) : count);
        label->setColor(palette().color(QPalette::Text));
        m_labels << label;
    }
    m_meeting->setData(mx, my, true);
    m_missing->setData(nx, ny, true);
    m_meeting16->setData(mx16, my16, true);
    m_missing16->setData(nx16, ny16, true);
    // The 16-bit entries in the legend only when the front has 16-bit sets.
    for (QCPGraph *graph : {m_meeting16, m_missing16}) {
        if (graph->data()->isEmpty())
            graph->removeFromLegend();
        else if (!m_plot->legend->hasItemWithPlottable(graph))
            graph->addToLegend();
    }
    m_answer->setData(ax, ay, true);
    m_targetLine->point1->setCoords(0.0, target.value);
    m_targetLine->point2->setCoords(1.0, target.value);
    m_targetLine->setVisible(!result.pareto.empty());
    const double xPad = std::max((xHigh - xLow) * 0.12, std::max(xHigh, 1e-3) * 0.05);
    m_plot->xAxis->setRange(std::max(0.0, xLow - xPad), xHigh + 2.5 * xPad);
    m_plot->yAxis->setRange(yLow - yPad, top);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

int Fp32ParetoChart::pointAt(const QPoint &plotPosition) const {
    int best = -1;
    double bestDistance = kHitRadiusPx;
    for (int i = 0; i < m_points.size(); ++i) {
        const QPoint pixel = pixelOf(i);
        const double d = std::hypot(pixel.x() - plotPosition.x(), pixel.y() - plotPosition.y());
        if (d <= bestDistance) best = i, bestDistance = d;
    }
    return best;
}

QPoint Fp32ParetoChart::pixelOf(int index) const {
    if (index < 0 || index >= m_points.size()) return {};
    const Point &p = m_points[index];
    return QPoint(int(std::lround(m_plot->xAxis->coordToPixel(p.x))),
                  int(std::lround(m_plot->yAxis->coordToPixel(p.y))));
}

void Fp32ParetoChart::onMouseMove(QMouseEvent *event) {
    const int index = pointAt(event->pos());
    m_plot->setCursor(index >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
    if (index >= 0)
        QToolTip::showText(m_plot->mapToGlobal(event->pos()), m_points[index].toolTip, m_plot);
    else
        QToolTip::hideText();
}

void Fp32ParetoChart::applyPalette() {
    applyPlotPalette(m_plot);
    for (QCPItemText *label : m_labels) label->setColor(palette().color(QPalette::Text));
}

void Fp32ParetoChart::changeEvent(QEvent *event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

}  // namespace ql::ui

#include "calibration_lab_chart.h"

#include <qcustomplot.h>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "calibration_lab_text.h"
#include "display_format.h"
#include "plot_style.h"

namespace ql::ui {

namespace {

// Okabe-Ito colours: told apart with the common colour-vision deficiencies, on light and dark.
const QColor kSeriesColors[] = {QColor(0, 114, 178),   QColor(230, 159, 0),  QColor(0, 158, 115),
                                QColor(204, 121, 167), QColor(86, 180, 233), QColor(213, 94, 0)};
const QColor kFloatColor(120, 120, 120);
constexpr double kSeriesGap = 0.07;  // log2 units between neighbouring series at one size
constexpr int kHitRadiusPx = 8;

QColor seriesColor(int series) {
    return kSeriesColors[series % int(std::size(kSeriesColors))];
}

}  // namespace

CalibrationLabChart::CalibrationLabChart(QWidget *parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)) {
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setObjectName(QStringLiteral("calibrationLabPlot"));
    m_plot->setMouseTracking(true);
    m_plot->setAntialiasedElements(QCP::aePlottables | QCP::aeItems);
    m_plot->addLayer(QStringLiteral("bands"), m_plot->layer(QStringLiteral("grid")),
                     QCustomPlot::limBelow);
    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    m_plot->xAxis->setSubTicks(false);
    m_plot->xAxis->setLabel(tr("Calibration size (files, log scale)"));

    putLegendAbovePlot(m_plot);

    m_floatLegend = m_plot->addGraph();
    m_floatLegend->setName(tr("Float model (95 % CI)"));
    m_floatLegend->setPen(QPen(kFloatColor, 1.5, Qt::DashLine));
    m_floatLine = new QCPItemStraightLine(m_plot);
    m_floatLine->setPen(QPen(kFloatColor, 1.5, Qt::DashLine));
    m_floatBand = new QCPItemRect(m_plot);
    m_floatBand->setLayer(QStringLiteral("bands"));
    for (QCPItemPosition *p : {m_floatBand->topLeft, m_floatBand->bottomRight}) {
        p->setTypeX(QCPItemPosition::ptAxisRectRatio);
        p->setAxisRect(m_plot->axisRect());
    }
    m_floatBand->setPen(Qt::NoPen);
    m_floatBand->setBrush(QColor(kFloatColor.red(), kFloatColor.green(), kFloatColor.blue(), 28));
    m_floatBand->setAntialiased(false);

    connect(m_plot, &QCustomPlot::mouseMove, this, &CalibrationLabChart::onMouseMove);
    connect(m_plot, &QCustomPlot::mousePress, this, [this](QMouseEvent *event) {
        const QString id = runAt(event->pos());
        if (event->button() == Qt::LeftButton && !id.isEmpty()) emit runClicked(id);
    });
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, [this](QMouseEvent *event) {
        const QString id = runAt(event->pos());
        if (event->button() == Qt::LeftButton && !id.isEmpty()) emit runActivated(id);
    });
    applyPalette();
    setLab(nullptr);
}

void CalibrationLabChart::setLab(CalibrationLabDataPtr lab) {
    m_lab = std::move(lab);
    rebuild();
}

void CalibrationLabChart::clear() {
    for (QCPGraph *graph : m_means + m_repeats) m_plot->removeGraph(graph);
    for (QCPErrorBars *bars : m_errorBars) m_plot->removePlottable(bars);
    m_means.clear();
    m_repeats.clear();
    m_errorBars.clear();
    m_series.clear();
    m_points.clear();
}

void CalibrationLabChart::rebuild() {
    clear();
    const bool labelled = m_lab && m_lab->labelled;
    m_plot->yAxis->setLabel(tr("%1 (%)").arg(scoreName(labelled)));
    // Runs per series, in plan order (the order of first appearance is the series' order).
    std::map<QString, QVector<const CalibrationLabRun *>> bySeries;
    if (m_lab)
        for (const CalibrationLabRun &run : m_lab->runs) {
            const QString name = m_lab->seriesName(run);
            if (!m_series.contains(name)) m_series << name;
            bySeries[name] << &run;
        }
    auto ticker = m_plot->xAxis->ticker().dynamicCast<QCPAxisTickerText>();
    ticker->clear();
    double xLow = 0.0, xHigh = 1.0, yLow = 100.0, yHigh = 0.0;
    bool any = false;
    auto extendY = [&](double low, double high) {
        yLow = std::min(yLow, low);
        yHigh = std::max(yHigh, high);
    };
    for (int s = 0; s < m_series.size(); ++s) {
        const double offset = (s - (m_series.size() - 1) / 2.0) * kSeriesGap;
        // Repeats sorted by x: QCPErrorBars pairs its data with the graph's by index.
        QVector<Point> points;
        std::map<qint64, std::pair<double, int>> sums;  // size -> (sum of scores, count)
        QVector<QPair<double, Interval>> cis;
        for (const CalibrationLabRun *run : bySeries[m_series[s]]) {
            const auto score = m_lab->score(*run);
            const double x = std::log2(double(std::max<qint64>(run->size, 1)));
            ticker->addTick(x, QLocale().toString(run->size));
            xLow = any ? std::min(xLow, x) : x;
            xHigh = any ? std::max(xHigh, x) : x;
            any = true;
            if (!score) continue;
            points.append({x + offset, *score * 100.0, run->id});
            const auto ci = m_lab->scoreCi(*run);
            cis.append({x + offset, ci.value_or(Interval{*score, *score})});
            sums[run->size].first += *score * 100.0;
            sums[run->size].second += 1;
        }
        QVector<int> order(points.size());
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&points](int a, int b) { return points[a].x < points[b].x; });
        QVector<double> px, py, minus, plus, mx, my;
        for (const int i : order) {
            const Point &p = points[i];
            px << p.x;
            py << p.y;
            minus << std::max(0.0, p.y - cis[i].second.low * 100.0);
            plus << std::max(0.0, cis[i].second.high * 100.0 - p.y);
            extendY(cis[i].second.low * 100.0, cis[i].second.high * 100.0);
            m_points.append(p);
        }
        for (const auto &[size, sum] : sums) {
            mx << std::log2(double(std::max<qint64>(size, 1))) + offset;
            my << sum.first / sum.second;
        }
        const QColor color = seriesColor(s);
        QCPGraph *repeats = m_plot->addGraph();
        repeats->setName(m_series[s]);
        repeats->setLineStyle(QCPGraph::lsNone);
        repeats->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(color, 1.5),
                                                 QBrush(color.lighter(150)), 6));
        repeats->setData(px, py, true);
        repeats->removeFromLegend();
        auto *bars = new QCPErrorBars(m_plot->xAxis, m_plot->yAxis);
        bars->setName(m_series[s]);
        bars->removeFromLegend();
        bars->setErrorType(QCPErrorBars::etValueError);
        bars->setPen(QPen(color, 1.0));
        bars->setWhiskerWidth(5);
        bars->setDataPlottable(repeats);
        bars->setData(minus, plus);
        QCPGraph *mean = m_plot->addGraph();
        mean->setName(m_series[s]);
        mean->setPen(QPen(color, 2));
        mean->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, color, color, 5));
        mean->setData(mx, my, true);
        m_means << mean;
        m_repeats << repeats;
        m_errorBars << bars;
    }

    const bool showFloat = labelled && m_lab->floatAccuracy.has_value();
    m_floatLine->setVisible(showFloat);
    m_floatBand->setVisible(showFloat && m_lab->floatAccuracyCi.has_value());
    m_floatLegend->setVisible(showFloat);
    if (showFloat) {
        m_floatLegend->addToLegend();
        const double y = *m_lab->floatAccuracy * 100.0;
        m_floatLine->point1->setCoords(0.0, y);
        m_floatLine->point2->setCoords(1.0, y);
        const Interval ci = m_lab->floatAccuracyCi.value_or(Interval{y / 100.0, y / 100.0});
        m_floatBand->topLeft->setCoords(0.0, ci.high * 100.0);
        m_floatBand->bottomRight->setCoords(1.0, ci.low * 100.0);
        extendY(ci.low * 100.0, ci.high * 100.0);
    } else {
        m_floatLegend->removeFromLegend();
    }
    if (yLow > yHigh) yLow = 0.0, yHigh = 100.0;
    const double pad = std::max(1.0, (yHigh - yLow) * 0.08);
    m_plot->yAxis->setRange(std::max(0.0, yLow - pad), std::min(100.0, yHigh + pad));
    const double xPad = 0.5 + kSeriesGap * m_series.size() / 2.0;
    m_plot->xAxis->setRange(xLow - xPad, xHigh + xPad);
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

QString CalibrationLabChart::runAt(const QPoint &plotPosition) const {
    // Strictly nearer only: of runs drawn on one spot (repeats with equal scores), the first.
    QString best;
    double bestDistance = kHitRadiusPx * kHitRadiusPx + 1.0;
    for (const Point &p : m_points) {
        const double dx = m_plot->xAxis->coordToPixel(p.x) - plotPosition.x();
        const double dy = m_plot->yAxis->coordToPixel(p.y) - plotPosition.y();
        const double distance = dx * dx + dy * dy;
        if (distance < bestDistance) {
            bestDistance = distance;
            best = p.runId;
        }
    }
    return best;
}

QPoint CalibrationLabChart::pixelOf(const QString &runId) const {
    for (const Point &p : m_points)
        if (p.runId == runId)
            return QPoint(int(std::lround(m_plot->xAxis->coordToPixel(p.x))),
                          int(std::lround(m_plot->yAxis->coordToPixel(p.y))));
    return {};
}

QString CalibrationLabChart::toolTipText(const QString &runId) const {
    const CalibrationLabRun *run = m_lab ? m_lab->findRun(runId) : nullptr;
    if (!run) return {};
    QStringList lines{run->id};
    lines << tr("%1: %2").arg(scoreName(m_lab->labelled),
                              formatShareCi(m_lab->score(*run), m_lab->scoreCi(*run)));
    lines << tr("Output SQNR: %1 dB").arg(formatDb(run->sqnrDb));
    if (!run->identicalTo.isEmpty()) lines << tr("Same calibration as %1").arg(run->identicalTo);
    return lines.join(QLatin1Char('\n'));
}

void CalibrationLabChart::onMouseMove(QMouseEvent *event) {
    const QString id = runAt(event->pos());
    if (id == m_hovered) return;
    m_hovered = id;
    if (id.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(m_plot->mapToGlobal(event->pos()), toolTipText(id), m_plot);
}

void CalibrationLabChart::applyPalette() {
    applyPlotPalette(m_plot);
}

void CalibrationLabChart::changeEvent(QEvent *event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

}  // namespace ql::ui

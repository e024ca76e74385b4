#include "sqnr_chart.h"

#include <qcustomplot.h>
#include <QKeyEvent>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "display_format.h"
#include "plot_style.h"
#include "sqnr_axis_ticker.h"
#include "sqnr_colours.h"

namespace ql::ui {

namespace {

const QColor kWeightColor(150, 185, 225);
const QColor kCumulativeColor(25, 80, 170);
const QColor kIsolatedColor(235, 125, 20);
constexpr double kBarWidth = 0.55;
constexpr double kOffScaleGap = 8.0;  // dB between the scale's end and the "∞" row
constexpr double kMaxScaleTop = 80.0, kMinScaleTop = 50.0, kMinScaleBottom = -40.0;
constexpr int kThresholdGrabPx = 6;
constexpr int kClickSlopPx = 4;
constexpr double kMinVisibleLayers = 4.0;

double ceilTo(double v, double step) {
    return std::ceil(v / step) * step;
}
double floorTo(double v, double step) {
    return std::floor(v / step) * step;
}

}  // namespace

SqnrChart::SqnrChart(QWidget *parent)
    : QWidget(parent), m_plot(new QCustomPlot(this)), m_yTicker(new SqnrAxisTicker) {
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_plot);
    m_plot->setObjectName(QStringLiteral("sqnrPlot"));
    m_plot->setMouseTracking(true);
    m_plot->setFocusPolicy(Qt::StrongFocus);
    m_plot->installEventFilter(this);
    setUpPlot();
    applyPalette();
    setReport(nullptr);
}

void SqnrChart::setUpPlot() {
    m_plot->setAntialiasedElements(QCP::aePlottables | QCP::aeItems);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->axisRect()->setRangeDrag(Qt::Horizontal);
    m_plot->axisRect()->setRangeZoom(Qt::Horizontal);
    m_plot->addLayer(QStringLiteral("bands"), m_plot->layer(QStringLiteral("grid")),
                     QCustomPlot::limBelow);

    m_plot->xAxis->setTicker(QSharedPointer<QCPAxisTickerText>(new QCPAxisTickerText));
    m_plot->xAxis->setSubTicks(false);
    m_plot->xAxis->grid()->setVisible(false);
    m_plot->xAxis->setLabel(tr("Layers in execution order"));
    m_plot->yAxis->setTicker(m_yTicker);
    m_plot->yAxis->setLabel(tr("SQNR (dB)"));

    m_weightBars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_weightBars->setName(tr("Weight SQNR"));
    m_weightBars->setWidth(kBarWidth);
    m_weightBars->setPen(QPen(kWeightColor.darker(130)));
    m_weightBars->setBrush(kWeightColor);
    m_fp32WeightBars = new QCPBars(m_plot->xAxis, m_plot->yAxis);
    m_fp32WeightBars->setName(tr("fp32 layer"));
    m_fp32WeightBars->setWidth(kBarWidth);
    m_fp32WeightBars->setPen(QPen(kFp32Color));
    m_fp32WeightBars->setBrush(QBrush(kFp32Color, Qt::BDiagPattern));

    // The line (legend entry, with a dot) and the dots are two graphs: a figure on the "∞" row
    // keeps its dot but breaks the line instead of spiking it to the top.
    m_cumulativeLine = m_plot->addGraph();
    m_cumulativeLine->setName(tr("Cumulative SQNR"));
    m_cumulativeLine->setPen(QPen(kCumulativeColor, 2));
    m_cumulativeLine->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
    m_cumulative = m_plot->addGraph();
    m_cumulative->setName(tr("Cumulative SQNR"));
    m_cumulative->setLineStyle(QCPGraph::lsNone);
    m_cumulative->setPen(QPen(kCumulativeColor, 2));
    m_cumulative->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, 7));
    m_cumulative->removeFromLegend();
    m_isolated = m_plot->addGraph();
    m_isolated->setName(tr("Isolated SQNR"));
    m_isolated->setLineStyle(QCPGraph::lsNone);
    m_isolated->setScatterStyle(QCPScatterStyle(
        QCPScatterStyle::ssDiamond, QPen(kIsolatedColor.darker(120), 1.5), kIsolatedColor, 9));
    m_underThreshold = m_plot->addGraph();
    m_underThreshold->setName(tr("Under threshold"));
    m_underThreshold->setLineStyle(QCPGraph::lsNone);
    m_underThreshold->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(kUnderColor, 2), Qt::NoBrush, 13));
    m_offScale = m_plot->addGraph();
    m_offScale->setName(tr("Off scale"));
    m_offScale->setLineStyle(QCPGraph::lsNone);
    m_offScale->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssTriangle, QPen(Qt::darkGray, 1.5), Qt::NoBrush, 12));
    m_thresholdLegend = m_plot->addGraph();
    m_thresholdLegend->setName(tr("Threshold (drag)"));
    m_thresholdLegend->setPen(QPen(kUnderColor, 1.5, Qt::DashLine));

    m_thresholdLine = new QCPItemStraightLine(m_plot);
    m_thresholdLine->setPen(QPen(kUnderColor, 1.5, Qt::DashLine));
    m_thresholdLabel = new QCPItemText(m_plot);
    m_thresholdLabel->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    m_thresholdLabel->position->setAxisRect(m_plot->axisRect());
    m_thresholdLabel->setPositionAlignment(Qt::AlignRight | Qt::AlignBottom);
    m_thresholdLabel->setColor(kUnderColor);
    m_thresholdLabel->setPadding(QMargins(3, 1, 3, 1));
    QColor selectionEdge = kSelectionColor;
    selectionEdge.setAlpha(170);
    m_selectionBand =
        makeBand(QColor(kSelectionColor.red(), kSelectionColor.green(), kSelectionColor.blue(), 40),
                 QPen(selectionEdge, 1.0));
    m_selectionBand->setLayer(QStringLiteral("main"));
    m_selectionBand->setVisible(false);

    putLegendAbovePlot(m_plot);

    connect(m_plot->xAxis, qOverload<const QCPRange &>(&QCPAxis::rangeChanged), this,
            &SqnrChart::clampXRange);
    connect(m_plot, &QCustomPlot::mousePress, this, &SqnrChart::onMousePress);
    connect(m_plot, &QCustomPlot::mouseMove, this, &SqnrChart::onMouseMove);
    connect(m_plot, &QCustomPlot::mouseRelease, this, &SqnrChart::onMouseRelease);
    connect(m_plot, &QCustomPlot::mouseDoubleClick, this, &SqnrChart::onMouseDoubleClick);
}

QCPItemRect *SqnrChart::makeBand(const QBrush &brush, const QPen &pen) {
    // A full-height column: x in layer coordinates, y as a fraction of the plot area.
    auto *band = new QCPItemRect(m_plot);
    band->setLayer(QStringLiteral("bands"));
    for (QCPItemPosition *p : {band->topLeft, band->bottomRight}) {
        p->setTypeY(QCPItemPosition::ptAxisRectRatio);
        p->setAxisRect(m_plot->axisRect());
    }
    band->topLeft->setCoords(0, 0);
    band->bottomRight->setCoords(0, 1);
    band->setBrush(brush);
    band->setPen(pen);
    band->setSelectable(false);
    // Axis-aligned fills need no antialiasing; with it, the raster engine spent ~30 ms per
    // replot on a few translucent full-height rectangles (resnet18, bench_gui_thread).
    band->setAntialiased(false);
    return band;
}

void SqnrChart::applyPalette() {
    applyPlotPalette(m_plot);
    const QPalette pal = palette();
    m_fp32WeightBars->setBrush(QBrush(kFp32Color, Qt::BDiagPattern));
    // The dark blue line vanishes on a dark base: a lighter blue there.
    const bool darkBase = pal.color(QPalette::Base).lightness() < 110;
    const QColor cumulative = darkBase ? QColor(95, 165, 255) : kCumulativeColor;
    QPen linePen = m_cumulativeLine->pen();
    linePen.setColor(cumulative);
    m_cumulativeLine->setPen(linePen);
    m_cumulative->setPen(QPen(cumulative, 2));
    QColor labelBackground = pal.color(QPalette::Base);
    labelBackground.setAlpha(215);
    m_thresholdLabel->setBrush(labelBackground);
}

void SqnrChart::changeEvent(QEvent *event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        applyPalette();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    }
}

bool SqnrChart::eventFilter(QObject *watched, QEvent *event) {
    if (watched != m_plot || event->type() != QEvent::KeyPress || layerCount() == 0)
        return QWidget::eventFilter(watched, event);
    const int last = layerCount() - 1;
    int target = -2;
    switch (static_cast<QKeyEvent *>(event)->key()) {
        case Qt::Key_Left:
            target = m_selected < 0 ? last : std::max(0, m_selected - 1);
            break;
        case Qt::Key_Right:
            target = m_selected < 0 ? 0 : std::min(last, m_selected + 1);
            break;
        case Qt::Key_Home:
            target = 0;
            break;
        case Qt::Key_End:
            target = last;
            break;
        default:
            return QWidget::eventFilter(watched, event);
    }
    selectLayer(target);
    return true;
}

int SqnrChart::layerCount() const {
    return m_report ? static_cast<int>(m_report->layers.size()) : 0;
}

void SqnrChart::setReport(ReportPtr report) {
    m_report = std::move(report);
    m_shortNames.clear();
    if (m_report)
        for (const analysis::LayerReport &layer : m_report->layers)
            m_shortNames << shortLayerName(QString::fromStdString(layer.name),
                                           QString::fromStdString(layer.opType));
    const int previous = m_selected;
    m_selected = -1;
    m_hoveredLayer = -1;
    computeScale();
    rebuildData();
    rebuildFp32Bands();
    rebuildThresholdMarks();
    updateThresholdLine();
    updateSelectionBand();
    resetZoom();
    if (previous != -1) emit layerSelected(-1);
}

void SqnrChart::computeScale() {
    // The scale covers the finite figures with some headroom, from 0 (or the lowest negative
    // figure) to 50..80 dB; anything beyond goes to an off-scale row.
    double lo = 0.0, hi = 0.0;
    bool infTop = false, finiteTop = false, infBottom = false, finiteBottom = false;
    std::vector<double> values;
    if (m_report)
        for (const analysis::LayerReport &layer : m_report->layers)
            for (const auto v : {weightSqnr(layer), cumulativeSqnr(layer), isolatedSqnr(layer)})
                if (v) values.push_back(*v);
    // Figures beyond the widest scale go to a row anyway: they must not stretch the scale.
    for (const double v : values)
        if (std::isfinite(v) && v <= kMaxScaleTop && v >= kMinScaleBottom) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    m_scaleTop = std::clamp(ceilTo(hi + 3.0, 10.0), kMinScaleTop, kMaxScaleTop);
    m_scaleBottom = std::clamp(lo < 0.0 ? floorTo(lo - 3.0, 10.0) : 0.0, kMinScaleBottom, 0.0);
    for (const double v : values) {
        if (v > m_scaleTop) (std::isinf(v) ? infTop : finiteTop) = true;
        if (v < m_scaleBottom) (std::isinf(v) ? infBottom : finiteBottom) = true;
    }
    m_hasTopRow = infTop || finiteTop;
    m_hasBottomRow = infBottom || finiteBottom;
    m_topRow = m_hasTopRow ? m_scaleTop + kOffScaleGap : m_scaleTop;
    m_bottomRow = m_hasBottomRow ? m_scaleBottom - kOffScaleGap : m_scaleBottom;
    m_yTicker->setScale(m_scaleBottom, m_scaleTop);
    m_yTicker->setTopRow(m_topRow, !m_hasTopRow ? QString()
                                   : finiteTop  ? tr("> %1").arg(m_scaleTop)
                                                : QStringLiteral("∞"));
    m_yTicker->setBottomRow(m_bottomRow, !m_hasBottomRow ? QString()
                                         : finiteBottom  ? tr("< %1").arg(m_scaleBottom)
                                                         : QStringLiteral("−∞"));
    // Headroom above the top for the fp32 labels and the off-scale triangles.
    m_plot->yAxis->setRange(m_bottomRow - (m_hasBottomRow ? 3.0 : 0.0),
                            m_topRow + (m_hasTopRow ? 4.0 : 2.0));
}

double SqnrChart::plotted(double db) const {
    if (db > m_scaleTop) return m_topRow;
    if (db < m_scaleBottom) return m_bottomRow;
    return db;
}

void SqnrChart::rebuildData() {
    QVector<double> wx, wy, fx, fy, cx, cy, ix, iy, ox, oy, lx, ly;
    for (int i = 0; i < layerCount(); ++i) {
        const analysis::LayerReport &layer = m_report->layers[static_cast<size_t>(i)];
        const auto add = [&](std::optional<double> v, QVector<double> &x, QVector<double> &y) {
            if (!v) return;
            x << i;
            y << plotted(*v);
            if (*v > m_scaleTop || *v < m_scaleBottom) {
                ox << i;
                oy << plotted(*v);
            }
        };
        if (isFp32(layer))
            add(weightSqnr(layer), fx, fy);
        else
            add(weightSqnr(layer), wx, wy);
        add(cumulativeSqnr(layer), cx, cy);
        if (const auto c = cumulativeSqnr(layer)) {
            const bool onScale = *c <= m_scaleTop && *c >= m_scaleBottom;
            lx << i;
            ly << (onScale ? *c : std::numeric_limits<double>::quiet_NaN());  // NaN: a gap
        }
        add(isolatedSqnr(layer), ix, iy);
    }
    m_weightBars->setData(wx, wy, true);
    m_fp32WeightBars->setData(fx, fy, true);
    m_cumulative->setData(cx, cy, true);
    m_cumulativeLine->setData(lx, ly, true);
    m_isolated->setData(ix, iy, true);
    m_offScale->setData(ox, oy);
    if (ox.isEmpty())
        m_offScale->removeFromLegend();
    else
        m_offScale->addToLegend();
}

void SqnrChart::rebuildFp32Bands() {
    for (QCPItemRect *band : std::as_const(m_fp32Bands)) m_plot->removeItem(band);
    for (QCPItemText *label : std::as_const(m_fp32Labels)) m_plot->removeItem(label);
    m_fp32Bands.clear();
    m_fp32Labels.clear();
    QColor tint = kFp32Color;
    tint.setAlpha(120);
    for (int i = 0; i < layerCount(); ++i) {
        if (!isFp32(m_report->layers[static_cast<size_t>(i)])) continue;
        QCPItemRect *band = makeBand(QBrush(tint, Qt::BDiagPattern), Qt::NoPen);
        band->topLeft->setCoords(i - 0.5, 0);
        band->bottomRight->setCoords(i + 0.5, 1);
        m_fp32Bands << band;
        auto *label = new QCPItemText(m_plot);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        label->position->setAxisRect(m_plot->axisRect());
        label->position->setCoords(i, 0.01);
        label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
        label->setText(tr("fp32"));
        label->setColor(kFp32Color.darker(120));
        m_fp32Labels << label;
    }
    if (m_fp32Bands.isEmpty())
        m_fp32WeightBars->removeFromLegend();
    else
        m_fp32WeightBars->addToLegend();
}

QVector<int> SqnrChart::layersUnderThreshold() const {
    QVector<int> under;
    for (int i = 0; i < layerCount(); ++i)
        if (isUnderThreshold(m_report->layers[static_cast<size_t>(i)], m_thresholdDb)) under << i;
    return under;
}

void SqnrChart::rebuildThresholdMarks() {
    for (QCPItemRect *band : std::as_const(m_thresholdBands)) m_plot->removeItem(band);
    m_thresholdBands.clear();
    QVector<double> x, y;
    const QVector<int> under = layersUnderThreshold();
    for (int k = 0; k < under.size(); ++k) {
        const int i = under[k];
        // One band per run of neighbouring layers: overlapping translucent edges would show.
        if (k == 0 || under[k - 1] != i - 1) {
            QCPItemRect *band = makeBand(
                QColor(kUnderColor.red(), kUnderColor.green(), kUnderColor.blue(), 26), Qt::NoPen);
            band->topLeft->setCoords(i - 0.5, 0);
            m_thresholdBands << band;
        }
        m_thresholdBands.back()->bottomRight->setCoords(i + 0.5, 1);
        const analysis::LayerReport &layer = m_report->layers[static_cast<size_t>(i)];
        for (const auto v : {cumulativeSqnr(layer), isolatedSqnr(layer)})
            if (v && *v < m_thresholdDb) {
                x << i;
                y << plotted(*v);
            }
    }
    m_underThreshold->setData(x, y);
}

void SqnrChart::updateThresholdLine() {
    const double y = plotted(m_thresholdDb);
    m_thresholdLine->point1->setCoords(0, y);
    m_thresholdLine->point2->setCoords(1, y);
    m_thresholdLabel->position->setCoords(0.995, y);
    m_thresholdLabel->setText(tr("%1 dB").arg(formatDb(m_thresholdDb)));
}

void SqnrChart::setPrinted() { m_thresholdLegend->setName(tr("Threshold")); }

void SqnrChart::setThresholdDb(double thresholdDb) {
    if (std::isnan(thresholdDb) || thresholdDb == m_thresholdDb) return;
    m_thresholdDb = thresholdDb;
    rebuildThresholdMarks();
    updateThresholdLine();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    emit thresholdChanged(m_thresholdDb);
}

void SqnrChart::updateSelectionBand() {
    m_selectionBand->setVisible(m_selected >= 0);
    m_selectionBand->topLeft->setCoords(m_selected - 0.5, 0);
    m_selectionBand->bottomRight->setCoords(m_selected + 0.5, 1);
}

void SqnrChart::selectLayer(int layer) {
    if (layer < 0 || layer >= layerCount()) layer = -1;
    if (layer == m_selected) return;
    m_selected = layer;
    updateSelectionBand();
    if (layer >= 0) {
        const QCPRange range = m_plot->xAxis->range();
        if (layer - 0.5 < range.lower || layer + 0.5 > range.upper)
            m_plot->xAxis->setRange(layer, range.size(), Qt::AlignCenter);
    }
    m_plot->replot(QCustomPlot::rpQueuedReplot);
    emit layerSelected(m_selected);
}

void SqnrChart::resetZoom() {
    m_plot->xAxis->setRange(-0.5 - 0.3, std::max(layerCount(), 1) - 0.5 + 0.3);
    updateXTicks();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void SqnrChart::clampXRange(const QCPRange &range) {
    // Keep the view on the layers: never wider than all of them, never narrower than a few.
    const double lo = -0.8, hi = std::max(layerCount(), 1) - 0.2;
    const double minSize = std::min(kMinVisibleLayers, hi - lo);
    QCPRange r = range;
    if (r.size() > hi - lo) r = QCPRange(lo, hi);
    if (r.size() < minSize) r = QCPRange(r.center() - minSize / 2, r.center() + minSize / 2);
    if (r.lower < lo) r += lo - r.lower;
    if (r.upper > hi) r -= r.upper - hi;
    if (r.lower != range.lower || r.upper != range.upper) {
        m_plot->xAxis->setRange(r);  // re-enters with the clamped range
        return;
    }
    updateXTicks();
}

void SqnrChart::updateXTicks() {
    // One label per layer when they fit; else rotated, and then only every 2nd, 5th, 10th, ...
    // layer (multiples, so labels do not jump while panning).
    auto ticker = qSharedPointerCast<QCPAxisTickerText>(m_plot->xAxis->ticker());
    ticker->clear();
    const int n = layerCount();
    if (n == 0) return;
    const QFontMetrics fm(m_plot->xAxis->tickLabelFont());
    const int maxLabelPx = fm.averageCharWidth() * 24;
    QStringList labels;
    int widest = 0;
    for (const QString &name : std::as_const(m_shortNames)) {
        labels << fm.elidedText(name, Qt::ElideMiddle, maxLabelPx);
        widest = std::max(widest, fm.horizontalAdvance(labels.back()));
    }
    const QCPRange range = m_plot->xAxis->range();
    const double axisPx = std::max(50, m_plot->width() - 90);  // margins: y labels and padding
    const double perLayerPx = axisPx / range.size();
    const bool horizontal = widest + 10 <= perLayerPx;
    const double needPx = horizontal ? widest + 10 : fm.height() * 1.5;
    int step = 1;
    for (const int s : {1, 2, 5, 10, 20, 25, 50, 100, 200, 500, 1000}) {
        step = s;
        if (s * perLayerPx >= needPx) break;
    }
    for (int i = 0; i < n; i += step) ticker->addTick(i, labels[i]);
    m_plot->xAxis->setTickLabelRotation(horizontal ? 0 : -45);
    // A label rotated -45° ends at its tick and reaches left of it, and QCustomPlot drops a
    // label that would cross the widget's edge: leave room for the first one.
    const int firstVisible = std::max(0, static_cast<int>(std::ceil(range.lower / step)) * step);
    const int reach =
        horizontal || firstVisible >= n
            ? 0
            : static_cast<int>(0.71 * (fm.horizontalAdvance(labels[firstVisible]) + fm.height())) +
                  6 - static_cast<int>((firstVisible - range.lower) * perLayerPx);
    m_plot->axisRect()->setMinimumMargins(QMargins(std::clamp(reach, 0, 200), 0, 0, 0));
    // fp32 labels only when a layer is wide enough for the word.
    const bool roomForFp32 = perLayerPx >= fm.horizontalAdvance(tr("fp32")) + 4;
    for (QCPItemText *label : std::as_const(m_fp32Labels)) label->setVisible(roomForFp32);
    updateMarkerSizes(perLayerPx);
}

void SqnrChart::updateMarkerSizes(double perLayerPx) {
    // Markers a bit narrower than a layer's column, so 150 layers do not merge into a smear.
    const double scale = std::clamp(perLayerPx / 14.0, 0.55, 1.0);
    const auto resize = [scale](QCPGraph *graph, double size) {
        QCPScatterStyle style = graph->scatterStyle();
        style.setSize(size * scale);
        graph->setScatterStyle(style);
    };
    resize(m_cumulative, 7);
    resize(m_cumulativeLine, 7);
    resize(m_isolated, 9);
    resize(m_underThreshold, 13);
    resize(m_offScale, 12);
    // Bars no wider than 40 px: with few layers, wide bars would drown the activation figures.
    const double barWidth = std::min(kBarWidth, 40.0 / std::max(perLayerPx, 1.0));
    m_weightBars->setWidth(barWidth);
    m_fp32WeightBars->setWidth(barWidth);
    QPen linePen = m_cumulativeLine->pen();
    linePen.setWidthF(scale < 0.8 ? 1.2 : 2.0);
    m_cumulativeLine->setPen(linePen);
}

void SqnrChart::resizeEvent(QResizeEvent *event) {
    QWidget::resizeEvent(event);
    updateXTicks();
}

QString SqnrChart::toolTipText(int layer) const {
    if (layer < 0 || layer >= layerCount()) return {};
    const analysis::LayerReport &l = m_report->layers[static_cast<size_t>(layer)];
    QStringList lines;
    lines << tr("%1. %2").arg(layer).arg(QString::fromStdString(l.name));
    lines << tr("%1, runs %2")
                 .arg(QString::fromStdString(l.opType), isFp32(l) ? tr("fp32") : tr("int8"));
    lines << tr("Weight SQNR: %1 dB").arg(formatDb(weightSqnr(l)));
    lines << tr("Cumulative SQNR: %1 dB").arg(formatDb(cumulativeSqnr(l)));
    lines << tr("Isolated SQNR: %1 dB").arg(formatDb(isolatedSqnr(l)));
    if (const auto p5 = sampleP5Sqnr(l)) lines << tr("Per-sample p5: %1 dB").arg(formatDb(p5));
    if (const auto k = kernelVsReferenceSqnr(l))
        lines << (hasKernelMismatch(l) ? tr("Kernel vs reference: %1 dB (mismatch)")
                                       : tr("Kernel vs reference: %1 dB"))
                     .arg(formatDb(k));
    if (isUnderThreshold(l, m_thresholdDb))
        lines << tr("Under the %1 dB threshold").arg(formatDb(m_thresholdDb));
    return lines.join(QLatin1Char('\n'));
}

int SqnrChart::layerAt(const QPoint &position) const {
    if (!m_plot->axisRect()->rect().contains(position)) return -1;
    const int layer = static_cast<int>(std::lround(m_plot->xAxis->pixelToCoord(position.x())));
    return layer >= 0 && layer < layerCount() ? layer : -1;
}

QPoint SqnrChart::pixelFor(int layer, double db) const {
    return QPoint(static_cast<int>(std::lround(m_plot->xAxis->coordToPixel(layer))),
                  static_cast<int>(std::lround(m_plot->yAxis->coordToPixel(plotted(db)))));
}

bool SqnrChart::nearThresholdLine(const QPoint &position) const {
    if (!m_plot->axisRect()->rect().contains(position)) return false;
    const double lineY = m_plot->yAxis->coordToPixel(plotted(m_thresholdDb));
    return std::abs(position.y() - lineY) <= kThresholdGrabPx;
}

void SqnrChart::onMousePress(QMouseEvent *event) {
    m_pressPosition = event->pos();
    m_draggingThreshold = event->button() == Qt::LeftButton && nearThresholdLine(event->pos());
    // Decided before the axis rect sees the press: no panning while the line moves.
    m_plot->setInteraction(QCP::iRangeDrag, !m_draggingThreshold);
}

void SqnrChart::onMouseMove(QMouseEvent *event) {
    if (m_draggingThreshold) {
        const double db = m_plot->yAxis->pixelToCoord(event->pos().y());
        setThresholdDb(std::clamp(std::round(db * 2.0) / 2.0, m_scaleBottom, m_scaleTop));
        return;
    }
    if (event->buttons() != Qt::NoButton) return;
    m_plot->setCursor(nearThresholdLine(event->pos()) ? Qt::SizeVerCursor : Qt::ArrowCursor);
    const int layer = layerAt(event->pos());
    if (layer != m_hoveredLayer) {
        m_hoveredLayer = layer;
        if (layer < 0)
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), toolTipText(layer), m_plot);
    }
}

void SqnrChart::onMouseRelease(QMouseEvent *event) {
    const bool wasDragging = m_draggingThreshold;
    m_draggingThreshold = false;
    m_plot->setInteraction(QCP::iRangeDrag, true);
    if (wasDragging || event->button() != Qt::LeftButton) return;
    if ((event->pos() - m_pressPosition).manhattanLength() > kClickSlopPx) return;  // a pan
    const int layer = layerAt(event->pos());
    if (layer >= 0) selectLayer(layer);
}

void SqnrChart::onMouseDoubleClick(QMouseEvent *event) {
    if (m_plot->axisRect()->rect().contains(event->pos())) resetZoom();
}

}  // namespace ql::ui

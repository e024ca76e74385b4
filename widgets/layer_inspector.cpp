#include "layer_inspector.h"

#include <QCheckBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <cmath>

#include "display_format.h"
#include "element_explanation_view.h"
#include "layer_choices_bar.h"
#include "layer_inspector_plots.h"
#include "worker_pool.h"

namespace ql::ui {
namespace {

QString typeName(DataType t) {
    switch (t) {
        case DataType::UInt8:
            return QStringLiteral("uint8");
        case DataType::Int8:
            return QStringLiteral("int8");
        case DataType::Int32:
            return QStringLiteral("int32");
        case DataType::Float:
            return QStringLiteral("float32");
        default:
            return QString::fromStdString(dataTypeName(t));
    }
}

QTableWidgetItem *cell(const QString &text, bool number = false) {
    auto *item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    if (number) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QString num(double v) {
    return QString::number(v, 'g', 6);
}

QCustomPlot *makePlot(QWidget *parent) {
    auto *plot = new QCustomPlot(parent);
    plot->setMinimumHeight(220);
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    stylePlot(plot);
    return plot;
}

const analysis::QuantParamSet *findRole(const analysis::LayerInspection &r,
                                        const std::string &role) {
    for (const auto &p : r.qparams)
        if (p.role == role) return &p;
    return nullptr;
}

}  // namespace

LayerInspector::LayerInspector(QWidget *parent) : QWidget(parent) {
    m_title = new QLabel(tr("No layer selected"), this);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.15);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_busy = new QProgressBar(this);
    m_busy->setRange(0, 0);
    m_busy->setMaximumWidth(160);
    m_busy->setMaximumHeight(14);
    m_busy->setTextVisible(false);
    m_busy->setToolTip(tr("Running both models on the evaluation batch"));
    m_busy->hide();

    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);

    // Quantization parameters: the tensors, then per output channel.
    auto *paramsPage = new QSplitter(Qt::Vertical, m_tabs);
    m_tensorTable = new QTableWidget(0, 6, paramsPage);
    m_tensorTable->setHorizontalHeaderLabels(
        {tr("Tensor"), tr("Value"), tr("Type"), tr("Granularity"), tr("Scale"), tr("Zero point")});
    m_channelTable = new QTableWidget(0, 7, paramsPage);
    m_channelTable->setHorizontalHeaderLabels(
        {tr("Channel"), tr("Weight scale"), tr("Weight zero point"), tr("Bias (int32)"),
         tr("Weight min"), tr("Weight max"), tr("Weight SQNR (dB)")});
    // Fitting columns to all of a 2048-channel layer's rows cost the GUI thread ~30 ms per
    // layer; the first and last rows and a sample in between show the widths as well.
    m_channelTable->horizontalHeader()->setResizeContentsPrecision(64);
    for (QTableWidget *t : {m_tensorTable, m_channelTable}) {
        t->verticalHeader()->hide();
        t->setEditTriggers(QAbstractItemView::NoEditTriggers);
        t->setSelectionBehavior(QAbstractItemView::SelectRows);
        t->horizontalHeader()->setStretchLastSection(true);
        t->setAlternatingRowColors(true);
        t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    }
    m_channelTable->setToolTip(
        tr("Per output channel: the weight's scale and zero point, the int32 bias (at scale "
           "x_scale·w_scale), the float weight's range and the channel's weight SQNR"));
    paramsPage->addWidget(m_tensorTable);
    paramsPage->addWidget(m_channelTable);
    paramsPage->setStretchFactor(0, 1);
    paramsPage->setStretchFactor(1, 2);

    m_weightPlot = makePlot(m_tabs);
    m_weightPlot->setToolTip(
        tr("Float weight (BatchNormalization folded when the quantized model folded it) and "
           "dequantized int8 weight over the same bins"));
    m_activationPlot = makePlot(m_tabs);
    m_activationPlot->setToolTip(
        tr("The layer's float output and the quantized model's dequantized output, both "
           "models run end to end on the evaluation batch (cumulative)"));
    m_scatterPlot = makePlot(m_tabs);
    m_scatterPlot->setToolTip(
        tr("Float vs quantized output values at a fixed random subsample of elements; "
           "points on y = x have no error"));
    m_channelPlot = makePlot(m_tabs);
    m_channelPlot->setToolTip(
        tr("Per output channel: the float weight's min and max (bars) and the channel's "
           "weight SQNR (line, right axis)"));
    auto *samplePage = new QWidget(m_tabs);
    m_samplePlot = makePlot(samplePage);
    m_samplePlot->setToolTip(
        tr("SQNR of each evaluation sample at this layer (cumulative), sorted. A low 5th "
           "percentile with a high median means data-sensitive error (a few inputs suffer); "
           "all low means data-insensitive error."));
    m_sampleCaption = new QLabel(samplePage);
    m_sampleCaption->setWordWrap(true);
    auto *sampleLayout = new QVBoxLayout(samplePage);
    sampleLayout->setContentsMargins(0, 0, 0, 0);
    sampleLayout->addWidget(m_samplePlot, 1);
    sampleLayout->addWidget(m_sampleCaption);
    m_explain = new ElementExplanationView(m_tabs);
    // Options under a plot: one page per plot with a row of check boxes.
    auto withOptions = [this](QCustomPlot *plot, QCheckBox *box) {
        auto *page = new QWidget(m_tabs);
        plot->setParent(page);
        auto *l = new QVBoxLayout(page);
        l->setContentsMargins(0, 0, 0, 0);
        l->addWidget(plot, 1);
        l->addWidget(box);
        return page;
    };
    m_logCount = new QCheckBox(tr("Logarithmic count"), this);
    m_logCount->setToolTip(
        tr("Show the histograms' counts on a logarithmic axis, so that rare values (outliers, "
           "clipped tails) stay visible"));
    m_scatterError = new QCheckBox(
        tr("Show the error (quantized − float) instead of the quantized value"), this);
    auto *activationOptions = new QCheckBox(tr("Logarithmic count"), this);
    connect(m_logCount, &QCheckBox::toggled, activationOptions, &QCheckBox::setChecked);
    connect(activationOptions, &QCheckBox::toggled, m_logCount, &QCheckBox::setChecked);
    connect(m_logCount, &QCheckBox::toggled, this, [this] {
        if (m_inspection) fillPlots();
    });
    connect(m_scatterError, &QCheckBox::toggled, this, [this] {
        if (m_inspection) fillPlots();
    });

    m_tabs->insertTab(ParametersTab, paramsPage, tr("Quantization"));
    m_tabs->insertTab(WeightsTab, withOptions(m_weightPlot, m_logCount), tr("Weights"));
    m_tabs->insertTab(ActivationsTab, withOptions(m_activationPlot, activationOptions),
                      tr("Activations"));
    m_tabs->insertTab(ScatterTab, withOptions(m_scatterPlot, m_scatterError), tr("Scatter"));
    m_tabs->insertTab(ChannelsTab, m_channelPlot, tr("Channels"));
    m_tabs->insertTab(SamplesTab, samplePage, tr("Per-sample SQNR"));
    m_tabs->insertTab(ExplainTab, m_explain, tr("Explain element"));

    auto *header = new QHBoxLayout;
    header->addWidget(m_title, 1);
    header->addWidget(m_busy);
    m_choices = new LayerChoicesBar(this);
    m_choices->setObjectName(QStringLiteral("layerChoicesBar"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(header);
    layout->addWidget(m_summary);
    layout->addWidget(m_choices);
    layout->addWidget(m_tabs, 1);

    connect(&m_watcher, &QFutureWatcher<InspectorOutcome>::finished, this,
            &LayerInspector::onFinished);
    connect(m_explain, &ElementExplanationView::elementRequested, this,
            &LayerInspector::explainElement);
    setLayer(-1);
}

LayerInspector::~LayerInspector() {
    // The job owns copies of the shared context; nothing of this widget is touched off the GUI
    // thread, so it may finish after the widget is gone.
    m_watcher.disconnect(this);
}

bool LayerInspector::isBusy() const {
    return m_running || m_pending;
}

void LayerInspector::setContext(InspectorContext context) {
    m_runners.setModels(context.floatGraph, context.quantGraph, context.options.capture);
    m_context = std::move(context);
    ++m_generation;  // results of the old context are dropped
    m_pending = false;
    setLayer(-1);
}

const analysis::LayerReport *LayerInspector::reportRow() const {
    if (!m_context.report || m_row < 0 ||
        m_row >= static_cast<int>(m_context.report->layers.size()))
        return nullptr;
    return &m_context.report->layers[static_cast<size_t>(m_row)];
}

void LayerInspector::setLayer(int row) {
    m_row = row;
    m_inspection.reset();
    m_capture.reset();
    m_error.clear();
    const analysis::LayerReport *layer = reportRow();
    m_choices->setRow(m_row, layer);
    if (!layer) {
        m_row = -1;
        ++m_generation;
        m_pending = false;
        setBusy(false);
        m_title->setText(tr("No layer selected"));
        m_summary->setText(
            tr("Select a layer in the chart or the table to see its quantization parameters, "
               "histograms and an explained output element."));
        m_tensorTable->setRowCount(0);
        m_channelTable->setRowCount(0);
        for (QCustomPlot *p :
             {m_weightPlot, m_activationPlot, m_scatterPlot, m_channelPlot, m_samplePlot})
            showPlotMessage(p, tr("No layer selected"));
        m_sampleCaption->clear();
        m_explain->clear();
        return;
    }
    m_title->setText(
        tr("%1  (%2)")
            .arg(QString::fromStdString(layer->name), QString::fromStdString(layer->opType)));
    request(row, {});
}

void LayerInspector::explainElement(const std::vector<int64_t> &element) {
    if (m_row < 0) return;
    // With the layer's capture at hand only the explanation is recomputed.
    request(m_row, element, m_capture && m_inspection && !m_running);
}

void LayerInspector::request(int row, const std::vector<int64_t> &element, bool explainOnly) {
    ++m_generation;
    if (m_running) {
        // Superseded: the running job's result will be dropped, this one runs after it.
        m_pending = true;
        m_pendingRow = row;
        m_pendingElement = element;
        m_pendingExplainOnly = explainOnly || (m_capture != nullptr && m_inspection &&
                                               row == m_row && !element.empty());
        setBusy(true);
        return;
    }
    m_pending = false;
    if (explainOnly && m_capture) {
        setBusy(true);
        const quint64 generation = m_generation;
        auto capture = m_capture;
        m_running = true;
        m_watcher.setFuture(runInBackground([=]() {
            InspectorOutcome out;
            out.row = row;
            out.generation = generation;
            out.explainOnly = true;
            auto e = analysis::explainElement(*capture, element);
            if (e)
                out.explanation = std::move(*e);
            else
                out.error = QString::fromStdString(e.status().message());
            return out;
        }));
        return;
    }
    m_capture.reset();
    const analysis::LayerReport *layer = &m_context.report->layers[static_cast<size_t>(row)];
    const analysis::LayerMatch *match = nullptr;
    for (const auto &m : m_context.matches)
        if (m.floatNode == layer->name &&
            (layer->quantName.empty() || m.quantNode == layer->quantName))
            match = &m;
    if (!match || !m_context.floatGraph || !m_context.quantGraph || !m_context.batch) {
        m_error = !match ? tr("The layer has no match in the quantized model.")
                         : tr("No models or evaluation batch to inspect.");
        setBusy(false);
        showOutcome();
        emit inspected(row);
        return;
    }
    setBusy(true);
    const quint64 generation = m_generation;
    auto floatGraph = m_context.floatGraph, quantGraph = m_context.quantGraph;
    auto batch = m_context.batch;
    const analysis::LayerMatch matchCopy = *match;
    analysis::LayerInspectionOptions options = m_context.options;
    options.element = element;
    const CaptureRunners::Ticket ticket = m_runners.ticket();
    m_running = true;  // until onFinished: the future may be done before its signal arrives
    m_watcher.setFuture(runInBackground([=]() {
        InspectorOutcome out;
        out.row = row;
        out.generation = generation;
        auto runner = ticket.obtain(*floatGraph, *quantGraph, options.capture, out.builtRunner,
                                    out.floatHalfReused);
        if (!runner) {
            out.error = QString::fromStdString(runner.status().message());
            return out;
        }
        auto capture = (*runner)->capture(matchCopy, *batch);
        if (!capture) {
            out.error = QString::fromStdString(capture.status().message());
            return out;
        }
        out.capture = std::make_shared<const analysis::LayerCapture>(std::move(*capture));
        auto r = analysis::inspectCapture(*out.capture, options);
        if (r)
            out.inspection = std::move(*r);
        else
            out.error = QString::fromStdString(r.status().message());
        return out;
    }));
}

void LayerInspector::onFinished() {
    m_running = false;
    const InspectorOutcome out = m_watcher.result();
    m_runners.jobFinished(out.builtRunner, out.floatHalfReused, m_context.batch);
    if (m_pending) {
        m_pending = false;
        request(m_pendingRow, m_pendingElement, m_pendingExplainOnly && m_capture && m_inspection);
        return;
    }
    if (out.generation != m_generation || out.row != m_row) {
        setBusy(false);
        return;
    }
    if (out.explainOnly) {
        setBusy(false);
        if (m_inspection) {
            m_inspection->explanation = out.explanation;
            if (!out.explanation)
                m_inspection->notes.push_back("explanation: " + out.error.toStdString());
        }
        m_explain->setExplanation(out.explanation, out.error);
        emit inspected(m_row);
        return;
    }
    m_capture = out.capture;
    m_inspection = out.inspection;
    m_error = out.error;
    setBusy(false);
    showOutcome();
    emit inspected(m_row);
}

void LayerInspector::setBusy(bool busy, const QString &) {
    const bool was = m_busy->isVisible();
    m_busy->setVisible(busy);
    m_tabs->setEnabled(!busy);
    if (was != busy) emit busyChanged(busy);
}

void LayerInspector::showOutcome() {
    const analysis::LayerReport *layer = reportRow();
    if (!m_inspection) {
        m_summary->setText(m_error);
        m_tensorTable->setRowCount(0);
        m_channelTable->setRowCount(0);
        for (QCustomPlot *p : {m_weightPlot, m_activationPlot, m_scatterPlot})
            showPlotMessage(p, tr("No inspection: %1").arg(m_error));
        m_explain->clear(m_error);
        if (layer) fillPlots();  // the report's own figures still show
        return;
    }
    const analysis::LayerInspection &r = *m_inspection;
    QString ran = QString::fromStdString(r.quantRunOp);
    if (!r.quantRunReason.empty() && r.quantRunReason != r.quantRunOp)
        ran += QStringLiteral(" — ") + QString::fromStdString(r.quantRunReason);
    QString summary =
        tr("Quantized as %1 (%2); output %3; %4")
            .arg(QString::fromStdString(r.match.quantNode), ran, formatShape(r.outputShape),
                 layer ? QString::fromStdString(layer->precision) : QString());
    if (layer && layer->cumulative)
        summary += tr("; cumulative SQNR %1 dB").arg(formatDb(layer->cumulative->sqnrDb));
    if (layer && layer->weightSqnrDb)
        summary += tr("; weight SQNR %1 dB").arg(formatDb(layer->weightSqnrDb));
    if (r.batchNormFolded) summary += tr("; BatchNormalization folded into the weight");
    for (const auto &note : r.notes) summary += QStringLiteral("\n") + QString::fromStdString(note);
    m_summary->setText(summary);
    fillTables();
    fillPlots();
    m_explain->setExplanation(r.explanation, tr("No explanation for this layer."));
}

void LayerInspector::fillTables() {
    const analysis::LayerInspection &r = *m_inspection;
    m_tensorTable->setRowCount(static_cast<int>(r.qparams.size()));
    for (int i = 0; i < static_cast<int>(r.qparams.size()); ++i) {
        const auto &p = r.qparams[static_cast<size_t>(i)];
        const bool perChannel = p.scale.size() > 1;
        QString scale, zp;
        if (perChannel) {
            const auto [lo, hi] = std::minmax_element(p.scale.begin(), p.scale.end());
            scale = tr("%1 … %2").arg(num(*lo), num(*hi));
            const auto [zlo, zhi] = std::minmax_element(p.zeroPoint.begin(), p.zeroPoint.end());
            zp = *zlo == *zhi ? QString::number(*zlo) : tr("%1 … %2").arg(*zlo).arg(*zhi);
        } else if (!p.scale.empty()) {
            scale = num(p.scale[0]);
            zp = QString::number(p.zeroPoint.empty() ? 0 : p.zeroPoint[0]);
        }
        const QString granularity =
            perChannel ? tr("per channel (axis %1, %2 channels)").arg(p.axis).arg(p.scale.size())
                       : tr("per tensor");
        m_tensorTable->setItem(i, 0, cell(QString::fromStdString(p.role)));
        m_tensorTable->setItem(i, 1, cell(QString::fromStdString(p.value)));
        m_tensorTable->setItem(i, 2, cell(typeName(p.type)));
        m_tensorTable->setItem(i, 3, cell(granularity));
        m_tensorTable->setItem(i, 4, cell(scale, true));
        m_tensorTable->setItem(i, 5, cell(zp, true));
    }
    m_tensorTable->resizeColumnsToContents();

    // Per output channel: the weight's parameters, the bias and the report's channel figures.
    const analysis::QuantParamSet *w = findRole(r, "weight");
    const analysis::QuantParamSet *b = findRole(r, "bias");
    const analysis::LayerReport *layer = reportRow();
    size_t channels = 0;
    if (w && w->scale.size() > 1) channels = w->scale.size();
    if (layer)
        channels =
            std::max({channels, layer->weightChannelMin.size(), layer->weightChannelSqnrDb.size()});
    if (b) channels = std::max(channels, b->values.size());
    m_channelTable->setRowCount(static_cast<int>(channels));
    for (size_t c = 0; c < channels; ++c) {
        const int row = static_cast<int>(c);
        auto at = [&](const auto &v) { return v.size() == 1 ? v[0] : v[c]; };
        m_channelTable->setItem(row, 0, cell(QString::number(c), true));
        m_channelTable->setItem(
            row, 1,
            cell(w && !w->scale.empty() && (w->scale.size() == 1 || c < w->scale.size())
                     ? num(at(w->scale))
                     : QString(),
                 true));
        m_channelTable->setItem(
            row, 2,
            cell(w && !w->zeroPoint.empty() && (w->zeroPoint.size() == 1 || c < w->zeroPoint.size())
                     ? QString::number(at(w->zeroPoint))
                     : QString(),
                 true));
        m_channelTable->setItem(
            row, 3,
            cell(b && c < b->values.size() ? QString::number(b->values[c]) : QString(), true));
        const bool ranges =
            layer && c < layer->weightChannelMin.size() && c < layer->weightChannelMax.size();
        m_channelTable->setItem(row, 4,
                                cell(ranges ? num(layer->weightChannelMin[c]) : QString(), true));
        m_channelTable->setItem(row, 5,
                                cell(ranges ? num(layer->weightChannelMax[c]) : QString(), true));
        m_channelTable->setItem(row, 6,
                                cell(layer && c < layer->weightChannelSqnrDb.size()
                                         ? formatDb(layer->weightChannelSqnrDb[c])
                                         : QString(),
                                     true));
    }
    m_channelTable->resizeColumnsToContents();
}

void LayerInspector::fillPlots() {
    for (QCustomPlot *p :
         {m_weightPlot, m_activationPlot, m_scatterPlot, m_channelPlot, m_samplePlot})
        stylePlot(p);
    const analysis::LayerReport *layer = reportRow();
    if (m_inspection) {
        const analysis::LayerInspection &r = *m_inspection;
        const bool logCount = m_logCount->isChecked();
        if (r.weightHistogram)
            plotHistogramPair(
                m_weightPlot, *r.weightHistogram,
                r.batchNormFolded ? tr("weight value (BN folded)") : tr("weight value"), logCount);
        else
            showPlotMessage(m_weightPlot, tr("This layer has no quantized weight."));
        if (r.activationHistogram)
            plotHistogramPair(m_activationPlot, *r.activationHistogram, tr("output value"),
                              logCount);
        const analysis::QuantParamSet *out = findRole(r, "output");
        if (r.activationHistogram && out && out->scale.size() == 1 &&
            (out->type == DataType::UInt8 || out->type == DataType::Int8)) {
            const double qmin = out->type == DataType::UInt8 ? 0.0 : -128.0, qmax = qmin + 255.0;
            const double zp = out->zeroPoint.empty() ? 0.0 : out->zeroPoint[0];
            markQuantRange(m_activationPlot, out->scale[0] * (qmin - zp),
                           out->scale[0] * (qmax - zp));
        }
        plotScatter(m_scatterPlot, r.scatter, m_scatterError->isChecked());
    }
    if (layer && !layer->weightChannelMin.empty())
        plotChannelRanges(m_channelPlot, layer->weightChannelMin, layer->weightChannelMax,
                          layer->weightChannelSqnrDb);
    else
        showPlotMessage(m_channelPlot, tr("No per-channel weight figures for this layer."));
    if (layer && layer->cumulative && !layer->cumulative->sampleSqnrValues.empty()) {
        const int infinite =
            plotSampleSqnr(m_samplePlot, layer->cumulative->sampleSqnrValues,
                           layer->sampleRanges.empty() ? nullptr : &layer->sampleRanges);
        const auto &s = layer->cumulative->sampleSqnr;
        QString caption = tr("%n sample(s)", nullptr,
                             static_cast<int>(layer->cumulative->sampleSqnrValues.size()));
        if (s)
            caption += tr(": min %1 dB, 5th percentile %2 dB, median %3 dB.")
                           .arg(formatDb(s->min), formatDb(s->p5), formatDb(s->median));
        if (s && std::isfinite(s->median) && std::isfinite(s->p5) && s->median - s->p5 > 6.0)
            caption +=
                tr(" The 5th percentile is far below the median: the error is data-sensitive "
                   "(a few inputs suffer most).");
        (void)infinite;
        if (const auto r = analysis::summarizeSampleRanges(layer->sampleRanges);
            r && std::isfinite(r->ratio))
            caption +=
                tr(" Float output range per sample: %1 to %2 (%3x).")
                    .arg(QString::number(r->smallest, 'g', 3), QString::number(r->largest, 'g', 3),
                         QString::number(r->ratio, 'f', 1));
        m_sampleCaption->setText(caption);
    } else {
        showPlotMessage(m_samplePlot, tr("No per-sample SQNR figures for this layer."));
        m_sampleCaption->clear();
    }
}

void LayerInspector::changeEvent(QEvent *event) {
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange) {
        // The plots get the new palette after this event: restyle once they have it.
        QTimer::singleShot(0, this, [this] {
            fillPlots();
            if (m_row < 0)
                for (QCustomPlot *p :
                     {m_weightPlot, m_activationPlot, m_scatterPlot, m_channelPlot, m_samplePlot})
                    showPlotMessage(p, tr("No layer selected"));
        });
    }
}

}  // namespace ql::ui

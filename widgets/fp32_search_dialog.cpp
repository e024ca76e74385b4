#include "fp32_search_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

#include "fp32_pareto_chart.h"
#include "fp32_search_text.h"

namespace ql::ui {

namespace {

using analysis::SearchMetric;

// The target each metric starts from: where users of the anchors usually aim.
double defaultTarget(SearchMetric metric) {
    switch (metric) {
        case SearchMetric::Sqnr:
            return 35.0;
        case SearchMetric::Agreement:
            return 99.0;
        case SearchMetric::AccuracyDrop:
            return 0.5;
    }
    return 0.0;
}

// "in fp32" / "at 16 bits": where the chosen layers go.
QString where(analysis::SearchPrecision precision) {
    return precision == analysis::SearchPrecision::Int16 ? Fp32SearchDialog::tr("at 16 bits")
                                                         : Fp32SearchDialog::tr("in fp32");
}

}  // namespace

Fp32SearchDialog::Fp32SearchDialog(QWidget *parent)
    : QDialog(parent),
      m_metric(new QComboBox(this)),
      m_objective(new QComboBox(this)),
      m_raiseTo(new QComboBox(this)),
      m_target(new QDoubleSpinBox(this)),
      m_holdout(new QSpinBox(this)),
      m_maxEvaluations(new QSpinBox(this)),
      m_search(new QPushButton(tr("&Search"), this)),
      m_cancel(new QPushButton(tr("Cancel"), this)),
      m_apply(new QPushButton(tr("&Apply This Set"), this)),
      m_progress(new QProgressBar(this)),
      m_progressLabel(new QLabel(this)),
      m_summary(new QLabel(this)),
      m_applied(new QLabel(this)),
      m_layers(new QListWidget(this)),
      m_chart(new Fp32ParetoChart(this)) {
    setWindowTitle(tr("Find fp32 Set"));
    setObjectName(QStringLiteral("fp32SearchDialog"));
    m_metric->setObjectName(QStringLiteral("metricCombo"));
    m_objective->setObjectName(QStringLiteral("objectiveCombo"));
    m_raiseTo->setObjectName(QStringLiteral("raiseToCombo"));
    m_target->setObjectName(QStringLiteral("targetSpin"));
    m_holdout->setObjectName(QStringLiteral("holdoutSpin"));
    m_maxEvaluations->setObjectName(QStringLiteral("maxEvaluationsSpin"));
    m_search->setObjectName(QStringLiteral("searchButton"));
    m_cancel->setObjectName(QStringLiteral("cancelButton"));
    m_apply->setObjectName(QStringLiteral("applyButton"));
    m_progress->setObjectName(QStringLiteral("searchProgress"));
    m_summary->setObjectName(QStringLiteral("summaryLabel"));
    m_progressLabel->setObjectName(QStringLiteral("progressLabel"));
    m_layers->setObjectName(QStringLiteral("layerList"));
    m_chart->setObjectName(QStringLiteral("paretoChart"));

    m_metric->addItem(searchMetricName(SearchMetric::Sqnr), int(SearchMetric::Sqnr));
    m_metric->addItem(searchMetricName(SearchMetric::Agreement), int(SearchMetric::Agreement));
    m_metric->addItem(searchMetricName(SearchMetric::AccuracyDrop),
                      int(SearchMetric::AccuracyDrop));
    m_objective->addItem(tr("Fewest layers"), int(analysis::SearchObjective::Layers));
    m_objective->addItem(tr("Fastest int8 plan"), int(analysis::SearchObjective::Latency));
    m_objective->setToolTip(
        tr("Fastest: the int8 plans of the measured sets that meet the target are timed and the "
           "fastest wins (within 3 %, the one with fewer layers)"));
    m_raiseTo->addItem(tr("Keep in fp32"), QStringLiteral("fp32"));
    m_raiseTo->addItem(tr("Quantize with 16 bits"), QStringLiteral("int16"));
    m_raiseTo->addItem(tr("Either: fewer layers wins (16 bits on a tie)"),
                       QStringLiteral("fp32,int16"));
    m_target->setDecimals(2);
    m_holdout->setRange(0, 50);
    m_holdout->setSuffix(tr(" % of the data"));
    m_holdout->setSpecialValueText(tr("None"));
    m_holdout->setToolTip(
        tr("The last batches stay out of the search; the set found is measured on them to show "
           "whether it generalises"));
    m_maxEvaluations->setRange(10, 100000);
    m_maxEvaluations->setValue(2000);
    m_maxEvaluations->setSuffix(tr(" sets"));

    auto *form = new QFormLayout;
    auto *targetRow = new QHBoxLayout;
    targetRow->addWidget(m_metric, 1);
    targetRow->addWidget(m_target);
    auto *targetLabel = new QLabel(tr("&Target:"), this);
    targetLabel->setBuddy(m_metric);
    form->addRow(targetLabel, targetRow);
    form->addRow(tr("&Objective:"), m_objective);
    form->addRow(tr("Chosen &layers:"), m_raiseTo);
    form->addRow(tr("&Holdout:"), m_holdout);
    form->addRow(tr("&Budget:"), m_maxEvaluations);
    auto *settings = new QGroupBox(tr("What to reach"), this);
    settings->setLayout(form);

    auto *runRow = new QHBoxLayout;
    runRow->addWidget(m_search);
    runRow->addWidget(m_cancel);
    runRow->addWidget(m_progress, 1);
    m_progressLabel->setWordWrap(true);

    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_layers->setSelectionMode(QAbstractItemView::NoSelection);
    m_applied->setWordWrap(true);
    auto *hint = new QLabel(tr("Click a point to apply its set (undo with Ctrl+Z)."), this);
    hint->setEnabled(false);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_apply, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(settings);
    layout->addLayout(runRow);
    layout->addWidget(m_progressLabel);
    layout->addWidget(m_summary);
    layout->addWidget(m_layers);
    layout->addWidget(m_chart, 1);
    layout->addWidget(hint);
    layout->addWidget(m_applied);
    layout->addWidget(buttons);

    connect(m_metric, &QComboBox::currentIndexChanged, this, &Fp32SearchDialog::onMetricChanged);
    connect(m_search, &QPushButton::clicked, this, [this] {
        const SearchRequest asked = request();  // before the form is disabled
        showStarted();
        emit searchRequested(asked);
    });
    connect(m_cancel, &QPushButton::clicked, this, &Fp32SearchDialog::cancelRequested);
    connect(m_apply, &QPushButton::clicked, this, [this] {
        if (!m_outcome || !m_outcome->result.reached) return;
        const auto &layers = m_outcome->result.layers;
        emit applyRequested(m_outcome->result.precision, {layers.begin(), layers.end()},
                            tr("Find fp32 set: %1").arg(searchTargetText(m_outcome->target)));
    });
    connect(m_chart, &Fp32ParetoChart::pointClicked, this, &Fp32SearchDialog::applyParetoPoint);

    onMetricChanged();
    setRunning(false);
    m_apply->setEnabled(false);
    m_progress->setVisible(false);
    resize(720, 760);
}

void Fp32SearchDialog::setAnalysis(bool labelled, int batches, bool sixteenBits) {
    m_labelled = labelled;
    m_batches = batches;
    if (auto *choices = qobject_cast<QStandardItemModel *>(m_raiseTo->model()))
        for (int row = 1; row < choices->rowCount(); ++row) {
            QStandardItem *item = choices->item(row);
            item->setEnabled(sixteenBits);
            item->setToolTip(sixteenBits ? QString()
                                         : tr("16-bit layers re-quantize from calibration "
                                              "statistics: quantize the float model in the app"));
        }
    if (!sixteenBits) m_raiseTo->setCurrentIndex(0);
    auto *model = qobject_cast<QStandardItemModel *>(m_metric->model());
    if (QStandardItem *item = model ? model->item(2) : nullptr) {
        item->setEnabled(labelled);
        item->setToolTip(labelled ? QString() : tr("Needs labels in the evaluation data"));
    }
    if (!labelled && m_metric->currentIndex() == 2) m_metric->setCurrentIndex(0);
    m_holdout->setEnabled(batches >= 2);
    if (batches < 2) m_holdout->setValue(0);
    m_holdout->setToolTip(batches >= 2 ? m_holdout->toolTip()
                                       : tr("A holdout needs at least two evaluation batches"));
}

SearchRequest Fp32SearchDialog::request() const {
    SearchRequest r;
    r.options.target.metric = static_cast<SearchMetric>(m_metric->currentData().toInt());
    r.options.target.value = m_target->value();
    r.options.objective =
        static_cast<analysis::SearchObjective>(m_objective->currentData().toInt());
    r.options.maxEvaluations = m_maxEvaluations->value();
    analysis::parseSearchPrecisions(m_raiseTo->currentData().toString().toStdString(),
                                    r.options.precisions);
    r.holdout = m_holdout->value() / 100.0;  // 0 when the analysis has one batch
    return r;
}

void Fp32SearchDialog::onMetricChanged() {
    const auto metric = static_cast<SearchMetric>(m_metric->currentData().toInt());
    switch (metric) {
        case SearchMetric::Sqnr:
            m_target->setRange(-50.0, 200.0);
            m_target->setSingleStep(1.0);
            break;
        case SearchMetric::Agreement:
            m_target->setRange(0.0, 100.0);
            m_target->setSingleStep(0.1);
            break;
        case SearchMetric::AccuracyDrop:
            m_target->setRange(0.0, 100.0);
            m_target->setSingleStep(0.1);
            break;
    }
    m_target->setPrefix(metric == SearchMetric::AccuracyDrop ? QStringLiteral("≤ ")
                                                             : QStringLiteral("≥ "));
    m_target->setSuffix(QLatin1Char(' ') + searchMetricUnit(metric));
    m_target->setValue(defaultTarget(metric));
}

void Fp32SearchDialog::setRunning(bool running) {
    for (QWidget *w : {static_cast<QWidget *>(m_metric), static_cast<QWidget *>(m_target),
                       static_cast<QWidget *>(m_objective), static_cast<QWidget *>(m_raiseTo),
                       static_cast<QWidget *>(m_maxEvaluations), static_cast<QWidget *>(m_search)})
        w->setEnabled(!running);
    m_holdout->setEnabled(!running && m_batches >= 2);
    m_cancel->setEnabled(running);
    m_progress->setVisible(running);
    if (running) m_progress->setRange(0, 0);
}

void Fp32SearchDialog::showStarted() {
    m_runningMetric = request().options.target.metric;
    setRunning(true);
    m_apply->setEnabled(false);
    m_progressLabel->setText(tr("Measuring the model as quantized and with every layer in fp32…"));
    m_applied->clear();
}

void Fp32SearchDialog::showProgress(int evaluations, double bestFigure) {
    m_progressLabel->setText(
        std::isnan(bestFigure)
            ? tr("%n set(s) measured; none meets the target yet", nullptr, evaluations)
            : tr("%n set(s) measured; best meeting the target so far: %1", nullptr, evaluations)
                  .arg(formatSearchFigure(bestFigure, m_runningMetric)));
}

void Fp32SearchDialog::showOutcome(SearchOutcomePtr outcome) {
    m_outcome = std::move(outcome);
    setRunning(false);
    m_progressLabel->clear();
    if (!m_outcome) return;
    const analysis::SearchResult &r = m_outcome->result;
    m_summary->setText(summaryText(*m_outcome));
    m_layers->clear();
    for (const std::string &name : r.layers) m_layers->addItem(QString::fromStdString(name));
    m_layers->setVisible(!r.layers.empty());
    // As tall as its rows (up to 6; then it scrolls).
    const int rows = std::min(m_layers->count(), 6);
    m_layers->setFixedHeight(rows * m_layers->sizeHintForRow(0) + 2 * m_layers->frameWidth() + 4);
    m_apply->setEnabled(r.reached);
    m_chart->setFront(r, m_outcome->target);
}

void Fp32SearchDialog::showFailure(const QString &message, bool cancelled) {
    setRunning(false);
    m_progressLabel->setText(cancelled ? tr("Search cancelled; the analysis is as it was.")
                                       : tr("The search failed: %1").arg(message));
}

void Fp32SearchDialog::showApplied(analysis::SearchPrecision precision, int layers) {
    m_applied->setText(
        precision == analysis::SearchPrecision::Int16
            ? tr("Applied: %n layer(s) at 16 bits. Undo with Ctrl+Z.", nullptr, layers)
            : tr("Applied: %n layer(s) in fp32. Undo with Ctrl+Z.", nullptr, layers));
}

void Fp32SearchDialog::applyParetoPoint(int index) {
    if (!m_outcome || index < 0 || index >= int(m_outcome->result.pareto.size())) return;
    const auto &point = m_outcome->result.pareto[size_t(index)];
    emit applyRequested(
        point.precision, {point.layers.begin(), point.layers.end()},
        point.precision == analysis::SearchPrecision::Int16
            ? tr("Apply a Pareto set: %n layer(s) at 16 bits", nullptr, int(point.layers.size()))
            : tr("Apply a Pareto set: %n layer(s) in fp32", nullptr, int(point.layers.size())));
}

QString Fp32SearchDialog::summaryText(const SearchOutcome &o) const {
    const analysis::SearchResult &r = o.result;
    const auto metric = o.target.metric;
    const QString target = searchTargetText(o.target).toHtmlEscaped();
    const QString figure = formatSearchFigure(r.figure, metric);
    QString how;
    if (!r.reached)
        how = r.budgetExhausted
                  ? tr("<b>Target %1 not reached</b> within the budget; the best set tried gives "
                       "%2.")
                        .arg(target, figure)
                  : tr("<b>Target %1 not reached</b>: even every layer %3 gives %2.")
                        .arg(target, figure, where(r.precision));
    else
        how = tr("<b>Target %1 met</b> with %2 of %3 int8 layers %5: %4.")
                  .arg(target)
                  .arg(r.layers.size())
                  .arg(r.candidates.size())
                  .arg(figure, where(r.precision)) +
              QLatin1Char(' ') +
              (o.objective == analysis::SearchObjective::Latency
                   ? tr("The fastest timed int8 plan that meets it.")
               : r.exhaustive ? tr("Every smaller set was measured: no fewer layers reach it.")
                              : tr("Found by greedy build-up and pruning."));
    QStringList lines{how};
    if (r.byPrecision.size() > 1)
        for (const analysis::PrecisionOutcome &p : r.byPrecision) {
            const bool sixteen = p.precision == analysis::SearchPrecision::Int16;
            const int n = int(p.layers.size());
            lines << (p.reached
                          ? (sixteen ? tr("At 16 bits: %n layer(s) reach it (%1).", nullptr, n)
                                     : tr("In fp32: %n layer(s) reach it (%1).", nullptr, n))
                          : (sixteen ? tr("At 16 bits: no set reaches it (best %1).")
                                     : tr("In fp32: no set reaches it (best %1).")))
                         .arg(formatSearchFigure(p.figure, metric));
        }
    lines << tr("All int8 layers %3: %1. %n set(s) measured in %2 s.", nullptr,
                int(r.evaluations.size()))
                 .arg(formatSearchFigure(r.allRaisedFigure, metric),
                      QLocale().toString(o.seconds, 'f', 1), where(r.precision));
    if (r.latencyMs > 0.0)
        lines << tr("Its int8 plan: %1 ms per batch of %2.")
                     .arg(QLocale().toString(r.latencyMs, 'f', 3))
                     .arg(r.latencyBatchSamples);
    if (o.holdout)
        lines << tr("On the %n held-out sample(s): %1, target %2.", nullptr,
                    int(o.holdout->samples))
                     .arg(formatSearchFigure(o.holdout->figure, metric),
                          o.holdout->met ? tr("met") : tr("<b>not met</b>"));
    return lines.join(QStringLiteral("<br>"));
}

}  // namespace ql::ui

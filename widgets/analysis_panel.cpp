#include "analysis_panel.h"

#include <qcustomplot.h>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

#include "analysis_headline.h"
#include "analysis_proxy_model.h"
#include "analysis_table_model.h"
#include "display_format.h"
#include "graph_view.h"
#include "layer_remedy_text.h"
#include "sqnr_chart.h"

namespace ql::ui {

AnalysisPanel::AnalysisPanel(QWidget *parent)
    : QWidget(parent),
      m_headline(new AnalysisHeadline(this)),
      m_chart(new SqnrChart(this)),
      m_graph(new GraphView(this)),
      m_views(new QStackedWidget(this)),
      m_model(new AnalysisTableModel(this)),
      m_proxy(new AnalysisProxyModel(this)),
      m_splitter(new QSplitter(Qt::Vertical, this)) {
    m_proxy->setSourceModel(m_model);
    m_headline->setObjectName(QStringLiteral("analysisHeadline"));
    m_chart->setObjectName(QStringLiteral("sqnrChart"));
    m_chart->setMinimumHeight(180);

    auto *chartPart = new QWidget(this);
    auto *chartLayout = new QVBoxLayout(chartPart);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->setSpacing(2);
    chartLayout->addWidget(makeThresholdBar());
    chartLayout->addWidget(m_chart, 1);

    m_graph->setObjectName(QStringLiteral("graphView"));
    m_views->addWidget(chartPart);
    m_views->addWidget(m_graph);

    m_splitter->setObjectName(QStringLiteral("analysisSplitter"));
    m_splitter->addWidget(m_views);
    m_splitter->addWidget(makeTablePart());
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 2);
    m_splitter->setChildrenCollapsible(false);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_headline);
    layout->addWidget(m_splitter, 1);

    connect(m_threshold, &QDoubleSpinBox::valueChanged, m_chart, &SqnrChart::setThresholdDb);
    connect(m_chart, &SqnrChart::thresholdChanged, this, &AnalysisPanel::onThresholdChanged);
    connect(m_chart, &SqnrChart::layerSelected, this, &AnalysisPanel::selectLayer);
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    selectLayer(current.data(AnalysisTableModel::LayerIndexRole).toInt());
            });
    connect(m_graph, &GraphView::currentLayerChanged, this, &AnalysisPanel::selectLayer);
    connect(m_graph, &GraphView::toggleRequested, this, [this](int layer) {
        if (!m_model->isToggleable(layer)) return;
        m_model->setData(m_model->index(layer, AnalysisTableModel::PrecisionColumn),
                         m_model->isLayerFp32(layer) ? Qt::Unchecked : Qt::Checked,
                         Qt::CheckStateRole);
    });
    connect(m_model, &AnalysisTableModel::precisionToggled, this, &AnalysisPanel::precisionToggled);
    connect(m_graph, &GraphView::layerMenuRequested, this,
            [this](int layer, const QPoint &globalPosition) {
                QMenu *menu = createLayerMenu(layer, this);
                menu->setAttribute(Qt::WA_DeleteOnClose);
                menu->popup(globalPosition);
            });
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, [this](const QPoint &position) {
        const QModelIndex index = m_view->indexAt(position);
        if (!index.isValid()) return;
        const int layer = index.data(AnalysisTableModel::LayerIndexRole).toInt();
        selectLayer(layer);
        QMenu *menu = createLayerMenu(layer, this);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_view->viewport()->mapToGlobal(position));
    });
    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_proxy->setFilterFixedString(text.trimmed());
        updateCounts();
    });
    m_chart->plot()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_chart->plot(), &QWidget::customContextMenuRequested, this,
            [this](const QPoint &position) {
                const int layer = m_chart->layerAt(position);
                if (layer >= 0) selectLayer(layer);
                QMenu *menu = createLayerMenu(layer, this);
                menu->setAttribute(Qt::WA_DeleteOnClose);
                menu->popup(m_chart->plot()->mapToGlobal(position));
            });
    onThresholdChanged(m_chart->thresholdDb());
}

QMenu *AnalysisPanel::createLayerMenu(int layer, QWidget *parent) {
    auto *menu = new QMenu(parent);
    if (layer >= 0 && layer < m_model->rowCount()) {
        const QString name =
            m_model->index(layer, AnalysisTableModel::NameColumn).data().toString();
        QAction *fp32 = menu->addAction(tr("Keep %1 in fp32").arg(name));
        fp32->setObjectName(QStringLiteral("keepFp32Action"));
        fp32->setCheckable(true);
        fp32->setChecked(m_model->isLayerFp32(layer));
        fp32->setEnabled(m_model->isToggleable(layer));
        connect(fp32, &QAction::toggled, this, [this, layer](bool on) {
            m_model->setData(m_model->index(layer, AnalysisTableModel::PrecisionColumn),
                             on ? Qt::Checked : Qt::Unchecked, Qt::CheckStateRole);
        });
        addRemedyActions(menu, layer);
        menu->addSeparator();
    }
    menu->addAction(tr("Show all layers"), m_chart, &SqnrChart::resetZoom);
    return menu;
}

void AnalysisPanel::addRemedyActions(QMenu *menu, int layer) {
    if (!m_report || layer < 0 || layer >= int(m_report->layers.size())) return;
    const analysis::LayerReport &row = m_report->layers[size_t(layer)];
    for (analysis::LayerRemedy remedy : analysis::kLayerRemedies) {
        QAction *action = menu->addAction(layerRemedyAction(remedy));
        action->setObjectName(remedy == analysis::LayerRemedy::AdaRound
                                  ? QStringLiteral("adaRoundAction")
                              : remedy == analysis::LayerRemedy::BiasCorrection
                                  ? QStringLiteral("biasCorrectionAction")
                                  : QStringLiteral("sixteenBitAction"));
        action->setCheckable(true);
        action->setChecked(m_remedies.has(remedy, row.name));
        const QString unavailable = layerRemedyUnavailable(row, remedy, m_remediesAvailable);
        // A remedy asked for stays switchable off, also while the layer runs in fp32.
        action->setEnabled(unavailable.isEmpty() || action->isChecked());
        action->setStatusTip(unavailable.isEmpty() ? layerRemedyExplanation(remedy) : unavailable);
        action->setToolTip(action->statusTip());
        connect(action, &QAction::toggled, this,
                [this, layer, remedy](bool on) { emit remedyToggled(layer, remedy, on); });
    }
    menu->setToolTipsVisible(true);
}

void AnalysisPanel::setLayerRemedies(const analysis::LayerRemedies &remedies, bool available) {
    m_remedies = remedies;
    m_remediesAvailable = available;
}

QWidget *AnalysisPanel::makeThresholdBar() {
    auto *bar = new QWidget(this);
    auto *row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    auto *caption = new QLabel(tr("SQNR &threshold:"), bar);
    m_threshold = new QDoubleSpinBox(bar);
    m_threshold->setObjectName(QStringLiteral("thresholdSpinBox"));
    m_threshold->setRange(-40.0, 80.0);
    m_threshold->setDecimals(1);
    m_threshold->setSingleStep(1.0);
    m_threshold->setSuffix(tr(" dB"));
    m_threshold->setValue(kDefaultThresholdDb);
    m_threshold->setToolTip(
        tr("Layers whose cumulative or isolated SQNR is under this are highlighted; a healthy "
           "layer has about 30 dB or more. Drag the dashed line in the chart to change it."));
    caption->setBuddy(m_threshold);
    m_underCount = new QLabel(bar);
    m_underCount->setObjectName(QStringLiteral("underThresholdCount"));
    auto *hint = new QLabel(tr("Wheel: zoom · drag: pan · double-click: all layers"), bar);
    hint->setForegroundRole(QPalette::PlaceholderText);
    auto *showAll = new QToolButton(bar);
    showAll->setText(tr("Show all layers"));
    connect(showAll, &QToolButton::clicked, m_chart, &SqnrChart::resetZoom);
    row->addWidget(caption);
    row->addWidget(m_threshold);
    row->addSpacing(8);
    row->addWidget(m_underCount);
    row->addStretch(1);
    row->addWidget(hint);
    row->addWidget(showAll);
    return bar;
}

QWidget *AnalysisPanel::makeTablePart() {
    auto *part = new QWidget(this);
    m_filter = new QLineEdit(part);
    m_filter->setObjectName(QStringLiteral("analysisFilter"));
    m_filter->setPlaceholderText(tr("Filter by name, op type or precision"));
    m_filter->setClearButtonEnabled(true);
    m_rowCount = new QLabel(part);
    m_rowCount->setObjectName(QStringLiteral("analysisRowCount"));
    m_view = new QTableView(part);
    m_view->setObjectName(QStringLiteral("analysisTable"));
    m_view->horizontalHeader()->setResizeContentsPrecision(200);  // thousands of layers: a sample
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(AnalysisTableModel::IndexColumn, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->horizontalHeader()->setStretchLastSection(false);

    auto *top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(m_filter, 1);
    top->addWidget(m_rowCount);
    auto *layout = new QVBoxLayout(part);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);
    return part;
}

void AnalysisPanel::setReport(ReportPtr report) {
    // A toggle's report has the same rows: the columns keep their widths (fitting them costs the
    // GUI thread ~5 ms per hundred rows, and the table would not jump).
    const bool sameRows =
        m_report && report && m_report->layers.size() == report->layers.size() &&
        std::equal(m_report->layers.begin(), m_report->layers.end(), report->layers.begin(),
                   [](const auto &a, const auto &b) { return a.name == b.name; });
    m_report = report;
    m_currentLayer = -1;
    m_headline->setReport(report);
    m_model->setReport(report);
    {
        // The table already lost its selection.
        const QSignalBlocker blockChart(m_chart), blockGraph(m_graph);
        m_graph->setReport(report);
        m_chart->setReport(std::move(report));
    }
    if (!sameRows) fitColumns();
    updateCounts();
    emit currentLayerChanged(-1);
}

void AnalysisPanel::setFloatGraph(std::shared_ptr<const Graph> graph) {
    if (graph == m_graph->graph()) return;  // a toggle's report: same model, same layout
    m_graph->setGraph(std::move(graph));
    m_graph->setReport(m_report);
}

void AnalysisPanel::setView(View view) {
    m_views->setCurrentIndex(view == View::Graph ? 1 : 0);
}

AnalysisPanel::View AnalysisPanel::view() const {
    return m_views->currentIndex() == 1 ? View::Graph : View::Chart;
}

void AnalysisPanel::setLatency(std::optional<double> int8Ms, std::optional<double> fp32Ms,
                               LatencyConditions how) {
    m_headline->setLatency(int8Ms, fp32Ms, how);
}

double AnalysisPanel::thresholdDb() const {
    return m_chart->thresholdDb();
}

void AnalysisPanel::setThresholdDb(double thresholdDb) {
    m_chart->setThresholdDb(thresholdDb);
}

void AnalysisPanel::onThresholdChanged(double thresholdDb) {
    {
        const QSignalBlocker block(m_threshold);  // the chart already has it
        m_threshold->setValue(thresholdDb);
    }
    m_model->setThresholdDb(thresholdDb);
    m_headline->setThresholdDb(thresholdDb);
    m_graph->setThresholdDb(thresholdDb);
    updateCounts();
    emit thresholdChanged(thresholdDb);
}

void AnalysisPanel::selectLayer(int layer) {
    const int rows = m_model->rowCount();
    if (layer < 0 || layer >= rows) layer = -1;
    if (layer == m_currentLayer) return;
    m_currentLayer = layer;
    m_chart->selectLayer(layer);  // re-enters here with the same layer: returns above
    m_graph->selectLayer(layer);
    const QModelIndex row =
        layer >= 0 ? m_proxy->mapFromSource(m_model->index(layer, AnalysisTableModel::NameColumn))
                   : QModelIndex();
    if (row.isValid()) {
        m_view->selectionModel()->setCurrentIndex(
            row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_view->scrollTo(row);
    } else {
        m_view->selectionModel()->clearSelection();  // filtered out, or none
    }
    emit currentLayerChanged(layer);
}

void AnalysisPanel::updateCounts() {
    const int under = m_chart->layersUnderThreshold().size();
    // Explicit singular: there is no English .qm to resolve %n plurals.
    const QString threshold = formatDb(m_chart->thresholdDb());
    m_underCount->setText(under == 1 ? tr("1 layer under %1 dB").arg(threshold)
                                     : tr("%1 layers under %2 dB").arg(under).arg(threshold));
    m_underCount->setStyleSheet(under > 0 ? QStringLiteral("color: #d03030;") : QString());
    const int total = m_model->rowCount(), shown = m_proxy->rowCount();
    m_rowCount->setText(shown != total ? tr("%1 of %2 layers").arg(shown).arg(total)
                        : total == 1   ? tr("1 layer")
                                       : tr("%1 layers").arg(total));
}

void AnalysisPanel::fitColumns() {
    // Figures get what they need; the name column takes the rest and elides in the middle.
    QHeaderView *header = m_view->horizontalHeader();
    const int pad = fontMetrics().averageCharWidth();
    for (int c = 0; c < AnalysisTableModel::ColumnCount; ++c) {
        if (c == AnalysisTableModel::NameColumn) continue;
        header->setSectionResizeMode(c, QHeaderView::Interactive);
        m_view->resizeColumnToContents(c);
        header->resizeSection(c, header->sectionSize(c) + pad);
    }
    header->setSectionResizeMode(AnalysisTableModel::NameColumn, QHeaderView::Stretch);
}

}  // namespace ql::ui

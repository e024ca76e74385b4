#include "layer_table_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QTableView>
#include <QVBoxLayout>

#include "layer_proxy_model.h"
#include "layer_table_model.h"

namespace ql::ui {

LayerTablePanel::LayerTablePanel(QWidget *parent)
    : QWidget(parent),
      m_model(new LayerTableModel(this)),
      m_proxy(new LayerProxyModel(this)),
      m_filter(new QLineEdit(this)),
      m_count(new QLabel(this)),
      m_view(new QTableView(this)) {
    m_proxy->setSourceModel(m_model);

    m_filter->setObjectName(QStringLiteral("layerFilter"));
    m_filter->setPlaceholderText(tr("Filter by name, op type or shape"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setToolTip(
        tr("Shows the layers whose name, op type or output shape contains "
           "this text (any case)"));
    m_count->setObjectName(QStringLiteral("layerCount"));

    m_view->setObjectName(QStringLiteral("layerTable"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(LayerTableModel::IndexColumn, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->setTextElideMode(Qt::ElideMiddle);  // long exporter names differ at both ends
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    m_view->horizontalHeader()->setHighlightSections(false);
    m_view->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_view->horizontalHeader()->setStretchLastSection(false);
    m_view->horizontalHeader()->setSectionResizeMode(LayerTableModel::NameColumn,
                                                     QHeaderView::Stretch);

    auto *top = new QHBoxLayout;
    top->setContentsMargins(0, 0, 0, 0);
    top->addWidget(m_filter, 1);
    top->addWidget(m_count);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_view, 1);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_proxy->setFilterFixedString(text.trimmed());
        updateCount();
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                emit currentLayerChanged(
                    current.isValid() ? current.data(LayerTableModel::LayerIndexRole).toInt() : -1);
            });
    updateCount();
}

void LayerTablePanel::setSnapshot(SnapshotPtr snapshot) {
    m_model->setSnapshot(std::move(snapshot));
    fitColumns();
    updateCount();
    emit currentLayerChanged(-1);
}

void LayerTablePanel::fitColumns() {
    // Numbers and shapes get what they need; the name column takes the rest of the width and
    // long exporter names elide in the middle instead of widening the table.
    QHeaderView *header = m_view->horizontalHeader();
    const int pad = fontMetrics().averageCharWidth() * 3;
    for (int c = 0; c < LayerTableModel::ColumnCount; ++c) {
        if (c == LayerTableModel::NameColumn) continue;
        header->setSectionResizeMode(c, QHeaderView::Interactive);
        m_view->resizeColumnToContents(c);
        header->resizeSection(c, header->sectionSize(c) + pad);
    }
}

void LayerTablePanel::updateCount() {
    const int total = m_model->rowCount(), shown = m_proxy->rowCount();
    if (shown != total)
        m_count->setText(tr("%1 of %2 layers").arg(shown).arg(total));
    else
        m_count->setText(total == 1 ? tr("1 layer") : tr("%1 layers").arg(total));
}

void LayerTablePanel::selectLayer(int layerIndex) {
    // Rows are in graph order in the source model.
    const QModelIndex row = m_proxy->mapFromSource(m_model->index(layerIndex, 0));
    if (!row.isValid()) return;
    m_view->setCurrentIndex(row);
    m_view->scrollTo(row);
}

void LayerTablePanel::focusFilter() {
    m_filter->setFocus(Qt::ShortcutFocusReason);
    m_filter->selectAll();
}

}  // namespace ql::ui

#include "layer_proxy_model.h"

#include "layer_table_model.h"

namespace ql::ui {

LayerProxyModel::LayerProxyModel(QObject *parent) : QSortFilterProxyModel(parent) {
    setSortRole(LayerTableModel::SortRole);
    setFilterKeyColumn(-1);  // any column
    setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_collator.setNumericMode(true);
    m_collator.setCaseSensitivity(Qt::CaseInsensitive);
}

bool LayerProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const {
    const QVariant a = left.data(sortRole()), b = right.data(sortRole());
    if (a.userType() == QMetaType::QString && b.userType() == QMetaType::QString)
        return m_collator.compare(a.toString(), b.toString()) < 0;
    return QSortFilterProxyModel::lessThan(left, right);
}

}  // namespace ql::ui

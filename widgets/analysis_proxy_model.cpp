#include "analysis_proxy_model.h"

#include "analysis_table_model.h"

namespace ql::ui {

AnalysisProxyModel::AnalysisProxyModel(QObject *parent) : LayerProxyModel(parent) {}

bool AnalysisProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const {
    const QRegularExpression pattern = filterRegularExpression();
    if (pattern.pattern().isEmpty()) return true;
    const QAbstractItemModel *model = sourceModel();
    for (const int column : {AnalysisTableModel::NameColumn, AnalysisTableModel::OpTypeColumn,
                             AnalysisTableModel::PrecisionColumn}) {
        const QString text = model->index(sourceRow, column, sourceParent).data().toString();
        if (text.contains(pattern)) return true;
    }
    return false;
}

}  // namespace ql::ui

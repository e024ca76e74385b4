#pragma once
// Sorting and filtering for the analysis table: LayerProxyModel's order (numbers as numbers,
// missing figures lowest, natural names), and a filter that looks only at the name, op type
// and precision, so typing "conv" or "fp32" never matches a figure like "32.6".

#include "layer_proxy_model.h"

namespace ql::ui {

class AnalysisProxyModel : public LayerProxyModel {
    Q_OBJECT
public:
    explicit AnalysisProxyModel(QObject *parent = nullptr);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
};

}  // namespace ql::ui

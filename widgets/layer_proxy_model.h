#pragma once
// Sorting and filtering for layer tables: numbers sort as numbers, names in natural order
// ("conv2" before "conv10"), missing values (an invalid sort value) before every number, and the
// filter text matches name, op type or shape, any case.

#include <QSortFilterProxyModel>

namespace ql::ui {

class LayerProxyModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit LayerProxyModel(QObject *parent = nullptr);

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;
};

// Natural, case-insensitive order: digit runs compare as numbers ("conv2" < "conv10").
// Locale-independent on purpose: QCollator ignores numeric mode in the C locale.
int naturalCompare(const QString &a, const QString &b);

}  // namespace ql::ui

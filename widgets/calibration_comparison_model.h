#pragma once
// The calibration lab's paired comparisons, one row each: what is compared, the two sides, the
// score difference in percentage points with its bootstrap 95 % interval, the exact McNemar
// p-value, the discordant counts and the verdict in words. A difference whose interval excludes
// 0 is bold. SortRole and the side ids (SideARole, SideBRole) as in CalibrationRunModel.

#include <QAbstractTableModel>

#include "calibration_lab_data.h"

namespace ql::ui {

class CalibrationComparisonModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        KindColumn,
        AColumn,
        BColumn,
        DiffColumn,
        PValueColumn,
        N01Column,
        N10Column,
        VerdictColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1,  // LayerTableModel::SortRole: LayerProxyModel sorts by it
        SideARole,
        SideBRole,
    };

    explicit CalibrationComparisonModel(QObject *parent = nullptr);

    void setLab(CalibrationLabDataPtr lab);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant displayData(const CalibrationLabComparison &c, int column) const;
    QVariant sortData(const CalibrationLabComparison &c, int column) const;

    CalibrationLabDataPtr m_lab;
};

}  // namespace ql::ui

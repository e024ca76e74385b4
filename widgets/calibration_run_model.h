#pragma once
// The calibration lab's runs, one row each in plan order: id, method, size, repeat, calibration
// batch, output SQNR, top-1 agreement, accuracy with its 95 % interval, the earlier run it is
// identical to, and its time. SortRole gives the raw number (invalid when missing, so it sorts
// lowest with LayerProxyModel) or the text; RunIdRole the run's id on every column.

#include <QAbstractTableModel>

#include "calibration_lab_data.h"

namespace ql::ui {

class CalibrationRunModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IdColumn,
        MethodColumn,
        SizeColumn,
        RepeatColumn,
        BatchColumn,
        SqnrColumn,
        AgreementColumn,
        AccuracyColumn,
        IdenticalToColumn,
        SecondsColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1,  // LayerTableModel::SortRole: LayerProxyModel sorts by it
        RunIdRole,
    };

    explicit CalibrationRunModel(QObject *parent = nullptr);

    void setLab(CalibrationLabDataPtr lab);
    const CalibrationLabDataPtr &lab() const { return m_lab; }
    // The row of a run (-1: none).
    int rowOf(const QString &id) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant displayData(const CalibrationLabRun &run, int column) const;
    QVariant sortData(const CalibrationLabRun &run, int column) const;
    QString toolTip(const CalibrationLabRun &run) const;

    CalibrationLabDataPtr m_lab;
};

}  // namespace ql::ui

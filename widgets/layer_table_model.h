#pragma once
// One row per graph node in execution order: index, name, op type, output shapes, parameters.
// Later columns (weight / activation SQNR, fp32 toggles) attach to the same rows.

#include <QAbstractTableModel>

#include "model_snapshot.h"

namespace ql::ui {

class LayerTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        IndexColumn,
        NameColumn,
        OpTypeColumn,
        OutputShapeColumn,
        ParametersColumn,
        ColumnCount
    };
    enum Role {
        SortRole = Qt::UserRole + 1,  // numbers as numbers, text as text
        LayerIndexRole,               // the node's index in the graph (int), for any column
    };

    explicit LayerTableModel(QObject *parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot);
    const SnapshotPtr &snapshot() const { return m_snapshot; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QVariant displayData(const LayerInfo &layer, int column) const;
    QString toolTip(const LayerInfo &layer, int column) const;

    SnapshotPtr m_snapshot;
};

}  // namespace ql::ui

#pragma once
// The layer list: a filter box over a sortable table of LayerTableModel rows, and a count of
// what the filter shows. Emits the graph index of the layer the user selects.

#include <QWidget>

#include "model_snapshot.h"

class QLabel;
class QLineEdit;
class QTableView;

namespace ql::ui {

class LayerProxyModel;
class LayerTableModel;

class LayerTablePanel : public QWidget {
    Q_OBJECT
public:
    explicit LayerTablePanel(QWidget *parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot);
    void focusFilter();
    // Selects and shows the row of a graph node (if the filter lets it through).
    void selectLayer(int layerIndex);

    LayerTableModel *layerModel() const { return m_model; }
    LayerProxyModel *proxyModel() const { return m_proxy; }
    QTableView *tableView() const { return m_view; }
    QLineEdit *filterEdit() const { return m_filter; }

signals:
    // -1 when nothing is selected.
    void currentLayerChanged(int layerIndex);

private:
    void updateCount();
    void fitColumns();

    LayerTableModel *m_model;
    LayerProxyModel *m_proxy;
    QLineEdit *m_filter;
    QLabel *m_count;
    QTableView *m_view;
};

}  // namespace ql::ui

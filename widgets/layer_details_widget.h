#pragma once
// What one layer is: op, inputs (with shapes; weights marked), outputs and attributes.
// The inspector's per-layer numbers (SQNR, scales, histograms) will join this panel.

#include <QWidget>

#include "model_snapshot.h"

class QLabel;
class QTreeWidget;

namespace ql::ui {

class LayerDetailsWidget : public QWidget {
    Q_OBJECT
public:
    explicit LayerDetailsWidget(QWidget *parent = nullptr);

    void setSnapshot(SnapshotPtr snapshot);
    // Index into the graph's nodes; -1 clears the panel.
    void showLayer(int layerIndex);
    int layerIndex() const { return m_layerIndex; }
    QTreeWidget *tree() const { return m_tree; }

private:
    SnapshotPtr m_snapshot;
    int m_layerIndex = -1;
    QLabel *m_title;
    QTreeWidget *m_tree;
};

}  // namespace ql::ui

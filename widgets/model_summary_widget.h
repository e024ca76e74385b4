#pragma once
// The strip above the layer table: which model is open and its vital numbers at a glance
// (file, opset, nodes, parameters, inputs, outputs). Values are selectable for copying.

#include <QFrame>

#include "model_snapshot.h"

class QLabel;

namespace ql::ui {

class ElidedLabel;

class ModelSummaryWidget : public QFrame {
    Q_OBJECT
public:
    explicit ModelSummaryWidget(QWidget *parent = nullptr);

    void setSnapshot(const SnapshotPtr &snapshot);
    // "Model: ... | Opset: ..." as plain text, e.g. for the clipboard and tests.
    QString summaryText() const;

private:
    ElidedLabel *addField(const QString &objectName, const QString &caption);

    struct Field {
        QLabel *caption;
        ElidedLabel *value;
    };
    QVector<Field> m_fields;
    ElidedLabel *m_model, *m_opset, *m_nodes, *m_parameters, *m_inputs, *m_outputs, *m_warnings;
};

}  // namespace ql::ui

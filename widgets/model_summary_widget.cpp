#include "model_summary_widget.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include "display_format.h"
#include "elided_label.h"

namespace ql::ui {

ModelSummaryWidget::ModelSummaryWidget(QWidget *parent) : QFrame(parent) {
    setObjectName(QStringLiteral("modelSummary"));
    setFrameShape(QFrame::StyledPanel);
    setBackgroundRole(QPalette::Base);
    setAutoFillBackground(true);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(12, 8, 12, 8);
    layout->setSpacing(24);
    m_model = addField(QStringLiteral("summaryModel"), tr("Model"));
    m_opset = addField(QStringLiteral("summaryOpset"), tr("Opset"));
    m_nodes = addField(QStringLiteral("summaryNodes"), tr("Nodes"));
    m_parameters = addField(QStringLiteral("summaryParameters"), tr("Parameters"));
    m_inputs = addField(QStringLiteral("summaryInputs"), tr("Inputs"));
    m_outputs = addField(QStringLiteral("summaryOutputs"), tr("Outputs"));
    m_warnings = addField(QStringLiteral("summaryWarnings"), tr("Loader warnings"));
    layout->addStretch(1);  // fields keep their natural widths, packed to the left
    setSnapshot(nullptr);
}

ElidedLabel *ModelSummaryWidget::addField(const QString &objectName, const QString &caption) {
    auto *column = new QVBoxLayout;
    column->setSpacing(2);
    auto *captionLabel = new QLabel(caption, this);
    QFont small = captionLabel->font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    captionLabel->setFont(small);
    captionLabel->setForegroundRole(QPalette::PlaceholderText);
    auto *value = new ElidedLabel(
        this, objectName == QLatin1String("summaryModel") ? Qt::ElideMiddle : Qt::ElideRight);
    value->setObjectName(objectName);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont bold = value->font();
    bold.setBold(true);
    value->setFont(bold);
    column->addWidget(captionLabel);
    column->addWidget(value);
    static_cast<QHBoxLayout *>(layout())->addLayout(column);
    m_fields.push_back({captionLabel, value});
    return value;
}

void ModelSummaryWidget::setSnapshot(const SnapshotPtr &snapshot) {
    for (const Field &f : m_fields) {
        f.value->setFullText({});
        f.value->setToolTip({});
    }
    if (!snapshot) {
        m_model->setFullText(tr("No model open"));
        for (const Field &f : m_fields) {
            f.caption->setVisible(f.value == m_model);
            f.value->setVisible(f.value == m_model);
        }
        return;
    }
    for (const Field &f : m_fields) {
        f.caption->setVisible(true);
        f.value->setVisible(true);
    }
    m_model->setFullText(snapshot->displayName);
    QString modelTip = snapshot->sourcePath;
    if (!snapshot->graphName.isEmpty())
        modelTip += QLatin1Char('\n') + tr("Graph: %1").arg(snapshot->graphName);
    m_model->setToolTip(modelTip);
    m_opset->setFullText(QString::number(snapshot->opset));
    m_nodes->setFullText(formatCount(snapshot->layers.size()));
    m_parameters->setFullText(formatCount(snapshot->parameterCount));
    m_parameters->setToolTip(
        tr("%1 in initializers used by nodes").arg(formatBytes(snapshot->parameterBytes)));
    m_inputs->setFullText(snapshot->inputs.join(QStringLiteral("; ")));
    m_inputs->setToolTip(snapshot->inputs.join(QLatin1Char('\n')));
    m_outputs->setFullText(snapshot->outputs.join(QStringLiteral("; ")));
    m_outputs->setToolTip(snapshot->outputs.join(QLatin1Char('\n')));
    const bool hasWarnings = !snapshot->warnings.isEmpty();
    m_warnings->setFullText(formatCount(snapshot->warnings.size()));
    m_warnings->setToolTip(snapshot->warnings.join(QLatin1Char('\n')));
    m_warnings->setVisible(hasWarnings);
    m_fields.last().caption->setVisible(hasWarnings);
}

QString ModelSummaryWidget::summaryText() const {
    QStringList parts;
    for (const Field &f : m_fields)
        if (f.value->isVisibleTo(this) && !f.value->fullText().isEmpty())
            parts << f.caption->text() + QStringLiteral(": ") + f.value->fullText();
    return parts.join(QStringLiteral(" | "));
}

}  // namespace ql::ui

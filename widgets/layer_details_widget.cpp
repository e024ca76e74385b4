#include "layer_details_widget.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

#include "display_format.h"

namespace ql::ui {

LayerDetailsWidget::LayerDetailsWidget(QWidget *parent)
    : QWidget(parent), m_title(new QLabel(this)), m_tree(new QTreeWidget(this)) {
    m_title->setObjectName(QStringLiteral("layerTitle"));
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tree->setObjectName(QStringLiteral("layerDetails"));
    m_tree->setColumnCount(2);
    m_tree->setHeaderLabels({tr("Property"), tr("Value")});
    m_tree->setRootIsDecorated(true);
    m_tree->setAlternatingRowColors(true);
    m_tree->setUniformRowHeights(true);
    m_tree->setTextElideMode(Qt::ElideMiddle);
    // Values (shapes, attribute lists) are short and must stay whole; long value names elide.
    m_tree->header()->setStretchLastSection(false);
    m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(m_tree, 1);
    showLayer(-1);
}

void LayerDetailsWidget::setSnapshot(SnapshotPtr snapshot) {
    m_snapshot = std::move(snapshot);
    showLayer(-1);
}

void LayerDetailsWidget::showLayer(int layerIndex) {
    m_tree->clear();
    if (!m_snapshot || layerIndex < 0 || layerIndex >= m_snapshot->layers.size()) {
        m_layerIndex = -1;
        m_title->setText(m_snapshot
                             ? tr("Select a layer to see its inputs, outputs and attributes.")
                             : QString());
        return;
    }
    m_layerIndex = layerIndex;
    const LayerInfo &layer = m_snapshot->layers[layerIndex];
    const Graph &graph = m_snapshot->graph();
    const Node &node = graph.nodes[static_cast<size_t>(layerIndex)];
    m_title->setText(QStringLiteral("<b>%1</b> %2")
                         .arg(layer.opType.toHtmlEscaped(), layer.name.toHtmlEscaped()));

    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    auto addRow = [&](QTreeWidgetItem *parent, const QString &key, const QString &value) {
        auto *item = new QTreeWidgetItem(parent, {key, value});
        item->setToolTip(1, value);
        item->setFont(1, fixed);
        return item;
    };
    auto addSection = [&](const QString &title) {
        auto *item = new QTreeWidgetItem(m_tree, {title});
        item->setFirstColumnSpanned(true);
        QFont bold = item->font(0);
        bold.setBold(true);
        item->setFont(0, bold);
        return item;
    };
    auto describe = [&](const std::string &value) {
        if (const Tensor *weight = graph.initializer(value))
            return tr("%1 %2 (constant)")
                .arg(QString::fromStdString(dataTypeName(weight->dtype())),
                     formatShape(weight->shape()));
        const ValueInfo *info = m_snapshot->valueInfo(value);
        return info ? formatTypedShape(*info) : tr("unknown");
    };

    auto *inputs = addSection(tr("Inputs"));
    for (size_t i = 0; i < node.inputs.size(); ++i)
        addRow(inputs,
               node.inputs[i].empty() ? tr("(omitted)") : QString::fromStdString(node.inputs[i]),
               node.inputs[i].empty() ? QString() : describe(node.inputs[i]));
    auto *outputs = addSection(tr("Outputs"));
    for (const std::string &out : node.outputs)
        if (!out.empty()) addRow(outputs, QString::fromStdString(out), describe(out));
    if (!node.attributes.empty()) {
        auto *attributes = addSection(tr("Attributes"));
        for (const auto &[key, value] : node.attributes)
            addRow(attributes, QString::fromStdString(key), formatAttribute(value));
    }
    auto *about = addSection(tr("Node"));
    addRow(about, tr("Index"), QString::number(layer.index));
    addRow(about, tr("Domain"), layer.domain.isEmpty() ? QStringLiteral("ai.onnx") : layer.domain);
    addRow(about, tr("Parameters"), formatCount(layer.parameterCount));
    m_tree->expandAll();
}

}  // namespace ql::ui

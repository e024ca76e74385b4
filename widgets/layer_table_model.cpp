#include "layer_table_model.h"

#include <QFontDatabase>

#include "display_format.h"

namespace ql::ui {

LayerTableModel::LayerTableModel(QObject *parent) : QAbstractTableModel(parent) {}

void LayerTableModel::setSnapshot(SnapshotPtr snapshot) {
    beginResetModel();
    m_snapshot = std::move(snapshot);
    endResetModel();
}

int LayerTableModel::rowCount(const QModelIndex &parent) const {
    if (parent.isValid() || !m_snapshot) return 0;
    return m_snapshot->layers.size();
}

int LayerTableModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LayerTableModel::displayData(const LayerInfo &layer, int column) const {
    switch (column) {
        case IndexColumn:
            return layer.index;
        case NameColumn:
            return layer.name;
        case OpTypeColumn:
            return layer.domain.isEmpty() ? layer.opType
                                          : layer.domain + QLatin1Char(':') + layer.opType;
        case OutputShapeColumn:
            return layer.outputShapes.join(QStringLiteral(", "));
        case ParametersColumn:
            return layer.parameterCount ? formatCount(layer.parameterCount) : QString();
    }
    return {};
}

QString LayerTableModel::toolTip(const LayerInfo &layer, int column) const {
    const Node &node = m_snapshot->graph().nodes[static_cast<size_t>(layer.index)];
    QStringList lines;
    if (column == ParametersColumn) {
        if (layer.parameters.isEmpty()) return tr("No weights or other constant inputs");
        for (const ParameterInfo &p : layer.parameters)
            lines << tr("%1: %2 %3 (%4 values)")
                         .arg(p.name, p.dtype, p.shape, formatCount(p.elements));
        return lines.join(QLatin1Char('\n'));
    }
    if (column == OutputShapeColumn) {
        for (const std::string &out : node.outputs) {
            if (out.empty()) continue;
            const ValueInfo *info = m_snapshot->valueInfo(out);
            lines << QString::fromStdString(out) + QStringLiteral(": ") +
                         (info ? formatTypedShape(*info) : tr("unknown"));
        }
        return lines.join(QLatin1Char('\n'));
    }
    lines << tr("%1 '%2' (node %3)").arg(layer.opType, layer.name).arg(layer.index);
    return lines.join(QLatin1Char('\n'));
}

QVariant LayerTableModel::data(const QModelIndex &index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        !m_snapshot)
        return {};
    const LayerInfo &layer = m_snapshot->layers[index.row()];
    const int column = index.column();
    switch (role) {
        case Qt::DisplayRole:
            return displayData(layer, column);
        case Qt::ToolTipRole:
            return toolTip(layer, column);
        case SortRole:
            if (column == IndexColumn) return layer.index;
            if (column == ParametersColumn) return static_cast<qlonglong>(layer.parameterCount);
            return displayData(layer, column);
        case LayerIndexRole:
            return layer.index;
        case Qt::TextAlignmentRole:
            if (column == IndexColumn || column == ParametersColumn)
                return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
            return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
        case Qt::FontRole:
            if (column == OutputShapeColumn)
                return QFontDatabase::systemFont(QFontDatabase::FixedFont);
            return {};
        default:
            return {};
    }
}

QVariant LayerTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            case IndexColumn:
                return tr("#");
            case NameColumn:
                return tr("Name");
            case OpTypeColumn:
                return tr("Op type");
            case OutputShapeColumn:
                return tr("Output shape");
            case ParametersColumn:
                return tr("Parameters");
        }
    }
    if (role == Qt::TextAlignmentRole) {
        const bool numeric = section == IndexColumn || section == ParametersColumn;
        return QVariant::fromValue((numeric ? Qt::AlignRight : Qt::AlignLeft) | Qt::AlignVCenter);
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case IndexColumn:
                return tr("Position in execution (topological) order");
            case NameColumn:
                return tr("ONNX node name, as quantization tools and skip-lists use it");
            case OpTypeColumn:
                return tr("ONNX operator (domain:op for custom domains)");
            case OutputShapeColumn:
                return tr("Output shapes from ONNX shape inference; named dims are symbolic");
            case ParametersColumn:
                return tr(
                    "Elements of the node's constant inputs (weights, biases, BatchNorm "
                    "statistics)");
        }
    }
    return {};
}

}  // namespace ql::ui

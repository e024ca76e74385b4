#include "analysis_table_model.h"

#include <QApplication>
#include <QColor>
#include <QStyle>

#include <cmath>

#include "display_format.h"
#include "layer_remedy_text.h"

namespace ql::ui {

namespace {

// Translucent so it reads on light and dark palettes alike.
const QColor kUnderThresholdTint(220, 40, 40, 70);
const QColor kMismatchTint(230, 140, 0, 80);

QString joined(const std::vector<std::string> &names) {
    QStringList parts;
    for (const std::string &n : names) parts << QString::fromStdString(n);
    return parts.join(QStringLiteral(", "));
}

}  // namespace

AnalysisTableModel::AnalysisTableModel(QObject *parent) : QAbstractTableModel(parent) {
    if (auto *app = qobject_cast<QApplication *>(QCoreApplication::instance()))
        m_warningIcon = app->style()->standardIcon(QStyle::SP_MessageBoxWarning);
}

void AnalysisTableModel::setReport(ReportPtr report) {
    beginResetModel();
    m_report = std::move(report);
    m_fp32.clear();
    if (m_report)
        for (const analysis::LayerReport &layer : m_report->layers) m_fp32 << layer.fp32Requested;
    endResetModel();
}

void AnalysisTableModel::setThresholdDb(double thresholdDb) {
    if (thresholdDb == m_thresholdDb) return;
    m_thresholdDb = thresholdDb;
    if (rowCount() > 0)
        emit dataChanged(index(0, CumulativeSqnrColumn), index(rowCount() - 1, IsolatedSqnrColumn),
                         {Qt::BackgroundRole, Qt::ToolTipRole, UnderThresholdRole});
}

bool AnalysisTableModel::isLayerFp32(int layer) const {
    return layer >= 0 && layer < m_fp32.size() && m_fp32[layer];
}

bool AnalysisTableModel::isToggleable(int layer) const {
    if (layer < 0 || layer >= m_fp32.size()) return false;
    const analysis::LayerReport &row = m_report->layers[static_cast<size_t>(layer)];
    return m_fp32[layer] || canToggle(row);
}

Qt::CheckState AnalysisTableModel::checkState(int layer) const {
    if (layer < 0 || layer >= m_fp32.size()) return Qt::Unchecked;
    const analysis::LayerReport &row = m_report->layers[static_cast<size_t>(layer)];
    if (m_fp32[layer] != row.fp32Requested)  // toggled here; the report is on its way
        return m_fp32[layer] ? Qt::Checked : Qt::Unchecked;
    if (isFp32(row)) return Qt::Checked;
    return row.fp32Requested ? Qt::PartiallyChecked : Qt::Unchecked;
}

int AnalysisTableModel::rowCount(const QModelIndex &parent) const {
    if (parent.isValid() || !m_report) return 0;
    return static_cast<int>(m_report->layers.size());
}

int AnalysisTableModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

bool AnalysisTableModel::isNumericColumn(int column) {
    return column == IndexColumn || column >= WeightSqnrColumn;
}

std::optional<double> AnalysisTableModel::figure(const analysis::LayerReport &layer,
                                                 int column) const {
    const auto &c = layer.cumulative;
    switch (column) {
        case WeightSqnrColumn:
            return weightSqnr(layer);
        case CumulativeSqnrColumn:
            return cumulativeSqnr(layer);
        case IsolatedSqnrColumn:
            return isolatedSqnr(layer);
        case CosineColumn:
            return c ? presentFigure(c->cosine) : std::nullopt;
        case RmseOverScaleColumn:
            return c ? presentFigure(c->rmseOverScale) : std::nullopt;
        case SaturationColumn:
            return c ? presentFigure(c->saturationPct) : std::nullopt;
        case SampleP5SqnrColumn:
            return sampleP5Sqnr(layer);
        case KernelSqnrColumn:
            return kernelVsReferenceSqnr(layer);
    }
    return std::nullopt;
}

QVariant AnalysisTableModel::displayData(int row, int column) const {
    const analysis::LayerReport &layer = m_report->layers[static_cast<size_t>(row)];
    switch (column) {
        case IndexColumn:
            return row;
        case NameColumn:
            return QString::fromStdString(layer.name);
        case OpTypeColumn:
            return QString::fromStdString(layer.opType);
        case PrecisionColumn: {
            if (checkState(row) == Qt::Checked) return tr("fp32");
            // Quantized otherwise ("int16", "int4 weights"): as the report says. An fp32 row
            // unchecked here shows int8 until its report comes.
            const QString precision = layer.precision == "int8" || layer.precision == "fp32"
                                          ? tr("int8")
                                          : QString::fromStdString(layer.precision);
            const QString remedies = appliedRemediesText(layer);
            return remedies.isEmpty() ? precision : tr("%1 + %2").arg(precision, remedies);
        }
        case CosineColumn:
            return formatFixed(figure(layer, column), 5);  // 40 dB is 0.99995
        case RmseOverScaleColumn:
            return formatFixed(figure(layer, column), 3);
        case SaturationColumn:
            return formatFixed(figure(layer, column), 2);
        default:
            return formatDb(figure(layer, column));
    }
}

QString AnalysisTableModel::toolTip(int row, int column) const {
    const analysis::LayerReport &layer = m_report->layers[static_cast<size_t>(row)];
    QStringList lines;
    switch (column) {
        case PrecisionColumn:
            lines << (isFp32(layer) ? tr("Runs in fp32") : tr("Runs in int8"));
            if (!layer.precisionReason.empty())
                lines << tr("Lowering: %1").arg(QString::fromStdString(layer.precisionReason));
            if (m_fp32[row] != layer.fp32Requested)
                lines << tr("Changed here; the figures are from the %1 run")
                             .arg(isFp32(layer) ? tr("fp32") : tr("int8"));
            else if (checkState(row) == Qt::PartiallyChecked)
                lines << tr(
                    "Kept in fp32, but it still runs int8: its output stays quantized "
                    "for the int8 layers that read it. Keep those in fp32 too, or click "
                    "to drop the request.");
            for (const std::string &name : layer.remedies)
                if (const auto remedy = analysis::parseLayerRemedy(name))
                    lines << layerRemedyExplanation(*remedy);
            if (!isToggleable(row))
                lines << tr("The quantized model runs this layer in fp32: nothing to toggle");
            else if (!m_fp32[row])
                lines << tr("Check to keep this layer in fp32");
            // Not the session's notes (English): the lines above say the same in the UI language.
            return lines.join(QLatin1Char('\n'));
        case CumulativeSqnrColumn:
        case IsolatedSqnrColumn:
            if (const auto v = figure(layer, column); v && *v < m_thresholdDb)
                lines << tr("%1 dB is under the %2 dB threshold")  // 2 decimals: 29.98 < 30
                             .arg(formatFixed(v, 2), formatFixed(m_thresholdDb, 2));
            break;
        case SampleP5SqnrColumn:
            if (layer.cumulative && layer.cumulative->sampleSqnr) {
                const auto &s = *layer.cumulative->sampleSqnr;
                lines << tr("Per-sample SQNR: min %1 dB, 5th percentile %2 dB, median %3 dB "
                            "(%4 samples)")
                             .arg(formatDb(s.min), formatDb(s.p5), formatDb(s.median))
                             .arg(s.stored);
            }
            break;
        case KernelSqnrColumn:
            if (hasKernelMismatch(layer))
                lines << tr("The int8 kernel differs from the reference path (dequantize, fp32 "
                            "op, quantize): %1 dB, under %2 dB")
                             .arg(formatDb(figure(layer, column)),
                                  formatDb(analysis::kKernelMismatchDb));
            break;
        default:
            lines << tr("%1 '%2'").arg(QString::fromStdString(layer.opType),
                                       QString::fromStdString(layer.name));
            if (!layer.quantName.empty() && layer.quantName != layer.name)
                lines << tr("Quantized model: %1").arg(QString::fromStdString(layer.quantName));
            if (!layer.foldedFloatNodes.empty())
                lines << tr("Includes (float): %1").arg(joined(layer.foldedFloatNodes));
            if (!layer.foldedQuantNodes.empty())
                lines << tr("Includes (quantized): %1").arg(joined(layer.foldedQuantNodes));
            if (layer.matchedBy == "weights")
                lines << tr("Matched by its weights: correlation %1 with the quantized layer's")
                             .arg(layer.matchConfidence, 0, 'f', 5);
            else if (layer.matchedBy == "structure")
                lines << tr("Matched by structure: it reads the same values (confidence %1)")
                             .arg(layer.matchConfidence, 0, 'f', 1);
            else if (layer.matchedBy == "name")
                lines << tr("Matched by node name among several candidates (confidence %1)")
                             .arg(layer.matchConfidence, 0, 'f', 1);
            break;
    }
    for (const std::string &note : layer.notes) lines << QString::fromStdString(note);
    return lines.join(QLatin1Char('\n'));
}

QVariant AnalysisTableModel::data(const QModelIndex &index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        !m_report)
        return {};
    const int row = index.row(), column = index.column();
    const analysis::LayerReport &layer = m_report->layers[static_cast<size_t>(row)];
    const bool threshold = column == CumulativeSqnrColumn || column == IsolatedSqnrColumn;
    const auto underThreshold = [&] {
        const auto v = figure(layer, column);
        return v && *v < m_thresholdDb;
    };
    switch (role) {
        case Qt::DisplayRole:
            return displayData(row, column);
        case Qt::ToolTipRole: {
            const QString tip = toolTip(row, column);
            return tip.isEmpty() ? QVariant() : QVariant(tip);
        }
        case Qt::CheckStateRole:
            if (column == PrecisionColumn) return checkState(row);
            return {};
        case SortRole:
            if (column == IndexColumn) return row;
            if (isNumericColumn(column)) {
                const auto v = figure(layer, column);
                return v ? QVariant(*v) : QVariant();
            }
            return displayData(row, column);
        case LayerIndexRole:
            return row;
        case UnderThresholdRole:
            return threshold ? QVariant(underThreshold()) : QVariant();
        case KernelMismatchRole:
            return column == KernelSqnrColumn ? QVariant(hasKernelMismatch(layer)) : QVariant();
        case Qt::BackgroundRole:
            if (threshold && underThreshold()) return kUnderThresholdTint;
            if (column == KernelSqnrColumn && hasKernelMismatch(layer)) return kMismatchTint;
            return {};
        case Qt::DecorationRole:
            if (column == KernelSqnrColumn && hasKernelMismatch(layer)) return m_warningIcon;
            return {};
        case Qt::TextAlignmentRole:
            return QVariant::fromValue((isNumericColumn(column) ? Qt::AlignRight : Qt::AlignLeft) |
                                       Qt::AlignVCenter);
        default:
            return {};
    }
}

bool AnalysisTableModel::setData(const QModelIndex &index, const QVariant &value, int role) {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) ||
        !m_report || index.column() != PrecisionColumn || role != Qt::CheckStateRole)
        return false;
    const int row = index.row();
    if (!isToggleable(row)) return false;
    // A click on a partially checked box (kept in fp32, still int8) drops the request; the view
    // sends Checked for it.
    const bool fp32 = checkState(row) != Qt::PartiallyChecked && value.toInt() == Qt::Checked;
    if (m_fp32[row] == fp32) return true;
    m_fp32[row] = fp32;
    emit dataChanged(index, index,
                     {Qt::CheckStateRole, Qt::DisplayRole, Qt::ToolTipRole, SortRole});
    emit precisionToggled(row, fp32);
    return true;
}

Qt::ItemFlags AnalysisTableModel::flags(const QModelIndex &index) const {
    Qt::ItemFlags f = QAbstractTableModel::flags(index);
    if (index.isValid() && index.column() == PrecisionColumn && isToggleable(index.row()))
        f |= Qt::ItemIsUserCheckable;
    return f;
}

QString AnalysisTableModel::headerToolTip(int section) const {
    switch (section) {
        case IndexColumn:
            return tr("Position in the float model's topological order");
        case NameColumn:
            return tr("Float model node name (skip-lists use it)");
        case OpTypeColumn:
            return tr("ONNX operator of the float node");
        case PrecisionColumn:
            return tr("How the quantized layer runs; check to keep it in fp32");
        case WeightSqnrColumn:
            return tr(
                "Weight SQNR = 10·log10(Σw² / Σ(w − dequant(q(w)))²), float weight (BN-folded "
                "when the quantized model folded it) vs dequantized int8 weight");
        case CumulativeSqnrColumn:
            return tr(
                "Cumulative activation SQNR: both models run end to end on the same inputs, "
                "this layer's outputs compared; 10·log10(Σx² / Σ(x−y)²)");
        case IsolatedSqnrColumn:
            return tr(
                "Isolated (shadow) SQNR: the quantized layer fed the float model's input to "
                "it, compared with the float layer's output: the layer's own error");
        case CosineColumn:
            return tr("Cosine similarity Σxy / sqrt(Σx²·Σy²) of the cumulative outputs");
        case RmseOverScaleColumn:
            return tr("sqrt(MSE) / output scale; about 0.289 is the quantization noise floor");
        case SaturationColumn:
            return tr("Share of quantized output values clipped at qmin or qmax (%)");
        case SampleP5SqnrColumn:
            return tr(
                "5th percentile of the per-sample cumulative SQNR: far under the overall "
                "SQNR means the error depends on the data (a few inputs are bad)");
        case KernelSqnrColumn:
            return tr("int8 kernel output vs the reference path (dequantize, fp32 op, quantize); "
                      "under %1 dB is flagged as a kernel mismatch")
                .arg(formatDb(analysis::kKernelMismatchDb));
    }
    return {};
}

QVariant AnalysisTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            case IndexColumn:
                return tr("#");
            case NameColumn:
                return tr("Name");
            case OpTypeColumn:
                return tr("Op type");
            case PrecisionColumn:
                return tr("Precision");
            case WeightSqnrColumn:
                return tr("Weight dB");
            case CumulativeSqnrColumn:
                return tr("Cumul. dB");
            case IsolatedSqnrColumn:
                return tr("Isolated dB");
            case CosineColumn:
                return tr("Cosine");
            case RmseOverScaleColumn:
                return tr("RMSE/scale");
            case SaturationColumn:
                return tr("Sat. %");
            case SampleP5SqnrColumn:
                return tr("p5 dB");
            case KernelSqnrColumn:
                return tr("Kernel dB");
        }
    }
    if (role == Qt::TextAlignmentRole)
        return QVariant::fromValue((isNumericColumn(section) ? Qt::AlignRight : Qt::AlignLeft) |
                                   Qt::AlignVCenter);
    if (role == Qt::ToolTipRole) return headerToolTip(section);
    return {};
}

}  // namespace ql::ui

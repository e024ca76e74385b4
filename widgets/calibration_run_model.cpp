#include "calibration_run_model.h"

#include <QLocale>

#include "calibration_lab_text.h"
#include "display_format.h"

namespace ql::ui {

namespace {

QVariant optionalNumber(std::optional<double> value) {
    return value ? QVariant(*value) : QVariant();
}

}  // namespace

CalibrationRunModel::CalibrationRunModel(QObject *parent) : QAbstractTableModel(parent) {}

void CalibrationRunModel::setLab(CalibrationLabDataPtr lab) {
    beginResetModel();
    m_lab = std::move(lab);
    endResetModel();
}

int CalibrationRunModel::rowOf(const QString &id) const {
    for (int row = 0; row < rowCount(); ++row)
        if (m_lab->runs[row].id == id) return row;
    return -1;
}

int CalibrationRunModel::rowCount(const QModelIndex &parent) const {
    if (parent.isValid() || !m_lab) return 0;
    return int(m_lab->runs.size());
}

int CalibrationRunModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CalibrationRunModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const CalibrationLabRun &run = m_lab->runs[index.row()];
    switch (role) {
        case Qt::DisplayRole:
            return displayData(run, index.column());
        case SortRole:
            return sortData(run, index.column());
        case RunIdRole:
            return run.id;
        case Qt::ToolTipRole:
            return toolTip(run);
        case Qt::TextAlignmentRole:
            return index.column() >= SizeColumn && index.column() != IdenticalToColumn
                       ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                       : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
        default:
            return {};
    }
}

QVariant CalibrationRunModel::displayData(const CalibrationLabRun &run, int column) const {
    switch (column) {
        case IdColumn:
            return run.id;
        case MethodColumn:
            return run.method;
        case SizeColumn:
            return QLocale().toString(run.size);
        case RepeatColumn:
            return run.repeat;
        case BatchColumn:
            return QLocale().toString(run.calibBatch);
        case SqnrColumn:
            return formatDb(run.sqnrDb);
        case AgreementColumn:
            return formatShare(run.agreement);
        case AccuracyColumn:
            return formatShareCi(run.accuracy, run.accuracyCi);
        case IdenticalToColumn:
            return run.identicalTo;
        case SecondsColumn:
            return QLocale().toString(run.seconds, 'f', 2);
        default:
            return {};
    }
}

QVariant CalibrationRunModel::sortData(const CalibrationLabRun &run, int column) const {
    switch (column) {
        case IdColumn:
            return run.id;
        case MethodColumn:
            return run.method;
        case SizeColumn:
            return double(run.size);
        case RepeatColumn:
            return double(run.repeat);
        case BatchColumn:
            return double(run.calibBatch);
        case SqnrColumn:
            return optionalNumber(run.sqnrDb);
        case AgreementColumn:
            return optionalNumber(run.agreement);
        case AccuracyColumn:
            return optionalNumber(run.accuracy);
        case IdenticalToColumn:
            return run.identicalTo;
        case SecondsColumn:
            return run.seconds;
        default:
            return {};
    }
}

QString CalibrationRunModel::toolTip(const CalibrationLabRun &run) const {
    QStringList lines;
    lines << tr("%1: %n calibration file(s), batch %2", nullptr, int(run.calibIndices.size()))
                 .arg(run.id)
                 .arg(run.calibBatch);
    lines << tr("Top-1 agreement: %1").arg(formatShareCi(run.agreement, run.agreementCi));
    if (m_lab->labelled)
        lines << tr("Accuracy: %1").arg(formatShareCi(run.accuracy, run.accuracyCi));
    if (!run.identicalTo.isEmpty())
        lines << tr("Same calibration as %1: evaluated once").arg(run.identicalTo);
    if (!run.reproduce.isEmpty()) lines << tr("Reproduce: %1").arg(run.reproduce);
    lines << tr("Double-click: open this run as the analysis");
    return lines.join(QLatin1Char('\n'));
}

QVariant CalibrationRunModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal) return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
            case IdColumn:
                return tr("Run");
            case MethodColumn:
                return tr("Method");
            case SizeColumn:
                return tr("Size");
            case RepeatColumn:
                return tr("Repeat");
            case BatchColumn:
                return tr("Batch");
            case SqnrColumn:
                return tr("SQNR (dB)");
            case AgreementColumn:
                return tr("Agreement");
            case AccuracyColumn:
                return tr("Accuracy [95 % CI]");
            case IdenticalToColumn:
                return tr("Identical to");
            case SecondsColumn:
                return tr("Time (s)");
            default:
                return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case SizeColumn:
                return tr("Calibration files of the run");
            case BatchColumn:
                return tr("Samples per calibration batch");
            case SqnrColumn:
                return tr(
                    "SQNR of the first output over all evaluation samples: "
                    "10·log10(Σx² / Σ(x−y)²), x float, y dequantized int8");
            case AgreementColumn:
                return tr(
                    "Share of evaluation samples whose top-1 class equals the float "
                    "model's");
            case AccuracyColumn:
                return tr("Top-1 accuracy on the labels, with its Wilson score interval (95 %)");
            case IdenticalToColumn:
                return tr(
                    "An earlier run with the same calibration (same method and files): "
                    "evaluated once");
            default:
                return {};
        }
    }
    return {};
}

}  // namespace ql::ui

#include "calibration_comparison_model.h"

#include <QFont>

#include "calibration_lab_text.h"

namespace ql::ui {

namespace {

QVariant optionalNumber(std::optional<double> value) {
    return value ? QVariant(*value) : QVariant();
}

// The interval excludes 0: more than noise.
bool isClear(const CalibrationLabComparison &c) {
    return c.diffCi && (c.diffCi->low > 0.0 || c.diffCi->high < 0.0);
}

}  // namespace

CalibrationComparisonModel::CalibrationComparisonModel(QObject *parent)
    : QAbstractTableModel(parent) {}

void CalibrationComparisonModel::setLab(CalibrationLabDataPtr lab) {
    beginResetModel();
    m_lab = std::move(lab);
    endResetModel();
}

int CalibrationComparisonModel::rowCount(const QModelIndex &parent) const {
    if (parent.isValid() || !m_lab) return 0;
    return int(m_lab->comparisons.size());
}

int CalibrationComparisonModel::columnCount(const QModelIndex &parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CalibrationComparisonModel::data(const QModelIndex &index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const CalibrationLabComparison &c = m_lab->comparisons[index.row()];
    switch (role) {
        case Qt::DisplayRole:
            return displayData(c, index.column());
        case SortRole:
            return sortData(c, index.column());
        case SideARole:
            return c.a;
        case SideBRole:
            return c.b;
        case Qt::ToolTipRole:
            return c.verdict;
        case Qt::FontRole:
            if (index.column() == DiffColumn && isClear(c)) {
                QFont bold;
                bold.setBold(true);
                return bold;
            }
            return {};
        case Qt::TextAlignmentRole:
            return index.column() >= DiffColumn && index.column() <= N10Column
                       ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                       : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
        default:
            return {};
    }
}

QVariant CalibrationComparisonModel::displayData(const CalibrationLabComparison &c,
                                                 int column) const {
    switch (column) {
        case KindColumn:
            return comparisonKindText(c.kind);
        case AColumn:
            return comparisonSideText(c.a);
        case BColumn:
            return comparisonSideText(c.b);
        case DiffColumn:
            return formatPointsCi(c.diff, c.diffCi);
        case PValueColumn:
            return formatPValue(c.mcnemarP);
        case N01Column:
            return c.n01;
        case N10Column:
            return c.n10;
        case VerdictColumn:
            return c.verdict;
        default:
            return {};
    }
}

QVariant CalibrationComparisonModel::sortData(const CalibrationLabComparison &c, int column) const {
    switch (column) {
        case KindColumn:
            return c.kind;
        case AColumn:
            return c.a;
        case BColumn:
            return c.b;
        case DiffColumn:
            return optionalNumber(c.diff);
        case PValueColumn:
            return optionalNumber(c.mcnemarP);
        case N01Column:
            return double(c.n01);
        case N10Column:
            return double(c.n10);
        case VerdictColumn:
            return c.verdict;
        default:
            return {};
    }
}

QVariant CalibrationComparisonModel::headerData(int section, Qt::Orientation orientation,
                                                int role) const {
    if (orientation != Qt::Horizontal) return {};
    const bool labelled = m_lab && m_lab->labelled;
    if (role == Qt::DisplayRole) {
        switch (section) {
            case KindColumn:
                return tr("Comparison");
            case AColumn:
                return tr("A");
            case BColumn:
                return tr("B");
            case DiffColumn:
                return tr("A − B (points) [95 % CI]");
            case PValueColumn:
                return tr("p (McNemar)");
            case N01Column:
                return tr("n01");
            case N10Column:
                return tr("n10");
            case VerdictColumn:
                return tr("Verdict");
            default:
                return {};
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
            case DiffColumn:
                return tr("%1 of A minus %1 of B in percentage points, on the same evaluation "
                          "samples, with a paired bootstrap 95 % interval: within noise when it "
                          "contains 0")
                    .arg(labelled ? tr("accuracy") : tr("top-1 agreement"));
            case PValueColumn:
                return tr(
                    "Exact McNemar test: two-sided binomial test of n01 against n01 + n10 "
                    "at 1/2");
            case N01Column:
                return tr("Samples A gets wrong and B gets right");
            case N10Column:
                return tr("Samples A gets right and B gets wrong");
            default:
                return {};
        }
    }
    return {};
}

}  // namespace ql::ui

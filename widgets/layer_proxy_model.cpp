#include "layer_proxy_model.h"

#include "layer_table_model.h"

namespace ql::ui {

int naturalCompare(const QString &a, const QString &b) {
    qsizetype i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (a[i].isDigit() && b[j].isDigit()) {
            qsizetype iEnd = i, jEnd = j;
            while (iEnd < a.size() && a[iEnd].isDigit()) ++iEnd;
            while (jEnd < b.size() && b[jEnd].isDigit()) ++jEnd;
            // Compare without leading zeros: longer run = larger number, else digit by digit.
            QStringView x = QStringView(a).mid(i, iEnd - i), y = QStringView(b).mid(j, jEnd - j);
            while (x.size() > 1 && x.front() == u'0') x = x.mid(1);
            while (y.size() > 1 && y.front() == u'0') y = y.mid(1);
            if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
            if (const int c = x.compare(y); c != 0) return c < 0 ? -1 : 1;
            i = iEnd;
            j = jEnd;
            continue;
        }
        const QChar p = a[i].toCaseFolded(), q = b[j].toCaseFolded();
        if (p != q) return p < q ? -1 : 1;
        ++i;
        ++j;
    }
    if (i < a.size()) return 1;
    if (j < b.size()) return -1;
    return a.compare(b);  // equal ignoring case and zeros: still a total order
}

LayerProxyModel::LayerProxyModel(QObject *parent) : QSortFilterProxyModel(parent) {
    setSortRole(LayerTableModel::SortRole);
    setFilterKeyColumn(-1);  // any column
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

bool LayerProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const {
    const QVariant a = left.data(sortRole()), b = right.data(sortRole());
    // A missing figure sorts lowest, so the worst real layers stay together at one end.
    if (!a.isValid() || !b.isValid()) return !a.isValid() && b.isValid();
    if (a.userType() == QMetaType::Double && b.userType() == QMetaType::Double)
        return a.toDouble() < b.toDouble();  // ±inf order as numbers
    if (a.userType() == QMetaType::QString && b.userType() == QMetaType::QString)
        return naturalCompare(a.toString(), b.toString()) < 0;
    return QSortFilterProxyModel::lessThan(left, right);
}

}  // namespace ql::ui

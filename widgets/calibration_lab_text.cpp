#include "calibration_lab_text.h"

#include <QCoreApplication>
#include <QLocale>

#include <algorithm>
#include <cmath>

#include "display_format.h"

namespace ql::ui {

namespace {

QString signedPoints(double points) {
    const QString number = QLocale().toString(std::abs(points), 'f', 1);
    if (std::abs(points) < 0.05) return number;
    return (points > 0 ? QStringLiteral("+") : QStringLiteral("−")) + number;
}

}  // namespace

QString formatShareCi(std::optional<double> share, std::optional<Interval> ci) {
    const QString value = formatShare(share);
    if (!share || !ci) return value;
    return QStringLiteral("%1 [%2, %3]")
        .arg(value, QLocale().toString(ci->low * 100.0, 'f', 1),
             QLocale().toString(ci->high * 100.0, 'f', 1));
}

QString formatPointsCi(std::optional<double> diff, std::optional<Interval> ci) {
    if (!diff || std::isnan(*diff)) return QStringLiteral("—");
    const QString value = signedPoints(*diff * 100.0);
    if (!ci) return value;
    return QStringLiteral("%1 [%2, %3]")
        .arg(value, signedPoints(ci->low * 100.0), signedPoints(ci->high * 100.0));
}

QString formatPValue(std::optional<double> p) {
    if (!p || std::isnan(*p)) return QStringLiteral("—");
    if (*p < 0.001) return QStringLiteral("< ") + QLocale().toString(0.001, 'f', 3);
    return QLocale().toString(*p, 'f', *p < 0.01 ? 3 : 2);
}

QString comparisonKindText(const QString &kind) {
    if (kind == QLatin1String("best_vs_worst"))
        return QCoreApplication::translate("ql::ui::CalibrationLabText", "best vs worst");
    if (kind == QLatin1String("method_vs_float"))
        return QCoreApplication::translate("ql::ui::CalibrationLabText", "method vs float");
    if (kind == QLatin1String("size_step"))
        return QCoreApplication::translate("ql::ui::CalibrationLabText", "size step");
    if (kind == QLatin1String("batch_step"))
        return QCoreApplication::translate("ql::ui::CalibrationLabText", "batch step");
    if (kind == QLatin1String("remedy_vs_none"))
        return QCoreApplication::translate("ql::ui::CalibrationLabText", "remedy vs none");
    return kind;
}

QString comparisonSideText(const QString &side) {
    return side == QLatin1String("float")
               ? QCoreApplication::translate("ql::ui::CalibrationLabText", "float model")
               : side;
}

QString formatTimeLeft(double seconds) {
    if (!(seconds >= 0.0)) return {};
    if (seconds < 90.0)
        return QCoreApplication::translate("ql::ui::CalibrationLabText", "about %1 s left")
            .arg(std::max(1, int(std::lround(seconds))));
    return QCoreApplication::translate("ql::ui::CalibrationLabText", "about %1 min left")
        .arg(int(std::lround(seconds / 60.0)));
}

QString scoreName(bool labelled) {
    return labelled ? QCoreApplication::translate("ql::ui::CalibrationLabText", "Accuracy")
                    : QCoreApplication::translate("ql::ui::CalibrationLabText", "Top-1 agreement");
}

}  // namespace ql::ui

#include "fp32_search_text.h"

#include <QCoreApplication>
#include <QLocale>

#include <cmath>

namespace ql::ui {

// Free functions: lupdate reads the context from each call.
QString searchMetricName(analysis::SearchMetric metric) {
    switch (metric) {
        case analysis::SearchMetric::Sqnr:
            return QCoreApplication::translate("Fp32SearchText", "Output SQNR");
        case analysis::SearchMetric::Agreement:
            return QCoreApplication::translate("Fp32SearchText", "Top-1 agreement");
        case analysis::SearchMetric::AccuracyDrop:
            return QCoreApplication::translate("Fp32SearchText", "Accuracy drop");
    }
    return {};
}

QString searchMetricUnit(analysis::SearchMetric metric) {
    switch (metric) {
        case analysis::SearchMetric::Sqnr:
            return QCoreApplication::translate("Fp32SearchText", "dB");
        case analysis::SearchMetric::Agreement:
            return QCoreApplication::translate("Fp32SearchText", "%");
        case analysis::SearchMetric::AccuracyDrop:
            return QCoreApplication::translate("Fp32SearchText", "points");
    }
    return {};
}

QString formatSearchFigure(double figure, analysis::SearchMetric metric) {
    if (std::isnan(figure)) return QStringLiteral("—");
    if (std::isinf(figure)) return QStringLiteral("∞ ") + searchMetricUnit(metric);
    return QLocale().toString(figure, 'f', 2) + QLatin1Char(' ') + searchMetricUnit(metric);
}

QString searchTargetText(const analysis::SearchTarget &target) {
    const QString value = QLocale().toString(target.value, 'g', 6);
    switch (target.metric) {
        case analysis::SearchMetric::Sqnr:
            return QCoreApplication::translate("Fp32SearchText", "output SQNR ≥ %1 dB").arg(value);
        case analysis::SearchMetric::Agreement:
            return QCoreApplication::translate("Fp32SearchText", "top-1 agreement ≥ %1 %")
                .arg(value);
        case analysis::SearchMetric::AccuracyDrop:
            return QCoreApplication::translate("Fp32SearchText", "accuracy drop ≤ %1 points")
                .arg(value);
    }
    return {};
}

}  // namespace ql::ui

#include "fp32_search_text.h"

#include <QCoreApplication>
#include <QLocale>

#include <cmath>

namespace ql::ui {

namespace {

QString tr(const char *text) {
    return QCoreApplication::translate("Fp32SearchText", text);
}

}  // namespace

QString searchMetricName(analysis::SearchMetric metric) {
    switch (metric) {
        case analysis::SearchMetric::Sqnr:
            return tr("Output SQNR");
        case analysis::SearchMetric::Agreement:
            return tr("Top-1 agreement");
        case analysis::SearchMetric::AccuracyDrop:
            return tr("Accuracy drop");
    }
    return {};
}

QString searchMetricUnit(analysis::SearchMetric metric) {
    switch (metric) {
        case analysis::SearchMetric::Sqnr:
            return tr("dB");
        case analysis::SearchMetric::Agreement:
            return tr("%");
        case analysis::SearchMetric::AccuracyDrop:
            return tr("points");
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
            return tr("output SQNR ≥ %1 dB").arg(value);
        case analysis::SearchMetric::Agreement:
            return tr("top-1 agreement ≥ %1 %").arg(value);
        case analysis::SearchMetric::AccuracyDrop:
            return tr("accuracy drop ≤ %1 points").arg(value);
    }
    return {};
}

}  // namespace ql::ui

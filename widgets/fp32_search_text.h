#pragma once
// How the fp32 search's figures read in the GUI: the metric's name and unit, a figure with its
// unit, the target as a sentence.

#include <QString>

#include "analysis/search/fp32_search.h"

namespace ql::ui {

QString searchMetricName(analysis::SearchMetric metric);                   // "Output SQNR", ...
QString searchMetricUnit(analysis::SearchMetric metric);                   // "dB", "%", "points"
QString formatSearchFigure(double figure, analysis::SearchMetric metric);  // "38.63 dB"; "—"
QString searchTargetText(const analysis::SearchTarget &target);  // "output SQNR ≥ 35 dB"

}  // namespace ql::ui

#pragma once
// How the calibration lab's figures read, in the user's locale, in its header, tables and chart
// tooltips alike.

#include <QString>

#include <optional>

#include "calibration_lab_data.h"

namespace ql::ui {

// A share with its 95 % interval: "83.1 % [79.0, 86.5]" ("—" when missing; no interval part
// without one).
QString formatShareCi(std::optional<double> share, std::optional<Interval> ci);
// A difference of shares in percentage points with its interval: "+3.1 [−0.5, +6.8]".
QString formatPointsCi(std::optional<double> diff, std::optional<Interval> ci);
// A p-value: "0.25", "0.004", "< 0.001".
QString formatPValue(std::optional<double> p);
// "best vs worst", "method vs float", "size step", "batch step" (the kind as it is otherwise).
QString comparisonKindText(const QString &kind);
// A comparison side: a run id, or "float model".
QString comparisonSideText(const QString &side);
// "about 40 s left", "about 3 min left"; empty for a negative estimate.
QString formatTimeLeft(double seconds);
// What the score is: "Accuracy" or "Top-1 agreement".
QString scoreName(bool labelled);

}  // namespace ql::ui

#pragma once
// The analysis views' colours in one place: the chart's marks and the graph view's SQNR fill
// agree on what red (under the threshold), grey (fp32) and the selection look like.

#include <QColor>
#include <QPalette>

#include <optional>

namespace ql::ui {

inline const QColor kUnderColor(210, 35, 35);
inline const QColor kFp32Color(128, 128, 128);
inline const QColor kSelectionColor(40, 120, 255);

// An SQNR figure as a fill, relative to the threshold: the chart's red from 10 dB under it,
// amber at it, green from 20 dB over it (interpolated between). nullopt when there is no figure.
std::optional<QColor> sqnrFill(std::optional<double> db, double thresholdDb);
// The dB the fill scale spans around the threshold: [threshold + low, threshold + high].
constexpr double kFillScaleLowDb = -10.0, kFillScaleHighDb = 20.0;
// The fill of a box without a figure: a little off the base, so boxes stand out on dark too.
QColor noFigureFill(const QPalette &palette);
// Black or white, whichever reads on `fill`.
QColor textOn(const QColor &fill);

}  // namespace ql::ui

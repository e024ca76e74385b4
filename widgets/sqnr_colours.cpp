#include "sqnr_colours.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace ql::ui {
namespace {

struct Stop {
    double offsetDb;  // from the threshold
    QColor colour;
};
// Red is the chart's "under the threshold"; the threshold itself is amber (a layer just at it is
// not yet healthy), green beyond it.
const Stop kStops[] = {{kFillScaleLowDb, kUnderColor},
                       {0.0, QColor(245, 175, 70)},
                       {8.0, QColor(225, 220, 120)},
                       {kFillScaleHighDb, QColor(120, 195, 120)}};

QColor mix(const QColor &a, const QColor &b, double t) {
    auto channel = [t](int x, int y) { return int(std::lround(x + (y - x) * t)); };
    return QColor(channel(a.red(), b.red()), channel(a.green(), b.green()),
                  channel(a.blue(), b.blue()));
}

}  // namespace

std::optional<QColor> sqnrFill(std::optional<double> db, double thresholdDb) {
    if (!db || std::isnan(*db)) return std::nullopt;
    const double offset = *db - thresholdDb;  // +-inf clamp to the ends
    if (!(offset > kStops[0].offsetDb)) return kStops[0].colour;
    for (size_t i = 1; i < std::size(kStops); ++i)
        if (offset <= kStops[i].offsetDb) {
            const Stop &a = kStops[i - 1], &b = kStops[i];
            return mix(a.colour, b.colour, (offset - a.offsetDb) / (b.offsetDb - a.offsetDb));
        }
    return std::end(kStops)[-1].colour;
}

QColor noFigureFill(const QPalette &palette) {
    const QColor base = palette.color(QPalette::Base);
    return base.lightness() < 110 ? base.lighter(150) : palette.color(QPalette::Button);
}

QColor textOn(const QColor &fill) {
    // Relative luminance by the sRGB weights; 0.45 keeps black on amber and white on red.
    const double luminance =
        (0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF());
    return luminance > 0.45 ? QColor(Qt::black) : QColor(Qt::white);
}

}  // namespace ql::ui

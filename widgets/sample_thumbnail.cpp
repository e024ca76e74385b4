#include "sample_thumbnail.h"

#include <QImageReader>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace ql::ui {
namespace {

// Viridis-like stops, evenly spaced over [0, 1]: perceptually ordered, readable as greyscale and
// by the colour-blind, and distinct from the red that marks flips.
const QRgb kStops[] = {qRgb(68, 1, 84),    qRgb(71, 44, 122),  qRgb(59, 81, 139),
                       qRgb(44, 113, 142), qRgb(33, 144, 141), qRgb(39, 173, 129),
                       qRgb(92, 200, 99),  qRgb(170, 220, 50), qRgb(253, 231, 37)};

QRgb heatRgb(double t) {
    constexpr int last = int(std::size(kStops)) - 1;
    const double x = std::clamp(t, 0.0, 1.0) * last;
    const int i = std::min(int(x), last - 1);
    const double f = x - i;
    auto channel = [f](int a, int b) { return int(std::lround(a + (b - a) * f)); };
    const QRgb a = kStops[i], b = kStops[i + 1];
    return qRgb(channel(qRed(a), qRed(b)), channel(qGreen(a), qGreen(b)),
                channel(qBlue(a), qBlue(b)));
}

const QRgb kNanRgb = qRgb(128, 128, 128);

// An image brought to fit size x size: smooth when shrinking, pixel-exact when enlarging.
QImage fitted(const QImage &image, int size) {
    const QSize target = image.size().scaled(size, size, Qt::KeepAspectRatio).expandedTo({1, 1});
    if (target == image.size()) return image;
    const bool shrink = target.width() < image.width();
    return image.scaled(target, Qt::IgnoreAspectRatio,
                        shrink ? Qt::SmoothTransformation : Qt::FastTransformation);
}

// The values shown: H x W, the planes before the last two dims averaged.
struct Grid {
    int64_t height = 0, width = 0;
    std::vector<double> values;  // row-major
};

Grid averagedGrid(const Tensor &sample) {
    Grid grid;
    grid.width = sample.rank() >= 1 ? sample.dim(-1) : 1;
    grid.height = sample.rank() >= 2 ? sample.dim(-2) : 1;
    const int64_t cells = grid.width * grid.height;
    if (cells <= 0) return grid;
    const std::vector<float> values = sample.toFloatVector();
    const int64_t planes = int64_t(values.size()) / cells;
    grid.values.assign(size_t(cells), 0.0);
    for (int64_t p = 0; p < planes; ++p)
        for (int64_t i = 0; i < cells; ++i) grid.values[size_t(i)] += values[size_t(p * cells + i)];
    for (double &v : grid.values) v /= double(planes);
    return grid;
}

// Where a value sits in the colour map: the finite min..max span (infinities clamp to the
// ends, NaN stays NaN); a constant grid sits in the middle.
struct Normaliser {
    double low = std::numeric_limits<double>::infinity();
    double high = -std::numeric_limits<double>::infinity();

    explicit Normaliser(const std::vector<double> &values) {
        for (double v : values)
            if (std::isfinite(v)) {
                low = std::min(low, v);
                high = std::max(high, v);
            }
    }
    double operator()(double v) const {
        if (std::isnan(v)) return v;
        if (std::isinf(v)) return v > 0 ? 1.0 : 0.0;
        return high > low ? (v - low) / (high - low) : 0.5;
    }
};

// Output extent of a source extent: the longer side fills `size`, a thin side stays visible.
int outputExtent(int64_t extent, int64_t longest, int size) {
    const int thinnest = std::max(1, size / 8);
    const auto scaled = int(std::lround(double(extent) * size / double(longest)));
    return std::clamp(scaled, thinnest, size);
}

}  // namespace

QColor heatColour(double t) {
    return QColor(heatRgb(t));
}

QColor heatNanColour() {
    return QColor(kNanRgb);
}

QImage imageFileThumbnail(const QString &file, int size) {
    if (size <= 0) return {};
    QImageReader reader(file);
    reader.setAutoTransform(true);
    // Scaled while decoding: a 4000 x 3000 JPEG is never held at full size.
    const QSize full = reader.size();
    if (full.isValid() && (full.width() > size || full.height() > size))
        reader.setScaledSize(full.scaled(size, size, Qt::KeepAspectRatio).expandedTo({1, 1}));
    const QImage image = reader.read();
    if (image.isNull()) return {};
    // A format QPainter draws without converting, once per paint.
    return fitted(image, size)
        .convertToFormat(image.hasAlphaChannel() ? QImage::Format_ARGB32_Premultiplied
                                                 : QImage::Format_RGB32);
}

QImage tensorHeatMap(const Tensor &sample, int size) {
    if (!sample.defined() || size <= 0) return {};
    const Grid grid = averagedGrid(sample);
    if (grid.values.empty()) return {};
    const Normaliser normalise(grid.values);
    const int64_t longest = std::max(grid.width, grid.height);
    const int width = outputExtent(grid.width, longest, size);
    const int height = outputExtent(grid.height, longest, size);
    QImage image(width, height, QImage::Format_RGB32);
    for (int y = 0; y < height; ++y) {
        auto *line = reinterpret_cast<QRgb *>(image.scanLine(y));
        const int64_t sy = std::min(grid.height - 1, int64_t(y) * grid.height / height);
        for (int x = 0; x < width; ++x) {
            const int64_t sx = std::min(grid.width - 1, int64_t(x) * grid.width / width);
            const double t = normalise(grid.values[size_t(sy * grid.width + sx)]);
            line[x] = std::isnan(t) ? kNanRgb : heatRgb(t);
        }
    }
    return image;
}

}  // namespace ql::ui

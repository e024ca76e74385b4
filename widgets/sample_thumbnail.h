#pragma once
// Small pictures of evaluation samples for the worst-samples strip: an image file scaled down
// while it is decoded, or a tensor sample as a heat map. Both are plain QImage work, safe to run
// off the GUI thread.

#include <QColor>
#include <QImage>
#include <QString>

#include "ir/tensor.h"

namespace ql::ui {

// The picture in `file` scaled to fit size x size, aspect kept. Large pictures are scaled by the
// reader (QImageReader::setScaledSize: a JPEG decodes at reduced size); small ones are enlarged
// with nearest-neighbour, so a 28 x 28 digit keeps its pixels. Null when unreadable.
QImage imageFileThumbnail(const QString &file, int size);

// One evaluation sample (no batch dim) as a heat map fitting size x size: rank >= 2 shows the last
// two dims as H x W with the others averaged ([C,H,W] averages the channels); rank 1 is a 1 x N
// strip (drawn at least size / 8 tall). Values min..max go through heatColour; a constant
// tensor is a flat heatColour(0.5); NaN is grey; scaled nearest-neighbour. Null when empty.
QImage tensorHeatMap(const Tensor &sample, int size);

// The heat map's perceptual colour map (viridis-like: dark purple, blue, green, yellow) at
// t in [0, 1] (clamped).
QColor heatColour(double t);
// The heat map's colour for NaN.
QColor heatNanColour();

}  // namespace ql::ui

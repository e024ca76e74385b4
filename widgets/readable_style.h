#pragma once
// The application style with check boxes that stay visible on dark palettes. Fusion draws a check
// box's frame in the window colour made darker, which on a dark palette is all but black on
// black: the precision check boxes of the layer table vanish. On a dark palette (window lightness
// under half) this style draws the frame again in the text colour, half transparent.

#include <QProxyStyle>

namespace ql::ui {

class ReadableStyle : public QProxyStyle {
public:
    // `base`: the style to draw with (owned); null: the application's default style.
    explicit ReadableStyle(QStyle *base = nullptr);

    void drawPrimitive(PrimitiveElement element, const QStyleOption *option, QPainter *painter,
                       const QWidget *widget = nullptr) const override;
};

}  // namespace ql::ui

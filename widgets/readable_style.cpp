#include "readable_style.h"

#include <QPainter>
#include <QStyleOption>

namespace ql::ui {

ReadableStyle::ReadableStyle(QStyle *base) : QProxyStyle(base) {}

void ReadableStyle::drawPrimitive(PrimitiveElement element, const QStyleOption *option,
                                  QPainter *painter, const QWidget *widget) const {
    QProxyStyle::drawPrimitive(element, option, painter, widget);
    const bool checkBox =
        element == PE_IndicatorCheckBox || element == PE_IndicatorItemViewItemCheck;
    if (!checkBox || !option || option->palette.window().color().lightness() >= 128) return;
    QColor frame = option->palette.text().color();
    frame.setAlphaF(option->state & State_Enabled ? 0.55f : 0.3f);
    painter->save();
    painter->setRenderHint(QPainter::Antialiasing, true);
    painter->setPen(QPen(frame, 1.0));
    painter->setBrush(Qt::NoBrush);
    painter->drawRoundedRect(QRectF(option->rect).adjusted(0.5, 0.5, -0.5, -0.5), 2.0, 2.0);
    painter->restore();
}

}  // namespace ql::ui

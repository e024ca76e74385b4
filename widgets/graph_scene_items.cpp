#include "graph_scene_items.h"

#include <QFontMetricsF>
#include <QGuiApplication>
#include <QPainter>
#include <QPainterPathStroker>
#include <QPalette>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

#include "sqnr_colours.h"

namespace ql::ui {
namespace {

constexpr qreal kPad = 6.0;
constexpr qreal kMinWidth = 84.0, kMaxWidth = 230.0;
constexpr qreal kStackOffset = 4.0;  // a collapsed group's boxes behind it
constexpr qreal kArrowLength = 8.0;
// Under this zoom text is unreadable anyway: boxes only, which keeps big graphs fluid.
constexpr qreal kTextLevelOfDetail = 0.35;

QFont boldOf(QFont font) {
    font.setBold(true);
    return font;
}
QFont smallOf(QFont font) {
    font.setPointSizeF(font.pointSizeF() * 0.85);
    return font;
}

QPalette palette() {
    return QGuiApplication::palette();
}

}  // namespace

GraphBoxItem::GraphBoxItem(int item, const QRectF &rect, BoxLook look)
    : m_item(item), m_rect(0, 0, rect.width(), rect.height()), m_look(std::move(look)) {
    setPos(rect.topLeft());
    setAcceptHoverEvents(true);
    setCursor(Qt::PointingHandCursor);
}

QRectF GraphBoxItem::boundingRect() const {
    // Room for the selection frame, the stack behind a group and the badge.
    return m_rect.adjusted(-4, -10, kStackOffset * 2 + 10, kStackOffset * 2 + 4);
}

void GraphBoxItem::setLook(BoxLook look) {
    m_look = std::move(look);
    update();
}

void GraphBoxItem::setCurrent(bool current) {
    if (current == m_current) return;
    m_current = current;
    setZValue(current ? 2 : 0);
    update();
}

void GraphBoxItem::setMatch(bool match) {
    if (match == m_match) return;
    m_match = match;
    update();
}

QSizeF GraphBoxItem::sizeFor(const BoxLook &look, const QFont &font) {
    const QFontMetricsF bold(boldOf(font)), plain(font), small(smallOf(font));
    const qreal width =
        std::max({bold.horizontalAdvance(look.title), plain.horizontalAdvance(look.subtitle),
                  small.horizontalAdvance(look.detail)}) +
        2 * kPad + (look.findings > 0 ? 10 : 0);
    qreal height = 2 * kPad + bold.height();
    if (!look.subtitle.isEmpty()) height += plain.height();
    if (!look.detail.isEmpty()) height += small.height();
    return {std::clamp(std::ceil(width), kMinWidth, kMaxWidth), std::ceil(height)};
}

void GraphBoxItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *) {
    const QPalette pal = palette();
    const QFont base = painter->font();  // before the badge changes it
    const QColor fill = m_look.fill.value_or(noFigureFill(pal));
    const qreal radius = m_look.rounded ? m_rect.height() / 2 : 4.0;
    QPen frame(pal.color(QPalette::Text), 1.0);
    if (m_look.fp32) frame = QPen(kFp32Color, 1.6, Qt::DashLine);
    painter->setRenderHint(QPainter::Antialiasing);
    if (m_look.stacked) {
        painter->setPen(QPen(pal.color(QPalette::Mid), 1.0));
        painter->setBrush(fill.darker(115));
        for (int k = 2; k >= 1; --k)
            painter->drawRoundedRect(m_rect.translated(k * kStackOffset, k * kStackOffset), 4, 4);
    }
    painter->setPen(frame);
    painter->setBrush(fill);
    painter->drawRoundedRect(m_rect, radius, radius);
    if (m_match) {
        painter->setPen(QPen(QColor(250, 200, 0), 3.0));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(m_rect.adjusted(-2, -2, 2, 2), radius + 2, radius + 2);
    }
    if (m_current) {
        painter->setPen(QPen(kSelectionColor, 3.0));
        painter->setBrush(Qt::NoBrush);
        painter->drawRoundedRect(m_rect.adjusted(-2.5, -2.5, 2.5, 2.5), radius + 2, radius + 2);
    }
    if (m_look.findings > 0) {
        const QRectF badge(m_rect.right() - 7, m_rect.top() - 7, 14, 14);
        painter->setPen(QPen(Qt::white, 1.0));
        painter->setBrush(kUnderColor);
        painter->drawEllipse(badge);
        if (option->levelOfDetailFromTransform(painter->worldTransform()) >= kTextLevelOfDetail) {
            painter->setFont(smallOf(boldOf(base)));
            painter->drawText(badge, Qt::AlignCenter, QString::number(m_look.findings));
        }
    }
    if (option->levelOfDetailFromTransform(painter->worldTransform()) < kTextLevelOfDetail) return;

    const QColor ink = m_look.fill ? textOn(fill) : pal.color(QPalette::Text);
    const qreal textWidth = m_rect.width() - 2 * kPad;
    qreal y = m_rect.top() + kPad;
    auto line = [&](const QFont &font, const QString &text, const QColor &colour) {
        const QFontMetricsF metrics(font);
        painter->setFont(font);
        painter->setPen(colour);
        painter->drawText(QRectF(m_rect.left() + kPad, y, textWidth, metrics.height()),
                          Qt::AlignHCenter | Qt::AlignVCenter,
                          metrics.elidedText(text, Qt::ElideMiddle, textWidth));
        y += metrics.height();
    };
    line(boldOf(base), m_look.title, ink);
    if (!m_look.subtitle.isEmpty()) line(base, m_look.subtitle, ink);
    if (!m_look.detail.isEmpty()) {
        QColor faint = ink;
        faint.setAlphaF(0.75);
        line(smallOf(base), m_look.detail, faint);
    }
    if (m_look.fp32) {
        const QFont tagFont = smallOf(boldOf(base));
        const QFontMetricsF metrics(tagFont);
        const QString tag = QStringLiteral("fp32");
        // Astride the bottom edge, so it covers no text whatever the box's size.
        const QRectF box(m_rect.right() - metrics.horizontalAdvance(tag) - 8,
                         m_rect.bottom() - metrics.height() / 2, metrics.horizontalAdvance(tag) + 4,
                         metrics.height());
        painter->setPen(Qt::NoPen);
        painter->setBrush(kFp32Color);
        painter->drawRoundedRect(box, 2, 2);
        painter->setFont(tagFont);
        painter->setPen(Qt::white);
        painter->drawText(box, Qt::AlignCenter, tag);
    }
    painter->setFont(base);
}

GraphClusterItem::GraphClusterItem(int group, const QRectF &rect, QString title)
    : m_group(group), m_rect(rect), m_title(std::move(title)) {
    setZValue(-2);
    setCursor(Qt::PointingHandCursor);
}

qreal GraphClusterItem::titleHeight(const QFont &font) {
    return std::ceil(QFontMetricsF(boldOf(font)).height() + 4);
}

QPainterPath GraphClusterItem::shape() const {
    QPainterPath path;
    path.addRect(QRectF(m_rect.left(), m_rect.top(), m_rect.width(), 20));
    return path;
}

void GraphClusterItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *) {
    const QPalette pal = palette();
    QColor tint = pal.color(QPalette::Highlight);
    tint.setAlpha(18);
    QColor edge = pal.color(QPalette::Mid);
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(edge, 1.0));
    painter->setBrush(tint);
    painter->drawRoundedRect(m_rect, 6, 6);
    if (option->levelOfDetailFromTransform(painter->worldTransform()) < kTextLevelOfDetail) return;
    const QFont font = boldOf(painter->font());
    painter->setFont(font);
    painter->setPen(pal.color(QPalette::Text));
    const QRectF title(m_rect.left() + 6, m_rect.top() + 2, m_rect.width() - 12,
                       titleHeight(painter->font()) - 4);
    painter->drawText(title, Qt::AlignLeft | Qt::AlignVCenter,
                      QFontMetricsF(font).elidedText(QStringLiteral("▾ ") + m_title,
                                                     Qt::ElideMiddle, title.width()));
}

GraphEdgeItem::GraphEdgeItem(const QPainterPath &path, const QPointF &arrowBase,
                             const QPointF &arrowTip)
    : QGraphicsPathItem(path) {
    setZValue(-1);
    setAcceptHoverEvents(true);
    // The head: a triangle from the spline's end to the box, at least kArrowLength long.
    QLineF axis(arrowTip, arrowBase);
    if (axis.length() < 1e-3) axis = QLineF(arrowTip, arrowTip - QPointF(0, kArrowLength));
    axis.setLength(std::max(axis.length(), kArrowLength));
    QLineF side = axis.normalVector();
    side.setLength(3.5);
    const QPointF across = side.p2() - side.p1();
    m_arrow << arrowTip << axis.p2() + across << axis.p2() - across;
}

QRectF GraphEdgeItem::boundingRect() const {
    return QGraphicsPathItem::boundingRect().united(m_arrow.boundingRect()).adjusted(-4, -4, 4, 4);
}

QPainterPath GraphEdgeItem::shape() const {
    QPainterPathStroker stroker;
    stroker.setWidth(8);
    QPainterPath area = stroker.createStroke(path());
    area.addPolygon(m_arrow);
    return area;
}

void GraphEdgeItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) {
    QColor ink = palette().color(QPalette::Text);
    ink.setAlphaF(isUnderMouse() ? 0.95 : 0.55);
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(QPen(ink, isUnderMouse() ? 2.0 : 1.2));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path());
    painter->setPen(Qt::NoPen);
    painter->setBrush(ink);
    painter->drawPolygon(m_arrow);
}

}  // namespace ql::ui

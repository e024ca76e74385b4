#pragma once
// The graph view's scene items: a box per node (op type, short name, output shape; SQNR fill,
// fp32 mark, findings badge), a box per collapsed group, a frame per expanded group, and the
// edges with their arrowheads. Items only draw; clicks and selection are the view's.

#include <QColor>
#include <QGraphicsItem>
#include <QGraphicsPathItem>
#include <QString>

#include <optional>

namespace ql::ui {

// What a box shows; the view fills it from the outline and the report.
struct BoxLook {
    QString title;               // op type, or the group's name
    QString subtitle;            // short node name, or "12 nodes"
    QString detail;              // output shape, or the group's worst SQNR
    std::optional<QColor> fill;  // SQNR fill; nullopt: the palette's base
    bool fp32 = false;           // kept in fp32 (a dashed grey frame and an "fp32" tag)
    int findings = 0;            // diagnosis findings on it (a red badge with the count)
    bool rounded = false;        // graph inputs and outputs
    bool stacked = false;        // a collapsed group: drawn as a stack of boxes
};

class GraphBoxItem : public QGraphicsItem {
public:
    enum { Type = UserType + 1 };
    GraphBoxItem(int item, const QRectF &rect, BoxLook look);

    int type() const override { return Type; }
    int item() const { return m_item; }     // index into the view's OutlineView::items
    QRectF rect() const { return m_rect; }  // the box itself, in item coordinates
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

    const BoxLook &look() const { return m_look; }
    void setLook(BoxLook look);
    bool isCurrent() const { return m_current; }
    void setCurrent(bool current);
    bool isMatch() const { return m_match; }
    void setMatch(bool match);  // a search hit

    // The size a box needs for its text, in scene units.
    static QSizeF sizeFor(const BoxLook &look, const QFont &font);

private:
    int m_item;
    QRectF m_rect;
    BoxLook m_look;
    bool m_current = false, m_match = false;
};

// An expanded group: a light frame behind its members with the group's name at the top; a click
// on the name collapses it.
class GraphClusterItem : public QGraphicsItem {
public:
    enum { Type = UserType + 2 };
    GraphClusterItem(int group, const QRectF &rect, QString title);

    int type() const override { return Type; }
    int group() const { return m_group; }
    QRectF boundingRect() const override { return m_rect; }
    QPainterPath shape() const override;  // the title strip only: clicks inside pass through
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;
    // Height of the title strip for a font.
    static qreal titleHeight(const QFont &font);

private:
    int m_group;
    QRectF m_rect;
    QString m_title;
};

class GraphEdgeItem : public QGraphicsPathItem {
public:
    enum { Type = UserType + 3 };
    GraphEdgeItem(const QPainterPath &path, const QPointF &arrowBase, const QPointF &arrowTip);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    QPainterPath shape() const override;  // a few pixels around the line, for hover
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    QPolygonF m_arrow;
};

}  // namespace ql::ui

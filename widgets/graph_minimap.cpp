#include "graph_minimap.h"

#include <QMouseEvent>
#include <QScrollBar>

#include "sqnr_colours.h"

namespace ql::ui {

GraphMinimap::GraphMinimap(QGraphicsView *mainView, QWidget *parent)
    : QGraphicsView(mainView->scene(), parent), m_main(mainView) {
    setObjectName(QStringLiteral("graphMinimap"));
    setInteractive(false);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setRenderHint(QPainter::Antialiasing, false);
    setFrameShape(QFrame::Box);
    setCursor(Qt::CrossCursor);
    setToolTip(tr("Click or drag to move the view"));
    // The frame follows the main view's scrolling and zooming.
    auto follow = [this] { viewport()->update(); };
    connect(m_main->horizontalScrollBar(), &QScrollBar::valueChanged, this, follow);
    connect(m_main->verticalScrollBar(), &QScrollBar::valueChanged, this, follow);
    connect(m_main->horizontalScrollBar(), &QScrollBar::rangeChanged, this, follow);
    connect(m_main->verticalScrollBar(), &QScrollBar::rangeChanged, this, follow);
}

void GraphMinimap::fitScene() {
    if (!scene()) return;
    setSceneRect(scene()->itemsBoundingRect());
    fitInView(sceneRect(), Qt::KeepAspectRatio);
    viewport()->update();
}

void GraphMinimap::drawForeground(QPainter *painter, const QRectF &) {
    const QRectF shown = m_main->mapToScene(m_main->viewport()->rect()).boundingRect();
    QColor fill = kSelectionColor;
    fill.setAlpha(40);
    painter->setPen(QPen(kSelectionColor, 0));  // cosmetic: one pixel at any scale
    painter->setBrush(fill);
    painter->drawRect(shown.intersected(sceneRect().adjusted(-1, -1, 1, 1)));
}

void GraphMinimap::centreMainViewAt(const QPoint &position) {
    m_main->centerOn(mapToScene(position));
}

void GraphMinimap::mousePressEvent(QMouseEvent *event) {
    if (event->button() == Qt::LeftButton) centreMainViewAt(event->position().toPoint());
}

void GraphMinimap::mouseMoveEvent(QMouseEvent *event) {
    if (event->buttons() & Qt::LeftButton) centreMainViewAt(event->position().toPoint());
}

void GraphMinimap::resizeEvent(QResizeEvent *event) {
    QGraphicsView::resizeEvent(event);
    fitScene();
}

void GraphMinimap::wheelEvent(QWheelEvent *event) {
    event->ignore();  // the minimap always shows everything
}

}  // namespace ql::ui

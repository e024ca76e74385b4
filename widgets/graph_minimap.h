#pragma once
// The graph view's minimap: the whole scene, small, with the part the main view shows framed.
// Clicking or dragging in it moves the main view there.

#include <QGraphicsView>

namespace ql::ui {

class GraphMinimap : public QGraphicsView {
    Q_OBJECT
public:
    GraphMinimap(QGraphicsView *mainView, QWidget *parent = nullptr);

public slots:
    void fitScene();  // after a new layout or a resize

protected:
    void drawForeground(QPainter *painter, const QRectF &rect) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;

private:
    void centreMainViewAt(const QPoint &position);

    QGraphicsView *m_main;
};

}  // namespace ql::ui

#pragma once
// Where the graph view's boxes, group frames and edge curves go: a top-to-bottom layered layout
// computed by Graphviz's dot, used as a library (no `dot` process, no DOT text). The caller draws
// the result; this file knows nothing about models or widgets.
//  * Coordinates are scene units with the origin at the top left and y pointing down (dot's own
//    points have y pointing up; they are flipped here).
//  * Each item keeps exactly the size asked for; dot only chooses where its centre goes.
//  * Clusters nest (a cluster's parent is the cluster around it) and never overlap except by
//    nesting. The top labelSize.height() of a cluster's rect holds no item and no inner cluster
//    (dot's 8-unit cluster margin follows below it): the caller draws the title there. Edges may
//    cross that strip.
//  * The same request always gives the same layout, in any run.
//  * Cost: a ResNet-50 (122 items, 20 clusters) takes about 5 ms, ViT-B/16 (1,182 items) about
//    120 ms, Swin-T (3,834 items) 4-7 s with its 110 clusters and 8-20 s without: call it off the
//    GUI thread.
//  * Graphviz 2.42 leaks in dot's cluster code (known upstream): about 0.25 MB per layout of a
//    ResNet-50 with 20 clusters, 2.8 MB for ViT-B/16 with 99. Layouts without clusters leak
//    nothing. Cache results rather than laying out the same graph again.

#include <QPainterPath>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QVector>

namespace ql::ui {

struct GraphLayoutRequest {
    struct Item {
        QSizeF size;       // box size in scene units (1 unit = 1 point = 1/72 inch)
        int cluster = -1;  // innermost cluster the item sits in (index into clusters), -1: none
    };
    struct Cluster {
        int parent = -1;   // enclosing cluster, -1: top level
        QSizeF labelSize;  // room the cluster's title needs at its top (0x0: no title; so is
                           // any height <= 0, e.g. a default QSizeF)
    };
    struct Edge {
        int from = 0, to = 0;  // item indices
    };
    QVector<Item> items;
    QVector<Cluster> clusters;
    QVector<Edge> edges;
    double rankGap = 28.0;  // vertical gap between ranks, scene units
    double itemGap = 18.0;  // horizontal gap between items of a rank, scene units
};

struct GraphLayoutResult {
    QVector<QRectF> items;     // per request item, top-left origin, y pointing down
    QVector<QRectF> clusters;  // per request cluster, same coordinates; empty (null) for a
                               // cluster with no item in it at any depth
    struct EdgePath {
        QPainterPath path;  // the spline from the tail box to where the arrowhead starts
        QPointF arrowTip;   // where the arrowhead touches the head box
        QPointF arrowBase;  // the arrowhead's base (path's end); the caller draws the head
    };
    QVector<EdgePath> edges;  // per request edge; a self loop is a loop on the item's right side,
                              // duplicate edges are drawn side by side
    QRectF bounds;            // all of the above
    QString error;            // empty on success; else one line saying why
    double milliseconds = 0;  // time spent in Graphviz (building, layout, reading, freeing)
};

// Lays out `request` with dot. Safe to call from any thread: Graphviz is not reentrant, so calls
// are serialised behind one process-wide mutex. Never throws; errors come back in `error`.
GraphLayoutResult layOutGraph(const GraphLayoutRequest &request);

}  // namespace ql::ui

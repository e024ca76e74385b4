// layOutGraph (Graphviz dot as a library): every property is derived from the request, never from
// coordinates written down here. Items keep their sizes, edges point down, boxes do not overlap,
// items sit inside all their clusters below the clusters' title room, edges run from the tail's
// boundary to an arrowhead on the head's, duplicates and self loops get paths of their own, the
// same request always gives the same layout, calls from several threads at once all succeed, and
// bad requests come back as errors.

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <clocale>
#include <cmath>
#include <random>
#include <thread>
#include <vector>

#include "graph_layout.h"

using ql::ui::GraphLayoutRequest;
using ql::ui::GraphLayoutResult;
using ql::ui::layOutGraph;

namespace {

// dot clips splines at the box outline to within half a point; sizes are rounded to whole points.
constexpr double kSlack = 1.0;

GraphLayoutRequest::Item item(double width, double height, int cluster = -1) {
    GraphLayoutRequest::Item out;
    out.size = QSizeF(width, height);
    out.cluster = cluster;
    return out;
}

GraphLayoutRequest::Cluster cluster(int parent, QSizeF labelSize) {
    GraphLayoutRequest::Cluster out;
    out.parent = parent;
    out.labelSize = labelSize;
    return out;
}

// How far p is from the outline of box (0 on it).
double distanceToOutline(QPointF p, const QRectF &box) {
    const double dx = std::max({box.left() - p.x(), 0.0, p.x() - box.right()});
    const double dy = std::max({box.top() - p.y(), 0.0, p.y() - box.bottom()});
    if (dx > 0 || dy > 0) return std::hypot(dx, dy);
    return std::min(
        {p.x() - box.left(), box.right() - p.x(), p.y() - box.top(), box.bottom() - p.y()});
}

bool contains(const QRectF &outer, QPointF p) {
    return outer.adjusted(-kSlack, -kSlack, kSlack, kSlack).contains(p);
}

// By corners: QRectF::contains(QRectF) is false for a rect of no width, such as a vertical line's.
bool contains(const QRectF &outer, const QRectF &inner) {
    return contains(outer, inner.topLeft()) && contains(outer, inner.bottomRight());
}

bool isAncestor(const GraphLayoutRequest &request, int ancestor, int c) {
    for (int p = request.clusters[c].parent; p != -1; p = request.clusters[p].parent) {
        if (p == ancestor) return true;
    }
    return false;
}

// The first broken property of a successful layout, or an empty string.
QString geometryProblem(const GraphLayoutRequest &request, const GraphLayoutResult &result) {
    if (!result.error.isEmpty()) return "error: " + result.error;
    if (result.items.size() != request.items.size() ||
        result.clusters.size() != request.clusters.size() ||
        result.edges.size() != request.edges.size())
        return "result sizes differ from the request";

    for (int i = 0; i < request.items.size(); ++i) {
        const QRectF &box = result.items[i];
        if (box.size() != request.items[i].size) return QString("item %1 changed size").arg(i);
        if (!contains(result.bounds, box)) return QString("item %1 outside bounds").arg(i);
        for (int j = i + 1; j < request.items.size(); ++j) {
            if (box.intersects(result.items[j]))
                return QString("items %1 and %2 overlap").arg(i).arg(j);
        }
        for (int c = request.items[i].cluster; c != -1; c = request.clusters[c].parent) {
            const QRectF &frame = result.clusters[c];
            if (!contains(frame, box)) return QString("item %1 outside cluster %2").arg(i).arg(c);
            if (box.top() < frame.top() + request.clusters[c].labelSize.height())
                return QString("item %1 in the title room of cluster %2").arg(i).arg(c);
        }
    }

    for (int c = 0; c < request.clusters.size(); ++c) {
        const QRectF &frame = result.clusters[c];
        if (frame.isNull()) continue;  // no item in it
        if (frame.width() + kSlack < request.clusters[c].labelSize.width())
            return QString("cluster %1 narrower than its title").arg(c);
        if (!contains(result.bounds, frame)) return QString("cluster %1 outside bounds").arg(c);
        const int parent = request.clusters[c].parent;
        if (parent != -1) {
            if (!contains(result.clusters[parent], frame))
                return QString("cluster %1 outside its parent %2").arg(c).arg(parent);
            if (frame.top() <
                result.clusters[parent].top() + request.clusters[parent].labelSize.height())
                return QString("cluster %1 in the title room of %2").arg(c).arg(parent);
        }
        for (int d = c + 1; d < request.clusters.size(); ++d) {
            if (result.clusters[d].isNull() || isAncestor(request, c, d) ||
                isAncestor(request, d, c))
                continue;
            if (frame.intersects(result.clusters[d]))
                return QString("clusters %1 and %2 overlap").arg(c).arg(d);
        }
    }

    for (int e = 0; e < request.edges.size(); ++e) {
        const auto &edge = request.edges[e];
        const auto &path = result.edges[e];
        if (path.path.isEmpty()) return QString("edge %1 has no path").arg(e);
        if (path.path.currentPosition() != path.arrowBase)
            return QString("edge %1 does not end at its arrowhead's base").arg(e);
        if (!contains(result.bounds, path.path.boundingRect()) ||
            !contains(result.bounds, path.arrowTip))
            return QString("edge %1 outside bounds").arg(e);
        const QLineF arrow(path.arrowBase, path.arrowTip);
        if (arrow.length() < 5 || arrow.length() > 15)
            return QString("edge %1 has an arrowhead %2 long").arg(e).arg(arrow.length());
        if (edge.from == edge.to) continue;  // a loop on the item's side

        const QRectF &tail = result.items[edge.from];
        const QRectF &head = result.items[edge.to];
        if (head.top() <= tail.bottom()) return QString("edge %1 does not point down").arg(e);
        const QPointF start = path.path.elementAt(0);
        if (distanceToOutline(start, tail) > kSlack || start.y() < tail.center().y())
            return QString("edge %1 does not leave its tail's lower outline").arg(e);
        if (distanceToOutline(path.arrowTip, head) > kSlack ||
            path.arrowTip.y() > head.center().y())
            return QString("edge %1 does not touch its head's upper outline").arg(e);
    }
    return {};
}

GraphLayoutRequest chain(int length) {
    GraphLayoutRequest request;
    for (int i = 0; i < length; ++i) request.items << item(80 + 10 * i, 30);
    for (int i = 1; i < length; ++i) request.edges.append({i - 1, i});
    return request;
}

// Edges only from earlier to later items: every edge must point down.
GraphLayoutRequest randomDag(int count, unsigned seed, int extraEdges) {
    std::mt19937 random(seed);
    GraphLayoutRequest request;
    for (int i = 0; i < count; ++i) request.items << item(60 + random() % 100, 24 + random() % 20);
    for (int i = 1; i < count; ++i) request.edges.append({int(random() % i), i});
    for (int k = 0; k < extraEdges; ++k) {
        const int a = random() % count, b = random() % count;
        if (a != b) request.edges.append({std::min(a, b), std::max(a, b)});
    }
    return request;
}

// ResNet-50's shape: a stem, 16 bottleneck blocks (5 ops and a residual Add), a head; 4 stage
// clusters with one cluster per block inside.
GraphLayoutRequest resnetLike() {
    GraphLayoutRequest request;
    const auto add = [&](int c, std::initializer_list<int> inputs) {
        request.items << item(120, 34, c);
        const int id = request.items.size() - 1;
        for (int input : inputs) request.edges.append({input, id});
        return id;
    };
    int x = add(-1, {});
    for (int i = 0; i < 4; ++i) x = add(-1, {x});
    const int blocks[] = {3, 4, 6, 3};
    for (int stage = 0; stage < 4; ++stage) {
        request.clusters << cluster(-1, QSizeF(60, 16));
        const int stageCluster = request.clusters.size() - 1;
        for (int b = 0; b < blocks[stage]; ++b) {
            request.clusters << cluster(stageCluster, QSizeF(90, 16));
            const int c = request.clusters.size() - 1;
            const int in = x;
            int y = in;
            for (int i = 0; i < 5; ++i) y = add(c, {y});
            const int shortcut = b == 0 ? add(c, {in}) : in;
            x = add(c, {add(c, {y, shortcut})});
        }
    }
    for (int i = 0; i < 4; ++i) x = add(-1, {x});
    return request;
}

}  // namespace

class TestGraphLayout : public QObject {
    Q_OBJECT

private slots:
    void emptyRequestGivesEmptyResult();
    void chainRunsTopToBottom();
    void diamondWithResidual();
    void nestedClusters();
    void duplicateEdgesAndSelfLoops();
    void randomDags();
    void resnetShapedGraph();
    void sameRequestSameLayout();
    void concurrentCallsAllSucceed();
    void germanLocaleGivesTheSameLayout();
    void badRequestsAreErrors();
};

void TestGraphLayout::emptyRequestGivesEmptyResult() {
    const GraphLayoutResult result = layOutGraph(GraphLayoutRequest());
    QVERIFY(result.error.isEmpty());
    QVERIFY(result.items.isEmpty());
    QVERIFY(result.edges.isEmpty());
    QVERIFY(result.bounds.isNull());
}

void TestGraphLayout::chainRunsTopToBottom() {
    for (int length : {1, 2, 3, 6}) {
        const GraphLayoutRequest request = chain(length);
        const GraphLayoutResult result = layOutGraph(request);
        const QString problem = geometryProblem(request, result);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        for (int i = 1; i < length; ++i) {
            // One rank per item, rankGap apart, and no sideways drift on a chain.
            QCOMPARE(result.items[i].top() - result.items[i - 1].bottom(), request.rankGap);
            QCOMPARE(result.items[i].center().x(), result.items[i - 1].center().x());
        }
        QCOMPARE(result.bounds.top(), 0.0);
        QCOMPARE(result.bounds.left(), 0.0);
    }
}

void TestGraphLayout::diamondWithResidual() {
    GraphLayoutRequest request;
    for (int i = 0; i < 5; ++i) request.items << item(90, 30);
    request.edges = {{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {1, 4}};
    const GraphLayoutResult result = layOutGraph(request);
    const QString problem = geometryProblem(request, result);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    // The two branches share a rank, at least itemGap apart.
    QCOMPARE(result.items[2].top(), result.items[3].top());
    const QRectF &left =
        result.items[2].left() < result.items[3].left() ? result.items[2] : result.items[3];
    const QRectF &right = &left == &result.items[2] ? result.items[3] : result.items[2];
    QVERIFY(right.left() - left.right() >= request.itemGap - kSlack);
}

void TestGraphLayout::nestedClusters() {
    GraphLayoutRequest request;
    request.clusters = {cluster(-1, QSizeF(120, 20)), cluster(0, QSizeF(60, 16)),
                        cluster(-1, QSizeF()),  // a default QSizeF: no title
                        cluster(0, QSizeF(200, 40)), cluster(-1, QSizeF(10, 10))};  // 4: empty
    request.items = {item(80, 30),    item(80, 30, 0), item(80, 30, 1), item(80, 30, 1),
                     item(80, 30, 0), item(80, 30, 2), item(80, 30, 3), item(80, 30)};
    request.edges = {{0, 1}, {1, 2}, {2, 3}, {3, 4}, {0, 5}, {5, 7}, {4, 6}, {6, 7}, {1, 6}};
    const GraphLayoutResult result = layOutGraph(request);
    const QString problem = geometryProblem(request, result);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY(result.clusters[4].isNull());
    for (int c = 0; c < 4; ++c) QVERIFY(!result.clusters[c].isEmpty());
}

void TestGraphLayout::duplicateEdgesAndSelfLoops() {
    GraphLayoutRequest request = chain(4);
    request.edges = {{0, 1}, {0, 1}, {0, 1}, {1, 1}, {1, 2}, {2, 3}};
    const GraphLayoutResult result = layOutGraph(request);
    const QString problem = geometryProblem(request, result);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    // Duplicates are drawn side by side, not on top of each other.
    QVERIFY(result.edges[0].path != result.edges[1].path);
    QVERIFY(result.edges[1].path != result.edges[2].path);
    // The loop starts and ends on its item's outline.
    const QRectF &looped = result.items[1];
    QVERIFY(distanceToOutline(result.edges[3].path.elementAt(0), looped) <= kSlack);
    QVERIFY(distanceToOutline(result.edges[3].arrowTip, looped) <= kSlack);
}

void TestGraphLayout::randomDags() {
    for (unsigned seed : {1u, 2u, 3u}) {
        const GraphLayoutRequest request = randomDag(200, seed, 60);
        const GraphLayoutResult result = layOutGraph(request);
        const QString problem = geometryProblem(request, result);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        qDebug("random 200-item DAG: %.1f ms", result.milliseconds);
    }
    // The same with clusters nested three deep, edges running between them.
    GraphLayoutRequest request = randomDag(120, 4, 40);
    for (int c = 0; c < 12; ++c) request.clusters << cluster(c % 3 ? c - 1 : -1, QSizeF(70, 14));
    for (int i = 0; i < request.items.size(); ++i) request.items[i].cluster = i / 10;
    const GraphLayoutResult result = layOutGraph(request);
    const QString problem = geometryProblem(request, result);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestGraphLayout::resnetShapedGraph() {
    // The shape the graph view gives resnet50 (its speed: tests/bench/bench_graph_layout.cpp).
    const GraphLayoutRequest request = resnetLike();
    const GraphLayoutResult result = layOutGraph(request);
    const QString problem = geometryProblem(request, result);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
}

void TestGraphLayout::sameRequestSameLayout() {
    // With clusters, too: cgraph's default IDs follow the heap, and so did dot's cluster order.
    GraphLayoutRequest request = randomDag(120, 5, 40);
    for (int c = 0; c < 12; ++c) request.clusters << cluster(c % 3 ? c - 1 : -1, QSizeF(70, 14));
    for (int i = 0; i < request.items.size(); ++i) request.items[i].cluster = i / 10;
    const GraphLayoutResult first = layOutGraph(request);
    QVERIFY(first.error.isEmpty());
    for (int round = 0; round < 4; ++round) {
        const GraphLayoutResult again = layOutGraph(request);
        QCOMPARE(again.items, first.items);
        QCOMPARE(again.clusters, first.clusters);
        QCOMPARE(again.bounds, first.bounds);
    }
}

void TestGraphLayout::concurrentCallsAllSucceed() {
    std::atomic<int> succeeded{0};
    std::vector<QString> problems(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([t, &succeeded, &problems] {
            for (int round = 0; round < 3; ++round) {
                const GraphLayoutRequest request = randomDag(60, 100 * t + round, 20);
                const QString problem = geometryProblem(request, layOutGraph(request));
                if (problem.isEmpty())
                    ++succeeded;
                else
                    problems[t] = problem;
            }
        });
    }
    for (auto &thread : threads) thread.join();
    for (const QString &problem : problems) QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QCOMPARE(succeeded.load(), 12);
}

void TestGraphLayout::germanLocaleGivesTheSameLayout() {
    // The app runs in the user's locale; a German one formats 0.5 as "0,5" with printf.
    const GraphLayoutRequest request = randomDag(40, 9, 10);
    const GraphLayoutResult inC = layOutGraph(request);
    if (!std::setlocale(LC_ALL, "de_DE.UTF-8")) QSKIP("no de_DE.UTF-8 locale on this machine");
    const GraphLayoutResult inGerman = layOutGraph(request);
    std::setlocale(LC_ALL, "C");
    QVERIFY(inGerman.error.isEmpty());
    QCOMPARE(inGerman.items, inC.items);
    QCOMPARE(inGerman.bounds, inC.bounds);
}

void TestGraphLayout::badRequestsAreErrors() {
    GraphLayoutRequest request = chain(3);
    request.edges.append({1, 3});  // item 3 does not exist
    GraphLayoutResult result = layOutGraph(request);
    QVERIFY(!result.error.isEmpty());
    QVERIFY(!result.error.contains('\n'));
    QVERIFY(result.items.isEmpty());
    QVERIFY(result.edges.isEmpty());

    request = chain(3);
    request.edges.append({-1, 0});
    QVERIFY(!layOutGraph(request).error.isEmpty());

    request = chain(3);
    request.items[0].cluster = 0;  // there are no clusters
    QVERIFY(!layOutGraph(request).error.isEmpty());

    request.clusters = {cluster(1, QSizeF()), cluster(0, QSizeF())};  // each the other's parent
    QVERIFY(!layOutGraph(request).error.isEmpty());
}

QTEST_GUILESS_MAIN(TestGraphLayout)
#include "tst_graph_layout.moc"

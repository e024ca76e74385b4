#include "graph_layout.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

// Last: Graphviz's headers define short macros (MIN, MAX, ROUND, ND_coord, ...) that must not
// reach the Qt and standard headers.
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <graphviz/gvplugin.h>

// The dot layout engine, linked in from libgvplugin_dot_layout.so.6. Graphviz would otherwise find
// it through its plugin configuration file (config6a, written by `dot -c` when the package is
// installed): where that file is missing or stale, every layout fails with
// 'Layout type: "dot" not recognized'.
extern "C" gvplugin_library_t gvplugin_dot_layout_LTX_library;

namespace ql::ui {

namespace {

// Same layout as libltdl's preloaded-symbol tables, which is what gvContextPlugins() walks: entries
// named "<package>_LTX_library" are installed as built-in plugins. Our own name rather than the
// conventional global `lt_preloaded_symbols` (declared in gvcext.h), so that no other library's
// table can clash with it; gvContextPlugins takes the table as an argument anyway.
const lt_symlist_t builtinPlugins[] = {
    {"gvplugin_dot_layout_LTX_library", &gvplugin_dot_layout_LTX_library},
    {nullptr, nullptr},
};

constexpr double kPointsPerInch = 72.0;
// Graphviz's arrowhead length at arrowsize 1; only used when dot drew no spline for an edge.
constexpr double kArrowLength = 10.0;

// Graphviz is not reentrant (global error state, a shared context, setlocale during layout).
std::mutex graphvizMutex;

// Graphviz reports errors and warnings through agerr(); with a user function installed it hands
// over "Error" or "Warning", then ": ", then the message, as separate pieces. Guarded by
// graphvizMutex.
std::string graphvizMessages;

int collectGraphvizMessage(char *text) {
    graphvizMessages += text;
    return 0;
}

// Created once, with graphvizMutex held, and kept: building a context loads and sorts plugins.
GVC_t *graphvizContext() {
    static GVC_t *context = [] {
        agseterrf(collectGraphvizMessage);
        // 0: no demand loading, so Graphviz never reads its configuration file or dlopens plugins.
        return gvContextPlugins(builtinPlugins, 0);
    }();
    return context;
}

// Graphviz 2.42 takes char * for strings it only reads (and copies).
char *gvString(const char *text) {
    return const_cast<char *>(text);
}

// Graphviz parses numbers with strtod under LC_NUMERIC=C; printf-style formatting would follow the
// user's locale and write "0,5" in a German one.
std::string number(double value) {
    char buffer[64];
    const auto written = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, written.ptr);
}

std::string inches(double units) {
    return number(units / kPointsPerInch);
}

// dot rounds node sizes and gaps to whole points; rounding up keeps every box and gap at least as
// large as asked for.
double wholePoints(double units) {
    return std::max(1.0, std::ceil(units));
}

bool isValidLength(double value) {
    return std::isfinite(value) && value >= 0;
}

QString validate(const GraphLayoutRequest &request) {
    if (!isValidLength(request.rankGap) || !isValidLength(request.itemGap))
        return QStringLiteral("rank and item gaps must be finite and not negative");
    const int clusterCount = request.clusters.size();
    const int itemCount = request.items.size();
    for (int i = 0; i < itemCount; ++i) {
        const auto &item = request.items[i];
        if (!isValidLength(item.size.width()) || !isValidLength(item.size.height()))
            return QStringLiteral("item %1 has an invalid size").arg(i);
        if (item.cluster < -1 || item.cluster >= clusterCount)
            return QStringLiteral("item %1 refers to cluster %2 of %3")
                .arg(i)
                .arg(item.cluster)
                .arg(clusterCount);
    }
    for (int c = 0; c < clusterCount; ++c) {
        const auto &cluster = request.clusters[c];
        if (cluster.parent < -1 || cluster.parent >= clusterCount)
            return QStringLiteral("cluster %1 refers to parent %2 of %3")
                .arg(c)
                .arg(cluster.parent)
                .arg(clusterCount);
        // Negative sizes (a default QSizeF is -1 x -1) just mean no title.
        if (!std::isfinite(cluster.labelSize.width()) || !std::isfinite(cluster.labelSize.height()))
            return QStringLiteral("cluster %1 has an invalid title size").arg(c);
        // A chain of parents longer than the number of clusters must run in a circle.
        int depth = 0;
        for (int p = cluster.parent; p != -1; p = request.clusters[p].parent) {
            if (++depth > clusterCount)
                return QStringLiteral("cluster %1 is its own ancestor").arg(c);
        }
    }
    for (int e = 0; e < request.edges.size(); ++e) {
        const auto &edge = request.edges[e];
        if (edge.from < 0 || edge.from >= itemCount || edge.to < 0 || edge.to >= itemCount)
            return QStringLiteral("edge %1 (%2 -> %3) refers to an item outside 0..%4")
                .arg(e)
                .arg(edge.from)
                .arg(edge.to)
                .arg(itemCount - 1);
    }
    return {};
}

// The first error Graphviz reported, as one line; a generic one when it said nothing.
QString firstGraphvizError() {
    const auto start = graphvizMessages.find("Error: ");
    if (start == std::string::npos) return QStringLiteral("Graphviz's dot layout failed");
    const auto end = graphvizMessages.find('\n', start);
    const auto line = graphvizMessages.substr(start, end == std::string::npos ? end : end - start);
    return QStringLiteral("Graphviz: ") + QString::fromStdString(line.substr(7)).trimmed();
}

// The cluster title's room as an HTML-like label: an empty table of exactly that size. A text
// label would only approximate it (Graphviz estimates text sizes from built-in font metrics when,
// as here, no text layout plugin is loaded). dot adds 16 points to the label's width and 8 to its
// height (its PAD()), so those are taken off here; the room is then within a point of labelSize.
std::string titleRoomLabel(QSizeF labelSize) {
    const auto side = [](double units, double pad) {
        return std::to_string(static_cast<long>(std::clamp(std::ceil(units - pad), 1.0, 65535.0)));
    };
    return "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" CELLPADDING=\"0\" "
           "FIXEDSIZE=\"TRUE\" WIDTH=\"" +
           side(labelSize.width(), 16) + "\" HEIGHT=\"" + side(labelSize.height(), 8) +
           "\"><TR><TD></TD></TR></TABLE>";
}

// Object IDs in creation order. cgraph's default ID for a named object is the address of its
// interned name, and it keeps subgraphs in ID order: dot met the clusters in an order that followed
// the heap, and the same request came out differently from one call (or run) to the next. Named
// objects get even IDs 2, 4, 6... here, with the names kept in this table; anonymous ones keep
// cgraph's odd counter. (Declining names and letting cgraph keep them in its internal map would
// do too, but cgraph closes that map, shared by all subgraphs, with the first subgraph it frees,
// leaking every entry after.) Guarded by graphvizMutex; emptied after each layout.
struct ObjectNames {
    std::map<std::pair<int, std::string>, IDTYPE> ids;  // (object type, name) -> ID
    std::deque<std::string> names;                      // by ID / 2 - 1; a deque keeps c_str()s
};
ObjectNames objectNames;

long mapNameToId(void *state, int objectType, char *name, IDTYPE *id, int create) {
    if (!name) return AgIdDisc.map(state, objectType, nullptr, id, create);
    try {
        auto key =
            std::make_pair(objectType == AGINEDGE ? AGOUTEDGE : objectType, std::string(name));
        const auto found = objectNames.ids.find(key);
        if (found != objectNames.ids.end()) {
            *id = found->second;
            return 1;
        }
        if (!create) return 0;
        objectNames.names.push_back(std::move(key.second));
        *id = 2 * IDTYPE(objectNames.names.size());
        objectNames.ids.emplace(std::make_pair(key.first, objectNames.names.back()), *id);
        return 1;
    } catch (...) {  // no exception may cross Graphviz's C frames
        return 0;
    }
}

char *nameOfId(void *, int, IDTYPE id) {
    if (id == 0 || id % 2 != 0 || id / 2 > objectNames.names.size()) return nullptr;
    return objectNames.names[size_t(id / 2 - 1)].data();
}

void freeId(void *, int, IDTYPE) {}  // names go all at once, after the layout

Agdisc_t *creationOrderDiscipline() {
    static Agiddisc_t ids = [] {
        Agiddisc_t d = AgIdDisc;
        d.map = mapNameToId;
        d.free = freeId;
        d.print = nameOfId;
        return d;
    }();
    static Agdisc_t discipline = {&AgMemDisc, &ids, &AgIoDisc};
    return &discipline;
}

// A graph built for one layout; frees Graphviz's layout data and the graph however we leave.
class LayoutGraph {
public:
    explicit LayoutGraph(GVC_t *context)
        : context_(context),
          root_(agopen(gvString("layout"), Agdirected, creationOrderDiscipline())) {}
    ~LayoutGraph() {
        if (root_) {
            gvFreeLayout(context_, root_);  // safe also when no layout was made
            agclose(root_);
        }
        objectNames = ObjectNames();
    }
    LayoutGraph(const LayoutGraph &) = delete;
    LayoutGraph &operator=(const LayoutGraph &) = delete;

    Agraph_t *root() const { return root_; }

private:
    GVC_t *context_;
    Agraph_t *root_;
};

// dot's points (y up, origin at the drawing's lower left) to scene units (y down).
class SceneMapping {
public:
    explicit SceneMapping(const boxf &drawing) : left_(drawing.LL.x), top_(drawing.UR.y) {}
    QPointF point(pointf p) const { return {p.x - left_, top_ - p.y}; }
    QRectF box(const boxf &b) const {
        return QRectF(point(pointf{b.LL.x, b.UR.y}), point(pointf{b.UR.x, b.LL.y}));
    }

private:
    double left_, top_;
};

void setGraphAttribute(Agraph_t *graph, const char *name, const std::string &value) {
    agattr(graph, AGRAPH, gvString(name), gvString(value.c_str()));
}

void setNodeDefault(Agraph_t *graph, const char *name, const char *value) {
    agattr(graph, AGNODE, gvString(name), gvString(value));
}

void setUpRoot(Agraph_t *root, const GraphLayoutRequest &request) {
    setGraphAttribute(root, "rankdir", "TB");
    setGraphAttribute(root, "ranksep", inches(std::ceil(request.rankGap)));
    setGraphAttribute(root, "nodesep", inches(std::ceil(request.itemGap)));
    setGraphAttribute(root, "splines", "spline");  // ortho takes tens of seconds on big graphs
    // One global ranking with the clusters as constraints. dot's older per-cluster ranking drew
    // edges upwards (tail below head) from a cluster nested in another to a sibling of the outer
    // one; newrank kept every edge pointing down in all our tests.
    setGraphAttribute(root, "newrank", "true");
    // Network simplex (ranking, then x placement) stops after this many iterations per node. Its
    // x placement dominates on big graphs: swin_t (3,834 items) ran for over 5 minutes unbounded
    // and takes 8-20 s at 0.2 (most of it there and in spline routing); a 2,400-node transformer
    // went from 12 s to 2.3 s. At least 100 iterations though: Graphviz truncates factor x node
    // count to an int, and at 0 it skips the solver and its final normalisation altogether,
    // leaving ranks that break the layout or trip an assertion.
    const double iterationsPerNode = std::max(0.2, 100.0 / request.items.size());
    setGraphAttribute(root, "nslimit", number(iterationsPerNode));
    setGraphAttribute(root, "nslimit1", number(iterationsPerNode));
    setGraphAttribute(root, "labelloc", "t");  // cluster titles at the top
    setGraphAttribute(root, "label", "");      // no title on the whole drawing
    setNodeDefault(root, "shape", "box");
    setNodeDefault(root, "fixedsize", "true");
    setNodeDefault(root, "label", "");
}

// Subgraphs named cluster_<i>, nested like the request's clusters. A cluster with no item in it at
// any depth gets none: dot would give it a zero box at the origin.
std::vector<Agraph_t *> makeClusters(Agraph_t *root, const GraphLayoutRequest &request) {
    const int count = request.clusters.size();
    std::vector<char> used(count, 0);
    for (const auto &item : request.items) {
        for (int c = item.cluster; c != -1 && !used[c]; c = request.clusters[c].parent) used[c] = 1;
    }
    std::vector<Agraph_t *> graphs(count, nullptr);
    Agsym_t *labelSymbol = agattr(root, AGRAPH, gvString("label"), nullptr);
    // Parents first; validate() ruled out cycles, so this ends.
    const auto make = [&](int c, const auto &self) -> Agraph_t * {
        if (graphs[c]) return graphs[c];
        const auto &cluster = request.clusters[c];
        Agraph_t *parent = cluster.parent == -1 ? root : self(cluster.parent, self);
        const std::string name = "cluster_" + std::to_string(c);
        graphs[c] = agsubg(parent, gvString(name.c_str()), 1);
        if (cluster.labelSize.height() > 0) {
            const std::string html = titleRoomLabel(cluster.labelSize);
            // Interned as HTML first: agxset() then finds that string and keeps its HTML mark.
            char *label = agstrdup_html(root, gvString(html.c_str()));
            agxset(graphs[c], labelSymbol, label);
            agstrfree(root, label);
        }
        return graphs[c];
    };
    for (int c = 0; c < count; ++c) {
        if (used[c]) make(c, make);
    }
    return graphs;
}

// The edge's splines as one path. dot normally draws one bezier per edge; more are joined.
GraphLayoutResult::EdgePath edgePath(Agedge_t *edge, const SceneMapping &scene) {
    GraphLayoutResult::EdgePath out;
    const splines *spl = ED_spl(edge);
    if (!spl) return out;
    const bezier *last = nullptr;
    for (int b = 0; b < spl->size; ++b) {
        const bezier &curve = spl->list[b];
        if (curve.size < 1) continue;
        const QPointF start = scene.point(curve.list[0]);
        if (out.path.elementCount() == 0) {
            out.path.moveTo(start);
        } else if (out.path.currentPosition() != start) {
            out.path.lineTo(start);
        }
        // 3k + 1 points: a start, then k cubic segments of two control points and an end.
        for (int i = 1; i + 2 < curve.size; i += 3) {
            out.path.cubicTo(scene.point(curve.list[i]), scene.point(curve.list[i + 1]),
                             scene.point(curve.list[i + 2]));
        }
        last = &curve;
    }
    if (!last) return out;
    out.arrowBase = out.path.currentPosition();
    out.arrowTip = last->eflag ? scene.point(last->ep) : out.arrowBase;
    return out;
}

// Only when dot left an edge without a spline: a straight line from the tail's bottom to the
// head's top, so the caller still has something to draw.
GraphLayoutResult::EdgePath straightEdge(const QRectF &tail, const QRectF &head) {
    GraphLayoutResult::EdgePath out;
    const QPointF start(tail.center().x(), tail.bottom());
    out.arrowTip = QPointF(head.center().x(), head.top());
    const QPointF along = out.arrowTip - start;
    const double length = std::hypot(along.x(), along.y());
    out.arrowBase = length > kArrowLength ? out.arrowTip - along * (kArrowLength / length) : start;
    out.path.moveTo(start);
    out.path.lineTo(out.arrowBase);
    return out;
}

// Called with graphvizMutex held.
GraphLayoutResult layOutLocked(const GraphLayoutRequest &request) {
    GraphLayoutResult result;
    GVC_t *context = graphvizContext();
    if (!context) {
        result.error = QStringLiteral("could not start Graphviz");
        return result;
    }
    graphvizMessages.clear();
    agreseterrors();

    LayoutGraph graph(context);
    Agraph_t *root = graph.root();
    if (!root) {
        result.error = QStringLiteral("Graphviz could not create a graph");
        return result;
    }
    setUpRoot(root, request);
    const std::vector<Agraph_t *> clusters = makeClusters(root, request);

    Agsym_t *widthSymbol = agattr(root, AGNODE, gvString("width"), gvString("0.75"));
    Agsym_t *heightSymbol = agattr(root, AGNODE, gvString("height"), gvString("0.5"));
    std::vector<Agnode_t *> nodes(request.items.size());
    for (int i = 0; i < request.items.size(); ++i) {
        const auto &item = request.items[i];
        const std::string name = "n" + std::to_string(i);
        Agnode_t *node = agnode(root, gvString(name.c_str()), 1);
        agxset(node, widthSymbol, gvString(inches(wholePoints(item.size.width())).c_str()));
        agxset(node, heightSymbol, gvString(inches(wholePoints(item.size.height())).c_str()));
        // Into its innermost cluster, and with that into every cluster around it.
        if (item.cluster != -1) agsubnode(clusters[item.cluster], node, 1);
        nodes[i] = node;
    }
    // Unnamed edges: a non-strict graph then makes a new edge for every duplicate.
    std::vector<Agedge_t *> edges(request.edges.size());
    for (int e = 0; e < request.edges.size(); ++e) {
        const auto &edge = request.edges[e];
        edges[e] = agedge(root, nodes[edge.from], nodes[edge.to], nullptr, 1);
    }

    if (gvLayout(context, root, "dot") != 0 || agerrors() >= AGERR) {
        result.error = firstGraphvizError();
        return result;
    }

    const SceneMapping scene(GD_bb(root));
    result.items.reserve(request.items.size());
    for (int i = 0; i < request.items.size(); ++i) {
        QRectF box(QPointF(), request.items[i].size);
        box.moveCenter(scene.point(ND_coord(nodes[i])));
        result.items.append(box);
    }
    result.clusters.reserve(request.clusters.size());
    for (Agraph_t *cluster : clusters)
        result.clusters.append(cluster ? scene.box(GD_bb(cluster)) : QRectF());
    result.edges.reserve(request.edges.size());
    for (int e = 0; e < request.edges.size(); ++e) {
        auto path = edges[e] ? edgePath(edges[e], scene) : GraphLayoutResult::EdgePath();
        if (path.path.isEmpty()) {
            const auto &edge = request.edges[e];
            path = straightEdge(result.items[edge.from], result.items[edge.to]);
        }
        result.edges.append(path);
    }

    for (const QRectF &box : std::as_const(result.items)) result.bounds |= box;
    for (const QRectF &box : std::as_const(result.clusters)) {
        if (!box.isNull()) result.bounds |= box;
    }
    for (const auto &edge : std::as_const(result.edges)) {
        result.bounds |= edge.path.boundingRect();
        // By hand: uniting with an empty rect leaves a QRectF as it is.
        const QPointF tip = edge.arrowTip;
        result.bounds.setCoords(
            std::min(result.bounds.left(), tip.x()), std::min(result.bounds.top(), tip.y()),
            std::max(result.bounds.right(), tip.x()), std::max(result.bounds.bottom(), tip.y()));
    }
    return result;
}

}  // namespace

GraphLayoutResult layOutGraph(const GraphLayoutRequest &request) {
    GraphLayoutResult result;
    try {
        result.error = validate(request);
        if (!result.error.isEmpty() || request.items.isEmpty()) return result;

        std::lock_guard<std::mutex> lock(graphvizMutex);
        const auto start = std::chrono::steady_clock::now();
        result = layOutLocked(request);
        result.milliseconds =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
    } catch (const std::bad_alloc &) {
        result = GraphLayoutResult();
        result.error = QStringLiteral("out of memory while laying out the graph");
    } catch (...) {
        result = GraphLayoutResult();
        result.error = QStringLiteral("unexpected failure while laying out the graph");
    }
    return result;
}

}  // namespace ql::ui

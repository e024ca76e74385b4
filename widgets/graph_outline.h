#pragma once
// What the graph view draws, before any layout: the model's nodes as users think of them, and the
// groups their names imply.
// - Constants are hidden: Constant nodes and whatever computes from weights and constants
//   alone (a weight's DequantizeLinear, an Identity on an initializer).
// - Unless asked for, so are quantization plumbing (QuantizeLinear, DequantizeLinear, and nodes
//   with only 8-bit outputs such as PyTorch's Cast to uint8 between them; edges pass through
//   them along their data input) and shape arithmetic (nodes with only int32/int64/bool
//   outputs: Shape, Gather of a shape, Concat of dims; their edges end).
// - Graph inputs and outputs are items of their own.
// - Groups come from the exporters' name scopes: "/layer1/layer1.0/conv1/Conv" sits in layer1 >
//   layer1.0. A scope with fewer than two visible nodes, or the same nodes as the group around
//   it, is no group.
// - view() turns a set of collapsed groups into the items, clusters and edges to lay out.

#include <QSet>
#include <QString>

#include <vector>

#include "ir/graph.h"

namespace ql::ui {

struct OutlineNode {
    enum class Kind { Op, Input, Output };
    Kind kind = Kind::Op;
    int graphNode = -1;  // index into graph.nodes; -1 for inputs and outputs
    QString name;        // the node's (or value's) full name
    QString opType;      // "Conv"; "Input" / "Output" for the graph's values
    QString label;       // short name for the box ("layer1.0/conv1")
    QString shape;       // its first output's shape, "[1,64,56,56]"
    int group = -1;      // innermost group, -1: top level
};

struct OutlineGroup {
    QString name;  // the scope's last component, "layer1.0"
    QString path;  // the whole scope, "/layer1/layer1.0": stable across rebuilds
    int parent = -1;
    int depth = 0;           // 0: top level
    int nodeCount = 0;       // visible nodes inside, at any depth
    std::vector<int> nodes;  // visible nodes inside, at any depth
};

struct OutlineEdge {
    int from = 0, to = 0;  // outline node indices
    QString value;         // the tensor the head reads
    QString shape;         // "float32 [1,64,56,56]"
};

// One way of showing the outline: each visible node alone or inside a collapsed group's item.
struct OutlineView {
    struct Item {
        bool isGroup = false;
        int index = 0;     // outline node, or group when isGroup
        int cluster = -1;  // the expanded group it is drawn in (index into clusters), -1: none
    };
    struct Cluster {
        int group = 0;
        int parent = -1;  // index into clusters
    };
    struct Edge {
        int from = 0, to = 0;      // item indices
        std::vector<int> outline;  // the outline edges it stands for
    };
    std::vector<Item> items;
    std::vector<Cluster> clusters;
    std::vector<Edge> edges;
    std::vector<int> itemOfNode;  // per outline node
};

struct OutlineOptions {
    bool showQdq = false;
    bool showShapeComputations = false;
};

class GraphOutline {
public:
    static GraphOutline build(const Graph &graph, const OutlineOptions &options = {});

    const std::vector<OutlineNode> &nodes() const { return m_nodes; }
    const std::vector<OutlineGroup> &groups() const { return m_groups; }
    const std::vector<OutlineEdge> &edges() const { return m_edges; }
    // The outline node drawing graph node `graphNode`, -1 when it is hidden.
    int nodeOfGraphNode(int graphNode) const;
    // The groups around an outline node, outermost first.
    std::vector<int> groupsAround(int node) const;
    // Whether `group` lies inside (or is) `ancestor`.
    bool isInside(int group, int ancestor) const;

    // The groups to collapse so that at most about `budget` items show: none when the nodes fit;
    // otherwise all, then the largest opened (outer ones first) while the count stays within.
    QSet<int> defaultCollapsed(int budget = 160) const;
    OutlineView view(const QSet<int> &collapsed) const;

private:
    std::vector<OutlineNode> m_nodes;
    std::vector<OutlineGroup> m_groups;
    std::vector<OutlineEdge> m_edges;
    std::vector<int> m_nodeOfGraphNode;
};

}  // namespace ql::ui

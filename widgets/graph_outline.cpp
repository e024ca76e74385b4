#include "graph_outline.h"

#include <QHash>
#include <QStringList>

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>

#include "display_format.h"

namespace ql::ui {
namespace {

const ValueInfo *findValueInfo(const Graph &graph, const std::string &value) {
    if (auto it = graph.valueInfo.find(value); it != graph.valueInfo.end()) return &it->second;
    for (const auto *list : {&graph.inputs, &graph.outputs})
        for (const ValueInfo &info : *list)
            if (info.name == value) return &info;
    return nullptr;
}

// Quantization plumbing: Q/DQ, and nodes with only 8-bit integer outputs (the Cast to uint8
// PyTorch's QDQ export puts between each QuantizeLinear and DequantizeLinear).
bool isQdq(const Graph &graph, const Node &node) {
    if (node.opType == "QuantizeLinear" || node.opType == "DequantizeLinear") return true;
    bool any = false;
    for (const std::string &out : node.outputs) {
        if (out.empty()) continue;
        const ValueInfo *info = findValueInfo(graph, out);
        if (!info || (info->dtype != DataType::UInt8 && info->dtype != DataType::Int8))
            return false;
        any = true;
    }
    return any;
}

// Shape arithmetic (Shape -> Gather -> Unsqueeze -> Concat -> Reshape's second input): nodes whose
// outputs are all integer or bool tensors. They say nothing about accuracy and crowd
// transformers' graphs.
bool isShapeComputation(const Graph &graph, const Node &node) {
    bool any = false;
    for (const std::string &out : node.outputs) {
        if (out.empty()) continue;
        const ValueInfo *info = findValueInfo(graph, out);
        if (!info) return false;
        switch (info->dtype) {
            case DataType::Int64:
            case DataType::Int32:
            case DataType::Bool:
                any = true;
                break;
            default:
                return false;
        }
    }
    return any;
}

// The scope of an exporter's node name: "/layer1/layer1.0/conv1/Conv" -> layer1, layer1.0,
// conv1. Names without '/' have none.
QStringList scopeOf(const std::string &name) {
    QStringList parts = QString::fromStdString(name).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    if (parts.size() < 2) return {};
    parts.removeLast();
    return parts;
}

// A scope of the names, before it is decided whether it makes a group.
struct Scope {
    QString name, path;
    int parent = -1;  // scope index, -1: the whole graph
    int direct = 0, total = 0;
    int group = -1;
};

}  // namespace

GraphOutline GraphOutline::build(const Graph &graph, const OutlineOptions &options) {
    GraphOutline outline;
    // Hidden nodes: Q/DQ pass their data input on; constants (Constant, and whatever computes
    // from weights and constants alone, like a weight's DequantizeLinear) and shape arithmetic
    // end edges.
    std::vector<bool> passOn(graph.nodes.size(), false), hidden(graph.nodes.size(), false);
    std::unordered_map<std::string, bool> constantValue;
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node &node = graph.nodes[i];
        bool constant = true;
        for (const std::string &in : node.inputs)
            if (!in.empty() && !graph.isInitializer(in) && !constantValue[in]) constant = false;
        for (const std::string &out : node.outputs)
            if (!out.empty()) constantValue[out] = constant;
        passOn[i] = !constant && !options.showQdq && isQdq(graph, node);
        hidden[i] = constant || passOn[i] ||
                    (!options.showShapeComputations && isShapeComputation(graph, node));
    }
    std::unordered_map<std::string, int> producer;
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        for (const std::string &out : graph.nodes[i].outputs)
            if (!out.empty()) producer[out] = int(i);

    auto shapeText = [&graph](const std::string &value) {
        const ValueInfo *info = findValueInfo(graph, value);
        return info && info->hasShape ? formatShape(*info) : QString();
    };
    std::unordered_map<std::string, int> inputNode;
    for (const ValueInfo &in : graph.inputs) {
        if (graph.isInitializer(in.name)) continue;
        OutlineNode node;
        node.kind = OutlineNode::Kind::Input;
        node.name = node.label = QString::fromStdString(in.name);
        node.opType = QStringLiteral("Input");
        node.shape = in.hasShape ? formatShape(in) : QString();
        inputNode[in.name] = int(outline.m_nodes.size());
        outline.m_nodes.push_back(std::move(node));
    }
    outline.m_nodeOfGraphNode.assign(graph.nodes.size(), -1);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node &gn = graph.nodes[i];
        if (hidden[i]) continue;
        OutlineNode node;
        node.graphNode = int(i);
        node.name = QString::fromStdString(gn.name);
        node.opType = QString::fromStdString(gn.opType);
        node.label = shortLayerName(node.name, node.opType).section(QLatin1Char('/'), -1);
        if (!gn.outputs.empty() && !gn.outputs[0].empty()) node.shape = shapeText(gn.outputs[0]);
        outline.m_nodeOfGraphNode[i] = int(outline.m_nodes.size());
        outline.m_nodes.push_back(std::move(node));
    }

    // The visible node a value comes from, through hidden nodes' data inputs (-1: a weight).
    std::unordered_map<std::string, int> sourceOf;
    std::function<int(const std::string &)> source = [&](const std::string &value) -> int {
        if (auto it = sourceOf.find(value); it != sourceOf.end()) return it->second;
        int found = -1;
        if (auto in = inputNode.find(value); in != inputNode.end()) {
            found = in->second;
        } else if (auto p = producer.find(value); p != producer.end()) {
            found = outline.m_nodeOfGraphNode[p->second];
            if (found < 0 && passOn[p->second])
                for (const std::string &in : graph.nodes[p->second].inputs)
                    if (!in.empty() && !graph.isInitializer(in)) {
                        found = source(in);
                        break;
                    }
        }
        sourceOf[value] = found;
        return found;
    };
    auto addEdge = [&](const std::string &value, int to) {
        const int from = source(value);
        if (from < 0) return;
        const ValueInfo *info = findValueInfo(graph, value);
        outline.m_edges.push_back(
            {from, to, QString::fromStdString(value), info ? formatTypedShape(*info) : QString()});
    };
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const int to = outline.m_nodeOfGraphNode[i];
        if (to < 0) continue;
        for (const std::string &in : graph.nodes[i].inputs)
            if (!in.empty() && !graph.isInitializer(in)) addEdge(in, to);
    }
    for (const ValueInfo &out : graph.outputs) {
        OutlineNode node;
        node.kind = OutlineNode::Kind::Output;
        node.name = node.label = QString::fromStdString(out.name);
        node.opType = QStringLiteral("Output");
        node.shape = shapeText(out.name);
        const int index = int(outline.m_nodes.size());
        outline.m_nodes.push_back(std::move(node));
        addEdge(out.name, index);
    }

    // Scopes from the names, parents before children.
    std::vector<Scope> scopes;
    QHash<QString, int> scopeByPath;
    std::vector<int> scopeOfNode(outline.m_nodes.size(), -1);
    int opNodes = 0;
    for (size_t n = 0; n < outline.m_nodes.size(); ++n) {
        const OutlineNode &node = outline.m_nodes[n];
        if (node.kind != OutlineNode::Kind::Op) continue;
        ++opNodes;
        int parent = -1;
        QString path;
        for (const QString &part : scopeOf(graph.nodes[node.graphNode].name)) {
            path += QLatin1Char('/') + part;
            auto it = scopeByPath.find(path);
            if (it == scopeByPath.end()) {
                it = scopeByPath.insert(path, int(scopes.size()));
                scopes.push_back({part, path, parent});
            }
            parent = *it;
        }
        scopeOfNode[n] = parent;
        if (parent >= 0) ++scopes[parent].direct;
    }
    for (Scope &s : scopes) s.total = s.direct;
    for (int s = int(scopes.size()) - 1; s >= 0; --s)
        if (scopes[s].parent >= 0) scopes[scopes[s].parent].total += scopes[s].total;
    // A scope makes a group when it holds at least two nodes and fewer than the group around it.
    for (Scope &s : scopes) {
        // The nearest group around, through scopes that made none.
        int enclosing = -1;
        for (int p = s.parent; p >= 0; p = scopes[p].parent)
            if (scopes[p].group >= 0) {
                enclosing = scopes[p].group;
                break;
            }
        const int enclosingTotal = enclosing >= 0 ? outline.m_groups[enclosing].nodeCount : opNodes;
        if (s.total < 2 || s.total >= enclosingTotal) continue;
        s.group = int(outline.m_groups.size());
        OutlineGroup group;
        group.name = s.name;
        group.path = s.path;
        group.parent = enclosing;
        group.depth = enclosing >= 0 ? outline.m_groups[enclosing].depth + 1 : 0;
        group.nodeCount = s.total;
        outline.m_groups.push_back(std::move(group));
    }
    for (size_t n = 0; n < outline.m_nodes.size(); ++n) {
        int s = scopeOfNode[n];
        while (s >= 0 && scopes[s].group < 0) s = scopes[s].parent;
        const int group = s >= 0 ? scopes[s].group : -1;
        OutlineNode &node = outline.m_nodes[n];
        node.group = group;
        // Inside a frame titled "features.0.2", a box saying "features.0.2" says nothing: the
        // name's own last part, or nothing when that only repeats the op type.
        if (group >= 0 && node.label == outline.m_groups[group].name) {
            const QString last = node.name.section(QLatin1Char('/'), -1);
            node.label = last == node.opType ? QString() : last;
        }
        for (int g = group; g >= 0; g = outline.m_groups[g].parent)
            outline.m_groups[g].nodes.push_back(int(n));
    }
    return outline;
}

int GraphOutline::nodeOfGraphNode(int graphNode) const {
    return graphNode >= 0 && graphNode < int(m_nodeOfGraphNode.size())
               ? m_nodeOfGraphNode[graphNode]
               : -1;
}

std::vector<int> GraphOutline::groupsAround(int node) const {
    std::vector<int> around;
    for (int g = m_nodes[node].group; g >= 0; g = m_groups[g].parent) around.push_back(g);
    std::reverse(around.begin(), around.end());
    return around;
}

bool GraphOutline::isInside(int group, int ancestor) const {
    for (int g = group; g >= 0; g = m_groups[g].parent)
        if (g == ancestor) return true;
    return false;
}

QSet<int> GraphOutline::defaultCollapsed(int budget) const {
    if (int(m_nodes.size()) <= budget) return {};
    // Items a group adds when opened: its own nodes and its child groups, less its own box.
    std::vector<int> opened(m_groups.size(), -1);
    for (const OutlineNode &node : m_nodes)
        if (node.group >= 0) ++opened[node.group];
    QSet<int> collapsed;
    for (size_t g = 0; g < m_groups.size(); ++g) {
        collapsed.insert(int(g));
        if (m_groups[g].parent >= 0) ++opened[m_groups[g].parent];
    }
    int items = int(view(collapsed).items.size());
    // Largest first; a group is a candidate once the groups around it are open.
    std::vector<int> order(m_groups.size());
    for (size_t g = 0; g < order.size(); ++g) order[g] = int(g);
    std::stable_sort(order.begin(), order.end(), [this](int a, int b) {
        return m_groups[a].nodeCount > m_groups[b].nodeCount;
    });
    for (bool progress = true; progress;) {
        progress = false;
        for (int g : order) {
            const int parent = m_groups[g].parent;
            if (!collapsed.contains(g) || (parent >= 0 && collapsed.contains(parent))) continue;
            if (items + opened[g] > budget) continue;
            collapsed.remove(g);
            items += opened[g];
            progress = true;
            break;
        }
    }
    return collapsed;
}

OutlineView GraphOutline::view(const QSet<int> &collapsed) const {
    OutlineView view;
    view.itemOfNode.assign(m_nodes.size(), -1);
    std::vector<int> clusterOfGroup(m_groups.size(), -1), itemOfGroup(m_groups.size(), -1);
    std::function<int(int)> clusterFor = [&](int group) -> int {
        if (group < 0) return -1;
        if (clusterOfGroup[group] < 0) {
            const int parent = clusterFor(m_groups[group].parent);
            clusterOfGroup[group] = int(view.clusters.size());
            view.clusters.push_back({group, parent});
        }
        return clusterOfGroup[group];
    };
    for (size_t n = 0; n < m_nodes.size(); ++n) {
        int outermostCollapsed = -1;
        for (int g : groupsAround(int(n)))
            if (collapsed.contains(g)) {
                outermostCollapsed = g;
                break;
            }
        if (outermostCollapsed >= 0) {
            int &item = itemOfGroup[outermostCollapsed];
            if (item < 0) {
                item = int(view.items.size());
                view.items.push_back(
                    {true, outermostCollapsed, clusterFor(m_groups[outermostCollapsed].parent)});
            }
            view.itemOfNode[n] = item;
        } else {
            view.itemOfNode[n] = int(view.items.size());
            view.items.push_back({false, int(n), clusterFor(m_nodes[n].group)});
        }
    }
    std::map<std::pair<int, int>, int> edgeOfPair;
    for (size_t e = 0; e < m_edges.size(); ++e) {
        const int from = view.itemOfNode[m_edges[e].from], to = view.itemOfNode[m_edges[e].to];
        if (from == to) continue;
        auto [it, added] = edgeOfPair.emplace(std::make_pair(from, to), int(view.edges.size()));
        if (added) view.edges.push_back({from, to, {}});
        view.edges[it->second].outline.push_back(int(e));
    }
    return view;
}

}  // namespace ql::ui

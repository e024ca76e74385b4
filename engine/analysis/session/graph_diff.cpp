#include "analysis/session/graph_diff.h"

#include <cstring>
#include <functional>
#include <map>

namespace ql::analysis {
namespace {

bool sameAttribute(const Attribute &a, const Attribute &b) {
    if (a.kind != b.kind || a.i != b.i || a.s != b.s || a.ints != b.ints || a.strings != b.strings)
        return false;
    if (!(a.f == b.f || (a.f != a.f && b.f != b.f))) return false;
    if (a.floats.size() != b.floats.size() ||
        (!a.floats.empty() &&
         std::memcmp(a.floats.data(), b.floats.data(), a.floats.size() * sizeof(float)) != 0))
        return false;
    return a.t.defined() == b.t.defined() && (!a.t.defined() || sameTensor(a.t, b.t));
}

bool sameNode(const Node &a, const Graph &ga, const Node &b, const Graph &gb) {
    if (a.opType != b.opType || a.domain != b.domain || a.inputs != b.inputs ||
        a.outputs != b.outputs || a.attributes.size() != b.attributes.size())
        return false;
    for (auto ia = a.attributes.begin(), ib = b.attributes.begin(); ia != a.attributes.end();
         ++ia, ++ib)
        if (ia->first != ib->first || !sameAttribute(ia->second, ib->second)) return false;
    for (const auto &in : a.inputs) {
        const Tensor *ta = ga.initializer(in), *tb = gb.initializer(in);
        if ((ta == nullptr) != (tb == nullptr)) return false;
        if (ta && !sameTensor(*ta, *tb)) return false;
    }
    return true;
}

}  // namespace

bool sameTensor(const Tensor &a, const Tensor &b) {
    if (a.dtype() != b.dtype() || a.shape() != b.shape() || a.layout() != b.layout()) return false;
    if (a.rawData() == b.rawData()) return true;
    if (!a.rawData() || !b.rawData()) return false;
    return std::memcmp(a.rawData(), b.rawData(), a.byteSize()) == 0;
}

std::vector<bool> changedNodes(const Graph &before, const Graph &after) {
    std::map<std::string, const Node *> old;
    for (const auto &node : before.nodes) old[node.name] = &node;
    std::vector<bool> changed(after.nodes.size(), true);
    for (size_t i = 0; i < after.nodes.size(); ++i) {
        auto it = old.find(after.nodes[i].name);
        changed[i] = it == old.end() || !sameNode(*it->second, before, after.nodes[i], after);
    }
    return changed;
}

std::vector<bool> downstreamOf(const Graph &after, std::vector<bool> changed) {
    std::set<std::string> dirty;
    for (size_t i = 0; i < after.nodes.size(); ++i) {
        const Node &node = after.nodes[i];
        if (!changed[i])
            for (const auto &in : node.inputs)
                if (!in.empty() && dirty.count(in)) {
                    changed[i] = true;
                    break;
                }
        if (changed[i])
            for (const auto &out : node.outputs)
                if (!out.empty()) dirty.insert(out);
    }
    return changed;
}

Subgraph extractSubgraph(const Graph &after, const std::vector<bool> &keep,
                         const std::function<DataType(const std::string &)> &inputTypes) {
    Subgraph sub;
    Graph &g = sub.graph;
    g.name = after.name;
    g.sourcePath = after.sourcePath;
    g.opsetVersion = after.opsetVersion;
    g.domainOpsets = after.domainOpsets;
    g.valueInfo = after.valueInfo;
    std::set<std::string> produced, read, fed;
    for (size_t i = 0; i < after.nodes.size(); ++i) {
        if (!keep[i]) continue;
        const Node &node = after.nodes[i];
        for (const auto &in : node.inputs) {
            if (in.empty()) continue;
            read.insert(in);
            if (const Tensor *t = after.initializer(in)) {
                g.initializers[in] = *t;
            } else if (!produced.count(in) && fed.insert(in).second) {
                ValueInfo v;
                v.name = in;
                v.dtype = inputTypes(in);
                g.inputs.push_back(v);
                sub.inputs.push_back(in);
            }
        }
        for (const auto &out : node.outputs)
            if (!out.empty()) produced.insert(out);
        g.nodes.push_back(node);
    }
    std::set<std::string> listed;
    for (const auto &out : after.outputs)
        if (produced.count(out.name) && listed.insert(out.name).second) g.outputs.push_back(out);
    return sub;
}

}  // namespace ql::analysis

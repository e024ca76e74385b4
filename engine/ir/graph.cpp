#include "ir/graph.h"

#include <set>

namespace ql {

int64_t Node::attrInt(const std::string &key, int64_t fallback) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? fallback : it->second.i;
}

float Node::attrFloat(const std::string &key, float fallback) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? fallback : it->second.f;
}

std::string Node::attrString(const std::string &key, const std::string &fallback) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? fallback : it->second.s;
}

std::vector<int64_t> Node::attrInts(const std::string &key, std::vector<int64_t> fallback) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? fallback : it->second.ints;
}

std::vector<float> Node::attrFloats(const std::string &key, std::vector<float> fallback) const {
    auto it = attributes.find(key);
    return it == attributes.end() ? fallback : it->second.floats;
}

const Tensor *Node::attrTensor(const std::string &key) const {
    auto it = attributes.find(key);
    return it == attributes.end() || it->second.kind != Attribute::Kind::Tensor ? nullptr
                                                                                : &it->second.t;
}

std::string Node::describe() const { return opType + " '" + name + "'"; }

const Tensor *Graph::initializer(const std::string &value) const {
    auto it = initializers.find(value);
    return it == initializers.end() ? nullptr : &it->second;
}

const Node *Graph::findNode(const std::string &nodeName) const {
    for (const Node &n : nodes)
        if (n.name == nodeName) return &n;
    return nullptr;
}

int Graph::producerIndex(const std::string &value) const {
    for (size_t i = 0; i < nodes.size(); ++i)
        for (const std::string &o : nodes[i].outputs)
            if (o == value) return static_cast<int>(i);
    return -1;
}

bool Graph::isGraphOutput(const std::string &value) const {
    for (const ValueInfo &o : outputs)
        if (o.name == value) return true;
    return false;
}

int Graph::useCount(const std::string &value) const {
    int count = isGraphOutput(value) ? 1 : 0;
    for (const Node &n : nodes)
        for (const std::string &in : n.inputs)
            if (in == value) ++count;
    return count;
}

int Graph::dropUnusedInitializers() {
    std::set<std::string> used;
    for (const Node &n : nodes) used.insert(n.inputs.begin(), n.inputs.end());
    for (const ValueInfo &out : outputs) used.insert(out.name);
    int dropped = 0;
    for (auto it = initializers.begin(); it != initializers.end();) {
        if (used.count(it->first)) {
            ++it;
        } else {
            it = initializers.erase(it);
            ++dropped;
        }
    }
    return dropped;
}

}  // namespace ql

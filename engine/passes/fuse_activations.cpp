#include "passes/fuse_activations.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "passes/node_replacement.h"

namespace ql {

namespace {

// Producers whose outputs are fresh pool buffers, never views of graph inputs, initializers
// or kernel caches: a fused sum may then overwrite such a residual once it is dead.
const std::set<std::string> kFreshBufferProducers = {
    "Conv",    "ConvTranspose", "BatchNormalization", "Relu", "LeakyRelu", "Clip",
    "Sigmoid", "HardSigmoid",   "HardSwish",          "Add",  "Sub",       "Mul",
    "MaxPool", "AveragePool"};

int64_t opsetOf(const Graph &graph, const Node &node) {
    auto it = graph.domainOpsets.find(node.domain);
    return it != graph.domainOpsets.end() ? it->second : graph.opsetVersion;
}

// Scalar float initializer, or nullopt-like failure.
bool scalarInitializer(const Graph &graph, const std::string &name, float &value) {
    const Tensor *t = graph.initializer(name);
    if (!t || t->numel() != 1 || t->dtype() != DataType::Float) return false;
    value = t->data<float>()[0];
    return true;
}

// Post-op parameters of an activation node; false when it cannot be fused.
bool activationParams(const Graph &graph, const Node &node, float &alpha, float &beta) {
    const std::string &op = node.opType;
    alpha = beta = 0.0f;
    if (op == "Relu" || op == "Sigmoid" || op == "HardSwish") return node.inputs.size() == 1;
    if (op == "LeakyRelu") {
        alpha = node.attrFloat("alpha", 0.01f);
        return true;
    }
    if (op == "HardSigmoid") {
        alpha = node.attrFloat("alpha", 0.2f);
        beta = node.attrFloat("beta", 0.5f);
        return true;
    }
    if (op != "Clip") return false;
    alpha = std::numeric_limits<float>::lowest();
    beta = std::numeric_limits<float>::max();
    if (opsetOf(graph, node) < 11) {
        alpha = node.attrFloat("min", alpha);
        beta = node.attrFloat("max", beta);
    } else {
        if (node.hasInput(1) && !scalarInitializer(graph, node.inputs[1], alpha)) return false;
        if (node.hasInput(2) && !scalarInitializer(graph, node.inputs[2], beta)) return false;
    }
    return alpha <= beta;  // ONNX gives max everywhere otherwise; oneDNN's clip would not
}

// x * Sigmoid(x) (SiLU/Swish) or x * HardSigmoid(x) with 1/6, 1/2 (HardSwish, as exported
// before opset 14): the two consumers of x are the gate and the product, nothing else sees
// the gate. Fills the fused op name and the two node indices.
bool gatedActivation(const Graph &graph, const std::vector<size_t> &users,
                     const std::vector<bool> &removed, const std::string &x, std::string &op,
                     size_t &gate, size_t &product) {
    for (int first = 0; first < 2; ++first) {
        gate = users[first];
        product = users[1 - first];
        const Node &g = graph.nodes[gate], &m = graph.nodes[product];
        if (removed[gate] || removed[product] || !g.domain.empty() || !m.domain.empty()) continue;
        if (gate > product || g.inputs.size() != 1 || g.outputs.size() != 1) continue;
        if (m.opType != "Mul" || m.inputs.size() != 2 || m.outputs.size() != 1) continue;
        const std::string &y = g.outputs[0];
        const bool pairs =
            (m.inputs[0] == x && m.inputs[1] == y) || (m.inputs[0] == y && m.inputs[1] == x);
        if (!pairs || graph.useCount(y) != 1) continue;
        if (g.opType == "Sigmoid") {
            op = "Swish";
            return true;
        }
        if (g.opType == "HardSigmoid" &&
            std::fabs(g.attrFloat("alpha", 0.2f) - 1.0f / 6.0f) < 1e-6f &&
            g.attrFloat("beta", 0.5f) == 0.5f) {
            op = "HardSwish";
            return true;
        }
    }
    return false;
}

bool knownEqualFloatShapes(const Graph &graph, const std::string &a, const std::string &b) {
    auto ia = graph.valueInfo.find(a), ib = graph.valueInfo.find(b);
    if (ia == graph.valueInfo.end() || ib == graph.valueInfo.end()) return false;
    const ValueInfo &va = ia->second, &vb = ib->second;
    if (!va.hasShape || !vb.hasShape || va.shape != vb.shape) return false;
    if (va.dtype != DataType::Float || vb.dtype != DataType::Float) return false;
    // An unknown dim matches only the same named symbol (e.g. both "batch_size").
    for (size_t i = 0; i < va.shape.size(); ++i) {
        if (va.shape[i] >= 0) continue;
        if (va.dimNames.size() <= i || vb.dimNames.size() <= i || va.dimNames[i].empty() ||
            va.dimNames[i] != vb.dimNames[i])
            return false;
    }
    return true;
}

}  // namespace

Status fuseForInference(Graph &graph, FusionReport *report,
                        const std::set<std::string> &keepVisible) {
    std::map<std::string, std::vector<size_t>> consumers;
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        for (const std::string &in : graph.nodes[i].inputs)
            if (!in.empty()) consumers[in].push_back(i);

    std::vector<bool> removed(graph.nodes.size(), false);
    std::map<size_t, Node> replacements;  // position of a chain's last node -> fused Conv
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const Node &conv = graph.nodes[i];
        if (conv.opType != "Conv" || !conv.domain.empty() || conv.outputs.size() != 1 ||
            conv.inputs.size() > fused::kResidualInput || conv.hasAttribute(fused::kOps) ||
            removed[i])
            continue;  // already fused ones keep their post-ops (the pass may run twice)
        std::vector<std::string> ops;
        std::vector<float> alphas, betas;
        std::vector<size_t> chain;
        std::string current = conv.outputs[0], residual;
        while (!graph.isGraphOutput(current) && !keepVisible.count(current)) {
            auto it = consumers.find(current);
            if (it == consumers.end()) break;
            size_t gate = 0, product = 0;
            std::string gated;
            if (it->second.size() == 2 &&
                gatedActivation(graph, it->second, removed, current, gated, gate, product)) {
                ops.push_back(gated);  // x * act(x) as one post-op
                alphas.push_back(1.0f);
                betas.push_back(0.0f);
                chain.push_back(gate);
                chain.push_back(product);
                current = graph.nodes[product].outputs[0];
                continue;
            }
            if (it->second.size() != 1) break;
            const size_t nextIndex = it->second[0];
            const Node &next = graph.nodes[nextIndex];
            if (removed[nextIndex] || !next.domain.empty() || next.outputs.size() != 1) break;
            float alpha = 0.0f, beta = 0.0f;
            if (next.opType == "Add") {
                // Only as the first post-op (conv + residual, then activations) and same-shape.
                if (!ops.empty() || next.inputs.size() != 2) break;
                const std::string &other =
                    next.inputs[0] == current ? next.inputs[1] : next.inputs[0];
                if (other == current || other.empty() ||
                    !knownEqualFloatShapes(graph, current, other))
                    break;
                residual = other;
            } else if (!activationParams(graph, next, alpha, beta)) {
                break;
            }
            ops.push_back(next.opType);
            alphas.push_back(alpha);
            betas.push_back(beta);
            chain.push_back(nextIndex);
            current = next.outputs[0];
        }
        if (chain.empty()) continue;

        Node fusedNode = conv;
        fusedNode.outputs[0] = current;
        Attribute opsAttr;
        opsAttr.kind = Attribute::Kind::Strings;
        opsAttr.strings = ops;
        fusedNode.attributes[fused::kOps] = opsAttr;
        Attribute alphaAttr, betaAttr;
        alphaAttr.kind = betaAttr.kind = Attribute::Kind::Floats;
        alphaAttr.floats = alphas;
        betaAttr.floats = betas;
        fusedNode.attributes[fused::kAlphas] = alphaAttr;
        fusedNode.attributes[fused::kBetas] = betaAttr;
        if (!residual.empty()) {
            fusedNode.inputs.resize(fused::kResidualInput, "");
            fusedNode.inputs.push_back(residual);
            const int producer = graph.producerIndex(residual);
            const bool inPlace = producer >= 0 && graph.useCount(residual) == 1 &&
                                 kFreshBufferProducers.count(graph.nodes[producer].opType) != 0;
            Attribute inPlaceAttr;
            inPlaceAttr.kind = Attribute::Kind::Int;
            inPlaceAttr.i = inPlace ? 1 : 0;
            fusedNode.attributes[fused::kSumInPlace] = inPlaceAttr;
            if (report) ++report->fusedAdds;
        }
        if (report)
            report->fusedActivations += static_cast<int>(ops.size()) - (residual.empty() ? 0 : 1);
        removed[i] = true;
        for (size_t c : chain) removed[c] = true;
        replacements[chain.back()] = std::move(fusedNode);
    }

    replaceNodes(graph, removed, std::move(replacements));
    return Status::ok();
}

}  // namespace ql

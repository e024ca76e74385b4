#include "passes/qdq_cleanup.h"

#include "passes/constant_folding.h"
#include "passes/qdq_graph_utils.h"
#include "passes/topological_sort.h"

namespace ql {

namespace {

// Identity, or a Cast to the type its input already has.
bool isPassThrough(const Graph &graph, const Node &node, bool &isCast) {
    isCast = false;
    if (!node.domain.empty() || node.inputs.size() != 1 || node.outputs.size() != 1 ||
        node.inputs[0].empty())
        return false;
    if (node.opType == "Identity") return true;
    if (node.opType != "Cast") return false;
    DataType in = qdq::declaredType(graph, node.inputs[0]);
    if (in == DataType::Undefined) {
        // Without shape inference: the output of a QuantizeLinear has its zero point's type.
        const qdq::GraphIndex index(graph);
        const int p = index.producer(node.inputs[0]);
        if (p >= 0 && qdq::isOp(graph.nodes[p], "QuantizeLinear"))
            in = qdq::quantizedTypeOf(graph, index, node.inputs[0]);
    }
    isCast = true;
    return in != DataType::Undefined && static_cast<int64_t>(in) == node.attrInt("to", -1);
}

bool isGraphInput(const Graph &graph, const std::string &value) {
    for (const ValueInfo &v : graph.inputs)
        if (v.name == value) return true;
    return false;
}

}  // namespace

Status cleanupQdqNoise(Graph &graph, QdqCleanupReport *report) {
    QdqCleanupReport local;
    FoldingReport folding;
    QL_RETURN_IF_ERROR(foldConstants(graph, &folding));
    local.foldedNodes = folding.foldedNodes;

    std::vector<Node> extra;
    std::vector<bool> removed(graph.nodes.size(), false);
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        bool isCast = false;
        if (!isPassThrough(graph, graph.nodes[i], isCast)) continue;
        const std::string in = graph.nodes[i].inputs[0], out = graph.nodes[i].outputs[0];
        if (graph.isGraphOutput(out)) {
            // Rename the producer's output instead, when nothing else sees the old name.
            const qdq::GraphIndex index(graph);
            const int p = index.producer(in);
            if (p < 0 || index.consumers(in).size() != 1 || graph.isGraphOutput(in) ||
                isGraphInput(graph, in))
                continue;
            for (std::string &o : graph.nodes[p].outputs)
                if (o == in) o = out;
        } else {
            qdq::replaceUses(graph, out, in, extra);
        }
        removed[i] = true;
        ++(isCast ? local.removedCasts : local.removedIdentities);
    }
    std::vector<Node> kept;
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        if (!removed[i]) kept.push_back(std::move(graph.nodes[i]));
    for (Node &n : extra) kept.push_back(std::move(n));
    graph.nodes = std::move(kept);
    if (report) *report = local;
    return sortTopologically(graph);
}

}  // namespace ql

#include "passes/constant_folding.h"

#include <set>

#include "runtime/execution_plan.h"

namespace ql {

namespace {

// Largest constant we are willing to materialise; bigger ones are computed at run time.
constexpr size_t kMaxFoldedBytes = size_t(64) << 20;

// Shape of a value when it is fully static: from an initializer or shape inference.
bool staticShapeOf(const Graph &graph, const std::string &value, Shape *shape) {
    if (const Tensor *t = graph.initializer(value)) {
        *shape = t->shape();
        return true;
    }
    auto it = graph.valueInfo.find(value);
    if (it == graph.valueInfo.end() || !it->second.hasShape) return false;
    for (int64_t d : it->second.shape)
        if (d < 0) return false;
    *shape = it->second.shape;
    return true;
}

bool foldShapeNode(Graph &graph, const Node &node) {
    Shape shape;
    if (!node.hasInput(0) || !staticShapeOf(graph, node.inputs[0], &shape)) return false;
    const int64_t rank = static_cast<int64_t>(shape.size());
    auto clampAxis = [rank](int64_t a) { return std::min(std::max(a < 0 ? a + rank : a, int64_t(0)), rank); };
    const int64_t start = clampAxis(node.attrInt("start", 0));
    const int64_t end = clampAxis(node.attrInt("end", rank));
    std::vector<int64_t> dims;
    for (int64_t i = start; i < end; ++i) dims.push_back(shape[i]);
    graph.initializers[node.outputs[0]] = Tensor::fromVector<int64_t>({static_cast<int64_t>(dims.size())}, dims);
    return true;
}

bool isFoldable(const Graph &graph, const Node &node) {
    if (node.domain != "" || node.outputs.empty()) return false;
    static const std::set<std::string> nondeterministic = {"RandomNormal", "RandomUniform",
        "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli"};
    if (nondeterministic.count(node.opType)) return false;
    // DequantizeLinear of a constant stays: the int8 weight behind it is what the int8 lowering
    // (passes/qdq_to_qoperator.h) needs to see; passes/strip_qdq.h folds it for fp32 runs.
    if (node.opType == "DequantizeLinear") return false;
    for (const std::string &in : node.inputs)
        if (!in.empty() && !graph.isInitializer(in)) return false;
    return true;
}

// Runs one node whose inputs are all initializers; false when it cannot (left for run time).
bool foldNode(Graph &graph, const Node &node) {
    Graph single;
    single.opsetVersion = graph.opsetVersion;
    single.domainOpsets = graph.domainOpsets;
    single.nodes.push_back(node);
    for (const std::string &in : node.inputs)
        if (!in.empty()) single.initializers[in] = graph.initializers.at(in);
    for (const std::string &out : node.outputs) {
        ValueInfo info;
        info.name = out;
        if (!out.empty()) single.outputs.push_back(info);
    }
    PlanOptions oneThread;
    oneThread.threads = 1;
    auto plan = ExecutionPlan::create(single, oneThread);
    if (!plan) return false;
    std::vector<Tensor> outputs;
    if (!plan.value()->run({}, outputs).isOk()) return false;
    size_t bytes = 0;
    for (const Tensor &t : outputs) bytes += t.byteSize();
    if (bytes > kMaxFoldedBytes) return false;
    size_t k = 0;
    for (const std::string &out : node.outputs)
        if (!out.empty()) graph.initializers[out] = outputs[k++];
    return true;
}

}  // namespace

Status foldConstants(Graph &graph, FoldingReport *report) {
    FoldingReport local;
    std::vector<Node> kept;
    kept.reserve(graph.nodes.size());
    for (const Node &node : graph.nodes) {
        bool folded = false;
        if (node.opType == "Shape" && node.domain.empty()) folded = foldShapeNode(graph, node);
        else if (isFoldable(graph, node)) folded = foldNode(graph, node);
        if (folded) ++local.foldedNodes;
        else kept.push_back(node);
    }
    graph.nodes = std::move(kept);

    local.removedInitializers += graph.dropUnusedInitializers();
    if (report) *report = local;
    return Status::ok();
}

}  // namespace ql

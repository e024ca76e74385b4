#include "passes/qoperator_to_qdq.h"

#include <limits>

#include "passes/qdq_graph_utils.h"
#include "passes/topological_sort.h"

namespace ql {

namespace {

class Expander {
public:
    explicit Expander(Graph &graph) : m_graph(graph), m_names(graph) {}

    // Fills `out` with the replacement of `node`; false when the node is not a QOperator.
    Result<bool> expand(const Node &node, std::vector<Node> &out);

private:
    std::string dequantize(const std::string &q, const std::string &scale, const std::string &zp,
                           int64_t axis, std::vector<Node> &out);
    void quantize(const std::string &x, const std::string &scale, const std::string &zp,
                  const std::string &y, std::vector<Node> &out);
    std::string floatOp(const Node &qnode, const std::string &opType,
                        const std::vector<std::string> &inputs, std::vector<Node> &out);
    std::string activation(const Node &qnode, const std::string &x, std::vector<Node> &out);
    std::string productScale(const std::string &a, const std::string &b, float factor,
                             const std::string &hint, std::vector<Node> &out);
    std::string onesLike(const std::string &zp);
    int64_t scaleLength(const std::string &scale) const;
    int rankOr(const std::string &value, int fallback) const {
        const int r = qdq::rankOf(m_graph, value);
        return r < 0 ? fallback : r;
    }
    Node makeNode(const std::string &base, const std::string &op) {
        Node n;
        n.name = m_names.make(base);
        n.opType = op;
        return n;
    }

    Graph &m_graph;
    qdq::NameSource m_names;
};

int64_t Expander::scaleLength(const std::string &scale) const {
    if (scale.empty()) return 1;
    if (const Tensor *t = m_graph.initializer(scale)) return t->numel();
    auto it = m_graph.valueInfo.find(scale);
    if (it != m_graph.valueInfo.end() && it->second.hasShape) {
        int64_t n = 1;
        for (int64_t d : it->second.shape) n *= d < 0 ? 2 : d;  // unknown: treat as per axis
        return n;
    }
    return 1;
}

std::string Expander::dequantize(const std::string &q, const std::string &scale,
                                 const std::string &zp, int64_t axis, std::vector<Node> &out) {
    Node dq = makeNode(q + "_dequantize", "DequantizeLinear");
    dq.inputs = {q, scale};
    if (!zp.empty()) dq.inputs.push_back(zp);
    if (axis >= 0 && scaleLength(scale) > 1) dq.attributes["axis"] = qdq::intAttribute(axis);
    dq.outputs = {m_names.make(q + "_dequantized")};
    out.push_back(dq);
    return dq.outputs[0];
}

void Expander::quantize(const std::string &x, const std::string &scale, const std::string &zp,
                        const std::string &y, std::vector<Node> &out) {
    Node q = makeNode(y + "_quantize", "QuantizeLinear");
    q.inputs = {x, scale};
    if (!zp.empty()) q.inputs.push_back(zp);
    q.outputs = {y};
    out.push_back(q);
}

std::string Expander::floatOp(const Node &qnode, const std::string &opType,
                              const std::vector<std::string> &inputs, std::vector<Node> &out) {
    Node op;
    op.name = qnode.name;  // reports and taps name the layer as the quantized model did
    op.opType = opType;
    for (const auto &[key, value] : qnode.attributes)
        if (key.rfind("ql_", 0) != 0 && key != "channels_last") op.attributes[key] = value;
    op.inputs = inputs;
    op.outputs = {m_names.make(qnode.outputs[0] + "_float")};
    out.push_back(op);
    return op.outputs[0];
}

std::string Expander::activation(const Node &qnode, const std::string &x, std::vector<Node> &out) {
    const std::string kind = qnode.attrString("ql_activation", "");
    if (kind.empty()) return x;
    Node act = makeNode(qnode.name + "_" + kind, kind);
    act.inputs = {x};
    if (kind == "Clip") {
        const float lo = qnode.attrFloat("ql_clip_min", std::numeric_limits<float>::lowest());
        const float hi = qnode.attrFloat("ql_clip_max", std::numeric_limits<float>::max());
        const std::string loName = m_names.make(act.name + "_min"), hiName = m_names.make(act.name + "_max");
        m_graph.initializers[loName] = Tensor::scalar<float>(lo);
        m_graph.initializers[hiName] = Tensor::scalar<float>(hi);
        act.inputs = {x, loName, hiName};
    }
    act.outputs = {m_names.make(x + "_" + kind)};
    out.push_back(act);
    return act.outputs[0];
}

std::string Expander::productScale(const std::string &a, const std::string &b, float factor,
                                   const std::string &hint, std::vector<Node> &out) {
    const Tensor *ta = m_graph.initializer(a), *tb = m_graph.initializer(b);
    if (ta && tb) {
        std::vector<float> va = ta->toFloatVector(), vb = tb->toFloatVector();
        const size_t n = std::max(va.size(), vb.size());
        std::vector<float> product(n);
        for (size_t i = 0; i < n; ++i)
            product[i] = factor * va[va.size() == 1 ? 0 : i] * vb[vb.size() == 1 ? 0 : i];
        const std::string name = m_names.make(hint + "_bias_scale");
        m_graph.initializers[name] = n == 1 ? Tensor::scalar<float>(product[0])
                                            : Tensor::fromVector<float>({int64_t(n)}, product);
        return name;
    }
    Node mul = makeNode(hint + "_bias_scale", "Mul");
    mul.inputs = {a, b};
    mul.outputs = {m_names.make(hint + "_bias_scale")};
    out.push_back(mul);
    if (factor == 1.0f) return mul.outputs[0];
    const std::string f = m_names.make(hint + "_alpha");
    m_graph.initializers[f] = Tensor::scalar<float>(factor);
    Node scaled = makeNode(hint + "_bias_scale_alpha", "Mul");
    scaled.inputs = {mul.outputs[0], f};
    scaled.outputs = {m_names.make(hint + "_bias_scale_alpha")};
    out.push_back(scaled);
    return scaled.outputs[0];
}

// Scale 1 with the zero point's shape, so ConvInteger / MatMulInteger operands can go through
// DequantizeLinear unchanged in value.
std::string Expander::onesLike(const std::string &zp) {
    const Tensor *t = zp.empty() ? nullptr : m_graph.initializer(zp);
    const int64_t n = t ? t->numel() : 1;
    const std::string name = m_names.make((zp.empty() ? std::string("integer") : zp) + "_unit_scale");
    m_graph.initializers[name] = n == 1 ? Tensor::scalar<float>(1.0f)
                                        : Tensor::fromVector<float>({n}, std::vector<float>(size_t(n), 1.0f));
    return name;
}

Result<bool> Expander::expand(const Node &node, std::vector<Node> &out) {
    auto in = [&](size_t i) { return node.hasInput(i) ? node.inputs[i] : std::string(); };
    const std::string y = node.outputs.empty() ? std::string() : node.outputs[0];
    const bool ms = node.domain == "com.microsoft", onnx = node.domain.empty();
    const std::string &op = node.opType;
    if (onnx && op == "QLinearConv") {
        const std::string x = dequantize(in(0), in(1), in(2), -1, out);
        const std::string w = dequantize(in(3), in(4), in(5), 0, out);
        std::vector<std::string> inputs = {x, w};
        if (node.hasInput(8))
            inputs.push_back(dequantize(in(8), productScale(in(1), in(4), 1.0f, node.name, out), "", 0, out));
        quantize(activation(node, floatOp(node, "Conv", inputs, out), out), in(6), in(7), y, out);
        return true;
    }
    if (onnx && op == "QLinearMatMul") {
        const std::string a = dequantize(in(0), in(1), in(2), rankOr(in(0), 2) - 2, out);
        const std::string b = dequantize(in(3), in(4), in(5), rankOr(in(3), 2) - 1, out);
        quantize(activation(node, floatOp(node, "MatMul", {a, b}, out), out), in(6), in(7), y, out);
        return true;
    }
    if (ms && op == "QGemm") {
        const bool transB = node.attrInt("transB", 0) != 0;
        const float alpha = node.attrFloat("alpha", 1.0f);
        const std::string a = dequantize(in(0), in(1), in(2), -1, out);
        const std::string b = dequantize(in(3), in(4), in(5), transB ? 0 : 1, out);
        std::vector<std::string> inputs = {a, b};
        if (node.hasInput(6))
            inputs.push_back(dequantize(in(6), productScale(in(1), in(4), alpha, node.name, out), "",
                                        rankOr(in(6), 1) - 1, out));
        Node gemmAttrs = node;
        gemmAttrs.attributes["beta"] = qdq::floatAttribute(1.0f);
        std::string f = activation(node, floatOp(gemmAttrs, "Gemm", inputs, out), out);
        if (node.hasInput(7)) {
            quantize(f, in(7), in(8), y, out);
        } else {
            out.back().outputs[0] = y;  // float output
        }
        return true;
    }
    if (ms && (op == "QLinearAdd" || op == "QLinearMul")) {
        const std::string a = dequantize(in(0), in(1), in(2), -1, out);
        const std::string b = dequantize(in(3), in(4), in(5), -1, out);
        quantize(floatOp(node, op == "QLinearAdd" ? "Add" : "Mul", {a, b}, out), in(6), in(7), y, out);
        return true;
    }
    if (ms && op == "QLinearConcat") {
        std::vector<std::string> inputs;
        for (size_t k = 2; k + 2 < node.inputs.size(); k += 3)
            inputs.push_back(dequantize(in(k), in(k + 1), in(k + 2), -1, out));
        quantize(floatOp(node, "Concat", inputs, out), in(0), in(1), y, out);
        return true;
    }
    if (ms && (op == "QLinearGlobalAveragePool" || op == "QLinearAveragePool" ||
               op == "QLinearSigmoid" || op == "QLinearLeakyRelu")) {
        if (node.attrInt("channels_last", 0) != 0)
            return Status::unsupported(node.describe() + ": channels_last=1 has no reference form");
        const std::string x = dequantize(in(0), in(1), in(2), -1, out);
        quantize(floatOp(node, op.substr(7), {x}, out), in(3), in(4), y, out);
        return true;
    }
    if (onnx && (op == "ConvInteger" || op == "MatMulInteger")) {
        const bool conv = op == "ConvInteger";
        const std::string a = dequantize(in(0), onesLike(in(2)), in(2), conv ? 1 : rankOr(in(0), 2) - 2, out);
        const std::string b = dequantize(in(1), onesLike(in(3)), in(3), conv ? 0 : rankOr(in(1), 2) - 1, out);
        const std::string f = floatOp(node, conv ? "Conv" : "MatMul", {a, b}, out);
        Node cast = makeNode(node.name + "_to_int32", "Cast");
        cast.attributes["to"] = qdq::intAttribute(static_cast<int64_t>(DataType::Int32));
        cast.inputs = {f};
        cast.outputs = {y};
        out.push_back(cast);
        return true;
    }
    return false;
}

}  // namespace

Status expandQOperatorsToQdq(Graph &graph, ExpansionReport *report) {
    Expander expander(graph);
    std::vector<Node> nodes;
    int expanded = 0;
    for (const Node &node : graph.nodes) {
        std::vector<Node> replacement;
        Result<bool> done = expander.expand(node, replacement);
        if (!done) return done.status();
        if (done.value()) {
            ++expanded;
            nodes.insert(nodes.end(), replacement.begin(), replacement.end());
        } else {
            nodes.push_back(node);
        }
    }
    graph.nodes = std::move(nodes);
    if (report) report->expandedNodes = expanded;
    return sortTopologically(graph);
}

bool hasQOperators(const Graph &graph) {
    for (const auto &node : graph.nodes)
        if (node.opType.rfind("QLinear", 0) == 0 || node.opType == "ConvInteger" ||
            node.opType == "MatMulInteger" || node.opType == "QGemm")
            return true;
    return false;
}

}  // namespace ql

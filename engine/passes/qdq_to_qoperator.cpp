#include "passes/qdq_to_qoperator.h"

#include <cmath>
#include <limits>
#include <set>

#include "kernels/kernel.h"
#include "passes/qdq_graph_utils.h"
#include "passes/topological_sort.h"
#include "runtime/execution_plan.h"

namespace ql {

namespace {

constexpr const char *kMicrosoft = "com.microsoft";

// A dequantized operand: the quantized tensor and its parameters, taken from a DequantizeLinear.
struct Operand {
    std::string q, scale, zp;
    qdq::QParamsView params;
};

// The QuantizeLinear that ends a pattern, and the Relu/Clip between op and Q if any.
struct QuantizedOutput {
    int qNode = -1;
    std::string value, scale, zp;
    qdq::QParamsView params;
    int activationNode = -1;
    std::string activation;  // "Relu" or "Clip"
    float lo = 0.0f, hi = 0.0f;
    bool implicit = false;  // the output quantization already clamps to [lo, hi]
};

bool int8MaxPoolRuns() {
    static const bool runs = [] {
        Graph g;
        g.opsetVersion = 13;
        ValueInfo in;
        in.name = "x";
        in.dtype = DataType::UInt8;
        in.shape = {1, 1, 2, 2};
        in.hasShape = true;
        g.inputs.push_back(in);
        ValueInfo out;
        out.name = "y";
        g.outputs.push_back(out);
        Node pool;
        pool.name = "probe";
        pool.opType = "MaxPool";
        pool.inputs = {"x"};
        pool.outputs = {"y"};
        Attribute k;
        k.kind = Attribute::Kind::Ints;
        k.ints = {2, 2};
        pool.attributes["kernel_shape"] = k;
        g.nodes.push_back(pool);
        auto plan = ExecutionPlan::create(g, PlanOptions{1});
        if (!plan) return false;
        std::vector<Tensor> outputs;
        Tensor x = Tensor::fromVector<uint8_t>({1, 1, 2, 2}, {3, 200, 7, 9});
        return plan.value()->run({{"x", x}}, outputs).isOk() && outputs.size() == 1 &&
               outputs[0].dtype() == DataType::UInt8 && outputs[0].data<uint8_t>()[0] == 200;
    }();
    return runs;
}

class Lowering {
public:
    Lowering(Graph &graph, const LoweringOptions &options)
        : m_graph(graph), m_index(graph), m_names(graph), m_options(options),
          m_removed(graph.nodes.size(), false) {}

    Status run(PrecisionReport *report);

private:
    std::string lowerConv(int i);
    std::string lowerGemm(int i);
    std::string lowerMatMul(int i);
    std::string lowerBinary(int i, const char *qop);
    std::string lowerConcat(int i);
    std::string lowerUnary(int i, const char *qop);
    std::string lowerExact(int i);

    bool dequantized(const std::string &value, Operand &out, std::string &why);
    bool quantizedOutput(const Node &op, QuantizedOutput &out, std::string &why);
    bool constantFloats(const std::string &value, std::vector<float> &out);
    std::string zeroPointInput(const Node &qdqNode, DataType type);
    std::string kernelMissing(const std::string &domain, const std::string &op) const;
    void commit(int opIndex, Node node, const QuantizedOutput &y);
    std::string addInitializer(const std::string &base, Tensor value);

    Graph &m_graph;
    qdq::GraphIndex m_index;
    qdq::NameSource m_names;
    LoweringOptions m_options;
    std::vector<bool> m_removed;
    std::map<int, Node> m_replacements;      // position of the absorbed Q -> new node
    std::map<int, std::string> m_fusedInto;  // absorbed activation -> report reason
};

std::string Lowering::addInitializer(const std::string &base, Tensor value) {
    const std::string name = m_names.make(base);
    m_graph.initializers[name] = std::move(value);
    return name;
}

std::string Lowering::zeroPointInput(const Node &qdqNode, DataType type) {
    if (qdqNode.hasInput(2)) return qdqNode.inputs[2];
    return addInitializer(qdqNode.name + "_zero_point", Tensor(type, {}));
}

std::string Lowering::kernelMissing(const std::string &domain, const std::string &op) const {
    if (!m_options.requireKernels || KernelRegistry::instance().find(domain, op)) return "";
    return "no " + (domain.empty() ? "" : domain + " ") + op + " kernel in this build";
}

bool Lowering::dequantized(const std::string &value, Operand &out, std::string &why) {
    const int p = m_index.producer(value);
    if (p < 0 || m_removed[p] || !qdq::isOp(m_graph.nodes[p], "DequantizeLinear")) {
        why = "'" + value + "' does not come from DequantizeLinear";
        return false;
    }
    const Node &dq = m_graph.nodes[p];
    if (!qdq::readQParams(m_graph, m_index, dq, out.params)) {
        why = dq.describe() + " has quantization parameters that are not constants";
        return false;
    }
    if (out.params.type != DataType::UInt8 && out.params.type != DataType::Int8) {
        why = dq.describe() + " dequantizes " + dataTypeName(out.params.type) + ", not 8-bit";
        return false;
    }
    out.q = dq.inputs[0];
    out.scale = dq.inputs[1];
    out.zp = zeroPointInput(dq, out.params.type);
    return true;
}

bool Lowering::constantFloats(const std::string &value, std::vector<float> &out) {
    if (const Tensor *t = m_graph.initializer(value)) {
        if (t->dtype() != DataType::Float) return false;
        out = t->toFloatVector();
        return true;
    }
    const int p = m_index.producer(value);
    if (p < 0 || !qdq::isOp(m_graph.nodes[p], "DequantizeLinear")) return false;
    const Tensor *q = m_graph.initializer(m_graph.nodes[p].inputs[0]);
    qdq::QParamsView params;
    if (!q || !qdq::readQParams(m_graph, m_index, m_graph.nodes[p], params)) return false;
    out = qdq::dequantize(*q, params).toFloatVector();
    return true;
}

bool Lowering::quantizedOutput(const Node &op, QuantizedOutput &out, std::string &why) {
    for (size_t k = 1; k < op.outputs.size(); ++k)
        if (!op.outputs[k].empty()) {
            why = "its extra output '" + op.outputs[k] + "' has no int8 form";
            return false;
        }
    std::string value = op.outputs[0];
    for (int step = 0; step < 2; ++step) {
        if (m_graph.isGraphOutput(value)) {
            why = "'" + value + "' is a float graph output";
            return false;
        }
        const std::vector<int> &users = m_index.consumers(value);
        if (users.size() != 1) {
            why = "'" + value + "' has " + std::to_string(users.size()) + " consumers, not one QuantizeLinear";
            return false;
        }
        const Node &next = m_graph.nodes[users[0]];
        if (qdq::isOp(next, "QuantizeLinear") && next.inputs[0] == value) {
            if (!qdq::readQParams(m_graph, m_index, next, out.params)) {
                why = next.describe() + " has quantization parameters that are not constants";
                return false;
            }
            if (!out.params.perTensor()) {
                why = next.describe() + " quantizes per axis";
                return false;
            }
            if (out.params.type != DataType::UInt8 && out.params.type != DataType::Int8) {
                why = next.describe() + " quantizes to " + dataTypeName(out.params.type);
                return false;
            }
            out.qNode = users[0];
            out.value = next.outputs[0];
            out.scale = next.inputs[1];
            out.zp = zeroPointInput(next, out.params.type);
            break;
        }
        const bool isRelu = qdq::isOp(next, "Relu"), isClip = qdq::isOp(next, "Clip");
        if (step == 1 || (!isRelu && !isClip) || m_removed[users[0]]) {
            why = "'" + value + "' goes to " + next.describe() + ", not to QuantizeLinear";
            return false;
        }
        out.activationNode = users[0];
        out.activation = next.opType;
        out.lo = isRelu ? 0.0f : std::numeric_limits<float>::lowest();
        out.hi = std::numeric_limits<float>::max();
        if (isClip) {
            auto it = m_graph.domainOpsets.find("");
            const int64_t opset = it != m_graph.domainOpsets.end() ? it->second : m_graph.opsetVersion;
            if (opset < 11) {
                out.lo = next.attrFloat("min", out.lo);
                out.hi = next.attrFloat("max", out.hi);
            } else {
                for (size_t k = 1; k < 3; ++k) {
                    if (!next.hasInput(k)) continue;
                    const Tensor *bound = m_graph.initializer(next.inputs[k]);
                    if (!bound || bound->numel() != 1 || bound->dtype() != DataType::Float) {
                        why = next.describe() + " has bounds that are not constants";
                        return false;
                    }
                    (k == 1 ? out.lo : out.hi) = bound->data<float>()[0];
                }
            }
        }
        value = next.outputs[0];
    }
    if (out.activationNode >= 0) {
        // Saturation at the quantized range already applies the clamp when the range lies
        // inside [lo, hi] (up to half a step: rounding lands on the same integer).
        int64_t qmin = out.params.type == DataType::UInt8 ? 0 : -128;
        int64_t qmax = out.params.type == DataType::UInt8 ? 255 : 127;
        const double s = out.params.scale[0], zp = out.params.zeroPoint[0];
        out.implicit = out.lo < (qmin - zp + 0.5) * s && out.hi > (qmax - zp - 0.5) * s;
    }
    return true;
}

void Lowering::commit(int opIndex, Node node, const QuantizedOutput &y) {
    m_removed[opIndex] = true;
    m_removed[y.qNode] = true;
    if (y.activationNode >= 0) {
        m_removed[y.activationNode] = true;
        m_fusedInto[y.activationNode] =
            (y.implicit ? "applied by the output quantization of " : "fused into ") + node.describe();
        if (!y.implicit) {
            node.attributes["ql_activation"] = qdq::stringAttribute(y.activation);
            if (y.activation == "Clip") {
                node.attributes["ql_clip_min"] = qdq::floatAttribute(y.lo);
                node.attributes["ql_clip_max"] = qdq::floatAttribute(y.hi);
            }
        }
    }
    if (node.domain == kMicrosoft && !m_graph.domainOpsets.count(kMicrosoft))
        m_graph.domainOpsets[kMicrosoft] = 1;
    m_replacements[y.qNode] = std::move(node);
}

// Output activation that only a MatMul-family kernel can fuse.
std::string activationNotFusable(const QuantizedOutput &y, const std::string &op) {
    if (y.activationNode < 0 || y.implicit) return "";
    return y.activation + " between " + op + " and QuantizeLinear clamps inside the quantized range";
}

std::string Lowering::lowerConv(int i) {
    const Node conv = m_graph.nodes[i];
    if (!conv.hasInput(1)) return "Conv without weights";
    Operand x, w;
    QuantizedOutput y;
    std::string why;
    if (!dequantized(conv.inputs[0], x, why)) return "input " + why;
    if (!x.params.perTensor()) return "input is quantized per axis";
    if (!dequantized(conv.inputs[1], w, why)) return "weight " + why;
    const Tensor *wq = m_graph.initializer(w.q);
    if (!wq || wq->dtype() != DataType::Int8) return "weight is not a constant int8 tensor";
    const int64_t channels = wq->dim(0);
    if (!w.params.perTensor() && (w.params.axis != 0 || int64_t(w.params.scale.size()) != channels))
        return "weight is quantized along axis " + std::to_string(w.params.axis) + ", not per output channel";
    if (!quantizedOutput(conv, y, why)) return why;
    std::string bias;
    if (conv.hasInput(2)) {
        std::vector<float> b;
        if (!constantFloats(conv.inputs[2], b)) return "bias is not a constant";
        if (int64_t(b.size()) != channels) return "bias has " + std::to_string(b.size()) + " values for " + std::to_string(channels) + " channels";
        std::vector<int32_t> q(b.size());
        for (size_t c = 0; c < b.size(); ++c) {
            const double s = double(x.params.scale[0]) * w.params.scale[w.params.perTensor() ? 0 : c];
            const double v = std::nearbyint(b[c] / s);
            q[c] = static_cast<int32_t>(std::min(std::max(v, double(INT32_MIN)), double(INT32_MAX)));
        }
        bias = addInitializer(conv.name + "_bias_int32", Tensor::fromVector<int32_t>({channels}, q));
    }
    if (std::string missing = kernelMissing("", "QLinearConv"); !missing.empty()) return missing;
    Node n;
    n.name = conv.name;
    n.opType = "QLinearConv";
    n.attributes = conv.attributes;
    n.inputs = {x.q, x.scale, x.zp, w.q, w.scale, w.zp, y.scale, y.zp};
    if (!bias.empty()) n.inputs.push_back(bias);
    n.outputs = {y.value};
    commit(i, n, y);
    return "";
}

std::string Lowering::lowerGemm(int i) {
    const Node gemm = m_graph.nodes[i];
    Operand a, b;
    QuantizedOutput y;
    std::string why;
    if (!gemm.hasInput(1)) return "Gemm without B";
    if (!dequantized(gemm.inputs[0], a, why)) return "input A " + why;
    if (!a.params.perTensor()) return "input A is quantized per axis";
    if (!dequantized(gemm.inputs[1], b, why)) return "input B " + why;
    const Tensor *bq = m_graph.initializer(b.q);
    if (!bq || bq->dtype() != DataType::Int8 || bq->rank() != 2) return "B is not a constant 2-D int8 tensor";
    const bool transB = gemm.attrInt("transB", 0) != 0;
    const int64_t n = bq->dim(transB ? 0 : 1);
    if (!b.params.perTensor() && (b.params.axis != (transB ? 0 : 1) || int64_t(b.params.scale.size()) != n))
        return "B is quantized along axis " + std::to_string(b.params.axis) + ", not per output column";
    if (!quantizedOutput(gemm, y, why)) return why;
    const float alpha = gemm.attrFloat("alpha", 1.0f), beta = gemm.attrFloat("beta", 1.0f);
    std::string bias;
    if (gemm.hasInput(2)) {
        std::vector<float> c;
        if (!constantFloats(gemm.inputs[2], c)) return "C is not a constant";
        if (c.size() != 1 && int64_t(c.size()) != n) return "C is not a per-column bias";
        if (c.size() != 1) {
            const Tensor *ct = m_graph.initializer(gemm.inputs[2]);
            if (ct && ct->rank() == 2 && ct->dim(0) != 1) return "C is not a per-column bias";
        }
        std::vector<int32_t> q(n);
        for (int64_t k = 0; k < n; ++k) {
            const double s = double(alpha) * a.params.scale[0] * b.params.scale[b.params.perTensor() ? 0 : k];
            const double v = std::nearbyint(double(beta) * c[c.size() == 1 ? 0 : k] / s);
            q[k] = static_cast<int32_t>(std::min(std::max(v, double(INT32_MIN)), double(INT32_MAX)));
        }
        bias = addInitializer(gemm.name + "_bias_int32", Tensor::fromVector<int32_t>({n}, q));
    }
    if (std::string missing = kernelMissing(kMicrosoft, "QGemm"); !missing.empty()) return missing;
    Node node;
    node.name = gemm.name;
    node.opType = "QGemm";
    node.domain = kMicrosoft;
    node.attributes["transA"] = qdq::intAttribute(gemm.attrInt("transA", 0));
    node.attributes["transB"] = qdq::intAttribute(transB ? 1 : 0);
    node.attributes["alpha"] = qdq::floatAttribute(alpha);
    node.inputs = {a.q, a.scale, a.zp, b.q, b.scale, b.zp, bias, y.scale, y.zp};
    node.outputs = {y.value};
    commit(i, node, y);
    return "";
}

std::string Lowering::lowerMatMul(int i) {
    const Node mm = m_graph.nodes[i];
    Operand a, b;
    QuantizedOutput y;
    std::string why;
    if (!dequantized(mm.inputs[0], a, why)) return "input A " + why;
    if (!a.params.perTensor()) return "input A is quantized per axis";
    if (!dequantized(mm.inputs[1], b, why)) return "input B " + why;
    if (!b.params.perTensor() && (b.params.axis != 1 || qdq::rankOf(m_graph, b.q) != 2))
        return "B is quantized along an axis other than its columns";
    if (!quantizedOutput(mm, y, why)) return why;
    if (std::string missing = kernelMissing("", "QLinearMatMul"); !missing.empty()) return missing;
    Node node;
    node.name = mm.name;
    node.opType = "QLinearMatMul";
    node.inputs = {a.q, a.scale, a.zp, b.q, b.scale, b.zp, y.scale, y.zp};
    node.outputs = {y.value};
    commit(i, node, y);
    return "";
}

std::string Lowering::lowerBinary(int i, const char *qop) {
    const Node op = m_graph.nodes[i];
    Operand a, b;
    QuantizedOutput y;
    std::string why;
    if (op.inputs.size() != 2) return "needs two inputs";
    if (!dequantized(op.inputs[0], a, why) || !dequantized(op.inputs[1], b, why)) return "input " + why;
    if (!a.params.perTensor() || !b.params.perTensor()) return "an input is quantized per axis";
    if (!quantizedOutput(op, y, why)) return why;
    if (a.params.type != y.params.type || b.params.type != y.params.type) return "inputs and output mix uint8 and int8";
    if (std::string w = activationNotFusable(y, op.opType); !w.empty()) return w;
    if (std::string missing = kernelMissing(kMicrosoft, qop); !missing.empty()) return missing;
    Node node;
    node.name = op.name;
    node.opType = qop;
    node.domain = kMicrosoft;
    node.inputs = {a.q, a.scale, a.zp, b.q, b.scale, b.zp, y.scale, y.zp};
    node.outputs = {y.value};
    commit(i, node, y);
    return "";
}

std::string Lowering::lowerConcat(int i) {
    const Node op = m_graph.nodes[i];
    std::vector<Operand> xs(op.inputs.size());
    QuantizedOutput y;
    std::string why;
    for (size_t k = 0; k < op.inputs.size(); ++k) {
        if (!dequantized(op.inputs[k], xs[k], why)) return "input " + why;
        if (!xs[k].params.perTensor()) return "input " + std::to_string(k) + " is quantized per axis";
    }
    if (!quantizedOutput(op, y, why)) return why;
    for (const Operand &x : xs)
        if (x.params.type != y.params.type) return "inputs and output mix uint8 and int8";
    if (std::string w = activationNotFusable(y, op.opType); !w.empty()) return w;
    if (std::string missing = kernelMissing(kMicrosoft, "QLinearConcat"); !missing.empty()) return missing;
    Node node;
    node.name = op.name;
    node.opType = "QLinearConcat";
    node.domain = kMicrosoft;
    node.attributes["axis"] = qdq::intAttribute(op.attrInt("axis", 0));
    node.inputs = {y.scale, y.zp};
    for (const Operand &x : xs) node.inputs.insert(node.inputs.end(), {x.q, x.scale, x.zp});
    node.outputs = {y.value};
    commit(i, node, y);
    return "";
}

std::string Lowering::lowerUnary(int i, const char *qop) {
    const Node op = m_graph.nodes[i];
    Operand x;
    QuantizedOutput y;
    std::string why;
    if (!dequantized(op.inputs[0], x, why)) return "input " + why;
    if (!x.params.perTensor()) return "input is quantized per axis";
    if (!quantizedOutput(op, y, why)) return why;
    if (x.params.type != y.params.type) return "input and output mix uint8 and int8";
    if (std::string w = activationNotFusable(y, op.opType); !w.empty()) return w;
    if (std::string missing = kernelMissing(kMicrosoft, qop); !missing.empty()) return missing;
    Node node;
    node.name = op.name;
    node.opType = qop;
    node.domain = kMicrosoft;
    node.attributes = op.attributes;
    if (op.opType == "GlobalAveragePool") node.attributes["channels_last"] = qdq::intAttribute(0);
    if (op.opType == "LeakyRelu") node.attributes["alpha"] = qdq::floatAttribute(op.attrFloat("alpha", 0.01f));
    node.inputs = {x.q, x.scale, x.zp, y.scale, y.zp};
    node.outputs = {y.value};
    commit(i, node, y);
    return "";
}

std::string Lowering::lowerExact(int i) {
    const Node op = m_graph.nodes[i];
    Operand x;
    QuantizedOutput y;
    std::string why;
    if (!dequantized(op.inputs[0], x, why)) return "input " + why;
    if (!quantizedOutput(op, y, why)) return why;
    if (x.params.type != y.params.type || x.params.scale != y.params.scale ||
        x.params.zeroPoint != y.params.zeroPoint)
        return "output quantization differs from the input's, so the int8 op would not be exact";
    if (std::string w = activationNotFusable(y, op.opType); !w.empty()) return w;
    if (op.opType == "MaxPool" && m_options.requireKernels && !int8MaxPoolRuns())
        return "MaxPool has no 8-bit kernel in this build";
    Node node = op;
    node.inputs[0] = x.q;
    node.outputs = {y.value};
    commit(i, node, y);
    return "";
}

bool isQuantizationNode(const Node &n) {
    return qdq::isOp(n, "QuantizeLinear") || qdq::isOp(n, "DequantizeLinear") ||
           qdq::isOp(n, "DynamicQuantizeLinear");
}

bool isQOperator(const Node &n) {
    static const std::set<std::string> onnx = {"QLinearConv", "QLinearMatMul", "ConvInteger", "MatMulInteger"};
    static const std::set<std::string> ms = {"QGemm", "QLinearAdd", "QLinearMul", "QLinearConcat",
        "QLinearGlobalAveragePool", "QLinearAveragePool", "QLinearSigmoid", "QLinearLeakyRelu"};
    return (n.domain.empty() && onnx.count(n.opType)) || (n.domain == kMicrosoft && ms.count(n.opType));
}

Status Lowering::run(PrecisionReport *report) {
    static const std::set<std::string> exact = {"MaxPool", "Reshape", "Transpose", "Flatten", "Squeeze", "Unsqueeze"};
    static const std::map<std::string, const char *> unary = {
        {"GlobalAveragePool", "QLinearGlobalAveragePool"}, {"AveragePool", "QLinearAveragePool"},
        {"Sigmoid", "QLinearSigmoid"}, {"LeakyRelu", "QLinearLeakyRelu"}};
    std::vector<NodePrecision> entries;
    for (size_t k = 0; k < m_graph.nodes.size(); ++k) {
        const int i = static_cast<int>(k);
        const Node &node = m_graph.nodes[k];
        if (isQuantizationNode(node)) continue;
        NodePrecision entry{node.name, node.opType, false, ""};
        if (m_removed[i]) {
            entry.int8 = true;
            entry.reason = m_fusedInto[i];
            entries.push_back(entry);
            continue;
        }
        if (isQOperator(node)) {
            entries.push_back({node.name, node.opType, true, "quantized operator in the model"});
            continue;
        }
        std::string why = "not lowered";
        bool pattern = node.domain.empty() && !node.inputs.empty() && node.hasInput(0) && !node.outputs.empty();
        const std::string op = node.opType;
        if (!pattern) why = "no int8 form";
        else if (op == "Conv") why = lowerConv(i);
        else if (op == "Gemm") why = lowerGemm(i);
        else if (op == "MatMul") why = lowerMatMul(i);
        else if (op == "Add") why = lowerBinary(i, "QLinearAdd");
        else if (op == "Mul") why = lowerBinary(i, "QLinearMul");
        else if (op == "Concat") why = lowerConcat(i);
        else if (unary.count(op)) why = lowerUnary(i, unary.at(op));
        else if (exact.count(op)) why = lowerExact(i);
        else {
            bool touchesQdq = false;
            for (const std::string &in : node.inputs) {
                const int p = m_index.producer(in);
                touchesQdq |= p >= 0 && qdq::isOp(m_graph.nodes[p], "DequantizeLinear");
            }
            why = touchesQdq ? "no int8 kernel for " + op + "; runs dequantize -> fp32 -> quantize"
                             : "not quantized in the model";
        }
        if (why.empty()) {
            entry.int8 = true;
            for (const auto &r : m_replacements)
                if (r.second.name == node.name) entry.reason = r.second.opType;
        } else {
            entry.reason = why;
        }
        entries.push_back(entry);
    }

    std::vector<Node> nodes;
    for (size_t k = 0; k < m_graph.nodes.size(); ++k) {
        auto it = m_replacements.find(static_cast<int>(k));
        if (it != m_replacements.end()) nodes.push_back(std::move(it->second));
        else if (!m_removed[k]) nodes.push_back(std::move(m_graph.nodes[k]));
    }
    // DequantizeLinear nodes whose float outputs nobody reads any more go away.
    std::set<std::string> read;
    for (const Node &n : nodes) read.insert(n.inputs.begin(), n.inputs.end());
    std::vector<Node> kept;
    for (Node &n : nodes) {
        if (qdq::isOp(n, "DequantizeLinear") && !read.count(n.outputs[0]) &&
            !m_graph.isGraphOutput(n.outputs[0]))
            continue;
        kept.push_back(std::move(n));
    }
    nodes = std::move(kept);
    m_graph.nodes = std::move(nodes);
    std::set<std::string> used;
    for (const Node &n : m_graph.nodes) used.insert(n.inputs.begin(), n.inputs.end());
    for (const ValueInfo &out : m_graph.outputs) used.insert(out.name);
    for (auto it = m_graph.initializers.begin(); it != m_graph.initializers.end();)
        it = used.count(it->first) ? std::next(it) : m_graph.initializers.erase(it);
    if (report) report->nodes.insert(report->nodes.end(), entries.begin(), entries.end());
    return sortTopologically(m_graph);
}

}  // namespace

Status lowerQdqToQOperator(Graph &graph, PrecisionReport *report, const LoweringOptions &options) {
    Lowering lowering(graph, options);
    return lowering.run(report);
}

}  // namespace ql

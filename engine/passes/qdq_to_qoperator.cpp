#include "passes/qdq_to_qoperator.h"

#include <cmath>
#include <limits>
#include <optional>
#include <set>

#include "kernels/kernel.h"
#include "passes/qdq_lowering.h"
#include "passes/topological_sort.h"

namespace ql {
namespace lowering {

std::string Lowering::addInitializer(const std::string &base, Tensor value) {
    const std::string name = m_names.make(base);
    m_graph.initializers[name] = std::move(value);
    return name;
}

void Lowering::forward(const std::string &dropped, const std::string &source) {
    const int p = m_index.producer(source);
    if (p >= 0 && m_index.consumers(source).size() == 1 && !m_graph.isGraphOutput(source)) {
        auto lowered = m_replacements.find(p);
        Node *producer = lowered != m_replacements.end() ? &lowered->second
                         : !m_removed[p]                 ? &m_graph.nodes[p]
                                                         : nullptr;
        if (producer) {
            for (std::string &out : producer->outputs)
                if (out == source) out = dropped;
            return;
        }
    }
    m_aliases[dropped] = source;
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


namespace {

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

// How a node that is not lowered reads quantized inputs, for the report: "int16" (16-bit
// activations), "float8" (float8 activations), "int4 weights" / "int8 weights" / "int16 weights"
// (weight-only: a dequantized constant, float activations); "" when it reads no such input.
std::string quantizedForm(const Graph &graph, const qdq::GraphIndex &index, const Node &node) {
    std::optional<DataType> activation, weight;
    for (const std::string &in : node.inputs) {
        const int p = in.empty() ? -1 : index.producer(in);
        if (p < 0 || !qdq::isOp(graph.nodes[p], "DequantizeLinear")) continue;
        const Node &dq = graph.nodes[p];
        const DataType type = dq.hasInput(2) && graph.initializer(dq.inputs[2])
                                  ? graph.initializer(dq.inputs[2])->dtype()
                                  : qdq::quantizedTypeOf(graph, index, dq.inputs[0]);
        (graph.initializer(dq.inputs[0]) ? weight : activation) = type;
    }
    const auto sixteenBit = [](DataType t) {
        return t == DataType::Int16 || t == DataType::UInt16;
    };
    if (activation) {
        if (sixteenBit(*activation)) return "int16";
        return isFloat8(*activation) ? "float8" : "";
    }
    if (!weight) return "";
    return isFourBit(*weight)    ? "int4 weights"
           : sixteenBit(*weight) ? "int16 weights"
                                 : "int8 weights";
}

}  // namespace

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
        else if (op == "Relu" || op == "Clip") why = lowerStandaloneActivation(i);
        else {
            bool touchesQdq = false;
            for (const std::string &in : node.inputs) {
                const int p = m_index.producer(in);
                touchesQdq |= p >= 0 && qdq::isOp(m_graph.nodes[p], "DequantizeLinear");
            }
            for (const std::string &out : node.outputs)
                for (int c : m_index.consumers(out))
                    touchesQdq |= qdq::isOp(m_graph.nodes[c], "QuantizeLinear");
            const int producer = node.inputs.size() == 1 ? m_index.producer(node.inputs[0]) : -1;
            if ((op == "Relu" || op == "Clip") && producer >= 0 && !m_removed[producer] &&
                !qdq::isOp(m_graph.nodes[producer], "DequantizeLinear"))
                why = "runs in fp32 after " + m_graph.nodes[producer].describe();
            else
                why = touchesQdq ? "no int8 kernel for " + op + "; runs dequantize -> fp32 -> quantize"
                                 : "not quantized in the model";
        }
        if (why.empty()) {
            entry.int8 = true;
            for (const auto &r : m_replacements)
                if (r.second.name == node.name) entry.reason = r.second.opType;
            if (entry.reason.empty()) entry.reason = m_fusedInto[i];
        } else {
            entry.reason = why;
            entry.quantizedAs = quantizedForm(m_graph, m_index, node);
        }
        entries.push_back(entry);
    }

    std::vector<Node> nodes;
    for (size_t k = 0; k < m_graph.nodes.size(); ++k) {
        auto it = m_replacements.find(static_cast<int>(k));
        if (it != m_replacements.end()) nodes.push_back(std::move(it->second));
        else if (!m_removed[k]) nodes.push_back(std::move(m_graph.nodes[k]));
    }
    // Values of dropped no-ops are read from their int8 inputs (chains resolve to the first).
    std::vector<Node> aliasOutputs;
    for (const auto &alias : m_aliases) {
        std::string target = alias.second;
        while (m_aliases.count(target)) target = m_aliases.at(target);
        for (Node &n : nodes)
            for (std::string &in : n.inputs)
                if (in == alias.first) in = target;
        if (m_graph.isGraphOutput(alias.first)) {
            Node identity;
            identity.name = alias.first + "_identity";
            identity.opType = "Identity";
            identity.inputs = {target};
            identity.outputs = {alias.first};
            aliasOutputs.push_back(identity);
        }
    }
    nodes.insert(nodes.end(), aliasOutputs.begin(), aliasOutputs.end());
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
    m_graph.dropUnusedInitializers();
    if (report) report->nodes.insert(report->nodes.end(), entries.begin(), entries.end());
    return sortTopologically(m_graph);
}


}  // namespace lowering

Status lowerQdqToQOperator(Graph &graph, PrecisionReport *report, const LoweringOptions &options) {
    QL_RETURN_IF_ERROR(qdq::checkAllQdqParams(graph));
    lowering::Lowering lowering(graph, options);
    return lowering.run(report);
}


}  // namespace ql

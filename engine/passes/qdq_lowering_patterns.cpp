// The DQ -> op -> Q patterns of the int8 lowering, one function per op family.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/kernel.h"
#include "kernels/quantization_common.h"
#include "passes/qdq_lowering.h"

namespace ql::lowering {

namespace {

// The QOperator node that replaces `op`: same name, writes the quantized output.
Node loweredNode(const Node &op, const char *opType, const char *domain, std::vector<std::string> inputs,
                 const QuantizedOutput &y) {
    Node node;
    node.name = op.name;
    node.opType = opType;
    node.domain = domain;
    node.inputs = std::move(inputs);
    node.outputs = {y.value};
    return node;
}

}  // namespace

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
        for (size_t c = 0; c < b.size(); ++c)
            q[c] = quant::quantizeBiasValue(
                b[c], double(x.params.scale[0]) * w.params.scale[w.params.perTensor() ? 0 : c]);
        bias = addInitializer(conv.name + "_bias_int32", Tensor::fromVector<int32_t>({channels}, q));
    }
    if (std::string missing = kernelMissing("", "QLinearConv"); !missing.empty()) return missing;
    Node n = loweredNode(conv, "QLinearConv", "",
                         {x.q, x.scale, x.zp, w.q, w.scale, w.zp, y.scale, y.zp}, y);
    n.attributes = conv.attributes;
    if (!bias.empty()) n.inputs.push_back(bias);
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
        for (int64_t k = 0; k < n; ++k)
            q[k] = quant::quantizeBiasValue(
                double(beta) * c[c.size() == 1 ? 0 : k],
                double(alpha) * a.params.scale[0] * b.params.scale[b.params.perTensor() ? 0 : k]);
        bias = addInitializer(gemm.name + "_bias_int32", Tensor::fromVector<int32_t>({n}, q));
    }
    if (std::string missing = kernelMissing(kMicrosoft, "QGemm"); !missing.empty()) return missing;
    Node node = loweredNode(gemm, "QGemm", kMicrosoft,
                            {a.q, a.scale, a.zp, b.q, b.scale, b.zp, bias, y.scale, y.zp}, y);
    node.attributes["transA"] = qdq::intAttribute(gemm.attrInt("transA", 0));
    node.attributes["transB"] = qdq::intAttribute(transB ? 1 : 0);
    node.attributes["alpha"] = qdq::floatAttribute(alpha);
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
    commit(i, loweredNode(mm, "QLinearMatMul", "", {a.q, a.scale, a.zp, b.q, b.scale, b.zp, y.scale, y.zp}, y),
           y);
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
    commit(i, loweredNode(op, qop, kMicrosoft, {a.q, a.scale, a.zp, b.q, b.scale, b.zp, y.scale, y.zp}, y),
           y);
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
    Node node = loweredNode(op, "QLinearConcat", kMicrosoft, {y.scale, y.zp}, y);
    node.attributes["axis"] = qdq::intAttribute(op.attrInt("axis", 0));
    for (const Operand &x : xs) node.inputs.insert(node.inputs.end(), {x.q, x.scale, x.zp});
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
    Node node = loweredNode(op, qop, kMicrosoft, {x.q, x.scale, x.zp, y.scale, y.zp}, y);
    node.attributes = op.attributes;
    if (op.opType == "GlobalAveragePool") node.attributes["channels_last"] = qdq::intAttribute(0);
    if (op.opType == "LeakyRelu") node.attributes["alpha"] = qdq::floatAttribute(op.attrFloat("alpha", 0.01f));
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
    Node node = op;
    node.inputs[0] = x.q;
    node.outputs = {y.value};
    commit(i, node, y);
    return "";
}

// DQ -> Relu|Clip -> Q with one quantization whose range lies inside the clamp (ReLU6 as Clip(0, 6)
// quantized to [0, 6]): on the quantized tensor it changes nothing, so it disappears.
std::string Lowering::lowerStandaloneActivation(int i) {
    const Node op = m_graph.nodes[i];
    Operand x;
    std::string why;
    if (!dequantized(op.inputs[0], x, why)) return "input " + why;
    if (!x.params.perTensor()) return "input is quantized per axis";
    // Treat the activation as if it sat between an op and the Q: same saturation rule.
    QuantizedOutput y;
    Node passThrough;
    passThrough.outputs = {op.inputs[0]};
    const std::vector<int> &users = m_index.consumers(op.inputs[0]);
    if (users.size() != 1) return "'" + op.inputs[0] + "' is also read by other nodes";
    if (!quantizedOutput(passThrough, y, why)) return why;
    if (y.activationNode != i) return "not followed by QuantizeLinear";
    if (x.params.type != y.params.type || x.params.scale != y.params.scale ||
        x.params.zeroPoint != y.params.zeroPoint)
        return "output quantization differs from the input's";
    if (y.implicit) {
        m_removed[i] = true;
        m_removed[y.qNode] = true;
        forward(y.value, x.q);
        m_fusedInto[i] = "no-op on the quantized tensor: its quantized range lies inside the clamp";
        return "";
    }
    // The producer was lowered here to a QLinearConv / QLinearMatMul / QGemm that nothing else
    // reads: the clamp joins its fused activation.
    const int producer = m_index.producer(x.q);
    auto lowered = m_replacements.find(producer);
    if (lowered != m_replacements.end() && m_index.consumers(x.q).size() == 1 && !m_graph.isGraphOutput(x.q)) {
        Node &node = lowered->second;
        const bool fusable = node.opType == "QLinearConv" || node.opType == "QLinearMatMul" || node.opType == "QGemm";
        if (fusable) {
            float lo = std::numeric_limits<float>::lowest(), hi = std::numeric_limits<float>::max();
            const std::string existing = node.attrString("ql_activation", "");
            if (existing == "Relu") lo = 0.0f;
            if (existing == "Clip") {
                lo = node.attrFloat("ql_clip_min", lo);
                hi = node.attrFloat("ql_clip_max", hi);
            }
            node.attributes["ql_activation"] = qdq::stringAttribute("Clip");
            node.attributes["ql_clip_min"] = qdq::floatAttribute(std::max(lo, y.lo));
            node.attributes["ql_clip_max"] = qdq::floatAttribute(std::min(hi, y.hi));
            m_removed[i] = true;
            m_removed[y.qNode] = true;
            forward(y.value, x.q);
            m_fusedInto[i] = "fused into " + node.describe();
            return "";
        }
    }
    // Otherwise a Clip on the quantized tensor with the bounds quantized: exact, since the input
    // and output share one quantization.
    auto it = m_graph.domainOpsets.find("");
    const int64_t opset = it != m_graph.domainOpsets.end() ? it->second : m_graph.opsetVersion;
    if (opset < 11) return op.opType + " clamps inside the quantized range (opset < 11)";
    const double s = y.params.scale[0], zp = y.params.zeroPoint[0];
    const double qmin = y.params.type == DataType::UInt8 ? 0 : -128, qmax = y.params.type == DataType::UInt8 ? 255 : 127;
    auto quantizeBound = [&](float v) {
        return std::min(std::max(std::nearbyint(double(v) / s) + zp, qmin), qmax);
    };
    auto boundTensor = [&](double v) {
        return y.params.type == DataType::UInt8 ? Tensor::scalar<uint8_t>(uint8_t(v)) : Tensor::scalar<int8_t>(int8_t(v));
    };
    Node clip;
    clip.name = op.name;
    clip.opType = "Clip";
    clip.inputs = {x.q, addInitializer(op.name + "_qmin", boundTensor(quantizeBound(y.lo))),
                   addInitializer(op.name + "_qmax", boundTensor(quantizeBound(y.hi)))};
    clip.outputs = {y.value};
    m_removed[i] = true;
    m_removed[y.qNode] = true;
    m_replacements[y.qNode] = clip;
    return "";
}

}  // namespace ql::lowering

#include "passes/qdq_graph_utils.h"

#include <cmath>

#include "ir/channel_runs.h"
#include "kernels/quantization_common.h"

namespace ql::qdq {

GraphIndex::GraphIndex(const Graph &graph) {
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        for (const std::string &out : graph.nodes[i].outputs)
            if (!out.empty()) m_producer[out] = static_cast<int>(i);
        for (const std::string &in : graph.nodes[i].inputs)
            if (!in.empty()) m_consumers[in].push_back(static_cast<int>(i));
    }
    for (const ValueInfo &out : graph.outputs) m_outputs.insert(out.name);
}

int GraphIndex::producer(const std::string &value) const {
    auto it = m_producer.find(value);
    return it == m_producer.end() ? -1 : it->second;
}

const std::vector<int> &GraphIndex::consumers(const std::string &value) const {
    static const std::vector<int> none;
    auto it = m_consumers.find(value);
    return it == m_consumers.end() ? none : it->second;
}

NameSource::NameSource(const Graph &graph) {
    for (const Node &node : graph.nodes) {
        m_used.insert(node.name);
        m_used.insert(node.inputs.begin(), node.inputs.end());
        m_used.insert(node.outputs.begin(), node.outputs.end());
    }
    for (const auto &init : graph.initializers) m_used.insert(init.first);
    for (const ValueInfo &v : graph.inputs) m_used.insert(v.name);
    for (const ValueInfo &v : graph.outputs) m_used.insert(v.name);
}

std::string NameSource::make(const std::string &base) {
    std::string name = base;
    for (int i = 1; m_used.count(name); ++i) name = base + "_" + std::to_string(i);
    m_used.insert(name);
    return name;
}

bool isOp(const Node &node, const char *opType) {
    return node.domain.empty() && node.opType == opType;
}

bool isMicrosoftOp(const Node &node, const char *opType) {
    return node.domain == "com.microsoft" && node.opType == opType;
}

void replaceUses(Graph &graph, const std::string &from, const std::string &to,
                 std::vector<Node> &extraNodes) {
    for (Node &node : graph.nodes)
        for (std::string &in : node.inputs)
            if (in == from) in = to;
    for (Node &node : extraNodes)
        for (std::string &in : node.inputs)
            if (in == from) in = to;
    if (graph.isGraphOutput(from)) {
        Node identity;
        identity.name = from + "_identity";
        identity.opType = "Identity";
        identity.inputs = {to};
        identity.outputs = {from};
        extraNodes.push_back(identity);
    }
}

namespace {

// Input index of the output zero point of the QOperator ops, -1 for others.
int outputZeroPointInput(const Node &node) {
    if (isOp(node, "QuantizeLinear")) return 2;
    if (isOp(node, "QLinearConv") || isOp(node, "QLinearMatMul")) return 7;
    if (isMicrosoftOp(node, "QGemm")) return 8;
    if (isMicrosoftOp(node, "QLinearAdd") || isMicrosoftOp(node, "QLinearMul")) return 7;
    if (isMicrosoftOp(node, "QLinearConcat")) return 1;
    if (isMicrosoftOp(node, "QLinearGlobalAveragePool") || isMicrosoftOp(node, "QLinearAveragePool") ||
        isMicrosoftOp(node, "QLinearSigmoid") || isMicrosoftOp(node, "QLinearLeakyRelu"))
        return 4;
    return -1;
}

}  // namespace

DataType declaredType(const Graph &graph, const std::string &value) {
    if (const Tensor *t = graph.initializer(value)) return t->dtype();
    auto it = graph.valueInfo.find(value);
    if (it != graph.valueInfo.end()) return it->second.dtype;
    for (const ValueInfo &v : graph.inputs)
        if (v.name == value) return v.dtype;
    return DataType::Undefined;
}

DataType quantizedTypeOf(const Graph &graph, const GraphIndex &index, const std::string &value) {
    DataType type = declaredType(graph, value);
    if (type != DataType::Undefined) return type;
    const int p = index.producer(value);
    if (p < 0) return DataType::UInt8;
    const Node &producer = graph.nodes[p];
    if (isOp(producer, "Cast")) return static_cast<DataType>(producer.attrInt("to", int64_t(DataType::UInt8)));
    const int zpInput = outputZeroPointInput(producer);
    if (zpInput < 0) return DataType::UInt8;
    if (!producer.hasInput(zpInput)) return DataType::UInt8;
    type = declaredType(graph, producer.inputs[zpInput]);
    return type == DataType::Undefined ? DataType::UInt8 : type;
}

namespace {

// Shape of a value from its initializer, shape inference or the graph inputs; false when unknown.
bool knownShape(const Graph &graph, const std::string &value, Shape &shape) {
    if (const Tensor *t = graph.initializer(value)) {
        shape = t->shape();
        return true;
    }
    auto it = graph.valueInfo.find(value);
    if (it != graph.valueInfo.end() && it->second.hasShape) {
        shape = it->second.shape;
        return true;
    }
    for (const ValueInfo &v : graph.inputs)
        if (v.name == value && v.hasShape) {
            shape = v.shape;
            return true;
        }
    return false;
}

int64_t dimOf(const Graph &graph, const std::string &value, int64_t axis) {
    Shape shape;
    return knownShape(graph, value, shape) ? shape[axis] : -1;
}

}  // namespace

int rankOf(const Graph &graph, const std::string &value) {
    Shape shape;
    return knownShape(graph, value, shape) ? static_cast<int>(shape.size()) : -1;
}

namespace {

// Quantized type of a Q (its zero point) or DQ (its input) node.
DataType qdqType(const Graph &graph, const GraphIndex &index, const Node &node) {
    const bool isQ = node.opType == "QuantizeLinear";
    DataType zpType = node.hasInput(2) ? declaredType(graph, node.inputs[2]) : DataType::Undefined;
    if (isQ) return zpType == DataType::Undefined ? DataType::UInt8 : zpType;
    DataType xType = declaredType(graph, node.inputs[0]);
    if (xType != DataType::Undefined) return xType;
    if (zpType != DataType::Undefined) return zpType;
    return quantizedTypeOf(graph, index, node.inputs[0]);
}

}  // namespace

Status checkQdqParams(const Graph &graph, const GraphIndex &index, const Node &node) {
    auto fail = [&](const Status &s) { return Status::error(s.kind(), node.describe() + ": " + s.message()); };
    if (!node.hasInput(0) || !node.hasInput(1)) return fail(Status::badInput("needs an input and a scale"));
    const Tensor *scale = graph.initializer(node.inputs[1]);
    const Tensor *zp = node.hasInput(2) ? graph.initializer(node.inputs[2]) : nullptr;
    if (!scale) return Status::ok();  // computed at run time: the kernel checks it
    // Block-wise scales (opset 21) stay with the Q/DQ kernels, which check them.
    if (node.attrInt("block_size", 0) > 0) return Status::ok();
    std::vector<float> scales;
    Status s = quant::readScales(*scale, scales);
    if (!s) return fail(s);
    if (scale->rank() > 1) return fail(Status::badInput("scale must be a scalar or 1-D, got shape " + shapeToString(scale->shape())));
    if (zp) {
        if (zp->numel() != scale->numel())
            return fail(Status::badInput("scale has " + std::to_string(scale->numel()) +
                                         " values but zero point has " + std::to_string(zp->numel())));
        std::vector<int32_t> zps;
        s = quant::readZeroPoints(*zp, qdqType(graph, index, node), zps);
        if (!s) return fail(s);
    }
    if (scale->numel() > 1 || scale->rank() == 1) {
        const int rank = rankOf(graph, node.inputs[0]);
        if (rank >= 0) {
            int64_t axis = 0;
            s = quant::normalizeAxis(node.attrInt("axis", 1), rank, axis);
            if (!s && scale->numel() > 1) return fail(s);
            if (s && scale->numel() > 1) {
                const int64_t dim = dimOf(graph, node.inputs[0], axis);
                if (dim >= 0 && dim != scale->numel())
                    return fail(Status::badInput("scale has " + std::to_string(scale->numel()) +
                                                 " values but axis " + std::to_string(axis) +
                                                 " of the input has " + std::to_string(dim)));
            }
        }
    }
    return Status::ok();
}

Status checkAllQdqParams(const Graph &graph) {
    const GraphIndex index(graph);
    for (const Node &node : graph.nodes)
        if (isOp(node, "QuantizeLinear") || isOp(node, "DequantizeLinear"))
            QL_RETURN_IF_ERROR(checkQdqParams(graph, index, node));
    return Status::ok();
}

bool readQParams(const Graph &graph, const GraphIndex &index, const Node &node, QParamsView &out) {
    const Tensor *scale = node.hasInput(1) ? graph.initializer(node.inputs[1]) : nullptr;
    if (!scale || scale->dtype() != DataType::Float) return false;
    const Tensor *zp = node.hasInput(2) ? graph.initializer(node.inputs[2]) : nullptr;
    if (node.hasInput(2) && !zp) return false;
    out = QParamsView{};
    out.type = qdqType(graph, index, node);
    out.scale = scale->toFloatVector();
    if (zp) {
        for (int64_t v : zp->toInt64Vector()) out.zeroPoint.push_back(static_cast<int32_t>(v));
    } else {
        out.zeroPoint.assign(out.scale.size(), 0);
    }
    if (out.zeroPoint.size() != out.scale.size()) return false;
    if (out.scale.size() > 1) {
        const int rank = rankOf(graph, node.inputs[0]);
        if (rank < 0) return false;
        int64_t axis = node.attrInt("axis", 1);
        if (axis < 0) axis += rank;
        if (axis < 0 || axis >= rank) return false;
        out.axis = axis;
    }
    return true;
}

Tensor dequantize(const Tensor &quantized, const QParamsView &params) {
    return dequantizeToFloat(quantized, params.scale, params.zeroPoint, params.axis);
}

Attribute intAttribute(int64_t value) {
    Attribute a;
    a.kind = Attribute::Kind::Int;
    a.i = value;
    return a;
}

Attribute floatAttribute(float value) {
    Attribute a;
    a.kind = Attribute::Kind::Float;
    a.f = value;
    return a;
}

Attribute stringAttribute(const std::string &value) {
    Attribute a;
    a.kind = Attribute::Kind::String;
    a.s = value;
    return a;
}

}  // namespace ql::qdq

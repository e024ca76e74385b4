#pragma once
// Graph helpers shared by the precision passes (qdq_cleanup, qdq_to_qoperator, qoperator_to_qdq,
// strip_qdq) and the quantizer (quant/): who produces and uses a value, value types, fresh names,
// rewiring, constant Q/DQ parameters.

#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"

namespace ql::qdq {

// Producer and consumers of every value of a graph (node indices into graph.nodes).
class GraphIndex {
public:
    explicit GraphIndex(const Graph &graph);
    int producer(const std::string &value) const;  // -1 for inputs and initializers
    const std::vector<int> &consumers(const std::string &value) const;
    bool isGraphOutput(const std::string &value) const { return m_outputs.count(value) != 0; }

private:
    std::map<std::string, int> m_producer;
    std::map<std::string, std::vector<int>> m_consumers;
    std::set<std::string> m_outputs;
};

// Hands out value and node names that do not clash with anything in the graph.
class NameSource {
public:
    explicit NameSource(const Graph &graph);
    std::string make(const std::string &base);

private:
    std::set<std::string> m_used;
};

bool isOp(const Node &node, const char *opType);  // default ONNX domain only
bool isMicrosoftOp(const Node &node, const char *opType);

// Every input use of `from` now reads `to`. A graph output named `from` is kept alive by an
// Identity node appended to `extraNodes`.
void replaceUses(Graph &graph, const std::string &from, const std::string &to,
                 std::vector<Node> &extraNodes);

// Element type of a value from its initializer, shape inference or the graph inputs; Undefined
// when none of them knows it.
DataType declaredType(const Graph &graph, const std::string &value);
// Element type of a quantized value: its initializer, shape inference, or the zero point of the
// QuantizeLinear / QOperator node that produced it; UInt8 (the ONNX default) when unknown.
DataType quantizedTypeOf(const Graph &graph, const GraphIndex &index, const std::string &value);
// Rank of a value when known (initializer or shape inference), else -1.
int rankOf(const Graph &graph, const std::string &value);

// Checks the constant scale / zero point / axis of a QuantizeLinear or DequantizeLinear node:
// positive finite scales, zero points inside the quantized type, matching lengths, axis in range.
// Message: "DequantizeLinear 'dq1': scale must be positive and finite, got 0 at index 0".
Status checkQdqParams(const Graph &graph, const GraphIndex &index, const Node &node);

// checkQdqParams on every QuantizeLinear / DequantizeLinear node; the first error.
Status checkAllQdqParams(const Graph &graph);

// Constant parameters of one Q/DQ node, read after checkQdqParams.
struct QParamsView {
    std::vector<float> scale;
    std::vector<int32_t> zeroPoint;  // same length as scale (zeros when omitted)
    DataType type = DataType::UInt8;  // quantized element type
    int64_t axis = -1;                // normalised; -1 for per-tensor
    bool perTensor() const { return scale.size() == 1; }
};
// False when the scale or zero point is not a constant (or the axis cannot be resolved).
bool readQParams(const Graph &graph, const GraphIndex &index, const Node &node, QParamsView &out);

// q * scale - zero point as float, per tensor or along `axis` (params already checked).
Tensor dequantize(const Tensor &quantized, const QParamsView &params);

Attribute intAttribute(int64_t value);
Attribute floatAttribute(float value);
Attribute stringAttribute(const std::string &value);

}  // namespace ql::qdq

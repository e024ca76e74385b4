#pragma once
// Internal to the int8 lowering (qdq_to_qoperator.cpp drives, qdq_lowering_patterns.cpp matches
// the patterns): the matched pieces of a DQ -> op -> Q pattern and the rewriting state.

#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/precision_report.h"
#include "passes/qdq_graph_utils.h"
#include "passes/qdq_to_qoperator.h"

namespace ql::lowering {

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
    std::string lowerStandaloneActivation(int i);

    bool dequantized(const std::string &value, Operand &out, std::string &why);
    bool quantizedOutput(const Node &op, QuantizedOutput &out, std::string &why);
    bool constantFloats(const std::string &value, std::vector<float> &out);
    std::string zeroPointInput(const Node &qdqNode, DataType type);
    std::string kernelMissing(const std::string &domain, const std::string &op) const;
    void commit(int opIndex, Node node, const QuantizedOutput &y);
    std::string addInitializer(const std::string &base, Tensor value);
    // The value `dropped` (output of a removed no-op) is now `source`: the producer of `source`
    // takes the name `dropped` when nothing else reads `source`, so taps see the value under the
    // name the reference path gives it; otherwise readers of `dropped` read `source`.
    void forward(const std::string &dropped, const std::string &source);

    Graph &m_graph;
    qdq::GraphIndex m_index;
    qdq::NameSource m_names;
    LoweringOptions m_options;
    std::vector<bool> m_removed;
    std::map<int, Node> m_replacements;      // position of the absorbed Q -> new node
    std::map<int, std::string> m_fusedInto;  // absorbed activation -> report reason
    std::map<std::string, std::string> m_aliases;  // output of a dropped no-op -> its int8 input
};

// Output activation that only a MatMul-family kernel can fuse ("" if none or implicit).
std::string activationNotFusable(const QuantizedOutput &y, const std::string &op);

}  // namespace ql::lowering

#include "passes/precision.h"

#include <set>

#include "passes/qdq_cleanup.h"
#include "passes/qdq_graph_utils.h"
#include "passes/qdq_to_qoperator.h"
#include "passes/qoperator_to_qdq.h"
#include "passes/strip_qdq.h"

namespace ql {

const char *precisionName(Precision precision) {
    switch (precision) {
    case Precision::Fp32: return "fp32";
    case Precision::Int8: return "int8";
    case Precision::Reference: return "reference";
    }
    return "?";
}

bool parsePrecision(const std::string &text, Precision &out) {
    for (Precision p : {Precision::Fp32, Precision::Int8, Precision::Reference})
        if (text == precisionName(p)) {
            out = p;
            return true;
        }
    return false;
}

bool isQuantizedModel(const Graph &graph) {
    static const std::set<std::string> onnx = {"QuantizeLinear", "DequantizeLinear",
        "DynamicQuantizeLinear", "QLinearConv", "QLinearMatMul", "ConvInteger", "MatMulInteger"};
    for (const Node &node : graph.nodes) {
        if (node.domain.empty() && onnx.count(node.opType)) return true;
        if (node.domain == "com.microsoft" &&
            (node.opType == "QGemm" || node.opType.rfind("QLinear", 0) == 0))
            return true;
    }
    return false;
}

Precision defaultPrecision(const Graph &graph) {
    return isQuantizedModel(graph) ? Precision::Int8 : Precision::Fp32;
}

Status preparePrecision(Graph &graph, Precision precision, PrecisionReport *report) {
    if (report) {
        *report = PrecisionReport{};
        report->precision = precisionName(precision);
    }
    if (!isQuantizedModel(graph)) {
        if (report) report->precision = precisionName(Precision::Fp32);  // what actually runs
        return Status::ok();
    }
    QL_RETURN_IF_ERROR(cleanupQdqNoise(graph));
    QL_RETURN_IF_ERROR(qdq::checkAllQdqParams(graph));
    switch (precision) {
    case Precision::Int8: return lowerQdqToQOperator(graph, report);
    case Precision::Reference:
        QL_RETURN_IF_ERROR(expandQOperatorsToQdq(graph));
        foldConstantDequantize(graph);
        return Status::ok();
    case Precision::Fp32:
        QL_RETURN_IF_ERROR(expandQOperatorsToQdq(graph));
        return stripQdq(graph);
    }
    return Status::ok();
}

Status prepareReferenceWithQuantizedWeights(Graph &graph) {
    if (!isQuantizedModel(graph)) return Status::ok();
    QL_RETURN_IF_ERROR(cleanupQdqNoise(graph));
    QL_RETURN_IF_ERROR(qdq::checkAllQdqParams(graph));
    return expandQOperatorsToQdq(graph);
}

}  // namespace ql

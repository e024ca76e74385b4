#include "passes/int8_kernel_mode.h"

#include "kernels/quantization_common.h"
#include "passes/qdq_graph_utils.h"

namespace ql {

const char *int8KernelsName(Int8Kernels mode) { return mode == Int8Kernels::Fast ? "fast" : "exact"; }

bool parseInt8Kernels(const std::string &text, Int8Kernels &out) {
    for (Int8Kernels m : {Int8Kernels::Exact, Int8Kernels::Fast})
        if (text == int8KernelsName(m)) {
            out = m;
            return true;
        }
    return false;
}

int applyInt8Kernels(Graph &graph, Int8Kernels mode) {
    int marked = 0;
    for (Node &node : graph.nodes) {
        const bool matrixOp = (node.domain.empty() && (node.opType == "QLinearConv" || node.opType == "QLinearMatMul")) ||
                              (node.domain == "com.microsoft" && node.opType == "QGemm");
        if (!matrixOp) continue;
        if (mode == Int8Kernels::Fast) {
            node.attributes[quant::kAllowSaturationAttr] = qdq::intAttribute(1);
            ++marked;
        } else {
            node.attributes.erase(quant::kAllowSaturationAttr);
        }
    }
    return marked;
}

}  // namespace ql

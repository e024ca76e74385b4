#include "passes/precision_report.h"

#include <set>

namespace ql {

int PrecisionReport::int8Count() const {
    int n = 0;
    for (const NodePrecision &p : nodes) n += p.int8 ? 1 : 0;
    return n;
}

int PrecisionReport::fallbackCount() const { return static_cast<int>(nodes.size()) - int8Count(); }

std::vector<std::string> PrecisionReport::fallbackOpTypes() const {
    std::set<std::string> ops;
    for (const NodePrecision &p : nodes)
        if (!p.int8) ops.insert(p.opType);
    return {ops.begin(), ops.end()};
}

std::string PrecisionReport::summary() const {
    std::string text = "int8: " + std::to_string(int8Count()) + " nodes, fp32 fallback: " +
                       std::to_string(fallbackCount());
    const std::vector<std::string> ops = fallbackOpTypes();
    if (!ops.empty()) {
        text += " (";
        for (size_t i = 0; i < ops.size(); ++i) text += (i ? ", " : "") + ops[i];
        text += ")";
    }
    return text;
}

}  // namespace ql

#include "onnx_io/shape_preconditions.h"

#include <map>
#include <string>

namespace ql {

namespace {

// Declared ranks: graph inputs and value_info with a shape, initializers by their dims.
std::map<std::string, int> declaredRanks(const onnx::GraphProto &graph) {
    std::map<std::string, int> ranks;
    auto add = [&ranks](const onnx::ValueInfoProto &info) {
        if (info.type().has_tensor_type() && info.type().tensor_type().has_shape())
            ranks[info.name()] = info.type().tensor_type().shape().dim_size();
    };
    for (const auto &info : graph.input()) add(info);
    for (const auto &info : graph.value_info()) add(info);
    for (const auto &info : graph.output()) add(info);
    for (const auto &initializer : graph.initializer())
        ranks[initializer.name()] = initializer.dims_size();
    return ranks;
}

}  // namespace

Status checkShapePreconditions(const onnx::GraphProto &graph) {
    // Ops whose inference is convPoolShapeInference: data input, and weight input (-1: none).
    static const std::map<std::string, std::pair<int, int>> convPool = {
        {"Conv", {0, 1}},          {"ConvInteger", {0, 1}},  {"ConvTranspose", {0, 1}},
        {"QLinearConv", {0, 3}},   {"MaxPool", {0, -1}},     {"AveragePool", {0, -1}},
        {"LpPool", {0, -1}}};
    const std::map<std::string, int> ranks = declaredRanks(graph);
    auto rankOf = [&ranks](const onnx::NodeProto &node, int index) {
        if (index < 0 || index >= node.input_size()) return -1;
        const auto found = ranks.find(node.input(index));
        return found == ranks.end() ? -1 : found->second;
    };
    for (const auto &node : graph.node()) {
        if (!node.domain().empty() && node.domain() != "ai.onnx") continue;
        const auto op = convPool.find(node.op_type());
        if (op == convPool.end()) continue;
        const std::string who = node.op_type() + " '" + node.name() + "'";
        const int data = rankOf(node, op->second.first), weight = rankOf(node, op->second.second);
        if (data >= 0 && data < 3)
            return Status::badInput(who + ": input '" + node.input(op->second.first) + "' has rank " +
                                    std::to_string(data) + ", needs at least 3 (N, C, spatial)");
        if (data >= 0 && weight >= 0 && data != weight)
            return Status::badInput(who + ": input rank " + std::to_string(data) +
                                    " and weight rank " + std::to_string(weight) + " differ");
    }
    return Status::ok();
}

}  // namespace ql

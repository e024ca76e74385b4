#include "passes/fuse_matmul_integer.h"

#include <optional>
#include <vector>

#include "passes/fusion_matching.h"

namespace ql {

namespace {

constexpr int64_t kOnnxFloat = 1;  // TensorProto.FLOAT

// A float constant holding one value or `columns` values (columns < 0: unknown, one value only).
bool floatConstant(const Graph &graph, const std::string &value, int64_t columns) {
    const Tensor *t = graph.initializer(value);
    return t && t->dtype() == DataType::Float &&
           (t->numel() == 1 || (columns > 0 && t->rank() == 1 && t->numel() == columns));
}

// MatMulInteger at `i` and its dequantizing tail, when they fuse (see the header).
std::optional<FusedChain> matchAt(const Graph &graph, const ChainWalker &walk, size_t i) {
    const Node &mm = graph.nodes[i];
    if (mm.opType != "MatMulInteger" || !mm.domain.empty() || mm.inputs.size() < 2)
        return std::nullopt;
    const Tensor *b = graph.initializer(mm.inputs[1]);
    const int64_t columns = b && b->rank() == 2 ? b->dim(1) : -1;
    const auto cast = walk.onlyReader(mm.outputs[0], "Cast");
    if (!cast || graph.nodes[*cast].attrInt("to", 0) != kOnnxFloat) return std::nullopt;
    const std::string &accFloat = graph.nodes[*cast].outputs[0];
    const auto scaled = walk.onlyReader(accFloat, "Mul");
    if (!scaled) return std::nullopt;
    const auto scale = otherOperand(graph.nodes[*scaled], accFloat);
    const int product = scale ? graph.producerIndex(*scale) : -1;
    if (product < 0 || graph.nodes[product].opType != "Mul" ||
        !graph.nodes[product].domain.empty() || graph.nodes[product].inputs.size() != 2)
        return std::nullopt;
    // The product of the dynamic A scale and B's constant one.
    const Node &scales = graph.nodes[product];
    const bool bFirst = floatConstant(graph, scales.inputs[0], columns);
    if (!bFirst && !floatConstant(graph, scales.inputs[1], columns)) return std::nullopt;
    FusedChain chain;
    // The scale product goes too when the fused Mul is its only reader.
    if (walk.onlyReader(scales.outputs[0], "Mul")) chain.nodes.push_back(size_t(product));
    chain.nodes.insert(chain.nodes.end(), {i, *cast, *scaled});
    std::string bias, output = graph.nodes[*scaled].outputs[0];
    if (const auto add = walk.onlyReader(output, "Add")) {
        const auto operand = otherOperand(graph.nodes[*add], output);
        if (operand && columns > 0 && floatConstant(graph, *operand, columns) &&
            graph.initializer(*operand)->numel() == columns) {
            bias = *operand;
            output = graph.nodes[*add].outputs[0];
            chain.nodes.push_back(*add);
        }
    }
    Node &fused = chain.fused;
    fused.opType = "MatMulIntegerToFloat";
    fused.domain = "com.microsoft";
    fused.inputs = {mm.inputs[0], mm.inputs[1], scales.inputs[bFirst ? 1 : 0],
                    scales.inputs[bFirst ? 0 : 1], mm.inputs.size() > 2 ? mm.inputs[2] : "",
                    mm.inputs.size() > 3 ? mm.inputs[3] : "", bias};
    while (!fused.inputs.empty() && fused.inputs.back().empty()) fused.inputs.pop_back();
    fused.outputs = {output};
    return chain;
}

}  // namespace

int fuseMatMulIntegerToFloat(Graph &graph, const std::set<std::string> &keepVisible) {
    const ChainWalker walk(graph, keepVisible);
    return fuseChains(graph, [&](size_t first) { return matchAt(graph, walk, first); });
}

}  // namespace ql

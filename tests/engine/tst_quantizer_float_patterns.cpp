// LayerNorm and GELU as exporters write them before opsets 17 and 20 (nine and five nodes) are
// quantized as units: their inner nodes stay float with a reason that names the pattern, no
// Q/DQ lands on an inner value (quantizing the variance or the erf costs accuracy), the layers
// around them are int8, and the int8 plan then runs each as one fused LayerNormalization / Gelu.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "passes/precision.h"
#include "quant/qdq_builder.h"
#include "quant/quantization_plan.h"
#include "quantizer_test_support.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

const int64_t kTokens = 6, kWidth = 16, kHidden = 32;

Tensor floatScalar(float v) {
    Tensor t(DataType::Float, {});
    t.data<float>()[0] = v;
    return t;
}

struct Block {
    Graph graph;
    std::set<std::string> gelu, layerNorm;  // inner node names
};

// x -> MatMul -> GELU (Div sqrt2, Erf, Add 1, Mul x, Mul 0.5) -> MatMul -> Add x -> LayerNorm
// (ReduceMean, Sub, Pow, ReduceMean, Add eps, Sqrt, Div, Mul gamma, Add beta) -> y: one MLP
// block of a transformer as torch.onnx.export writes it at opset 13.
Block mlpBlock() {
    Block b;
    Graph &g = b.graph;
    g.opsetVersion = 13;
    ValueInfo x;
    x.name = "x";
    x.dtype = DataType::Float;
    x.shape = {2, kTokens, kWidth};
    x.hasShape = true;
    g.inputs.push_back(x);
    g.valueInfo["x"] = x;
    g.initializers["w1"] = randomTensor({kWidth, kHidden}, 1, -0.4f, 0.4f);
    g.initializers["w2"] = randomTensor({kHidden, kWidth}, 2, -0.3f, 0.3f);
    g.initializers["sqrt2"] = floatScalar(std::sqrt(2.0f));
    g.initializers["one"] = floatScalar(1.0f);
    g.initializers["half"] = floatScalar(0.5f);
    g.initializers["two"] = floatScalar(2.0f);
    g.initializers["eps"] = floatScalar(1e-5f);
    g.initializers["gamma"] = randomTensor({kWidth}, 3, 0.5f, 1.5f);
    g.initializers["beta"] = randomTensor({kWidth}, 4);
    auto add = [&](const std::string &op, const std::string &name, std::vector<std::string> ins,
                   const std::string &out, std::set<std::string> *pattern = nullptr) {
        Node n;
        n.opType = op;
        n.name = name;
        n.inputs = std::move(ins);
        n.outputs = {out};
        g.nodes.push_back(n);
        if (pattern) pattern->insert(name);
        return &g.nodes.back();
    };
    add("MatMul", "fc1", {"x", "w1"}, "h");
    add("Div", "gelu/Div", {"h", "sqrt2"}, "h1", &b.gelu);
    add("Erf", "gelu/Erf", {"h1"}, "h2", &b.gelu);
    add("Add", "gelu/Add", {"h2", "one"}, "h3", &b.gelu);
    add("Mul", "gelu/Mul", {"h", "h3"}, "h4", &b.gelu);
    add("Mul", "gelu/Mul_1", {"h4", "half"}, "a", &b.gelu);
    add("MatMul", "fc2", {"a", "w2"}, "f");
    add("Add", "residual", {"f", "x"}, "r");
    add("ReduceMean", "norm/ReduceMean", {"r"}, "m", &b.layerNorm)->attributes["axes"] =
        intsAttr({-1});
    add("Sub", "norm/Sub", {"r", "m"}, "d", &b.layerNorm);
    add("Pow", "norm/Pow", {"d", "two"}, "p", &b.layerNorm);
    add("ReduceMean", "norm/ReduceMean_1", {"p"}, "v", &b.layerNorm)->attributes["axes"] =
        intsAttr({-1});
    add("Add", "norm/Add", {"v", "eps"}, "ve", &b.layerNorm);
    add("Sqrt", "norm/Sqrt", {"ve"}, "s", &b.layerNorm);
    add("Div", "norm/Div", {"d", "s"}, "n", &b.layerNorm);
    add("Mul", "norm/Mul", {"n", "gamma"}, "ng", &b.layerNorm);
    add("Add", "norm/Add_1", {"ng", "beta"}, "y", &b.layerNorm);
    ValueInfo y;
    y.name = "y";
    g.outputs.push_back(y);
    return b;
}

int countOps(const Graph &g, const std::string &op) {
    int n = 0;
    for (const Node &node : g.nodes) n += node.opType == op;
    return n;
}

TEST(QuantizerFloatPatterns, LayerNormAndGeluStayFloatUnits) {
    const Block block = mlpBlock();
    const Tensor x = randomTensor({2, kTokens, kWidth}, 7, -2.0f, 2.0f);
    auto result = quant::quantizeGraph(block.graph, minMaxRanges(block.graph, "x", x), {});
    ASSERT_TRUE(result.isOk()) << result.status().message();
    const quant::QuantizationPlan &plan = result.value().plan;
    const Graph &q = result.value().model;

    for (const char *name : {"fc1", "fc2", "residual"})
        EXPECT_EQ(plan.decision(name)->precision, quant::Precision::Int8) << name;
    for (const std::string &name : block.gelu) {
        EXPECT_EQ(plan.decision(name)->precision, quant::Precision::Fp32) << name;
        EXPECT_EQ(plan.decision(name)->reason,
                  "part of a GELU (Mul 'gelu/Mul_1' ends it): runs in float as one Gelu")
            << name;
    }
    for (const std::string &name : block.layerNorm) {
        EXPECT_EQ(plan.decision(name)->precision, quant::Precision::Fp32) << name;
        EXPECT_NE(plan.decision(name)->reason.find("part of a LayerNorm (Add 'norm/Add_1' ends it)"),
                  std::string::npos)
            << name << ": " << plan.decision(name)->reason;
    }
    // No inner value is quantized: only the block's own activations are.
    for (const char *inner : {"h1", "h2", "h3", "h4", "m", "d", "p", "v", "ve", "s", "n", "ng"})
        EXPECT_EQ(plan.activations.count(inner), 0u) << inner;
    EXPECT_EQ(plan.activations.count("a"), 1u);  // fc2's input, quantized where fc2 reads it

    // The int8 plan runs each pattern as one node between a DequantizeLinear and a
    // QuantizeLinear (or the graph output).
    Graph lowered = q;
    ASSERT_TRUE(preparePrecision(lowered, Precision::Int8).isOk());
    auto int8Plan = ExecutionPlan::create(lowered, PlanOptions{2, true});
    ASSERT_TRUE(int8Plan.isOk()) << int8Plan.status().message();
    const Graph &planned = (*int8Plan)->graph();
    EXPECT_EQ(countOps(planned, "LayerNormalization"), 1);
    EXPECT_EQ(countOps(planned, "Gelu"), 1);
    EXPECT_EQ(countOps(planned, "Erf"), 0);
    EXPECT_EQ(countOps(planned, "ReduceMean"), 0);

    // And it computes the float block closely: int8 matmuls and the residual, float patterns.
    std::vector<Tensor> outputs;
    ASSERT_TRUE((*int8Plan)->run({{"x", x}}, outputs).isOk());
    const auto reference = runGraph(block.graph, {{"x", x}});
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_GT(sqnrDb(reference[0], outputs[0]), 25.0);
}

}  // namespace

// graph_diff: nodes paired by name are unchanged only when op, attributes, wiring and constant
// contents are equal; downstream closure; a subgraph fed at the cut computes what the whole
// graph computes.
#include <gtest/gtest.h>

#include "analysis/session/graph_diff.h"
#include "qdq_test_graphs.h"

using namespace ql;
using namespace ql::analysis;
using namespace ql::test;

namespace {

// x -> Relu a -> Mul b (by w) -> Add c (+ x) -> Relu d -> out
QdqBuilder chain() {
    QdqBuilder g;
    g.input("x", randomTensor({2, 3}, 1));
    g.node("Relu", "a", {"x"}, {"va"});
    g.node("Mul", "b", {"va", g.init("w", randomTensor({2, 3}, 2))}, {"vb"});
    g.node("Add", "c", {"vb", "x"}, {"vc"});
    g.node("Relu", "d", {"vc"}, {"out"});
    g.output("out");
    return g;
}

std::vector<bool> flags(std::initializer_list<int> values) {
    std::vector<bool> out;
    for (int v : values) out.push_back(v != 0);
    return out;
}

}  // namespace

TEST(GraphDiff, ChangedNodesComparesWiringAttributesAndConstants) {
    const QdqBuilder before = chain();
    EXPECT_EQ(changedNodes(before.g, before.g), flags({0, 0, 0, 0}));

    QdqBuilder sameContent = chain();  // equal tensors in other storage
    EXPECT_EQ(changedNodes(before.g, sameContent.g), flags({0, 0, 0, 0}));

    QdqBuilder newWeight = chain();
    newWeight.g.initializers["w"] = randomTensor({2, 3}, 3);
    EXPECT_EQ(changedNodes(before.g, newWeight.g), flags({0, 1, 0, 0}));

    QdqBuilder newAttribute = chain();
    mutableNode(newAttribute.g, "d").attributes["alpha"] = floatAttr(0.5f);
    EXPECT_EQ(changedNodes(before.g, newAttribute.g), flags({0, 0, 0, 1}));

    QdqBuilder rewired = chain();
    mutableNode(rewired.g, "c").inputs = {"vb", "va"};
    EXPECT_EQ(changedNodes(before.g, rewired.g), flags({0, 0, 1, 0}));

    QdqBuilder renamed = chain();
    mutableNode(renamed.g, "a").name = "a2";
    EXPECT_EQ(changedNodes(before.g, renamed.g), flags({1, 0, 0, 0}));
}

TEST(GraphDiff, DownstreamAndSubgraphAtTheCut) {
    QdqBuilder g = chain();
    EXPECT_EQ(downstreamOf(g.g, flags({0, 1, 0, 0})), flags({0, 1, 1, 1}));
    EXPECT_EQ(downstreamOf(g.g, flags({0, 0, 0, 1})), flags({0, 0, 0, 1}));
    EXPECT_EQ(downstreamOf(g.g, flags({1, 0, 0, 0})), flags({1, 1, 1, 1}));

    const std::vector<bool> keep = flags({0, 1, 1, 1});
    Subgraph sub = extractSubgraph(g.g, keep, [](const std::string &) { return DataType::Float; });
    EXPECT_EQ(sub.inputs, (std::vector<std::string>{"va", "x"}));
    ASSERT_EQ(sub.graph.nodes.size(), 3u);
    ASSERT_EQ(sub.graph.outputs.size(), 1u);
    EXPECT_EQ(sub.graph.outputs[0].name, "out");
    EXPECT_TRUE(sub.graph.isInitializer("w"));

    // Fed the value at the cut, the subgraph gives the whole graph's output.
    const auto whole = run(g.g, g.feeds);
    Tensor va = g.feeds["x"].clone();
    for (int64_t i = 0; i < va.numel(); ++i)
        va.data<float>()[i] = std::max(0.0f, va.data<float>()[i]);
    const auto part = run(sub.graph, {{"va", va}, {"x", g.feeds["x"]}});
    ASSERT_EQ(whole.size(), 1u);
    ASSERT_EQ(part.size(), 1u);
    EXPECT_EQ(maxAbsDiff(whole[0], part[0]), 0.0);
}

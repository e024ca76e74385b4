// --int8-kernels exact|fast: the pass that marks the int8 matrix nodes, and what the mark does to
// a QLinearConv whose full-range data saturate oneDNN's int16 pair sums on CPUs without VNNI.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "kernels/quantization_common.h"
#include "passes/int8_kernel_mode.h"
#include "test_support.h"

namespace ql::test {
namespace {

Tensor uniformInts(DataType type, const Shape &shape, unsigned seed, int lo, int hi) {
    Tensor t(type, shape);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(lo, hi);
    for (int64_t i = 0; i < t.numel(); ++i) {
        if (type == DataType::UInt8)
            t.data<uint8_t>()[i] = static_cast<uint8_t>(dist(rng));
        else
            t.data<int8_t>()[i] = static_cast<int8_t>(dist(rng));
    }
    return t;
}

TEST(Int8KernelMode, ParsesTheTwoModes) {
    Int8Kernels mode = Int8Kernels::Fast;
    ASSERT_TRUE(parseInt8Kernels("exact", mode));
    EXPECT_EQ(mode, Int8Kernels::Exact);
    ASSERT_TRUE(parseInt8Kernels("fast", mode));
    EXPECT_EQ(mode, Int8Kernels::Fast);
    EXPECT_FALSE(parseInt8Kernels("saturating", mode));
    EXPECT_EQ(mode, Int8Kernels::Fast);  // unchanged on failure
    EXPECT_STREQ(int8KernelsName(Int8Kernels::Exact), "exact");
}

TEST(Int8KernelMode, MarksOnlyTheMatrixNodes) {
    Graph graph;
    graph.nodes.push_back(makeNode("QLinearConv"));
    graph.nodes.push_back(makeNode("QLinearMatMul"));
    Node gemm = makeNode("QGemm");
    gemm.domain = "com.microsoft";
    graph.nodes.push_back(gemm);
    Node add = makeNode("QLinearAdd");
    add.domain = "com.microsoft";
    graph.nodes.push_back(add);
    Node foreignConv = makeNode("QLinearConv");
    foreignConv.domain = "example.other";
    graph.nodes.push_back(foreignConv);

    EXPECT_EQ(applyInt8Kernels(graph, Int8Kernels::Fast), 3);
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(graph.nodes[i].hasAttribute(quant::kAllowSaturationAttr)) << i;
        EXPECT_EQ(graph.nodes[i].attrInt(quant::kAllowSaturationAttr, 0), 1);
    }
    EXPECT_FALSE(graph.nodes[3].hasAttribute(quant::kAllowSaturationAttr));
    EXPECT_FALSE(graph.nodes[4].hasAttribute(quant::kAllowSaturationAttr));
    EXPECT_EQ(applyInt8Kernels(graph, Int8Kernels::Exact), 0);
    for (const Node &node : graph.nodes) EXPECT_FALSE(node.hasAttribute(quant::kAllowSaturationAttr));
}

// x in [200, 255] and same-sign weights in [100, 127]: every pair of adjacent input channels sums
// to more than 32767 in int16. Exact must match a naive integer loop; fast saturates without
// VNNI (far from exact) and is identical to exact with VNNI.
TEST(Int8KernelMode, FastSaturatesOnlyWithoutVnniAndExactMatchesNaiveLoop) {
    const int64_t c = 16, m = 8, h = 5, w = 5;
    const Tensor x = uniformInts(DataType::UInt8, {1, c, h, w}, 7, 200, 255);
    const Tensor wt = uniformInts(DataType::Int8, {m, c, 3, 3}, 8, 100, 127);
    const float xs = 0.02f, ws = 0.01f, ys = 20.0f;  // exact outputs around 40 of 255
    const int yzp = 0;
    std::vector<Tensor> in{x, Tensor::scalar<float>(xs), Tensor::scalar<uint8_t>(0),
                           wt, Tensor::scalar<float>(ws), Tensor::scalar<int8_t>(0),
                           Tensor::scalar<float>(ys), Tensor::scalar<uint8_t>(static_cast<uint8_t>(yzp))};
    const std::vector<bool> constants{false, true, true, true, true, true, true, true};
    Graph graph;
    graph.nodes.push_back(makeNode("QLinearConv", {{"pads", intsAttr({1, 1, 1, 1})}}));
    Graph fastGraph = graph;
    applyInt8Kernels(graph, Int8Kernels::Exact);
    applyInt8Kernels(fastGraph, Int8Kernels::Fast);
    const SingleNodeRun exact = runSingleNode(graph.nodes[0], in, 1, constants);
    const SingleNodeRun fast = runSingleNode(fastGraph.nodes[0], in, 1, constants);
    ASSERT_TRUE(exact.status.isOk()) << exact.status.message();
    ASSERT_TRUE(fast.status.isOk()) << fast.status.message();
    ASSERT_EQ(exact.outputs[0].numel(), m * h * w);

    int maxExactError = 0, maxFastDiff = 0;
    for (int64_t o = 0; o < m; ++o)
        for (int64_t oy = 0; oy < h; ++oy)
            for (int64_t ox = 0; ox < w; ++ox) {
                int64_t acc = 0;
                for (int64_t ci = 0; ci < c; ++ci)
                    for (int64_t ky = 0; ky < 3; ++ky)
                        for (int64_t kx = 0; kx < 3; ++kx) {
                            const int64_t iy = oy + ky - 1, ix = ox + kx - 1;
                            if (iy < 0 || ix < 0 || iy >= h || ix >= w) continue;
                            acc += int64_t(x.data<uint8_t>()[(ci * h + iy) * w + ix]) *
                                   wt.data<int8_t>()[((o * c + ci) * 3 + ky) * 3 + kx];
                        }
                const float q = std::nearbyint(float(acc) * (xs * ws / ys)) + yzp;
                const int want = int(std::min(255.0f, std::max(0.0f, q)));
                const int64_t at = (o * h + oy) * w + ox;
                const int e = exact.outputs[0].data<uint8_t>()[at];
                const int f = fast.outputs[0].data<uint8_t>()[at];
                maxExactError = std::max(maxExactError, std::abs(e - want));
                maxFastDiff = std::max(maxFastDiff, std::abs(f - e));
            }
    EXPECT_LE(maxExactError, 1);
    if (quant::cpuHasExactInt8Dot())
        EXPECT_EQ(maxFastDiff, 0) << "with VNNI fast and exact are the same arithmetic";
    else
        EXPECT_GT(maxFastDiff, 5) << "without VNNI the fast kernels saturate int16 pair sums";
}

}  // namespace
}  // namespace ql::test

// Plans move between threads: the GUI builds and runs them on its job pool, the session re-runs
// them on whichever worker is free, the calibration lab and the latency measurement run plans
// at the same time. oneDNN's default scratchpad is shared per creating thread (its guide: a
// primitive executed on another thread than the one that created it "will result in
// segmentation fault"), so every primitive must take its scratchpad from the caller.
#include <gtest/gtest.h>

#include <thread>

#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

// The same kernels on the same inputs: equal up to a summation order oneDNN may pick per run.
constexpr double kRtol = 1e-5, kAtol = 1e-7;

// Convolutions (one input channel, direct, 1x1, strided, transposed), a MatMul with a long
// reduction, pooling and Softmax: primitives of which several book a scratchpad on every ISA.
Graph scratchpadHeavyGraph() {
    Graph g;
    g.inputs.push_back(floatValueInfo("x", {2, 1, 28, 28}));
    g.initializers["w0"] = randomTensor({24, 1, 5, 5}, 6, -0.2f, 0.2f);
    g.initializers["w1"] = randomTensor({32, 24, 3, 3}, 1, -0.2f, 0.2f);
    g.initializers["w2"] = randomTensor({48, 32, 1, 1}, 2, -0.2f, 0.2f);
    g.initializers["w3"] = randomTensor({48, 48, 5, 5}, 3, -0.05f, 0.05f);
    g.initializers["wt"] = randomTensor({48, 16, 2, 2}, 4, -0.2f, 0.2f);
    g.initializers["shape"] = ints({2, -1});
    g.initializers["wm"] = randomTensor({16 * 28 * 28, 10}, 5, -0.01f, 0.01f);
    addNode(g, "Conv", "conv0", {"x", "w0"}, {"c0"}, {{"pads", intsAttr({2, 2, 2, 2})}});
    addNode(g, "Conv", "conv1", {"c0", "w1"}, {"c1"}, {{"pads", intsAttr({1, 1, 1, 1})}});
    addNode(g, "Conv", "conv2", {"c1", "w2"}, {"c2"});
    addNode(g, "Conv", "conv3", {"c2", "w3"}, {"c3"},
            {{"pads", intsAttr({2, 2, 2, 2})}, {"strides", intsAttr({2, 2})}});
    addNode(g, "ConvTranspose", "up", {"c3", "wt"}, {"u"}, {{"strides", intsAttr({2, 2})}});
    addNode(g, "MaxPool", "pool", {"u"}, {"p"},
            {{"kernel_shape", intsAttr({3, 3})}, {"pads", intsAttr({1, 1, 1, 1})}});
    addNode(g, "Reshape", "flat", {"p", "shape"}, {"f"});
    addNode(g, "MatMul", "fc", {"f", "wm"}, {"logits"});
    addNode(g, "Softmax", "softmax", {"logits"}, {"y"}, {{"axis", intAttr(-1)}});
    g.outputs.push_back(floatValueInfo("y", {2, 10}));
    return g;
}

Tensor runOn(ExecutionPlan &plan, const Tensor &x) {
    std::vector<Tensor> out;
    std::thread worker([&] { EXPECT_TRUE(plan.run({{"x", x}}, out).isOk()); });
    worker.join();
    return out.empty() ? Tensor() : out[0];
}

}  // namespace

// The primitives are made on the first run's thread; later runs each come on a new thread.
TEST(PlanThreads, APlanRunsOnThreadsOtherThanTheOneThatBuiltIt) {
    auto plan = ExecutionPlan::create(scratchpadHeavyGraph());
    ASSERT_TRUE(plan) << plan.status().message();
    const Tensor x = randomTensor({2, 1, 28, 28}, 9);
    const Tensor first = runOn(**plan, x);
    ASSERT_TRUE(first.defined());
    for (int i = 0; i < 3; ++i) {
        const Tensor again = runOn(**plan, x);
        ASSERT_TRUE(again.defined());
        std::string why;
        EXPECT_TRUE(allClose(again, first, kRtol, kAtol, &why)) << "run " << i << ": " << why;
    }
}

// Two plans of the same graph built on one thread, then run at the same time on two others.
TEST(PlanThreads, TwoPlansRunConcurrentlyOnOtherThreads) {
    auto a = ExecutionPlan::create(scratchpadHeavyGraph());
    auto b = ExecutionPlan::create(scratchpadHeavyGraph());
    ASSERT_TRUE(a && b);
    const Tensor x = randomTensor({2, 1, 28, 28}, 10);
    const Tensor reference = runOn(**a, x);
    ASSERT_TRUE(runOn(**b, x).defined());
    for (int round = 0; round < 4; ++round) {
        std::vector<Tensor> outA, outB;
        std::thread ta([&] { EXPECT_TRUE((*a)->run({{"x", x}}, outA).isOk()); });
        std::thread tb([&] { EXPECT_TRUE((*b)->run({{"x", x}}, outB).isOk()); });
        ta.join();
        tb.join();
        ASSERT_EQ(outA.size(), 1u);
        ASSERT_EQ(outB.size(), 1u);
        std::string why;
        EXPECT_TRUE(allClose(outA[0], reference, kRtol, kAtol, &why)) << round << ": " << why;
        EXPECT_TRUE(allClose(outB[0], reference, kRtol, kAtol, &why)) << round << ": " << why;
    }
}

// The execution plan: ordering, input checks, taps, cancellation, buffer reuse and errors.

#include <gtest/gtest.h>

#include <atomic>

#include "core/stop_token.h"
#include "runtime/buffer_pool.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;

namespace {

Node makeNode(const std::string &op, const std::string &name, std::vector<std::string> in,
              std::vector<std::string> out) {
    Node n;
    n.opType = op;
    n.name = name;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    return n;
}

ValueInfo floatInput(const std::string &name, Shape shape) {
    ValueInfo x;
    x.name = name;
    x.dtype = DataType::Float;
    x.hasShape = true;
    x.shape = std::move(shape);
    return x;
}

// x -> Relu -> a -> Neg -> b -> Add(b, x) -> y ; a long-enough chain to exercise buffer reuse.
Graph chainGraph() {
    Graph g;
    g.opsetVersion = 17;
    ValueInfo x = floatInput("x", {-1, 4});
    x.dimNames = {"batch", ""};
    g.inputs.push_back(x);
    g.nodes.push_back(makeNode("Relu", "relu", {"x"}, {"a"}));
    g.nodes.push_back(makeNode("Neg", "neg", {"a"}, {"b"}));
    g.nodes.push_back(makeNode("Add", "add", {"b", "x"}, {"y"}));
    ValueInfo y;
    y.name = "y";
    g.outputs.push_back(y);
    return g;
}

}  // namespace

TEST(ExecutionPlan, RunsAChainAndIsReusable) {
    auto plan = ExecutionPlan::create(chainGraph());
    ASSERT_TRUE(plan.isOk()) << plan.status().message();
    for (int batch : {1, 3, 1}) {  // batch size comes from the input
        const Tensor x = test::randomTensor({batch, 4}, batch);
        std::vector<Tensor> outputs;
        ASSERT_TRUE(plan.value()->run({{"x", x}}, outputs).isOk());
        ASSERT_EQ(outputs.size(), 1u);
        ASSERT_EQ(outputs[0].shape(), (Shape{batch, 4}));
        for (int64_t i = 0; i < x.numel(); ++i) {
            const float v = x.data<float>()[i];
            EXPECT_FLOAT_EQ(outputs[0].data<float>()[i], -std::max(v, 0.0f) + v);
        }
    }
}

TEST(ExecutionPlan, PoolStopsGrowingAfterTheFirstRun) {
    auto plan = ExecutionPlan::create(chainGraph());
    ASSERT_TRUE(plan.isOk());
    const Tensor x = test::randomTensor({64, 4}, 1);
    std::vector<Tensor> outputs;
    ASSERT_TRUE(plan.value()->run({{"x", x}}, outputs).isOk());
    const size_t afterFirst = plan.value()->pooledBytes();
    EXPECT_GT(afterFirst, 0u);
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(plan.value()->run({{"x", x}}, outputs).isOk());
    EXPECT_EQ(plan.value()->pooledBytes(), afterFirst);
    // 'a' is dead once 'b' exists, so three intermediates never need three buffers.
    EXPECT_LE(afterFirst, 2 * x.byteSize());
}

TEST(ExecutionPlan, TapsSeeEveryNodeOutputInOrder) {
    auto plan = ExecutionPlan::create(chainGraph());
    ASSERT_TRUE(plan.isOk());
    const Tensor x = test::randomTensor({2, 4}, 5);
    std::vector<std::string> seen;
    Tensor tappedRelu;
    RunOptions options;
    options.tap = [&](const Node &node, size_t output, const Tensor &value) {
        seen.push_back(node.name + ":" + std::to_string(output));
        if (node.name == "relu") tappedRelu = value.clone();
    };
    std::vector<Tensor> outputs;
    ASSERT_TRUE(plan.value()->run({{"x", x}}, outputs, options).isOk());
    EXPECT_EQ(seen, (std::vector<std::string>{"relu:0", "neg:0", "add:0"}));
    for (int64_t i = 0; i < x.numel(); ++i)
        EXPECT_FLOAT_EQ(tappedRelu.data<float>()[i], std::max(x.data<float>()[i], 0.0f));

    seen.clear();
    options.tapFilter = [](const Node &node) { return node.opType == "Neg"; };
    ASSERT_TRUE(plan.value()->run({{"x", x}}, outputs, options).isOk());
    EXPECT_EQ(seen, (std::vector<std::string>{"neg:0"}));
}

// Node by node: one node per step, taps as the nodes run, the outputs of run(); two plans
// interleave on one thread; a failed step ends the run; start() abandons a run left open.
TEST(ExecutionPlan, StepsRunOneNodeAtATimeAndInterleave) {
    auto first = ExecutionPlan::create(chainGraph());
    auto second = ExecutionPlan::create(chainGraph());
    ASSERT_TRUE(first && second);
    const Tensor x = test::randomTensor({3, 4}, 7), other = test::randomTensor({3, 4}, 8);
    std::vector<Tensor> expected, expectedOther;
    ASSERT_TRUE((*first)->run({{"x", x}}, expected).isOk());
    ASSERT_TRUE((*first)->run({{"x", other}}, expectedOther).isOk());

    std::vector<std::string> seen;
    RunOptions options;
    options.tap = [&](const Node &node, size_t, const Tensor &) { seen.push_back(node.name); };
    ASSERT_TRUE((*first)->start({{"x", x}}, options).isOk());
    ASSERT_TRUE((*second)->start({{"x", other}}).isOk());
    const std::vector<std::string> order{"relu", "neg", "add"};
    for (size_t n = 0; n < order.size(); ++n) {
        auto stepped = (*first)->step();
        ASSERT_TRUE(stepped && *stepped);
        EXPECT_EQ(seen, std::vector<std::string>(order.begin(), order.begin() + n + 1));
        ASSERT_TRUE((*second)->step().isOk());  // the other plan in between
    }
    auto done = (*first)->step();
    ASSERT_TRUE(done);
    EXPECT_FALSE(*done);
    std::vector<Tensor> outputs, outputsOther;
    ASSERT_TRUE((*first)->finish(outputs).isOk());
    ASSERT_TRUE((*second)->finish(outputsOther).isOk());
    EXPECT_EQ(seen, order);
    ASSERT_EQ(outputs.size(), 1u);
    ASSERT_EQ(outputsOther.size(), 1u);
    for (int64_t i = 0; i < x.numel(); ++i) {
        EXPECT_EQ(outputs[0].data<float>()[i], expected[0].data<float>()[i]);
        EXPECT_EQ(outputsOther[0].data<float>()[i], expectedOther[0].data<float>()[i]);
    }

    // No run open: nothing to step, nothing to finish.
    auto idle = (*first)->step();
    ASSERT_TRUE(idle);
    EXPECT_FALSE(*idle);
    EXPECT_FALSE((*first)->finish(outputs).isOk());

    // A failed step (Cancel) ends the run; a new start() runs from the first node again.
    std::atomic<bool> stop{true};
    {
        StopScope scope(&stop);
        ASSERT_TRUE((*first)->start({{"x", x}}).isOk());
        auto cancelled = (*first)->step();
        ASSERT_FALSE(cancelled);
        EXPECT_EQ(cancelled.status().kind(), ErrorKind::Cancelled);
        EXPECT_FALSE((*first)->finish(outputs).isOk());
    }
    seen.clear();
    ASSERT_TRUE((*first)->start({{"x", other}}, options).isOk());
    ASSERT_TRUE((*first)->step().isOk());
    ASSERT_TRUE((*first)->start({{"x", x}}, options).isOk());  // abandons the open run
    ASSERT_TRUE((*first)->finish(outputs).isOk());
    EXPECT_EQ(seen, (std::vector<std::string>{"relu", "relu", "neg", "add"}));
    for (int64_t i = 0; i < x.numel(); ++i)
        EXPECT_EQ(outputs[0].data<float>()[i], expected[0].data<float>()[i]);
}

TEST(ExecutionPlan, ProgressCanCancel) {
    auto plan = ExecutionPlan::create(chainGraph());
    ASSERT_TRUE(plan.isOk());
    RunOptions options;
    int calls = 0;
    options.progress = [&](int done, int total) {
        EXPECT_EQ(total, 3);
        return ++calls < 2;
    };
    std::vector<Tensor> outputs;
    const Status s = plan.value()->run({{"x", test::randomTensor({1, 4}, 1)}}, outputs, options);
    EXPECT_EQ(s.kind(), ErrorKind::Cancelled);
    EXPECT_EQ(calls, 2);
}

TEST(ExecutionPlan, StopFlagOfTheThreadStopsTheRunAtTheNextNode) {
    auto plan = ExecutionPlan::create(chainGraph());
    ASSERT_TRUE(plan.isOk());
    std::atomic<bool> stop{false};
    StopScope scope(&stop);
    RunOptions options;
    std::vector<std::string> ran;
    options.tap = [&](const Node &node, size_t, const Tensor &) {
        ran.push_back(node.name);
        if (node.name == "relu") stop = true;  // as if Cancel came while relu ran
    };
    std::vector<Tensor> outputs;
    const Status s = plan.value()->run({{"x", test::randomTensor({1, 4}, 1)}}, outputs, options);
    EXPECT_EQ(s.kind(), ErrorKind::Cancelled);
    EXPECT_EQ(ran, std::vector<std::string>{"relu"});
    // Reusable afterwards, and a scope ends with the flag it replaced.
    stop = false;
    ASSERT_TRUE(plan.value()->run({{"x", test::randomTensor({1, 4}, 1)}}, outputs).isOk());
    {
        std::atomic<bool> other{true};
        StopScope inner(&other);
        EXPECT_TRUE(stopRequested());
        EXPECT_EQ(ExecutionPlan::create(chainGraph()).status().kind(), ErrorKind::Cancelled);
    }
    EXPECT_FALSE(stopRequested());
    EXPECT_EQ(currentStopFlag(), &stop);
}

TEST(ExecutionPlan, InputErrorsAreClear) {
    auto plan = ExecutionPlan::create(chainGraph());
    ASSERT_TRUE(plan.isOk());
    std::vector<Tensor> outputs;
    Status missing = plan.value()->run({}, outputs);
    EXPECT_EQ(missing.kind(), ErrorKind::BadInput);
    EXPECT_EQ(missing.message(), "missing input 'x'");

    Status shape = plan.value()->run({{"x", test::randomTensor({2, 5}, 1)}}, outputs);
    EXPECT_EQ(shape.kind(), ErrorKind::BadInput);
    EXPECT_EQ(shape.message(), "input 'x': expected shape [batch,4], got [2,5]");

    Status type = plan.value()->run({{"x", Tensor(DataType::Int64, {2, 4})}}, outputs);
    EXPECT_EQ(type.message(), "input 'x': expected float32, got int64");

    Status extra =
        plan.value()->run({{"x", test::randomTensor({2, 4}, 1)}, {"z", Tensor()}}, outputs);
    EXPECT_EQ(extra.message(), "model has no input named 'z'");
}

TEST(ExecutionPlan, UnsupportedOpNamesOpNodeAndOpset) {
    Graph g = chainGraph();
    g.nodes.push_back(makeNode("FancyOp", "fancy_1", {"y"}, {"z"}));
    auto plan = ExecutionPlan::create(g);
    ASSERT_FALSE(plan.isOk());
    EXPECT_EQ(plan.status().kind(), ErrorKind::Unsupported);
    EXPECT_EQ(plan.status().message(), "unsupported op FancyOp (node 'fancy_1', opset 17)");
}

TEST(ExecutionPlan, UndefinedValueIsRejectedAtBuildTime) {
    Graph g = chainGraph();
    g.nodes[1].inputs[0] = "nowhere";
    auto plan = ExecutionPlan::create(g);
    ASSERT_FALSE(plan.isOk());
    EXPECT_EQ(plan.status().message(), "Neg 'neg': input 'nowhere' is not produced by any node");
}

// A tap may keep a value without copying it: the pool never hands out storage that is still
// referenced, so later nodes and later runs cannot overwrite it.
TEST(ExecutionPlan, KeptTapValuesAreNeverOverwritten) {
    auto plan = ExecutionPlan::create(chainGraph());
    ASSERT_TRUE(plan.isOk()) << plan.status().message();
    const Tensor x1 = test::randomTensor({2, 4}, 11), x2 = test::randomTensor({2, 4}, 12);
    Tensor kept;
    RunOptions keep;
    keep.tapStoredLayout = true;
    keep.tap = [&](const Node &node, size_t, const Tensor &value) {
        if (node.name == "relu") kept = value;
    };
    std::vector<Tensor> outputs;
    ASSERT_TRUE(plan.value()->run({{"x", x1}}, outputs, keep).isOk());
    for (int run = 0; run < 3; ++run) ASSERT_TRUE(plan.value()->run({{"x", x2}}, outputs).isOk());
    ASSERT_EQ(kept.shape(), (Shape{2, 4}));
    for (int64_t i = 0; i < x1.numel(); ++i)
        EXPECT_EQ(kept.data<float>()[i], std::max(x1.data<float>()[i], 0.0f));
}

// Plans that run one after the other can share one pool: their buffers are reused across plans.
TEST(ExecutionPlan, PlansCanShareABufferPool) {
    auto own = ExecutionPlan::create(chainGraph());
    ASSERT_TRUE(own.isOk());
    std::vector<Tensor> outputs;
    const Tensor x = test::randomTensor({3, 4}, 5);
    ASSERT_TRUE(own.value()->run({{"x", x}}, outputs).isOk());
    const size_t onePlanBytes = own.value()->pooledBytes();
    ASSERT_GT(onePlanBytes, 0u);

    PlanOptions shared;
    shared.bufferPool = std::make_shared<BufferPool>();
    auto a = ExecutionPlan::create(chainGraph(), shared);
    auto b = ExecutionPlan::create(chainGraph(), shared);
    ASSERT_TRUE(a.isOk() && b.isOk());
    for (int run = 0; run < 2; ++run) {
        for (auto *plan : {&a, &b}) {
            ASSERT_TRUE(plan->value()->run({{"x", x}}, outputs).isOk());
            for (int64_t i = 0; i < x.numel(); ++i) {
                const float v = x.data<float>()[i];
                EXPECT_FLOAT_EQ(outputs[0].data<float>()[i], -std::max(v, 0.0f) + v);
            }
        }
    }
    EXPECT_EQ(shared.bufferPool->totalBytes(), onePlanBytes);  // not twice
    EXPECT_EQ(a.value()->pooledBytes(), onePlanBytes);
    EXPECT_EQ(b.value()->pooledBytes(), onePlanBytes);
}

// Outputs handed out as stored are the plan's own tensors: same values, no copy, and later runs
// do not overwrite them while they are held.
TEST(ExecutionPlan, OutputsAsStoredAreNotCopiedNorOverwritten) {
    auto plan = ExecutionPlan::create(chainGraph());
    ASSERT_TRUE(plan.isOk());
    const Tensor x1 = test::randomTensor({2, 4}, 21), x2 = test::randomTensor({2, 4}, 22);
    RunOptions asStored;
    asStored.outputsAsStored = true;
    std::vector<Tensor> first, later;
    ASSERT_TRUE(plan.value()->run({{"x", x1}}, first, asStored).isOk());
    for (int run = 0; run < 3; ++run)
        ASSERT_TRUE(plan.value()->run({{"x", x2}}, later, asStored).isOk());
    ASSERT_EQ(first.size(), 1u);
    EXPECT_NE(first[0].storage(), later[0].storage());
    for (int64_t i = 0; i < x1.numel(); ++i) {
        const float v = x1.data<float>()[i];
        EXPECT_FLOAT_EQ(first[0].data<float>()[i], -std::max(v, 0.0f) + v);
    }
}

// A shape input asking for far more than the memory budget: a bad-input error naming the node,
// before anything is allocated.
TEST(ExecutionPlan, HugeOutputIsBadInputNamingTheNode) {
    Graph g;
    g.opsetVersion = 17;
    g.inputs.push_back(floatInput("x", {1, 4}));
    g.initializers["repeats"] = Tensor::fromVector<int64_t>({2}, {1000000000, 1});
    g.nodes.push_back(makeNode("Tile", "tile_bomb", {"x", "repeats"}, {"y"}));
    ValueInfo y;
    y.name = "y";
    g.outputs.push_back(y);
    auto plan = ExecutionPlan::create(g);
    ASSERT_TRUE(plan.isOk()) << plan.status().message();
    std::vector<Tensor> outputs;
    const Status s = plan.value()->run({{"x", test::randomTensor({1, 4}, 1)}}, outputs);
    EXPECT_EQ(s.kind(), ErrorKind::BadInput);
    EXPECT_NE(s.message().find("tile_bomb"), std::string::npos) << s.message();
    EXPECT_NE(s.message().find("QL_MAX_TENSOR_BYTES"), std::string::npos) << s.message();
}

// Constant weights are packed once per process, not once per plan: an analysis builds several
// plans over one model (cumulative, isolated layers, kernel check), a session one per toggle, and
// each packing writes fresh memory. A plan over a graph sharing the constant reuses the copy; a
// constant with other storage, or one packed after every user of the copy is gone, is packed
// anew; the results are the plain products either way. A float MatMul packs on its second run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "kernels/dnnl_support.h"
#include "kernels/quantization_common.h"
#include "qdq_test_graphs.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

const int64_t kRows = 6, kK = 96, kN = 80;

// y = x · W with a constant float W.
QdqBuilder floatMatMul(const Tensor &w) {
    QdqBuilder b;
    b.input("x", randomTensor({kRows, kK}, 1));
    b.init("w", w);
    b.node("MatMul", "mm", {"x", "w"}, {"y"});
    b.output("y");
    return b;
}

// y = MatMulInteger(xq, Wq) with constant int8 Wq: exact integer accumulators.
QdqBuilder integerMatMul(const Tensor &w) {
    QdqBuilder b;
    Tensor x(DataType::UInt8, {kRows, kK});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<uint8_t>()[i] = uint8_t((i * 29 + 3) % 256);
    b.input("x", x);
    b.init("w", w);
    b.init("xz", Tensor::scalar<uint8_t>(100));
    b.node("MatMulInteger", "mm", {"x", "w", "xz"}, {"y"});
    b.output("y");
    return b;
}

Tensor int8Weight() {
    Tensor w(DataType::Int8, {kK, kN});
    for (int64_t i = 0; i < w.numel(); ++i) w.data<int8_t>()[i] = int8_t((i * 37 + 11) % 255 - 127);
    return w;
}

std::vector<Tensor> runPlan(ExecutionPlan &plan, const std::map<std::string, Tensor> &feeds) {
    std::vector<Tensor> out;
    const Status s = plan.run(feeds, out);
    EXPECT_TRUE(s.isOk()) << s.message();
    return out;
}

std::unique_ptr<ExecutionPlan> makePlan(const Graph &g) {
    auto plan = ExecutionPlan::create(g, PlanOptions{2});
    EXPECT_TRUE(plan.isOk()) << plan.status().message();
    return plan ? std::move(*plan) : nullptr;
}

void expectFloatProduct(const QdqBuilder &b, const Tensor &y) {
    const Tensor &x = b.feeds.at("x"), &w = b.g.initializers.at("w");
    ASSERT_EQ(y.shape(), (Shape{kRows, kN}));
    for (int64_t r = 0; r < kRows; ++r)
        for (int64_t j = 0; j < kN; ++j) {
            double want = 0.0, magnitude = 0.0;
            for (int64_t k = 0; k < kK; ++k) {
                const double term = double(x.data<float>()[r * kK + k]) * w.data<float>()[k * kN + j];
                want += term;
                magnitude += std::fabs(term);
            }
            // float accumulation over K terms: a few ulps of the terms' magnitude
            EXPECT_NEAR(y.data<float>()[r * kN + j], want, 1e-6 * magnitude + 1e-7);
        }
}

void expectIntegerProduct(const QdqBuilder &b, const Tensor &y) {
    const Tensor &x = b.feeds.at("x"), &w = b.g.initializers.at("w");
    ASSERT_EQ(y.shape(), (Shape{kRows, kN}));
    for (int64_t r = 0; r < kRows; ++r)
        for (int64_t j = 0; j < kN; ++j) {
            int32_t want = 0;
            for (int64_t k = 0; k < kK; ++k)
                want += (int32_t(x.data<uint8_t>()[r * kK + k]) - 100) * w.data<int8_t>()[k * kN + j];
            ASSERT_EQ(y.data<int32_t>()[r * kN + j], want) << r << "," << j;
        }
}

// Runs `plan` twice, checking both results: a float MatMul reads its constant as it is on its
// first run and packs it on the second (PackedWeights::packNow).
template <class Check>
void runTwice(ExecutionPlan &plan, const QdqBuilder &b, Check check) {
    check(b, runPlan(plan, b.feeds).at(0));
    check(b, runPlan(plan, b.feeds).at(0));
}

template <class Build, class Check>
void expectPackedOnceWhileShared(const Tensor &weight, Build build, Check check) {
    const int64_t before = dnnl_support::sharedPackings();
    int64_t packs = 0;
    {
        const QdqBuilder b = build(weight);
        auto first = makePlan(b.g);
        auto second = makePlan(b.g);  // another plan over a copy of the same graph
        ASSERT_TRUE(first && second);
        runTwice(*first, b, check);
        packs = dnnl_support::sharedPackings() - before;
        EXPECT_LE(packs, 1);  // 0 where the primitive takes the weight as stored
        runTwice(*second, b, check);
        check(b, runPlan(*first, b.feeds).at(0));
        EXPECT_EQ(dnnl_support::sharedPackings() - before, packs) << "the second plan repacked";

        // The same values in other storage: packed for themselves.
        const QdqBuilder other = build(weight.clone());
        auto third = makePlan(other.g);
        ASSERT_TRUE(third);
        runTwice(*third, other, check);
        EXPECT_EQ(dnnl_support::sharedPackings() - before, 2 * packs);
    }
    // Every plan gone: the copies are freed, and a new plan over the same weight packs again.
    const QdqBuilder b = build(weight);
    auto again = makePlan(b.g);
    ASSERT_TRUE(again);
    runTwice(*again, b, check);
    EXPECT_EQ(dnnl_support::sharedPackings() - before, 3 * packs);
}

TEST(SharedPackedWeights, FloatMatMulPacksItsConstantOnce) {
    expectPackedOnceWhileShared(randomTensor({kK, kN}, 2), floatMatMul, expectFloatProduct);
}

// One run (an analysis of one batch) does not pay for packing: the first run reads the float
// weight as stored, with the same products; the second packs it, and a plan over the same
// weight made after that uses the packed copy from its first run.
TEST(SharedPackedWeights, FloatMatMulPacksItsConstantOnTheSecondRun) {
    const int64_t before = dnnl_support::sharedPackings();
    const QdqBuilder b = floatMatMul(randomTensor({kK, kN}, 3));
    auto first = makePlan(b.g);
    ASSERT_TRUE(first);
    expectFloatProduct(b, runPlan(*first, b.feeds).at(0));
    EXPECT_EQ(dnnl_support::sharedPackings() - before, 0) << "packed on the first run";
    expectFloatProduct(b, runPlan(*first, b.feeds).at(0));
    const int64_t packs = dnnl_support::sharedPackings() - before;
    EXPECT_LE(packs, 1);
    auto later = makePlan(b.g);
    ASSERT_TRUE(later);
    expectFloatProduct(b, runPlan(*later, b.feeds).at(0));
    expectFloatProduct(b, runPlan(*later, b.feeds).at(0));
    EXPECT_EQ(dnnl_support::sharedPackings() - before, packs) << "the later plan repacked";
}

// QLinearMatMul with a constant int8 weight where products are exact (VNNI): the first run
// reads the weight as stored, the second packs it; both give the requantized product to
// rounding (one step). Without VNNI the weight is packed from the first run.
TEST(SharedPackedWeights, QLinearMatMulPacksItsConstantOnTheSecondRunWhereExact) {
    const float xScale = 0.02f, wScale = 0.01f, yScale = 0.5f;
    const int xZp = 120, yZp = 128;
    QdqBuilder b;
    Tensor x(DataType::UInt8, {kRows, kK});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<uint8_t>()[i] = uint8_t((i * 53 + 7) % 256);
    b.input("x", x);
    b.init("w", int8Weight());
    b.init("xs", Tensor::scalar<float>(xScale));
    b.init("xz", Tensor::scalar<uint8_t>(uint8_t(xZp)));
    b.init("ws", Tensor::scalar<float>(wScale));
    b.init("wz", Tensor::scalar<int8_t>(0));
    b.init("ys", Tensor::scalar<float>(yScale));
    b.init("yz", Tensor::scalar<uint8_t>(uint8_t(yZp)));
    b.node("QLinearMatMul", "qmm", {"x", "xs", "xz", "w", "ws", "wz", "ys", "yz"}, {"y"});
    b.output("y");
    auto check = [&](const Tensor &y) {
        ASSERT_EQ(y.shape(), (Shape{kRows, kN}));
        const Tensor &w = b.g.initializers.at("w");
        for (int64_t r = 0; r < kRows; ++r)
            for (int64_t j = 0; j < kN; ++j) {
                int64_t acc = 0;
                for (int64_t k = 0; k < kK; ++k)
                    acc += (int64_t(x.data<uint8_t>()[r * kK + k]) - xZp) *
                           w.data<int8_t>()[k * kN + j];
                const double want =
                    std::clamp(double(acc) * xScale * wScale / yScale + yZp, 0.0, 255.0);
                EXPECT_NEAR(y.data<uint8_t>()[r * kN + j], want, 1.0) << r << "," << j;
            }
    };
    const int64_t before = dnnl_support::sharedPackings();
    auto plan = makePlan(b.g);
    ASSERT_TRUE(plan);
    check(runPlan(*plan, b.feeds).at(0));
    const int64_t afterFirst = dnnl_support::sharedPackings() - before;
    if (quant::cpuHasExactInt8Dot()) EXPECT_EQ(afterFirst, 0) << "packed on the first run";
    check(runPlan(*plan, b.feeds).at(0));
    EXPECT_LE(dnnl_support::sharedPackings() - before, 1);
}

TEST(SharedPackedWeights, Int8MatMulPacksItsConstantOnce) {
    expectPackedOnceWhileShared(int8Weight(), integerMatMul, expectIntegerProduct);
}

}  // namespace

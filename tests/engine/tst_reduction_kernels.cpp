// Reduce*, ArgMax/ArgMin, Softmax/LogSoftmax, LayerNormalization and InstanceNormalization
// against naive double-precision loops written here.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "test_support.h"

using namespace ql;
using test::makeNode;
using test::runSingleNode;

namespace {

// ---- Reduce* ----

double combine(const std::string &op, const std::vector<double> &v) {
    double r = 0.0;
    if (op == "ReduceSum")
        for (double x : v) r += x;
    if (op == "ReduceMean") {
        for (double x : v) r += x;
        r /= static_cast<double>(v.size());
    }
    if (op == "ReduceMax") {
        r = -INFINITY;
        for (double x : v) r = std::max(r, x);
    }
    if (op == "ReduceMin") {
        r = INFINITY;
        for (double x : v) r = std::min(r, x);
    }
    if (op == "ReduceProd") {
        r = 1.0;
        for (double x : v) r *= x;
    }
    if (op == "ReduceL1")
        for (double x : v) r += std::fabs(x);
    if (op == "ReduceL2") {
        for (double x : v) r += x * x;
        r = std::sqrt(r);
    }
    if (op == "ReduceSumSquare")
        for (double x : v) r += x * x;
    if (op == "ReduceLogSum") {
        for (double x : v) r += x;
        r = std::log(r);
    }
    if (op == "ReduceLogSumExp") {
        for (double x : v) r += std::exp(x);
        r = std::log(r);
    }
    return r;
}

Tensor naiveReduce(const std::string &op, const Tensor &x, const std::vector<int64_t> &axes,
                   bool keepDims) {
    const Shape &shape = x.shape();
    std::vector<bool> reduced(shape.size(), axes.empty());
    for (int64_t a : axes) reduced[a < 0 ? a + x.rank() : a] = true;
    Shape keptShape = shape, outShape;
    for (size_t d = 0; d < shape.size(); ++d) {
        if (reduced[d]) keptShape[d] = 1;
        if (!reduced[d] || keepDims) outShape.push_back(keptShape[d]);
    }
    std::vector<std::vector<double>> groups(static_cast<size_t>(shapeElementCount(keptShape)));
    for (int64_t i = 0; i < x.numel(); ++i) {
        std::vector<int64_t> c = test::unravelIndex(i, shape);
        for (size_t d = 0; d < c.size(); ++d)
            if (reduced[d]) c[d] = 0;
        groups[test::ravelIndex(c, keptShape)].push_back(x.valueAsDouble(i));
    }
    Tensor out(DataType::Float, outShape);
    for (size_t g = 0; g < groups.size(); ++g)
        out.data<float>()[g] = static_cast<float>(combine(op, groups[g]));
    return out;
}

bool axesAreInput(const std::string &op, int64_t opset) {
    return opset >= (op == "ReduceSum" ? 13 : 18);
}

test::SingleNodeRun runReduce(const std::string &op, const Tensor &x,
                              const std::vector<int64_t> &axes, bool keepDims, int64_t opset) {
    Node n = makeNode(op, {{"keepdims", test::intAttr(keepDims ? 1 : 0)}});
    std::vector<Tensor> inputs{x};
    if (axesAreInput(op, opset)) {
        if (!axes.empty()) inputs.push_back(test::ints(axes));
    } else if (!axes.empty()) {
        n.attributes["axes"] = test::intsAttr(axes);
    }
    return runSingleNode(n, inputs, 1, {false, true}, opset);
}

const char *const kReduceOps[] = {"ReduceSum",    "ReduceMean",     "ReduceMax", "ReduceMin",
                                  "ReduceProd",   "ReduceL1",       "ReduceL2",  "ReduceSumSquare",
                                  "ReduceLogSum", "ReduceLogSumExp"};

}  // namespace

TEST(ReduceKernels, EveryOpMatchesNaiveLoopsForManyAxisSets) {
    const Tensor x =
        test::randomTensor({3, 4, 5, 2}, 7, 0.5f, 1.5f);  // positive: Prod, LogSum stay tame
    const std::vector<std::vector<int64_t>> axisSets = {
        {}, {0}, {1}, {3}, {-1}, {0, 2}, {1, 2}, {1, 3}, {0, 3}, {-3, -1}, {0, 1, 2, 3}};
    for (const char *op : kReduceOps) {
        for (int64_t opset : {11, 13, 18}) {
            for (const auto &axes : axisSets) {
                for (bool keep : {true, false}) {
                    SCOPED_TRACE(std::string(op) + " opset " + std::to_string(opset) + " axes " +
                                 shapeToString(axes) + " keepdims " + std::to_string(keep));
                    auto run = runReduce(op, x, axes, keep, opset);
                    ASSERT_TRUE(run.status.isOk()) << run.status.message();
                    std::string why;
                    EXPECT_TRUE(test::allClose(run.outputs[0], naiveReduce(op, x, axes, keep), 1e-5,
                                               1e-5, &why))
                        << why;
                }
            }
        }
    }
}

TEST(ReduceKernels, LargeInputsTakeTheParallelPathCorrectly) {
    const Tensor x = test::randomTensor({40, 30, 70}, 3);
    for (const std::vector<int64_t> &axes : {std::vector<int64_t>{0}, {1}, {2}, {0, 2}, {}}) {
        for (const char *op : {"ReduceMean", "ReduceMax", "ReduceLogSumExp"}) {
            auto run = runReduce(op, x, axes, true, 13);
            ASSERT_TRUE(run.status.isOk()) << run.status.message();
            std::string why;
            EXPECT_TRUE(
                test::allClose(run.outputs[0], naiveReduce(op, x, axes, true), 1e-5, 1e-5, &why))
                << op << " " << shapeToString(axes) << ": " << why;
        }
    }
}

TEST(ReduceKernels, EmptyAxesReduceEverythingOrAreANoop) {
    const Tensor x = test::randomTensor({2, 3}, 1);
    const Tensor empty(DataType::Int64, {0});
    Node sum = makeNode("ReduceSum", {{"keepdims", test::intAttr(0)}});
    auto all = runSingleNode(sum, {x, empty}, 1, {false, true}, 13);
    ASSERT_TRUE(all.status.isOk()) << all.status.message();
    EXPECT_EQ(all.outputs[0].shape(), Shape{});
    EXPECT_NEAR(all.outputs[0].valueAsDouble(0),
                naiveReduce("ReduceSum", x, {}, false).valueAsDouble(0), 1e-5);

    sum.attributes["noop_with_empty_axes"] = test::intAttr(1);
    for (const std::vector<Tensor> &inputs :
         {std::vector<Tensor>{x, empty}, std::vector<Tensor>{x}}) {
        auto noop = runSingleNode(sum, inputs, 1, {false, true}, 13);
        ASSERT_TRUE(noop.status.isOk()) << noop.status.message();
        std::string why;
        EXPECT_TRUE(test::allClose(noop.outputs[0], x, 0, 0, &why)) << why;
    }
    // opset 18 ReduceMax with the axes input omitted reduces all axes (keepdims default 1).
    auto max = runSingleNode(makeNode("ReduceMax"), {x}, 1, {}, 18);
    ASSERT_TRUE(max.status.isOk()) << max.status.message();
    EXPECT_EQ(max.outputs[0].shape(), (Shape{1, 1}));
    EXPECT_FLOAT_EQ(static_cast<float>(max.outputs[0].valueAsDouble(0)),
                    static_cast<float>(naiveReduce("ReduceMax", x, {}, true).valueAsDouble(0)));
}

TEST(ReduceKernels, IntegerTypesReduceExactly) {
    const int64_t big = (int64_t(1) << 53) + 1;  // not representable as double
    const Tensor i64 = Tensor::fromVector<int64_t>({2, 3}, {big, 5, -7, 1, big + 2, 3});
    auto max =
        runSingleNode(makeNode("ReduceMax", {{"axes", test::intsAttr({1})}}), {i64}, 1, {}, 13);
    ASSERT_TRUE(max.status.isOk()) << max.status.message();
    ASSERT_EQ(max.outputs[0].dtype(), DataType::Int64);
    EXPECT_EQ(max.outputs[0].toInt64Vector(), (std::vector<int64_t>{big, big + 2}));

    auto sum = runSingleNode(makeNode("ReduceSum"), {i64, test::ints({0})}, 1, {false, true}, 13);
    ASSERT_TRUE(sum.status.isOk()) << sum.status.message();
    EXPECT_EQ(sum.outputs[0].toInt64Vector(), (std::vector<int64_t>{big + 1, big + 7, -4}));

    const Tensor i32 = Tensor::fromVector<int32_t>({2, 2}, {1, 2, -3, 8});
    auto mean = runSingleNode(
        makeNode("ReduceMean", {{"axes", test::intsAttr({1})}, {"keepdims", test::intAttr(0)}}),
        {i32}, 1, {}, 13);
    ASSERT_TRUE(mean.status.isOk()) << mean.status.message();
    ASSERT_EQ(mean.outputs[0].dtype(), DataType::Int32);
    EXPECT_EQ(mean.outputs[0].toInt64Vector(), (std::vector<int64_t>{1, 2}));  // truncated like C

    const Tensor u8 = Tensor::fromVector<uint8_t>({4}, {3, 250, 7, 0});
    auto minU8 =
        runSingleNode(makeNode("ReduceMin", {{"keepdims", test::intAttr(0)}}), {u8}, 1, {}, 13);
    ASSERT_TRUE(minU8.status.isOk()) << minU8.status.message();
    EXPECT_EQ(minU8.outputs[0].toInt64Vector(), std::vector<int64_t>{0});
}

TEST(ReduceKernels, BadAxesAndTypesGiveClearErrors) {
    const Tensor x = test::randomTensor({2, 3}, 1);
    auto outOfRange = runReduce("ReduceMean", x, {2}, true, 13);
    EXPECT_EQ(outOfRange.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(outOfRange.status.message().find("out of range"), std::string::npos)
        << outOfRange.status.message();
    auto twice = runReduce("ReduceSum", x, {1, -1}, true, 13);
    EXPECT_EQ(twice.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(twice.status.message().find("twice"), std::string::npos) << twice.status.message();
    const Tensor b(DataType::Bool, {2});
    auto boolInput = runReduce("ReduceMax", b, {}, true, 13);
    EXPECT_EQ(boolInput.status.kind(), ErrorKind::Unsupported);
    EXPECT_NE(boolInput.status.message().find("bool"), std::string::npos)
        << boolInput.status.message();
}

// ---- ArgMax / ArgMin ----

namespace {

Tensor naiveArg(const Tensor &x, int64_t axis, bool keepDims, bool isMax, bool last) {
    if (axis < 0) axis += x.rank();
    Shape outShape = x.shape();
    outShape[axis] = 1;
    Tensor out(DataType::Int64, outShape);
    for (int64_t o = 0; o < out.numel(); ++o) {
        std::vector<int64_t> c = test::unravelIndex(o, outShape);
        int64_t best = 0;
        double bestValue = 0;
        for (int64_t l = 0; l < x.shape()[axis]; ++l) {
            c[axis] = l;
            const double v = x.valueAsDouble(test::ravelIndex(c, x.shape()));
            const bool better =
                l == 0 || (isMax ? v > bestValue : v < bestValue) || (last && v == bestValue);
            if (better) {
                best = l;
                bestValue = v;
            }
        }
        out.data<int64_t>()[o] = best;
    }
    if (!keepDims) {
        Shape squeezed = outShape;
        squeezed.erase(squeezed.begin() + axis);
        return out.reshaped(squeezed);
    }
    return out;
}

}  // namespace

TEST(ArgKernels, MatchNaiveLoopsWithTiesKeepdimsAndSelectLast) {
    std::mt19937 rng(5);
    std::vector<int32_t> values(3 * 4 * 5);
    for (int32_t &v : values) v = static_cast<int32_t>(rng() % 4);  // many ties
    const Tensor ints = Tensor::fromVector<int32_t>({3, 4, 5}, values);
    const Tensor floats = test::randomTensor({3, 4, 5}, 9);
    for (const Tensor *x : {&ints, &floats}) {
        for (const char *op : {"ArgMax", "ArgMin"}) {
            for (int64_t axis : {0, 1, 2, -1, -3}) {
                for (bool keep : {true, false}) {
                    for (bool last : {false, true}) {
                        Node n = makeNode(op, {{"axis", test::intAttr(axis)},
                                               {"keepdims", test::intAttr(keep)},
                                               {"select_last_index", test::intAttr(last)}});
                        auto run = runSingleNode(n, {*x}, 1, {}, 13);
                        ASSERT_TRUE(run.status.isOk()) << run.status.message();
                        const Tensor expected =
                            naiveArg(*x, axis, keep, std::string(op) == "ArgMax", last);
                        std::string why;
                        EXPECT_TRUE(test::allClose(run.outputs[0], expected, 0, 0, &why))
                            << op << " axis " << axis << " keep " << keep << " last " << last
                            << ": " << why;
                    }
                }
            }
        }
    }
    // Default axis is 0 with keepdims.
    auto defaults = runSingleNode(makeNode("ArgMax"), {floats}, 1, {}, 13);
    ASSERT_TRUE(defaults.status.isOk());
    EXPECT_EQ(defaults.outputs[0].shape(), (Shape{1, 4, 5}));
    auto bad = runSingleNode(makeNode("ArgMin", {{"axis", test::intAttr(3)}}), {floats}, 1, {}, 13);
    EXPECT_EQ(bad.status.kind(), ErrorKind::BadInput);
}

// ---- Softmax / LogSoftmax ----

namespace {

Tensor naiveSoftmax(const Tensor &x, int64_t outer, int64_t len, int64_t inner, bool isLog) {
    Tensor out(x.dtype(), x.shape());
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
            auto at = [&](int64_t l) { return (o * len + l) * inner + i; };
            double m = -INFINITY;
            for (int64_t l = 0; l < len; ++l) m = std::max(m, x.valueAsDouble(at(l)));
            double sum = 0.0;
            for (int64_t l = 0; l < len; ++l) sum += std::exp(x.valueAsDouble(at(l)) - m);
            for (int64_t l = 0; l < len; ++l) {
                const double v = x.valueAsDouble(at(l)) - m;
                const double r = isLog ? v - std::log(sum) : std::exp(v) / sum;
                if (x.dtype() == DataType::Double)
                    out.data<double>()[at(l)] = r;
                else
                    out.data<float>()[at(l)] = static_cast<float>(r);
            }
        }
    }
    return out;
}

int64_t product(const Shape &s, int64_t from, int64_t to) {
    int64_t p = 1;
    for (int64_t i = from; i < to; ++i) p *= s[i];
    return p;
}

}  // namespace

TEST(SoftmaxKernels, Opset13RunsAlongOneAxis) {
    const Tensor x = test::randomTensor({2, 3, 4, 5}, 11, -4.0f, 4.0f);
    for (const char *op : {"Softmax", "LogSoftmax"}) {
        const bool isLog = std::string(op) == "LogSoftmax";
        for (int64_t axis : {0, 1, 2, 3, -1, -2}) {
            const int64_t a = axis < 0 ? axis + 4 : axis;
            auto run = runSingleNode(makeNode(op, {{"axis", test::intAttr(axis)}}), {x}, 1, {}, 13);
            ASSERT_TRUE(run.status.isOk()) << run.status.message();
            const Tensor expected = naiveSoftmax(x, product(x.shape(), 0, a), x.shape()[a],
                                                 product(x.shape(), a + 1, 4), isLog);
            std::string why;
            EXPECT_TRUE(test::allClose(run.outputs[0], expected, 1e-4, 1e-5, &why))
                << op << " axis " << axis << ": " << why;
        }
        auto byDefault = runSingleNode(makeNode(op), {x}, 1, {}, 13);  // default axis -1
        ASSERT_TRUE(byDefault.status.isOk());
        EXPECT_TRUE(
            test::allClose(byDefault.outputs[0], naiveSoftmax(x, 24, 5, 1, isLog), 1e-4, 1e-5));
    }
}

TEST(SoftmaxKernels, BeforeOpset13TheInputIsCoercedTo2D) {
    const Tensor x = test::randomTensor({2, 3, 4, 5}, 12, -4.0f, 4.0f);
    for (const char *op : {"Softmax", "LogSoftmax"}) {
        const bool isLog = std::string(op) == "LogSoftmax";
        for (int64_t axis : {0, 1, 2, 3, -1}) {
            const int64_t a = axis < 0 ? axis + 4 : axis;
            auto run = runSingleNode(makeNode(op, {{"axis", test::intAttr(axis)}}), {x}, 1, {}, 11);
            ASSERT_TRUE(run.status.isOk()) << run.status.message();
            const Tensor expected =
                naiveSoftmax(x, product(x.shape(), 0, a), product(x.shape(), a, 4), 1, isLog);
            std::string why;
            EXPECT_TRUE(test::allClose(run.outputs[0], expected, 1e-4, 1e-5, &why))
                << op << " axis " << axis << ": " << why;
        }
        // Default axis 1: one softmax over C*H*W per image, not over C alone.
        auto legacy = runSingleNode(makeNode(op), {x}, 1, {}, 11);
        ASSERT_TRUE(legacy.status.isOk());
        EXPECT_TRUE(
            test::allClose(legacy.outputs[0], naiveSoftmax(x, 2, 60, 1, isLog), 1e-4, 1e-5));
        EXPECT_FALSE(
            test::allClose(legacy.outputs[0], naiveSoftmax(x, 2, 3, 20, isLog), 1e-4, 1e-5));
    }
}

TEST(SoftmaxKernels, LargeValuesMaskedEntriesDoubleAndBigRows) {
    const Tensor large =
        Tensor::fromVector<float>({2, 4}, {10000, 10001, 10002, 10003, -3000, 0, 3000, 2999});
    for (const char *op : {"Softmax", "LogSoftmax"}) {
        auto run = runSingleNode(makeNode(op), {large}, 1, {}, 13);
        ASSERT_TRUE(run.status.isOk());
        std::string why;
        EXPECT_TRUE(test::allClose(run.outputs[0],
                                   naiveSoftmax(large, 2, 4, 1, std::string(op) == "LogSoftmax"),
                                   1e-4, 1e-5, &why))
            << why;
    }
    const float inf = std::numeric_limits<float>::infinity();
    const Tensor masked = Tensor::fromVector<float>({1, 4}, {0.5f, -inf, 1.5f, -inf});
    auto m = runSingleNode(makeNode("Softmax"), {masked}, 1, {}, 13);
    ASSERT_TRUE(m.status.isOk());
    EXPECT_EQ(m.outputs[0].valueAsDouble(1), 0.0);
    EXPECT_NEAR(m.outputs[0].valueAsDouble(0) + m.outputs[0].valueAsDouble(2), 1.0, 1e-6);

    Tensor d(DataType::Double, {2, 3, 4});
    const Tensor r = test::randomTensor({2, 3, 4}, 4, -3.0f, 3.0f);
    for (int64_t i = 0; i < r.numel(); ++i) d.data<double>()[i] = r.data<float>()[i];
    for (const char *op : {"Softmax", "LogSoftmax"}) {
        auto run = runSingleNode(makeNode(op, {{"axis", test::intAttr(1)}}), {d}, 1, {}, 13);
        ASSERT_TRUE(run.status.isOk()) << run.status.message();
        EXPECT_TRUE(test::allClose(run.outputs[0],
                                   naiveSoftmax(d, 2, 3, 4, std::string(op) == "LogSoftmax"), 1e-9,
                                   1e-12));
    }
    // ViT-sized attention scores: 12 heads x 197 rows x 197 keys.
    const Tensor scores = test::randomTensor({1, 12, 197, 197}, 8, -8.0f, 8.0f);
    auto vit = runSingleNode(makeNode("Softmax"), {scores}, 1, {}, 13);
    ASSERT_TRUE(vit.status.isOk());
    std::string why;
    EXPECT_TRUE(test::allClose(vit.outputs[0], naiveSoftmax(scores, 12 * 197, 197, 1, false), 1e-4,
                               1e-6, &why))
        << why;

    auto badAxis =
        runSingleNode(makeNode("Softmax", {{"axis", test::intAttr(2)}}), {large}, 1, {}, 13);
    EXPECT_EQ(badAxis.status.kind(), ErrorKind::BadInput);
    auto intInput = runSingleNode(makeNode("Softmax"), {Tensor(DataType::Int32, {2})}, 1, {}, 13);
    EXPECT_EQ(intInput.status.kind(), ErrorKind::Unsupported);
}

// ---- LayerNormalization / InstanceNormalization ----

namespace {

struct NormResult {
    Tensor y, mean, invStd;
};

// Rows of `rowSize` elements; scale/bias indexed by position within the row (already broadcast).
NormResult naiveLayerNorm(const Tensor &x, int64_t axis, const std::vector<double> &scale,
                          const std::vector<double> &bias, double eps) {
    if (axis < 0) axis += x.rank();
    const int64_t rowSize = product(x.shape(), axis, x.rank());
    const int64_t rows = x.numel() / rowSize;
    Shape statShape = x.shape();
    for (int64_t d = axis; d < x.rank(); ++d) statShape[d] = 1;
    NormResult r{Tensor(DataType::Float, x.shape()), Tensor(DataType::Float, statShape),
                 Tensor(DataType::Float, statShape)};
    for (int64_t row = 0; row < rows; ++row) {
        double mean = 0.0, var = 0.0;
        for (int64_t i = 0; i < rowSize; ++i) mean += x.valueAsDouble(row * rowSize + i);
        mean /= static_cast<double>(rowSize);
        for (int64_t i = 0; i < rowSize; ++i)
            var += std::pow(x.valueAsDouble(row * rowSize + i) - mean, 2);
        var /= static_cast<double>(rowSize);
        const double inv = 1.0 / std::sqrt(var + eps);
        for (int64_t i = 0; i < rowSize; ++i) {
            const double b = bias.empty() ? 0.0 : bias[i];
            r.y.data<float>()[row * rowSize + i] = static_cast<float>(
                (x.valueAsDouble(row * rowSize + i) - mean) * inv * scale[i] + b);
        }
        r.mean.data<float>()[row] = static_cast<float>(mean);
        r.invStd.data<float>()[row] = static_cast<float>(inv);
    }
    return r;
}

std::vector<double> asDoubles(const Tensor &t) {
    std::vector<double> v;
    for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.valueAsDouble(i));
    return v;
}

}  // namespace

TEST(LayerNormKernels, EveryAxisWithAndWithoutBiasAndStatistics) {
    const Tensor x = test::randomTensor({2, 3, 4}, 21, -2.0f, 5.0f);
    for (int64_t axis : {-1, 0, 1, 2, -2}) {
        const int64_t a = axis < 0 ? axis + 3 : axis;
        const Shape rowShape(x.shape().begin() + a, x.shape().end());
        const Tensor scale = test::randomTensor(rowShape, 22, 0.5f, 2.0f);
        const Tensor bias = test::randomTensor(rowShape, 23);
        Node n = makeNode("LayerNormalization",
                          {{"axis", test::intAttr(axis)}, {"epsilon", test::floatAttr(1e-3f)}});
        auto run = runSingleNode(n, {x, scale, bias}, 3, {}, 17);
        ASSERT_TRUE(run.status.isOk()) << run.status.message();
        const NormResult expected =
            naiveLayerNorm(x, axis, asDoubles(scale), asDoubles(bias), 1e-3);
        std::string why;
        EXPECT_TRUE(test::allClose(run.outputs[0], expected.y, 1e-4, 1e-5, &why))
            << "axis " << axis << ": " << why;
        EXPECT_TRUE(test::allClose(run.outputs[1], expected.mean, 1e-5, 1e-6, &why))
            << "mean: " << why;
        EXPECT_TRUE(test::allClose(run.outputs[2], expected.invStd, 1e-4, 1e-6, &why))
            << "inv std: " << why;

        auto noBias = runSingleNode(n, {x, scale}, 1, {false, true}, 17);
        ASSERT_TRUE(noBias.status.isOk()) << noBias.status.message();
        EXPECT_TRUE(test::allClose(noBias.outputs[0],
                                   naiveLayerNorm(x, axis, asDoubles(scale), {}, 1e-3).y, 1e-4,
                                   1e-5, &why))
            << why;
    }
}

TEST(LayerNormKernels, BertSizedRowsBroadcastScaleAndErrors) {
    const Tensor x = test::randomTensor({1, 128, 768}, 31, -3.0f, 3.0f);
    const Tensor scale = test::randomTensor({768}, 32), bias = test::randomTensor({768}, 33);
    auto run =
        runSingleNode(makeNode("LayerNormalization"), {x, scale, bias}, 1, {false, true, true}, 17);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    std::string why;
    EXPECT_TRUE(test::allClose(run.outputs[0],
                               naiveLayerNorm(x, -1, asDoubles(scale), asDoubles(bias), 1e-5).y,
                               1e-4, 1e-4, &why))
        << why;

    // Scale [1, 4] broadcasts over the normalised shape [3, 4].
    const Tensor small = test::randomTensor({2, 3, 4}, 34);
    const Tensor rowScale = test::randomTensor({1, 4}, 35, 0.5f, 2.0f);
    auto broadcast = runSingleNode(makeNode("LayerNormalization", {{"axis", test::intAttr(1)}}),
                                   {small, rowScale}, 1, {}, 17);
    ASSERT_TRUE(broadcast.status.isOk()) << broadcast.status.message();
    std::vector<double> expanded;
    for (int r = 0; r < 3; ++r)
        for (int64_t i = 0; i < 4; ++i) expanded.push_back(rowScale.valueAsDouble(i));
    EXPECT_TRUE(test::allClose(broadcast.outputs[0], naiveLayerNorm(small, 1, expanded, {}, 1e-5).y,
                               1e-4, 1e-5, &why))
        << why;

    auto badScale = runSingleNode(makeNode("LayerNormalization"),
                                  {small, test::randomTensor({3}, 1)}, 1, {}, 17);
    EXPECT_EQ(badScale.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(badScale.status.message().find("broadcast"), std::string::npos)
        << badScale.status.message();
    auto badAxis = runSingleNode(makeNode("LayerNormalization", {{"axis", test::intAttr(3)}}),
                                 {small, rowScale}, 1, {}, 17);
    EXPECT_EQ(badAxis.status.kind(), ErrorKind::BadInput);
}

TEST(InstanceNormKernels, MatchesPerChannelStatistics) {
    for (const Shape &shape : {Shape{2, 3, 4, 5}, Shape{2, 3, 7}, Shape{1, 16, 40, 40}}) {
        const Tensor x = test::randomTensor(shape, 41, -1.0f, 4.0f);
        const Tensor scale = test::randomTensor({shape[1]}, 42),
                     bias = test::randomTensor({shape[1]}, 43);
        auto run =
            runSingleNode(makeNode("InstanceNormalization", {{"epsilon", test::floatAttr(1e-2f)}}),
                          {x, scale, bias}, 1, {false, true, true}, 6);
        ASSERT_TRUE(run.status.isOk()) << run.status.message();
        const int64_t spatial = x.numel() / (shape[0] * shape[1]);
        Tensor expected(DataType::Float, shape);
        for (int64_t row = 0; row < shape[0] * shape[1]; ++row) {
            const int64_t c = row % shape[1];
            const Tensor plane = Tensor::fromVector<float>(
                {1, spatial}, std::vector<float>(x.data<float>() + row * spatial,
                                                 x.data<float>() + (row + 1) * spatial));
            const NormResult r =
                naiveLayerNorm(plane, 1, std::vector<double>(spatial, scale.valueAsDouble(c)),
                               std::vector<double>(spatial, bias.valueAsDouble(c)), 1e-2);
            std::copy(r.y.data<float>(), r.y.data<float>() + spatial,
                      expected.data<float>() + row * spatial);
        }
        std::string why;
        EXPECT_TRUE(test::allClose(run.outputs[0], expected, 1e-4, 1e-5, &why))
            << shapeToString(shape) << ": " << why;
    }
    const Tensor x = test::randomTensor({1, 3, 4}, 1);
    auto badScale = runSingleNode(makeNode("InstanceNormalization"),
                                  {x, test::randomTensor({2}, 2), test::randomTensor({3}, 3)});
    EXPECT_EQ(badScale.status.kind(), ErrorKind::BadInput);
}

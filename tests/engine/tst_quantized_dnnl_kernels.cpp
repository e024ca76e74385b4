// The oneDNN int8 kernels (QLinearConv, QLinearMatMul, com.microsoft QGemm) against the exact
// integer references: at most 1 LSB apart and at least 99% of elements identical, for random
// seeded data over the whole 8-bit ranges (which, on CPUs without VNNI, exercises the kernels'
// guards against oneDNN's int16 pair saturation and s8 weight halving).

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "direct_kernel_run.h"
#include "kernels/quantization_common.h"
#include "quantized_kernel_checks.h"
#include "test_support.h"

namespace ql::test {
namespace {

struct ConvCase {
    std::string name;
    DataType xType = DataType::UInt8, yType = DataType::UInt8;
    int xZp = 0, yZp = 0;
    int64_t n = 1, c = 16, h = 9, w = 9, m = 16, k = 3, group = 1, stride = 1, pad = 1;
    bool perChannel = true, bias = true, channelsLast = false;
    std::string activation;  // "", "Relu", "Clip"
    int spatialRank = 2;
    bool alternatingWeights = false;  // adjacent input channels of opposite sign
};

void runConvCase(const ConvCase &cc, unsigned seed) {
    SCOPED_TRACE(cc.name);
    Shape xShape{cc.n, cc.c, cc.h}, wShape{cc.m, cc.c / cc.group, cc.k};
    for (int i = 1; i < cc.spatialRank; ++i) {
        xShape.push_back(cc.w);
        wShape.push_back(cc.k);
    }
    Tensor x = randomInt8(cc.xType, xShape, seed);
    Tensor w = randomInts<int8_t>(wShape, seed + 1, -128, 127);
    if (cc.alternatingWeights) {  // even input channels >= 90, odd ones <= -90
        const int64_t taps = w.numel() / (wShape[0] * wShape[1]);
        for (int64_t i = 0; i < w.numel(); ++i) {
            const int64_t ic = (i / taps) % wShape[1];
            const int v = 90 + std::abs(w.data<int8_t>()[i]) % 38;
            w.data<int8_t>()[i] = static_cast<int8_t>(ic % 2 ? -v : v);
        }
    }
    std::mt19937 rng(seed + 2);
    std::uniform_real_distribution<float> scaleDist(0.5f, 2.0f);
    const float xScale = 0.02f;
    Tensor wScale(DataType::Float, {cc.perChannel ? cc.m : 1});
    for (int64_t i = 0; i < wScale.numel(); ++i) wScale.data<float>()[i] = 0.01f * scaleDist(rng);
    // Spread the outputs over the 8-bit range: acc has a std of about 74 * 74 * sqrt(depth).
    const double depth = double(cc.c / cc.group) * std::pow(double(cc.k), cc.spatialRank);
    const float yScale = static_cast<float>(xScale * 0.01 * 74.0 * 74.0 * std::sqrt(depth) / 40.0);
    Tensor bias(DataType::Int32, {cc.m});
    std::uniform_int_distribution<int> biasDist(-20000, 20000);
    for (int64_t i = 0; i < cc.m; ++i) bias.data<int32_t>()[i] = biasDist(rng);
    Tensor wZp(DataType::Int8, wScale.shape());
    for (int64_t i = 0; i < wZp.numel(); ++i) wZp.data<int8_t>()[i] = 0;

    std::map<std::string, Attribute> attrs{{"kernel_shape", intsAttr(Shape(cc.spatialRank, cc.k))},
                                           {"strides", intsAttr(Shape(cc.spatialRank, cc.stride))},
                                           {"pads", intsAttr(Shape(2 * cc.spatialRank, cc.pad))},
                                           {"group", intAttr(cc.group)}};
    if (!cc.activation.empty()) attrs["ql_activation"] = stringAttr(cc.activation);
    if (cc.activation == "Clip") {
        attrs["ql_clip_min"] = floatAttr(-0.3f * 40 * yScale);
        attrs["ql_clip_max"] = floatAttr(0.5f * 40 * yScale);
    }
    const Node node = makeNode("QLinearConv", attrs);
    std::vector<Tensor> inputs{x,   floatScalar(xScale), scalarOf(cc.xType, cc.xZp), w, wScale,
                               wZp, floatScalar(yScale), scalarOf(cc.yType, cc.yZp)};
    if (cc.bias) inputs.push_back(bias);
    const std::vector<bool> constants{false, true, true, true, true, true, true, true, true};
    const Tensor exact = runKernel(quant::makeQLinearConvReference, node, inputs, constants);
    std::vector<Tensor> fastInputs = inputs;
    if (cc.channelsLast) fastInputs[0] = x.toChannelsLast();
    const Tensor fast = runKernel(nullptr, node, fastInputs, constants);
    ASSERT_TRUE(fast.defined());
    if (cc.spatialRank == 2) EXPECT_EQ(fast.layout(), Layout::ChannelsLast);
    expectNearlyEqual(fast, exact, cc.name);
    // Run again: cached primitives and packed weights must give the same answer.
    const Tensor again = runKernel(nullptr, node, fastInputs, constants);
    expectNearlyEqual(again, exact, cc.name + " (second run)");
}

TEST(QuantizedDnnlConv, MatchesReferenceAcrossTypesAndZeroPoints) {
    unsigned seed = 100;
    for (DataType xType : {DataType::UInt8, DataType::Int8}) {
        for (DataType yType : {DataType::UInt8, DataType::Int8}) {
            for (int xZp : {0, 1}) {
                ConvCase cc;
                cc.xType = xType;
                cc.yType = yType;
                cc.xZp = xZp ? (xType == DataType::UInt8 ? 131 : -7) : 0;
                cc.yZp = yType == DataType::UInt8 ? 120 : -3;
                cc.name = dataTypeName(xType) + "->" + dataTypeName(yType) + " xzp " +
                          std::to_string(cc.xZp);
                runConvCase(cc, seed++);
            }
        }
    }
}

// Full-range constant weights: without VNNI the exact path runs oneDNN on the weights with every
// saturating pair split off and adds the rest as sparse fix-ups. Geometries that take its
// different loops: 1x1 (whole tiles at once), strides (phase-split planes), padding on every
// side, a 3-channel 7x7 first layer, groups, batch 2, non-square images, tall images (tiles),
// input channel counts above 512 that are not multiples of 4.
TEST(QuantizedDnnlConv, SparseFixupsAcrossGeometries) {
    struct Geometry { int64_t n, c, h, w, m, k, stride, pad, group; };
    const Geometry geometries[] = {{1, 32, 12, 10, 24, 1, 1, 0, 1}, {2, 16, 11, 13, 8, 1, 2, 0, 1},
                                   {1, 16, 13, 9, 16, 3, 2, 1, 1},  {1, 3, 23, 19, 8, 7, 2, 3, 1},
                                   {2, 16, 9, 9, 16, 3, 1, 1, 2},   {1, 8, 70, 5, 8, 3, 1, 1, 1},
                                   {1, 18, 6, 40, 12, 5, 3, 2, 1},  {1, 1030, 4, 4, 16, 1, 1, 0, 1},
                                   {1, 518, 5, 5, 8, 3, 1, 1, 1}};
    unsigned seed = 700;
    for (const Geometry &geo : geometries) {
        for (DataType xType : {DataType::UInt8, DataType::Int8}) {
            ConvCase cc;
            cc.n = geo.n;
            cc.c = geo.c;
            cc.h = geo.h;
            cc.w = geo.w;
            cc.m = geo.m;
            cc.k = geo.k;
            cc.stride = geo.stride;
            cc.pad = geo.pad;
            cc.group = geo.group;
            cc.xType = xType;
            cc.xZp = xType == DataType::UInt8 ? 37 : -11;
            cc.yZp = 9;
            cc.name = "geometry c" + std::to_string(geo.c) + " k" + std::to_string(geo.k) + " s" +
                      std::to_string(geo.stride) + " p" + std::to_string(geo.pad) + " g" +
                      std::to_string(geo.group) + " " + dataTypeName(xType);
            runConvCase(cc, seed++);
        }
    }
}

TEST(QuantizedDnnlConv, PerTensorWeightsWithoutBias) {
    ConvCase cc;
    cc.name = "per-tensor, no bias";
    cc.perChannel = false;
    cc.bias = false;
    runConvCase(cc, 7);
}

TEST(QuantizedDnnlConv, GroupsDepthwiseStridesAndPadding) {
    ConvCase grouped;
    grouped.name = "group 4, stride 2, pad 1";
    grouped.group = 4;
    grouped.stride = 2;
    grouped.xZp = 17;
    runConvCase(grouped, 11);
    ConvCase depthwise;
    depthwise.name = "depthwise 32, stride 2";
    depthwise.c = depthwise.m = depthwise.group = 32;
    depthwise.stride = 2;
    depthwise.xType = DataType::Int8;
    depthwise.xZp = -5;
    depthwise.activation = "Relu";
    runConvCase(depthwise, 12);
    ConvCase pointwise;
    pointwise.name = "1x1, batch 2, 24 -> 40 channels";
    pointwise.k = 1;
    pointwise.pad = 0;
    pointwise.n = 2;
    pointwise.c = 24;
    pointwise.m = 40;
    runConvCase(pointwise, 13);
    ConvCase first;
    first.name = "first layer: 3 input channels, stride 2";
    first.c = 3;
    first.stride = 2;
    first.h = first.w = 15;
    runConvCase(first, 14);
}

TEST(QuantizedDnnlConv, FusedReluAndClip) {
    for (const char *act : {"Relu", "Clip"}) {
        for (DataType yType : {DataType::UInt8, DataType::Int8}) {
            ConvCase cc;
            cc.activation = act;
            cc.yType = yType;
            cc.yZp = yType == DataType::UInt8 ? 30 : -20;
            cc.xZp = 100;
            cc.name = std::string(act) + " to " + dataTypeName(yType);
            runConvCase(cc, 21);
        }
    }
}

TEST(QuantizedDnnlConv, ChannelsLastInputAndOneDimensional) {
    ConvCase cl;
    cl.name = "channels-last input";
    cl.channelsLast = true;
    cl.xType = DataType::Int8;
    runConvCase(cl, 31);
    ConvCase oneD;
    oneD.name = "1-D, stride 2";
    oneD.spatialRank = 1;
    oneD.h = 20;
    oneD.stride = 2;
    runConvCase(oneD, 32);
    ConvCase threeD;
    threeD.name = "3-D, s8, zero point";
    threeD.spatialRank = 3;
    threeD.h = threeD.w = 5;
    threeD.c = threeD.m = 8;
    threeD.xType = DataType::Int8;
    threeD.xZp = 4;
    runConvCase(threeD, 33);
}

// Weights whose adjacent input channels have opposite signs cannot overflow a 16-bit pair sum, so
// the single fused oneDNN primitive runs even without VNNI: this checks the pairing assumption.
TEST(QuantizedDnnlConv, LargeOppositeSignWeightPairs) {
    for (int64_t k : {3, 1}) {
        ConvCase cc;
        cc.alternatingWeights = true;
        cc.k = k;
        cc.pad = k / 2;
        cc.c = 20;
        cc.name = "alternating weights " + std::to_string(k) + "x" + std::to_string(k);
        runConvCase(cc, 41);
    }
    // The same single primitive with zero points, s8 data and fused activations as post-ops.
    ConvCase relu;
    relu.alternatingWeights = true;
    relu.xType = DataType::Int8;
    relu.xZp = -9;
    relu.yType = DataType::Int8;
    relu.yZp = -3;
    relu.activation = "Relu";
    relu.channelsLast = true;
    relu.name = "alternating weights, s8 -> s8, Relu, channels-last";
    runConvCase(relu, 42);
    ConvCase clip;
    clip.alternatingWeights = true;
    clip.xZp = 100;
    clip.yZp = 30;
    clip.activation = "Clip";
    clip.stride = 2;
    clip.name = "alternating weights, u8 zp 100, Clip, stride 2";
    runConvCase(clip, 43);
    ConvCase oneD = clip;
    oneD.spatialRank = 1;
    oneD.h = 21;
    oneD.name = "alternating weights, 1-D (plain output via a reorder)";
    runConvCase(oneD, 44);
}

// ql_allow_saturation = 1 trades exactness for one primitive: exact with VNNI, and on CPUs
// without it the int16 pair saturation of full-range u8 x s8 data shows up as large errors.
TEST(QuantizedDnnlConv, AllowSaturationRunsOnePrimitive) {
    const Tensor x = randomInts<uint8_t>({1, 32, 6, 6}, 61, 200, 255);
    const Tensor w = randomInts<int8_t>({16, 32, 3, 3}, 62, 100, 127);  // same-sign, large
    std::vector<Tensor> in{x,
                           floatScalar(0.01f),
                           scalarOf(DataType::UInt8, 0),
                           w,
                           floatScalar(0.01f),
                           scalarOf(DataType::Int8, 0),
                           floatScalar(40.0f),
                           scalarOf(DataType::UInt8, 0)};
    const std::vector<bool> constants{false, true, true, true, true, true, true, true};
    const Node exactNode = makeNode("QLinearConv", {{"pads", intsAttr({1, 1, 1, 1})}});
    Node fastNode = exactNode;
    fastNode.attributes[quant::kAllowSaturationAttr] = intAttr(1);
    const Tensor exact = runKernel(quant::makeQLinearConvReference, exactNode, in, constants);
    const Tensor guarded = runKernel(nullptr, exactNode, in, constants);
    const Tensor saturating = runKernel(nullptr, fastNode, in, constants);
    expectNearlyEqual(guarded, exact, "default (guarded)");
    if (quant::cpuHasExactInt8Dot()) {
        expectNearlyEqual(saturating, exact, "ql_allow_saturation with VNNI");
    } else {
        EXPECT_GT(maxAbsDiff(saturating.toPlain(), exact), 1.0)
            << "saturation expected without VNNI";
    }
}

TEST(QuantizedDnnlConv, UInt8WeightsFallBackToReference) {
    const Tensor x = randomInts<uint8_t>({1, 4, 5, 5}, 1, 0, 255);
    const Tensor w = randomInts<uint8_t>({2, 4, 3, 3}, 2, 0, 255);
    const Node node = makeNode("QLinearConv", {{"pads", intsAttr({1, 1, 1, 1})}});
    std::vector<Tensor> in{x,
                           floatScalar(0.1f),
                           scalarOf(DataType::UInt8, 3),
                           w,
                           floatScalar(0.01f),
                           scalarOf(DataType::UInt8, 128),
                           floatScalar(2.0f),
                           scalarOf(DataType::UInt8, 10)};
    const std::vector<bool> constants{false, true, true, true, true, true, true, true};
    const Tensor exact = runKernel(quant::makeQLinearConvReference, node, in, constants);
    const Tensor fast = runKernel(nullptr, node, in, constants);
    ASSERT_TRUE(fast.defined() && exact.defined());
    EXPECT_EQ(maxAbsDiff(fast.toPlain(), exact), 0.0);
}

TEST(QuantizedDnnlConv, BadScaleIsReportedLikeTheReference) {
    const Tensor x = randomInts<uint8_t>({1, 2, 4, 4}, 1, 0, 255);
    const Tensor w = randomInts<int8_t>({2, 2, 1, 1}, 2, -128, 127);
    const Node node = makeNode("QLinearConv");
    std::vector<Tensor> in{x,
                           floatScalar(-1.0f),
                           scalarOf(DataType::UInt8, 0),
                           w,
                           floatScalar(0.1f),
                           scalarOf(DataType::Int8, 0),
                           floatScalar(1.0f),
                           scalarOf(DataType::UInt8, 0)};
    DirectKernel direct(node, in, {});
    std::vector<Tensor> out;
    const Status s = direct.run(in, out);
    EXPECT_FALSE(s.isOk());
    EXPECT_NE(s.message().find("scale must be positive"), std::string::npos) << s.message();
}

// QLinearMatMul against its reference; QGemm against a naive float-free loop written here.
TEST(QuantizedDnnlMatMul, QLinearMatMulMatchesReference) {
    unsigned seed = 200;
    for (DataType aType : {DataType::UInt8, DataType::Int8}) {
        for (bool perColumn : {false, true}) {
            const int64_t m = 6, k = 70, n = 33;
            const Tensor a = randomInt8(aType, {2, m, k}, seed++);
            const Tensor b = randomInts<int8_t>({k, n}, seed++, -128, 127);
            Tensor bScale(DataType::Float, {perColumn ? n : 1});
            for (int64_t i = 0; i < bScale.numel(); ++i)
                bScale.data<float>()[i] = 0.01f + 0.001f * i;
            Tensor bZp(DataType::Int8, bScale.shape());
            for (int64_t i = 0; i < bZp.numel(); ++i) bZp.data<int8_t>()[i] = 0;
            const float yScale = 0.05f * 0.01f * 74 * 74 * std::sqrt(double(k)) / 40;
            const Node node = makeNode("QLinearMatMul", {{"ql_activation", stringAttr("Relu")}});
            std::vector<Tensor> in{a,
                                   floatScalar(0.05f),
                                   scalarOf(aType, aType == DataType::UInt8 ? 128 : 3),
                                   b,
                                   bScale,
                                   bZp,
                                   floatScalar(yScale),
                                   scalarOf(DataType::UInt8, 40)};
            const std::vector<bool> constants{false, true, true, true, true, true, true, true};
            const Tensor exact = runKernel(quant::makeQLinearMatMulReference, node, in, constants);
            const Tensor fast = runKernel(nullptr, node, in, constants);
            expectNearlyEqual(fast, exact, "QLinearMatMul " + dataTypeName(aType));
        }
    }
}

// Classifier-sized constant B (K = 1280 like mobilenet_v2's, 2048 like resnet50's, and K not a
// multiple of 4, where oneDNN's blocks of K start at odd k): without VNNI the kernel runs B with
// its saturating pairs along K split off and adds them back itself (or splits B in halves). Large
// activations (200..255) and same-sign weights make oneDNN's int16 pair sums overflow if the
// pairing along K were assumed wrongly.
TEST(QuantizedDnnlMatMul, LargeConstantBMatchesReference) {
    unsigned seed = 300;
    for (const Shape &mkn : {Shape{1, 1280, 100}, Shape{3, 2048, 64}, Shape{1, 516, 64},
                             Shape{2, 772, 40}, Shape{1, 514, 64}, Shape{3, 517, 64}}) {
        const int64_t m = mkn[0], k = mkn[1], n = mkn[2];
        const Tensor a = randomInts<uint8_t>({m, k}, seed++, 200, 255);
        const Tensor b = randomInts<int8_t>({k, n}, seed++, 60, 127);
        const float yScale = 0.01f * 0.01f * 230 * 95 * float(k) / 200;
        const Node node = makeNode("QLinearMatMul");
        std::vector<Tensor> in{a, floatScalar(0.01f), scalarOf(DataType::UInt8, 0), b,
                               floatScalar(0.01f), scalarOf(DataType::Int8, 0),
                               floatScalar(yScale), scalarOf(DataType::UInt8, 0)};
        const std::vector<bool> constants{false, true, true, true, true, true, true, true};
        const Tensor exact = runKernel(quant::makeQLinearMatMulReference, node, in, constants);
        const Tensor fast = runKernel(nullptr, node, in, constants);
        expectNearlyEqual(fast, exact, "QLinearMatMul K=" + std::to_string(k));
        int64_t spread = 0;  // the outputs are not all saturated: the comparison means something
        for (int64_t i = 0; i < exact.numel(); ++i)
            spread += exact.data<uint8_t>()[i] > 20 && exact.data<uint8_t>()[i] < 250;
        EXPECT_GT(spread, exact.numel() / 2);
    }
}

struct GemmCase {
    bool transA = false, transB = false, perColumn = true, bias = true, floatOut = false;
    DataType aType = DataType::UInt8;
    float alpha = 1.0f;
    std::string activation;
};

void runGemmCase(const GemmCase &gc, unsigned seed) {
    const int64_t m = 5, k = 37, n = 19;
    const Tensor a = randomInt8(gc.aType, gc.transA ? Shape{k, m} : Shape{m, k}, seed);
    const Tensor b = randomInts<int8_t>(gc.transB ? Shape{n, k} : Shape{k, n}, seed + 1, -128, 127);
    const int aZp = gc.aType == DataType::UInt8 ? 120 : -4;
    const float aScale = 0.03f, yScale = 0.03f * 0.01f * 74 * 74 * std::sqrt(float(k)) / 40;
    Tensor bScale(DataType::Float, {gc.perColumn ? n : 1});
    for (int64_t i = 0; i < bScale.numel(); ++i) bScale.data<float>()[i] = 0.008f + 0.0005f * i;
    Tensor bZp(DataType::Int8, bScale.shape());
    for (int64_t i = 0; i < bZp.numel(); ++i) bZp.data<int8_t>()[i] = 0;
    Tensor c(DataType::Int32, {n});
    for (int64_t j = 0; j < n; ++j) c.data<int32_t>()[j] = int32_t(j * 997 % 4001) - 2000;
    std::map<std::string, Attribute> attrs{{"transA", intAttr(gc.transA)},
                                           {"transB", intAttr(gc.transB)},
                                           {"alpha", floatAttr(gc.alpha)}};
    if (!gc.activation.empty()) attrs["ql_activation"] = stringAttr(gc.activation);
    if (gc.activation == "Clip") {
        attrs["ql_clip_min"] = floatAttr(-20 * yScale);
        attrs["ql_clip_max"] = floatAttr(25 * yScale);
    }
    Node node = makeNode("QGemm", attrs);
    node.domain = "com.microsoft";
    std::vector<Tensor> in{a,   floatScalar(aScale),   scalarOf(gc.aType, aZp), b, bScale,
                           bZp, gc.bias ? c : Tensor()};
    if (!gc.floatOut) {
        in.push_back(floatScalar(yScale));
        in.push_back(scalarOf(DataType::UInt8, 128));
    }
    const std::vector<bool> constants{false, true, true, true, true, true, true, true, true};
    const Tensor fast = runKernel(nullptr, node, in, constants);
    ASSERT_TRUE(fast.defined());
    ASSERT_EQ(fast.shape(), (Shape{m, n}));
    // Naive: int32 accumulation, then scale, round half to even, clamp.
    int64_t differing = 0;
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            int64_t acc = gc.bias ? c.data<int32_t>()[j] : 0;
            for (int64_t p = 0; p < k; ++p) {
                const int64_t av =
                    static_cast<int64_t>(a.valueAsDouble(gc.transA ? p * m + i : i * k + p));
                const int64_t bv = b.data<int8_t>()[gc.transB ? j * k + p : p * n + j];
                acc += (av - aZp) * bv;
            }
            const double real = double(gc.alpha) * aScale *
                                bScale.data<float>()[gc.perColumn ? j : 0] * double(acc);
            if (gc.floatOut) {
                EXPECT_NEAR(fast.data<float>()[i * n + j], real, 1e-4 * std::fabs(real) + 1e-6);
                continue;
            }
            double q = std::nearbyint(real / yScale) + 128;
            double lo = 0, hi = 255;
            if (gc.activation == "Relu") lo = 128;
            if (gc.activation == "Clip") lo = 128 - 20, hi = 128 + 25;
            q = std::min(hi, std::max(lo, q));
            const double d = std::fabs(fast.data<uint8_t>()[i * n + j] - q);
            EXPECT_LE(d, 1.0) << "at " << i << "," << j;
            differing += d != 0;
        }
    }
    EXPECT_LE(differing, m * n / 100 + 1);
}

TEST(QuantizedDnnlMatMul, QGemmMatchesNaiveLoop) {
    unsigned seed = 300;
    for (bool transA : {false, true})
        for (bool transB : {false, true}) {
            GemmCase gc;
            gc.transA = transA;
            gc.transB = transB;
            gc.alpha = transB ? 0.5f : 1.0f;
            runGemmCase(gc, seed++);
        }
    GemmCase s8;
    s8.aType = DataType::Int8;
    s8.perColumn = false;
    s8.activation = "Relu";
    runGemmCase(s8, seed++);
    GemmCase clip;
    clip.activation = "Clip";
    clip.bias = false;
    runGemmCase(clip, seed++);
    GemmCase floatOut;
    floatOut.floatOut = true;
    runGemmCase(floatOut, seed++);
}

TEST(QuantizedDnnlMatMul, QGemmReferenceMatchesNaiveLoopToo) {
    // The fallback reference, reached through its own factory, on a [M, N] bias oneDNN cannot take.
    const Tensor a = randomInts<uint8_t>({3, 4}, 5, 0, 255),
                 b = randomInts<int8_t>({4, 2}, 6, -128, 127);
    Tensor c(DataType::Int32, {3, 2});
    for (int i = 0; i < 6; ++i) c.data<int32_t>()[i] = 100 * i - 250;
    Node node = makeNode("QGemm");
    node.domain = "com.microsoft";
    std::vector<Tensor> in{a, floatScalar(0.5f),  scalarOf(DataType::UInt8, 10),
                           b, floatScalar(0.25f), scalarOf(DataType::Int8, 0),
                           c};
    const Tensor y = runKernel(nullptr, node, in, {});
    ASSERT_TRUE(y.defined());
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 2; ++j) {
            int acc = c.data<int32_t>()[i * 2 + j];
            for (int p = 0; p < 4; ++p)
                acc += (a.data<uint8_t>()[i * 4 + p] - 10) * b.data<int8_t>()[p * 2 + j];
            EXPECT_FLOAT_EQ(y.data<float>()[i * 2 + j], 0.125f * float(acc));
        }
}

}  // namespace
}  // namespace ql::test

namespace ql::test {
namespace {

// Through a whole execution plan: the channels-last int8 output reaches the caller as plain ONNX
// order, and the com.microsoft QGemm kernel is found by domain.
TEST(QuantizedDnnlPlan, QLinearConvAndQGemmRunInAPlan) {
    const Tensor x = randomInts<uint8_t>({1, 8, 6, 6}, 51, 0, 255);
    Tensor w = randomInts<int8_t>({8, 8, 3, 3}, 52, -128, 127);
    const Node conv = makeNode(
        "QLinearConv", {{"pads", intsAttr({1, 1, 1, 1})}, {"ql_activation", stringAttr("Relu")}});
    std::vector<Tensor> in{x,
                           floatScalar(0.02f),
                           scalarOf(DataType::UInt8, 60),
                           w,
                           floatScalar(0.01f),
                           scalarOf(DataType::Int8, 0),
                           floatScalar(0.4f),
                           scalarOf(DataType::UInt8, 10)};
    const std::vector<bool> constants{false, true, true, true, true, true, true, true};
    const SingleNodeRun planned = runSingleNode(conv, in, 1, constants);
    ASSERT_TRUE(planned.status.isOk()) << planned.status.message();
    const Tensor exact = runKernel(quant::makeQLinearConvReference, conv, in, constants);
    EXPECT_EQ(planned.outputs[0].layout(), Layout::Plain);
    expectNearlyEqual(planned.outputs[0], exact, "QLinearConv in a plan");
    for (int64_t i = 0; i < exact.numel(); ++i) ASSERT_GE(exact.data<uint8_t>()[i], 10);  // Relu

    Node gemm = makeNode("QGemm", {{"transB", intAttr(1)}});
    gemm.domain = "com.microsoft";
    const Tensor a = randomInts<uint8_t>({2, 8}, 53, 0, 255);
    const Tensor b = randomInts<int8_t>({3, 8}, 54, -128, 127);
    std::vector<Tensor> gin{a,        floatScalar(0.1f),  scalarOf(DataType::UInt8, 0),
                            b,        floatScalar(0.1f),  scalarOf(DataType::Int8, 0),
                            Tensor(), floatScalar(10.0f), scalarOf(DataType::Int8, 0)};
    const SingleNodeRun g =
        runSingleNode(gemm, gin, 1, {false, true, true, true, true, true, false, true, true});
    ASSERT_TRUE(g.status.isOk()) << g.status.message();
    for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 3; ++j) {
            int acc = 0;
            for (int p = 0; p < 8; ++p)
                acc += a.data<uint8_t>()[i * 8 + p] * b.data<int8_t>()[j * 8 + p];
            const float q =
                std::min(127.0f, std::max(-128.0f, std::nearbyint(acc * 0.01f / 10.0f)));
            EXPECT_NEAR(g.outputs[0].data<int8_t>()[i * 3 + j], q, 1.0);
        }
}

}  // namespace
}  // namespace ql::test

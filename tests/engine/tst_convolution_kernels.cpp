// Conv and ConvTranspose against naive loops: groups, depthwise, dilations, pads, strides,
// auto_pad, 1-D/2-D/3-D, constant and runtime weights, channels-last in and out.
#include <gtest/gtest.h>

#include <stdexcept>

#include "conv_reference.h"
#include "direct_kernel_run.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

struct ConvCase {
    const char *name;
    Shape x, w;
    bool bias;
    std::vector<int64_t> strides, dilations, pads;  // ONNX attrs (pads begin..., end...)
    int64_t group;
    std::string autoPad;  // "" = attribute absent
};

Node convNode(const ConvCase &c) {
    Node n = makeNode("Conv");
    if (!c.strides.empty()) n.attributes["strides"] = intsAttr(c.strides);
    if (!c.dilations.empty()) n.attributes["dilations"] = intsAttr(c.dilations);
    if (!c.pads.empty()) n.attributes["pads"] = intsAttr(c.pads);
    if (c.group != 1) n.attributes["group"] = intAttr(c.group);
    if (!c.autoPad.empty()) n.attributes["auto_pad"] = stringAttr(c.autoPad);
    return n;
}

// The padding the ONNX spec prescribes, computed here independently of the kernel.
RefConvParams referenceParams(const ConvCase &c) {
    const size_t n = c.x.size() - 2;
    RefConvParams p;
    p.group = c.group;
    p.strides = c.strides.empty() ? std::vector<int64_t>(n, 1) : c.strides;
    p.dilations = c.dilations.empty() ? std::vector<int64_t>(n, 1) : c.dilations;
    p.padBegin.assign(n, 0);
    p.padEnd.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
        if (c.autoPad == "SAME_UPPER" || c.autoPad == "SAME_LOWER") {
            const int64_t in = c.x[2 + i], s = p.strides[i];
            const int64_t out = (in + s - 1) / s;
            const int64_t total =
                std::max<int64_t>(0, (out - 1) * s + (c.w[2 + i] - 1) * p.dilations[i] + 1 - in);
            p.padBegin[i] = c.autoPad == "SAME_UPPER" ? total / 2 : (total + 1) / 2;
            p.padEnd[i] = total - p.padBegin[i];
        } else if (!c.pads.empty() && c.autoPad != "VALID") {
            p.padBegin[i] = c.pads[i];
            p.padEnd[i] = c.pads[n + i];
        }
    }
    return p;
}

const std::vector<ConvCase> kCases = {
    {"basic3x3", {1, 4, 7, 9}, {8, 4, 3, 3}, true, {}, {}, {1, 1, 1, 1}, 1, ""},
    {"stride2AsymPadNoBias", {1, 5, 11, 10}, {6, 5, 3, 3}, false, {2, 2}, {}, {0, 1, 2, 1}, 1, ""},
    {"group2Dilated", {1, 6, 12, 12}, {8, 3, 3, 3}, true, {}, {2, 2}, {2, 2, 2, 2}, 2, ""},
    {"depthwiseMultiplier", {1, 6, 9, 9}, {12, 1, 3, 3}, true, {2, 2}, {}, {1, 1, 1, 1}, 6, ""},
    {"depthwise", {1, 32, 14, 14}, {32, 1, 3, 3}, true, {1, 1}, {}, {1, 1, 1, 1}, 32, ""},
    {"pointwise", {1, 16, 8, 8}, {32, 16, 1, 1}, true, {}, {}, {}, 1, ""},
    {"sameUpperEven", {1, 3, 10, 9}, {4, 3, 4, 4}, true, {2, 2}, {}, {}, 1, "SAME_UPPER"},
    {"sameLowerEven", {1, 3, 10, 9}, {4, 3, 4, 4}, true, {2, 2}, {}, {}, 1, "SAME_LOWER"},
    {"sameUpperDilated", {1, 2, 8, 8}, {3, 2, 3, 3}, false, {1, 1}, {2, 2}, {}, 1, "SAME_UPPER"},
    {"valid", {1, 3, 9, 9}, {4, 3, 3, 3}, true, {2, 2}, {}, {5, 5, 5, 5}, 1, "VALID"},
    {"firstLayer", {1, 3, 32, 32}, {16, 3, 7, 7}, true, {2, 2}, {}, {3, 3, 3, 3}, 1, ""},
    {"batch2Rect", {2, 8, 6, 10}, {4, 8, 2, 5}, true, {1, 3}, {2, 1}, {1, 0, 0, 2}, 1, ""},
    {"onePixel", {1, 16, 1, 1}, {8, 16, 1, 1}, true, {}, {}, {}, 1, ""},
    {"oneChannel", {2, 1, 9, 9}, {4, 1, 3, 3}, true, {}, {}, {1, 1, 1, 1}, 1, ""},
    {"conv1d", {2, 4, 17}, {6, 2, 3}, true, {2}, {2}, {1, 2}, 2, ""},
    {"conv1dSame", {1, 3, 10}, {5, 3, 4}, false, {3}, {}, {}, 1, "SAME_LOWER"},
    {"conv3d",
     {1, 4, 5, 6, 7},
     {6, 2, 3, 2, 3},
     true,
     {1, 2, 1},
     {1, 1, 2},
     {1, 0, 1, 1, 1, 0},
     2,
     ""},
};

const ConvCase &caseNamed(const std::string &name) {
    for (const ConvCase &c : kCases)
        if (name == c.name) return c;
    throw std::runtime_error("no conv case " + name);
}

class ConvCases : public ::testing::TestWithParam<ConvCase> {};

TEST_P(ConvCases, MatchesNaiveLoopWithConstantAndRuntimeWeights) {
    const ConvCase &c = GetParam();
    const Tensor x = randomTensor(c.x, 1), w = randomTensor(c.w, 2);
    const Tensor b = c.bias ? randomTensor({c.w[0]}, 3) : Tensor();
    const Tensor expected = refConv(x, w, c.bias ? &b : nullptr, referenceParams(c));
    for (bool constantWeights : {true, false}) {
        SCOPED_TRACE(constantWeights ? "constant weights" : "runtime weights");
        auto run =
            runSingleNode(convNode(c), {x, w, b}, 1, {false, constantWeights, constantWeights});
        ASSERT_TRUE(run.status.isOk()) << run.status.message();
        std::string why;
        EXPECT_TRUE(allClose(run.outputs[0], expected, 1e-4, 1e-4, &why)) << why;
    }
}

INSTANTIATE_TEST_SUITE_P(Conv, ConvCases, ::testing::ValuesIn(kCases),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(Conv, TwoDimensionalOutputIsChannelsLastForEitherInputLayout) {
    const ConvCase c = caseNamed("basic3x3");
    const Tensor x = randomTensor(c.x, 4), w = randomTensor(c.w, 5), b = randomTensor({c.w[0]}, 6);
    const Tensor expected = refConv(x, w, &b, referenceParams(c));
    DirectKernel k(convNode(c), {x, w, b}, {false, true, true});
    ASSERT_TRUE(k.status.isOk()) << k.status.message();
    EXPECT_TRUE(k.kernel->acceptsChannelsLast(0));
    for (const Tensor &in : {x, x.toChannelsLast()}) {
        std::vector<Tensor> out;
        ASSERT_TRUE(k.run({in, w, b}, out).isOk());
        EXPECT_EQ(out[0].layout(), Layout::ChannelsLast);
        std::string why;
        EXPECT_TRUE(allClose(out[0].toPlain(), expected, 1e-4, 1e-4, &why)) << why;
    }
}

TEST(Conv, OneDimensionalOutputStaysPlain) {
    const ConvCase c = caseNamed("conv1d");
    const Tensor x = randomTensor(c.x, 7), w = randomTensor(c.w, 8), b = randomTensor({c.w[0]}, 9);
    DirectKernel k(convNode(c), {x, w, b}, {false, true, true});
    std::vector<Tensor> out;
    ASSERT_TRUE(k.run({x, w, b}, out).isOk());
    EXPECT_EQ(out[0].layout(), Layout::Plain);
    EXPECT_TRUE(allClose(out[0], refConv(x, w, &b, referenceParams(c)), 1e-4, 1e-4));
}

TEST(Conv, NewInputShapeAndNewRuntimeWeightsAreHonoured) {
    ConvCase c = caseNamed("stride2AsymPadNoBias");
    const Tensor w1 = randomTensor(c.w, 10), w2 = randomTensor(c.w, 11);
    DirectKernel k(convNode(c), {Tensor(), w1, Tensor()}, {false, false, false});
    for (const Shape &shape : {Shape{1, 5, 11, 10}, Shape{1, 5, 6, 13}, Shape{1, 5, 11, 10}}) {
        c.x = shape;
        const Tensor x = randomTensor(shape, 12);
        for (const Tensor &w : {w1, w2}) {
            std::vector<Tensor> out;
            ASSERT_TRUE(k.run({x, w, Tensor()}, out).isOk());
            std::string why;
            EXPECT_TRUE(allClose(out[0].toPlain(), refConv(x, w, nullptr, referenceParams(c)), 1e-4,
                                 1e-4, &why))
                << shapeToString(shape) << ": " << why;
        }
    }
}

TEST(Conv, ManyInputShapesCycleThroughTheCache) {
    ConvCase c = caseNamed("basic3x3");
    const Tensor w = randomTensor(c.w, 13), b = randomTensor({c.w[0]}, 14);
    DirectKernel k(convNode(c), {Tensor(), w, b}, {false, true, true});
    for (int64_t h : {5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 5, 14}) {
        c.x = {1, 4, h, 9};
        const Tensor x = randomTensor(c.x, static_cast<unsigned>(h));
        std::vector<Tensor> out;
        ASSERT_TRUE(k.run({x, w, b}, out).isOk());
        EXPECT_TRUE(allClose(out[0].toPlain(), refConv(x, w, &b, referenceParams(c)), 1e-4, 1e-4))
            << "height " << h;
    }
}

TEST(Conv, KernelShapeAttributeMustMatchWeights) {
    Node n = convNode(caseNamed("basic3x3"));
    n.attributes["kernel_shape"] = intsAttr({3, 3});
    const Tensor x = randomTensor({1, 4, 7, 9}, 1), w = randomTensor({8, 4, 3, 3}, 2);
    EXPECT_TRUE(runSingleNode(n, {x, w}, 1, {false, true}).status.isOk());
    n.attributes["kernel_shape"] = intsAttr({5, 5});
    const auto bad = runSingleNode(n, {x, w}, 1, {false, true});
    EXPECT_EQ(bad.status.kind(), ErrorKind::BadInput);
}

TEST(Conv, RejectsBadShapesAndTypes) {
    Node n = convNode(caseNamed("basic3x3"));
    const auto mismatch =
        runSingleNode(n, {randomTensor({1, 5, 7, 9}, 1), randomTensor({8, 4, 3, 3}, 2)});
    EXPECT_EQ(mismatch.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(mismatch.status.message().find("group"), std::string::npos)
        << mismatch.status.message();
    const auto badBias = runSingleNode(
        n, {randomTensor({1, 4, 7, 9}, 1), randomTensor({8, 4, 3, 3}, 2), randomTensor({7}, 3)});
    EXPECT_EQ(badBias.status.kind(), ErrorKind::BadInput);
    Tensor ints(DataType::Int32, {1, 4, 7, 9});
    const auto wrongType = runSingleNode(n, {ints, randomTensor({8, 4, 3, 3}, 2)});
    EXPECT_EQ(wrongType.status.kind(), ErrorKind::Unsupported);
    const auto fourD = runSingleNode(
        n, {randomTensor({1, 1, 3, 3, 3, 3}, 1), randomTensor({1, 1, 2, 2, 2, 2}, 2)});
    EXPECT_EQ(fourD.status.kind(), ErrorKind::Unsupported);
    Node g = n;
    g.attributes["group"] = intAttr(3);  // 8 output channels do not split into 3 groups
    const auto badGroup =
        runSingleNode(g, {randomTensor({1, 6, 7, 9}, 1), randomTensor({8, 2, 3, 3}, 2)});
    EXPECT_EQ(badGroup.status.kind(), ErrorKind::BadInput);
}

// ----------------------------------------------------------------------------- ConvTranspose

struct TransposeCase {
    const char *name;
    Shape x, w;  // w: [C, M/group, k...]
    bool bias;
    std::vector<int64_t> strides, dilations, pads, outputPadding, outputShape;
    int64_t group;
    std::string autoPad;
    // Expected by the ONNX spec, worked out by hand: leading pads and output size.
    std::vector<int64_t> refPadBegin, refOut;
};

const std::vector<TransposeCase> kTransposeCases = {
    {"basic", {1, 2, 4, 5}, {2, 3, 3, 3}, true, {}, {}, {}, {}, {}, 1, "", {0, 0}, {6, 7}},
    {"stridePadsOutputPadding",
     {1, 3, 5, 4},
     {3, 2, 3, 3},
     true,
     {2, 2},
     {},
     {1, 1, 1, 1},
     {1, 1},
     {},
     1,
     "",
     {1, 1},
     {10, 8}},
    {"groupsDilated",
     {1, 4, 4, 4},
     {4, 3, 3, 2},
     false,
     {1, 2},
     {2, 2},
     {0, 1, 1, 0},
     {},
     {},
     2,
     "",
     {0, 1},
     {7, 8}},
    // ONNX test_convtranspose_output_shape: total padding -1 -> no leading pad, one extra row/col.
    {"outputShape",
     {1, 1, 3, 3},
     {1, 2, 3, 3},
     false,
     {3, 2},
     {},
     {},
     {},
     {10, 8},
     1,
     "",
     {0, 0},
     {10, 8}},
    // SAME_UPPER: output = input * stride; total padding 1 goes to the end.
    {"sameUpper",
     {1, 1, 3, 3},
     {1, 2, 3, 3},
     false,
     {2, 2},
     {},
     {},
     {},
     {},
     1,
     "SAME_UPPER",
     {0, 0},
     {6, 6}},
    {"sameLower",
     {1, 1, 3, 3},
     {1, 2, 3, 3},
     false,
     {2, 2},
     {},
     {},
     {},
     {},
     1,
     "SAME_LOWER",
     {1, 1},
     {6, 6}},
    {"oneD", {1, 2, 6}, {2, 4, 3}, true, {3}, {}, {1, 0}, {2}, {}, 1, "", {1}, {19}},
    {"threeD",
     {1, 2, 3, 4, 2},
     {2, 2, 2, 3, 2},
     true,
     {2, 1, 2},
     {},
     {0, 1, 0, 0, 1, 1},
     {},
     {},
     1,
     "",
     {0, 1, 0},
     {6, 4, 3}},
};

Node transposeNode(const TransposeCase &c) {
    Node n = makeNode("ConvTranspose");
    if (!c.strides.empty()) n.attributes["strides"] = intsAttr(c.strides);
    if (!c.dilations.empty()) n.attributes["dilations"] = intsAttr(c.dilations);
    if (!c.pads.empty()) n.attributes["pads"] = intsAttr(c.pads);
    if (!c.outputPadding.empty()) n.attributes["output_padding"] = intsAttr(c.outputPadding);
    if (!c.outputShape.empty()) n.attributes["output_shape"] = intsAttr(c.outputShape);
    if (c.group != 1) n.attributes["group"] = intAttr(c.group);
    if (!c.autoPad.empty()) n.attributes["auto_pad"] = stringAttr(c.autoPad);
    return n;
}

class TransposeCases : public ::testing::TestWithParam<TransposeCase> {};

TEST_P(TransposeCases, MatchesNaiveScatter) {
    const TransposeCase &c = GetParam();
    const Tensor x = randomTensor(c.x, 21), w = randomTensor(c.w, 22);
    const Tensor b = c.bias ? randomTensor({c.w[1] * c.group}, 23) : Tensor();
    RefConvParams p;
    p.group = c.group;
    p.strides = c.strides;
    p.dilations = c.dilations;
    p.padBegin = c.refPadBegin;
    const Tensor expected = refConvTranspose(x, w, c.bias ? &b : nullptr, p, c.refOut);
    for (bool constantWeights : {true, false}) {
        auto run = runSingleNode(transposeNode(c), {x, w, b}, 1,
                                 {false, constantWeights, constantWeights});
        ASSERT_TRUE(run.status.isOk()) << run.status.message();
        std::string why;
        EXPECT_TRUE(allClose(run.outputs[0], expected, 1e-4, 1e-4, &why)) << why;
    }
}

INSTANTIATE_TEST_SUITE_P(ConvTranspose, TransposeCases, ::testing::ValuesIn(kTransposeCases),
                         [](const auto &info) { return std::string(info.param.name); });

TEST(ConvTranspose, AcceptsChannelsLastInput) {
    const TransposeCase &c = kTransposeCases[1];
    const Tensor x = randomTensor(c.x, 31), w = randomTensor(c.w, 32),
                 b = randomTensor({c.w[1]}, 33);
    RefConvParams p;
    p.strides = c.strides;
    p.padBegin = c.refPadBegin;
    const Tensor expected = refConvTranspose(x, w, &b, p, c.refOut);
    DirectKernel k(transposeNode(c), {x, w, b}, {false, true, true});
    ASSERT_TRUE(k.status.isOk());
    EXPECT_TRUE(k.kernel->acceptsChannelsLast(0));
    std::vector<Tensor> out;
    ASSERT_TRUE(k.run({x.toChannelsLast(), w, b}, out).isOk());
    EXPECT_TRUE(allClose(out[0].toPlain(), expected, 1e-4, 1e-4));
}

TEST(ConvTranspose, RejectsChannelMismatch) {
    const auto run = runSingleNode(transposeNode(kTransposeCases[0]),
                                   {randomTensor({1, 3, 4, 5}, 1), randomTensor({2, 3, 3, 3}, 2)});
    EXPECT_EQ(run.status.kind(), ErrorKind::BadInput);
}

}  // namespace

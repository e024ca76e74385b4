// Shape family kernels against naive references: every copying op is checked with a per-element
// map "output index -> input index" written from the ONNX definition.

#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <functional>
#include <random>

#include "direct_kernel_run.h"
#include "kernels/kernel.h"
#include "test_support.h"

namespace ql::test {
namespace {

using Index = std::vector<int64_t>;
using IndexMap = std::function<bool(const Index &out, Index *in)>;  // false: constant element

// Reference: out[i] = in[map(i)], or `fill` where the map says so.
Tensor mapReference(const Tensor &in, DataType type, const Shape &outShape, const IndexMap &map,
                    double fill = 0) {
    Tensor out(type, outShape);
    const size_t es = dataTypeSize(type);
    for (int64_t i = 0; i < out.numel(); ++i) {
        Index src;
        auto *dst = static_cast<uint8_t *>(out.rawData()) + i * es;
        if (map(unravelIndex(i, outShape), &src)) {
            std::memcpy(
                dst, static_cast<const uint8_t *>(in.rawData()) + ravelIndex(src, in.shape()) * es,
                es);
        } else if (type == DataType::Float) {
            *reinterpret_cast<float *>(dst) = static_cast<float>(fill);
        } else if (type == DataType::Int64) {
            *reinterpret_cast<int64_t *>(dst) = static_cast<int64_t>(fill);
        }
    }
    return out;
}

Tensor randomInt64(const Shape &shape, unsigned seed) {
    Tensor t(DataType::Int64, shape);
    std::mt19937 rng(seed);
    for (int64_t i = 0; i < t.numel(); ++i)
        t.data<int64_t>()[i] = static_cast<int64_t>(rng()) * 1000003 - (1LL << 40);
    return t;
}

// Copies must be exact; `atol` only for computed values.
void expectSame(const SingleNodeRun &r, const Tensor &expected, size_t output = 0,
                double atol = 0) {
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    ASSERT_GT(r.outputs.size(), output);
    std::string why;
    EXPECT_TRUE(allClose(r.outputs[output], expected, 0, atol, &why)) << why;
}

// ---- Concat / Split ----------------------------------------------------------------------

Tensor concatReference(const std::vector<Tensor> &ins, int64_t axis) {
    Shape shape = ins[0].shape();
    shape[axis] = 0;
    for (const Tensor &t : ins) shape[axis] += t.shape()[axis];
    Tensor out(ins[0].dtype(), shape);
    const size_t es = dataTypeSize(ins[0].dtype());
    for (int64_t i = 0; i < out.numel(); ++i) {
        Index idx = unravelIndex(i, shape);
        size_t k = 0;
        while (idx[axis] >= ins[k].shape()[axis]) idx[axis] -= ins[k++].shape()[axis];
        std::memcpy(
            static_cast<uint8_t *>(out.rawData()) + i * es,
            static_cast<const uint8_t *>(ins[k].rawData()) + ravelIndex(idx, ins[k].shape()) * es,
            es);
    }
    return out;
}

TEST(ConcatKernel, MatchesReferenceOnEveryAxis) {
    for (int64_t axis = -3; axis < 3; ++axis) {
        const int64_t a = axis < 0 ? axis + 3 : axis;
        Shape s0 = {2, 3, 4}, s1 = s0, s2 = s0;
        s1[a] = 1;
        s2[a] = 0;  // a zero-size input contributes nothing
        std::vector<Tensor> ins = {randomTensor(s0, 1), randomTensor(s1, 2), randomTensor(s2, 3)};
        SingleNodeRun r = runSingleNode(makeNode("Concat", {{"axis", intAttr(axis)}}), ins);
        expectSame(r, concatReference(ins, a));
    }
}

TEST(ConcatKernel, Int64AndLargeParallel) {
    std::vector<Tensor> ins = {randomInt64({3, 5}, 4), randomInt64({3, 2}, 5)};
    expectSame(runSingleNode(makeNode("Concat", {{"axis", intAttr(1)}}), ins),
               concatReference(ins, 1));
    std::vector<Tensor> big = {randomTensor({2, 64, 40, 40}, 6), randomTensor({2, 32, 40, 40}, 7)};
    expectSame(runSingleNode(makeNode("Concat", {{"axis", intAttr(1)}}), big),
               concatReference(big, 1));
}

TEST(ConcatKernel, ChannelsLastInputsGiveChannelsLastOutput) {
    const Tensor a = randomTensor({2, 3, 4, 5}, 8), b = randomTensor({2, 6, 4, 5}, 9);
    DirectRun r = runDirect(makeNode("Concat", {{"axis", intAttr(1)}}),
                            {a.toChannelsLast(), b.toChannelsLast()});
    ASSERT_TRUE(r.status.isOk());
    EXPECT_EQ(r.outputs[0].layout(), Layout::ChannelsLast);
    std::string why;
    EXPECT_TRUE(allClose(r.outputs[0].toPlain(), concatReference({a, b}, 1), 0, 0, &why)) << why;
    // Mixed layouts and other axes (channels-last passed even where not accepted) work too.
    r = runDirect(makeNode("Concat", {{"axis", intAttr(-3)}}), {a.toChannelsLast(), a});
    ASSERT_TRUE(r.status.isOk());
    EXPECT_TRUE(allClose(r.outputs[0].toPlain(), concatReference({a, a}, 1), 0, 0, &why)) << why;
    r = runDirect(makeNode("Concat", {{"axis", intAttr(3)}}),
                  {a.toChannelsLast(), a.toChannelsLast()}, 1, 17, DirectOptions{false});
    ASSERT_TRUE(r.status.isOk());
    EXPECT_TRUE(allClose(r.outputs[0].toPlain(), concatReference({a, a}, 3), 0, 0, &why)) << why;
}

TEST(ConcatKernel, MismatchedShapesAreBadInput) {
    SingleNodeRun r = runSingleNode(makeNode("Concat", {{"axis", intAttr(0)}}),
                                    {randomTensor({2, 3}, 1), randomTensor({2, 4}, 2)});
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(r.status.message().find("[2,4]"), std::string::npos) << r.status.message();
}

Tensor sliceAxis(const Tensor &in, int64_t axis, int64_t start, int64_t len) {
    Shape shape = in.shape();
    shape[axis] = len;
    return mapReference(in, in.dtype(), shape, [&](const Index &o, Index *i) {
        *i = o;
        (*i)[axis] += start;
        return true;
    });
}

TEST(SplitKernel, SplitsByAttributeInputAndNumOutputs) {
    const Tensor x = randomTensor({4, 7}, 11);
    // Opset 11: `split` attribute.
    SingleNodeRun r = runSingleNode(
        makeNode("Split", {{"axis", intAttr(-1)}, {"split", intsAttr({2, 0, 5})}}), {x}, 3, {}, 11);
    expectSame(r, sliceAxis(x, 1, 0, 2), 0);
    expectSame(r, sliceAxis(x, 1, 2, 0), 1);
    expectSame(r, sliceAxis(x, 1, 2, 5), 2);
    // Opset 13: `split` input; equal parts without it.
    r = runSingleNode(makeNode("Split", {{"axis", intAttr(1)}}), {x, ints({3, 4})}, 2, {}, 13);
    expectSame(r, sliceAxis(x, 1, 0, 3), 0);
    expectSame(r, sliceAxis(x, 1, 3, 4), 1);
    r = runSingleNode(makeNode("Split"), {x}, 2, {}, 13);
    expectSame(r, sliceAxis(x, 0, 0, 2), 0);
    expectSame(r, sliceAxis(x, 0, 2, 2), 1);
    // Opset 18: num_outputs with a smaller last part.
    r = runSingleNode(makeNode("Split", {{"axis", intAttr(1)}, {"num_outputs", intAttr(3)}}), {x},
                      3, {}, 18);
    expectSame(r, sliceAxis(x, 1, 0, 3), 0);
    expectSame(r, sliceAxis(x, 1, 3, 3), 1);
    expectSame(r, sliceAxis(x, 1, 6, 1), 2);
}

TEST(SplitKernel, BadSizesAreBadInput) {
    const Tensor x = randomTensor({4, 7}, 11);
    SingleNodeRun r =
        runSingleNode(makeNode("Split", {{"axis", intAttr(1)}}), {x, ints({3, 3})}, 2, {}, 13);
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);
    r = runSingleNode(makeNode("Split", {{"axis", intAttr(1)}}), {x}, 2, {},
                      13);  // 7 not divisible by 2
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);
}

// ---- Slice -------------------------------------------------------------------------------

struct SliceAxis {
    int64_t start, end, step;
};

// Reference from the ONNX definition: per-axis index lists after clamping.
Tensor sliceReference(const Tensor &in, const std::map<int64_t, SliceAxis> &spec) {
    std::vector<std::vector<int64_t>> picks(in.rank());
    for (int64_t a = 0; a < in.rank(); ++a) {
        const int64_t dim = in.shape()[a];
        auto it = spec.find(a);
        if (it == spec.end()) {
            for (int64_t i = 0; i < dim; ++i) picks[a].push_back(i);
            continue;
        }
        int64_t s = it->second.start, e = it->second.end, st = it->second.step;
        if (s < 0) s += dim;
        if (e < 0) e += dim;
        if (st > 0) {
            s = std::max<int64_t>(0, std::min(s, dim));
            e = std::max<int64_t>(0, std::min(e, dim));
            for (int64_t i = s; i < e; i += st) picks[a].push_back(i);
        } else {
            s = std::max<int64_t>(0, std::min(s, dim - 1));
            e = std::max<int64_t>(-1, std::min(e, dim - 1));
            for (int64_t i = s; i > e; i += st) picks[a].push_back(i);
        }
    }
    Shape shape;
    for (const auto &p : picks) shape.push_back(static_cast<int64_t>(p.size()));
    return mapReference(in, in.dtype(), shape, [&](const Index &o, Index *i) {
        i->resize(o.size());
        for (size_t a = 0; a < o.size(); ++a) (*i)[a] = picks[a][o[a]];
        return true;
    });
}

TEST(SliceKernel, InputsWithStepsAxesAndClamping) {
    const Tensor x = randomTensor({5, 6, 7}, 21);
    struct Case {
        std::vector<int64_t> starts, ends, axes, steps;
    };
    const std::vector<Case> cases = {
        {{1, 0}, {4, 7}, {0, 2}, {1, 2}},
        {{-1}, {INT64_MIN}, {1}, {-1}},  // full reverse
        {{4, 10}, {-10, INT64_MAX}, {-1, 0}, {-2, 3}},
        {{0}, {INT64_MAX}, {-2}, {1}},
        {{3}, {3}, {0}, {1}},   // empty
        {{2}, {5}, {2}, {-1}},  // empty with negative step
        {{-100}, {100}, {1}, {4}},
    };
    for (const Case &c : cases) {
        std::map<int64_t, SliceAxis> spec;
        for (size_t i = 0; i < c.starts.size(); ++i)
            spec[c.axes[i] < 0 ? c.axes[i] + 3 : c.axes[i]] = {c.starts[i], c.ends[i], c.steps[i]};
        SingleNodeRun r = runSingleNode(
            makeNode("Slice"), {x, ints(c.starts), ints(c.ends), ints(c.axes), ints(c.steps)});
        expectSame(r, sliceReference(x, spec));
    }
}

TEST(SliceKernel, AttributesBeforeOpset10AndInt32Inputs) {
    const Tensor x = randomInt64({4, 5}, 22);
    SingleNodeRun r = runSingleNode(
        makeNode("Slice", {{"starts", intsAttr({1, -3})}, {"ends", intsAttr({3, 1000})}}), {x}, 1,
        {}, 9);
    expectSame(r, sliceReference(x, {{0, {1, 3, 1}}, {1, {-3, 1000, 1}}}));
    const Tensor s32 = Tensor::fromVector<int32_t>({1}, {1}),
                 e32 = Tensor::fromVector<int32_t>({1}, {-1});
    r = runSingleNode(makeNode("Slice"), {x, s32, e32}, 1, {}, 13);
    expectSame(r, sliceReference(x, {{0, {1, -1, 1}}}));
}

TEST(SliceKernel, ChannelsLastInputAndZeroStep) {
    const Tensor x = randomTensor({2, 6, 5, 4}, 23);
    SingleNodeRun r = runSingleNode(makeNode("Slice"), {x.toChannelsLast(), ints({1, 4}),
                                                        ints({5, 0}), ints({1, 3}), ints({2, -1})});
    expectSame(r, sliceReference(x, {{1, {1, 5, 2}}, {3, {4, 0, -1}}}));
    r = runSingleNode(makeNode("Slice"), {x, ints({0}), ints({1}), ints({0}), ints({0})});
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);
}

// ---- Reshape family ----------------------------------------------------------------------

TEST(ReshapeKernel, ZeroCopiesMinusOneInfersAndOutputAliases) {
    const Tensor x = randomTensor({2, 3, 4}, 31);
    DirectRun direct = runDirect(makeNode("Reshape"), {x, ints({0, -1, 2})});
    ASSERT_TRUE(direct.status.isOk());
    EXPECT_EQ(direct.outputs[0].shape(), (Shape{2, 6, 2}));
    EXPECT_EQ(direct.outputs[0].rawData(), x.rawData());  // a view, no copy
    // allowzero: 0 is a real zero-size dim.
    Tensor empty(DataType::Float, {0, 3});
    SingleNodeRun r = runSingleNode(makeNode("Reshape", {{"allowzero", intAttr(1)}}),
                                    {empty, ints({3, 0})}, 1, {}, 14);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    EXPECT_EQ(r.outputs[0].shape(), (Shape{3, 0}));
    r = runSingleNode(makeNode("Reshape"), {x, ints({4, 0, -1})});
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    EXPECT_EQ(r.outputs[0].shape(), (Shape{4, 3, 2}));
    EXPECT_EQ(maxAbsDiff(r.outputs[0], x), 0.0);
}

TEST(ReshapeKernel, ImpossibleShapeNamesBothShapes) {
    SingleNodeRun r =
        runSingleNode(makeNode("Reshape"), {randomTensor({2, 3, 4}, 32), ints({5, -1})});
    ASSERT_EQ(r.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(r.status.message().find("[2,3,4]"), std::string::npos) << r.status.message();
    EXPECT_NE(r.status.message().find("[5,-1]"), std::string::npos) << r.status.message();
    r = runSingleNode(makeNode("Reshape"), {randomTensor({2, 3}, 32), ints({-1, -1})});
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);
}

TEST(FlattenSqueezeUnsqueeze, Shapes) {
    const Tensor x = randomTensor({2, 1, 3, 1}, 33);
    const std::vector<std::pair<int64_t, Shape>> flat = {
        {0, {1, 6}}, {1, {2, 3}}, {-1, {6, 1}}, {4, {6, 1}}, {-4, {1, 6}}};
    for (const auto &[axis, shape] : flat) {
        SingleNodeRun r = runSingleNode(makeNode("Flatten", {{"axis", intAttr(axis)}}), {x});
        ASSERT_TRUE(r.status.isOk()) << r.status.message();
        EXPECT_EQ(r.outputs[0].shape(), shape) << "axis " << axis;
        EXPECT_EQ(maxAbsDiff(r.outputs[0], x), 0.0);
    }
    SingleNodeRun r = runSingleNode(makeNode("Squeeze"), {x, ints({-1})}, 1, {}, 13);
    ASSERT_TRUE(r.status.isOk());
    EXPECT_EQ(r.outputs[0].shape(), (Shape{2, 1, 3}));
    r = runSingleNode(makeNode("Squeeze"), {x}, 1, {}, 13);
    EXPECT_EQ(r.outputs[0].shape(), (Shape{2, 3}));
    r = runSingleNode(makeNode("Squeeze", {{"axes", intsAttr({1})}}), {x}, 1, {}, 11);
    EXPECT_EQ(r.outputs[0].shape(), (Shape{2, 3, 1}));
    r = runSingleNode(makeNode("Squeeze"), {x, ints({0})}, 1, {}, 13);
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);  // dim 0 has size 2

    const Tensor y = randomTensor({3, 4}, 34);
    r = runSingleNode(makeNode("Unsqueeze"), {y, ints({-1, 0})}, 1, {}, 13);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    EXPECT_EQ(r.outputs[0].shape(), (Shape{1, 3, 4, 1}));
    r = runSingleNode(makeNode("Unsqueeze", {{"axes", intsAttr({1, 3})}}), {y}, 1, {}, 11);
    EXPECT_EQ(r.outputs[0].shape(), (Shape{3, 1, 4, 1}));
    r = runSingleNode(makeNode("Unsqueeze"), {y, ints({1, -3})}, 1, {}, 13);
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);  // both name axis 1
}

// ---- Transpose / Expand / Tile / DepthToSpace --------------------------------------------

Tensor transposeReference(const Tensor &in, const std::vector<int64_t> &perm) {
    Shape shape;
    for (int64_t p : perm) shape.push_back(in.shape()[p]);
    return mapReference(in, in.dtype(), shape, [&](const Index &o, Index *i) {
        i->resize(o.size());
        for (size_t d = 0; d < o.size(); ++d) (*i)[perm[d]] = o[d];
        return true;
    });
}

TEST(TransposeKernel, PermutationsDtypesAndLayouts) {
    const Tensor x = randomTensor({2, 3, 4, 5}, 41);
    std::vector<int64_t> perm = {0, 1, 2, 3};
    do {
        expectSame(runSingleNode(makeNode("Transpose", {{"perm", intsAttr(perm)}}), {x}),
                   transposeReference(x, perm));
        expectSame(
            runSingleNode(makeNode("Transpose", {{"perm", intsAttr(perm)}}), {x.toChannelsLast()}),
            transposeReference(x, perm));
    } while (std::next_permutation(perm.begin(), perm.end()));
    const Tensor i64 = randomInt64({3, 1, 4, 2, 5}, 42);
    expectSame(runSingleNode(makeNode("Transpose"), {i64}),
               transposeReference(i64, {4, 3, 2, 1, 0}));
    Tensor u8(DataType::UInt8, {7, 9});
    for (int64_t i = 0; i < u8.numel(); ++i) u8.data<uint8_t>()[i] = static_cast<uint8_t>(i * 7);
    expectSame(runSingleNode(makeNode("Transpose"), {u8}), transposeReference(u8, {1, 0}));
}

TEST(TransposeKernel, LargeHotPathShapes) {
    // ViT key transpose, ShuffleNet channel shuffle: tiled and run-copy paths, in parallel.
    const Tensor k = randomTensor({2, 12, 197, 64}, 43);
    expectSame(runSingleNode(makeNode("Transpose", {{"perm", intsAttr({0, 1, 3, 2})}}), {k}),
               transposeReference(k, {0, 1, 3, 2}));
    const Tensor s = randomTensor({1, 2, 58, 28, 28}, 44);
    expectSame(runSingleNode(makeNode("Transpose", {{"perm", intsAttr({0, 2, 1, 3, 4})}}), {s}),
               transposeReference(s, {0, 2, 1, 3, 4}));
    SingleNodeRun r = runSingleNode(makeNode("Transpose", {{"perm", intsAttr({0, 0})}}),
                                    {randomTensor({2, 2}, 1)});
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);
}

TEST(ExpandTileKernel, BroadcastAndRepeat) {
    const Tensor x = randomTensor({3, 1, 2}, 51);
    const Shape outShape = {2, 3, 4, 2};
    expectSame(runSingleNode(makeNode("Expand"), {x, ints({2, 1, 4, 1})}),
               mapReference(x, DataType::Float, outShape, [](const Index &o, Index *i) {
                   *i = {o[1], 0, o[3]};
                   return true;
               }));
    SingleNodeRun r =
        runSingleNode(makeNode("Expand"), {x, ints({3, 3, 2})});  // 3 vs 3: ok, 1 -> 3
    ASSERT_TRUE(r.status.isOk());
    r = runSingleNode(makeNode("Expand"), {x, ints({4, 1, 1})});
    ASSERT_EQ(r.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(r.status.message().find("[3,1,2]"), std::string::npos) << r.status.message();

    const Tensor t = randomInt64({2, 3}, 52);
    expectSame(runSingleNode(makeNode("Tile"), {t, ints({3, 2})}),
               mapReference(t, DataType::Int64, {6, 6}, [](const Index &o, Index *i) {
                   *i = {o[0] % 2, o[1] % 3};
                   return true;
               }));
    r = runSingleNode(makeNode("Tile"), {t, ints({0, 2})});
    ASSERT_TRUE(r.status.isOk());
    EXPECT_EQ(r.outputs[0].shape(), (Shape{0, 6}));
    // Channels-last inputs are read in place.
    const Tensor image = randomTensor({1, 3, 2, 4}, 53);
    expectSame(runSingleNode(makeNode("Tile"), {image.toChannelsLast(), ints({2, 1, 1, 2})}),
               mapReference(image, DataType::Float, {2, 3, 2, 8}, [](const Index &o, Index *i) {
                   *i = {0, o[1], o[2], o[3] % 4};
                   return true;
               }));
    expectSame(runSingleNode(makeNode("Expand"), {image.toChannelsLast(), ints({2, 1, 1, 1})}),
               mapReference(image, DataType::Float, {2, 3, 2, 4}, [](const Index &o, Index *i) {
                   *i = {0, o[1], o[2], o[3]};
                   return true;
               }));
}

TEST(DepthSpaceKernels, MatchFormulas) {
    const int64_t b = 2;
    const Tensor x = randomTensor({2, 8, 3, 4}, 53);
    for (const std::string mode : {"DCR", "CRD"}) {
        Tensor expected =
            mapReference(x, DataType::Float, {2, 2, 6, 8}, [&](const Index &o, Index *i) {
                const int64_t bh = o[2] % b, bw = o[3] % b;
                const int64_t c =
                    mode == "DCR" ? (bh * b + bw) * 2 + o[1] : o[1] * b * b + bh * b + bw;
                *i = {o[0], c, o[2] / b, o[3] / b};
                return true;
            });
        expectSame(runSingleNode(makeNode("DepthToSpace",
                                          {{"blocksize", intAttr(b)}, {"mode", stringAttr(mode)}}),
                                 {x.toChannelsLast()}),
                   expected);
    }
    const Tensor y = randomTensor({1, 3, 4, 6}, 54);
    expectSame(runSingleNode(makeNode("SpaceToDepth", {{"blocksize", intAttr(b)}}), {y}),
               mapReference(y, DataType::Float, {1, 12, 2, 3}, [&](const Index &o, Index *i) {
                   const int64_t block = o[1] / 3, c = o[1] % 3;
                   *i = {o[0], c, o[2] * b + block / b, o[3] * b + block % b};
                   return true;
               }));
}

// ---- Gather family -----------------------------------------------------------------------

TEST(GatherKernel, AxesNegativeIndicesAndIndexTypes) {
    const Tensor x = randomTensor({4, 5, 3}, 61);
    const std::vector<int64_t> idx = {3, -1, 0, 2, -5, 4};
    for (int64_t axis : {0, 1, -1}) {
        const int64_t a = axis < 0 ? axis + 3 : axis, dim = x.shape()[a];
        std::vector<int64_t> valid;
        for (int64_t i : idx)
            if (i >= -dim && i < dim) valid.push_back(i);
        if (valid.size() % 2) valid.pop_back();
        const Tensor indices = Tensor::fromVector<int64_t>({2, int64_t(valid.size()) / 2}, valid);
        Shape shape(x.shape().begin(), x.shape().begin() + a);
        shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
        shape.insert(shape.end(), x.shape().begin() + a + 1, x.shape().end());
        Tensor expected = mapReference(x, DataType::Float, shape, [&](const Index &o, Index *i) {
            int64_t k = valid[o[a] * indices.shape()[1] + o[a + 1]];
            *i = Index(o.begin(), o.begin() + a);
            i->push_back(k < 0 ? k + dim : k);
            i->insert(i->end(), o.begin() + a + 2, o.end());
            return true;
        });
        expectSame(runSingleNode(makeNode("Gather", {{"axis", intAttr(axis)}}), {x, indices}),
                   expected);
        std::vector<int32_t> v32(valid.begin(), valid.end());
        expectSame(runSingleNode(makeNode("Gather", {{"axis", intAttr(axis)}}),
                                 {x, Tensor::fromVector<int32_t>(indices.shape(), v32)}),
                   expected);
    }
    // A scalar index drops the axis.
    SingleNodeRun r =
        runSingleNode(makeNode("Gather", {{"axis", intAttr(1)}}), {x, Tensor::scalar<int64_t>(-2)});
    expectSame(r, mapReference(x, DataType::Float, {4, 3}, [](const Index &o, Index *i) {
                   *i = {o[0], 3, o[1]};
                   return true;
               }));
}

TEST(GatherKernel, OutOfRangeIndexIsNamed) {
    SingleNodeRun r = runSingleNode(makeNode("Gather"), {randomTensor({4, 2}, 62), ints({1, 7})});
    ASSERT_EQ(r.status.kind(), ErrorKind::BadInput);
    EXPECT_NE(r.status.message().find("index 7"), std::string::npos) << r.status.message();
    EXPECT_NE(r.status.message().find("size 4"), std::string::npos) << r.status.message();
}

TEST(GatherElementsScatter, MatchDefinitions) {
    const Tensor x = randomTensor({3, 4}, 63);
    const Tensor idx = Tensor::fromVector<int64_t>({2, 4}, {0, 2, -1, 1, 1, 0, 2, 2});
    expectSame(runSingleNode(makeNode("GatherElements", {{"axis", intAttr(0)}}), {x, idx}),
               mapReference(x, DataType::Float, {2, 4}, [&](const Index &o, Index *i) {
                   int64_t k = idx.data<int64_t>()[o[0] * 4 + o[1]];
                   *i = {k < 0 ? k + 3 : k, o[1]};
                   return true;
               }));
    const Tensor upd = randomTensor({2, 4}, 64);
    Tensor expected = x.clone();
    for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 4; ++c) {
            int64_t k = idx.data<int64_t>()[r * 4 + c];
            expected.data<float>()[(k < 0 ? k + 3 : k) * 4 + c] += upd.data<float>()[r * 4 + c];
        }
    SingleNodeRun run = runSingleNode(
        makeNode("ScatterElements", {{"reduction", stringAttr("add")}}), {x, idx, upd}, 1, {}, 16);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_LT(maxAbsDiff(run.outputs[0], expected), 1e-6);

    Tensor nd = x.clone();
    const Tensor rows = Tensor::fromVector<int64_t>({2, 1}, {2, 0});
    const Tensor vals = randomTensor({2, 4}, 65);
    std::memcpy(nd.data<float>() + 8, vals.data<float>(), 16);
    std::memcpy(nd.data<float>(), vals.data<float>() + 4, 16);
    expectSame(runSingleNode(makeNode("ScatterND"), {x, rows, vals}), nd);
    expectSame(runSingleNode(makeNode("GatherND"), {nd, rows}), vals);
}

// ---- Pad ---------------------------------------------------------------------------------

int64_t padSource(int64_t i, int64_t dim, const std::string &mode) {
    if (i >= 0 && i < dim) return i;
    if (mode == "constant") return -1;
    if (mode == "edge") return i < 0 ? 0 : dim - 1;
    while (i < 0 || i >= dim) i = i < 0 ? -i : 2 * (dim - 1) - i;  // reflect, as numpy
    return i;
}

Tensor padReference(const Tensor &x, const std::vector<int64_t> &pads, const std::string &mode,
                    double value) {
    const int64_t r = x.rank();
    Shape shape;
    for (int64_t a = 0; a < r; ++a) shape.push_back(x.shape()[a] + pads[a] + pads[a + r]);
    return mapReference(
        x, x.dtype(), shape,
        [&](const Index &o, Index *i) {
            i->resize(r);
            for (int64_t a = 0; a < r; ++a) {
                (*i)[a] = padSource(o[a] - pads[a], x.shape()[a], mode);
                if ((*i)[a] < 0) return false;
            }
            return true;
        },
        value);
}

TEST(PadKernel, ModesOpsetsAndNegativePads) {
    const Tensor x = randomTensor({3, 4, 5}, 71);
    const std::vector<std::vector<int64_t>> padSets = {
        {1, 0, 2, 0, 3, 1}, {0, 2, 0, 2, 0, 4}, {-1, 1, 0, 0, -2, 3}};
    for (const std::string mode : {"constant", "reflect", "edge"}) {
        for (const auto &pads : padSets) {
            const Tensor expected = padReference(x, pads, mode, 1.5);
            SingleNodeRun r =
                runSingleNode(makeNode("Pad", {{"mode", stringAttr(mode)}}),
                              {x, ints(pads), Tensor::scalar<float>(1.5f)}, 1, {}, 13);
            expectSame(r, expected);
            r = runSingleNode(makeNode("Pad", {{"mode", stringAttr(mode)},
                                               {"pads", intsAttr(pads)},
                                               {"value", floatAttr(1.5f)}}),
                              {x}, 1, {}, 10);
            expectSame(r, expected);
        }
    }
    const Tensor i64 = randomInt64({2, 3}, 72);
    expectSame(runSingleNode(makeNode("Pad"), {i64, ints({1, 1, 0, 2})}, 1, {}, 13),
               padReference(i64, {1, 1, 0, 2}, "constant", 0));
    // Opset 18 axes: pads for the listed axes only.
    expectSame(runSingleNode(makeNode("Pad", {{"mode", stringAttr("reflect")}}),
                             {x, ints({2, 3}), Tensor(), ints({-1})}, 1, {}, 18),
               padReference(x, {0, 0, 2, 0, 0, 3}, "reflect", 0));
    SingleNodeRun r = runSingleNode(makeNode("Pad"), {x, ints({1, 1})}, 1, {}, 13);
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);
}

// ---- Small ops ---------------------------------------------------------------------------

TEST(ShapeSizeConstant, Values) {
    const Tensor x = randomTensor({2, 3, 4, 5}, 81);
    const std::vector<std::tuple<int64_t, int64_t, std::vector<int64_t>>> cases = {
        {0, 100, {2, 3, 4, 5}}, {1, -1, {3, 4}}, {-2, 100, {4, 5}}, {-100, 1, {2}}, {3, 1, {}}};
    for (const auto &[start, end, dims] : cases) {
        SingleNodeRun r =
            runSingleNode(makeNode("Shape", {{"start", intAttr(start)}, {"end", intAttr(end)}}),
                          {x.toChannelsLast()}, 1, {}, 15);
        expectSame(r, ints(dims));
    }
    expectSame(runSingleNode(makeNode("Size"), {x}), Tensor::scalar<int64_t>(120));

    Attribute tensor;
    tensor.kind = Attribute::Kind::Tensor;
    tensor.t = randomInt64({2, 2}, 82);
    expectSame(runSingleNode(makeNode("Constant", {{"value", tensor}}), {}), tensor.t);
    expectSame(runSingleNode(makeNode("Constant", {{"value_float", floatAttr(2.5f)}}), {}),
               Tensor::scalar<float>(2.5f));
    expectSame(runSingleNode(makeNode("Constant", {{"value_ints", intsAttr({4, -2})}}), {}),
               ints({4, -2}));
    Attribute sparse;
    SingleNodeRun r = runSingleNode(makeNode("Constant", {{"sparse_value", sparse}}), {});
    EXPECT_EQ(r.status.kind(), ErrorKind::Unsupported);
}

TEST(ConstantOfShapeRange, Values) {
    Attribute value;
    value.kind = Attribute::Kind::Tensor;
    value.t = Tensor::fromVector<int64_t>({1}, {7});
    SingleNodeRun r =
        runSingleNode(makeNode("ConstantOfShape", {{"value", value}}), {ints({2, 3})});
    expectSame(r, Tensor::fromVector<int64_t>({2, 3}, std::vector<int64_t>(6, 7)));
    r = runSingleNode(makeNode("ConstantOfShape"), {ints({3, 0})});
    expectSame(r, Tensor(DataType::Float, {3, 0}));
    r = runSingleNode(makeNode("ConstantOfShape"), {ints({2})});
    expectSame(r, Tensor::fromVector<float>({2}, {0.0f, 0.0f}));

    r = runSingleNode(makeNode("Range"), {Tensor::scalar<int64_t>(10), Tensor::scalar<int64_t>(-3),
                                          Tensor::scalar<int64_t>(-4)});
    expectSame(r, ints({10, 6, 2, -2}));
    r = runSingleNode(makeNode("Range"), {Tensor::scalar<float>(1.0f), Tensor::scalar<float>(2.0f),
                                          Tensor::scalar<float>(0.3f)});
    expectSame(r, Tensor::fromVector<float>({4}, {1.0f, 1.3f, 1.6f, 1.9f}), 0, 1e-6);
    r = runSingleNode(makeNode("Range"), {Tensor::scalar<int32_t>(5), Tensor::scalar<int32_t>(5),
                                          Tensor::scalar<int32_t>(1)});
    expectSame(r, Tensor(DataType::Int32, {0}));
    r = runSingleNode(makeNode("Range"), {Tensor::scalar<int32_t>(1), Tensor::scalar<int32_t>(5),
                                          Tensor::scalar<int32_t>(0)});
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);
}

}  // namespace
}  // namespace ql::test

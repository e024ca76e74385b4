// The com.microsoft QLinear* kernels (Add, Mul, Sigmoid, LeakyRelu, GlobalAveragePool,
// AveragePool, Concat) against hand-computed values and a naive dequantize -> float op ->
// quantize reference written here; 8-bit MaxPool and shape ops; channels-last handling of
// Q/DQ and the contrib ops. Parameter errors: tst_quantization_errors.cpp.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "direct_kernel_run.h"
#include "qlinear_test_support.h"
#include "test_support.h"

using namespace ql;
using test::runSingleNode;
using test::fscalar;
using test::msNode;
using test::zscalar;

namespace {

template <class T>
Tensor randomQ(const Shape &shape, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> dist(std::numeric_limits<T>::min(),
                                            std::numeric_limits<T>::max());
    Tensor t(DataTypeOf<T>::value, shape);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = static_cast<T>(dist(gen));
    return t;
}

// The ONNX QuantizeLinear rule: saturate(round_half_even(v / s) + z).
template <class T>
T quantizeRef(float v, float s, int z) {
    const double q = std::nearbyint(v / s) + z;
    const double lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    return static_cast<T>(std::isnan(q) ? lo : std::min(hi, std::max(lo, q)));
}
template <class T>
float dequantizeRef(T q, float s, int z) { return s * static_cast<float>(int(q) - z); }

// Every element equal, or (for fused float arithmetic that can land on the other side of a
// rounding tie) at most 1 apart in at most `maxOff` of the elements.
void expectNear(const Tensor &got, const Tensor &want, double maxOffFraction = 0.0) {
    ASSERT_EQ(got.shape(), want.shape());
    ASSERT_EQ(got.dtype(), want.dtype());
    const Tensor g = got.toPlain();
    int64_t off = 0;
    for (int64_t i = 0; i < g.numel(); ++i) {
        const double d = std::abs(g.valueAsDouble(i) - want.valueAsDouble(i));
        ASSERT_LE(d, 1.0) << "element " << i << ": " << g.valueAsDouble(i) << " vs "
                          << want.valueAsDouble(i);
        if (d > 0) ++off;
    }
    EXPECT_LE(off, static_cast<int64_t>(maxOffFraction * double(g.numel())))
        << off << " of " << g.numel() << " elements off by one";
}

template <class T>
std::vector<T> values(const Tensor &t) {
    const Tensor p = t.toPlain();
    return std::vector<T>(p.data<T>(), p.data<T>() + p.numel());
}

// ---------------------------------------------------------------- QLinearAdd / QLinearMul

TEST(QLinearAdd, HandComputedUint8) {
    // A: s 0.5 z 10 -> [0, 5, 122.5, -5]; B: s 0.25 z 20 -> [-2.5, 2.5, -5, 20];
    // sum [-2.5, 7.5, 117.5, 15] / 1.0 + 128, halves to even: [126, 136, 246, 143].
    auto a = Tensor::fromVector<uint8_t>({4}, {10, 20, 255, 0});
    auto b = Tensor::fromVector<uint8_t>({4}, {10, 30, 0, 100});
    auto run = runSingleNode(msNode("QLinearAdd"),
                             {a, fscalar(0.5f), zscalar<uint8_t>(10), b, fscalar(0.25f),
                              zscalar<uint8_t>(20), fscalar(1.0f), zscalar<uint8_t>(128)});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(values<uint8_t>(run.outputs[0]), (std::vector<uint8_t>{126, 136, 246, 143}));
}

TEST(QLinearAdd, SaturatesInt8) {
    // 100*1 + 100*1 = 200 -> 127; -100 + -100 -> -128; zero points omitted (0).
    auto a = Tensor::fromVector<int8_t>({2}, {100, -100});
    auto run = runSingleNode(msNode("QLinearAdd"), {a, fscalar(1.f), Tensor(), a, fscalar(1.f),
                                                    Tensor(), fscalar(1.f)});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(values<int8_t>(run.outputs[0]), (std::vector<int8_t>{127, -128}));
}

TEST(QLinearMul, HandComputedInt8) {
    // A: s 0.5 z -2 -> [1, -1, 3]; B: s 2 z 1 -> [4, 6, -2]; product [4, -6, -6] / 4 + 3:
    // [1, -1.5, -1.5] -> [1, -2, -2] + 3 = [4, 1, 1].
    auto a = Tensor::fromVector<int8_t>({3}, {0, -4, 4});
    auto b = Tensor::fromVector<int8_t>({3}, {3, 4, 0});
    auto run = runSingleNode(msNode("QLinearMul"),
                             {a, fscalar(0.5f), zscalar<int8_t>(-2), b, fscalar(2.f),
                              zscalar<int8_t>(1), fscalar(4.f), zscalar<int8_t>(3)});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(values<int8_t>(run.outputs[0]), (std::vector<int8_t>{4, 1, 1}));
}

template <class T>
Tensor binaryReference(bool mul, const Tensor &a, float sa, int za, const Tensor &b, float sb,
                       int zb, float sc, int zc) {
    // Broadcast by coordinates, straight from numpy's rule.
    const int rank = std::max(a.rank(), b.rank());
    auto pad = [&](const Shape &s) {
        Shape p(rank - s.size(), 1);
        p.insert(p.end(), s.begin(), s.end());
        return p;
    };
    const Shape pa = pad(a.shape()), pb = pad(b.shape());
    Shape out(rank);
    for (int d = 0; d < rank; ++d) out[d] = std::max(pa[d], pb[d]);
    Tensor y(DataTypeOf<T>::value, out);
    for (int64_t i = 0; i < y.numel(); ++i) {
        auto c = test::unravelIndex(i, out);
        std::vector<int64_t> ca(rank), cb(rank);
        for (int d = 0; d < rank; ++d) {
            ca[d] = pa[d] == 1 ? 0 : c[d];
            cb[d] = pb[d] == 1 ? 0 : c[d];
        }
        const float ra = dequantizeRef(a.data<T>()[test::ravelIndex(ca, pa)], sa, za);
        const float rb = dequantizeRef(b.data<T>()[test::ravelIndex(cb, pb)], sb, zb);
        y.data<T>()[i] = quantizeRef<T>(mul ? ra * rb : ra + rb, sc, zc);
    }
    return y;
}

template <class T>
void checkBinaryAgainstReference(bool mul, const Shape &sa, const Shape &sb, unsigned seed) {
    const Tensor a = randomQ<T>(sa, seed), b = randomQ<T>(sb, seed + 1);
    const int za = std::is_signed<T>::value ? 3 : 120, zb = std::is_signed<T>::value ? -7 : 131;
    const int zc = std::is_signed<T>::value ? -5 : 125;
    const float fa = 0.031f, fb = 0.047f, fc = mul ? 0.29f : 0.061f;
    auto run = runSingleNode(msNode(mul ? "QLinearMul" : "QLinearAdd"),
                             {a, fscalar(fa), zscalar<T>(za), b, fscalar(fb), zscalar<T>(zb),
                              fscalar(fc), zscalar<T>(zc)},
                             1, {false, true, true, false, true, true, true, true});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    expectNear(run.outputs[0], binaryReference<T>(mul, a, fa, za, b, fb, zb, fc, zc), 0.01);
}

TEST(QLinearAdd, MatchesReferenceSameShapeAndBroadcast) {
    checkBinaryAgainstReference<uint8_t>(false, {2, 16, 48, 48}, {2, 16, 48, 48}, 1);  // parallel
    checkBinaryAgainstReference<int8_t>(false, {2, 16, 48, 48}, {2, 16, 48, 48}, 3);
    checkBinaryAgainstReference<uint8_t>(false, {2, 3, 4, 5}, {3, 1, 1}, 5);
    checkBinaryAgainstReference<int8_t>(false, {1, 5}, {4, 1}, 7);
    checkBinaryAgainstReference<uint8_t>(false, {3, 7}, {1}, 9);
    // The 16-lane path with a broadcast scalar on either side, and rows with a tail.
    checkBinaryAgainstReference<uint8_t>(false, {4, 100}, {1}, 31);
    checkBinaryAgainstReference<int8_t>(false, {1}, {4, 100}, 33);
    checkBinaryAgainstReference<uint8_t>(false, {3, 8, 40}, {40}, 35);  // LayerNorm's beta
}

TEST(QLinearMul, MatchesReferenceSameShapeAndBroadcast) {
    checkBinaryAgainstReference<uint8_t>(true, {1, 8, 96, 96}, {1, 8, 96, 96}, 11);
    checkBinaryAgainstReference<int8_t>(true, {5, 6}, {5, 6}, 13);
    checkBinaryAgainstReference<int8_t>(true, {2, 3, 4, 5}, {1, 3, 1, 1}, 15);
    checkBinaryAgainstReference<uint8_t>(true, {6}, {2, 1}, 17);
    checkBinaryAgainstReference<int8_t>(true, {4, 100}, {1}, 37);  // GELU's 0.5
    checkBinaryAgainstReference<uint8_t>(true, {1}, {4, 100}, 39);
    checkBinaryAgainstReference<int8_t>(true, {3, 8, 40}, {40}, 41);  // LayerNorm's gamma
}

TEST(QLinearAdd, KeepsChannelsLast) {
    const Tensor a = randomQ<uint8_t>({2, 5, 3, 4}, 21), b = randomQ<uint8_t>({2, 5, 3, 4}, 22);
    std::vector<Tensor> inputs{a.toChannelsLast(), fscalar(0.1f), zscalar<uint8_t>(128),
                               b.toChannelsLast(), fscalar(0.2f), zscalar<uint8_t>(100),
                               fscalar(0.25f), zscalar<uint8_t>(110)};
    auto run = test::runDirect(msNode("QLinearAdd"), inputs);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(run.outputs[0].layout(), Layout::ChannelsLast);
    expectNear(run.outputs[0], binaryReference<uint8_t>(false, a, 0.1f, 128, b, 0.2f, 100, 0.25f, 110), 0.01);

    // One channels-last and one plain operand of the same shape: still right, plain output.
    inputs[3] = b;
    run = test::runDirect(msNode("QLinearAdd"), inputs);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    expectNear(run.outputs[0], binaryReference<uint8_t>(false, a, 0.1f, 128, b, 0.2f, 100, 0.25f, 110), 0.01);
}

// ---------------------------------------------------------------- Sigmoid / LeakyRelu

template <class T>
Tensor unaryReference(const Tensor &x, float sx, int zx, float sy, int zy, float (*f)(float, float),
                      float alpha) {
    Tensor y(x.dtype(), x.shape());
    const Tensor p = x.toPlain();
    for (int64_t i = 0; i < x.numel(); ++i)
        y.data<T>()[i] = quantizeRef<T>(f(dequantizeRef(p.data<T>()[i], sx, zx), alpha), sy, zy);
    return y;
}
float sigmoidRef(float r, float) { return 1.0f / (1.0f + std::exp(-r)); }
float leakyRef(float r, float alpha) { return r >= 0 ? r : alpha * r; }

template <class T>
Tensor allValues() {
    Tensor t(DataTypeOf<T>::value, {1, 4, 8, 8});
    for (int i = 0; i < 256; ++i) t.data<T>()[i] = static_cast<T>(static_cast<uint8_t>(i));
    return t;
}

TEST(QLinearSigmoid, HandComputed) {
    // x = [128, 228, 28] with s 0.01 z 128 -> [0, 1, -1]; sigmoid [0.5, 0.7311, 0.2689]
    // / (1/256) -> [128, 187.16, 68.84] -> [128, 187, 69].
    auto x = Tensor::fromVector<uint8_t>({3}, {128, 228, 28});
    auto run = runSingleNode(msNode("QLinearSigmoid"),
                             {x, fscalar(0.01f), zscalar<uint8_t>(128), fscalar(1.0f / 256), zscalar<uint8_t>(0)});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(values<uint8_t>(run.outputs[0]), (std::vector<uint8_t>{128, 187, 69}));
}

TEST(QLinearSigmoid, EveryInputValueMatchesReference) {
    for (bool channelsLast : {false, true}) {
        Tensor xu = allValues<uint8_t>(), xs = allValues<int8_t>();
        if (channelsLast) {
            xu = xu.toChannelsLast();
            xs = xs.toChannelsLast();
        }
        auto ru = test::runDirect(msNode("QLinearSigmoid"),
                                  {xu, fscalar(0.05f), zscalar<uint8_t>(100), fscalar(1.0f / 255), Tensor()});
        ASSERT_TRUE(ru.status.isOk()) << ru.status.message();
        EXPECT_EQ(ru.outputs[0].layout(), xu.layout());
        expectNear(ru.outputs[0], unaryReference<uint8_t>(xu, 0.05f, 100, 1.0f / 255, 0, sigmoidRef, 0));
        auto rs = test::runDirect(msNode("QLinearSigmoid"),
                                  {xs, fscalar(0.07f), zscalar<int8_t>(-3), fscalar(1.0f / 256), zscalar<int8_t>(-128)});
        ASSERT_TRUE(rs.status.isOk()) << rs.status.message();
        expectNear(rs.outputs[0], unaryReference<int8_t>(xs, 0.07f, -3, 1.0f / 256, -128, sigmoidRef, 0));
    }
}

TEST(QLinearLeakyRelu, HandComputedAndEveryValue) {
    // x s 0.5 z 0 int8: [-10, 4] -> [-5, 2]; alpha 0.1 -> [-0.5, 2] / 0.25 + 1 -> [-1, 9].
    auto x = Tensor::fromVector<int8_t>({2}, {-10, 4});
    auto node = msNode("QLinearLeakyRelu", {{"alpha", test::floatAttr(0.1f)}});
    auto run = runSingleNode(node, {x, fscalar(0.5f), zscalar<int8_t>(0), fscalar(0.25f), zscalar<int8_t>(1)});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(values<int8_t>(run.outputs[0]), (std::vector<int8_t>{-1, 9}));

    const Tensor all = allValues<uint8_t>();
    auto full = test::runDirect(node, {all.toChannelsLast(), fscalar(0.02f), zscalar<uint8_t>(77),
                                       fscalar(0.015f), zscalar<uint8_t>(20)});
    ASSERT_TRUE(full.status.isOk()) << full.status.message();
    EXPECT_EQ(full.outputs[0].layout(), Layout::ChannelsLast);
    expectNear(full.outputs[0], unaryReference<uint8_t>(all, 0.02f, 77, 0.015f, 20, leakyRef, 0.1f));
    // Default alpha 0.01.
    auto dflt = runSingleNode(msNode("QLinearLeakyRelu"), {all, fscalar(0.02f), zscalar<uint8_t>(77),
                                                           fscalar(0.001f), zscalar<uint8_t>(200)});
    ASSERT_TRUE(dflt.status.isOk()) << dflt.status.message();
    expectNear(dflt.outputs[0], unaryReference<uint8_t>(all, 0.02f, 77, 0.001f, 200, leakyRef, 0.01f));
}

// ---------------------------------------------------------------- pooling

template <class T>
Tensor globalAverageReference(const Tensor &x, float sx, int zx, float sy, int zy, bool channelsLastAttr) {
    const Shape &s = x.shape();
    const int64_t n = s[0], c = channelsLastAttr ? s.back() : s[1];
    const int64_t size = x.numel() / (n * c);
    Shape out(s.size(), 1);
    out[0] = n;
    out[channelsLastAttr ? s.size() - 1 : 1] = c;
    Tensor y(x.dtype(), out);
    for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch) {
            double sum = 0;
            for (int64_t p = 0; p < size; ++p) {
                const int64_t i = channelsLastAttr ? (b * size + p) * c + ch : (b * c + ch) * size + p;
                sum += dequantizeRef(x.data<T>()[i], sx, zx);
            }
            y.data<T>()[b * c + ch] = quantizeRef<T>(static_cast<float>(sum / size), sy, zy);
        }
    return y;
}

TEST(QLinearGlobalAveragePool, HandComputed) {
    // Channel 0: [10, 20, 30, 41] s 0.5 z 10 -> mean 0.5*(101/4 - 10) = 7.625 / 0.25 = 30.5 -> 30
    // + 50 = 80; channel 1: [0, 0, 0, 1] -> 0.5*(0.25 - 10) = -4.875 / 0.25 = -19.5 -> -20 + 50 = 30.
    auto x = Tensor::fromVector<uint8_t>({1, 2, 2, 2}, {10, 20, 30, 41, 0, 0, 0, 1});
    auto run = runSingleNode(msNode("QLinearGlobalAveragePool"),
                             {x, fscalar(0.5f), zscalar<uint8_t>(10), fscalar(0.25f), zscalar<uint8_t>(50)});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(run.outputs[0].shape(), (Shape{1, 2, 1, 1}));
    EXPECT_EQ(values<uint8_t>(run.outputs[0]), (std::vector<uint8_t>{80, 30}));
}

TEST(QLinearGlobalAveragePool, MatchesReferenceInEveryLayout) {
    const Tensor x = randomQ<int8_t>({2, 24, 7, 9}, 31);
    std::vector<Tensor> in{x, fscalar(0.04f), zscalar<int8_t>(-9), fscalar(0.011f), zscalar<int8_t>(4)};
    const Tensor want = globalAverageReference<int8_t>(x, 0.04f, -9, 0.011f, 4, false);
    auto plain = test::runDirect(msNode("QLinearGlobalAveragePool"), in);
    ASSERT_TRUE(plain.status.isOk()) << plain.status.message();
    expectNear(plain.outputs[0], want, 0.02);
    in[0] = x.toChannelsLast();
    auto stored = test::runDirect(msNode("QLinearGlobalAveragePool"), in);
    ASSERT_TRUE(stored.status.isOk()) << stored.status.message();
    expectNear(stored.outputs[0], want, 0.02);
    // channels_last = 1: the logical input is [N, H, W, C].
    const Tensor nhwc = randomQ<uint8_t>({2, 5, 6, 16}, 33);
    auto attr = test::runDirect(
        msNode("QLinearGlobalAveragePool", {{"channels_last", test::intAttr(1)}}),
        {nhwc, fscalar(0.04f), zscalar<uint8_t>(130), fscalar(0.02f), zscalar<uint8_t>(120)});
    ASSERT_TRUE(attr.status.isOk()) << attr.status.message();
    EXPECT_EQ(attr.outputs[0].shape(), (Shape{2, 1, 1, 16}));
    expectNear(attr.outputs[0], globalAverageReference<uint8_t>(nhwc, 0.04f, 130, 0.02f, 120, true), 0.02);
}

TEST(QLinearAveragePool, HandComputedWithPadding) {
    // x [1,1,2,2] = [2, 4, 6, 8] s 1 z 0; 2x2 window, stride 1, pads 1 at the end:
    // exclude pad: [5, 6, 7, 8]; include pad: [5, 3, 3.5, 2] -> halves to even [5, 3, 4, 2].
    auto x = Tensor::fromVector<uint8_t>({1, 1, 2, 2}, {2, 4, 6, 8});
    std::map<std::string, Attribute> attrs{{"kernel_shape", test::intsAttr({2, 2})},
                                           {"pads", test::intsAttr({0, 0, 1, 1})}};
    std::vector<Tensor> in{x, fscalar(1.f), zscalar<uint8_t>(0), fscalar(1.f), zscalar<uint8_t>(0)};
    auto run = runSingleNode(msNode("QLinearAveragePool", attrs), in);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(values<uint8_t>(run.outputs[0]), (std::vector<uint8_t>{5, 6, 7, 8}));
    attrs["count_include_pad"] = test::intAttr(1);
    run = runSingleNode(msNode("QLinearAveragePool", attrs), in);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(values<uint8_t>(run.outputs[0]), (std::vector<uint8_t>{5, 3, 4, 2}));
}

TEST(QLinearAveragePool, ChannelsLastAttributeAndCeilMode) {
    // Same values per channel in NCHW and NHWC give the same pooled values, transposed.
    const Tensor x = randomQ<int8_t>({1, 3, 5, 5}, 41);
    std::map<std::string, Attribute> attrs{{"kernel_shape", test::intsAttr({2, 2})},
                                           {"strides", test::intsAttr({2, 2})},
                                           {"ceil_mode", test::intAttr(1)}};
    std::vector<Tensor> in{x, fscalar(0.1f), zscalar<int8_t>(2), fscalar(0.05f), zscalar<int8_t>(-1)};
    auto plain = runSingleNode(msNode("QLinearAveragePool", attrs), in);
    ASSERT_TRUE(plain.status.isOk()) << plain.status.message();
    ASSERT_EQ(plain.outputs[0].shape(), (Shape{1, 3, 3, 3}));
    // Naive: the last window in each dim covers only one row/column (ceil mode, no count of
    // the overhang).
    for (int64_t c = 0; c < 3; ++c)
        for (int64_t oh = 0; oh < 3; ++oh)
            for (int64_t ow = 0; ow < 3; ++ow) {
                float sum = 0;
                int count = 0;
                for (int64_t h = oh * 2; h < std::min<int64_t>(5, oh * 2 + 2); ++h)
                    for (int64_t w = ow * 2; w < std::min<int64_t>(5, ow * 2 + 2); ++w) {
                        sum += dequantizeRef(x.data<int8_t>()[(c * 5 + h) * 5 + w], 0.1f, 2);
                        ++count;
                    }
                const int8_t want = quantizeRef<int8_t>(sum / count, 0.05f, -1);
                EXPECT_NEAR(plain.outputs[0].data<int8_t>()[(c * 3 + oh) * 3 + ow], want, 1);
            }
    attrs["channels_last"] = test::intAttr(1);
    Tensor nhwc(DataType::Int8, {1, 5, 5, 3});
    nchwToNhwc(x.data<int8_t>(), nhwc.data<int8_t>(), x.shape(), 1);
    in[0] = nhwc;
    auto last = runSingleNode(msNode("QLinearAveragePool", attrs), in);
    ASSERT_TRUE(last.status.isOk()) << last.status.message();
    ASSERT_EQ(last.outputs[0].shape(), (Shape{1, 3, 3, 3}));
    Tensor back(DataType::Int8, {1, 3, 3, 3});
    nhwcToNchw(last.outputs[0].data<int8_t>(), back.data<int8_t>(), {1, 3, 3, 3}, 1);
    EXPECT_EQ(values<int8_t>(back), values<int8_t>(plain.outputs[0]));
}

// ---------------------------------------------------------------- concat

TEST(QLinearConcat, HandComputedRequantizesAndCopies) {
    // Y s 0.5 z 10. Input 0 s 1 z 0: [1, 2] -> 2/0.5+10 = [12, 14]; input 1 has Y's parameters:
    // copied [7]; input 2 s 0.25 z 100: [101, 99] -> [0.25, -0.25] -> [0.5, -0.5] -> [10, 10].
    auto node = msNode("QLinearConcat", {{"axis", test::intAttr(-1)}});
    std::vector<Tensor> in{fscalar(0.5f), zscalar<uint8_t>(10),
                           Tensor::fromVector<uint8_t>({1, 2}, {1, 2}), fscalar(1.f), zscalar<uint8_t>(0),
                           Tensor::fromVector<uint8_t>({1, 1}, {7}), fscalar(0.5f), zscalar<uint8_t>(10),
                           Tensor::fromVector<uint8_t>({1, 2}, {101, 99}), fscalar(0.25f), zscalar<uint8_t>(100)};
    auto run = runSingleNode(node, in);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(run.outputs[0].shape(), (Shape{1, 5}));
    EXPECT_EQ(values<uint8_t>(run.outputs[0]), (std::vector<uint8_t>{12, 14, 7, 10, 10}));
}

TEST(QLinearConcat, ChannelAxisChannelsLastMatchesReference) {
    const Tensor a = randomQ<int8_t>({2, 3, 4, 5}, 51), b = randomQ<int8_t>({2, 6, 4, 5}, 52);
    auto node = msNode("QLinearConcat", {{"axis", test::intAttr(1)}});
    std::vector<Tensor> in{fscalar(0.1f), zscalar<int8_t>(1), a.toChannelsLast(), fscalar(0.05f),
                           zscalar<int8_t>(-3), b, fscalar(0.2f), zscalar<int8_t>(4)};
    auto run = test::runDirect(node, in);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(run.outputs[0].layout(), Layout::ChannelsLast);
    const Tensor y = run.outputs[0].toPlain();
    ASSERT_EQ(y.shape(), (Shape{2, 9, 4, 5}));
    for (int64_t i = 0; i < y.numel(); ++i) {
        auto c = test::unravelIndex(i, y.shape());
        int8_t want;
        if (c[1] < 3) {
            want = quantizeRef<int8_t>(dequantizeRef(a.data<int8_t>()[test::ravelIndex(c, a.shape())], 0.05f, -3), 0.1f, 1);
        } else {
            c[1] -= 3;
            want = quantizeRef<int8_t>(dequantizeRef(b.data<int8_t>()[test::ravelIndex(c, b.shape())], 0.2f, 4), 0.1f, 1);
        }
        ASSERT_EQ(y.data<int8_t>()[i], want) << "element " << i;
    }
}

// ---------------------------------------------------------------- 8-bit plain ONNX ops

template <class T>
void checkMaxPool8(bool channelsLast) {
    const Tensor x = randomQ<T>({2, 3, 9, 8}, 61);
    Node node = test::makeNode("MaxPool", {{"kernel_shape", test::intsAttr({3, 3})},
                                           {"strides", test::intsAttr({2, 2})},
                                           {"pads", test::intsAttr({1, 1, 1, 1})}});
    auto run = test::runDirect(node, {channelsLast ? x.toChannelsLast() : x});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(run.outputs[0].dtype(), x.dtype());
    const Tensor y = run.outputs[0].toPlain();
    ASSERT_EQ(y.shape(), (Shape{2, 3, 5, 4}));
    for (int64_t i = 0; i < y.numel(); ++i) {
        auto c = test::unravelIndex(i, y.shape());
        T best = std::numeric_limits<T>::lowest();
        for (int64_t kh = 0; kh < 3; ++kh)
            for (int64_t kw = 0; kw < 3; ++kw) {
                const int64_t h = c[2] * 2 - 1 + kh, w = c[3] * 2 - 1 + kw;
                if (h < 0 || h >= 9 || w < 0 || w >= 8) continue;
                best = std::max(best, x.data<T>()[test::ravelIndex({c[0], c[1], h, w}, x.shape())]);
            }
        ASSERT_EQ(y.data<T>()[i], best) << "element " << i;
    }
}

TEST(EightBitOps, MaxPool) {
    checkMaxPool8<uint8_t>(false);
    checkMaxPool8<uint8_t>(true);
    checkMaxPool8<int8_t>(false);
    checkMaxPool8<int8_t>(true);
}

TEST(EightBitOps, ShapeOpsCarryBytes) {
    const Tensor x = randomQ<int8_t>({2, 3, 1, 4}, 71);
    auto reshape = runSingleNode(test::makeNode("Reshape"), {x, test::ints({6, 4})}, 1, {false, true});
    ASSERT_TRUE(reshape.status.isOk()) << reshape.status.message();
    EXPECT_EQ(reshape.outputs[0].shape(), (Shape{6, 4}));
    EXPECT_EQ(values<int8_t>(reshape.outputs[0]), values<int8_t>(x));

    auto flatten = runSingleNode(test::makeNode("Flatten", {{"axis", test::intAttr(2)}}), {x});
    ASSERT_TRUE(flatten.status.isOk()) << flatten.status.message();
    EXPECT_EQ(flatten.outputs[0].shape(), (Shape{6, 4}));
    EXPECT_EQ(values<int8_t>(flatten.outputs[0]), values<int8_t>(x));

    auto squeeze = runSingleNode(test::makeNode("Squeeze"), {x, test::ints({2})}, 1, {false, true});
    ASSERT_TRUE(squeeze.status.isOk()) << squeeze.status.message();
    EXPECT_EQ(squeeze.outputs[0].shape(), (Shape{2, 3, 4}));
    auto unsqueeze = runSingleNode(test::makeNode("Unsqueeze"), {x, test::ints({0})}, 1, {false, true});
    ASSERT_TRUE(unsqueeze.status.isOk()) << unsqueeze.status.message();
    EXPECT_EQ(unsqueeze.outputs[0].shape(), (Shape{1, 2, 3, 1, 4}));
    auto identity = runSingleNode(test::makeNode("Identity"), {x});
    ASSERT_TRUE(identity.status.isOk()) << identity.status.message();
    EXPECT_EQ(values<int8_t>(identity.outputs[0]), values<int8_t>(x));

    const Tensor u = randomQ<uint8_t>({2, 3, 4}, 72);
    auto transpose = runSingleNode(test::makeNode("Transpose", {{"perm", test::intsAttr({2, 0, 1})}}), {u});
    ASSERT_TRUE(transpose.status.isOk()) << transpose.status.message();
    const Tensor &t = transpose.outputs[0];
    ASSERT_EQ(t.shape(), (Shape{4, 2, 3}));
    EXPECT_EQ(t.dtype(), DataType::UInt8);
    for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 3; ++j)
            for (int64_t k = 0; k < 4; ++k)
                EXPECT_EQ(t.data<uint8_t>()[(k * 2 + i) * 3 + j], u.data<uint8_t>()[(i * 3 + j) * 4 + k]);
}

// ---------------------------------------------------------------- Q/DQ layouts

TEST(QuantizeDequantize, PerTensorConstantScaleKeepsChannelsLast) {
    const Tensor xf = test::randomTensor({1, 4, 3, 5}, 81, -3.f, 3.f);
    test::DirectKernel q(test::makeNode("QuantizeLinear"), {xf, fscalar(0.02f), zscalar<int8_t>(3)},
                         {false, true, true});
    ASSERT_TRUE(q.status.isOk()) << q.status.message();
    EXPECT_TRUE(q.kernel->acceptsChannelsLast(0));
    std::vector<Tensor> out;
    ASSERT_TRUE(q.run({xf.toChannelsLast(), fscalar(0.02f), zscalar<int8_t>(3)}, out).isOk());
    EXPECT_EQ(out[0].layout(), Layout::ChannelsLast);
    const Tensor qy = out[0].toPlain();
    for (int64_t i = 0; i < xf.numel(); ++i)
        ASSERT_EQ(qy.data<int8_t>()[i], quantizeRef<int8_t>(xf.data<float>()[i], 0.02f, 3));

    test::DirectKernel dq(test::makeNode("DequantizeLinear"), {qy, fscalar(0.02f), zscalar<int8_t>(3)},
                          {false, true, true});
    ASSERT_TRUE(dq.kernel->acceptsChannelsLast(0));
    ASSERT_TRUE(dq.run({out[0], fscalar(0.02f), zscalar<int8_t>(3)}, out).isOk());
    EXPECT_EQ(out[0].layout(), Layout::ChannelsLast);
    const Tensor dy = out[0].toPlain();
    for (int64_t i = 0; i < xf.numel(); ++i)
        ASSERT_EQ(dy.data<float>()[i], dequantizeRef(qy.data<int8_t>()[i], 0.02f, 3));

    // A per-channel or non-constant scale keeps the plain-only contract.
    test::DirectKernel perAxis(test::makeNode("DequantizeLinear"),
                               {qy, test::floats({0.1f, 0.2f, 0.3f, 0.4f})}, {false, true}, 1, 13);
    EXPECT_FALSE(perAxis.kernel->acceptsChannelsLast(0));
    test::DirectKernel dynamic(test::makeNode("QuantizeLinear"), {xf, fscalar(0.02f)}, {false, false});
    EXPECT_FALSE(dynamic.kernel->acceptsChannelsLast(0));
}

TEST(QuantizeLinear, PerTensorFastPathRoundsHalfToEvenAndSaturates) {
    // s 0.5: 0.25 -> 0.5 -> 0; 0.75 -> 1.5 -> 2; -0.75 -> -1.5 -> -2; 1000 -> 255; NaN -> 0.
    auto x = test::floats({0.25f, 0.75f, -0.75f, 1000.f, std::nanf(""), -1000.f, 1.25f});
    auto run = runSingleNode(test::makeNode("QuantizeLinear"), {x, fscalar(0.5f), zscalar<uint8_t>(10)});
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    EXPECT_EQ(values<uint8_t>(run.outputs[0]), (std::vector<uint8_t>{10, 12, 8, 255, 0, 0, 12}));
}

}  // namespace

namespace {

// DynamicQuantizeLinear over a large input (the parallel, vectorised path): the range includes
// 0, scale = (max - min) / 255, zero point and values as the ONNX formula gives them.
TEST(DynamicQuantizeLinear, LargeInputMatchesFormula) {
    Tensor x(DataType::Float, {3, 200, 257});
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> dist(-1.5f, 4.0f);
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = dist(rng);
    x.data<float>()[12345] = -2.25f;  // the minimum, far into the array
    auto run = runSingleNode(test::makeNode("DynamicQuantizeLinear"), {x}, 3);
    ASSERT_TRUE(run.status.isOk()) << run.status.message();
    float hi = 0.0f;
    for (int64_t i = 0; i < x.numel(); ++i) hi = std::max(hi, x.data<float>()[i]);
    const float scale = (hi + 2.25f) / 255.0f;
    const float zp = std::nearbyint(2.25f / scale);
    EXPECT_FLOAT_EQ(run.outputs[1].data<float>()[0], scale);
    EXPECT_EQ(run.outputs[2].data<uint8_t>()[0], static_cast<uint8_t>(zp));
    int64_t differing = 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
        const float q = std::min(255.0f, std::max(0.0f, std::nearbyint(x.data<float>()[i] / scale) + zp));
        differing += run.outputs[0].data<uint8_t>()[i] != static_cast<uint8_t>(q);
    }
    EXPECT_EQ(differing, 0);
}

TEST(DynamicQuantizeLinear, NaNIsNamedByIndex) {
    Tensor x(DataType::Float, {100000});
    for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = 0.001f * float(i % 997);
    x.data<float>()[77777] = std::nanf("");
    auto run = runSingleNode(test::makeNode("DynamicQuantizeLinear"), {x}, 3);
    ASSERT_FALSE(run.status.isOk());
    EXPECT_NE(run.status.message().find("NaN at index 77777"), std::string::npos)
        << run.status.message();
}

}  // namespace

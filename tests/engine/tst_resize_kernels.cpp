// Resize and Upsample against a reference that follows the ONNX reference implementation's
// structure (recursive 1-D interpolation over an edge-padded array, neighbours by distance),
// plus a few fixtures computed with torch.nn.functional.interpolate.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "direct_kernel_run.h"
#include "kernels/kernel.h"
#include "test_support.h"

namespace ql::test {
namespace {

struct RefOptions {
    std::string mode = "nearest", coordinate = "half_pixel", nearest = "round_prefer_floor";
    double a = -0.75;
    bool exclude = false, antialias = false;
    double extrapolation = 0.0;
};

struct RefAxis {
    double scale = 1.0, lengthResized = 1.0, roiStart = 0.0, roiEnd = 1.0;
    int64_t outLen = 1;
};

std::vector<double> nearestCoeffs(double ratio, bool integer, const std::string &rule) {
    if (integer) return {0, 1};
    if (rule == "round_prefer_floor") return {double(ratio <= 0.5), double(ratio > 0.5)};
    if (rule == "round_prefer_ceil") return {double(ratio < 0.5), double(ratio >= 0.5)};
    if (rule == "floor") return {1, 0};
    return {0, 1};  // ceil
}

std::vector<double> linearCoeffs(double ratio, double scale, bool antialias) {
    if (!antialias) return {1 - ratio, ratio};
    const double s = std::min(scale, 1.0);
    const int start = static_cast<int>(std::floor(-1 / s) + 1), footprint = 2 - 2 * start;
    std::vector<double> c;
    for (int i = start; i < start + footprint; ++i)
        c.push_back(std::clamp(1 - std::fabs((i - ratio) * s), 0.0, 1.0));
    const double sum = std::accumulate(c.begin(), c.end(), 0.0);
    for (double &v : c) v /= sum;
    return c;
}

double cubicWeight(double x, double a) {
    x = std::fabs(x);
    if (x <= 1) return (a + 2) * x * x * x - (a + 3) * x * x + 1;
    if (x < 2) return a * x * x * x - 5 * a * x * x + 8 * a * x - 4 * a;
    return 0;
}

std::vector<double> cubicCoeffs(double ratio, double scale, double a, bool antialias) {
    const double s = antialias ? std::min(scale, 1.0) : 1.0;
    const int start = static_cast<int>(std::floor(-2 / s) + 1), end = 2 - start;
    std::vector<double> c;
    for (int i = start; i < end; ++i) c.push_back(cubicWeight(s * (i - ratio), a));
    if (antialias) {
        const double sum = std::accumulate(c.begin(), c.end(), 0.0);
        for (double &v : c) v /= sum;
    }
    return c;
}

// The n indices of [0, limit) nearest to x, ties to the smaller, in increasing order.
std::vector<int64_t> neighbours(double x, size_t n, int64_t limit) {
    std::vector<int64_t> all(limit);
    std::iota(all.begin(), all.end(), 0);
    std::stable_sort(all.begin(), all.end(),
                     [x](int64_t p, int64_t q) { return std::fabs(x - p) < std::fabs(x - q); });
    all.resize(n);
    std::sort(all.begin(), all.end());
    return all;
}

double interpolate1d(const std::vector<double> &data, const RefAxis &ax, int64_t j,
                     const RefOptions &o) {
    const double in = static_cast<double>(data.size()), x = static_cast<double>(j);
    double src = 0;
    if (o.coordinate == "half_pixel")
        src = (x + 0.5) / ax.scale - 0.5;
    else if (o.coordinate == "pytorch_half_pixel")
        src = ax.outLen > 1 ? (x + 0.5) / ax.scale - 0.5 : 0;
    else if (o.coordinate == "align_corners")
        src = ax.lengthResized == 1 ? 0 : x * (in - 1) / (ax.lengthResized - 1);
    else if (o.coordinate == "asymmetric")
        src = x / ax.scale;
    else if (o.coordinate == "tf_half_pixel_for_nn")
        src = (x + 0.5) / ax.scale;
    else if (o.coordinate == "tf_crop_and_resize") {
        src = ax.lengthResized > 1 ? ax.roiStart * (in - 1) + x * (ax.roiEnd - ax.roiStart) *
                                                                  (in - 1) / (ax.lengthResized - 1)
                                   : 0.5 * (ax.roiStart + ax.roiEnd) * (in - 1);
        if (src < 0 || src > in - 1) return o.extrapolation;
    }
    const double base = std::floor(src);
    const bool integer = src == base;
    const double ratio = integer ? 1.0 : src - base;
    std::vector<double> c;
    if (o.mode == "nearest")
        c = nearestCoeffs(ratio, integer, o.nearest);
    else if (o.mode == "linear")
        c = linearCoeffs(ratio, ax.scale, o.antialias);
    else
        c = cubicCoeffs(ratio, ax.scale, o.a, o.antialias);
    const int64_t pad = static_cast<int64_t>((c.size() + 1) / 2);
    std::vector<double> padded;
    for (int64_t i = -pad; i < static_cast<int64_t>(data.size()) + pad; ++i)
        padded.push_back(data[std::clamp<int64_t>(i, 0, static_cast<int64_t>(data.size()) - 1)]);
    const std::vector<int64_t> idx =
        neighbours(src + pad, c.size(), static_cast<int64_t>(padded.size()));
    if (o.exclude) {
        double sum = 0;
        for (size_t k = 0; k < c.size(); ++k) {
            const int64_t original = idx[k] - pad;
            if (original < 0 || original >= static_cast<int64_t>(data.size())) c[k] = 0;
            sum += c[k];
        }
        for (double &v : c) v /= sum;
    }
    double value = 0;
    for (size_t k = 0; k < c.size(); ++k) value += c[k] * padded[idx[k]];
    return value;
}

// interpolate_nd: resample the sub-tensors along axis 0 first, then interpolate along axis 0.
double interpolateNd(const std::vector<double> &data, const Shape &shape,
                     const std::vector<RefAxis> &axes, const std::vector<int64_t> &out,
                     const RefOptions &o, size_t axis = 0) {
    if (axis + 1 == shape.size()) return interpolate1d(data, axes[axis], out[axis], o);
    const int64_t inner = shapeElementCount(Shape(shape.begin() + axis + 1, shape.end()));
    std::vector<double> column;
    for (int64_t i = 0; i < shape[axis]; ++i) {
        std::vector<double> sub(data.begin() + i * inner, data.begin() + (i + 1) * inner);
        column.push_back(interpolateNd(sub, shape, axes, out, o, axis + 1));
    }
    return interpolate1d(column, axes[axis], out[axis], o);
}

Tensor reference(const Tensor &x, const std::vector<RefAxis> &axes, const RefOptions &o) {
    std::vector<double> data(x.numel());
    for (int64_t i = 0; i < x.numel(); ++i) data[i] = x.valueAsDouble(i);
    Shape outShape;
    for (const RefAxis &a : axes) outShape.push_back(a.outLen);
    Tensor out(DataType::Float, outShape);
    for (int64_t i = 0; i < out.numel(); ++i) {
        std::vector<int64_t> idx(outShape.size());
        for (int64_t d = static_cast<int64_t>(outShape.size()) - 1, r = i; d >= 0; --d) {
            idx[d] = r % outShape[d];
            r /= outShape[d];
        }
        out.data<float>()[i] = static_cast<float>(interpolateNd(data, x.shape(), axes, idx, o));
    }
    return out;
}

// Axes for `scales`: output floor(in * scale), length_resized in * scale.
std::vector<RefAxis> fromScales(const Shape &in, const std::vector<float> &scales) {
    std::vector<RefAxis> axes;
    for (size_t d = 0; d < in.size(); ++d)
        axes.push_back({scales[d], in[d] * double(scales[d]), 0, 1,
                        int64_t(std::floor(in[d] * double(scales[d])))});
    return axes;
}

std::vector<RefAxis> fromSizes(const Shape &in, const std::vector<int64_t> &sizes) {
    std::vector<RefAxis> axes;
    for (size_t d = 0; d < in.size(); ++d)
        axes.push_back({double(sizes[d]) / in[d], double(sizes[d]), 0, 1, sizes[d]});
    return axes;
}

Node resizeNode(const RefOptions &o, std::map<std::string, Attribute> extra = {}) {
    Node n = makeNode("Resize", std::move(extra));
    n.attributes["mode"] = stringAttr(o.mode);
    n.attributes["coordinate_transformation_mode"] = stringAttr(o.coordinate);
    n.attributes["nearest_mode"] = stringAttr(o.nearest);
    n.attributes["cubic_coeff_a"] = floatAttr(static_cast<float>(o.a));
    n.attributes["exclude_outside"] = intAttr(o.exclude);
    n.attributes["extrapolation_value"] = floatAttr(static_cast<float>(o.extrapolation));
    if (o.antialias) n.attributes["antialias"] = intAttr(1);
    return n;
}

void expectClose(const SingleNodeRun &r, const Tensor &expected, const std::string &label) {
    ASSERT_TRUE(r.status.isOk()) << label << ": " << r.status.message();
    std::string why;
    EXPECT_TRUE(allClose(r.outputs[0], expected, 1e-4, 1e-5, &why)) << label << ": " << why;
}

TEST(ResizeKernel, NearestAllRoundingAndCoordinateModes) {
    const Tensor x = randomTensor({1, 2, 5, 7}, 1);
    const std::vector<std::vector<int64_t>> sizeSets = {{1, 2, 9, 4}, {1, 2, 3, 14}, {1, 2, 10, 7}};
    for (const std::string coordinate : {"half_pixel", "pytorch_half_pixel", "align_corners",
                                         "asymmetric", "tf_half_pixel_for_nn"}) {
        for (const std::string rule :
             {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
            RefOptions o;
            o.coordinate = coordinate;
            o.nearest = rule;
            for (const auto &sizes : sizeSets) {
                const int64_t opset = coordinate == "tf_half_pixel_for_nn" ? 12 : 13;
                SingleNodeRun r = runSingleNode(resizeNode(o), {x, Tensor(), Tensor(), ints(sizes)},
                                                1, {}, opset);
                expectClose(r, reference(x, fromSizes(x.shape(), sizes), o),
                            coordinate + "/" + rule);
            }
            const std::vector<float> scales = {1.0f, 1.0f, 2.0f, 0.5f};
            SingleNodeRun r =
                runSingleNode(resizeNode(o), {x, Tensor(), floats(scales)}, 1, {}, 13);
            expectClose(r, reference(x, fromScales(x.shape(), scales), o),
                        coordinate + "/" + rule + " scales");
        }
    }
}

TEST(ResizeKernel, LinearAndCubicWithScalesAndSizes) {
    const Tensor x = randomTensor({1, 3, 6, 5}, 2);
    for (const std::string mode : {"linear", "cubic"}) {
        for (const std::string coordinate :
             {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric"}) {
            for (bool exclude : {false, true}) {
                RefOptions o;
                o.mode = mode;
                o.coordinate = coordinate;
                o.exclude = exclude;
                o.a = exclude ? -0.5 : -0.75;
                const std::string label = mode + "/" + coordinate + (exclude ? "/exclude" : "");
                for (const std::vector<float> &scales :
                     {std::vector<float>{1, 1, 1.7f, 0.6f}, std::vector<float>{1, 1, 0.5f, 3.0f}}) {
                    SingleNodeRun r =
                        runSingleNode(resizeNode(o), {x, Tensor(), floats(scales)}, 1, {}, 13);
                    expectClose(r, reference(x, fromScales(x.shape(), scales), o), label);
                }
                const std::vector<int64_t> sizes = {1, 3, 4, 9};
                // Opset 11: roi and scales are present but empty.
                SingleNodeRun r = runSingleNode(
                    resizeNode(o), {x, floats({}), floats({}), ints(sizes)}, 1, {}, 11);
                expectClose(r, reference(x, fromSizes(x.shape(), sizes), o), label + " sizes");
            }
        }
    }
}

TEST(ResizeKernel, TrilinearAndLargeBilinear) {
    RefOptions o;
    o.mode = "linear";
    const Tensor v = randomTensor({1, 2, 3, 4, 5}, 3);
    const std::vector<int64_t> sizes = {1, 2, 5, 3, 8};
    expectClose(runSingleNode(resizeNode(o), {v, Tensor(), Tensor(), ints(sizes)}),
                reference(v, fromSizes(v.shape(), sizes), o), "trilinear");
    // Large enough for the threaded passes; checked at sampled positions against the reference.
    const Tensor big = randomTensor({1, 21, 28, 28}, 4);
    SingleNodeRun r =
        runSingleNode(resizeNode(o), {big, Tensor(), Tensor(), ints({1, 21, 224, 224})});
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    const std::vector<double> plane(big.data<float>() + 20 * 784, big.data<float>() + 21 * 784);
    const std::vector<RefAxis> axes = fromSizes({28, 28}, {224, 224});
    double worst = 0;
    for (int64_t i = 0; i < 224 * 224; i += 997) {
        const double expected = interpolateNd(plane, {28, 28}, axes, {i / 224, i % 224}, o);
        worst = std::max<double>(
            worst, std::fabs(r.outputs[0].data<float>()[20 * 224 * 224 + i] - expected));
    }
    EXPECT_LT(worst, 1e-5);
}

TEST(ResizeKernel, CropAndResizeExtrapolates) {
    const Tensor x = randomTensor({1, 1, 4, 5}, 5);
    for (const std::string mode : {"nearest", "linear", "cubic"}) {
        RefOptions o;
        o.mode = mode;
        o.coordinate = "tf_crop_and_resize";
        o.extrapolation = 10.0;
        const std::vector<float> roi = {0, 0, 0.4f, -0.3f, 1, 1, 1.3f, 0.8f};
        std::vector<RefAxis> axes = fromSizes(x.shape(), {1, 1, 3, 6});
        for (size_t d = 0; d < 4; ++d) {
            axes[d].roiStart = roi[d];
            axes[d].roiEnd = roi[d + 4];
        }
        SingleNodeRun r =
            runSingleNode(resizeNode(o), {x, floats(roi), Tensor(), ints({1, 1, 3, 6})});
        expectClose(r, reference(x, axes, o), mode);
    }
}

TEST(ResizeKernel, Opset18AxesAspectPolicyAndAntialias) {
    const Tensor x = randomTensor({1, 2, 4, 6}, 6);
    RefOptions o;
    o.mode = "linear";
    for (const std::string policy : {"not_larger", "not_smaller"}) {
        const double scale = policy == "not_larger" ? 5.0 / 6.0 : 5.0 / 4.0;
        std::vector<RefAxis> axes = fromSizes(x.shape(), {1, 2, 4, 6});
        for (int d : {2, 3}) {
            axes[d].scale = scale;
            axes[d].lengthResized = scale * x.shape()[d];
            axes[d].outLen = static_cast<int64_t>(std::floor(scale * x.shape()[d] + 0.5));
        }
        Node node = resizeNode(
            o, {{"axes", intsAttr({-1, 2})}, {"keep_aspect_ratio_policy", stringAttr(policy)}});
        SingleNodeRun r = runSingleNode(node, {x, Tensor(), Tensor(), ints({5, 5})}, 1, {}, 18);
        expectClose(r, reference(x, axes, o), policy);
    }
    for (const std::string mode : {"linear", "cubic"}) {
        RefOptions aa;
        aa.mode = mode;
        aa.antialias = true;
        aa.a = -0.5;
        const std::vector<float> scales = {0.3f, 0.5f};
        std::vector<RefAxis> axes = fromScales(x.shape(), {1, 1, 0.3f, 0.5f});
        SingleNodeRun r = runSingleNode(resizeNode(aa, {{"axes", intsAttr({2, 3})}}),
                                        {x, Tensor(), floats(scales)}, 1, {}, 18);
        expectClose(r, reference(x, axes, aa), "antialias " + mode);
    }
}

TEST(ResizeKernel, AntialiasMatchesTorchFixture) {
    // torch.nn.functional.interpolate(x, size, mode, align_corners=False, antialias=True),
    // x = arange(32).reshape(1, 1, 4, 8) ** 2 / 10. Torch (like PIL) drops taps outside the
    // image, which is ONNX's antialias with exclude_outside=1; its bicubic uses a = -0.5.
    Tensor x(DataType::Float, {1, 1, 4, 8});
    for (int i = 0; i < 32; ++i) x.data<float>()[i] = static_cast<float>(i * i) / 10.0f;
    RefOptions o;
    o.mode = "linear";
    o.antialias = true;
    o.exclude = true;
    expectClose(
        runSingleNode(resizeNode(o), {x, Tensor(), Tensor(), ints({1, 1, 2, 3})}, 1, {}, 18),
        Tensor::fromVector<float>({1, 1, 2, 3}, {7.86842155f, 11.7452392f, 16.6947383f, 40.8187980f,
                                                 50.7166709f, 61.6872215f}),
        "bilinear");
    o.mode = "cubic";
    o.a = -0.5;
    SingleNodeRun r =
        runSingleNode(resizeNode(o), {x, Tensor(), Tensor(), ints({1, 1, 3, 5})}, 1, {}, 18);
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    const std::vector<float> torch = {0.59791875f, 1.41873681f, 2.76568365f, 4.67553234f,
                                      6.97084188f, 15.8965683f, 19.9706020f, 24.7176228f,
                                      30.0275402f, 35.5760689f, 52.2707481f, 59.5979919f,
                                      67.7450943f, 76.4550934f, 85.2568283f};
    for (size_t i = 0; i < torch.size(); ++i)
        EXPECT_NEAR(r.outputs[0].data<float>()[i], torch[i], 2e-4) << i;
}

TEST(ResizeKernel, IntegerDataNearestAndErrors) {
    Tensor x(DataType::Int64, {1, 1, 2, 3});
    for (int i = 0; i < 6; ++i) x.data<int64_t>()[i] = (int64_t(1) << 40) + i;
    RefOptions o;
    o.coordinate = "asymmetric";
    o.nearest = "floor";
    SingleNodeRun r = runSingleNode(resizeNode(o), {x, Tensor(), floats({1, 1, 2, 2})});
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    ASSERT_EQ(r.outputs[0].shape(), (Shape{1, 1, 4, 6}));
    for (int64_t i = 0; i < 24; ++i)
        EXPECT_EQ(r.outputs[0].data<int64_t>()[i], x.data<int64_t>()[(i / 6 / 2) * 3 + (i % 6) / 2])
            << i;

    r = runSingleNode(resizeNode(o), {x, Tensor(), floats({1, 1, 2, 2}), ints({1, 1, 4, 6})});
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);  // both scales and sizes
    r = runSingleNode(resizeNode(o), {x});
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);  // neither
    r = runSingleNode(resizeNode(o), {x, Tensor(), floats({2, 2})});
    EXPECT_EQ(r.status.kind(), ErrorKind::BadInput);  // wrong count
    o.mode = "linear";
    r = runSingleNode(resizeNode(o), {x, Tensor(), floats({1, 1, 2, 2})});
    EXPECT_EQ(r.status.kind(), ErrorKind::Unsupported);
    EXPECT_NE(r.status.message().find("int64"), std::string::npos) << r.status.message();
    // Zero-size output is fine.
    r = runSingleNode(resizeNode(RefOptions()),
                      {randomTensor({1, 1, 2, 3}, 7), Tensor(), Tensor(), ints({1, 1, 0, 3})});
    ASSERT_TRUE(r.status.isOk()) << r.status.message();
    EXPECT_EQ(r.outputs[0].shape(), (Shape{1, 1, 0, 3}));
}

TEST(ResizeKernel, ChannelsLastInputStaysChannelsLast) {
    const Tensor x = randomTensor({2, 3, 5, 4}, 9);
    for (const std::string mode : {"nearest", "linear", "cubic"}) {
        RefOptions o;
        o.mode = mode;
        const std::vector<int64_t> sizes = {2, 3, 8, 3};
        const std::vector<Tensor> inputs = {x.toChannelsLast(), Tensor(), Tensor(), ints(sizes)};
        DirectKernel direct(resizeNode(o), inputs, {}, 1, 13);
        ASSERT_TRUE(direct.status.isOk());
        ASSERT_TRUE(direct.kernel->acceptsChannelsLast(0));
        std::vector<Tensor> outputs;
        ASSERT_TRUE(direct.run(inputs, outputs).isOk());
        EXPECT_EQ(outputs[0].layout(), Layout::ChannelsLast);
        std::string why;
        EXPECT_TRUE(allClose(outputs[0].toPlain(), reference(x, fromSizes(x.shape(), sizes), o),
                             1e-4, 1e-5, &why))
            << mode << ": " << why;
    }
}

TEST(UpsampleKernel, LegacyOpsetsUseFloorUpAndCeilDown) {
    const Tensor x = randomTensor({1, 2, 3, 4}, 8);
    auto expectedNearest = [&](int64_t sh, int64_t sw) {
        Tensor e(DataType::Float, {1, 2, 3 * sh, 4 * sw});
        for (int64_t c = 0; c < 2; ++c)
            for (int64_t h = 0; h < 3 * sh; ++h)
                for (int64_t w = 0; w < 4 * sw; ++w)
                    e.data<float>()[(c * 3 * sh + h) * 4 * sw + w] =
                        x.data<float>()[(c * 3 + h / sh) * 4 + w / sw];
        return e;
    };
    Node up = makeNode("Upsample");
    up.attributes["scales"] = floatsAttr({1, 1, 2, 3});
    expectClose(runSingleNode(up, {x}, 1, {}, 7), expectedNearest(2, 3), "Upsample-7");
    up.attributes.erase("scales");
    expectClose(runSingleNode(up, {x, floats({1, 1, 3, 2})}, 1, {}, 9), expectedNearest(3, 2),
                "Upsample-9");
    up.attributes["mode"] = stringAttr("linear");
    RefOptions lin;
    lin.mode = "linear";
    lin.coordinate = "asymmetric";
    expectClose(runSingleNode(up, {x, floats({1, 1, 2, 2})}, 1, {}, 9),
                reference(x, fromScales(x.shape(), {1, 1, 2, 2}), lin), "Upsample-9 linear");

    // Resize-10 downsampling (ONNX's Resize-10 example): [[1,2,3,4],[5,6,7,8]] * 0.6 -> [[1,3]].
    Node resize = makeNode("Resize");
    const Tensor y = Tensor::fromVector<float>({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
    expectClose(runSingleNode(resize, {y, floats({1, 1, 0.6f, 0.6f})}, 1, {}, 10),
                Tensor::fromVector<float>({1, 1, 1, 2}, {1, 3}), "Resize-10");
}

}  // namespace
}  // namespace ql::test

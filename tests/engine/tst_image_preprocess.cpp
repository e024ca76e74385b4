// Image preprocessing against torchvision on PIL (fixtures from
// tests/tools/make_preprocess_fixtures.py: Resize with PIL's antialiased bilinear filter,
// CenterCrop with Python's rounding and zero padding, Grayscale, ToTensor, Normalize, and a BGR
// flip), 16-bit images at 8-bit scale, the spec parser and presets, the default spec from a
// model input, and the errors.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "onnx_io/tensor_file.h"
#include "quant/image_preprocess.h"

using namespace ql;
using namespace ql::quant;

namespace {

std::string fixture(const std::string &name) {
    const char *root = std::getenv("QL_TEST_DATA");
    return std::string(root ? root : "tests/data") + "/preprocess/" + name;
}

DecodedImage imageFrom(const Tensor &pixels) {
    DecodedImage image;
    image.height = int(pixels.shape()[0]);
    image.width = int(pixels.shape()[1]);
    image.channels = pixels.rank() == 3 ? int(pixels.shape()[2]) : 1;
    const uint8_t *data = pixels.data<uint8_t>();
    image.pixels8.assign(data, data + pixels.numel());
    return image;
}

class TorchvisionCase : public ::testing::TestWithParam<const char *> {};

TEST_P(TorchvisionCase, MatchesTorchvisionOnPil) {
    const std::string name = GetParam();
    auto pixels = readNpy(fixture(name + ".image.npy"));
    ASSERT_TRUE(pixels) << pixels.status().message();
    auto expected = readNpy(fixture(name + ".expected.npy"));
    ASSERT_TRUE(expected) << expected.status().message();
    std::ifstream specFile(fixture(name + ".spec.txt"));
    std::string specText;
    std::getline(specFile, specText);
    auto spec = parsePreprocessSpec(specText);
    ASSERT_TRUE(spec) << spec.status().message();
    auto out = preprocessImage(imageFrom(*pixels), *spec, name);
    ASSERT_TRUE(out) << out.status().message();
    ASSERT_EQ(out->shape(), expected->shape()) << name;
    // PIL's 8-bit resampling is reproduced exactly; after it only float32 division and
    // normalisation, done in the same order: equal up to one rounding of the last operation.
    const float *got = out->data<float>(), *want = expected->data<float>();
    float worst = 0;
    for (int64_t i = 0; i < out->numel(); ++i) worst = std::max(worst, std::abs(got[i] - want[i]));
    EXPECT_LE(worst, 1e-6f) << name << ": largest difference " << worst;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TorchvisionCase,
                         ::testing::Values("imagenet_landscape", "downscale_portrait_bgr",
                                           "upscale_odd_crop", "exact_size_gray", "rgb_to_gray",
                                           "crop_larger_pads"));

TEST(ImagePreprocess, SixteenBitImagesAtEightBitScale) {
    // A 16-bit image whose values are the 8-bit ones times 257 gives the 8-bit result within
    // PIL's 8-bit rounding of each resampling pass (half a level per pass).
    auto pixels = readNpy(fixture("upscale_odd_crop.image.npy"));
    ASSERT_TRUE(pixels);
    DecodedImage eight = imageFrom(*pixels), sixteen = eight;
    sixteen.pixels16.assign(eight.pixels8.begin(), eight.pixels8.end());
    for (uint16_t &v : sixteen.pixels16) v = uint16_t(v * 257);
    sixteen.pixels8.clear();
    auto spec = parsePreprocessSpec("resize=40,crop=33x35,scale=1/255");
    ASSERT_TRUE(spec);
    auto a = preprocessImage(eight, *spec, "8-bit"), b = preprocessImage(sixteen, *spec, "16-bit");
    ASSERT_TRUE(a && b);
    float worst = 0;
    for (int64_t i = 0; i < a->numel(); ++i)
        worst = std::max(worst, std::abs(a->data<float>()[i] - b->data<float>()[i]));
    EXPECT_LE(worst, 1.0f / 255);
    // Without resampling there is nothing to round: equal.
    auto plain = parsePreprocessSpec("scale=1/255");
    auto c = preprocessImage(eight, *plain, "8-bit"),
         d = preprocessImage(sixteen, *plain, "16-bit");
    ASSERT_TRUE(c && d);
    for (int64_t i = 0; i < c->numel(); ++i)
        ASSERT_FLOAT_EQ(c->data<float>()[i], d->data<float>()[i]);
}

TEST(ImagePreprocess, LayoutAndUint8) {
    DecodedImage image;
    image.width = 2;
    image.height = 1;
    image.channels = 3;
    image.pixels8 = {10, 20, 30, 40, 50, 60};
    auto nhwc = parsePreprocessSpec("layout=nhwc,dtype=uint8");
    ASSERT_TRUE(nhwc);
    auto out = preprocessImage(image, *nhwc, "x");
    ASSERT_TRUE(out);
    EXPECT_EQ(out->shape(), Shape({1, 2, 3}));
    EXPECT_EQ(out->dtype(), DataType::UInt8);
    const uint8_t *u = out->data<uint8_t>();
    EXPECT_EQ(std::vector<uint8_t>(u, u + 6), std::vector<uint8_t>({10, 20, 30, 40, 50, 60}));
    auto bgr = parsePreprocessSpec("color=bgr,scale=0.5");
    auto chw = preprocessImage(image, *bgr, "x");
    ASSERT_TRUE(chw);
    EXPECT_EQ(chw->shape(), Shape({3, 1, 2}));
    const float *f = chw->data<float>();
    EXPECT_EQ(std::vector<float>(f, f + 6), std::vector<float>({15, 30, 10, 25, 5, 20}));
}

TEST(ImagePreprocess, SpecTextPresetsAndErrors) {
    auto imagenet = parsePreprocessSpec("imagenet");
    ASSERT_TRUE(imagenet);
    EXPECT_EQ(formatPreprocessSpec(*imagenet),
              "color=rgb,resize=256,crop=224x224,scale=1/255,mean=0.485:0.456:0.406,"
              "std=0.229:0.224:0.225,layout=nchw,dtype=float32");
    // The text round-trips.
    auto again = parsePreprocessSpec(formatPreprocessSpec(*imagenet));
    ASSERT_TRUE(again);
    EXPECT_EQ(formatPreprocessSpec(*again), formatPreprocessSpec(*imagenet));
    EXPECT_EQ(formatPreprocessSpec(*parsePreprocessSpec("none")),
              "color=rgb,layout=nchw,dtype=float32");
    for (const char *bad :
         {"colour=rgb", "resize=0", "resize=12x", "crop=axb", "scale=1/0", "mean=1:2", "std=0",
          "layout=nwhc", "dtype=int8", "resize", "dtype=uint8,scale=1/255"}) {
        auto spec = parsePreprocessSpec(bad);
        ASSERT_FALSE(spec) << bad;
        EXPECT_EQ(spec.status().kind(), ErrorKind::BadInput) << bad;
        EXPECT_NE(spec.status().message().find("--preprocess"), std::string::npos) << bad;
    }
    EXPECT_NE(parsePreprocessSpec("colour=rgb").status().message().find("colour"),
              std::string::npos);
}

TEST(ImagePreprocess, DefaultSpecFromTheModelInput) {
    ValueInfo nchw{"x", DataType::Float, {-1, 1, 28, 28}, {"batch", "", "", ""}, true};
    auto gray = defaultPreprocessSpec(nchw);
    ASSERT_TRUE(gray);
    EXPECT_EQ(formatPreprocessSpec(*gray),
              "color=gray,resize=28,crop=28x28,scale=1/255,layout=nchw,dtype=float32");
    ValueInfo nhwc{"x", DataType::Float, {1, 224, 160, 3}, {}, true};
    auto rgb = defaultPreprocessSpec(nhwc);
    ASSERT_TRUE(rgb);
    EXPECT_EQ(formatPreprocessSpec(*rgb),
              "color=rgb,resize=224,crop=224x160,scale=1/255,layout=nhwc,dtype=float32");
    ValueInfo tokens{"ids", DataType::Int64, {1, 128}, {}, true};
    EXPECT_FALSE(defaultPreprocessSpec(tokens));
    ValueInfo fourChannels{"x", DataType::Float, {1, 4, 32, 32}, {}, true};
    auto four = defaultPreprocessSpec(fourChannels);
    ASSERT_FALSE(four);
    EXPECT_NE(four.status().message().find("4 channels"), std::string::npos);
}

TEST(ImagePreprocess, BadImagesAreNamed) {
    DecodedImage empty;
    auto spec = parsePreprocessSpec("none");
    auto out = preprocessImage(empty, *spec, "folder/broken.png");
    ASSERT_FALSE(out);
    EXPECT_NE(out.status().message().find("folder/broken.png"), std::string::npos);
    DecodedImage gray;
    gray.width = gray.height = 2;
    gray.channels = 1;
    gray.pixels8 = {0, 1, 2, 3};
    auto threeMeans = parsePreprocessSpec("color=gray,mean=0.1:0.2:0.3");
    ASSERT_TRUE(threeMeans);
    EXPECT_FALSE(preprocessImage(gray, *threeMeans, "g.png"));
}

}  // namespace

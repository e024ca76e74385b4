// Tensor storage, layouts, half-precision conversion and tensor files (.npy, .pb).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "ir/tensor.h"
#include "ir/tensor_checks.h"
#include "onnx_io/tensor_file.h"
#include "test_support.h"

using namespace ql;

namespace {
std::string tempPath(const std::string &name) {
    return (std::filesystem::temp_directory_path() / ("ql_tst_tensor_" + name)).string();
}
}  // namespace

TEST(Tensor, ChannelsLastRoundTripKeepsLogicalValues) {
    const Tensor plain = test::randomTensor({2, 3, 4, 5}, 7);
    const Tensor cl = plain.toChannelsLast();
    EXPECT_EQ(cl.layout(), Layout::ChannelsLast);
    EXPECT_EQ(cl.shape(), plain.shape());
    // Physical NHWC position of logical (n=1, c=2, h=3, w=4).
    const int64_t nchw = ((1 * 3 + 2) * 4 + 3) * 5 + 4;
    const int64_t nhwc = ((1 * 4 + 3) * 5 + 4) * 3 + 2;
    EXPECT_EQ(cl.data<float>()[nhwc], plain.data<float>()[nchw]);
    EXPECT_EQ(cl.valueAsDouble(nchw), plain.valueAsDouble(nchw));
    EXPECT_EQ(test::maxAbsDiff(cl.toPlain(), plain), 0.0);
}

TEST(Tensor, ReshapedSharesStorage) {
    Tensor t = Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor r = t.reshaped({3, 2});
    r.data<float>()[5] = 42.0f;
    EXPECT_EQ(t.data<float>()[5], 42.0f);
    EXPECT_EQ(r.shape(), (Shape{3, 2}));
}

TEST(Tensor, HalfPrecisionConversionMatchesIeee) {
    EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
    EXPECT_EQ(halfToFloat(0xc000), -2.0f);
    EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
    EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
    EXPECT_TRUE(std::isinf(halfToFloat(0x7c00)));
    EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
    EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
    EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
    EXPECT_EQ(floatToHalf(1e6f), 0x7c00);
    EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
    // 1 + 2^-11 is halfway between 1 and the next half: ties go to even (1.0).
    EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
    for (uint16_t bits : {0x3555, 0x0200, 0x8001, 0x5640})
        EXPECT_EQ(floatToHalf(halfToFloat(bits)), bits);
    EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
    EXPECT_EQ(floatToBfloat16(1.0f), 0x3f80);
    EXPECT_EQ(floatToBfloat16(1.00390625f), 0x3f80);  // tie to even
}

TEST(TensorFile, NpyRoundTripPreservesTypeShapeAndValues) {
    const std::string path = tempPath("roundtrip.npy");
    const Tensor t = test::randomTensor({2, 3, 4}, 3).toPlain();
    ASSERT_TRUE(writeNpy(path, t).isOk());
    auto back = readTensorFile(path);
    ASSERT_TRUE(back.isOk()) << back.status().message();
    EXPECT_EQ(back->shape(), t.shape());
    EXPECT_EQ(back->dtype(), DataType::Float);
    EXPECT_EQ(test::maxAbsDiff(back.value(), t), 0.0);

    const Tensor ints = Tensor::fromVector<int64_t>({5}, {1, -2, 3, 1LL << 40, 5});
    ASSERT_TRUE(writeNpy(path, ints).isOk());
    auto intsBack = readNpy(path);
    ASSERT_TRUE(intsBack.isOk());
    EXPECT_EQ(intsBack->toInt64Vector(), ints.toInt64Vector());
    EXPECT_EQ(intsBack->shape(), (Shape{5}));
    std::remove(path.c_str());
}

TEST(TensorFile, NpyWrittenByNumpyIsRead) {
    // Bytes of numpy.save(f, numpy.array([[1, 2], [3, 4]], dtype='<i4')) with a v1 header.
    std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }";
    header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');  // numpy pads to 64 bytes
    header += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size());
    bytes += '\0';
    bytes += header;
    const int32_t values[] = {1, 2, 3, 4};
    bytes.append(reinterpret_cast<const char *>(values), sizeof(values));
    const std::string path = tempPath("numpy.npy");
    std::ofstream(path, std::ios::binary) << bytes;
    auto t = readNpy(path);
    ASSERT_TRUE(t.isOk()) << t.status().message();
    EXPECT_EQ(t->dtype(), DataType::Int32);
    EXPECT_EQ(t->shape(), (Shape{2, 2}));
    EXPECT_EQ(t->toInt64Vector(), (std::vector<int64_t>{1, 2, 3, 4}));
    std::remove(path.c_str());
}

TEST(TensorFile, BadFilesGiveMessagesNamingTheFile) {
    const std::string path = tempPath("bad.npy");
    std::ofstream(path, std::ios::binary) << "not numpy at all";
    auto bad = readTensorFile(path);
    ASSERT_FALSE(bad.isOk());
    EXPECT_EQ(bad.status().kind(), ErrorKind::BadInput);
    EXPECT_NE(bad.status().message().find(path), std::string::npos);
    EXPECT_NE(bad.status().message().find("not a .npy file"), std::string::npos);

    const Tensor t = test::randomTensor({4, 4}, 1);
    ASSERT_TRUE(writeNpy(path, t).isOk());
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 8);
    auto truncated = readTensorFile(path);
    ASSERT_FALSE(truncated.isOk());
    EXPECT_NE(truncated.status().message().find("truncated .npy data"), std::string::npos);

    auto missing = readTensorFile(tempPath("does_not_exist.npy"));
    ASSERT_FALSE(missing.isOk());
    EXPECT_NE(missing.status().message().find("cannot open"), std::string::npos);

    auto wrongExt = readTensorFile(tempPath("x.txt"));
    ASSERT_FALSE(wrongExt.isOk());
    EXPECT_NE(wrongExt.status().message().find("expected .npy or .pb"), std::string::npos);
    std::remove(path.c_str());
}

TEST(TensorFile, TensorProtoRoundTrip) {
    const std::string path = tempPath("t.pb");
    const Tensor t = test::randomTensor({3, 2}, 9);
    ASSERT_TRUE(writeTensorProtoFile(path, t, "x").isOk());
    auto back = readTensorFile(path);
    ASSERT_TRUE(back.isOk()) << back.status().message();
    EXPECT_EQ(back->shape(), t.shape());
    EXPECT_EQ(test::maxAbsDiff(back.value(), t), 0.0);
    std::remove(path.c_str());
}

TEST(TensorChecks, NonFiniteValuesAreReportedWithCountAndFirstIndex) {
    Tensor t = Tensor::fromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6});
    EXPECT_TRUE(checkFinite(t, "x.npy").isOk());
    t.data<float>()[4] = NAN;
    t.data<float>()[5] = INFINITY;
    const Status s = checkFinite(t, "x.npy");
    EXPECT_EQ(s.kind(), ErrorKind::BadInput);
    EXPECT_EQ(s.message(), "x.npy: 2 of 6 values are NaN or infinite (first at [1,1])");
    EXPECT_TRUE(checkFinite(Tensor::fromVector<int64_t>({2}, {1, 2}), "ids").isOk());
    // A long tensor (the vectorised count) with one -inf near the end; the largest finite float
    // and a denormal are finite.
    Tensor large(DataType::Float, {10, 1000});
    large.data<float>()[0] = std::numeric_limits<float>::max();
    large.data<float>()[1] = std::numeric_limits<float>::denorm_min();
    EXPECT_TRUE(checkFinite(large, "big.npy").isOk());
    large.data<float>()[9998] = -INFINITY;
    EXPECT_EQ(checkFinite(large, "big.npy").message(),
              "big.npy: 1 of 10000 values are infinite (first at [9,998])");
}

TEST(TensorLimits, SizesAreCheckedBeforeAllocation) {
    EXPECT_EQ(checkedByteSize(DataType::Float, {2, 3}), 24u);
    EXPECT_EQ(checkedByteSize(DataType::Float, {0, 1000}), 0u);
    EXPECT_THROW(checkedByteSize(DataType::Float, {-1, 4}), TensorTooLarge);
    // 2^40 x 2^40 floats overflow 64 bits; 2^31 x 4 floats are over the 4 GiB default.
    EXPECT_THROW(checkedByteSize(DataType::Float, {int64_t(1) << 40, int64_t(1) << 40}),
                 TensorTooLarge);
    EXPECT_THROW(checkedByteSize(DataType::Float, {int64_t(1) << 31, 4}), TensorTooLarge);
    EXPECT_THROW(Tensor(DataType::Float, {int64_t(1) << 40, 1 << 20}), TensorTooLarge);
    try {
        Tensor(DataType::Int64, {1000000000, 1000});
        FAIL() << "allocated 8 TB";
    } catch (const TensorTooLarge &e) {
        EXPECT_NE(std::string(e.what()).find("[1000000000,1000] int64"), std::string::npos)
            << e.what();
    }
}

// NumPy .npz archives (fixtures from tests/tools/make_npz_fixtures.py): np.savez and
// np.savez_compressed members against the same arrays saved as .npy, positional names, and the
// errors of broken archives and members.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "onnx_io/npz_file.h"
#include "onnx_io/tensor_file.h"

using namespace ql;

namespace {

std::string fixture(const std::string &name) {
    const char *root = std::getenv("QL_TEST_DATA");
    return std::string(root ? root : "tests/data") + "/npz/" + name;
}

// Same dtype, shape and every element as the .npy the script wrote beside the archive.
void expectMatchesNpy(const NpzArray &array, const std::string &npyName) {
    auto expected = readNpy(fixture(npyName));
    ASSERT_TRUE(expected.isOk()) << expected.status().message();
    EXPECT_EQ(array.tensor.dtype(), expected->dtype()) << array.name;
    ASSERT_EQ(array.tensor.shape(), expected->shape()) << array.name;
    for (int64_t i = 0; i < expected->numel(); ++i)
        ASSERT_EQ(array.tensor.valueAsDouble(i), expected->valueAsDouble(i))
            << array.name << " [" << i << "]";
}

std::vector<NpzArray> readOk(const std::string &name) {
    auto arrays = readNpz(fixture(name));
    EXPECT_TRUE(arrays.isOk()) << arrays.status().message();
    return arrays.isOk() ? *arrays : std::vector<NpzArray>{};
}

void expectNamedArrays(const std::vector<NpzArray> &arrays) {
    ASSERT_EQ(arrays.size(), 2u);
    EXPECT_EQ(arrays[0].name, "weights");
    EXPECT_EQ(arrays[1].name, "ids");
    EXPECT_EQ(arrays[0].tensor.dtype(), DataType::Float);
    EXPECT_EQ(arrays[0].tensor.shape(), (Shape{2, 3, 4}));
    EXPECT_EQ(arrays[1].tensor.dtype(), DataType::Int64);
    EXPECT_EQ(arrays[1].tensor.shape(), (Shape{5}));
    expectMatchesNpy(arrays[0], "weights.npy");
    expectMatchesNpy(arrays[1], "ids.npy");
    // Exact int64 values (valueAsDouble would round 2^62 - 1 alike).
    const int64_t *ids = arrays[1].tensor.data<int64_t>();
    EXPECT_EQ(ids[2], int64_t(1) << 40);
    EXPECT_EQ(ids[3], -(int64_t(1) << 62));
}

}  // namespace

TEST(NpzFile, SavezNamedArraysInArchiveOrder) {
    expectNamedArrays(readOk("named.npz"));
}

TEST(NpzFile, SavezCompressedMembersAreInflated) {
    expectNamedArrays(readOk("named_compressed.npz"));
}

TEST(NpzFile, PositionalArraysAreArr0Arr1) {
    const auto arrays = readOk("positional.npz");
    ASSERT_EQ(arrays.size(), 2u);
    EXPECT_EQ(arrays[0].name, "arr_0");
    EXPECT_EQ(arrays[1].name, "arr_1");
    EXPECT_EQ(arrays[0].tensor.dtype(), DataType::UInt8);
    expectMatchesNpy(arrays[0], "arr_0.npy");
    EXPECT_EQ(arrays[1].tensor.dtype(), DataType::Int32);
    EXPECT_EQ(arrays[1].tensor.shape(), Shape{});  // a 0-d array
    EXPECT_EQ(arrays[1].tensor.data<int32_t>()[0], 42);
}

TEST(NpzFile, Float64Array) {
    const auto arrays = readOk("float64.npz");
    ASSERT_EQ(arrays.size(), 1u);
    EXPECT_EQ(arrays[0].name, "matrix");
    EXPECT_EQ(arrays[0].tensor.dtype(), DataType::Double);
    expectMatchesNpy(arrays[0], "matrix.npy");
}

TEST(NpzFile, FortranOrderIsRefusedAsReadNpyDoes) {
    const std::string path = fixture("fortran.npz");
    auto arrays = readNpz(path);
    ASSERT_FALSE(arrays.isOk());
    EXPECT_EQ(arrays.status().kind(), ErrorKind::BadInput);
    EXPECT_EQ(arrays.status().message(), path +
                                             ": f.npy: Fortran-ordered .npy arrays are not "
                                             "supported; save with numpy.ascontiguousarray");
}

TEST(NpzFile, InMemoryNpyMatchesFileReader) {
    std::ifstream in(fixture("ids.npy"), std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string bytes = buffer.str();
    auto tensor = readNpyFromMemory(bytes.data(), bytes.size(), "ids");
    ASSERT_TRUE(tensor.isOk()) << tensor.status().message();
    EXPECT_EQ(tensor->toInt64Vector(), readNpy(fixture("ids.npy"))->toInt64Vector());
    auto truncated = readNpyFromMemory(bytes.data(), bytes.size() - 1, "ids");
    ASSERT_FALSE(truncated.isOk());
    EXPECT_EQ(truncated.status().message(),
              "ids: truncated .npy data: shape [5] of int64 needs 40 bytes, file has 39 bytes");
}

struct BrokenCase {
    const char *file;
    const char *fragment;  // expected in the message, after "<path>: "
};

class BrokenNpz : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenNpz, IsOneBadInputLineStartingWithThePath) {
    const std::string path = fixture(GetParam().file);
    auto arrays = readNpz(path);
    ASSERT_FALSE(arrays.isOk());
    const std::string &message = arrays.status().message();
    EXPECT_EQ(arrays.status().kind(), ErrorKind::BadInput) << message;
    EXPECT_EQ(message.rfind(path + ": ", 0), 0u) << message;
    EXPECT_NE(message.find(GetParam().fragment), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(
    NpzFile, BrokenNpz,
    ::testing::Values(BrokenCase{"does_not_exist.npz", "cannot open file"},
                      BrokenCase{"random.npz", "not an .npz file"},
                      BrokenCase{"truncated.npz", "not an .npz file"},
                      BrokenCase{"empty.npz", "empty .npz archive"},
                      BrokenCase{"text_member.npz", "notes.txt: not a .npy member"},
                      BrokenCase{"bad_npy_member.npz", "junk.npy: not a .npy file (bad magic)"},
                      BrokenCase{"bad_crc.npz", "weights.npy: corrupt member (CRC error)"},
                      BrokenCase{"lying_size.npz", "big.npy: member claims 4294967280 bytes"}),
    [](const ::testing::TestParamInfo<BrokenCase> &info) {
        std::string name = info.param.file;
        return name.substr(0, name.find('.'));
    });

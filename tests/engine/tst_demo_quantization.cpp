// The demo's int8 model (resources/demo/fashion_cnn_int8.onnx) is what
// tests/tools/make_demo_quant.sh makes of the float demo: `quantlens quantize --method entropy`
// on the demo samples. Rebuilt here through the same engine calls and compared with the
// committed file. Not byte for byte: calibration runs the float model, whose kernels sum in
// another order on another ISA (AVX2, AVX-512), so activation ranges move by a few ULPs and the
// entropy search may settle one histogram bin (1/2048 of the range) away. So: the same nodes,
// the same integer weights (they depend on the weights alone), activation scales within two
// bins, zero points within one step, int32 biases within the scale change plus one.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "onnx_io/model_loader.h"
#include "onnx_io/model_writer.h"
#include "quant/calibration.h"
#include "quant/calibration_data.h"
#include "quant/qdq_builder.h"

using namespace ql;

namespace {

std::string demoDir() {
    const char *data = std::getenv("QL_TEST_DATA");
    return data ? std::string(data) + "/../../resources/demo/" : std::string();
}

// The entropy search's resolution: one bin of 2048 over the observed range, twice.
constexpr double kScaleTolerance = 2.0 / 2048.0;

}  // namespace

TEST(DemoQuantization, RebuildMatchesTheCommittedInt8Model) {
    ASSERT_FALSE(demoDir().empty()) << "QL_TEST_DATA is not set";
    auto floatGraph = loadModel(demoDir() + "fashion_cnn.onnx");
    ASSERT_TRUE(floatGraph) << floatGraph.status().message();
    auto source = quant::fileBatchSource(*floatGraph, {demoDir() + "samples.npy"});
    ASSERT_TRUE(source) << source.status().message();
    quant::CalibrationOptions calibration;
    calibration.threads = 2;
    quant::CalibrationStatistics stats(calibration);
    ASSERT_TRUE(quant::calibrate(*floatGraph, *source, stats));
    quant::QuantizationOptions options;
    options.method = quant::RangeMethod::Entropy;
    auto quantized = quant::quantizeGraph(*floatGraph, stats, options);
    ASSERT_TRUE(quantized) << quantized.status().message();
    const std::string path =
        (std::filesystem::temp_directory_path() / "ql_demo_int8_rebuilt.onnx").string();
    ASSERT_TRUE(writeModel(quantized->model, path));
    auto rebuilt = loadModel(path);
    std::filesystem::remove(path);
    auto committed = loadModel(demoDir() + "fashion_cnn_int8.onnx");
    ASSERT_TRUE(rebuilt && committed);

    ASSERT_EQ(rebuilt->nodes.size(), committed->nodes.size());
    for (size_t i = 0; i < committed->nodes.size(); ++i) {
        EXPECT_EQ(rebuilt->nodes[i].name, committed->nodes[i].name);
        EXPECT_EQ(rebuilt->nodes[i].opType, committed->nodes[i].opType);
        EXPECT_EQ(rebuilt->nodes[i].inputs, committed->nodes[i].inputs);
    }
    ASSERT_EQ(rebuilt->initializers.size(), committed->initializers.size());
    // The largest relative scale change, to bound the biases (int32 = b / (s_in * s_w)).
    double scaleChange = 0.0;
    for (const auto &[name, want] : committed->initializers) {
        auto it = rebuilt->initializers.find(name);
        ASSERT_NE(it, rebuilt->initializers.end()) << name;
        const Tensor &got = it->second;
        ASSERT_EQ(got.dtype(), want.dtype()) << name;
        ASSERT_EQ(got.shape(), want.shape()) << name;
        if (want.dtype() != DataType::Float) continue;
        for (int64_t i = 0; i < want.numel(); ++i) {
            const double a = got.valueAsDouble(i), b = want.valueAsDouble(i);
            const double change = std::abs(a - b) / std::max(std::abs(b), 1e-30);
            scaleChange = std::max(scaleChange, change);
            EXPECT_LE(change, kScaleTolerance) << name << "[" << i << "]: " << a << " vs " << b;
        }
    }
    for (const auto &[name, want] : committed->initializers) {
        const Tensor &got = rebuilt->initializers.at(name);
        if (want.dtype() == DataType::Float) continue;
        const bool weight = want.dtype() == DataType::Int8 && want.numel() > 1;
        const bool bias = want.dtype() == DataType::Int32;
        for (int64_t i = 0; i < want.numel(); ++i) {
            const double a = got.valueAsDouble(i), b = want.valueAsDouble(i);
            const double allowed = weight ? 0.0
                                   : bias ? 1.0 + 2.0 * scaleChange * std::abs(b)
                                          : 1.0;
            EXPECT_LE(std::abs(a - b), allowed) << name << "[" << i << "]: " << a << " vs " << b;
        }
    }
}

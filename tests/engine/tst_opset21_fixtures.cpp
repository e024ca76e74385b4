// Models of opsets 19-21 and the Q/DQ forms they brought (16-bit, 4-bit, float8, output_dtype,
// block-wise), run by the engine against ONNX Runtime 1.30's literal outputs (tests/data/opset21,
// written by tests/tools/make_opset21_fixtures.py): quantized values bit-exact, float values
// within the rounding of float32 arithmetic; the types the engine cannot hold are refused in one
// line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "analysis/suite/numeric_suite.h"
#include "ir/float8.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/model_writer.h"
#include "onnx_io/tensor_file.h"
#include "passes/precision.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
namespace fs = std::filesystem;

namespace {

std::string caseDir(const std::string &name) {
    const char *data = std::getenv("QL_TEST_DATA");
    return std::string(data ? data : "tests/data") + "/opset21/" + name;
}

// SQNR of `actual` against `expected` in dB (infinite when equal).
double sqnrDb(const Tensor &expected, const Tensor &actual) {
    double signal = 0, noise = 0;
    for (int64_t i = 0; i < expected.numel(); ++i) {
        const double x = expected.valueAsDouble(i), e = x - actual.valueAsDouble(i);
        signal += x * x;
        noise += e * e;
    }
    return noise == 0 ? INFINITY : 10 * std::log10(signal / noise);
}

// Float outputs that differ bit for bit (NaN equal to NaN, -0 unequal to +0); the first few
// are named.
int64_t floatsDiffering(const Tensor &expected, const Tensor &actual) {
    int64_t differ = 0;
    const float *e = expected.data<float>(), *a = actual.data<float>();
    for (int64_t i = 0; i < expected.numel(); ++i) {
        const bool same = std::isnan(e[i]) ? std::isnan(a[i]) : std::memcmp(&e[i], &a[i], 4) == 0;
        if (!same && ++differ <= 3)
            ADD_FAILURE() << "at " << i << ": expected " << e[i] << ", got " << a[i];
    }
    return differ;
}

// How float outputs are compared: within float32 rounding, or bit for bit where they are
// dequantized values (a DQ of a power-of-two scale, or one distinct float per quantized value).
enum class Floats { Rounding, Exact };

// Runs case `name` and compares every output ONNX Runtime wrote; returns the outputs compared.
// Under int8 precision the Q/DQ the int8 kernels cannot take (16-bit, block-wise) stay with the
// exact Q/DQ kernels: the same outputs.
int runCase(const std::string &name, Precision precision = Precision::Fp32,
            Floats floats = Floats::Rounding) {
    const std::string dir = caseDir(name);
    auto graph = loadModel(dir + "/model.onnx");
    EXPECT_TRUE(graph.isOk()) << graph.status().message();
    if (!graph.isOk()) return 0;
    if (precision != Precision::Fp32) {
        const Status prepared = preparePrecision(graph.value(), precision);
        EXPECT_TRUE(prepared.isOk()) << prepared.message();
        if (!prepared.isOk()) return 0;
    }
    auto input = readNpy(dir + "/input.npy");
    EXPECT_TRUE(input.isOk()) << input.status().message();
    auto plan = ExecutionPlan::create(graph.value());
    EXPECT_TRUE(plan.isOk()) << plan.status().message();
    if (!plan.isOk() || !input.isOk()) return 0;
    std::vector<Tensor> outputs;
    const Status ran =
        plan.value()->run({{graph.value().inputs.at(0).name, input.value()}}, outputs);
    EXPECT_TRUE(ran.isOk()) << ran.message();
    if (!ran.isOk()) return 0;
    int compared = 0;
    for (size_t o = 0; o < graph.value().outputs.size(); ++o) {
        const std::string output = graph.value().outputs[o].name;
        auto expected = readNpy(dir + "/expected/" + output + ".npy");
        EXPECT_TRUE(expected.isOk()) << expected.status().message();
        if (!expected.isOk()) continue;
        const Tensor actual = outputs.at(o).toPlain();
        EXPECT_EQ(storageType(actual.dtype()), expected.value().dtype()) << name << " " << output;
        EXPECT_EQ(actual.shape(), expected.value().shape()) << name << " " << output;
        if (actual.shape() != expected.value().shape()) continue;
        if (actual.dtype() == DataType::Float && floats == Floats::Exact) {
            EXPECT_EQ(floatsDiffering(expected.value(), actual), 0) << name << " " << output;
        } else if (actual.dtype() == DataType::Float) {
            EXPECT_GE(sqnrDb(expected.value(), actual), 80.0) << name << " " << output;
        } else {
            int64_t differ = 0;
            for (int64_t i = 0; i < actual.numel(); ++i)
                differ += actual.valueAsDouble(i) != expected.value().valueAsDouble(i);
            EXPECT_EQ(differ, 0) << name << " " << output << ": quantized values differ";
        }
        ++compared;
    }
    return compared;
}

// `count` batches of uniform random "x" in [-range, range].
analysis::BatchSourceFactory randomBatches(unsigned count, const Shape &shape, float range) {
    auto batches = std::make_shared<std::vector<std::map<std::string, Tensor>>>();
    for (unsigned seed = 1; seed <= count; ++seed)
        batches->push_back({{"x", ql::test::randomTensor(shape, seed, -range, range)}});
    return [batches]() -> Result<analysis::ActivationBatchSource> {
        auto next = std::make_shared<size_t>(0);
        return analysis::ActivationBatchSource(
            [batches, next](std::map<std::string, Tensor> &batch) -> Result<bool> {
                if (*next >= batches->size()) return false;
                batch = (*batches)[(*next)++];
                return true;
            });
    };
}

// The number after "key": in a flat JSON object (the fixture's weight_sqnr.json).
double jsonNumber(const std::string &file, const std::string &key) {
    std::ifstream in(file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find("\"" + key + "\":");
    return at == std::string::npos ? NAN : std::strtod(text.c_str() + at + key.size() + 3, nullptr);
}

}  // namespace

TEST(Opset21Fixtures, SixteenBitActivationsAroundAMatMul) {
    EXPECT_EQ(runCase("qdq16_matmul"), 2);
    EXPECT_EQ(runCase("qdq16_matmul", Precision::Int8), 2);
}
TEST(Opset21Fixtures, PerAxisUint16Saturates) {
    EXPECT_EQ(runCase("per_axis_uint16"), 2);
    EXPECT_EQ(runCase("per_axis_uint16", Precision::Int8), 2);
}
TEST(Opset21Fixtures, OutputDtypeChoosesInt16) {
    EXPECT_EQ(runCase("output_dtype"), 2);
    EXPECT_EQ(runCase("output_dtype", Precision::Int8), 2);
}
TEST(Opset21Fixtures, BlockWiseWeightsAndActivations) {
    EXPECT_EQ(runCase("blockwise"), 2);
    EXPECT_EQ(runCase("blockwise", Precision::Int8), 2);
}
TEST(Opset21Fixtures, ResizeHalfPixelSymmetric) {
    EXPECT_EQ(runCase("resize_half_pixel_symmetric"), 1);
}
TEST(Opset21Fixtures, AveragePoolDilations) {
    EXPECT_EQ(runCase("average_pool_dilations"), 1);
}
TEST(Opset21Fixtures, GeluOfTheDefaultDomain) {
    EXPECT_EQ(runCase("gelu20"), 2);
}
TEST(Opset21Fixtures, DemoModelAtOpset21) {
    EXPECT_EQ(runCase("demo_opset21"), 1);
}

// int4 / uint4 weights, block-wise and per channel, with an odd count (half a byte unused).
TEST(Opset21Fixtures, FourBitWeights) {
    EXPECT_EQ(runCase("int4_weights"), 2);
    EXPECT_EQ(runCase("int4_weights", Precision::Int8), 2);
}
// Activations quantized to int4 and uint4 saturate at their own ranges: equal dequantized
// floats mean equal 4-bit values.
TEST(Opset21Fixtures, FourBitActivations) {
    EXPECT_EQ(runCase("four_bit_activations", Precision::Fp32, Floats::Exact), 2);
    EXPECT_EQ(runCase("four_bit_activations", Precision::Int8, Floats::Exact), 2);
}
// float8 Q/DQ of the four types, saturating and not, per tensor and per channel; scales are
// powers of two, so the floats are the float8 values themselves (subnormals, ±0, Inf, NaN).
TEST(Opset21Fixtures, Float8QuantizeDequantize) {
    EXPECT_EQ(runCase("float8_qdq", Precision::Fp32, Floats::Exact), 5);
}
TEST(Opset21Fixtures, CastToFloat8AndBack) {
    EXPECT_EQ(runCase("cast_float8", Precision::Fp32, Floats::Exact), 5);
}

// The values ONNX Runtime 1.30 gets wrong with saturate=0 (reported upstream): the spec's table
// holds here. E4M3FN: [x] above 448 is NaN; E5M2: above 57344 is +Inf.
TEST(Opset21Fixtures, Float8OverflowWithoutSaturationFollowsTheSpec) {
    for (float x : {480.0f, 495.0f, -490.0f, 479.0f})
        EXPECT_TRUE(std::isnan(
            float8ToFloat(floatToFloat8(x, DataType::Float8E4M3FN, false), DataType::Float8E4M3FN)))
            << x;
    EXPECT_EQ(
        float8ToFloat(floatToFloat8(464.0f, DataType::Float8E4M3FN, false), DataType::Float8E4M3FN),
        448.0f);  // a tie, to even
    for (float x : {61440.0f, 65000.0f})
        EXPECT_EQ(
            float8ToFloat(floatToFloat8(x, DataType::Float8E5M2, false), DataType::Float8E5M2),
            INFINITY)
            << x;
    EXPECT_EQ(
        float8ToFloat(floatToFloat8(61439.0f, DataType::Float8E5M2, false), DataType::Float8E5M2),
        57344.0f);
}

// A 4-bit model written back packs its values again: reloaded, every initializer is the same.
TEST(Opset21Fixtures, FourBitInitializersWrittenBackPacked) {
    auto graph = loadModel(caseDir("int4_weights") + "/model.onnx");
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    EXPECT_EQ(graph.value().initializers.at("wq").dtype(), DataType::Int4);
    EXPECT_EQ(graph.value().initializers.at("vq").numel(), 15);
    const std::string path = ::testing::TempDir() + "/ql_int4_written.onnx";
    ASSERT_TRUE(writeModel(graph.value(), path).isOk());
    auto reloaded = loadModel(path);
    ASSERT_TRUE(reloaded.isOk()) << reloaded.status().message();
    for (const auto &[name, tensor] : graph.value().initializers) {
        const Tensor &again = reloaded.value().initializers.at(name);
        ASSERT_EQ(again.dtype(), tensor.dtype()) << name;
        ASSERT_EQ(again.shape(), tensor.shape()) << name;
        for (int64_t i = 0; i < tensor.numel(); ++i)
            ASSERT_EQ(again.valueAsDouble(i), tensor.valueAsDouble(i)) << name << " " << i;
    }
    // Packed: wq's 160 values take 80 bytes, not 160 (the file is smaller than one byte each).
    EXPECT_LT(fs::file_size(path), fs::file_size(caseDir("int4_weights") + "/model.onnx") + 64);
}

// A type the engine does not hold (float4 E2M1): one line naming the file, what holds the type,
// and the type.
TEST(Opset21Fixtures, Float4IsRefusedByName) {
    const std::string dir = caseDir("float4_weights");
    std::ifstream said(dir + "/refused.txt");
    std::string type;
    said >> type;
    ASSERT_FALSE(type.empty());
    auto graph = loadModel(dir + "/model.onnx");
    ASSERT_FALSE(graph.isOk());
    const std::string message = graph.status().message();
    EXPECT_NE(message.find(type), std::string::npos) << message;
    EXPECT_NE(message.find("model.onnx"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

// A model of opset 21 written back (e.g. after a pass) keeps its 16-bit Q/DQ, which the linked
// ONNX 1.12 checker would refuse by QuantizeLinear-13's schema, and says IR 10.
TEST(Opset21Fixtures, WrittenBackAsIr10WithItsSixteenBitQdq) {
    auto graph = loadModel(caseDir("qdq16_matmul") + "/model.onnx");
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    const std::string path = ::testing::TempDir() + "/ql_opset21_written.onnx";
    ASSERT_TRUE(writeModel(graph.value(), path).isOk());
    auto bytes = serializeModel(graph.value());
    ASSERT_TRUE(bytes.isOk()) << bytes.status().message();
    // ModelProto field 1 (ir_version) is written first: tag 0x08, then the varint.
    ASSERT_GE(bytes->size(), 2u);
    EXPECT_EQ(static_cast<unsigned char>((*bytes)[0]), 0x08);
    EXPECT_EQ(static_cast<unsigned char>((*bytes)[1]), 10);
    auto reloaded = loadModel(path);
    ASSERT_TRUE(reloaded.isOk()) << reloaded.status().message();
    EXPECT_EQ(reloaded.value().opsetVersion, 21);
    EXPECT_EQ(reloaded.value().initializers.at("yz").dtype(), DataType::Int16);
}

// The analysis of a float model against its 16-bit QDQ version: the layer is paired and its
// output's saturation is judged on int16's levels (on 8-bit ones nearly every value of the
// MatMul's output would count as clipped), and 16-bit activations keep the output within the
// error of 16-bit steps (int8 steps would give about 40 dB here).
TEST(Opset21Fixtures, AnalysisOfASixteenBitPair) {
    const std::string dir = caseDir("qdq16_matmul");
    auto floatGraph = loadModel(dir + "/float.onnx");
    auto quantGraph = loadModel(dir + "/model.onnx");
    ASSERT_TRUE(floatGraph.isOk()) << floatGraph.status().message();
    ASSERT_TRUE(quantGraph.isOk()) << quantGraph.status().message();
    // The fixture also outputs the int16 values for ORT's check: the float model's one output.
    auto &outputs = quantGraph.value().outputs;
    outputs.erase(std::remove_if(outputs.begin(), outputs.end(),
                                 [](const ValueInfo &o) { return o.name == "y_q"; }),
                  outputs.end());
    ASSERT_EQ(outputs.size(), 1u);
    // The model's batch is 2; x and x·w inside their 16-bit ranges.
    auto report = analysis::runNumericSuite(floatGraph.value(), quantGraph.value(),
                                            randomBatches(8, {2, 8}, 0.7f), {});
    ASSERT_TRUE(report.isOk()) << report.status().message();
    ASSERT_EQ(report->layers.size(), 1u);
    const analysis::LayerReport &layer = report->layers[0];
    EXPECT_EQ(layer.name, "matmul");
    ASSERT_TRUE(layer.cumulative.has_value());
    ASSERT_TRUE(layer.cumulative->saturationPct.has_value());
    EXPECT_EQ(*layer.cumulative->saturationPct, 0.0);
    EXPECT_GT(layer.cumulative->sqnrDb, 70.0);
    ASSERT_EQ(report->outputs.size(), 1u);
    EXPECT_GT(report->outputs[0].sqnrDb, 70.0);
}

// The analysis of a float model against its int4 / uint4 weight-only version (block-wise and per
// channel): both layers paired, each weight's SQNR as numpy computed it when the fixture was
// made, and the error the 4-bit weights cause downstream.
TEST(Opset21Fixtures, AnalysisOfAFourBitWeightPair) {
    const std::string dir = caseDir("int4_weights");
    auto floatGraph = loadModel(dir + "/float.onnx");
    auto quantGraph = loadModel(dir + "/model.onnx");
    ASSERT_TRUE(floatGraph.isOk()) << floatGraph.status().message();
    ASSERT_TRUE(quantGraph.isOk()) << quantGraph.status().message();
    auto report = analysis::runNumericSuite(floatGraph.value(), quantGraph.value(),
                                            randomBatches(5, {3, 32}, 1.0f), {});
    ASSERT_TRUE(report.isOk()) << report.status().message();
    ASSERT_EQ(report->layers.size(), 2u);
    for (const analysis::LayerReport &layer : report->layers) {
        const double expected = jsonNumber(dir + "/weight_sqnr.json", layer.name);
        ASSERT_TRUE(std::isfinite(expected)) << layer.name;
        ASSERT_TRUE(layer.weightSqnrDb.has_value()) << layer.name;
        EXPECT_NEAR(*layer.weightSqnrDb, expected, 0.01) << layer.name;
        ASSERT_TRUE(layer.cumulative.has_value()) << layer.name;
        // 4-bit weights: about 6 dB a bit, well under int8's figures.
        EXPECT_GT(layer.cumulative->sqnrDb, 10.0) << layer.name;
        EXPECT_LT(layer.cumulative->sqnrDb, 35.0) << layer.name;
    }
    EXPECT_EQ(report->samples, 15);
}

// Models of opsets 19-21 and the Q/DQ forms they brought (16-bit, output_dtype, block-wise),
// run by the engine against ONNX Runtime 1.30's literal outputs (tests/data/opset21, written by
// tests/tools/make_opset21_fixtures.py): quantized values bit-exact, float values within the
// rounding of float32 arithmetic; the forms the engine cannot run yet are refused in one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "analysis/suite/numeric_suite.h"
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

// Runs case `name` and compares every output ONNX Runtime wrote; returns the outputs compared.
// Under int8 precision the Q/DQ the int8 kernels cannot take (16-bit, block-wise) stay with the
// exact Q/DQ kernels: the same outputs.
int runCase(const std::string &name, Precision precision = Precision::Fp32) {
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
        EXPECT_EQ(actual.dtype(), expected.value().dtype()) << name << " " << output;
        EXPECT_EQ(actual.shape(), expected.value().shape()) << name << " " << output;
        if (actual.shape() != expected.value().shape()) continue;
        if (actual.dtype() == DataType::Float) {
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

// int4 and float8 are not types of the engine yet: one line naming the file, what holds the
// type, and the type.
TEST(Opset21Fixtures, Int4AndFloat8AreRefusedByName) {
    for (const std::string name : {"int4_weights", "float8_activations"}) {
        const std::string dir = caseDir(name);
        std::ifstream said(dir + "/refused.txt");
        std::string type;
        said >> type;
        ASSERT_FALSE(type.empty()) << name;
        auto graph = loadModel(dir + "/model.onnx");
        std::string message;
        if (!graph.isOk()) {
            message = graph.status().message();
        } else {
            auto plan = ExecutionPlan::create(graph.value());
            ASSERT_FALSE(plan.isOk()) << name << " ran";
            message = plan.status().message();
        }
        EXPECT_NE(message.find(type), std::string::npos) << message;
        EXPECT_NE(message.find("model.onnx"), std::string::npos) << message;
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    }
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
    std::vector<std::map<std::string, Tensor>> batches;
    for (unsigned seed = 1; seed <= 8;
         ++seed)  // the model's batch is 2; x and x·w inside their 16-bit ranges
        batches.push_back({{"x", ql::test::randomTensor({2, 8}, seed, -0.7f, 0.7f)}});
    analysis::BatchSourceFactory factory = [&batches]() -> Result<analysis::ActivationBatchSource> {
        auto next = std::make_shared<size_t>(0);
        return analysis::ActivationBatchSource(
            [&batches, next](std::map<std::string, Tensor> &batch) -> Result<bool> {
                if (*next >= batches.size()) return false;
                batch = batches[(*next)++];
                return true;
            });
    };
    auto report = analysis::runNumericSuite(floatGraph.value(), quantGraph.value(), factory, {});
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

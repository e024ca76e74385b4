// 16-bit layers in the quantizer (QuantizationOptions::int16Nodes, `quantize --int16`): the plan
// gives the layer uint16 activations and int16 weights with a float bias; the model is written
// with com.microsoft Q/DQ below opset 21 (as ONNX Runtime writes them) and reads back as the
// same model; the analysis sees the layer's own error fall far below its int8 error.
#include <gtest/gtest.h>

#include <string>

#include "analysis/suite/numeric_suite.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/model_writer.h"
#include "quant/qdq_builder.h"
#include "quant/quantization_plan.h"
#include "quantizer_test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

const std::string kLayer = "/features/features.4/Conv";

class SixteenBitLayer : public ::testing::Test {
protected:
    void SetUp() override {
        floatGraph = loadDemo();
        ranges = minMaxRanges(floatGraph, "input", demoSamples(64));
    }
    Result<quant::QuantizeResult> quantize(std::vector<std::string> int16Nodes) const {
        quant::QuantizationOptions options;
        options.int16Nodes = std::move(int16Nodes);
        return quant::quantizeGraph(floatGraph, ranges, options);
    }
    Graph floatGraph;
    quant::RangeLookup ranges;
};

analysis::BatchSourceFactory demoBatches(const Tensor &samples) {
    return [samples]() -> Result<analysis::ActivationBatchSource> {
        auto done = std::make_shared<bool>(false);
        return analysis::ActivationBatchSource(
            [samples, done](std::map<std::string, Tensor> &batch) -> Result<bool> {
                if (*done) return false;
                *done = true;
                batch = {{"input", samples}};
                return true;
            });
    };
}

const analysis::LayerReport *layerNamed(const analysis::NumericSuiteReport &report,
                                        const std::string &name) {
    for (const analysis::LayerReport &layer : report.layers)
        if (layer.name == name) return &layer;
    return nullptr;
}

}  // namespace

TEST_F(SixteenBitLayer, PlanGivesTheLayerSixteenBitActivationsAndWeights) {
    auto result = quantize({kLayer});
    ASSERT_TRUE(result.isOk()) << result.status().message();
    const quant::QuantizationPlan &plan = result->plan;
    const quant::NodeDecision *conv = plan.decision(kLayer);
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(conv->precision, quant::Precision::Int8);
    EXPECT_TRUE(conv->sixteenBit);
    EXPECT_EQ(conv->reason.rfind("16-bit: ", 0), 0u) << conv->reason;
    EXPECT_FALSE(plan.decision("/features/features.0/Conv")->sixteenBit);
    const Node *node = floatGraph.findNode(kLayer);
    ASSERT_NE(node, nullptr);
    // Its input, the MaxPool's input before that (a MaxPool passes its qparams on), and its
    // unit's output (after the Relu); the model's input stays 8-bit.
    EXPECT_EQ(plan.activations.at(node->inputs[0]).type, DataType::UInt16);
    EXPECT_EQ(plan.activations.at("/features/features.2/Relu_output_0").type, DataType::UInt16);
    EXPECT_EQ(plan.activations.at("/features/features.6/Relu_output_0").type, DataType::UInt16);
    EXPECT_EQ(plan.activations.at("input").type, DataType::UInt8);
    EXPECT_EQ(plan.weights.at({kLayer, 1}).qparams.type, DataType::Int16);
    EXPECT_EQ(plan.biases.count(kLayer), 0u);  // float: int32 at two 16-bit scales overflows
    EXPECT_EQ(plan.biases.count("/features/features.0/Conv"), 1u);
}

TEST_F(SixteenBitLayer, UnknownOrExcludedNamesAreRefused) {
    auto unknown = quantize({"/features/features.4/Cnv"});
    ASSERT_FALSE(unknown.isOk());
    EXPECT_NE(unknown.status().message().find("16-bit node '/features/features.4/Cnv'"),
              std::string::npos)
        << unknown.status().message();
    quant::QuantizationOptions options;
    options.int16Nodes = {kLayer};
    options.excludedNodes = {kLayer};
    auto both = quant::quantizeGraph(floatGraph, ranges, options);
    ASSERT_FALSE(both.isOk());
    EXPECT_NE(both.status().message().find("both excluded"), std::string::npos);
}

// The demo is opset 13: its 16-bit Q/DQ are written in com.microsoft (QuantizeLinear-13 has no
// 16-bit types) and read back into the default domain, running to the same outputs.
TEST_F(SixteenBitLayer, WrittenWithMicrosoftQdqBelowOpset21AndReadBack) {
    auto result = quantize({kLayer});
    ASSERT_TRUE(result.isOk()) << result.status().message();
    ASSERT_LT(result->model.opsetVersion, 21);
    auto bytes = serializeModel(result->model);
    ASSERT_TRUE(bytes.isOk()) << bytes.status().message();
    EXPECT_NE(bytes->find("com.microsoft"), std::string::npos);
    auto reloaded = loadModelFromBytes(bytes.value(), "sixteen.onnx", "");
    ASSERT_TRUE(reloaded.isOk()) << reloaded.status().message();
    int sixteenBitQdq = 0;
    for (const Node &n : reloaded->nodes)
        if (n.opType == "QuantizeLinear" || n.opType == "DequantizeLinear") {
            EXPECT_TRUE(n.domain.empty()) << n.describe();
            const Tensor *zp = reloaded->initializer(n.inputs.at(2));
            sixteenBitQdq +=
                zp && (zp->dtype() == DataType::UInt16 || zp->dtype() == DataType::Int16);
        }
    EXPECT_GE(sixteenBitQdq, 4);  // the input's pair, the weight's DQ, the output's pair
    const Tensor x = demoSamples(16);
    const auto before = runGraph(result->model, {{"input", x}});
    const auto after = runGraph(reloaded.value(), {{"input", x}});
    ASSERT_EQ(before.size(), 1u);
    ASSERT_EQ(after.size(), 1u);
    for (int64_t i = 0; i < before[0].numel(); ++i)
        ASSERT_EQ(before[0].valueAsDouble(i), after[0].valueAsDouble(i)) << i;
}

// The bar: the 16-bit layer's own (isolated) SQNR is at least 40 dB above the same layer
// quantized to int8; the other layers are unchanged in kind.
TEST_F(SixteenBitLayer, IsolatedErrorFallsFortyDecibelsBelowInt8) {
    auto eight = quantize({});
    auto sixteen = quantize({kLayer});
    ASSERT_TRUE(eight.isOk() && sixteen.isOk());
    const Tensor x = demoSamples(64);
    analysis::NumericSuiteOptions options;
    auto a = analysis::runNumericSuite(floatGraph, eight->model, demoBatches(x), options);
    auto b = analysis::runNumericSuite(floatGraph, sixteen->model, demoBatches(x), options);
    ASSERT_TRUE(a.isOk()) << a.status().message();
    ASSERT_TRUE(b.isOk()) << b.status().message();
    const analysis::LayerReport *at8 = layerNamed(*a, kLayer), *at16 = layerNamed(*b, kLayer);
    ASSERT_TRUE(at8 && at16);
    auto notes = [](const analysis::LayerReport &l) {
        std::string all;
        for (const std::string &n : l.notes) all += n + "; ";
        return all;
    };
    ASSERT_TRUE(at8->isolated.has_value()) << notes(*at8);
    ASSERT_TRUE(at16->isolated.has_value()) << notes(*at16);
    std::printf("%s isolated SQNR: int8 %.2f dB, 16-bit %.2f dB; weight %.2f / %.2f dB\n",
                kLayer.c_str(), at8->isolated->sqnrDb, at16->isolated->sqnrDb,
                at8->weightSqnrDb.value_or(NAN), at16->weightSqnrDb.value_or(NAN));
    EXPECT_GE(at16->isolated->sqnrDb, at8->isolated->sqnrDb + 40.0);
    ASSERT_TRUE(at8->weightSqnrDb && at16->weightSqnrDb);
    EXPECT_GE(*at16->weightSqnrDb, *at8->weightSqnrDb + 40.0);
    EXPECT_EQ(a->layers.size(), b->layers.size());
}

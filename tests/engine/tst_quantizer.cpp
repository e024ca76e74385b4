// The quantization plan and QDQ builder: decisions (units, exclusions, fp32 nodes without Q/DQ),
// weight/bias structure, error messages, re-planning from stored statistics, accuracy.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "onnx_io/model_loader.h"
#include "onnx_io/model_writer.h"
#include "passes/fold_batchnorm.h"
#include "quant/calibration.h"
#include "quant/qdq_builder.h"
#include "quant/quantization_plan.h"
#include "quantizer_test_support.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

// ---- plan ----

class DemoPlan : public ::testing::Test {
protected:
    void SetUp() override {
        floatGraph = loadDemo();
        calibration = demoSamples(64);
        ranges = minMaxRanges(floatGraph, "input", calibration);
    }
    Graph floatGraph;
    Tensor calibration;
    quant::RangeLookup ranges;
};

TEST_F(DemoPlan, ConvReluIsOneUnitAndSharingOpsFollowTheirInput) {
    auto result = quant::quantizeGraph(floatGraph, ranges, {});
    ASSERT_TRUE(result.isOk()) << result.status().message();
    const quant::QuantizationPlan &plan = result.value().plan;
    EXPECT_EQ(result.value().folding.folded.size(), 3u);
    const auto *relu = plan.decision("/features/features.2/Relu");
    ASSERT_NE(relu, nullptr);
    EXPECT_EQ(relu->precision, quant::Precision::Int8);
    EXPECT_EQ(relu->unitHead, "/features/features.0/Conv");
    EXPECT_EQ(plan.countFp32(), 0);
    // The Conv output (now the folded BN's output) has no Q/DQ: the Relu reads it directly.
    const Graph &q = result.value().model;
    const Node *conv = q.findNode("/features/features.0/Conv");
    ASSERT_NE(conv, nullptr);
    EXPECT_EQ(consumerOf(q, conv->outputs[0])->opType, "Relu");
    EXPECT_EQ(plan.activations.count(conv->outputs[0]), 0u);
    // MaxPool shares the Relu output's qparams.
    const auto &reluQ = plan.activations.at("/features/features.2/Relu_output_0");
    const auto &poolQ = plan.activations.at("/features/features.3/MaxPool_output_0");
    EXPECT_EQ(reluQ.scale, poolQ.scale);
    EXPECT_EQ(reluQ.zeroPoint, poolQ.zeroPoint);
    EXPECT_EQ(reluQ.zeroPoint.at(0), 0);  // Relu output: range [0, max] -> uint8 zero point 0
}

TEST_F(DemoPlan, ExcludedNodeStaysFloatWithoutQdq) {
    quant::QuantizationOptions options;
    options.excludedNodes = {"/classifier/Gemm"};
    options.exclusionReasons["/classifier/Gemm"] = "low SQNR";
    auto result = quant::quantizeGraph(floatGraph, ranges, options);
    ASSERT_TRUE(result.isOk()) << result.status().message();
    const auto &plan = result.value().plan;
    const auto *gemm = plan.decision("/classifier/Gemm");
    EXPECT_EQ(gemm->precision, quant::Precision::Fp32);
    EXPECT_EQ(gemm->reason, "excluded by user (low SQNR)");
    // Flatten feeds only the fp32 Gemm: no reason to quantize it.
    EXPECT_EQ(plan.decision("/Flatten")->precision, quant::Precision::Fp32);
    const Graph &q = result.value().model;
    const Node *node = q.findNode("/classifier/Gemm");
    EXPECT_TRUE(q.isInitializer(node->inputs[1]));  // float weight, no DequantizeLinear
    EXPECT_EQ(q.initializer(node->inputs[1])->dtype(), DataType::Float);
    EXPECT_TRUE(q.isInitializer(node->inputs[2]));
    EXPECT_EQ(node->outputs[0], "logits");  // no QuantizeLinear after it
    EXPECT_EQ(consumerOf(q, "logits"), nullptr);
    EXPECT_EQ(producerOf(q, q.findNode("/Flatten")->inputs[0])->opType, "DequantizeLinear");
}

TEST_F(DemoPlan, UnknownExcludedNodeNamesClosestNames) {
    quant::QuantizationOptions options;
    options.excludedNodes = {"/features/features.4/conv"};
    auto result = quant::quantizeGraph(floatGraph, ranges, options);
    ASSERT_FALSE(result.isOk());
    EXPECT_EQ(result.status().kind(), ErrorKind::BadInput);
    EXPECT_NE(result.status().message().find(
                  "excluded node '/features/features.4/conv' is not in the model"),
              std::string::npos)
        << result.status().message();
    EXPECT_NE(result.status().message().find("closest names: '/features/features.4/Conv'"),
              std::string::npos)
        << result.status().message();
}

TEST_F(DemoPlan, ExcludedFoldedBatchNormIsAWarning) {
    quant::QuantizationOptions options;
    options.excludedNodes = {"/features/features.5/BatchNormalization"};
    auto result = quant::quantizeGraph(floatGraph, ranges, options);
    ASSERT_TRUE(result.isOk()) << result.status().message();
    ASSERT_EQ(result.value().warnings.size(), 1u);
    EXPECT_NE(result.value().warnings[0].find("folded into Conv '/features/features.4/Conv'"),
              std::string::npos);
}

TEST_F(DemoPlan, UnfoldedBatchNormIsQuantizedOnItsOwn) {
    quant::QuantizationOptions options;
    options.foldBatchNorm = false;
    auto result = quant::quantizeGraph(floatGraph, ranges, options);
    ASSERT_TRUE(result.isOk()) << result.status().message();
    const auto &plan = result.value().plan;
    EXPECT_TRUE(result.value().folding.folded.empty());
    const auto *bn = plan.decision("/features/features.1/BatchNormalization");
    EXPECT_EQ(bn->precision, quant::Precision::Int8);
    EXPECT_TRUE(bn->unitHead.empty());
    // Conv output and BN output are both quantized; the Relu is standalone.
    EXPECT_EQ(plan.activations.count("/features/features.0/Conv_output_0"), 1u);
    EXPECT_EQ(plan.decision("/features/features.2/Relu")->unitHead, "");
    EXPECT_EQ(countOps(result.value().model, "BatchNormalization"), 3);
}

TEST_F(DemoPlan, BuilderStructureWeightsAndBias) {
    auto result = quant::quantizeGraph(floatGraph, ranges, {});
    ASSERT_TRUE(result.isOk()) << result.status().message();
    const Graph &q = result.value().model;
    const auto &plan = result.value().plan;
    // Activations: input, 3 unit outputs, 2 MaxPool outputs, Flatten output, logits.
    EXPECT_EQ(plan.activations.size(), 8u);
    EXPECT_EQ(countOps(q, "QuantizeLinear"), 8);
    EXPECT_EQ(countOps(q, "DequantizeLinear"), 8 + 4 + 4);  // + 4 weights + 4 biases
    EXPECT_EQ(q.opsetVersion, 13);

    const Node *conv = q.findNode("/features/features.4/Conv");
    const Node *wdq = producerOf(q, conv->inputs[1]);
    ASSERT_EQ(wdq->opType, "DequantizeLinear");
    EXPECT_EQ(wdq->attrInt("axis", -1), 0);
    const Tensor &w = *q.initializer(wdq->inputs[0]);
    EXPECT_EQ(w.dtype(), DataType::Int8);
    const Tensor &wScale = *q.initializer(wdq->inputs[1]);
    EXPECT_EQ(wScale.numel(), w.dim(0));

    const Node *bdq = producerOf(q, conv->inputs[2]);
    ASSERT_EQ(bdq->opType, "DequantizeLinear");
    const Tensor &bias = *q.initializer(bdq->inputs[0]);
    const Tensor &bScale = *q.initializer(bdq->inputs[1]);
    EXPECT_EQ(bias.dtype(), DataType::Int32);
    const Node *xdq = producerOf(q, conv->inputs[0]);
    ASSERT_EQ(xdq->opType, "DequantizeLinear");
    const float xScale = q.initializer(xdq->inputs[1])->data<float>()[0];
    for (int64_t c = 0; c < bScale.numel(); ++c)
        EXPECT_FLOAT_EQ(bScale.data<float>()[c], xScale * wScale.data<float>()[c]);

    // Gemm with transB=1: weight per channel along axis 0.
    const Node *gemm = q.findNode("/classifier/Gemm");
    EXPECT_EQ(producerOf(q, gemm->inputs[1])->attrInt("axis", -1), 0);
    // The graph output keeps its name, now on a DequantizeLinear.
    EXPECT_EQ(producerOf(q, "logits")->opType, "DequantizeLinear");
}

TEST_F(DemoPlan, QuantizedDemoKeepsAccuracyAndReloads) {
    const Tensor x = demoSamples(64);
    const auto reference = runGraph(floatGraph, {{"input", x}});
    for (bool perChannel : {true, false}) {
        quant::QuantizationOptions options;
        options.perChannelWeights = perChannel;
        auto result = quant::quantizeGraph(floatGraph, ranges, options);
        ASSERT_TRUE(result.isOk()) << result.status().message();
        auto bytes = serializeModel(result.value().model);
        ASSERT_TRUE(bytes.isOk()) << bytes.status().message();
        auto reloaded = loadModelFromBytes(bytes.value(), "quantized.onnx", "");
        ASSERT_TRUE(reloaded.isOk()) << reloaded.status().message();
        const auto quantized = runGraph(reloaded.value(), {{"input", x}});
        ASSERT_EQ(quantized.size(), 1u);
        const double db = sqnrDb(reference[0], quantized[0]);
        std::printf("demo float vs QDQ (%s weights): SQNR %.2f dB\n",
                    perChannel ? "per-channel" : "per-tensor", db);
        EXPECT_GT(db, 30.0);
    }
}

TEST_F(DemoPlan, ReplanningNeedsNoNewRanges) {
    // The plan is a pure function of graph, ranges and options: same inputs, same plan.
    quant::QuantizationOptions a, b;
    b.symmetricActivations = true;
    auto first = quant::quantizeGraph(floatGraph, ranges, a);
    auto second = quant::quantizeGraph(floatGraph, ranges, a);
    auto symmetric = quant::quantizeGraph(floatGraph, ranges, b);
    ASSERT_TRUE(first.isOk() && second.isOk() && symmetric.isOk());
    for (const auto &[value, q] : first.value().plan.activations) {
        EXPECT_EQ(second.value().plan.activations.at(value).scale, q.scale);
        const auto &s = symmetric.value().plan.activations.at(value);
        EXPECT_EQ(s.type, DataType::Int8);
        EXPECT_EQ(s.zeroPoint.at(0), 0);
    }
}

TEST_F(DemoPlan, StoredStatisticsServeEveryReplan) {
    quant::CalibrationStatistics stats;
    ASSERT_TRUE(quant::calibrate(floatGraph, {{{"input", calibration}}}, stats).isOk());
    ASSERT_EQ(stats.batchCount(), 1);
    // MinMax from the stored statistics gives the qparams of an independent min/max pass.
    auto fromStats = quant::quantizeGraph(floatGraph, stats, {});
    auto fromRanges = quant::quantizeGraph(floatGraph, ranges, {});
    ASSERT_TRUE(fromStats.isOk() && fromRanges.isOk());
    for (const auto &[value, q] : fromRanges.value().plan.activations)
        EXPECT_EQ(fromStats.value().plan.activations.at(value).scale, q.scale) << value;
    // Re-plans with another method, per-tensor weights and a node in fp32: no new calibration.
    quant::QuantizationOptions percentile;
    percentile.method = quant::RangeMethod::Percentile;
    percentile.percentile = 99.0;
    quant::QuantizationOptions perTensorExcluded;
    perTensorExcluded.perChannelWeights = false;
    perTensorExcluded.excludedNodes = {"/features/features.8/Conv"};
    auto p = quant::quantizeGraph(floatGraph, stats, percentile);
    auto t = quant::quantizeGraph(floatGraph, stats, perTensorExcluded);
    ASSERT_TRUE(p.isOk() && t.isOk());
    EXPECT_EQ(stats.batchCount(), 1);
    const std::string relu = "/features/features.6/Relu_output_0";
    EXPECT_LT(p.value().plan.activations.at(relu).scale[0],
              fromStats.value().plan.activations.at(relu).scale[0]);
    EXPECT_EQ(t.value().plan.decision("/features/features.8/Conv")->precision,
              quant::Precision::Fp32);
    // The excluded Conv's Relu is then quantized on its own, and no weight of the Conv is
    // quantized.
    const auto *relu10 = t.value().plan.decision("/features/features.10/Relu");
    EXPECT_EQ(relu10->precision, quant::Precision::Fp32);
    EXPECT_EQ(relu10->reason, "in one unit with excluded Conv '/features/features.8/Conv'");
    EXPECT_EQ(t.value().plan.weights.count({"/features/features.8/Conv", 1}), 0u);
    for (const auto &[key, w] : t.value().plan.weights)
        EXPECT_FALSE(w.qparams.perChannel()) << key.first;
}

// ---- every op family (tests/data/quantizer/mixed_ops.onnx, tests/tools/make_quantizer_fixture.py)
// ----

TEST(MixedOpsPlan, DecisionsAxesConstantsAndAccuracy) {
    const char *data = std::getenv("QL_TEST_DATA");
    auto loaded = loadModel(std::string(data ? data : "tests/data") + "/quantizer/mixed_ops.onnx");
    ASSERT_TRUE(loaded.isOk()) << loaded.status().message();
    const Graph &floatGraph = loaded.value();
    const Tensor x = randomTensor({16, 3, 8, 8}, 21, -2.0f, 2.0f);
    const auto ranges = minMaxRanges(floatGraph, "x", x);
    auto result = quant::quantizeGraph(floatGraph, ranges, {});
    ASSERT_TRUE(result.isOk()) << result.status().message();
    const auto &plan = result.value().plan;
    const Graph &q = result.value().model;

    ASSERT_EQ(result.value().folding.kept.size(), 1u);
    EXPECT_NE(result.value().folding.kept[0].reason.find("Add 'add1'"), std::string::npos);
    EXPECT_EQ(plan.decision("clip1")->unitHead,
              "conv1");  // Clip with constant bounds joins the unit
    EXPECT_EQ(plan.decision("bn_after_add")->precision, quant::Precision::Int8);
    EXPECT_EQ(plan.decision("softmax")->precision, quant::Precision::Fp32);
    EXPECT_EQ(plan.decision("softmax")->reason, "op not quantizable");
    for (const char *name : {"conv2", "add1", "leaky", "gap", "avgpool", "concat", "reshape",
                             "matmul", "add_const", "sigmoid", "mul", "gemm"})
        EXPECT_EQ(plan.decision(name)->precision, quant::Precision::Int8) << name;
    // conv2 feeds the Add, so its output is quantized; the Add's other input is the unit output.
    EXPECT_EQ(plan.activations.count("c2"), 1u);
    EXPECT_EQ(plan.activations.count("c1"), 0u);

    // MatMul weight [16, 4] and Gemm weight with transB=0 [4, 16]: per channel along axis 1.
    const Node *wdq = producerOf(q, q.findNode("matmul")->inputs[1]);
    EXPECT_EQ(wdq->attrInt("axis", -1), 1);
    EXPECT_EQ(q.initializer(wdq->inputs[1])->numel(), 4);
    const Node *gdq = producerOf(q, q.findNode("gemm")->inputs[1]);
    EXPECT_EQ(gdq->attrInt("axis", -1), 1);
    EXPECT_EQ(q.initializer(producerOf(q, q.findNode("gemm")->inputs[2])->inputs[0])->dtype(),
              DataType::Int32);
    // The constant Add operand is stored uint8 per tensor behind a DequantizeLinear.
    const Node *cdq = producerOf(q, q.findNode("add_const")->inputs[1]);
    ASSERT_EQ(cdq->opType, "DequantizeLinear");
    EXPECT_EQ(q.initializer(cdq->inputs[0])->dtype(), DataType::UInt8);
    EXPECT_FALSE(cdq->hasAttribute("axis"));
    // Softmax (fp32) writes the graph output itself; the quantized graph output "gap" keeps its
    // name.
    EXPECT_EQ(producerOf(q, "prob")->opType, "Softmax");
    EXPECT_EQ(producerOf(q, "gap")->opType, "DequantizeLinear");

    auto bytes = serializeModel(q);
    ASSERT_TRUE(bytes.isOk()) << bytes.status().message();
    auto reloaded = loadModelFromBytes(bytes.value(), "mixed_quantized.onnx", "");
    ASSERT_TRUE(reloaded.isOk()) << reloaded.status().message();
    const auto reference = runGraph(floatGraph, {{"x", x}});
    const auto quantized = runGraph(reloaded.value(), {{"x", x}});
    ASSERT_EQ(quantized.size(), 2u);
    EXPECT_GT(sqnrDb(reference[0], quantized[0]), 35.0);
    EXPECT_GT(sqnrDb(reference[1], quantized[1]), 35.0);
}

TEST_F(DemoPlan, OlderOpsetIsRaisedTo13UnlessAnOpChangedThere) {
    Graph older = floatGraph;
    older.opsetVersion = 12;
    older.domainOpsets[""] = 12;
    auto raised = quant::quantizeGraph(older, ranges, {});
    ASSERT_TRUE(raised.isOk()) << raised.status().message();
    EXPECT_EQ(raised.value().model.opsetVersion, 13);
    EXPECT_EQ(raised.value().model.domainOpsets.at(""), 13);

    Node squeeze = makeNode("Squeeze", {{"axes", intsAttr({0})}});
    squeeze.name = "squeeze";
    squeeze.inputs = {"logits"};
    squeeze.outputs = {"squeezed"};
    older.nodes.push_back(squeeze);
    auto refused = quant::quantizeGraph(older, ranges, {});
    ASSERT_FALSE(refused.isOk());
    EXPECT_EQ(refused.status().kind(), ErrorKind::Unsupported);
    EXPECT_NE(refused.status().message().find("Squeeze 'squeeze': the QDQ export needs opset 13"),
              std::string::npos)
        << refused.status().message();
}

TEST(RemovableActivation, AddFollowedByReluTakesTheReluRange) {
    // x -> Conv -> Add(conv, x) -> Relu -> y: the Add's output is quantized with the Relu's range.
    Graph g;
    g.opsetVersion = 13;
    g.domainOpsets[""] = 13;
    ValueInfo in;
    in.name = "x";
    in.dtype = DataType::Float;
    in.shape = {2, 3, 5, 5};
    in.hasShape = true;
    g.inputs = {in};
    ValueInfo out = in;
    out.name = "y";
    g.outputs = {out};
    g.initializers["w"] = randomTensor({3, 3, 3, 3}, 31, -0.5f, 0.5f);
    Node conv = makeNode("Conv", {{"pads", intsAttr({1, 1, 1, 1})}});
    conv.name = "conv";
    conv.inputs = {"x", "w"};
    conv.outputs = {"c"};
    Node add = makeNode("Add");
    add.name = "add";
    add.inputs = {"c", "x"};
    add.outputs = {"s"};
    Node relu = makeNode("Relu");
    relu.name = "relu";
    relu.inputs = {"s"};
    relu.outputs = {"y"};
    g.nodes = {conv, add, relu};
    const Tensor x = randomTensor({2, 3, 5, 5}, 32, -2.0f, 2.0f);
    const auto ranges = minMaxRanges(g, "x", x);
    auto result = quant::quantizeGraph(g, ranges, {});
    ASSERT_TRUE(result.isOk()) << result.status().message();
    const auto &plan = result.value().plan;
    EXPECT_EQ(plan.decision("add")->reason, "quantized with the range of Relu 'relu'");
    EXPECT_EQ(plan.decision("relu")->precision, quant::Precision::Int8);
    const auto &sum = plan.activations.at("s");
    const auto &y = plan.activations.at("y");
    EXPECT_EQ(sum.scale, y.scale);
    EXPECT_EQ(sum.zeroPoint, y.zeroPoint);
    EXPECT_EQ(sum.zeroPoint.at(0), 0);  // uint8 [0, max]: the Q/DQ pair clamps like the Relu
    EXPECT_FLOAT_EQ(sum.scale.at(0), ranges("y")->second / 255.0f);
    // An excluded Relu keeps its own qparams and the Add its own range.
    quant::QuantizationOptions options;
    options.excludedNodes = {"relu"};
    auto excluded = quant::quantizeGraph(g, ranges, options);
    ASSERT_TRUE(excluded.isOk());
    EXPECT_EQ(excluded.value().plan.decision("add")->reason, "quantized");
    EXPECT_LT(excluded.value().plan.activations.at("s").zeroPoint.at(0), 255);
    EXPECT_GT(excluded.value().plan.activations.at("s").zeroPoint.at(0), 0);
    const auto reference = runGraph(g, {{"x", x}});
    const auto quantized = runGraph(result.value().model, {{"x", x}});
    EXPECT_GT(sqnrDb(reference[0], quantized[0]), 30.0);
}

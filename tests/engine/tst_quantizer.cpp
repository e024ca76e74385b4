// The in-app quantizer: ONNX writer round trip, BatchNormalization folding (outputs within 1e-5),
// quantization plan decisions, QDQ builder structure, and the quantized demo model's accuracy.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "onnx_io/model_loader.h"
#include "onnx_io/model_writer.h"
#include "onnx_io/tensor_file.h"
#include "passes/fold_batchnorm.h"
#include "quant/calibration.h"
#include "quant/qdq_builder.h"
#include "quant/quantization_plan.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

using namespace ql;
using namespace ql::test;

namespace {

std::string demoDir() {
    // QL_TEST_DATA is <repo>/tests/data, which may not exist yet: strip it lexically.
    const char *data = std::getenv("QL_TEST_DATA");
    std::string root = data ? data : "tests/data";
    const std::string suffix = "/tests/data";
    if (root.size() >= suffix.size() && root.compare(root.size() - suffix.size(), suffix.size(), suffix) == 0)
        root.resize(root.size() - suffix.size());
    else
        root += "/../..";
    return root + "/resources/demo";
}

Graph loadDemo() {
    auto g = loadModel(demoDir() + "/fashion_cnn.onnx");
    EXPECT_TRUE(g.isOk()) << g.status().message();
    return g.value();
}

Tensor demoSamples(int64_t count) {
    auto t = readNpy(demoDir() + "/samples.npy");
    EXPECT_TRUE(t.isOk()) << t.status().message();
    const Tensor all = t.value();
    const int64_t n = std::min(count, all.dim(0));
    Shape shape = all.shape();
    shape[0] = n;
    Tensor out(DataType::Float, shape);
    std::copy(all.data<float>(), all.data<float>() + out.numel(), out.data<float>());
    return out;
}

std::vector<Tensor> runGraph(const Graph &graph, const std::map<std::string, Tensor> &inputs,
                             const RunOptions &options = {}) {
    auto plan = ExecutionPlan::create(graph);
    EXPECT_TRUE(plan.isOk()) << plan.status().message();
    std::vector<Tensor> outputs;
    if (!plan.isOk()) return outputs;
    Status ran = plan.value()->run(inputs, outputs, options);
    EXPECT_TRUE(ran.isOk()) << ran.message();
    return outputs;
}

// Min/max of every value the float graph computes on `input`: a plain MinMax calibration.
quant::RangeLookup minMaxRanges(const Graph &graph, const std::string &inputName, const Tensor &input) {
    auto ranges = std::make_shared<std::map<std::string, std::pair<float, float>>>();
    auto record = [ranges](const std::string &name, const Tensor &t) {
        auto &r = ranges->emplace(name, std::make_pair(INFINITY, -INFINITY)).first->second;
        for (int64_t i = 0; i < t.numel(); ++i) {
            const float v = static_cast<float>(t.valueAsDouble(i));
            r.first = std::min(r.first, v);
            r.second = std::max(r.second, v);
        }
    };
    record(inputName, input);
    RunOptions options;
    options.tap = [&](const Node &node, size_t o, const Tensor &value) {
        if (value.dtype() == DataType::Float) record(node.outputs[o], value);
    };
    runGraph(graph, {{inputName, input}}, options);
    return [ranges](const std::string &value) -> std::optional<std::pair<float, float>> {
        auto it = ranges->find(value);
        if (it == ranges->end()) return std::nullopt;
        return it->second;
    };
}

double sqnrDb(const Tensor &reference, const Tensor &test) {
    double signal = 0.0, noise = 0.0;
    for (int64_t i = 0; i < reference.numel(); ++i) {
        const double x = reference.valueAsDouble(i), y = test.valueAsDouble(i);
        signal += x * x;
        noise += (x - y) * (x - y);
    }
    return 10.0 * std::log10(signal / noise);
}

ValueInfo floatInfo(const std::string &name, const Shape &shape) {
    ValueInfo v;
    v.name = name;
    v.dtype = DataType::Float;
    v.shape = shape;
    v.hasShape = true;
    return v;
}

// x -> producer(opType) -> BN -> y, with random weights and BN statistics (variance > 0).
Graph producerWithBatchNorm(const std::string &opType, const Shape &inputShape, const Tensor &weight,
                            int64_t channels, std::map<std::string, Attribute> attributes, bool withBias) {
    Graph g;
    g.opsetVersion = 13;
    g.domainOpsets[""] = 13;
    g.inputs.push_back(floatInfo("x", inputShape));
    g.outputs.push_back(floatInfo("y", {}));
    g.outputs.back().hasShape = false;
    g.initializers["w"] = weight;
    Node producer = makeNode(opType, std::move(attributes));
    producer.name = "producer";
    producer.inputs = {"x", "w"};
    if (withBias) {
        g.initializers["b"] = randomTensor({channels}, 11);
        producer.inputs.push_back("b");
    }
    producer.outputs = {"p"};
    Node bn = makeNode("BatchNormalization", {{"epsilon", floatAttr(1e-3f)}});
    bn.name = "bn";
    bn.inputs = {"p", "gamma", "beta", "mean", "var"};
    bn.outputs = {"y"};
    g.initializers["gamma"] = randomTensor({channels}, 12, 0.5f, 2.0f);
    g.initializers["beta"] = randomTensor({channels}, 13);
    g.initializers["mean"] = randomTensor({channels}, 14);
    g.initializers["var"] = randomTensor({channels}, 15, 0.1f, 3.0f);
    g.nodes = {producer, bn};
    return g;
}

void expectFoldKeepsOutputs(Graph g, const Shape &inputShape) {
    const Tensor x = randomTensor(inputShape, 7);
    const std::vector<Tensor> before = runGraph(g, {{"x", x}});
    BatchNormFoldReport report;
    ASSERT_TRUE(foldBatchNorms(g, &report).isOk());
    ASSERT_EQ(report.folded.size(), 1u);
    EXPECT_EQ(report.folded[0].producerNode, "producer");
    EXPECT_EQ(report.folded[0].batchNormNode, "bn");
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].outputs[0], "y");
    EXPECT_FALSE(g.isInitializer("gamma"));
    const std::vector<Tensor> after = runGraph(g, {{"x", x}});
    ASSERT_EQ(before.size(), 1u);
    ASSERT_EQ(after.size(), 1u);
    EXPECT_LT(maxAbsDiff(before[0], after[0]), 1e-5);
}

int countOps(const Graph &g, const std::string &op) {
    int n = 0;
    for (const Node &node : g.nodes) n += node.opType == op ? 1 : 0;
    return n;
}

const Node *consumerOf(const Graph &g, const std::string &value) {
    for (const Node &n : g.nodes)
        for (const std::string &in : n.inputs)
            if (in == value) return &n;
    return nullptr;
}

const Node *producerOf(const Graph &g, const std::string &value) {
    const int i = g.producerIndex(value);
    return i < 0 ? nullptr : &g.nodes[i];
}

}  // namespace

// ---- model writer ----

TEST(ModelWriter, RoundTripKeepsNodesInitializersAndOutputs) {
    const Graph original = loadDemo();
    auto bytes = serializeModel(original);
    ASSERT_TRUE(bytes.isOk()) << bytes.status().message();
    auto reloaded = loadModelFromBytes(bytes.value(), "roundtrip.onnx", "");
    ASSERT_TRUE(reloaded.isOk()) << reloaded.status().message();
    const Graph &copy = reloaded.value();
    EXPECT_EQ(copy.opsetVersion, original.opsetVersion);
    ASSERT_EQ(copy.nodes.size(), original.nodes.size());
    for (size_t i = 0; i < copy.nodes.size(); ++i) {
        const Node &a = original.nodes[i], &b = copy.nodes[i];
        EXPECT_EQ(a.name, b.name);
        EXPECT_EQ(a.opType, b.opType);
        EXPECT_EQ(a.inputs, b.inputs);
        EXPECT_EQ(a.outputs, b.outputs);
        ASSERT_EQ(a.attributes.size(), b.attributes.size()) << a.name;
        for (const auto &[key, attr] : a.attributes) {
            const Attribute &other = b.attributes.at(key);
            EXPECT_EQ(attr.kind, other.kind) << a.name << " " << key;
            EXPECT_EQ(attr.i, other.i);
            EXPECT_EQ(attr.f, other.f);
            EXPECT_EQ(attr.ints, other.ints);
        }
    }
    ASSERT_EQ(copy.initializers.size(), original.initializers.size());
    for (const auto &[name, tensor] : original.initializers) {
        const Tensor &other = copy.initializers.at(name);
        EXPECT_EQ(other.shape(), tensor.shape()) << name;
        EXPECT_EQ(0, std::memcmp(other.rawData(), tensor.rawData(), tensor.byteSize())) << name;
    }
    ASSERT_EQ(copy.inputs.size(), 1u);
    EXPECT_EQ(copy.inputs[0].dimNames.at(0), "batch");  // symbolic dim survives
    EXPECT_EQ(copy.inputs[0].shape, original.inputs[0].shape);

    const Tensor x = demoSamples(8);
    const auto a = runGraph(original, {{"input", x}});
    const auto b = runGraph(copy, {{"input", x}});
    ASSERT_EQ(a.size(), 1u);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(maxAbsDiff(a[0], b[0]), 0.0);
}

TEST(ModelWriter, RefusesGraphWithoutDefaultOpset) {
    Graph g = loadDemo();
    g.opsetVersion = 0;
    g.domainOpsets.clear();
    auto bytes = serializeModel(g);
    ASSERT_FALSE(bytes.isOk());
    EXPECT_NE(bytes.status().message().find("no default ONNX opset"), std::string::npos);
}

// ---- BatchNormalization folding ----

TEST(FoldBatchNorm, ConvWithBias) {
    expectFoldKeepsOutputs(producerWithBatchNorm("Conv", {2, 3, 6, 6}, randomTensor({4, 3, 3, 3}, 1), 4,
                                                 {{"pads", intsAttr({1, 1, 1, 1})}}, true),
                           {2, 3, 6, 6});
}

TEST(FoldBatchNorm, GroupedConvWithoutBias) {
    expectFoldKeepsOutputs(producerWithBatchNorm("Conv", {1, 4, 5, 5}, randomTensor({6, 2, 3, 3}, 2), 6,
                                                 {{"group", intAttr(2)}}, false),
                           {1, 4, 5, 5});
}

TEST(FoldBatchNorm, GroupedConvTranspose) {
    // W [C=4, M/g=3, 2, 2], group 2: output channel = group * 3 + j.
    expectFoldKeepsOutputs(producerWithBatchNorm("ConvTranspose", {1, 4, 4, 4}, randomTensor({4, 3, 2, 2}, 3), 6,
                                                 {{"group", intAttr(2)}, {"strides", intsAttr({2, 2})}}, true),
                           {1, 4, 4, 4});
}

TEST(FoldBatchNorm, GemmBothWeightLayouts) {
    expectFoldKeepsOutputs(producerWithBatchNorm("Gemm", {3, 5}, randomTensor({7, 5}, 4), 7,
                                                 {{"transB", intAttr(1)}, {"beta", floatAttr(0.5f)}}, true),
                           {3, 5});
    expectFoldKeepsOutputs(producerWithBatchNorm("Gemm", {3, 5}, randomTensor({5, 7}, 5), 7, {}, true), {3, 5});
}

TEST(FoldBatchNorm, HandComputedSingleChannel) {
    // 1x1 Conv, weight 2, bias 1; BN gamma 3, beta 0.5, mean 1, var 3, eps 1: s = 3/2.
    Graph g = producerWithBatchNorm("Conv", {1, 1, 1, 1}, Tensor::fromVector<float>({1, 1, 1, 1}, {2.0f}), 1, {},
                                    true);
    g.initializers["b"] = floats({1.0f});
    g.initializers["gamma"] = floats({3.0f});
    g.initializers["beta"] = floats({0.5f});
    g.initializers["mean"] = floats({1.0f});
    g.initializers["var"] = floats({3.0f});
    g.nodes[1].attributes["epsilon"] = floatAttr(1.0f);
    ASSERT_TRUE(foldBatchNorms(g).isOk());
    EXPECT_FLOAT_EQ(g.initializer(g.nodes[0].inputs[1])->data<float>()[0], 3.0f);  // 2 * 1.5
    EXPECT_FLOAT_EQ(g.initializer(g.nodes[0].inputs[2])->data<float>()[0], 0.5f);  // (1 - 1) * 1.5 + 0.5
}

TEST(FoldBatchNorm, KeepsBatchNormAfterAddAndSharedConvOutput) {
    Graph g = producerWithBatchNorm("Conv", {1, 2, 4, 4}, randomTensor({2, 2, 1, 1}, 6), 2, {}, false);
    // The Conv output also feeds an Add whose result feeds a second BN: neither BN may fold.
    Node add = makeNode("Add");
    add.name = "add";
    add.inputs = {"p", "p"};
    add.outputs = {"s"};
    Node bn2 = g.nodes[1];
    bn2.name = "bn_after_add";
    bn2.inputs[0] = "s";
    bn2.outputs = {"z"};
    g.nodes.push_back(add);
    g.nodes.push_back(bn2);
    g.outputs.push_back(floatInfo("z", {}));
    BatchNormFoldReport report;
    ASSERT_TRUE(foldBatchNorms(g, &report).isOk());
    EXPECT_TRUE(report.folded.empty());
    ASSERT_EQ(report.kept.size(), 2u);
    EXPECT_NE(report.kept[0].reason.find("other consumers"), std::string::npos) << report.kept[0].reason;
    EXPECT_NE(report.kept[1].reason.find("Add 'add'"), std::string::npos) << report.kept[1].reason;
    EXPECT_EQ(g.nodes.size(), 4u);
}

TEST(FoldBatchNorm, DemoModelOutputsUnchanged) {
    Graph g = loadDemo();
    const Tensor x = demoSamples(16);
    const auto before = runGraph(g, {{"input", x}});
    BatchNormFoldReport report;
    ASSERT_TRUE(foldBatchNorms(g, &report).isOk());
    EXPECT_EQ(report.folded.size(), 3u);
    EXPECT_EQ(countOps(g, "BatchNormalization"), 0);
    const auto after = runGraph(g, {{"input", x}});
    ASSERT_EQ(after.size(), 1u);
    EXPECT_LT(maxAbsDiff(before[0], after[0]), 1e-5 * 20);  // logits reach ~20: 1e-5 relative
    std::string why;
    EXPECT_TRUE(allClose(after[0], before[0], 1e-5, 1e-5, &why)) << why;
}

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
    EXPECT_EQ(node->outputs[0], "logits");          // no QuantizeLinear after it
    EXPECT_EQ(consumerOf(q, "logits"), nullptr);
    EXPECT_EQ(producerOf(q, q.findNode("/Flatten")->inputs[0])->opType, "DequantizeLinear");
}

TEST_F(DemoPlan, UnknownExcludedNodeNamesClosestNames) {
    quant::QuantizationOptions options;
    options.excludedNodes = {"/features/features.4/conv"};
    auto result = quant::quantizeGraph(floatGraph, ranges, options);
    ASSERT_FALSE(result.isOk());
    EXPECT_EQ(result.status().kind(), ErrorKind::BadInput);
    EXPECT_NE(result.status().message().find("excluded node '/features/features.4/conv' is not in the model"),
              std::string::npos)
        << result.status().message();
    EXPECT_NE(result.status().message().find("closest names: '/features/features.4/Conv'"), std::string::npos)
        << result.status().message();
}

TEST_F(DemoPlan, ExcludedFoldedBatchNormIsAWarning) {
    quant::QuantizationOptions options;
    options.excludedNodes = {"/features/features.5/BatchNormalization"};
    auto result = quant::quantizeGraph(floatGraph, ranges, options);
    ASSERT_TRUE(result.isOk()) << result.status().message();
    ASSERT_EQ(result.value().warnings.size(), 1u);
    EXPECT_NE(result.value().warnings[0].find("folded into Conv '/features/features.4/Conv'"), std::string::npos);
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
        std::printf("demo float vs QDQ (%s weights): SQNR %.2f dB\n", perChannel ? "per-channel" : "per-tensor", db);
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
    EXPECT_LT(p.value().plan.activations.at(relu).scale[0], fromStats.value().plan.activations.at(relu).scale[0]);
    EXPECT_EQ(t.value().plan.decision("/features/features.8/Conv")->precision, quant::Precision::Fp32);
    // The excluded Conv's Relu is then quantized on its own, and no weight of the Conv is quantized.
    EXPECT_EQ(t.value().plan.decision("/features/features.10/Relu")->unitHead, "");
    EXPECT_EQ(t.value().plan.weights.count({"/features/features.8/Conv", 1}), 0u);
    for (const auto &[key, w] : t.value().plan.weights) EXPECT_FALSE(w.qparams.perChannel()) << key.first;
}

// ---- every op family (tests/data/quantizer/mixed_ops.onnx, tests/tools/make_quantizer_fixture.py) ----

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
    EXPECT_EQ(plan.decision("clip1")->unitHead, "conv1");  // Clip with constant bounds joins the unit
    EXPECT_EQ(plan.decision("bn_after_add")->precision, quant::Precision::Int8);
    EXPECT_EQ(plan.decision("softmax")->precision, quant::Precision::Fp32);
    EXPECT_EQ(plan.decision("softmax")->reason, "op not quantizable");
    for (const char *name : {"conv2", "add1", "leaky", "gap", "avgpool", "concat", "reshape", "matmul", "add_const",
                             "sigmoid", "mul", "gemm"})
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
    EXPECT_EQ(q.initializer(producerOf(q, q.findNode("gemm")->inputs[2])->inputs[0])->dtype(), DataType::Int32);
    // The constant Add operand is stored uint8 per tensor behind a DequantizeLinear.
    const Node *cdq = producerOf(q, q.findNode("add_const")->inputs[1]);
    ASSERT_EQ(cdq->opType, "DequantizeLinear");
    EXPECT_EQ(q.initializer(cdq->inputs[0])->dtype(), DataType::UInt8);
    EXPECT_FALSE(cdq->hasAttribute("axis"));
    // Softmax (fp32) writes the graph output itself; the quantized graph output "gap" keeps its name.
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

// Weight comparison: the committed PyTorch FX fixture against PyTorch's extract_weights figures,
// and hand-built layers with hand-computed SQNRs (per channel, per tensor, BN folded or not,
// no weights).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "analysis/suite/weight_comparison.h"
#include "onnx_io/model_loader.h"
#include "test_support.h"

using namespace ql;
using namespace ql::analysis;
using namespace ql::test;

namespace {

// "weight_sqnr_db": {"conv2": 43.93..., ...} from numeric_suite.json, which PyTorch wrote.
double jsonWeightSqnr(const std::string &json, const std::string &layer) {
    const size_t section = json.find("\"weight_sqnr_db\"");
    if (section == std::string::npos) return NAN;
    const size_t end = json.find('}', section);
    const size_t key = json.find("\"" + layer + "\"", section);
    if (key == std::string::npos || key > end) return NAN;
    const size_t colon = json.find(':', key);
    return std::strtod(json.c_str() + colon + 1, nullptr);
}

const LayerWeightComparison *find(const std::vector<LayerWeightComparison> &all, const std::string &node) {
    for (const auto &c : all)
        if (c.floatNode == node) return &c;
    return nullptr;
}

}  // namespace

TEST(WeightComparison, FashionCnnMatchesPyTorchExtractWeights) {
    const char *data = std::getenv("QL_TEST_DATA");
    ASSERT_NE(data, nullptr);
    const std::string dir = std::string(data) + "/fx_fashion_cnn/";
    std::ifstream file(dir + "numeric_suite.json");
    ASSERT_TRUE(file);
    std::stringstream buffer;
    buffer << file.rdbuf();
    const std::string json = buffer.str();

    auto floatModel = loadModel(dir + "float.onnx");
    auto quantModel = loadModel(dir + "qdq.onnx");
    ASSERT_TRUE(floatModel) << floatModel.status().message();
    ASSERT_TRUE(quantModel) << quantModel.status().message();
    auto matching = matchLayers(*floatModel, *quantModel);
    ASSERT_TRUE(matching) << matching.status().message();
    auto result = compareWeights(*floatModel, *quantModel, *matching);
    ASSERT_TRUE(result) << result.status().message();

    const std::vector<std::pair<std::string, std::string>> layers = {
        {"conv1", "/conv1/Conv"}, {"conv2", "/conv2/Conv"}, {"conv3", "/conv3/Conv"}, {"fc", "/fc/Gemm"}};
    for (const auto &[torchName, node] : layers) {
        const double expected = jsonWeightSqnr(json, torchName);
        ASSERT_FALSE(std::isnan(expected)) << torchName;
        const LayerWeightComparison *c = find(*result, node);
        ASSERT_NE(c, nullptr) << node;
        ASSERT_TRUE(c->stats.has_value()) << node << ": " << c->note;
        EXPECT_NEAR(c->stats->sqnrDb, expected, 0.1) << node;
        EXPECT_EQ(c->batchNormFolded, torchName != "fc") << node;
        std::printf("%s: %.4f dB (PyTorch %.4f)\n", node.c_str(), c->stats->sqnrDb, expected);
        // Per-channel figures exist for every output channel and bracket the layer figure.
        ASSERT_FALSE(c->stats->channelSqnrDb.empty());
        double lo = INFINITY, hi = -INFINITY;
        for (double s : c->stats->channelSqnrDb) lo = std::min(lo, s), hi = std::max(hi, s);
        EXPECT_LE(lo, c->stats->sqnrDb + 1e-9);
        EXPECT_GE(hi, c->stats->sqnrDb - 1e-9);
        for (size_t i = 0; i < c->stats->channelMin.size(); ++i)
            EXPECT_LE(c->stats->channelMin[i], c->stats->channelMax[i]);
    }
    // Without folding, conv1's float weight differs from the quantized (folded) one: far worse.
    LayerMatching unfolded = *matching;
    for (auto &m : unfolded.matches) m.foldedFloatNodes.clear();
    auto raw = compareWeights(*floatModel, *quantModel, unfolded);
    ASSERT_TRUE(raw);
    const LayerWeightComparison *conv1 = find(*raw, "/conv1/Conv");
    ASSERT_TRUE(conv1 && conv1->stats);
    EXPECT_LT(conv1->stats->sqnrDb, jsonWeightSqnr(json, "conv1") - 3.0);
    // Non-weight layers (Relu, pools, Add) are listed with no figures.
    int withoutWeights = 0;
    for (const auto &c : *result) withoutWeights += c.stats.has_value() ? 0 : 1;
    EXPECT_GT(withoutWeights, 0);
}

TEST(WeightComparison, PerChannelSqnrHandComputed) {
    // Channel 0 [1, 2] vs [1.1, 2]: 10·log10(5 / 0.01) = 26.9897; channel 1 [3, 4] vs [3, 3.9]:
    // 10·log10(25 / 0.01) = 33.9794; whole tensor 10·log10(30 / 0.02) = 31.7609.
    Tensor x = Tensor::fromVector<float>({2, 2}, {1, 2, 3, 4});
    Tensor y = Tensor::fromVector<float>({2, 2}, {1.1f, 2, 3, 3.9f});
    auto stats = compareWeightTensors(x, y, 0);
    ASSERT_TRUE(stats);
    ASSERT_EQ(stats->channelSqnrDb.size(), 2u);
    EXPECT_NEAR(stats->channelSqnrDb[0], 26.9897, 1e-3);
    EXPECT_NEAR(stats->channelSqnrDb[1], 33.9794, 1e-3);
    EXPECT_NEAR(stats->sqnrDb, 31.7609, 1e-3);
    EXPECT_FLOAT_EQ(stats->channelMin[0], 1.0f);
    EXPECT_FLOAT_EQ(stats->channelMax[0], 2.0f);
    EXPECT_FLOAT_EQ(stats->channelMin[1], 3.0f);
    EXPECT_FLOAT_EQ(stats->channelMax[1], 4.0f);
    // Along axis 1 the channels are columns: [1, 3] vs [1.1, 3] -> 10·log10(10 / 0.01) = 30;
    // [2, 4] vs [2, 3.9] -> 10·log10(20 / 0.01) = 33.0103.
    auto columns = compareWeightTensors(x, y, 1);
    ASSERT_TRUE(columns);
    EXPECT_NEAR(columns->channelSqnrDb[0], 30.0, 1e-3);
    EXPECT_NEAR(columns->channelSqnrDb[1], 33.0103, 1e-3);
    EXPECT_FALSE(compareWeightTensors(x, Tensor::fromVector<float>({4}, {1, 2, 3, 4}), 0));
}

TEST(WeightComparison, PerTensorDequantizeLinearAndLayerWithoutWeights) {
    // Conv weight [2,1,1,1] = [0.5, -1.26]; quantized per tensor int8 scale 0.1 zp 0: [5, -13]
    // -> [0.5, -1.3]. SQNR = 10·log10((0.25 + 1.5876) / 0.0016) = 30.6062.
    Graph f, q;
    f.initializers["w"] = Tensor::fromVector<float>({2, 1, 1, 1}, {0.5f, -1.26f});
    addNode(f, "Conv", "conv", {"x", "w"}, {"c"});
    addNode(f, "Relu", "relu", {"c"}, {"y"});
    q.initializers["wq"] = Tensor::fromVector<int8_t>({2, 1, 1, 1}, {5, -13});
    q.initializers["s"] = Tensor::scalar<float>(0.1f);
    q.initializers["zp"] = Tensor::scalar<int8_t>(0);
    addNode(q, "DequantizeLinear", "dq_w", {"wq", "s", "zp"}, {"w_deq"});
    addNode(q, "Identity", "id_w", {"w_deq"}, {"w_id"});  // exporter noise between DQ and Conv
    addNode(q, "Conv", "conv_q", {"x", "w_id"}, {"c"});
    addNode(q, "Relu", "relu_q", {"c"}, {"y"});
    LayerMatching m;
    m.matches.push_back({"conv", "conv_q", "c", "c", {}, "structure"});
    m.matches.push_back({"relu", "relu_q", "y", "y", {}, "structure"});
    auto result = compareWeights(f, q, m);
    ASSERT_TRUE(result) << result.status().message();
    ASSERT_EQ(result->size(), 2u);
    const auto &conv = (*result)[0];
    ASSERT_TRUE(conv.stats) << conv.note;
    EXPECT_EQ(conv.channelAxis, 0);
    EXPECT_NEAR(conv.stats->sqnrDb, 10 * std::log10((0.25 + 1.5876) / 0.0016), 1e-3);
    EXPECT_EQ(conv.stats->channelSqnrDb[0], INFINITY) << "0.5 is exact";
    EXPECT_NEAR(conv.stats->channelSqnrDb[1], 10 * std::log10(1.5876 / 0.0016), 1e-3);
    EXPECT_FALSE(conv.batchNormFolded);
    const auto &relu = (*result)[1];
    EXPECT_EQ(relu.opType, "Relu");
    EXPECT_FALSE(relu.stats.has_value());
    EXPECT_EQ(relu.channelAxis, -1);
    EXPECT_FALSE(relu.note.empty());
}

TEST(WeightComparison, BatchNormFoldingAppliedOrNot) {
    // W = [1, 2] (2 output channels), BN gamma [2, 3], var [3, 0], eps 1:
    // s = [2/sqrt(4), 3/sqrt(1)] = [1, 3] -> W' = [1, 6]. Quantized per axis 0, int8 scales
    // [1, 2] and q [1, 3] -> [1, 6]: identical to the folded weight (+inf dB). Unfolded:
    // [1, 2] vs [1, 6] -> 10·log10(5 / 16) = -5.0515 dB.
    Graph f, q;
    f.initializers["w"] = Tensor::fromVector<float>({2, 1, 1, 1}, {1, 2});
    f.initializers["gamma"] = Tensor::fromVector<float>({2}, {2, 3});
    f.initializers["beta"] = Tensor::fromVector<float>({2}, {0, 0});
    f.initializers["mean"] = Tensor::fromVector<float>({2}, {0, 0});
    f.initializers["var"] = Tensor::fromVector<float>({2}, {3, 0});
    addNode(f, "Conv", "conv", {"x", "w"}, {"c"});
    addNode(f, "BatchNormalization", "bn", {"c", "gamma", "beta", "mean", "var"}, {"y"},
            {{"epsilon", floatAttr(1.0f)}});
    q.initializers["wq"] = Tensor::fromVector<int8_t>({2, 1, 1, 1}, {1, 3});
    q.initializers["s"] = Tensor::fromVector<float>({2}, {1, 2});
    q.initializers["zp"] = Tensor::fromVector<int8_t>({2}, {0, 0});
    addNode(q, "DequantizeLinear", "dq_w", {"wq", "s", "zp"}, {"w_deq"}, {{"axis", intAttr(0)}});
    addNode(q, "Conv", "conv_q", {"x", "w_deq"}, {"y"});

    LayerMatching folded;
    folded.matches.push_back({"conv", "conv_q", "y", "y", {"bn"}, "name"});
    auto withFold = compareWeights(f, q, folded);
    ASSERT_TRUE(withFold) << withFold.status().message();
    ASSERT_TRUE((*withFold)[0].stats) << (*withFold)[0].note;
    EXPECT_TRUE((*withFold)[0].batchNormFolded);
    EXPECT_EQ((*withFold)[0].stats->sqnrDb, INFINITY);
    EXPECT_FLOAT_EQ((*withFold)[0].stats->channelMax[1], 6.0f);  // ranges of the folded weight

    LayerMatching unfolded = folded;
    unfolded.matches[0].foldedFloatNodes.clear();
    auto withoutFold = compareWeights(f, q, unfolded);
    ASSERT_TRUE(withoutFold);
    ASSERT_TRUE((*withoutFold)[0].stats);
    EXPECT_FALSE((*withoutFold)[0].batchNormFolded);
    EXPECT_NEAR((*withoutFold)[0].stats->sqnrDb, 10 * std::log10(5.0 / 16.0), 1e-4);
    EXPECT_EQ((*withoutFold)[0].stats->channelSqnrDb[0], INFINITY);
    EXPECT_NEAR((*withoutFold)[0].stats->channelSqnrDb[1], 10 * std::log10(4.0 / 16.0), 1e-4);

    auto direct = foldBatchNormIntoWeight(f.initializers["w"], 0, f.initializers["gamma"], f.initializers["var"], 1.0f);
    ASSERT_TRUE(direct);
    EXPECT_FLOAT_EQ(direct->data<float>()[0], 1.0f);
    EXPECT_FLOAT_EQ(direct->data<float>()[1], 6.0f);
}

TEST(WeightComparison, QLinearConvConstantWeight) {
    // QOperator form: weight, scale, zero point are inputs 3..5. uint8 q [130, 120], zp 128,
    // scale 0.5 -> [1, -4]; float [1, -4.2] -> 10·log10((1 + 17.64) / 0.04) = 26.6745.
    Graph f, q;
    f.initializers["w"] = Tensor::fromVector<float>({2, 1, 1, 1}, {1, -4.2f});
    addNode(f, "Conv", "conv", {"x", "w"}, {"y"});
    q.initializers["wq"] = Tensor::fromVector<uint8_t>({2, 1, 1, 1}, {130, 120});
    q.initializers["ws"] = Tensor::scalar<float>(0.5f);
    q.initializers["wzp"] = Tensor::scalar<uint8_t>(128);
    addNode(q, "QLinearConv", "qconv", {"xq", "xs", "xzp", "wq", "ws", "wzp", "ys", "yzp"}, {"yq"});
    LayerMatching m;
    m.matches.push_back({"conv", "qconv", "y", "yq", {}, "structure"});
    auto result = compareWeights(f, q, m);
    ASSERT_TRUE(result) << result.status().message();
    ASSERT_TRUE((*result)[0].stats) << (*result)[0].note;
    EXPECT_NEAR((*result)[0].stats->sqnrDb, 10 * std::log10(18.64 / 0.04), 1e-3);
}

TEST(WeightComparison, MatMulConstantWeightPerColumn) {
    // MatMul B [2 rows, 2 columns]: output channels are columns (last axis); DQ per axis 1 with
    // scales [0.1, 1]: q [[10, 1], [20, 3]] -> [[1, 1], [2, 3]]; float [[1, 1.1], [2, 3]].
    // Column 0 exact (+inf); column 1: 10·log10((1.21 + 9) / 0.01) = 30.0903.
    Graph f, q;
    f.inputs.push_back(floatValueInfo("x", {1, 2}));
    f.initializers["b"] = Tensor::fromVector<float>({2, 2}, {1, 1.1f, 2, 3});
    addNode(f, "MatMul", "mm", {"x", "b"}, {"y"});
    q.initializers["bq"] = Tensor::fromVector<int8_t>({2, 2}, {10, 1, 20, 3});
    q.initializers["s"] = Tensor::fromVector<float>({2}, {0.1f, 1.0f});
    q.initializers["zp"] = Tensor::fromVector<int8_t>({2}, {0, 0});
    addNode(q, "DequantizeLinear", "dq_b", {"bq", "s", "zp"}, {"b_deq"}, {{"axis", intAttr(1)}});
    addNode(q, "MatMul", "mm_q", {"x", "b_deq"}, {"y"});
    LayerMatching m;
    m.matches.push_back({"mm", "mm_q", "y", "y", {}, "name"});
    auto result = compareWeights(f, q, m);
    ASSERT_TRUE(result) << result.status().message();
    const auto &mm = (*result)[0];
    ASSERT_TRUE(mm.stats) << mm.note;
    EXPECT_EQ(mm.channelAxis, 1);
    ASSERT_EQ(mm.stats->channelSqnrDb.size(), 2u);
    EXPECT_EQ(mm.stats->channelSqnrDb[0], INFINITY);
    EXPECT_NEAR(mm.stats->channelSqnrDb[1], 10 * std::log10(10.21 / 0.01), 1e-3);
    EXPECT_FLOAT_EQ(mm.stats->channelMin[1], 1.1f);
    EXPECT_FLOAT_EQ(mm.stats->channelMax[1], 3.0f);
}

// compareWeights reads the quantized weight a piece at a time instead of a dequantized copy:
// the figures are those of the dequantized tensor, for long channel runs (a Conv's), short ones
// (a MatMul's columns, several rows per piece) and one channel, with zero points and with pieces
// that end mid-row.
TEST(WeightComparison, QuantizedPiecesGiveTheDequantizedFigures) {
    struct Case {
        Shape shape;
        int64_t axis;
        DataType type;
    };
    for (const Case &c :
         {Case{{24, 8, 7, 7}, 0, DataType::Int8}, Case{{300, 70}, 1, DataType::UInt8},
          Case{{5, 4099}, -1, DataType::Int8}, Case{{3, 33, 130}, 2, DataType::UInt8}}) {
        const Tensor x = randomTensor(c.shape, 7);
        Tensor q(c.type, c.shape);
        for (int64_t i = 0; i < q.numel(); ++i) {
            const int v = int((i * 2654435761u) % 256);
            if (c.type == DataType::Int8)
                q.data<int8_t>()[i] = int8_t(v - 128);
            else
                q.data<uint8_t>()[i] = uint8_t(v);
        }
        quant::QParams params;
        params.type = c.type;
        params.axis = c.axis;
        const int64_t channels = c.axis < 0 ? 1 : c.shape[c.axis];
        for (int64_t ch = 0; ch < channels; ++ch) {
            params.scale.push_back(0.001f * float(1 + ch % 5));
            params.zeroPoint.push_back(c.type == DataType::Int8 ? 0 : int32_t(100 + ch % 7));
        }
        const QuantizedWeight quantized{q, params};
        auto pieces = compareWeightTensors(x, quantized, c.axis);
        auto whole = compareWeightTensors(x, quant::dequantizeTensor(q, params), c.axis);
        ASSERT_TRUE(pieces && whole) << shapeToString(c.shape);
        ASSERT_EQ(pieces->channelSqnrDb.size(), size_t(channels));
        EXPECT_DOUBLE_EQ(pieces->sqnrDb, whole->sqnrDb) << shapeToString(c.shape);
        for (int64_t ch = 0; ch < channels; ++ch) {
            EXPECT_DOUBLE_EQ(pieces->channelSqnrDb[ch], whole->channelSqnrDb[ch]) << ch;
            EXPECT_EQ(pieces->channelMin[ch], whole->channelMin[ch]);
            EXPECT_EQ(pieces->channelMax[ch], whole->channelMax[ch]);
        }
    }
    const QuantizedWeight wrongShape{Tensor(DataType::Int8, {4}), quant::QParams{}};
    EXPECT_FALSE(compareWeightTensors(randomTensor({2, 2}, 1), wrongShape, 0));
}

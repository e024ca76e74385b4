// The ONNX model writer: load -> write -> load keeps nodes, attributes, initializers, symbolic
// dims and outputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

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

// writeModel streams the initializers' values instead of copying them into the proto: the file
// must hold the bytes protobuf's own serialization gives, for every kind of initializer.
TEST(ModelWriter, StreamedFileHoldsTheSerializedBytes) {
    auto quantized = loadModel(demoDir() + "/fashion_cnn_int8.onnx");
    ASSERT_TRUE(quantized.isOk()) << quantized.status().message();
    Graph g = quantized.value();
    g.initializers["empty_values"] = Tensor(DataType::Float, Shape{0, 3});
    g.initializers["scalar_value"] = floats({2.5f});
    // Written in plain layout whatever the engine holds it in.
    g.initializers["channels_last"] = randomTensor({2, 3, 4, 5}, 7).toChannelsLast();
    g.domainOpsets["com.microsoft"] = 1;
    const std::string path = ::testing::TempDir() + "/ql_writer_streamed.onnx";
    for (bool valueInfo : {false, true}) {
        WriteOptions options;
        options.writeValueInfo = valueInfo;
        auto bytes = serializeModel(g, options);
        ASSERT_TRUE(bytes.isOk()) << bytes.status().message();
        ASSERT_TRUE(writeModel(g, path, options).isOk());
        std::ifstream in(path, std::ios::binary);
        const std::string file((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        ASSERT_EQ(file.size(), bytes->size()) << "value info " << valueInfo;
        EXPECT_TRUE(file == *bytes) << "value info " << valueInfo;
    }
    // The loader keeps the initializers nodes read (the added ones are unused): those come back.
    auto reloaded = loadModel(path);
    ASSERT_TRUE(reloaded.isOk()) << reloaded.status().message();
    ASSERT_FALSE(reloaded.value().initializers.empty());
    for (const auto &[name, back] : reloaded.value().initializers) {
        const Tensor plain = g.initializers.at(name).toPlain();
        ASSERT_EQ(back.shape(), plain.shape()) << name;
        EXPECT_EQ(0, std::memcmp(back.rawData(), plain.rawData(), plain.byteSize())) << name;
    }
}

TEST(ModelWriter, RefusesGraphWithoutDefaultOpset) {
    Graph g = loadDemo();
    g.opsetVersion = 0;
    g.domainOpsets.clear();
    auto bytes = serializeModel(g);
    ASSERT_FALSE(bytes.isOk());
    EXPECT_NE(bytes.status().message().find("no default ONNX opset"), std::string::npos);
}

TEST(ModelWriter, RefusesSubgraphAttributesItCannotWrite) {
    Graph g = loadDemo();
    Attribute branch;
    branch.kind = Attribute::Kind::Graph;
    g.nodes[0].attributes["then_branch"] = branch;
    auto bytes = serializeModel(g);
    ASSERT_FALSE(bytes.isOk());
    EXPECT_EQ(bytes.status().kind(), ErrorKind::Unsupported);
    EXPECT_NE(bytes.status().message().find("Conv '/features/features.0/Conv': attribute 'then_branch'"),
              std::string::npos)
        << bytes.status().message();
}

TEST(ModelWriter, WritesAFileAndNamesThePathOnFailure) {
    const Graph g = loadDemo();
    const std::string path = ::testing::TempDir() + "/ql_writer_roundtrip.onnx";
    ASSERT_TRUE(writeModel(g, path).isOk());
    auto reloaded = loadModel(path);
    ASSERT_TRUE(reloaded.isOk()) << reloaded.status().message();
    EXPECT_EQ(reloaded.value().nodes.size(), g.nodes.size());
    Status bad = writeModel(g, "/nonexistent-folder/x.onnx");
    ASSERT_FALSE(bad.isOk());
    EXPECT_EQ(bad.kind(), ErrorKind::Io);
    EXPECT_NE(bad.message().find("/nonexistent-folder/x.onnx: cannot write"), std::string::npos)
        << bad.message();
}

// Loader tests: models are built here with the ONNX protobuf classes and written to a temp
// folder, so each test states exactly what the file holds.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

// The engine's public headers never expose onnx types; the test builds models with them directly.
// Unit tests link only the engine target, so select the installed (ONNX_ML) proto flavour here.
#ifndef ONNX_ML
#define ONNX_ML 1
#endif
#include <onnx/onnx_pb.h>

#include "onnx_io/model_loader.h"
#include "onnx_io/opset_upgrade.h"
#include "onnx_io/tensor_file.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

namespace ql {
namespace {

namespace fs = std::filesystem;

class ModelLoaderTest : public ::testing::Test {
protected:
    void SetUp() override {
        const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
        m_dir = fs::temp_directory_path() /
                ("ql_loader_" + std::to_string(getpid()) + "_" + info->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }

    std::string writeBytes(const std::string &name, const std::string &bytes) {
        const fs::path path = m_dir / name;
        fs::create_directories(path.parent_path());
        std::ofstream out(path, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        return path.string();
    }
    std::string writeModel(const std::string &name, const onnx::ModelProto &model) {
        return writeBytes(name, model.SerializeAsString());
    }

    fs::path m_dir;
};

onnx::ModelProto makeModel(int64_t opset = 13) {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("tst_model_loader");
    auto *import = model.add_opset_import();
    import->set_domain("");
    import->set_version(opset);
    model.mutable_graph()->set_name("g");
    return model;
}

// dims: >= 0 fixed, -1 symbolic ("N").
void setTensorType(onnx::ValueInfoProto *vi, const std::string &name, int elemType,
                   const std::vector<int64_t> &dims) {
    vi->set_name(name);
    auto *tensor = vi->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(elemType);
    auto *shape = tensor->mutable_shape();
    for (int64_t d : dims) {
        if (d >= 0)
            shape->add_dim()->set_dim_value(d);
        else
            shape->add_dim()->set_dim_param("N");
    }
}

onnx::NodeProto *addNode(onnx::GraphProto *graph, const std::string &op,
                         const std::vector<std::string> &inputs,
                         const std::vector<std::string> &outputs) {
    auto *node = graph->add_node();
    node->set_op_type(op);
    node->set_name(op + "_" + std::to_string(graph->node_size()));
    for (const auto &in : inputs) node->add_input(in);
    for (const auto &out : outputs) node->add_output(out);
    return node;
}

void setFloats(onnx::TensorProto *t, const std::string &name, const std::vector<int64_t> &dims,
               const std::vector<float> &values) {
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(values.data(), values.size() * sizeof(float));
}

void setInt64s(onnx::TensorProto *t, const std::string &name, const std::vector<int64_t> &dims,
               const std::vector<int64_t> &values) {
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (int64_t d : dims) t->add_dims(d);
    for (int64_t v : values) t->add_int64_data(v);
}

void setIntAttr(onnx::NodeProto *node, const std::string &name, int64_t value) {
    auto *attr = node->add_attribute();
    attr->set_name(name);
    attr->set_type(onnx::AttributeProto::INT);
    attr->set_i(value);
}

// A Constant node producing `output` from a tensor attribute.
void addConstant(onnx::GraphProto *graph, const std::string &output,
                 const onnx::TensorProto &value) {
    auto *node = addNode(graph, "Constant", {}, {output});
    auto *attr = node->add_attribute();
    attr->set_name("value");
    attr->set_type(onnx::AttributeProto::TENSOR);
    *attr->mutable_t() = value;
}

// x:[2,3] float -> Relu -> y
onnx::ModelProto reluModel(int64_t opset = 13) {
    onnx::ModelProto model = makeModel(opset);
    auto *g = model.mutable_graph();
    setTensorType(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
    setTensorType(g->add_output(), "y", onnx::TensorProto::FLOAT, {2, 3});
    addNode(g, "Relu", {"x"}, {"y"});
    return model;
}

// x:[4] + w:[4] (initializer stored in an external file) -> y
onnx::ModelProto externalWeightModel(const std::string &location, int64_t offset, int64_t length) {
    onnx::ModelProto model = makeModel();
    auto *g = model.mutable_graph();
    setTensorType(g->add_input(), "x", onnx::TensorProto::FLOAT, {4});
    setTensorType(g->add_output(), "y", onnx::TensorProto::FLOAT, {4});
    addNode(g, "Add", {"x", "w"}, {"y"});
    auto *w = g->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(4);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    auto addEntry = [&](const std::string &key, const std::string &value) {
        auto *entry = w->add_external_data();
        entry->set_key(key);
        entry->set_value(value);
    };
    addEntry("location", location);
    addEntry("offset", std::to_string(offset));
    addEntry("length", std::to_string(length));
    return model;
}

std::string floatBytes(const std::vector<float> &values) {
    return std::string(reinterpret_cast<const char *>(values.data()),
                       values.size() * sizeof(float));
}

// The failure must be of `kind` and its message must name the file and the reason.
void expectError(const Result<Graph> &result, ErrorKind kind, const std::string &file,
                 const std::string &reason) {
    ASSERT_FALSE(result.isOk()) << "expected an error mentioning '" << reason << "'";
    EXPECT_EQ(result.status().kind(), kind) << result.status().message();
    const std::string &message = result.status().message();
    EXPECT_EQ(message.rfind(file, 0), 0u) << "message does not start with the file: " << message;
    EXPECT_NE(message.find(reason), std::string::npos)
        << "message lacks '" << reason << "': " << message;
}

TEST_F(ModelLoaderTest, LoadsValidModel) {
    const std::string path = writeModel("relu.onnx", reluModel());
    Result<Graph> graph = loadModel(path);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    EXPECT_EQ(graph->opsetVersion, 13);
    EXPECT_EQ(graph->sourcePath, path);
    ASSERT_EQ(graph->inputs.size(), 1u);
    EXPECT_EQ(graph->inputs[0].name, "x");
    EXPECT_EQ(graph->inputs[0].dtype, DataType::Float);
    EXPECT_EQ(graph->inputs[0].shape, (std::vector<int64_t>{2, 3}));
    ASSERT_EQ(graph->nodes.size(), 1u);
    EXPECT_EQ(graph->nodes[0].opType, "Relu");
    ASSERT_EQ(graph->outputs.size(), 1u);
    EXPECT_EQ(graph->outputs[0].name, "y");
}

// The loader parses the file through a 256 KB buffer and the graph takes the initializers'
// bytes over from the parsed file: a weight spanning several buffers, one that fits in a string
// object's own bytes and one stored as float_data all arrive intact, and both paths agree.
TEST_F(ModelLoaderTest, LoadsInitializersSpanningReadBuffers) {
    onnx::ModelProto model = makeModel();
    auto *g = model.mutable_graph();
    setTensorType(g->add_input(), "x", onnx::TensorProto::FLOAT, {3});
    setTensorType(g->add_output(), "y", onnx::TensorProto::FLOAT, {3});
    addNode(g, "Add", {"x", "small"}, {"y"});
    std::vector<float> large(300'001);  // 1.2 MB: five read buffers
    for (size_t i = 0; i < large.size(); ++i) large[i] = 0.5f * static_cast<float>(i) - 7.0f;
    setFloats(g->add_initializer(), "large", {int64_t(large.size())}, large);
    setFloats(g->add_initializer(), "small", {3}, {1.0f, -2.0f, 3.5f});  // 12 bytes
    auto *listed = g->add_initializer();
    listed->set_name("listed");
    listed->set_data_type(onnx::TensorProto::FLOAT);
    listed->add_dims(2);
    listed->add_float_data(4.25f);
    listed->add_float_data(-8.0f);
    const std::string bytes = model.SerializeAsString();
    const std::string path = writeBytes("weights.onnx", bytes);
    LoadOptions options;
    options.foldConstants = false;
    for (Result<Graph> graph :
         {loadModel(path, options), loadModelFromBytes(bytes, path, "", options)}) {
        ASSERT_TRUE(graph.isOk()) << graph.status().message();
        const Tensor &loaded = graph->initializers.at("large");
        ASSERT_EQ(loaded.numel(), int64_t(large.size()));
        EXPECT_EQ(std::memcmp(loaded.data<float>(), large.data(), large.size() * sizeof(float)), 0);
        EXPECT_EQ(graph->initializers.at("small").toFloatVector(),
                  (std::vector<float>{1.0f, -2.0f, 3.5f}));
        EXPECT_EQ(graph->initializers.at("listed").toFloatVector(),
                  (std::vector<float>{4.25f, -8.0f}));
        auto plan = ExecutionPlan::create(graph.value());
        ASSERT_TRUE(plan.isOk()) << plan.status().message();
        std::vector<Tensor> outputs;
        const Tensor x = Tensor::fromVector<float>({3}, {1.0f, 1.0f, 1.0f});
        ASSERT_TRUE(plan.value()->run({{"x", x}}, outputs).isOk());
        EXPECT_EQ(outputs[0].toFloatVector(), (std::vector<float>{2.0f, -1.0f, 4.5f}));
    }
}

TEST_F(ModelLoaderTest, GivesEveryNodeADistinctName) {
    onnx::ModelProto model = makeModel();
    auto *g = model.mutable_graph();
    setTensorType(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
    setTensorType(g->add_output(), "d", onnx::TensorProto::FLOAT, {2});
    addNode(g, "Relu", {"x"}, {"a"})->clear_name();       // invented "Relu_0" is taken below
    addNode(g, "Neg", {"a"}, {"b"})->set_name("Relu_0");  // the file's own name wins
    addNode(g, "Abs", {"b"}, {"c"})->set_name("Relu_0");  // a repeated name
    addNode(g, "Relu", {"c"}, {"d"})->set_name("Relu_0_1");
    const std::string path = writeModel("names.onnx", model);
    LoadOptions options;
    options.runChecker = false;  // the checker does not require distinct names, but be explicit
    Result<Graph> graph = loadModel(path, options);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    ASSERT_EQ(graph->nodes.size(), 4u);
    std::set<std::string> names;
    for (const Node &n : graph->nodes) EXPECT_TRUE(names.insert(n.name).second) << n.name;
    EXPECT_EQ(graph->nodes[1].name, "Relu_0");
    EXPECT_EQ(graph->nodes[1].opType, "Neg");
    EXPECT_EQ(graph->nodes[3].name, "Relu_0_1");
}

TEST_F(ModelLoaderTest, RefusesMissingFile) {
    const std::string path = (m_dir / "absent.onnx").string();
    expectError(loadModel(path), ErrorKind::BadInput, path, "no such file");
}

TEST_F(ModelLoaderTest, RefusesEmptyFile) {
    const std::string path = writeBytes("empty.onnx", "");
    expectError(loadModel(path), ErrorKind::BadInput, path, "empty");
}

TEST_F(ModelLoaderTest, RefusesTruncatedFile) {
    onnx::ModelProto model = reluModel();
    setFloats(model.mutable_graph()->add_initializer(), "unused", {256},
              std::vector<float>(256, 1.5f));
    const std::string bytes = model.SerializeAsString();
    const std::string path = writeBytes("truncated.onnx", bytes.substr(0, bytes.size() / 2));
    expectError(loadModel(path), ErrorKind::BadInput, path, "truncated");
}

TEST_F(ModelLoaderTest, RefusesNonOnnxFiles) {
    const std::string text =
        writeBytes("notes.onnx", "These are meeting notes, not a neural network.\n");
    expectError(loadModel(text), ErrorKind::BadInput, text, "not an ONNX model");
    const std::string png =
        writeBytes("image.onnx", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
    expectError(loadModel(png), ErrorKind::BadInput, png, "not an ONNX model");
}

TEST_F(ModelLoaderTest, RefusesFolder) {
    expectError(loadModel(m_dir.string()), ErrorKind::BadInput, m_dir.string(), "folder");
}

TEST_F(ModelLoaderTest, RefusesOversizedFile) {
    const std::string path = writeModel("relu.onnx", reluModel());
    LoadOptions options;
    options.maxFileBytes = 16;
    expectError(loadModel(path, options), ErrorKind::BadInput, path, "too large");
    expectError(loadModel(path, options), ErrorKind::BadInput, path, "limit 16");
    options.maxFileBytes = fs::file_size(path);  // exactly at the limit is fine
    EXPECT_TRUE(loadModel(path, options).isOk());
}

// Opsets 1-10 are upgraded to 11 (old model-zoo entries are opset 3-8); only opsets that do not
// exist yet, or opset 0, are refused.
TEST_F(ModelLoaderTest, UpgradesOldOpsetsAndRefusesUnknownOnes) {
    const std::string old = writeModel("opset6.onnx", reluModel(6));
    Result<Graph> graph = loadModel(old);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    EXPECT_EQ(graph->opsetVersion, kUpgradeTargetOpset);
    const std::string first = writeModel("opset1.onnx", reluModel(1));
    ASSERT_TRUE(loadModel(first).isOk()) << loadModel(first).status().message();

    const std::string zero = writeModel("opset0.onnx", reluModel(0));
    expectError(loadModel(zero), ErrorKind::Unsupported, zero,
                "opset 0 is not supported (supported: 1 to 21)");
    const std::string future = writeModel("opset22.onnx", reluModel(22));
    expectError(loadModel(future), ErrorKind::Unsupported, future, "opset 22 is not supported");
}

// An op whose semantics changed at an opset step ONNX's converter has no adapter for (Cast 5 -> 6:
// `to` became an enum) is refused in one line naming the node, the op and the opset step.
TEST_F(ModelLoaderTest, OldOpsetWithoutAdapterNamesNodeAndOpset) {
    onnx::ModelProto model = makeModel(5);
    auto *g = model.mutable_graph();
    setTensorType(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
    setTensorType(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
    auto *cast = addNode(g, "Cast", {"x"}, {"y"});
    cast->set_name("/to_float/Cast");
    auto *to = cast->add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::STRING);
    to->set_s("FLOAT");
    const std::string path = writeModel("cast_opset5.onnx", model);
    Result<Graph> graph = loadModel(path);
    expectError(graph, ErrorKind::Unsupported, path,
                "node '/to_float/Cast' (Cast): ONNX's version converter has no adapter for Cast "
                "from opset 5 to 6");
    EXPECT_EQ(graph.status().message().find('\n'), std::string::npos) << graph.status().message();
}

// torch.onnx.export at opset 9: ONNX's version converter carries the model to opset 11 (Upsample
// becomes Resize), node names stay as in the file (unnamed ones numbered by their place in it),
// a warning says so, and the upgraded model computes what the old one meant (nearest
// upsampling by 2, asymmetric: each input element repeated in a 2x2 block).
TEST_F(ModelLoaderTest, UpgradesOpset9KeepingNodeNames) {
    onnx::ModelProto model = makeModel(9);
    auto *g = model.mutable_graph();
    setTensorType(g->add_input(), "x", onnx::TensorProto::FLOAT, {1, 1, 2, 2});
    setTensorType(g->add_output(), "y", onnx::TensorProto::FLOAT, {1, 1, 4, 4});
    setFloats(g->add_initializer(), "scales", {4}, {1.0f, 1.0f, 2.0f, 2.0f});
    auto *up = addNode(g, "Upsample", {"x", "scales"}, {"u"});
    up->set_name("/up/Upsample");
    auto *mode = up->add_attribute();
    mode->set_name("mode");
    mode->set_type(onnx::AttributeProto::STRING);
    mode->set_s("nearest");
    addNode(g, "Relu", {"u"}, {"y"})->clear_name();
    const std::string path = writeModel("opset9.onnx", model);

    Result<Graph> graph = loadModel(path);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    EXPECT_EQ(graph->opsetVersion, kUpgradeTargetOpset);
    bool warned = false;
    for (const std::string &w : graph->warnings) warned |= w.find("opset 9") != std::string::npos;
    EXPECT_TRUE(warned);
    ASSERT_NE(graph->findNode("/up/Upsample"), nullptr);
    EXPECT_EQ(graph->findNode("/up/Upsample")->opType, "Resize");
    ASSERT_NE(graph->findNode("Relu_1"), nullptr);

    auto plan = ExecutionPlan::create(graph.value());
    ASSERT_TRUE(plan.isOk()) << plan.status().message();
    std::vector<Tensor> outputs;
    const Tensor x = Tensor::fromVector<float>({1, 1, 2, 2}, {1.0f, -2.0f, 3.0f, 4.0f});
    ASSERT_TRUE(plan.value()->run({{"x", x}}, outputs).isOk());
    const std::vector<float> want = {1, 1, 0, 0, 1, 1, 0, 0, 3, 3, 4, 4, 3, 3, 4, 4};
    ASSERT_EQ(outputs[0].numel(), 16);
    for (int i = 0; i < 16; ++i) EXPECT_EQ(outputs[0].data<float>()[i], want[i]) << i;
}

TEST_F(ModelLoaderTest, AcceptsHighestSupportedOpset) {
    const std::string path = writeModel("opset21.onnx", reluModel(kMaxOpset));
    Result<Graph> graph = loadModel(path);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    EXPECT_EQ(graph->opsetVersion, kMaxOpset);
}

TEST_F(ModelLoaderTest, AcceptsIrVersionNewerThanOnnxLibrary) {
    onnx::ModelProto model = reluModel(17);
    model.set_ir_version(10);  // what onnx.helper.make_model writes with ONNX 1.16
    const std::string path = writeModel("ir10.onnx", model);
    Result<Graph> graph = loadModel(path);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    EXPECT_EQ(graph->nodes.size(), 1u);
}

// ReduceMean-18 takes its axes as an input; ONNX 1.12 only knows ReduceMean-13 (axes attribute).
// Checking or inferring shapes with the old schema would be wrong: inference would claim the
// mean is over all axes, and the Shape node would fold to [1,1,1].
TEST_F(ModelLoaderTest, LoadsOpsetNewerThanOnnxLibraryWithoutTrustingOldSchemas) {
    onnx::ModelProto model = makeModel(18);
    auto *g = model.mutable_graph();
    setTensorType(g->add_input(), "x", onnx::TensorProto::FLOAT, {2, 3, 4});
    setTensorType(g->add_output(), "mean_shape", onnx::TensorProto::INT64, {3});
    setInt64s(g->add_initializer(), "axes", {1}, {1});
    addNode(g, "ReduceMean", {"x", "axes"}, {"mean"});
    addNode(g, "Shape", {"mean"}, {"mean_shape"});
    const std::string path = writeModel("opset18.onnx", model);
    Result<Graph> graph = loadModel(path);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    bool warned = false;
    for (const std::string &w : graph->warnings)
        warned |= w.find("shape inference skipped") != std::string::npos;
    EXPECT_TRUE(warned);
    ASSERT_EQ(graph->nodes.size(), 2u);
    EXPECT_EQ(graph->nodes[1].opType, "Shape");

    auto plan = ExecutionPlan::create(graph.value());
    ASSERT_TRUE(plan.isOk()) << plan.status().message();
    std::vector<Tensor> outputs;
    const Status run = plan.value()->run({{"x", test::randomTensor({2, 3, 4}, 3)}}, outputs);
    ASSERT_TRUE(run.isOk()) << run.message();
    EXPECT_EQ(outputs[0].toInt64Vector(), (std::vector<int64_t>{2, 1, 4}));
}

TEST_F(ModelLoaderTest, RefusesModelFailingTheChecker) {
    onnx::ModelProto model = reluModel();
    model.mutable_graph()->mutable_node(0)->set_op_type("NoSuchOp");
    const std::string path = writeModel("bad.onnx", model);
    expectError(loadModel(path), ErrorKind::BadInput, path, "fails the ONNX checker");
}

TEST_F(ModelLoaderTest, RefusesModelWithoutDefaultOpset) {
    onnx::ModelProto model = reluModel();
    model.clear_opset_import();
    const std::string path = writeModel("noopset.onnx", model);
    expectError(loadModel(path), ErrorKind::BadInput, path, "no default ONNX opset");
}

TEST_F(ModelLoaderTest, RefusesSequenceInput) {
    onnx::ModelProto model = reluModel();
    auto *seq = model.mutable_graph()->mutable_input(0)->mutable_type();
    seq->Clear();
    seq->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
        onnx::TensorProto::FLOAT);
    const std::string path = writeModel("sequence.onnx", model);
    expectError(loadModel(path), ErrorKind::Unsupported, path, "graph input 'x' is a sequence");
}

TEST_F(ModelLoaderTest, LoadsRelativeExternalData) {
    const std::vector<float> weights = {0.5f, -1.0f, 2.0f, 3.25f};
    writeBytes("data/weights.bin",
               std::string(8, '\x7f') + floatBytes(weights));  // 8 bytes before the tensor
    const std::string path =
        writeModel("model.onnx", externalWeightModel("data/weights.bin", 8, 16));
    Result<Graph> graph = loadModel(path);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    const Tensor *w = graph->initializer("w");
    ASSERT_NE(w, nullptr);
    EXPECT_EQ(w->dtype(), DataType::Float);
    EXPECT_EQ(w->toFloatVector(), weights);
}

TEST_F(ModelLoaderTest, RefusesAbsoluteExternalDataPath) {
    const std::string weights = writeBytes("weights.bin", floatBytes({1, 2, 3, 4}));
    ASSERT_TRUE(fs::path(weights).is_absolute());
    const std::string path = writeModel("model.onnx", externalWeightModel(weights, 0, 16));
    expectError(loadModel(path), ErrorKind::BadInput, path, "is absolute");
    expectError(loadModel(path), ErrorKind::BadInput, path, "tensor 'w'");
}

TEST_F(ModelLoaderTest, RefusesExternalDataOutsideModelFolder) {
    writeBytes("weights.bin", floatBytes({1, 2, 3, 4}));  // exists, but one level up
    const std::string path =
        writeModel("model/model.onnx", externalWeightModel("../weights.bin", 0, 16));
    expectError(loadModel(path), ErrorKind::BadInput, path, "leaves the model's folder");
    const std::string sneaky =
        writeModel("model/sneaky.onnx", externalWeightModel("sub/../../weights.bin", 0, 16));
    expectError(loadModel(sneaky), ErrorKind::BadInput, sneaky, "leaves the model's folder");
}

TEST_F(ModelLoaderTest, RefusesMissingExternalDataFile) {
    const std::string path = writeModel("model.onnx", externalWeightModel("missing.bin", 0, 16));
    expectError(loadModel(path), ErrorKind::BadInput, path,
                "cannot open external data file 'missing.bin'");
}

TEST_F(ModelLoaderTest, RefusesExternalDataRangePastEndOfFile) {
    writeBytes("weights.bin", floatBytes({1, 2, 3}));  // 12 bytes, 16 needed
    const std::string path = writeModel("model.onnx", externalWeightModel("weights.bin", 0, 16));
    expectError(loadModel(path), ErrorKind::BadInput, path, "outside 'weights.bin'");
}

TEST_F(ModelLoaderTest, RefusesMalformedExternalDataOffset) {
    writeBytes("weights.bin", floatBytes({1, 2, 3, 4}));
    onnx::ModelProto model = externalWeightModel("weights.bin", 0, 16);
    model.mutable_graph()->mutable_initializer(0)->mutable_external_data(1)->set_value("12abc");
    const std::string path = writeModel("model.onnx", model);
    expectError(loadModel(path), ErrorKind::BadInput, path,
                "offset '12abc' is not a valid byte count");
}

TEST_F(ModelLoaderTest, RefusesExternalDataFolder) {
    fs::create_directories(m_dir / "weights");
    const std::string path = writeModel("model.onnx", externalWeightModel("weights", 0, 16));
    expectError(loadModel(path), ErrorKind::BadInput, path, "is a folder");
}

TEST_F(ModelLoaderTest, RefusesImpossiblyLargeInitializerWithoutAllocating) {
    onnx::ModelProto model = reluModel();
    auto *w = model.mutable_graph()->add_initializer();
    w->set_name("huge");
    w->set_data_type(onnx::TensorProto::FLOAT);
    for (int i = 0; i < 4; ++i) w->add_dims(int64_t(1) << 20);  // 2^80 elements
    w->set_raw_data(std::string(16, '\0'));
    const std::string path = writeModel("huge.onnx", model);
    LoadOptions options;
    options.runChecker = false;
    expectError(loadModel(path, options), ErrorKind::BadInput, path, "initializer 'huge'");
    expectError(loadModel(path, options), ErrorKind::BadInput, path, "impossibly large");
    w->clear_dims();
    w->add_dims(int64_t(1) << 40);  // 4 TiB of floats claimed, 16 bytes present
    const std::string big = writeModel("big.onnx", model);
    expectError(loadModel(big, options), ErrorKind::BadInput, big, "raw data holds 16 bytes");
}

TEST_F(ModelLoaderTest, ConvertsHalfInitializersToFloat) {
    const std::vector<float> values = {1.0f, -2.5f, 0.099975586f, 65504.0f};
    std::vector<uint16_t> halves, bhalves;
    for (float v : values) halves.push_back(floatToHalf(v));
    for (float v : {1.0f, -2.5f, 0.1015625f, 3.0f}) bhalves.push_back(floatToBfloat16(v));

    onnx::ModelProto model = makeModel();
    auto *g = model.mutable_graph();
    setTensorType(g->add_output(), "y", onnx::TensorProto::FLOAT, {4});
    setTensorType(g->add_output(), "z", onnx::TensorProto::FLOAT, {4});
    setTensorType(g->add_output(), "v", onnx::TensorProto::FLOAT, {4});
    auto *raw = g->add_initializer();  // raw little-endian bits
    raw->set_name("h_raw");
    raw->set_data_type(onnx::TensorProto::FLOAT16);
    raw->add_dims(4);
    raw->set_raw_data(halves.data(), halves.size() * 2);
    auto *packed = g->add_initializer();  // one value per int32_data entry
    packed->set_name("h_int32");
    packed->set_data_type(onnx::TensorProto::FLOAT16);
    packed->add_dims(4);
    for (uint16_t h : halves) packed->add_int32_data(h);
    auto *brain = g->add_initializer();
    brain->set_name("b_raw");
    brain->set_data_type(onnx::TensorProto::BFLOAT16);
    brain->add_dims(4);
    brain->set_raw_data(bhalves.data(), bhalves.size() * 2);
    auto castTo = [&](const std::string &in, const std::string &out) {
        setIntAttr(addNode(g, "Cast", {in}, {out}), "to", onnx::TensorProto::FLOAT);
    };
    castTo("h_raw", "y");
    castTo("h_int32", "z");
    castTo("b_raw", "v");
    const std::string path = writeModel("half.onnx", model);
    LoadOptions options;
    options.foldConstants = false;  // keep the initializers as loaded
    Result<Graph> graph = loadModel(path, options);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    for (const char *name : {"h_raw", "h_int32"}) {
        const Tensor *t = graph->initializer(name);
        ASSERT_NE(t, nullptr) << name;
        EXPECT_EQ(t->dtype(), DataType::Float) << name;
        EXPECT_EQ(t->shape(), (Shape{4})) << name;
        EXPECT_EQ(t->toFloatVector(), values) << name;
    }
    const Tensor *b = graph->initializer("b_raw");
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->dtype(), DataType::Float);
    EXPECT_EQ(b->toFloatVector(), (std::vector<float>{1.0f, -2.5f, 0.1015625f, 3.0f}));
}

TEST_F(ModelLoaderTest, RefusesInitializerWithWrongByteCount) {
    onnx::ModelProto model = reluModel();
    auto *w = model.mutable_graph()->add_initializer();
    w->set_name("w");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(3);
    w->set_raw_data(std::string(8, '\0'));
    const std::string path = writeModel("short.onnx", model);
    LoadOptions options;
    options.runChecker = false;  // the loader's own check, not the ONNX checker's
    expectError(loadModel(path, options), ErrorKind::BadInput, path, "raw data holds 8 bytes");
}

TEST_F(ModelLoaderTest, FoldsConstantNodesIntoInitializers) {
    onnx::ModelProto model = makeModel();
    auto *g = model.mutable_graph();
    setTensorType(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
    setTensorType(g->add_output(), "y", onnx::TensorProto::FLOAT, {2});
    onnx::TensorProto value;
    setFloats(&value, "c_value", {2}, {1.5f, -4.0f});
    addConstant(g, "c", value);
    addNode(g, "Add", {"x", "c"}, {"y"});
    const std::string path = writeModel("constant.onnx", model);
    Result<Graph> graph = loadModel(path);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    ASSERT_EQ(graph->nodes.size(), 1u);
    EXPECT_EQ(graph->nodes[0].opType, "Add");
    const Tensor *c = graph->initializer("c");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->toFloatVector(), (std::vector<float>{1.5f, -4.0f}));
}

// x:[2,3,4] -> Shape -> Gather(0) -> Unsqueeze -> Concat(.., [-1]) -> Reshape(x, ..) -> y:[2,12],
// the chain exporters emit for x.view(x.size(0), -1).
onnx::ModelProto shapeChainModel(int64_t batch) {
    onnx::ModelProto model = makeModel(13);
    auto *g = model.mutable_graph();
    setTensorType(g->add_input(), "x", onnx::TensorProto::FLOAT, {batch, 3, 4});
    setTensorType(g->add_output(), "y", onnx::TensorProto::FLOAT, {batch, 12});
    onnx::TensorProto index, axes, minusOne;
    setInt64s(&index, "index", {}, {0});
    setInt64s(&axes, "axes", {1}, {0});
    setInt64s(&minusOne, "minus_one", {1}, {-1});
    addNode(g, "Shape", {"x"}, {"shape"});
    addConstant(g, "index", index);
    setIntAttr(addNode(g, "Gather", {"shape", "index"}, {"batch"}), "axis", 0);
    addConstant(g, "axes", axes);
    addNode(g, "Unsqueeze", {"batch", "axes"}, {"batch_1d"});
    addConstant(g, "minus_one", minusOne);
    setIntAttr(addNode(g, "Concat", {"batch_1d", "minus_one"}, {"new_shape"}), "axis", 0);
    addNode(g, "Reshape", {"x", "new_shape"}, {"y"});
    return model;
}

TEST_F(ModelLoaderTest, FoldsShapeGatherUnsqueezeConcatChain) {
    const std::string path = writeModel("chain.onnx", shapeChainModel(2));
    Result<Graph> graph = loadModel(path);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    ASSERT_EQ(graph->nodes.size(), 1u) << "first unfolded node: " << graph->nodes[0].describe();
    const Node &reshape = graph->nodes[0];
    EXPECT_EQ(reshape.opType, "Reshape");
    const Tensor *newShape = graph->initializer(reshape.inputs[1]);
    ASSERT_NE(newShape, nullptr);
    EXPECT_EQ(newShape->dtype(), DataType::Int64);
    EXPECT_EQ(newShape->toInt64Vector(), (std::vector<int64_t>{2, -1}));
    // Only what the remaining node uses survives.
    EXPECT_EQ(graph->initializers.size(), 1u);

    auto plan = ExecutionPlan::create(graph.value());
    ASSERT_TRUE(plan.isOk()) << plan.status().message();
    const Tensor x = test::randomTensor({2, 3, 4}, 7);
    std::vector<Tensor> outputs;
    ASSERT_TRUE(plan.value()->run({{"x", x}}, outputs).isOk());
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0].shape(), (Shape{2, 12}));
    EXPECT_EQ(outputs[0].toFloatVector(), x.toFloatVector());
}

TEST_F(ModelLoaderTest, KeepsShapeChainWhenDimensionIsSymbolic) {
    const std::string path = writeModel("dynamic.onnx", shapeChainModel(-1));
    Result<Graph> graph = loadModel(path);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    std::vector<std::string> ops;
    for (const Node &n : graph->nodes) ops.push_back(n.opType);
    EXPECT_EQ(ops, (std::vector<std::string>{"Shape", "Gather", "Unsqueeze", "Concat", "Reshape"}));
    // The Constant nodes still fold.
    for (const char *name : {"index", "axes", "minus_one"})
        EXPECT_NE(graph->initializer(name), nullptr) << name;
}

TEST_F(ModelLoaderTest, KeepsNodesWhenFoldingIsOff) {
    const std::string path = writeModel("chain.onnx", shapeChainModel(2));
    LoadOptions options;
    options.foldConstants = false;
    Result<Graph> graph = loadModel(path, options);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    EXPECT_EQ(graph->nodes.size(), 8u);
}

TEST_F(ModelLoaderTest, SortsNodesAndRefusesCycles) {
    onnx::ModelProto model = makeModel();
    auto *g = model.mutable_graph();
    setTensorType(g->add_input(), "x", onnx::TensorProto::FLOAT, {2});
    setTensorType(g->add_output(), "z", onnx::TensorProto::FLOAT, {2});
    addNode(g, "Neg", {"y"}, {"z"});  // uses y before the node that makes it
    addNode(g, "Relu", {"x"}, {"y"});
    LoadOptions options;
    options.runChecker = false;  // the checker refuses unsorted graphs itself
    const std::string path = writeModel("unsorted.onnx", model);
    Result<Graph> graph = loadModel(path, options);
    ASSERT_TRUE(graph.isOk()) << graph.status().message();
    ASSERT_EQ(graph->nodes.size(), 2u);
    EXPECT_EQ(graph->nodes[0].opType, "Relu");
    EXPECT_EQ(graph->nodes[1].opType, "Neg");

    g->mutable_node(1)->set_input(0, "z");  // Relu(z) -> y, Neg(y) -> z
    const std::string cyclic = writeModel("cyclic.onnx", model);
    expectError(loadModel(cyclic, options), ErrorKind::BadInput, cyclic, "cycle");
}

// Input files go through the same guards: a corrupt header must give an error, not an
// attempt to allocate what it claims.
TEST_F(ModelLoaderTest, RefusesTensorFilesClaimingImpossibleSizes) {
    std::string header =
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1000000000000, 1000000), }";
    header.append(118 - header.size() - 1, ' ');  // 10-byte preamble + header = 128
    header += '\n';
    const std::string npy = writeBytes(
        "huge.npy", std::string("\x93NUMPY\x01\x00\x76\x00", 10) + header + std::string(16, '\0'));
    Result<Tensor> fromNpy = readTensorFile(npy);
    ASSERT_FALSE(fromNpy.isOk());
    EXPECT_EQ(fromNpy.status().message().rfind(npy, 0), 0u) << fromNpy.status().message();
    EXPECT_NE(fromNpy.status().message().find("truncated .npy data"), std::string::npos);

    onnx::TensorProto proto;
    proto.set_data_type(onnx::TensorProto::FLOAT);
    proto.add_dims(int64_t(1) << 62);
    proto.add_dims(4);
    proto.set_raw_data(std::string(16, '\0'));
    const std::string pb = writeBytes("huge.pb", proto.SerializeAsString());
    Result<Tensor> fromPb = readTensorFile(pb);
    ASSERT_FALSE(fromPb.isOk());
    EXPECT_EQ(fromPb.status().message().rfind(pb, 0), 0u) << fromPb.status().message();
    EXPECT_NE(fromPb.status().message().find("impossibly large"), std::string::npos);
}

}  // namespace
}  // namespace ql

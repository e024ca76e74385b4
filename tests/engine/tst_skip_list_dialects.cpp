// Skip-list dialects on the demo and on a PyTorch FX export (SE-ResNet, nested module scopes):
// module paths from torch.onnx.export scopes, only float-model nodes named, what a dialect cannot
// express left in a comment with the reason.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "analysis/search/skip_list_dialects.h"
#include "onnx_io/model_loader.h"

using namespace ql;
using namespace ql::analysis;

namespace {

Graph load(const std::string &relative) {
    const char *root = std::getenv("QL_TEST_DATA");
    auto g = loadModel(std::string(root ? root : "tests/data") + "/" + relative);
    EXPECT_TRUE(g.isOk()) << relative;
    return g.isOk() ? *g : Graph{};
}

bool has(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST(SkipListDialects, ModulePathsFromExportScopes) {
    EXPECT_EQ(pytorchModulePath("/features/features.0/Conv"), "features.0");
    EXPECT_EQ(pytorchModulePath("/classifier/Gemm"), "classifier");
    EXPECT_EQ(pytorchModulePath("/layer1/layer1.0/bn1/BatchNormalization"), "layer1.0.bn1");
    EXPECT_EQ(pytorchModulePath("/layer2/layer2.0/se/fc1/Conv"), "layer2.0.se.fc1");
    EXPECT_EQ(pytorchModulePath("/features/features.0/features.0.1/Conv"), "features.0.1");
    EXPECT_EQ(pytorchModulePath("/ReduceMean"), "");
    EXPECT_EQ(pytorchModulePath("Conv_3"), "");
    EXPECT_EQ(pytorchModulePath(""), "");
}

TEST(SkipListDialects, EveryDialectOnTheDemo) {
    const Graph g = load("../../resources/demo/fashion_cnn.onnx");
    SkipList list;
    list.model = "fashion_cnn.onnx";
    list.nodes = {"/features/features.0/Conv", "/features/features.3/MaxPool", "/no/such/Conv"};
    list.reasons["/features/features.0/Conv"] = "clips";
    list.origin = "test";
    const std::string json = formatSkipList(g, list, SkipListDialect::QuantLens);
    EXPECT_TRUE(has(json,
                    "\"fp32_nodes\": [\n        \"/features/features.0/Conv\",\n        "
                    "\"/features/features.3/MaxPool\"\n    ]"))
        << json;
    EXPECT_TRUE(has(json, "\"/features/features.0/Conv\": \"clips\""));
    EXPECT_FALSE(has(json, "/no/such/Conv"));
    for (SkipListDialect d : {SkipListDialect::Ort, SkipListDialect::Nncf, SkipListDialect::PyTorch,
                              SkipListDialect::Inc, SkipListDialect::Trt}) {
        const std::string text = formatSkipList(g, list, d);
        EXPECT_TRUE(has(text, "#   /no/such/Conv: not a node of the float model"))
            << skipListDialectName(d) << text;
        EXPECT_TRUE(has(text, "(test)")) << text;
    }
    EXPECT_TRUE(has(formatSkipList(g, list, SkipListDialect::Ort),
                    "nodes_to_exclude = [\n    \"/features/features.0/Conv\","));
    EXPECT_TRUE(has(formatSkipList(g, list, SkipListDialect::Nncf), "nncf.IgnoredScope(names=["));
    const std::string torch = formatSkipList(g, list, SkipListDialect::PyTorch);
    EXPECT_TRUE(
        has(torch,
            "qconfig_mapping.set_module_name(\"features.0\", None)  # /features/features.0/Conv"))
        << torch;
    EXPECT_TRUE(has(torch, "qconfig_mapping.set_module_name(\"features.3\", None)"));
    EXPECT_TRUE(has(formatSkipList(g, list, SkipListDialect::Inc),
                    "\"/features/features.0/Conv\": {\"activation\": {\"dtype\": [\"fp32\"]}, "
                    "\"weight\": {\"dtype\": [\"fp32\"]}}"));
    EXPECT_TRUE(has(
        formatSkipList(g, list, SkipListDialect::Trt),
        "--precisionConstraints=obey "
        "--layerPrecisions='/features/features.0/Conv:fp32,/features/features.3/MaxPool:fp32'"));
    SkipListDialect parsed;
    EXPECT_TRUE(parseSkipListDialect("nncf", parsed));
    EXPECT_EQ(parsed, SkipListDialect::Nncf);
    EXPECT_FALSE(parseSkipListDialect("openvino", parsed));
}

TEST(SkipListDialects, PyTorchNamesOnlyWhatAModuleHoldsAlone) {
    const Graph g = load("pytorch_corpus/fx_seresnet/float.onnx");
    SkipList list;
    list.model = "float.onnx";
    list.nodes = {"/layer1/layer1.0/conv1/Conv", "/layer1/layer1.0/Add", "/ReduceMean",
                  "/layer2/layer2.0/se/fc1/Conv"};
    const std::string torch = formatSkipList(g, list, SkipListDialect::PyTorch);
    EXPECT_TRUE(has(torch, "set_module_name(\"layer1.0.conv1\", None)")) << torch;
    EXPECT_TRUE(has(torch, "set_module_name(\"layer2.0.se.fc1\", None)")) << torch;
    // The block's Add would take the whole block along; /ReduceMean is functional at the top.
    EXPECT_TRUE(has(torch, "#   /layer1/layer1.0/Add: module 'layer1.0' also runs")) << torch;
    EXPECT_TRUE(has(torch, "#   /ReduceMean: a functional op outside any module")) << torch;
    EXPECT_FALSE(has(torch, "set_module_name(\"layer1.0\", None)"));
    // ONNX-level dialects name every node that exists.
    const std::string ort = formatSkipList(g, list, SkipListDialect::Ort);
    EXPECT_TRUE(has(ort, "\"/layer1/layer1.0/Add\"") && has(ort, "\"/ReduceMean\"")) << ort;
}

// 16-bit layers: the quantlens dialect lists them, the ort dialect writes TensorQuantOverrides
// (QUInt16 activations, QInt16 weights with their axis; com.microsoft Q/DQ below opset 21), the
// others say they cannot express them.
TEST(SkipListDialects, SixteenBitLayers) {
    const Graph g = load("../../resources/demo/fashion_cnn.onnx");
    SkipList list;
    list.model = "fashion_cnn.onnx";
    list.nodes = {"/classifier/Gemm"};
    list.int16Nodes = {"/features/features.4/Conv"};
    const std::string json = formatSkipList(g, list, SkipListDialect::QuantLens);
    EXPECT_TRUE(has(json, "\"int16_nodes\": [\n        \"/features/features.4/Conv\"\n    ]"))
        << json;
    const std::string ort = formatSkipList(g, list, SkipListDialect::Ort);
    EXPECT_TRUE(has(ort, "from onnxruntime.quantization import QuantType, quantize_static")) << ort;
    EXPECT_TRUE(has(ort,
                    "\"/features/features.3/MaxPool_output_0\": [{\"quant_type\": "
                    "QuantType.QUInt16}]"))
        << ort;
    EXPECT_TRUE(has(ort, "[{\"quant_type\": QuantType.QInt16, \"axis\": 0}]")) << ort;
    // The layer's BatchNorm and Relu (folded and fused by QuantLens) are ORT's separate tensors.
    EXPECT_TRUE(has(ort, "\"/features/features.5/BatchNormalization_output_0\"")) << ort;
    EXPECT_TRUE(has(ort, "\"/features/features.6/Relu_output_0\"")) << ort;
    EXPECT_TRUE(has(ort, "\"UseQDQContribOps\": True")) << ort;  // the demo is opset 13
    EXPECT_TRUE(has(ort, "extra_options=extra_options")) << ort;
    for (SkipListDialect d : {SkipListDialect::Nncf, SkipListDialect::PyTorch, SkipListDialect::Inc,
                              SkipListDialect::Trt})
        EXPECT_TRUE(has(formatSkipList(g, list, d),
                        "# 16-bit layers (not expressible here):\n#   /features/features.4/Conv"))
            << skipListDialectName(d);

    // The Python runs (against a stand-in for onnxruntime.quantization) and its overrides have the
    // structure quantize_static documents: tensor name -> list of dicts of known keys, an axis for
    // per-channel weights, every name a tensor of the model.
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(::testing::TempDir()) / "ql_ort_overrides";
    fs::create_directories(dir / "onnxruntime");
    std::ofstream(dir / "onnxruntime" / "__init__.py") << "";
    std::ofstream(dir / "onnxruntime" / "quantization.py")
        << "import enum\nclass QuantType(enum.Enum):\n    QUInt8 = 1\n    QInt8 = 2\n"
           "    QUInt16 = 3\n    QInt16 = 4\ndef quantize_static(*a, **k): pass\n";
    std::ofstream(dir / "skip_list_ort.py") << ort;
    std::string tensors;
    for (const Node &n : g.nodes) {
        for (const std::string &v : n.inputs) tensors += "'" + v + "',";
        for (const std::string &v : n.outputs) tensors += "'" + v + "',";
    }
    std::ofstream(dir / "check.py")
        << "import sys\nsys.path.insert(0, sys.argv[1])\nns = {}\n"
           "exec(open(sys.argv[1] + '/skip_list_ort.py').read(), ns)\n"
           "from onnxruntime.quantization import QuantType\n"
           "o = ns['extra_options']['TensorQuantOverrides']\n"
           "known = {'quant_type', 'axis', 'scale', 'zero_point', 'symmetric', 'reduce_range',"
           " 'rmax', 'rmin', 'convert'}\n"
           "tensors = {"
        << tensors
        << "}\n"
           "assert o and all(isinstance(v, list) and v and all(isinstance(d, dict) and set(d) <= "
           "known for d in v) for v in o.values()), o\n"
           "assert set(o) <= tensors, set(o) - tensors\n"
           "types = [v[0]['quant_type'] for v in o.values()]\n"
           "assert types.count(QuantType.QInt16) == 1 and types.count(QuantType.QUInt16) == 4\n"
           "assert all('axis' in v[0] for v in o.values() if v[0]['quant_type'] == "
           "QuantType.QInt16)\n"
           "assert ns['nodes_to_exclude'] == ['/classifier/Gemm']\n"
           "print('overrides', len(o))\n";
    const std::string command =
        "python3 " + (dir / "check.py").string() + " " + dir.string() + " 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << ort;
}

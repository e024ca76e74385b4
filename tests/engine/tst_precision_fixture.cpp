// The PyTorch FX QDQ fixture (tests/data/fx_fashion_cnn/qdq.onnx, onednn backend, per-channel):
// what the int8 lowering makes of a real exporter's graph, and the implementation error of the
// int8 path: every quantized value of the int8 run against the reference run (dequantize ->
// fp32 -> quantize), SQNR above 40 dB on each.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "onnx_io/model_loader.h"
#include "onnx_io/tensor_file.h"
#include "passes/precision.h"
#include "passes/qdq_graph_utils.h"
#include "runtime/execution_plan.h"

using namespace ql;

namespace {

std::string fixture(const std::string &file) {
    const char *data = std::getenv("QL_TEST_DATA");
    return std::string(data ? data : "tests/data") + "/fx_fashion_cnn/" + file;
}

// Quantized values of a run by name, dequantized with the reference graph's Q parameters.
struct QuantParams {
    float scale = 1.0f;
    int32_t zeroPoint = 0;
};

std::map<std::string, std::vector<float>> quantizedValues(Graph graph, const Tensor &input,
                                                          const std::map<std::string, QuantParams> &params) {
    std::map<std::string, std::vector<float>> values;
    auto plan = ExecutionPlan::create(std::move(graph), PlanOptions{1});
    EXPECT_TRUE(plan.isOk()) << plan.status().message();
    if (!plan) return values;
    RunOptions options;
    options.tap = [&](const Node &node, size_t index, const Tensor &t) {
        auto it = params.find(node.outputs[index]);
        if (it == params.end()) return;
        std::vector<float> &out = values[it->first];
        for (int64_t i = 0; i < t.numel(); ++i)
            out.push_back(float(t.valueAsDouble(i) - it->second.zeroPoint) * it->second.scale);
    };
    std::vector<Tensor> outputs;
    Status ran = plan.value()->run({{plan.value()->graph().inputs[0].name, input}}, outputs, options);
    EXPECT_TRUE(ran.isOk()) << ran.message();
    return values;
}

double sqnr(const std::vector<float> &x, const std::vector<float> &y) {
    double signal = 0, noise = 0;
    for (size_t i = 0; i < x.size(); ++i) {
        signal += double(x[i]) * x[i];
        noise += (double(x[i]) - y[i]) * (double(x[i]) - y[i]);
    }
    return noise == 0 ? INFINITY : 10 * std::log10(signal / noise);
}

TEST(PrecisionFixture, FxQdqModelLowersAndMatchesReferencePerLayer) {
    if (!std::ifstream(fixture("qdq.onnx")).good()) GTEST_SKIP() << "fixture missing";
    auto loaded = loadModel(fixture("qdq.onnx"));
    ASSERT_TRUE(loaded.isOk()) << loaded.status().message();
    auto input = readNpy(fixture("inputs.npy"));
    ASSERT_TRUE(input.isOk());
    EXPECT_TRUE(isQuantizedModel(loaded.value()));

    Graph int8 = loaded.value(), reference = loaded.value();
    PrecisionReport report;
    ASSERT_TRUE(preparePrecision(int8, Precision::Int8, &report).isOk());
    ASSERT_TRUE(preparePrecision(reference, Precision::Reference).isOk());
    for (const NodePrecision &n : report.nodes)
        std::printf("  %-18s %-8s %s  %s\n", n.node.c_str(), n.opType.c_str(), n.int8 ? "int8" : "fp32", n.reason.c_str());
    std::printf("  %s\n", report.summary().c_str());
    // The three convolutions always lower (their int8 kernel is in every build).
    for (const char *conv : {"/conv1/Conv", "/conv2/Conv", "/conv3/Conv"}) {
        const Node *node = int8.findNode(conv);
        ASSERT_NE(node, nullptr) << conv;
        EXPECT_EQ(node->opType, "QLinearConv") << conv;
    }
    int cleanupLeft = 0;
    for (const Node &n : int8.nodes)
        cleanupLeft += n.opType == "Identity" || n.opType == "Cast" || n.opType == "Constant";
    EXPECT_EQ(cleanupLeft, 0);

    std::map<std::string, QuantParams> params;
    const qdq::GraphIndex index(reference);
    for (const Node &n : reference.nodes) {
        qdq::QParamsView view;
        if (n.opType == "QuantizeLinear" && qdq::readQParams(reference, index, n, view) && view.perTensor())
            params[n.outputs[0]] = {view.scale[0], view.zeroPoint[0]};
    }
    ASSERT_GE(params.size(), 8u);
    const auto a = quantizedValues(int8, input.value(), params);
    const auto r = quantizedValues(reference, input.value(), params);
    EXPECT_EQ(a.size(), params.size());
    for (const auto &[name, ref] : r) {
        auto it = a.find(name);
        ASSERT_NE(it, a.end()) << name << " not produced by the int8 run";
        ASSERT_EQ(it->second.size(), ref.size()) << name;
        const double db = sqnr(ref, it->second);
        std::printf("  %-40s int8 vs reference SQNR %.1f dB\n", name.c_str(), db);
        EXPECT_GT(db, 40.0) << name;
    }
}

}  // namespace

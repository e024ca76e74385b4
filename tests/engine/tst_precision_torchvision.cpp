// Implementation error of the int8 path on bigger PyTorch FX QDQ exports (torchvision models,
// made by the torch-fixtures scripts, never committed): every int8 node against the reference
// path (dequantize -> fp32 -> quantize). The committed Fashion-MNIST fixture is checked the same
// way in tests/fixtures/tst_fx_fashion_cnn.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <random>

#include "onnx_io/model_loader.h"
#include "passes/precision.h"
#include "passes/qdq_graph_utils.h"
#include "runtime/execution_plan.h"

using namespace ql;

namespace {

struct QuantParams {
    float scale = 1.0f;
    int32_t zeroPoint = 0;
};

// Dequantization parameters of every per-tensor QuantizeLinear output of the reference graph.
std::map<std::string, QuantParams> referenceQuantParams(const Graph &reference) {
    std::map<std::string, QuantParams> params;
    const qdq::GraphIndex index(reference);
    for (const Node &n : reference.nodes) {
        qdq::QParamsView view;
        if (n.opType == "QuantizeLinear" && qdq::readQParams(reference, index, n, view) && view.perTensor())
            params[n.outputs[0]] = {view.scale[0], view.zeroPoint[0]};
    }
    return params;
}

// Quantized values of a run by name (seen through taps), dequantized with `params`.
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

// Every tapped value of a run, copied.
std::map<std::string, Tensor> allValues(const Graph &graph, const std::map<std::string, Tensor> &feeds) {
    std::map<std::string, Tensor> seen = feeds;
    auto plan = ExecutionPlan::create(graph, PlanOptions{1});
    EXPECT_TRUE(plan.isOk()) << plan.status().message();
    if (!plan) return seen;
    RunOptions options;
    options.tap = [&](const Node &node, size_t index, const Tensor &t) { seen[node.outputs[index]] = t.clone(); };
    std::vector<Tensor> outputs;
    EXPECT_TRUE(plan.value()->run(feeds, outputs, options).isOk());
    return seen;
}

// Bigger PyTorch FX exports (torchvision resnet18/50, mobilenet_v2, made by the torch-fixtures
// scripts into a folder, never committed): set QL_TORCHVISION_QDQ_DIR to check them too.
// Each int8 node runs alone on the reference run's quantized inputs and is compared with the
// reference's output (isolated: the kernel's own error). End to end, a few one-step
// differences grow through 20-50 layers on random inputs, so the cumulative figure is printed only.
TEST(PrecisionTorchvision, Int8VsReferencePerLayer) {
    const char *dir = std::getenv("QL_TORCHVISION_QDQ_DIR");
    if (!dir) GTEST_SKIP() << "QL_TORCHVISION_QDQ_DIR not set";
    for (const char *model : {"resnet18", "resnet50", "mobilenet_v2"}) {
        const std::string path = std::string(dir) + "/" + model + "_qdq.onnx";
        if (!std::ifstream(path).good()) continue;
        auto loaded = loadModel(path);
        ASSERT_TRUE(loaded.isOk()) << loaded.status().message();
        Graph int8 = loaded.value(), reference = loaded.value();
        PrecisionReport report;
        ASSERT_TRUE(preparePrecision(int8, Precision::Int8, &report).isOk());
        ASSERT_TRUE(preparePrecision(reference, Precision::Reference).isOk());
        Tensor input(DataType::Float, {1, 3, 224, 224});
        std::mt19937 rng(7);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        for (int64_t i = 0; i < input.numel(); ++i) input.data<float>()[i] = normal(rng);
        const auto params = referenceQuantParams(reference);
        const std::map<std::string, Tensor> seen = allValues(reference, {{reference.inputs[0].name, input}});

        double worst = INFINITY;
        std::string worstName;
        int compared = 0;
        for (const Node &node : int8.nodes) {
            if (node.opType.rfind("QLinear", 0) != 0 && node.opType != "QGemm") continue;
            auto out = params.find(node.outputs[0]);
            if (out == params.end() || !seen.count(node.outputs[0])) continue;
            Graph single;
            single.opsetVersion = int8.opsetVersion;
            single.domainOpsets = int8.domainOpsets;
            std::map<std::string, Tensor> feeds;
            for (const std::string &in : node.inputs) {
                if (in.empty()) continue;
                if (const Tensor *c = int8.initializer(in)) {
                    single.initializers[in] = *c;
                    continue;
                }
                ASSERT_TRUE(seen.count(in)) << in;
                ValueInfo info;
                info.name = in;
                info.dtype = seen.at(in).dtype();
                info.shape = seen.at(in).shape();
                info.hasShape = true;
                single.inputs.push_back(info);
                feeds[in] = seen.at(in);
            }
            ValueInfo result;
            result.name = node.outputs[0];
            single.outputs.push_back(result);
            single.nodes.push_back(node);
            auto plan = ExecutionPlan::create(single, PlanOptions{1});
            ASSERT_TRUE(plan.isOk()) << plan.status().message();
            std::vector<Tensor> got;
            ASSERT_TRUE(plan.value()->run(feeds, got).isOk());
            const Tensor &ref = seen.at(node.outputs[0]);
            std::vector<float> x, y;
            for (int64_t i = 0; i < ref.numel(); ++i) {
                x.push_back(float(ref.valueAsDouble(i) - out->second.zeroPoint) * out->second.scale);
                y.push_back(float(got[0].valueAsDouble(i) - out->second.zeroPoint) * out->second.scale);
            }
            const double db = sqnr(x, y);
            ++compared;
            if (db < worst) worst = db, worstName = node.name;
        }
        const auto a = quantizedValues(int8, input, params), r = quantizedValues(reference, input, params);
        double cumulative = INFINITY;
        for (const auto &[name, ref] : r)
            if (a.count(name)) cumulative = std::min(cumulative, sqnr(ref, a.at(name)));
        std::printf("  %s: %s; %d int8 nodes compared alone, worst SQNR %.1f dB (%s); worst cumulative %.1f dB\n",
                    model, report.summary().c_str(), compared, worst, worstName.c_str(), cumulative);
        EXPECT_GT(compared, 0);
        EXPECT_GT(worst, 40.0) << model << ": " << worstName;
    }
}

}  // namespace

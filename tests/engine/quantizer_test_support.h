#pragma once
// Helpers of the quantizer tests (writer, BN folding, plan): the demo model and its samples,
// running a graph, a plain min/max calibration, SQNR, and graph queries.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "onnx_io/model_loader.h"
#include "onnx_io/tensor_file.h"
#include "quant/quantization_plan.h"
#include "runtime/execution_plan.h"
#include "test_support.h"

namespace ql::test {

inline std::string demoDir() {
    // QL_TEST_DATA is <repo>/tests/data, which may not exist yet: strip it lexically.
    const char *data = std::getenv("QL_TEST_DATA");
    std::string root = data ? data : "tests/data";
    const std::string suffix = "/tests/data";
    if (root.size() >= suffix.size() &&
        root.compare(root.size() - suffix.size(), suffix.size(), suffix) == 0)
        root.resize(root.size() - suffix.size());
    else
        root += "/../..";
    return root + "/resources/demo";
}

inline Graph loadDemo() {
    auto g = loadModel(demoDir() + "/fashion_cnn.onnx");
    EXPECT_TRUE(g.isOk()) << g.status().message();
    return g.value();
}

inline Tensor demoSamples(int64_t count) {
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

inline std::vector<Tensor> runGraph(const Graph &graph, const std::map<std::string, Tensor> &inputs,
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
inline quant::RangeLookup minMaxRanges(const Graph &graph, const std::string &inputName,
                                       const Tensor &input) {
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

inline double sqnrDb(const Tensor &reference, const Tensor &test) {
    double signal = 0.0, noise = 0.0;
    for (int64_t i = 0; i < reference.numel(); ++i) {
        const double x = reference.valueAsDouble(i), y = test.valueAsDouble(i);
        signal += x * x;
        noise += (x - y) * (x - y);
    }
    return 10.0 * std::log10(signal / noise);
}

inline const Node *consumerOf(const Graph &g, const std::string &value) {
    for (const Node &n : g.nodes)
        for (const std::string &in : n.inputs)
            if (in == value) return &n;
    return nullptr;
}

inline const Node *producerOf(const Graph &g, const std::string &value) {
    const int i = g.producerIndex(value);
    return i < 0 ? nullptr : &g.nodes[i];
}

}  // namespace ql::test

#pragma once
// The committed PyTorch FX fixture (tests/data/fx_fashion_cnn: float.onnx, qdq.onnx, 64
// Fashion-MNIST images and labels, made by tests/tools/make_fx_fixture.py), loaded and matched,
// and a batch source over its inputs, for the numeric-suite tests.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "analysis/suite/activation_comparison.h"
#include "analysis/pairing/layer_matching.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/tensor_file.h"

namespace ql::test {

struct Fixture {
    Graph floatGraph, quantGraph;
    Tensor inputs;
    analysis::LayerMatching matching;
    Tensor labels;  // int64 [N]
};

inline bool loadFixture(Fixture &f) {
    const char *data = std::getenv("QL_TEST_DATA");
    if (!data) return false;
    const std::string dir = std::string(data) + "/fx_fashion_cnn/";
    auto fm = loadModel(dir + "float.onnx");
    auto qm = loadModel(dir + "qdq.onnx");
    auto in = readTensorFile(dir + "inputs.npy");
    if (!fm || !qm || !in) return false;
    f.floatGraph = std::move(*fm);
    f.quantGraph = std::move(*qm);
    f.inputs = std::move(*in);
    auto labels = readTensorFile(dir + "labels.npy");
    if (!labels) return false;
    f.labels = std::move(*labels);
    auto m = analysis::matchLayers(f.floatGraph, f.quantGraph);
    if (!m) return false;
    f.matching = std::move(*m);
    return true;
}

// Slices a [N, ...] float tensor into batches of `batchSize` samples fed as input `name`.
inline analysis::ActivationBatchSource slicer(const Tensor &inputs, const std::string &name,
                                              int64_t batchSize) {
    auto next = std::make_shared<int64_t>(0);
    return [=](std::map<std::string, Tensor> &batch) -> Result<bool> {
        const int64_t n = inputs.dim(0);
        if (*next >= n) return false;
        const int64_t count = std::min(batchSize, n - *next);
        Shape shape = inputs.shape();
        shape[0] = count;
        Tensor t(DataType::Float, shape);
        const int64_t per = inputs.numel() / n;
        std::memcpy(t.data<float>(), inputs.data<float>() + *next * per,
                    sizeof(float) * count * per);
        batch[name] = t;
        *next += count;
        return true;
    };
}

// The fixture's [N,1,28,28] inputs in batches of `batchSize`.
inline analysis::ActivationBatchSource slicer(const Fixture &f, int64_t batchSize) {
    return slicer(f.inputs, f.floatGraph.inputs[0].name, batchSize);
}

// The fixture's first `count` samples as one batch.
inline std::map<std::string, Tensor> firstSamples(const Fixture &f, int64_t count) {
    std::map<std::string, Tensor> batch;
    auto source = slicer(f, count);
    auto more = source(batch);
    EXPECT_TRUE(more && *more);
    return batch;
}

}  // namespace ql::test

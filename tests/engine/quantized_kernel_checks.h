#pragma once
// Inputs and comparisons shared by the int8 kernel tests: seeded random 8-bit tensors, scalar
// parameters, a kernel run through a chosen factory, and the "at most 1 LSB, at least 99%
// identical" rule of a fast kernel against its exact reference.

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "direct_kernel_run.h"
#include "kernels/kernel.h"

namespace ql::test {

template <class T>
inline Tensor randomInts(const Shape &shape, unsigned seed, int lo, int hi) {
    Tensor t(std::is_same_v<T, uint8_t> ? DataType::UInt8 : DataType::Int8, shape);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> dist(lo, hi);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = static_cast<T>(dist(rng));
    return t;
}

inline Tensor randomInt8(DataType type, const Shape &shape, unsigned seed) {
    return type == DataType::UInt8 ? randomInts<uint8_t>(shape, seed, 0, 255)
                                   : randomInts<int8_t>(shape, seed, -128, 127);
}

// A zero point of the activation type chosen at run time by the test parameters.
inline Tensor scalarOf(DataType type, int value) {
    return type == DataType::UInt8 ? Tensor::scalar<uint8_t>(static_cast<uint8_t>(value))
                                   : Tensor::scalar<int8_t>(static_cast<int8_t>(value));
}

inline Tensor floatScalar(float v) {
    Tensor t(DataType::Float, {});
    t.data<float>()[0] = v;
    return t;
}

// Runs the kernel `factory` makes (nullptr: the registered one) directly on `inputs`.
inline Tensor runKernel(Result<KernelPtr> (*factory)(const KernelBuildInfo &), Node node,
                 const std::vector<Tensor> &inputs, const std::vector<bool> &constants) {
    DirectKernel direct(node, inputs, constants);
    EXPECT_TRUE(direct.status.isOk()) << direct.status.message();
    if (factory) {
        KernelBuildInfo info{direct.graph.nodes.back(), direct.graph, 17};
        auto made = factory(info);
        EXPECT_TRUE(made.isOk());
        direct.kernel = std::move(made.value());
    }
    std::vector<Tensor> outputs;
    const Status s = direct.run(inputs, outputs);
    EXPECT_TRUE(s.isOk()) << s.message();
    return s.isOk() ? outputs[0] : Tensor();
}

// Max 1 LSB apart and >= 99% of the elements identical.
inline void expectNearlyEqual(const Tensor &fast, const Tensor &exact, const std::string &what) {
    ASSERT_TRUE(fast.defined() && exact.defined()) << what;
    ASSERT_EQ(fast.shape(), exact.shape()) << what;
    ASSERT_EQ(fast.dtype(), exact.dtype()) << what;
    const Tensor a = fast.toPlain(), b = exact.toPlain();
    int64_t differing = 0;
    double worst = 0.0;
    for (int64_t i = 0; i < a.numel(); ++i) {
        const double d = std::fabs(a.valueAsDouble(i) - b.valueAsDouble(i));
        worst = std::max(worst, d);
        differing += d != 0.0;
    }
    EXPECT_LE(worst, 1.0) << what;
    EXPECT_LE(differing, a.numel() / 100) << what << ": " << differing << " of " << a.numel();
}

}  // namespace ql::test

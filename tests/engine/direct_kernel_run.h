#pragma once
// Runs one kernel directly (no plan), so tests can feed channels-last inputs and look at the
// layout of what the kernel produced. Inputs marked constant become graph initializers.

#include <memory>
#include <vector>

#include "kernels/kernel.h"

namespace ql::test {

class DirectContext : public KernelContext {
public:
    explicit DirectContext(std::vector<Tensor> inputs, size_t outputs)
        : m_inputs(std::move(inputs)), m_outputs(outputs) {}
    size_t inputCount() const override { return m_inputs.size(); }
    bool hasInput(size_t i) const override { return i < m_inputs.size() && m_inputs[i].defined(); }
    const Tensor &input(size_t i) const override { return m_inputs[i]; }
    size_t outputCount() const override { return m_outputs.size(); }
    Tensor &allocateOutput(size_t i, DataType type, const Shape &shape, Layout layout) override {
        m_outputs[i] = Tensor(type, shape, layout);
        // Garbage instead of zeros: the kernel must write every element.
        for (size_t b = 0; b < m_outputs[i].byteSize(); ++b)
            static_cast<unsigned char *>(m_outputs[i].rawData())[b] = 0xA5;
        return m_outputs[i];
    }
    void setOutput(size_t i, Tensor tensor) override { m_outputs[i] = std::move(tensor); }
    int threads() const override { return 2; }
    std::vector<Tensor> &outputs() { return m_outputs; }

private:
    std::vector<Tensor> m_inputs;
    std::vector<Tensor> m_outputs;
};

struct DirectKernel {
    Graph graph;
    Node node;
    KernelPtr kernel;
    Status status;

    // `node` gets inputs in0.. and outputs out0..; constants[i] makes input i an initializer.
    DirectKernel(Node n, const std::vector<Tensor> &inputs, const std::vector<bool> &constants,
                 size_t outputs = 1, int64_t opset = 17) {
        graph.opsetVersion = opset;
        n.inputs.clear();
        n.outputs.clear();
        for (size_t i = 0; i < inputs.size(); ++i) {
            n.inputs.push_back(inputs[i].defined() ? "in" + std::to_string(i) : "");
            if (inputs[i].defined() && i < constants.size() && constants[i])
                graph.initializers[n.inputs[i]] = inputs[i];
        }
        for (size_t o = 0; o < outputs; ++o) n.outputs.push_back("out" + std::to_string(o));
        if (n.name.empty()) n.name = n.opType + "_direct";
        graph.nodes.push_back(n);
        node = graph.nodes.back();
        KernelBuildInfo info{graph.nodes.back(), graph, opset};
        auto made = KernelRegistry::instance().create(info);
        status = made.status();
        if (made) kernel = std::move(made.value());
    }

    // Constant inputs are passed as the graph's own initializer tensors, as the plan does.
    Status run(std::vector<Tensor> inputs, std::vector<Tensor> &outputs, size_t outputCount = 1) {
        if (!kernel) return status;
        for (size_t i = 0; i < inputs.size(); ++i)
            if (const Tensor *c = graph.initializer(node.inputs[i])) inputs[i] = *c;
        DirectContext ctx(std::move(inputs), outputCount);
        Status s = kernel->run(ctx);
        outputs = ctx.outputs();
        return s;
    }
};

}  // namespace ql::test

#pragma once
// Runs one kernel directly (no plan), so tests can feed channels-last inputs, look at the
// layout of what the kernel produced and see aliasing. Inputs marked constant become graph
// initializers. New outputs start as 0xFF bytes (NaN floats, -1 integers) so elements a kernel
// forgets to write show up.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/kernel.h"

namespace ql::test {

struct DirectOptions {
    // As the plan does: a channels-last input the kernel does not accept is made plain first.
    // false hands every input over exactly as given.
    bool convertRefusedInputs = true;
};

class DirectContext : public KernelContext {
public:
    DirectContext(std::vector<Tensor> inputs, size_t outputs)
        : m_inputs(std::move(inputs)), m_outputs(outputs) {}
    size_t inputCount() const override { return m_inputs.size(); }
    bool hasInput(size_t i) const override { return i < m_inputs.size() && m_inputs[i].defined(); }
    const Tensor &input(size_t i) const override { return m_inputs[i]; }
    size_t outputCount() const override { return m_outputs.size(); }
    Tensor &allocateOutput(size_t i, DataType type, const Shape &shape, Layout layout) override {
        m_outputs[i] = Tensor(type, shape, layout);
        std::memset(m_outputs[i].rawData(), 0xFF, m_outputs[i].byteSize());
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
    Status run(std::vector<Tensor> inputs, std::vector<Tensor> &outputs, size_t outputCount = 1,
               const DirectOptions &options = {}) {
        if (!kernel) return status;
        for (size_t i = 0; i < inputs.size(); ++i) {
            if (i < node.inputs.size())
                if (const Tensor *c = graph.initializer(node.inputs[i])) inputs[i] = *c;
            if (options.convertRefusedInputs && inputs[i].defined() &&
                inputs[i].layout() != Layout::Plain && !kernel->acceptsChannelsLast(i))
                inputs[i] = inputs[i].toPlain();
        }
        DirectContext ctx(std::move(inputs), outputCount);
        Status s = kernel->run(ctx);
        outputs = ctx.outputs();
        return s;
    }
};

struct DirectRun {
    Status status;
    std::vector<Tensor> outputs;
};

// Builds the kernel of `node` (no constant inputs) and runs it once on `inputs`.
inline DirectRun runDirect(const Node &node, const std::vector<Tensor> &inputs,
                           size_t outputCount = 1, int64_t opset = 17,
                           const DirectOptions &options = {}) {
    DirectKernel direct(node, inputs, {}, outputCount, opset);
    DirectRun result;
    result.status = direct.run(inputs, result.outputs, outputCount, options);
    return result;
}

}  // namespace ql::test

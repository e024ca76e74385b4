#pragma once
// The contract between the execution plan and one operator implementation.
// Kernels compute output shapes from their inputs on every run (cheap) and cache anything
// expensive (oneDNN primitives, reordered weights) keyed by the input shapes.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "ir/graph.h"
#include "ir/tensor.h"

namespace ql {

class KernelContext {
public:
    virtual ~KernelContext() = default;
    virtual size_t inputCount() const = 0;
    // False for omitted optional inputs (empty name) and indices past the end.
    virtual bool hasInput(size_t i) const = 0;
    virtual const Tensor &input(size_t i) const = 0;
    virtual size_t outputCount() const = 0;
    // Storage from the plan's pool; contents are NOT zeroed: the kernel writes every element.
    virtual Tensor &allocateOutput(size_t i, DataType type, const Shape &shape,
                                   Layout layout = Layout::Plain) = 0;
    // Sets output i to an existing tensor, e.g. a reshaped view of an input.
    virtual void setOutput(size_t i, Tensor tensor) = 0;
    virtual int threads() const = 0;
};

// What a kernel factory may look at when the plan is built.
struct KernelBuildInfo {
    const Node &node;
    const Graph &graph;
    int64_t opset;  // opset version of the node's domain

    // Input i when it is an initializer (a constant), else nullptr.
    const Tensor *constantInput(size_t i) const {
        return node.hasInput(i) ? graph.initializer(node.inputs[i]) : nullptr;
    }
};

class Kernel {
public:
    virtual ~Kernel() = default;
    virtual Status run(KernelContext &ctx) = 0;
    // True when input i may arrive stored channels-last; otherwise the plan passes a plain one.
    virtual bool acceptsChannelsLast(size_t /*inputIndex*/) const { return false; }
};

using KernelPtr = std::unique_ptr<Kernel>;
using KernelFactory = std::function<Result<KernelPtr>(const KernelBuildInfo &)>;

class KernelRegistry {
public:
    // All built-in kernels.
    static const KernelRegistry &instance();

    void add(const std::string &opType, KernelFactory factory, const std::string &domain = "");
    const KernelFactory *find(const std::string &domain, const std::string &opType) const;
    std::vector<std::string> opTypes(const std::string &domain = "") const;
    Result<KernelPtr> create(const KernelBuildInfo &info) const;

private:
    std::vector<std::pair<std::string, KernelFactory>> m_factories;  // key "domain::op"
};

// Factory for a kernel class constructed from a KernelBuildInfo (constructor must not fail).
template <class K>
KernelFactory makeFactory() {
    return [](const KernelBuildInfo &info) -> Result<KernelPtr> { return KernelPtr(new K(info)); };
}

}  // namespace ql

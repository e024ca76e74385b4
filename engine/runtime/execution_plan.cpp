#include "runtime/execution_plan.h"

#include <omp.h>

#include <chrono>
#include <exception>
#include <thread>
#include <unordered_map>

#include "core/stop_token.h"
#include "kernels/kernel.h"
#include "passes/fold_batchnorm.h"
#include "passes/fuse_activations.h"
#include "passes/fuse_gelu.h"
#include "passes/fuse_layer_norm.h"
#include "passes/fuse_matmul_integer.h"
#include "runtime/buffer_pool.h"

namespace ql {

namespace {

constexpr int kNoValue = -1;

struct PlannedNode {
    const Node *node = nullptr;
    KernelPtr kernel;
    std::vector<int> inputs;   // value ids, kNoValue for omitted inputs
    std::vector<int> outputs;  // value ids, kNoValue for omitted outputs
    std::vector<int> releaseAfter;  // values whose last use is this node
};

class PlanKernelContext : public KernelContext {
public:
    PlanKernelContext(std::vector<Tensor> &values, BufferPool &pool, const PlannedNode &planned,
                      int threads)
        : m_values(values), m_pool(pool), m_planned(planned), m_threads(threads) {}

    size_t inputCount() const override { return m_planned.inputs.size(); }
    bool hasInput(size_t i) const override {
        return i < m_planned.inputs.size() && m_planned.inputs[i] != kNoValue;
    }
    const Tensor &input(size_t i) const override {
        static const Tensor none;
        return hasInput(i) ? m_values[m_planned.inputs[i]] : none;
    }
    size_t outputCount() const override { return m_planned.outputs.size(); }
    Tensor &allocateOutput(size_t i, DataType type, const Shape &shape, Layout layout) override {
        Tensor t(type, shape, m_pool.acquire(checkedByteSize(type, shape)), layout);
        return store(i, std::move(t));
    }
    void setOutput(size_t i, Tensor tensor) override { store(i, std::move(tensor)); }
    int threads() const override { return m_threads; }

private:
    Tensor &store(size_t i, Tensor t) {
        if (i >= m_planned.outputs.size() || m_planned.outputs[i] == kNoValue) {
            m_discarded = std::move(t);  // an omitted optional output: computed, then dropped
            return m_discarded;
        }
        Tensor &slot = m_values[m_planned.outputs[i]];
        slot = std::move(t);
        return slot;
    }

    std::vector<Tensor> &m_values;
    BufferPool &m_pool;
    const PlannedNode &m_planned;
    int m_threads;
    Tensor m_discarded;
};

}  // namespace

struct ExecutionPlan::Impl {
    Graph graph;
    int threads = 1;
    std::unordered_map<std::string, int> valueIds;
    std::vector<Tensor> values;        // live values of the current run
    std::vector<bool> isConstant;      // initializers stay for the plan's lifetime
    std::vector<Tensor> constants;     // by value id
    std::vector<int> graphInputIds;
    std::vector<int> graphOutputIds;
    std::vector<PlannedNode> nodes;
    std::shared_ptr<BufferPool> pool;  // own, or shared with plans that never run at the same time
    bool timingEnabled = false;
    std::vector<NodeTiming> timings;

    int idFor(const std::string &name) {
        auto it = valueIds.find(name);
        if (it != valueIds.end()) return it->second;
        const int id = static_cast<int>(valueIds.size());
        valueIds.emplace(name, id);
        return id;
    }
    // The open run (start() .. finish()): its options and the next node; next < 0: none.
    RunOptions runOptions;
    int next = -1;
    Status runNode(int n);
    void endRun();
};

ExecutionPlan::ExecutionPlan() : m_impl(std::make_unique<Impl>()) {}
ExecutionPlan::~ExecutionPlan() = default;

const Graph &ExecutionPlan::graph() const { return m_impl->graph; }
void ExecutionPlan::setTimingEnabled(bool enabled) { m_impl->timingEnabled = enabled; }
const std::vector<NodeTiming> &ExecutionPlan::lastTimings() const { return m_impl->timings; }
size_t ExecutionPlan::pooledBytes() const { return m_impl->pool->totalBytes(); }

Result<std::unique_ptr<ExecutionPlan>> ExecutionPlan::create(Graph graph, const PlanOptions &options) {
    std::unique_ptr<ExecutionPlan> plan(new ExecutionPlan());
    Impl &p = *plan->m_impl;
    p.graph = std::move(graph);
    p.pool = options.bufferPool ? options.bufferPool : std::make_shared<BufferPool>();
    if (options.fuseOperators && options.foldBatchNorms)
        QL_RETURN_IF_ERROR(foldBatchNorms(p.graph, nullptr, options.keepVisible));
    if (options.fuseOperators) {
        QL_RETURN_IF_ERROR(fuseForInference(p.graph, nullptr, options.keepVisible));
        fuseLayerNorms(p.graph, options.keepVisible);
        fuseGelus(p.graph, options.keepVisible);
        fuseMatMulIntegerToFloat(p.graph, options.keepVisible);
    }
    p.threads = options.threads > 0 ? options.threads
                                    : std::max(1u, std::thread::hardware_concurrency());

    for (const auto &[name, tensor] : p.graph.initializers) p.idFor(name);
    for (const ValueInfo &in : p.graph.inputs) p.graphInputIds.push_back(p.idFor(in.name));
    for (const Node &node : p.graph.nodes) {
        PlannedNode planned;
        planned.node = &node;
        for (const std::string &in : node.inputs) planned.inputs.push_back(in.empty() ? kNoValue : p.idFor(in));
        for (const std::string &out : node.outputs) planned.outputs.push_back(out.empty() ? kNoValue : p.idFor(out));
        p.nodes.push_back(std::move(planned));
    }
    for (const ValueInfo &out : p.graph.outputs) p.graphOutputIds.push_back(p.idFor(out.name));

    const size_t count = p.valueIds.size();
    p.values.assign(count, Tensor());
    p.constants.assign(count, Tensor());
    p.isConstant.assign(count, false);
    for (const auto &[name, tensor] : p.graph.initializers) {
        const int id = p.valueIds[name];
        p.constants[id] = tensor;
        p.isConstant[id] = true;
    }

    // Values must be defined before use: graph inputs, initializers or an earlier node.
    std::vector<bool> defined(count, false);
    for (size_t id = 0; id < count; ++id) defined[id] = p.isConstant[id];
    for (int id : p.graphInputIds) defined[id] = true;
    for (const PlannedNode &planned : p.nodes) {
        for (size_t i = 0; i < planned.inputs.size(); ++i) {
            if (planned.inputs[i] != kNoValue && !defined[planned.inputs[i]]) {
                return Status::badInput(planned.node->describe() + ": input '" +
                                        planned.node->inputs[i] + "' is not produced by any node");
            }
        }
        for (int out : planned.outputs)
            if (out != kNoValue) defined[out] = true;
    }
    for (size_t i = 0; i < p.graphOutputIds.size(); ++i) {
        if (!defined[p.graphOutputIds[i]])
            return Status::badInput("graph output '" + p.graph.outputs[i].name + "' is never produced");
    }

    // Liveness: release a value after its last consumer, unless it is a graph output or constant.
    std::vector<int> lastUse(count, -1);
    for (size_t n = 0; n < p.nodes.size(); ++n) {
        for (int in : p.nodes[n].inputs)
            if (in != kNoValue) lastUse[in] = static_cast<int>(n);
        for (int out : p.nodes[n].outputs)  // unused outputs die right after their producer
            if (out != kNoValue && lastUse[out] < static_cast<int>(n)) lastUse[out] = static_cast<int>(n);
    }
    for (int out : p.graphOutputIds) lastUse[out] = -1;
    for (int in : p.graphInputIds)
        if (lastUse[in] >= 0) p.nodes[lastUse[in]].releaseAfter.push_back(in);
    for (size_t id = 0; id < count; ++id) {
        const bool isInput = std::find(p.graphInputIds.begin(), p.graphInputIds.end(), static_cast<int>(id)) != p.graphInputIds.end();
        if (!p.isConstant[id] && !isInput && lastUse[id] >= 0) p.nodes[lastUse[id]].releaseAfter.push_back(static_cast<int>(id));
    }

    for (PlannedNode &planned : p.nodes) {
        if (stopRequested()) return stoppedStatus();  // kernels may pack large weights
        auto domain = p.graph.domainOpsets.find(planned.node->domain);
        const int64_t opset = domain != p.graph.domainOpsets.end() ? domain->second : p.graph.opsetVersion;
        KernelBuildInfo info{*planned.node, p.graph, opset};
        Result<KernelPtr> kernel = KernelRegistry::instance().create(info);
        if (!kernel) return kernel.status();
        planned.kernel = std::move(kernel.value());
    }
    return plan;
}

Status checkInputMatches(const ValueInfo &declared, const Tensor &given) {
    const std::string what = "input '" + declared.name + "'";
    if (declared.dtype != DataType::Undefined && given.dtype() != declared.dtype) {
        return Status::badInput(what + ": expected " + dataTypeName(declared.dtype) + ", got " +
                                dataTypeName(given.dtype()));
    }
    if (!declared.hasShape) return Status::ok();
    bool matches = declared.shape.size() == given.shape().size();
    for (size_t i = 0; matches && i < declared.shape.size(); ++i)
        matches = declared.shape[i] < 0 || declared.shape[i] == given.shape()[i];
    if (!matches) {
        std::string expected = "[";
        for (size_t i = 0; i < declared.shape.size(); ++i) {
            expected += i ? "," : "";
            expected += declared.shape[i] < 0 ? (declared.dimNames.size() > i && !declared.dimNames[i].empty()
                                                     ? declared.dimNames[i] : std::string("?"))
                                              : std::to_string(declared.shape[i]);
        }
        expected += "]";
        return Status::badInput(what + ": expected shape " + expected + ", got " + shapeToString(given.shape()));
    }
    return Status::ok();
}

Status ExecutionPlan::run(const std::map<std::string, Tensor> &inputs, std::vector<Tensor> &outputs,
                          const RunOptions &options) {
    QL_RETURN_IF_ERROR(start(inputs, options));
    return finish(outputs);
}

Status ExecutionPlan::start(const std::map<std::string, Tensor> &inputs,
                            const RunOptions &options) {
    Impl &p = *m_impl;
    p.endRun();
    for (size_t i = 0; i < p.graph.inputs.size(); ++i) {
        const ValueInfo &declared = p.graph.inputs[i];
        auto it = inputs.find(declared.name);
        if (it == inputs.end()) return Status::badInput("missing input '" + declared.name + "'");
        QL_RETURN_IF_ERROR(checkInputMatches(declared, it->second));
    }
    for (const auto &[name, tensor] : inputs) {
        if (!p.valueIds.count(name) || p.isConstant[p.valueIds[name]])
            return Status::badInput("model has no input named '" + name + "'");
    }
    for (size_t i = 0; i < p.graph.inputs.size(); ++i)
        p.values[p.graphInputIds[i]] = inputs.at(p.graph.inputs[i].name);
    for (size_t id = 0; id < p.values.size(); ++id)
        if (p.isConstant[id]) p.values[id] = p.constants[id];
    p.runOptions = options;
    p.timings.clear();
    p.next = 0;
    return Status::ok();
}

Result<bool> ExecutionPlan::step() {
    Impl &p = *m_impl;
    if (p.next < 0 || p.next >= static_cast<int>(p.nodes.size())) return false;
    omp_set_num_threads(p.threads);  // per call: another plan may have run on this thread since
    Status status;
    try {
        status = p.runNode(p.next);
    } catch (const std::exception &e) {
        status = Status::internal(e.what());
    }
    if (!status.isOk()) {
        p.endRun();
        return status;
    }
    ++p.next;
    return true;
}

Status ExecutionPlan::finish(std::vector<Tensor> &outputs) {
    Impl &p = *m_impl;
    if (p.next < 0) return Status::internal("the plan has no run to finish");
    for (;;) {
        auto more = step();
        if (!more) return more.status();
        if (!*more) break;
    }
    const int total = static_cast<int>(p.nodes.size());
    if (p.runOptions.progress) p.runOptions.progress(total, total);
    outputs.clear();
    for (int id : p.graphOutputIds) {
        const Tensor &value = p.values[id];
        if (p.runOptions.outputsAsStored)
            outputs.push_back(value);  // shared; the pool skips it while held
        else
            outputs.push_back(value.layout() == Layout::Plain ? value.clone() : value.toPlain());
    }
    p.endRun();
    return Status::ok();
}

void ExecutionPlan::Impl::endRun() {
    for (Tensor &value : values) value = Tensor();  // buffers go back to the pool
    runOptions = RunOptions();
    next = -1;
}

Status ExecutionPlan::Impl::runNode(int n) {
    using Clock = std::chrono::steady_clock;
    const RunOptions &options = runOptions;
    const int total = static_cast<int>(nodes.size());
    PlannedNode &planned = nodes[n];
    if (stopRequested() || (options.progress && !options.progress(n, total)))
        return stoppedStatus();
    const auto start = Clock::now();  // layout conversions count towards the consumer
    for (size_t i = 0; i < planned.inputs.size(); ++i) {
        const int id = planned.inputs[i];
        if (id != kNoValue && values[id].layout() != Layout::Plain &&
            !planned.kernel->acceptsChannelsLast(i))
            values[id] = values[id].toPlain();
    }
    PlanKernelContext ctx(values, *pool, planned, threads);
    Status status;
    try {
        status = planned.kernel->run(ctx);
    } catch (const TensorTooLarge &e) {
        status = Status::badInput(e.what());
    } catch (const std::bad_alloc &) {
        status = Status::badInput("out of memory for its output (a shape too large to run)");
    } catch (const std::exception &e) {
        status = Status::internal(e.what());
    }
    if (!status.isOk()) return status.withContext(planned.node->describe());
    for (size_t o = 0; o < planned.outputs.size(); ++o) {
        const int id = planned.outputs[o];
        if (id != kNoValue && !values[id].defined())
            return Status::internal(planned.node->describe() + ": output " + std::to_string(o) +
                                    " was not produced");
    }
    if (timingEnabled) {
        timings.push_back(
            {planned.node->name, planned.node->opType,
             std::chrono::duration<double, std::milli>(Clock::now() - start).count()});
    }
    if (options.tap && (!options.tapFilter || options.tapFilter(*planned.node))) {
        for (size_t o = 0; o < planned.outputs.size(); ++o) {
            const int id = planned.outputs[o];
            if (id != kNoValue)
                options.tap(*planned.node, o,
                            options.tapStoredLayout ? values[id] : values[id].toPlain());
        }
    }
    for (int id : planned.releaseAfter) values[id] = Tensor();
    return Status::ok();
}

}  // namespace ql

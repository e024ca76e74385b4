#include "analysis/explain/layer_capture.h"

#include <functional>
#include <mutex>
#include <set>
#include <vector>

#include "passes/constant_folding.h"
#include "runtime/buffer_pool.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {
namespace {

// A deep copy in plain order (toPlain() of a channels-last tensor already is one).
Tensor plainCopy(const Tensor &t) {
    return t.layout() == Layout::Plain ? t.clone() : t.toPlain();
}

Tensor toFloat(const Tensor &t) {
    const Tensor plain = t.toPlain();
    if (plain.dtype() == DataType::Float) return plain.clone();
    Tensor out(DataType::Float, plain.shape());
    for (int64_t i = 0; i < plain.numel(); ++i)
        out.data<float>()[i] = static_cast<float>(plain.valueAsDouble(i));
    return out;
}

// Values the explanation needs around quantRun's node: its inputs and outputs, the quantized
// tensor behind each DequantizeLinear input, the outputs of the folded quantized nodes and the
// QuantizeLinear that follows them.
std::set<std::string> valuesAround(const Graph &g, int nodeIndex, const LayerMatch &match) {
    std::set<std::string> wanted;
    if (nodeIndex < 0) return wanted;
    const Node &node = g.nodes[nodeIndex];
    for (const auto &in : node.inputs) {
        if (in.empty() || g.isInitializer(in)) continue;
        wanted.insert(in);
        const int p = g.producerIndex(in);
        if (p >= 0 && g.nodes[p].opType == "DequantizeLinear" && g.nodes[p].hasInput(0) &&
            !g.isInitializer(g.nodes[p].inputs[0]))
            wanted.insert(g.nodes[p].inputs[0]);
    }
    std::string last = node.outputs.empty() ? "" : node.outputs[0];
    for (const auto &o : node.outputs)
        if (!o.empty()) wanted.insert(o);
    for (const auto &name : match.foldedQuantNodes) {
        const Node *folded = g.findNode(name);
        if (!folded) continue;
        for (const auto &o : folded->outputs)
            if (!o.empty()) wanted.insert(o);
        if (!folded->outputs.empty()) last = folded->outputs[0];
    }
    // The QuantizeLinear after the layer (float op -> Q): its output is the layer's int8 value.
    for (size_t i = 0; i < g.nodes.size() && !last.empty(); ++i)
        if (g.nodes[i].opType == "QuantizeLinear" && g.nodes[i].hasInput(0) &&
            g.nodes[i].inputs[0] == last)
            wanted.insert(g.nodes[i].outputs[0]);
    return wanted;
}

// A QOperator layer's output is its quantized tensor (no DequantizeLinear): its scale and zero
// point are the node's output inputs.
void describeQOperatorOutput(const Graph &folded, const std::string &value, QuantTarget &target) {
    const int p = folded.producerIndex(value);
    if (p < 0) return;
    const Node &node = folded.nodes[p];
    static const std::map<std::string, std::pair<size_t, size_t>> outputParams = {
        {"QLinearConv", {6, 7}},
        {"QLinearMatMul", {6, 7}},
        {"QGemm", {7, 8}},
        {"QLinearAdd", {6, 7}},
        {"QLinearMul", {6, 7}},
        {"QLinearGlobalAveragePool", {3, 4}},
        {"QLinearAveragePool", {3, 4}},
        {"QLinearSigmoid", {3, 4}},
        {"QLinearLeakyRelu", {3, 4}},
        {"QLinearConcat", {0, 1}}};
    auto it = outputParams.find(node.opType);
    if (it == outputParams.end() || node.outputs.empty() || node.outputs[0] != value) return;
    const Tensor *scale = node.hasInput(it->second.first)
                              ? folded.initializer(node.inputs[it->second.first])
                              : nullptr;
    const Tensor *zp = node.hasInput(it->second.second)
                           ? folded.initializer(node.inputs[it->second.second])
                           : nullptr;
    if (!scale || scale->numel() != 1) return;
    target.scale = scale->toFloatVector();
    target.zeroPoint = {zp ? static_cast<int32_t>(zp->valueAsDouble(0)) : 0};
    target.quantType = zp ? zp->dtype() : DataType::UInt8;
    target.quantizedNames = {value};
}

// One model's plan and what captures take from it: the values of one full run on a batch kept
// as stored (within a byte budget; no copy: the pool leaves referenced buffers alone), or else
// a run that stops after the node producing the last wanted value.
class PlanValues {
public:
    PlanValues(std::unique_ptr<ExecutionPlan> plan, std::shared_ptr<BufferPool> pool,
               size_t cacheBudget)
        : m_plan(std::move(plan)), m_pool(std::move(pool)), m_cacheBudget(cacheBudget) {}

    // Plain copies of the wanted values (graph inputs included) of the plan run on `batch`.
    Status keep(const std::map<std::string, Tensor> &batch, const std::set<std::string> &wanted,
                std::map<std::string, Tensor> &kept) {
        std::lock_guard<std::mutex> lock(m_mutex);  // the plan runs on one thread at a time
        if (!m_cache.empty() && sameBatch(batch)) {
            for (const auto &name : wanted) {
                auto it = m_cache.find(name);
                if (it != m_cache.end()) kept[name] = plainCopy(it->second);
            }
            return Status::ok();
        }
        std::set<std::string> pending;  // wanted values a node still has to produce
        for (const auto &node : m_plan->graph().nodes)
            for (const auto &o : node.outputs)
                if (wanted.count(o)) pending.insert(o);
        RunOptions run;
        run.tapStoredLayout = true;  // only the wanted values are brought to plain order
        run.tapFilter = tapNodesProducing(wanted);
        run.tap = [&](const Node &node, size_t index, const Tensor &value) {
            const std::string &name = node.outputs[index];
            if (!wanted.count(name)) return;
            kept[name] = plainCopy(value);
            pending.erase(name);
        };
        run.progress = [&](int, int) { return !pending.empty(); };
        std::vector<Tensor> outputs;
        ++m_runs;
        const Status status = m_plan->run(batch, outputs, run);
        const bool stoppedEarly = status.kind() == ErrorKind::Cancelled && pending.empty();
        if (!status.isOk() && !stoppedEarly) return status;
        const Graph &g = m_plan->graph();
        for (size_t o = 0; o < g.outputs.size() && o < outputs.size(); ++o)
            if (wanted.count(g.outputs[o].name) && !kept.count(g.outputs[o].name))
                kept[g.outputs[o].name] = plainCopy(outputs[o]);
        for (const auto &[name, tensor] : batch)
            if (wanted.count(name)) kept[name] = plainCopy(tensor);
        return Status::ok();
    }

    // Runs the plan on `batch` once and keeps every value, unless they are kept already or
    // would take more than the budget (then nothing is kept, for the runner's life).
    Status fill(const std::map<std::string, Tensor> &batch,
                const std::function<bool()> &cancelled) {
        std::lock_guard<std::mutex> lock(m_mutex);
        if (m_cacheBudget == 0 || m_cacheTooBig || (!m_cache.empty() && sameBatch(batch)))
            return Status::ok();
        m_cache.clear();
        m_cacheKey.clear();
        m_cacheBytes = 0;
        std::set<const Storage *> counted;
        RunOptions run;
        run.tapStoredLayout = true;
        run.tap = [&](const Node &node, size_t index, const Tensor &value) {
            if (m_cacheTooBig) return;
            if (value.storage() && counted.insert(value.storage().get()).second)
                m_cacheBytes += value.storage()->capacity();
            if (m_cacheBytes > m_cacheBudget) {
                m_cacheTooBig = true;
                m_cache.clear();
                return;
            }
            m_cache[node.outputs[index]] = value;
        };
        run.progress = [&](int, int) { return !m_cacheTooBig && !(cancelled && cancelled()); };
        std::vector<Tensor> outputs;
        ++m_runs;
        const Status status = m_plan->run(batch, outputs, run);
        if (!status.isOk() || m_cacheTooBig) {
            m_cache.clear();
            m_cacheBytes = 0;
            m_pool->releaseUnused();  // the buffers of the values no longer kept
            return m_cacheTooBig ? Status::ok() : status;
        }
        const Graph &g = m_plan->graph();
        for (size_t o = 0; o < g.outputs.size() && o < outputs.size(); ++o)
            if (!m_cache.count(g.outputs[o].name)) m_cache[g.outputs[o].name] = outputs[o];
        for (const auto &[name, tensor] : batch) m_cache[name] = tensor;
        m_cacheKey = batch;
        return Status::ok();
    }

    size_t cachedBytes() {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_cacheBytes;
    }
    size_t pooledBytes() {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_plan->pooledBytes();
    }
    int runs() {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_runs;
    }

private:
    // The same tensors (shared storage, shape, type) as the cached run's: tensors are not
    // written after they were handed out, so their values are the same too.
    bool sameBatch(const std::map<std::string, Tensor> &batch) const {
        if (batch.size() != m_cacheKey.size()) return false;
        for (const auto &[name, tensor] : batch) {
            auto it = m_cacheKey.find(name);
            if (it == m_cacheKey.end() || it->second.storage() != tensor.storage() ||
                it->second.shape() != tensor.shape() || it->second.dtype() != tensor.dtype() ||
                it->second.layout() != tensor.layout())
                return false;
        }
        return true;
    }

    std::unique_ptr<ExecutionPlan> m_plan;
    std::shared_ptr<BufferPool> m_pool;  // the plan's
    size_t m_cacheBudget = 0;
    bool m_cacheTooBig = false;
    std::map<std::string, Tensor> m_cacheKey;  // the batch of the cached run
    std::map<std::string, Tensor> m_cache;     // every value of that run, as stored
    size_t m_cacheBytes = 0;
    int m_runs = 0;
    std::mutex m_mutex;
};

}  // namespace

// The float model as loaded and folded (for the explanation's constants) and its fp32 plan.
struct LayerCaptureRunner::FloatHalf {
    Graph loaded, folded;
    int threads = 0;
    std::unique_ptr<PlanValues> values;
};

// The quantized model as loaded, folded, lowered as it runs, the lowering's decisions, its plan.
struct LayerCaptureRunner::QuantHalf {
    Graph loaded, folded, run;
    PrecisionReport report;
    std::unique_ptr<PlanValues> values;
};

namespace {

Result<std::unique_ptr<PlanValues>> makePlan(Graph graph, const LayerCaptureOptions &options) {
    PlanOptions planOptions;
    planOptions.threads = options.threads;
    planOptions.bufferPool = std::make_shared<BufferPool>();
    auto pool = planOptions.bufferPool;
    auto plan = ExecutionPlan::create(std::move(graph), planOptions);
    if (!plan) return plan.status();
    return std::make_unique<PlanValues>(std::move(*plan), std::move(pool), options.valueCacheBytes);
}

}  // namespace

LayerCaptureRunner::~LayerCaptureRunner() = default;

Result<std::unique_ptr<LayerCaptureRunner>> LayerCaptureRunner::create(
    const Graph &floatGraph, const Graph &quantGraph, const LayerCaptureOptions &options) {
    auto half = std::make_shared<FloatHalf>();
    half->loaded = floatGraph;
    half->folded = floatGraph;
    QL_RETURN_IF_ERROR(foldConstants(half->folded));
    half->threads = options.threads;
    Graph prepared = floatGraph;
    QL_RETURN_IF_ERROR(preparePrecision(prepared, Precision::Fp32).withContext("float model"));
    auto plan = makePlan(std::move(prepared), options);
    if (!plan) return plan.status().withContext("float model");
    half->values = std::move(*plan);

    std::unique_ptr<LayerCaptureRunner> runner(new LayerCaptureRunner);
    runner->m_float = std::move(half);
    runner->m_options = options;
    auto quant = runner->withQuantGraph(quantGraph, options);
    if (!quant) return quant.status();
    return quant;
}

Result<std::unique_ptr<LayerCaptureRunner>> LayerCaptureRunner::withQuantGraph(
    const Graph &quantGraph, const LayerCaptureOptions &options) const {
    if (m_float->threads != options.threads) return create(m_float->loaded, quantGraph, options);
    auto half = std::make_shared<QuantHalf>();
    half->loaded = quantGraph;
    half->folded = quantGraph;
    QL_RETURN_IF_ERROR(foldConstants(half->folded));
    half->run = quantGraph;
    QL_RETURN_IF_ERROR(preparePrecision(half->run, options.precision, &half->report)
                           .withContext("quantized model"));
    if (options.precision == Precision::Int8) applyInt8Kernels(half->run, options.int8Kernels);
    auto plan = makePlan(half->run, options);
    if (!plan) return plan.status().withContext("quantized model");
    half->values = std::move(*plan);

    std::unique_ptr<LayerCaptureRunner> runner(new LayerCaptureRunner);
    runner->m_options = options;
    runner->m_float = m_float;
    runner->m_quant = std::move(half);
    return runner;
}

size_t LayerCaptureRunner::pooledBytes() const {
    return m_float->values->pooledBytes() + m_quant->values->pooledBytes();
}

size_t LayerCaptureRunner::cachedBytes() const {
    return m_float->values->cachedBytes() + m_quant->values->cachedBytes();
}

Status LayerCaptureRunner::keepValues(const std::map<std::string, Tensor> &batch,
                                      const std::function<bool()> &cancelled) const {
    QL_RETURN_IF_ERROR(m_float->values->fill(batch, cancelled).withContext("float model"));
    return m_quant->values->fill(batch, cancelled).withContext("quantized model");
}

int LayerCaptureRunner::modelRuns() const {
    return m_float->values->runs() + m_quant->values->runs();
}

bool LayerCaptureRunner::sharesFloatHalfWith(const LayerCaptureRunner &other) const {
    return m_float == other.m_float;
}

Result<LayerCapture> LayerCaptureRunner::capture(const LayerMatch &match,
                                                 const std::map<std::string, Tensor> &batch) const {
    const FloatHalf &fh = *m_float;
    const QuantHalf &qh = *m_quant;
    LayerCapture c;
    c.match = match;
    const Node *fnode = fh.loaded.findNode(match.floatNode);
    if (!fnode)
        return Status::badInput("layer '" + match.floatNode + "' is not in the float model");
    if (!qh.loaded.findNode(match.quantNode))
        return Status::badInput("layer '" + match.quantNode + "' is not in the quantized model");
    // Copies share the tensors' storage: cheap, and the capture stays valid on its own.
    c.floatFolded = fh.folded;
    c.quantFolded = qh.folded;
    c.quantRun = qh.run;
    c.target = describeQuantValue(c.quantFolded, match.quantOutput);
    if (c.target.scale.empty()) describeQOperatorOutput(c.quantFolded, match.quantOutput, c.target);
    for (size_t i = 0; i < c.quantRun.nodes.size(); ++i)
        if (c.quantRun.nodes[i].name == match.quantNode) c.quantRunNode = static_cast<int>(i);
    for (const auto &decision : qh.report.nodes)
        if (decision.node == match.quantNode) c.quantRunReason = decision.reason;

    // Float side: the layer output and the float node's non-constant inputs.
    std::set<std::string> floatWanted = {match.floatOutput};
    for (const auto &in : fnode->inputs)
        if (!in.empty() && !c.floatFolded.isInitializer(in)) floatWanted.insert(in);
    std::map<std::string, Tensor> floatKept;
    QL_RETURN_IF_ERROR(
        m_float->values->keep(batch, floatWanted, floatKept).withContext("float model"));
    auto fo = floatKept.find(match.floatOutput);
    if (fo == floatKept.end())
        return Status::badInput("layer '" + match.floatNode +
                                "': the float model did not produce '" + match.floatOutput + "'");
    c.floatOutput = toFloat(fo->second);
    floatKept.erase(fo);
    c.floatValues = std::move(floatKept);

    // Quantized side: the layer value (DQ output or the quantized tensor behind it) and the
    // values around the node as it ran.
    std::set<std::string> quantWanted = valuesAround(c.quantRun, c.quantRunNode, match);
    quantWanted.insert(c.target.floatName);
    for (const auto &name : c.target.quantizedNames) quantWanted.insert(name);
    QL_RETURN_IF_ERROR(
        m_quant->values->keep(batch, quantWanted, c.quantValues).withContext("quantized model"));
    for (const auto &name : c.target.quantizedNames) {
        auto it = c.quantValues.find(name);
        if (it != c.quantValues.end() &&
            (it->second.dtype() == DataType::UInt8 || it->second.dtype() == DataType::Int8)) {
            c.quantOutputInt = it->second;
            break;
        }
    }
    auto direct = c.quantValues.find(c.target.floatName);
    if (direct != c.quantValues.end() && direct->second.dtype() == DataType::Float) {
        c.quantOutput = direct->second;
    } else if (c.quantOutputInt.defined()) {
        auto dq = dequantizeTarget(c.quantOutputInt, c.target);
        if (!dq) return dq.status().withContext("layer '" + match.floatNode + "'");
        c.quantOutput = std::move(*dq);
    } else if (direct != c.quantValues.end()) {
        c.quantOutput = toFloat(direct->second);
    } else {
        return Status::badInput("layer '" + match.floatNode +
                                "': the quantized model did not produce '" + match.quantOutput +
                                "'");
    }
    if (c.quantOutput.shape() != c.floatOutput.shape())
        return Status::badInput("layer '" + match.floatNode + "': float output " +
                                shapeToString(c.floatOutput.shape()) + " and quantized output " +
                                shapeToString(c.quantOutput.shape()) + " differ");
    return c;
}

Result<LayerCapture> captureLayer(const Graph &floatGraph, const Graph &quantGraph,
                                  const LayerMatch &match,
                                  const std::map<std::string, Tensor> &batch,
                                  const LayerCaptureOptions &options) {
    auto runner = LayerCaptureRunner::create(floatGraph, quantGraph, options);
    if (!runner) return runner.status();
    return (*runner)->capture(match, batch);
}

}  // namespace ql::analysis

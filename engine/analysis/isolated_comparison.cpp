#include "analysis/isolated_comparison.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/isolated_layer_graph.h"
#include "core/stop_token.h"
#include "passes/precision.h"
#include "runtime/buffer_pool.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {
namespace {

int64_t sampleCount(const Tensor &t) {
    return t.rank() == 0 ? 1 : t.dim(0);
}

// A float view (kept in its storage order) or a plain float copy of another numeric type.
Tensor asFloat(const Tensor &t) {
    if (t.dtype() == DataType::Float) return t;
    Tensor out(DataType::Float, t.shape());
    float *y = out.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) y[i] = static_cast<float>(t.valueAsDouble(i));
    return out;
}

// Σ(r − zp)² and Σ(r − y)² of two quantized tensors with the same parameters, in exact integers.
// Each term is at most 255², so int32 partial sums over spans of kSpan elements cannot overflow
// and vectorise; the spans add up in int64.
struct IntegerSqnr {
    int64_t signal = 0, noise = 0;
    template <class Q>
    void add(const Q *r, const Q *y, int64_t n, int32_t zeroPoint) {
        constexpr int64_t kSpan = 32768;  // 32768 · 255² < 2³¹
        for (int64_t start = 0; start < n; start += kSpan) {
            const int64_t end = std::min(n, start + kSpan);
            int32_t s = 0, e = 0;
            for (int64_t i = start; i < end; ++i) {
                const int32_t a = int32_t(r[i]) - zeroPoint, d = int32_t(r[i]) - int32_t(y[i]);
                s += a * a;
                e += d * d;
            }
            signal += s;
            noise += e;
        }
    }
};

// One isolated layer: its plans, the float values it waits for, and its accumulators.
struct LayerRun {
    bool active = false;                                      // has plans and has not failed
    std::vector<std::pair<std::string, std::string>> inputs;  // layer-graph input -> float value
    std::string floatOutput;
    std::vector<std::string> needs;  // distinct float values: inputs and the float output
    bool outputQuantized =
        false;  // the plans output the quantized tensor (per-tensor params below)
    std::optional<float> outputScale;
    int32_t outputZeroPoint = 0;
    std::unique_ptr<ExecutionPlan> int8Plan, referencePlan;
    ComparisonAccumulator isolated, kernel;  // kernel: float outputs only
    IntegerSqnr kernelIntegers;              // kernel: quantized outputs
    int pending = 0;
    bool ran = false;
};

}  // namespace

struct IsolatedComparator::Impl {
    IsolatedComparisonOptions options;
    std::vector<LayerIsolatedComparison> layers;
    std::vector<LayerRun> runs;
    std::set<std::string> needed;
    std::map<std::string, std::vector<int>> users;  // float value -> layers that need it
    std::map<std::string, Tensor> held;             // this batch's float values still needed
    std::map<std::string, int> remaining;           // float value -> layers that have not run yet
    std::set<std::string> delivered;                // float values handed over this batch
    int64_t samples = 0;
    int64_t kernelCheckSamples = 0;  // samples the kernel check has covered
    int batches = 0;
    void fail(int index, const std::string &why) {
        runs[index].active = false;
        layers[index].note = why;
    }
    void runLayer(int index);
    // How many of this batch's first samples the kernel check still covers.
    int64_t kernelCheckSamplesOf(int64_t batchSamples) const {
        if (options.kernelCheckSamples <= 0) return batchSamples;
        return std::clamp<int64_t>(options.kernelCheckSamples - samples, 0, batchSamples);
    }
};

IsolatedComparator::IsolatedComparator() : m_impl(std::make_unique<Impl>()) {}
IsolatedComparator::~IsolatedComparator() = default;

Result<std::unique_ptr<IsolatedComparator>> IsolatedComparator::create(
    const Graph &floatGraph, const Graph &quantGraph, const LayerMatching &matching,
    const IsolatedComparisonOptions &options) {
    auto extracted = extractIsolatedLayers(floatGraph, quantGraph, matching);
    if (!extracted) return extracted.status();
    std::unique_ptr<IsolatedComparator> comparator(new IsolatedComparator());
    Impl &p = *comparator->m_impl;
    p.options = options;
    p.runs.resize(matching.matches.size());
    PlanOptions planOptions;
    planOptions.threads = options.threads;
    // The layer plans run one after the other: one pool serves them all, so memory holds the
    // largest layer's buffers, not every layer's.
    planOptions.bufferPool =
        options.bufferPool ? options.bufferPool : std::make_shared<BufferPool>();

    for (size_t i = 0; i < matching.matches.size(); ++i) {
        IsolatedLayerGraph &cut = (*extracted)[i];
        LayerIsolatedComparison layer;
        layer.match = matching.matches[i];
        layer.note = cut.note;
        LayerRun &run = p.runs[i];
        if (cut.usable) {
            run.inputs = cut.inputs;
            run.floatOutput = cut.floatOutput;
            run.outputQuantized = cut.outputQuantized;
            run.outputScale = cut.outputScale;
            run.outputZeroPoint = cut.outputZeroPoint;
            if (cut.outputScale) run.isolated.setOutputScale(*cut.outputScale);
            if (cut.outputScale && options.saturation)
                run.isolated.setQuantizer(*cut.outputScale, cut.outputZeroPoint, cut.outputQmin,
                                          cut.outputQmax);
            for (const auto &in : cut.inputs) layer.floatInputs.push_back(in.second);

            Graph int8Graph = cut.graph;
            PrecisionReport report;
            Status prepared = preparePrecision(int8Graph, Precision::Int8, &report);
            if (prepared) {
                applyInt8Kernels(int8Graph, options.int8Kernels);
                for (const NodePrecision &node : report.nodes)
                    if (node.node == layer.match.quantNode) {
                        layer.int8 = node.int8;
                        layer.lowering = node.reason;
                    }
                auto plan = ExecutionPlan::create(std::move(int8Graph), planOptions);
                if (plan)
                    run.int8Plan = std::move(*plan);
                else
                    prepared = plan.status();
            }
            if (prepared && options.kernelCheck && layer.int8) {
                Graph referenceGraph = std::move(cut.graph);
                prepared = preparePrecision(referenceGraph, Precision::Reference);
                if (prepared) {
                    auto plan = ExecutionPlan::create(std::move(referenceGraph), planOptions);
                    if (plan)
                        run.referencePlan = std::move(*plan);
                    else
                        prepared = plan.status();
                }
            }
            if (prepared) {
                run.active = true;
                std::set<std::string> needs;
                for (const auto &in : cut.inputs) needs.insert(in.second);
                needs.insert(cut.floatOutput);
                run.needs.assign(needs.begin(), needs.end());
                for (const std::string &name : run.needs) {
                    p.users[name].push_back(int(i));
                    p.needed.insert(name);
                }
            } else {
                layer.note = "the isolated layer cannot run: " + prepared.message();
            }
        }
        p.layers.push_back(std::move(layer));
    }
    // A Cancel while the layer plans were built reads as "cannot run" notes above: not a result.
    if (stopRequested()) return stoppedStatus();
    return comparator;
}

const std::set<std::string> &IsolatedComparator::floatValuesNeeded() const {
    return m_impl->needed;
}

void IsolatedComparator::beginBatch() {
    Impl &p = *m_impl;
    p.held.clear();
    p.delivered.clear();
    p.remaining.clear();
    for (const auto &[name, layers] : p.users) p.remaining[name] = int(layers.size());
    for (LayerRun &run : p.runs) {
        run.pending = int(run.needs.size());
        run.ran = false;
    }
}

// One comparison of the float reference x with a layer-graph output y (a quantized output is
// dequantized on the fly, as DequantizeLinear computes it).
static Status compareWith(ComparisonAccumulator &acc, const LayerRun &run, const float *x,
                          const Tensor &y, int64_t samples) {
    if (!run.outputQuantized) {
        if (y.dtype() != DataType::Float)
            return Status::internal("the isolated output is not float");
        return acc.add(x, y.data<float>(), y.numel(), samples);
    }
    if (y.dtype() == DataType::UInt8)
        return acc.addDequantized(x, y.data<uint8_t>(), y.numel(), samples, *run.outputScale,
                                  run.outputZeroPoint);
    if (y.dtype() == DataType::Int8)
        return acc.addDequantized(x, y.data<int8_t>(), y.numel(), samples, *run.outputScale,
                                  run.outputZeroPoint);
    return Status::internal(std::string("the isolated output is ") + dataTypeName(y.dtype()) +
                            ", not a quantized tensor");
}

// Runs a layer plan; `value` is its output as stored (maybe channels-last, not copied).
Status runPlan(ExecutionPlan &plan, const std::map<std::string, Tensor> &feeds, Tensor &value) {
    RunOptions options;
    options.outputsAsStored = true;
    std::vector<Tensor> outputs;
    QL_RETURN_IF_ERROR(plan.run(feeds, outputs, options));
    value = outputs.at(0);
    return Status::ok();
}

// Both in the same storage order (element-wise pairs); plain unless both are channels-last.
void sameLayout(Tensor &a, Tensor &b) {
    if (a.layout() == b.layout()) return;
    a = a.toPlain();
    b = b.toPlain();
}

// The first `count` samples of every feed, as views of the same buffers (the sample dim is
// outermost in every layout we store), when every feed leads with the batch's `samples`;
// otherwise the feeds as they are.
std::map<std::string, Tensor> firstSamples(const std::map<std::string, Tensor> &feeds,
                                           int64_t samples, int64_t count) {
    if (count >= samples) return feeds;
    for (const auto &[name, t] : feeds)
        if (t.rank() == 0 || t.dim(0) != samples) return feeds;
    std::map<std::string, Tensor> views;
    for (const auto &[name, t] : feeds) {
        Shape shape = t.shape();
        shape[0] = count;
        views[name] = Tensor(t.dtype(), shape, t.storage(), t.layout());
    }
    return views;
}

void IsolatedComparator::Impl::runLayer(int index) {
    LayerRun &run = runs[index];
    run.ran = true;
    if (!run.active) return;
    std::map<std::string, Tensor> feeds;
    for (const auto &[input, floatName] : run.inputs) feeds[input] = held.at(floatName);
    Tensor y;
    Status status = runPlan(*run.int8Plan, feeds, y);
    if (!status) return fail(index, "the isolated layer failed: " + status.message());
    Tensor x = asFloat(held.at(run.floatOutput));
    if (x.shape() != y.shape())
        return fail(index, "the float output " + shapeToString(x.shape()) +
                               " and the isolated output " + shapeToString(y.shape()) +
                               " have different shapes");
    sameLayout(x, y);
    const int64_t samples = sampleCount(x);
    status = compareWith(run.isolated, run, x.data<float>(), y, samples);
    if (!status) return fail(index, status.message());
    const int64_t checked = kernelCheckSamplesOf(samples);
    if (run.referencePlan && checked > 0) {
        // The reference runs on the checked samples alone where it can: it costs a float pass.
        Tensor r;
        status = runPlan(*run.referencePlan, firstSamples(feeds, samples, checked), r);
        if (!status) return fail(index, "the isolated reference layer failed: " + status.message());
        const int64_t referenceSamples = sampleCount(r);
        Shape expected = y.shape();
        if (!expected.empty()) expected[0] = referenceSamples;
        if (r.shape() != expected || (referenceSamples != samples && referenceSamples != checked))
            return fail(index, "the reference and int8 outputs have different shapes");
        sameLayout(r, y);
        // The first `checked` samples: the sample dim is outermost in every layout we store.
        const int64_t n = referenceSamples > 0 ? r.numel() / referenceSamples * checked : r.numel();
        // The reference path is the reference here. Both outputs quantized with the same
        // parameters: the SQNR of their dequantized values is that of (q - zp), exactly in
        // integers.
        if (run.outputQuantized && r.dtype() == y.dtype() && r.dtype() == DataType::UInt8) {
            run.kernelIntegers.add(r.data<uint8_t>(), y.data<uint8_t>(), n, run.outputZeroPoint);
        } else if (run.outputQuantized && r.dtype() == y.dtype() && r.dtype() == DataType::Int8) {
            run.kernelIntegers.add(r.data<int8_t>(), y.data<int8_t>(), n, run.outputZeroPoint);
        } else if (!run.outputQuantized && r.dtype() == DataType::Float &&
                   y.dtype() == DataType::Float) {
            status = run.kernel.add(r.data<float>(), y.data<float>(), n, checked);
            if (!status) return fail(index, status.message());
        } else {
            return fail(index, "the reference output has an unexpected type");
        }
    }
}

Status IsolatedComparator::addFloatValue(const std::string &name, const Tensor &value) {
    Impl &p = *m_impl;
    auto users = p.users.find(name);
    // Each value counts once per batch, even when handed over twice (e.g. a graph input that is
    // both in the batch and among the captured float values).
    if (users == p.users.end() || !p.delivered.insert(name).second) return Status::ok();
    p.held[name] = value;
    for (int index : users->second) {
        LayerRun &run = p.runs[index];
        if (--run.pending > 0) continue;
        p.runLayer(index);
        for (const std::string &need : run.needs)
            if (--p.remaining[need] == 0) p.held.erase(need);
    }
    // Layer failures become notes; a Cancel that stopped a layer's plan must stop the analysis.
    return stopRequested() ? stoppedStatus() : Status::ok();
}

Status IsolatedComparator::endBatch(int64_t samples) {
    Impl &p = *m_impl;
    for (size_t i = 0; i < p.runs.size(); ++i) {
        const LayerRun &run = p.runs[i];
        if (!run.active || run.ran) continue;
        std::string missing;
        for (const std::string &need : run.needs)
            if (!p.held.count(need)) missing += (missing.empty() ? "'" : ", '") + need + "'";
        p.held.clear();
        return Status::internal("isolated comparison: layer '" + p.layers[i].match.floatNode +
                                "' did not get the float value(s) " + missing);
    }
    p.held.clear();
    p.kernelCheckSamples += p.kernelCheckSamplesOf(samples);
    p.samples += samples;
    ++p.batches;
    return Status::ok();
}

Status IsolatedComparator::addBatch(const std::map<std::string, Tensor> &inputs,
                                    const std::map<std::string, Tensor> &floatValues) {
    beginBatch();
    for (const auto &[name, value] : inputs) QL_RETURN_IF_ERROR(addFloatValue(name, value));
    for (const auto &[name, value] : floatValues) QL_RETURN_IF_ERROR(addFloatValue(name, value));
    return endBatch(inputs.empty() ? 0 : sampleCount(inputs.begin()->second));
}

IsolatedComparisonResult IsolatedComparator::result() const {
    const Impl &p = *m_impl;
    IsolatedComparisonResult result;
    result.samples = p.samples;
    result.kernelCheckSamples = p.options.kernelCheck ? p.kernelCheckSamples : 0;
    result.batches = p.batches;
    result.layers = p.layers;
    for (size_t i = 0; i < p.runs.size(); ++i) {
        const LayerRun &run = p.runs[i];
        LayerIsolatedComparison &layer = result.layers[i];
        if (!run.active) continue;
        layer.metrics = run.isolated.result();
        if (run.referencePlan) {
            layer.kernelVsReferenceSqnrDb =
                run.outputQuantized
                    ? sqnrDb(double(run.kernelIntegers.signal), double(run.kernelIntegers.noise))
                    : run.kernel.result().sqnrDb;
            layer.kernelMismatch = *layer.kernelVsReferenceSqnrDb < p.options.kernelMismatchDb;
        }
    }
    return result;
}

Result<IsolatedComparisonResult> compareIsolated(const Graph &floatGraph, const Graph &quantGraph,
                                                 const LayerMatching &matching,
                                                 const ActivationBatchSource &source,
                                                 const IsolatedComparisonOptions &options) {
    if (!source) return Status::badInput("isolated comparison: no batch source");
    auto comparator = IsolatedComparator::create(floatGraph, quantGraph, matching, options);
    if (!comparator) return comparator.status();
    IsolatedComparator &isolated = **comparator;

    const std::set<std::string> &needed = isolated.floatValuesNeeded();
    auto floatPlan = createFloatPlan(floatGraph, options.threads, needed);
    if (!floatPlan) return floatPlan.status();

    RunOptions floatRun;
    Status tapStatus;
    floatRun.tapFilter = [&](const Node &node) {
        for (const auto &o : node.outputs)
            if (needed.count(o)) return true;
        return false;
    };
    floatRun.tapStoredLayout = true;  // the layer plans take channels-last inputs as they are
    floatRun.tap = [&](const Node &node, size_t index, const Tensor &value) {
        if (tapStatus) tapStatus = isolated.addFloatValue(node.outputs[index], value);
    };

    std::map<std::string, Tensor> batch;
    std::vector<Tensor> floatOutputs;
    int batches = 0;
    for (;;) {
        batch.clear();
        auto more = source(batch);
        if (!more) return more.status();
        if (!*more) break;
        isolated.beginBatch();
        for (const ValueInfo &in : floatGraph.inputs) {
            auto it = batch.find(in.name);
            if (it != batch.end()) QL_RETURN_IF_ERROR(isolated.addFloatValue(in.name, it->second));
        }
        QL_RETURN_IF_ERROR(
            (*floatPlan)->run(batch, floatOutputs, floatRun).withContext("float model"));
        QL_RETURN_IF_ERROR(tapStatus);
        const int64_t samples = batch.empty() ? 0 : sampleCount(batch.begin()->second);
        QL_RETURN_IF_ERROR(isolated.endBatch(samples));
        ++batches;
        if (options.progress && !options.progress(batches, options.expectedBatches))
            return Status::error(ErrorKind::Cancelled, "isolated comparison cancelled");
    }
    return isolated.result();
}

}  // namespace ql::analysis

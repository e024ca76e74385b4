#include "analysis/suite/isolated_comparison.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/suite/isolated_layer_graph.h"
#include "ir/channel_runs.h"
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

// One input of an isolated layer.
struct LayerInput {
    std::string graphInput;  // the layer graph's input
    std::string floatValue;  // the float value that feeds it
    // Fed quantized (feedQuantized): the float value's sweep quantizes it.
    std::optional<QuantizedFeed> quantized;
};

// One isolated layer: its plans, its accumulators, and this batch's values as they arrive. It
// runs as soon as its inputs are there; its output waits for the float output, so that the float
// output's pass (ValueSweep) makes the comparison.
struct LayerRun {
    bool active = false;  // has plans and has not failed
    std::vector<LayerInput> inputs;
    std::string floatOutput;
    bool outputQuantized =
        false;  // the plans output the quantized tensor (per-tensor params below)
    std::optional<float> outputScale;
    int32_t outputZeroPoint = 0;
    std::unique_ptr<ExecutionPlan> int8Plan, referencePlan;
    ComparisonAccumulator isolated, kernel;  // kernel: float outputs only
    IntegerSqnr kernelIntegers;              // kernel: quantized outputs
    // This batch.
    std::map<std::string, Tensor> feeds;  // graph input -> value
    int missingInputs = 0;
    Tensor output;       // the int8 plan's, until compared
    Tensor earlyFloatOutput;  // when it came before the layer ran
    bool ran = false, compared = false;
};

}  // namespace

struct IsolatedComparator::Impl {
    IsolatedComparisonOptions options;
    std::shared_ptr<BufferPool> pool;
    std::vector<LayerIsolatedComparison> layers;
    std::vector<LayerRun> runs;
    std::set<std::string> needed;
    std::map<std::string, std::vector<std::pair<int, size_t>>>
        inputUsers;                                       // float value -> (layer, input)
    std::map<std::string, std::vector<int>> outputUsers;  // float value -> layers compared with it
    std::set<std::string> delivered;                      // float values handed over this batch
    std::vector<int> ready;  // layers whose inputs are all there, to run after the sweep
    int64_t samples = 0;
    int64_t kernelCheckSamples = 0;  // samples the kernel check has covered
    int batches = 0;
    void fail(int index, const std::string &why) {
        runs[index].active = false;
        layers[index].note = why;
    }
    void runLayer(int index);
    void compareOutput(int index, const Tensor &floatOutput, ValueSweep *sweep);
    Tensor quantizedFeed(const Tensor &value, const QuantizedFeed &feed, ValueSweep &sweep);
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
    p.pool = options.bufferPool ? options.bufferPool : std::make_shared<BufferPool>();
    planOptions.bufferPool = p.pool;

    for (size_t i = 0; i < matching.matches.size(); ++i) {
        IsolatedLayerGraph &cut = (*extracted)[i];
        LayerIsolatedComparison layer;
        layer.match = matching.matches[i];
        layer.note = cut.note;
        LayerRun &run = p.runs[i];
        if (!options.onlyLayers.empty() && !options.onlyLayers.count(layer.match.floatNode))
            layer.note = "not compared";
        else if (cut.usable) {
            for (const auto &[graphInput, floatValue] : cut.inputs) {
                LayerInput in{graphInput, floatValue, feedQuantized(cut.graph, graphInput)};
                if (in.quantized) in.graphInput = in.quantized->input;
                run.inputs.push_back(std::move(in));
            }
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
                prepared = prepareReferenceWithQuantizedWeights(referenceGraph);
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
                for (size_t k = 0; k < run.inputs.size(); ++k) {
                    p.inputUsers[run.inputs[k].floatValue].push_back({int(i), k});
                    p.needed.insert(run.inputs[k].floatValue);
                }
                p.outputUsers[run.floatOutput].push_back(int(i));
                p.needed.insert(run.floatOutput);
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
    p.delivered.clear();
    p.ready.clear();
    for (LayerRun &run : p.runs) {
        run.feeds.clear();
        run.missingInputs = int(run.inputs.size());
        run.output = run.earlyFloatOutput = Tensor();
        run.ran = run.compared = false;
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
    if (y.dtype() == DataType::UInt16 || y.dtype() == DataType::Int16) {  // a 16-bit layer
        std::vector<float> dequantized(static_cast<size_t>(y.numel()));
        dequantizeSpan(y, {*run.outputScale}, {run.outputZeroPoint}, -1, 0, y.numel(),
                       dequantized.data());
        return acc.add(x, dequantized.data(), y.numel(), samples);
    }
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
    const std::map<std::string, Tensor> feeds = std::move(run.feeds);
    run.feeds.clear();
    if (!run.active) return;
    Tensor y;
    Status status = runPlan(*run.int8Plan, feeds, y);
    if (!status) return fail(index, "the isolated layer failed: " + status.message());
    const int64_t samples = sampleCount(y);
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
        Tensor yr = y;
        sameLayout(r, yr);
        // The first `checked` samples: the sample dim is outermost in every layout we store.
        const int64_t n = referenceSamples > 0 ? r.numel() / referenceSamples * checked : r.numel();
        // The reference path is the reference here. Both outputs quantized with the same
        // parameters: the SQNR of their dequantized values is that of (q - zp), exactly in
        // integers.
        if (run.outputQuantized && r.dtype() == yr.dtype() && r.dtype() == DataType::UInt8) {
            run.kernelIntegers.add(r.data<uint8_t>(), yr.data<uint8_t>(), n, run.outputZeroPoint);
        } else if (run.outputQuantized && r.dtype() == yr.dtype() && r.dtype() == DataType::Int8) {
            run.kernelIntegers.add(r.data<int8_t>(), yr.data<int8_t>(), n, run.outputZeroPoint);
        } else if (!run.outputQuantized && r.dtype() == DataType::Float &&
                   yr.dtype() == DataType::Float) {
            status = run.kernel.add(r.data<float>(), yr.data<float>(), n, checked);
            if (!status) return fail(index, status.message());
        } else if (run.outputQuantized && r.dtype() == yr.dtype() &&
                   (r.dtype() == DataType::UInt16 || r.dtype() == DataType::Int16)) {
            // A 16-bit layer runs the exact Q/DQ kernels in both: no int8 kernel to check.
        } else {
            return fail(index, "the reference output has an unexpected type");
        }
    }
    run.output = y;
    if (run.earlyFloatOutput.defined()) {
        const Tensor x = std::move(run.earlyFloatOutput);
        run.earlyFloatOutput = Tensor();
        compareOutput(index, x, nullptr);
    }
}

void IsolatedComparator::Impl::compareOutput(int index, const Tensor &floatOutput,
                                             ValueSweep *sweep) {
    LayerRun &run = runs[index];
    run.compared = true;
    Tensor y = std::move(run.output);
    run.output = Tensor();
    if (!run.active) return;
    if (floatOutput.shape() != y.shape())
        return fail(index, "the float output " + shapeToString(floatOutput.shape()) +
                               " and the isolated output " + shapeToString(y.shape()) +
                               " have different shapes");
    const bool eightBit = y.dtype() == DataType::UInt8 || y.dtype() == DataType::Int8;
    if (sweep && floatOutput.dtype() == DataType::Float && floatOutput.layout() == y.layout()) {
        if (!run.outputQuantized && y.dtype() == DataType::Float) return sweep->compare(run.isolated, y);
        if (run.outputQuantized && eightBit)
            return sweep->compare(run.isolated, y, *run.outputScale, run.outputZeroPoint);
    }
    Tensor x = asFloat(floatOutput);
    sameLayout(x, y);
    const Status status = compareWith(run.isolated, run, x.data<float>(), y, sampleCount(x));
    if (!status) fail(index, status.message());
}

Tensor IsolatedComparator::Impl::quantizedFeed(const Tensor &value, const QuantizedFeed &feed,
                                               ValueSweep &sweep) {
    // From the plans' pool: the buffer is free again once the layers that read it have run.
    const auto storage = pool->acquire(static_cast<size_t>(value.numel()));
    if (value.dtype() == DataType::Float) {
        Tensor out(feed.type, value.shape(), storage, value.layout());
        sweep.quantizeInto(out, feed.scale, feed.zeroPoint);
        return out;
    }
    // Another numeric type (rare): a plain float copy, quantized here.
    const Tensor x = asFloat(value.toPlain());
    Tensor out(feed.type, value.shape(), storage);
    if (feed.type == DataType::Int8)
        quantizeValues(x.data<float>(), out.data<int8_t>(), x.numel(), feed.scale, feed.zeroPoint);
    else
        quantizeValues(x.data<float>(), out.data<uint8_t>(), x.numel(), feed.scale,
                       feed.zeroPoint);
    return out;
}

Status IsolatedComparator::addFloatValue(const std::string &name, const Tensor &value,
                                         ValueSweep &sweep) {
    Impl &p = *m_impl;
    // Each value counts once per batch, even when handed over twice (e.g. a graph input that is
    // both in the batch and among the captured float values).
    if (!p.needed.count(name) || !p.delivered.insert(name).second) return Status::ok();
    auto outputs = p.outputUsers.find(name);
    if (outputs != p.outputUsers.end())
        for (int index : outputs->second) {
            LayerRun &run = p.runs[index];
            if (!run.ran && run.missingInputs == 0) p.runLayer(index);  // a layer without inputs
            if (run.ran)
                p.compareOutput(index, value, &sweep);
            else
                run.earlyFloatOutput = value;
        }
    auto inputs = p.inputUsers.find(name);
    if (inputs == p.inputUsers.end()) return Status::ok();
    std::vector<std::pair<const QuantizedFeed *, Tensor>> quantized;  // one per parameters
    for (const auto &[index, k] : inputs->second) {
        LayerRun &run = p.runs[index];
        const LayerInput &in = run.inputs[k];
        Tensor feed = value;
        if (in.quantized) {
            auto same = std::find_if(quantized.begin(), quantized.end(), [&](const auto &q) {
                return q.first->type == in.quantized->type &&
                       q.first->scale == in.quantized->scale &&
                       q.first->zeroPoint == in.quantized->zeroPoint;
            });
            if (same == quantized.end()) {
                quantized.emplace_back(&*in.quantized, p.quantizedFeed(value, *in.quantized, sweep));
                same = quantized.end() - 1;
            }
            feed = same->second;
        }
        run.feeds[in.graphInput] = feed;
        if (--run.missingInputs == 0) p.ready.push_back(index);
    }
    return Status::ok();
}

Status IsolatedComparator::runReadyLayers() {
    Impl &p = *m_impl;
    const std::vector<int> ready = std::move(p.ready);
    p.ready.clear();
    for (int index : ready) p.runLayer(index);
    // Layer failures become notes; a Cancel that stopped a layer's plan must stop the analysis.
    return stopRequested() ? stoppedStatus() : Status::ok();
}

Status IsolatedComparator::addFloatValue(const std::string &name, const Tensor &value) {
    ValueSweep sweep;
    QL_RETURN_IF_ERROR(addFloatValue(name, value, sweep));
    QL_RETURN_IF_ERROR(sweep.run(value).withContext("float value '" + name + "'"));
    return runReadyLayers();
}

Status IsolatedComparator::endBatch(int64_t samples) {
    Impl &p = *m_impl;
    for (size_t i = 0; i < p.runs.size(); ++i) {
        const LayerRun &run = p.runs[i];
        if (!run.active || (run.ran && run.compared)) continue;
        std::string missing;
        for (const LayerInput &in : run.inputs)
            if (!p.delivered.count(in.floatValue))
                missing += (missing.empty() ? "'" : ", '") + in.floatValue + "'";
        if (!p.delivered.count(run.floatOutput))
            missing += (missing.empty() ? "'" : ", '") + run.floatOutput + "'";
        beginBatch();  // drops what is left
        return Status::internal("isolated comparison: layer '" + p.layers[i].match.floatNode +
                                "' did not get the float value(s) " + missing);
    }
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

#include "analysis/session/incremental_suite.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>

#include "analysis/suite/activation_comparison.h"
#include "analysis/session/graph_diff.h"
#include "analysis/suite/isolated_comparison.h"
#include "analysis/session/layer_changes.h"
#include "analysis/pairing/layer_matching.h"
#include "analysis/suite/report_rows.h"
#include "analysis/suite/weight_comparison.h"
#include "analysis/pairing/weight_evidence.h"
#include "passes/precision.h"
#include "runtime/buffer_pool.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {
namespace {

constexpr const char *kStoppedEarly = "incremental analysis: stopped early, as the caller asked";

// What the budget let a batch keep: everything (whole), the float outputs alone, or nothing.
struct BatchCache {
    bool whole = false, outputs = false;
    std::map<std::string, Tensor> floatValues;  // what the cumulative comparison reads
    std::vector<Tensor> floatOutputs;
    std::map<std::string, Tensor> quantValues;  // every node output of the lowered quantized model
};

size_t bytesOf(const std::map<std::string, Tensor> &values) {
    size_t n = 0;
    for (const auto &[name, t] : values) n += t.byteSize();
    return n;
}

// A value as the caches keep it: in its own buffer when it fills most of it, else as a tight
// copy. The pool hands out the smallest free buffer that fits, which may be many times larger
// (resnet50: 136 MB of values held 1.1 GB of buffers).
Tensor keptValue(const Tensor &value) {
    const auto &storage = value.storage();
    const size_t bytes = value.byteSize();
    return !storage || storage->capacity() <= bytes + bytes / 4 ? value : value.clone();
}

std::map<std::string, Tensor> keptValues(const std::map<std::string, Tensor> &values) {
    std::map<std::string, Tensor> kept;
    for (const auto &[name, t] : values) kept.emplace(name, keptValue(t));
    return kept;
}

size_t bytesOf(const std::vector<Tensor> &values) {
    size_t n = 0;
    for (const auto &t : values) n += t.byteSize();
    return n;
}

ActivationComparisonOptions comparisonOptions(const NumericSuiteOptions &options) {
    ActivationComparisonOptions c;
    c.precision = options.quantPrecision;
    c.int8Kernels = options.int8Kernels;
    c.threads = options.threads;
    c.labels = options.labels;
    c.compareLayers = options.compareLayers;
    return c;
}

IsolatedComparisonOptions isolatedOptions(const NumericSuiteOptions &options) {
    IsolatedComparisonOptions o;  // as runNumericSuite sets them
    o.int8Kernels = options.int8Kernels;
    o.kernelCheck = options.kernelCheck;
    o.kernelCheckSamples = options.kernelCheckSamples;
    o.kernelMismatchDb = kKernelMismatchDb;
    o.threads = options.threads;
    return o;
}

// QL_SESSION_TRACE=1 prints the time of each step of an update to stderr.
struct Trace {
    bool on = std::getenv("QL_SESSION_TRACE") != nullptr;
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    void step(const char *what) {
        if (!on) return;
        const auto now = std::chrono::steady_clock::now();
        std::fprintf(stderr, "  %-22s %8.1f ms\n", what,
                     std::chrono::duration<double, std::milli>(now - last).count());
        last = now;
    }
};

// One quantized model and what the suite knows of it.
struct ModelState {
    Graph quant;    // as given
    Graph lowered;  // as the comparison runs it
    LayerMatching matching;
    std::vector<std::string> reads;  // the plan value each match reads
    NumericSuiteReport report;
    std::map<std::string, size_t> rows;  // float node -> index of its match and report row

    void indexRows() {
        rows.clear();
        for (size_t i = 0; i < matching.matches.size(); ++i)
            rows[matching.matches[i].floatNode] = i;
    }
    int rowOf(const std::string &floatNode) const {
        auto it = rows.find(floatNode);
        return it == rows.end() ? -1 : static_cast<int>(it->second);
    }
};

// How a new model differs from a known one.
struct Delta {
    std::vector<bool> dirty;  // per lowered node of the new model: its values differ
    std::set<std::string> dirtyValues;
    std::vector<bool> changed;  // per node of the new model as given
};

Delta deltaFrom(const ModelState &known, const Graph &quant, const Graph &lowered) {
    Delta delta;
    delta.dirty = downstreamOf(lowered, changedNodes(known.lowered, lowered));
    for (size_t i = 0; i < lowered.nodes.size(); ++i)
        if (delta.dirty[i])
            for (const auto &out : lowered.nodes[i].outputs) delta.dirtyValues.insert(out);
    delta.changed = changedNodes(known.quant, quant);
    return delta;
}

// A layer the known model does not have differs in every figure.
bool cumulativeDiffers(const ModelState &known, const Delta &delta, const Graph &quant,
                       const LayerMatch &m, const std::string &read) {
    const int k = known.rowOf(m.floatNode);
    return k < 0 || !sameMatch(m, known.matching.matches[k]) || read != known.reads[k] ||
           delta.dirtyValues.count(read) || plumbingChanged(quant, delta.changed, m.quantOutput);
}

bool weightsDiffer(const ModelState &known, const Delta &delta, const Graph &quant,
                   const LayerMatch &m) {
    const int k = known.rowOf(m.floatNode);
    return k < 0 || !sameMatch(m, known.matching.matches[k]) ||
           unitChanged(quant, delta.changed, m);
}

}  // namespace

struct IncrementalCacheRecorder::State {
    size_t budget = 0, batches = 0;
    size_t bytes = 0;       // of the finished batches
    size_t batchBytes = 0;  // of the quantized values of the batch being recorded
    bool started = false;
    bool wholeOver = false;  // no more batches are held whole
    LayerMatching matching;
    Graph lowered;
    std::vector<std::string> reads;
    std::vector<BatchCache> cache;
    BatchCache batch;  // the batch being recorded

    void stopWhole() {  // the memory goes back at once
        wholeOver = true;
        batch = {};
        batchBytes = 0;
    }
};

IncrementalCacheRecorder::IncrementalCacheRecorder(size_t budgetBytes, size_t batches)
    : m_state(std::make_unique<State>()) {
    m_state->budget = budgetBytes;
    m_state->batches = batches;
}
IncrementalCacheRecorder::~IncrementalCacheRecorder() = default;

void IncrementalCacheRecorder::begin(const LayerMatching &matching,
                                     const CumulativeComparison &comparison) {
    State &r = *m_state;
    const size_t budget = r.budget, batches = r.batches;
    r = State{};
    r.budget = budget;
    r.batches = batches;
    r.started = true;
    r.matching = matching;
    r.lowered = comparison.quantPlanGraph();
    for (size_t i = 0; i < matching.matches.size(); ++i)
        r.reads.push_back(comparison.quantValueRead(i));
}

bool IncrementalCacheRecorder::wantsQuantValues() const {
    return m_state->started && !m_state->wholeOver;
}

void IncrementalCacheRecorder::quantValue(const Node &node, size_t index, const Tensor &value) {
    State &r = *m_state;
    if (!wantsQuantValues()) return;
    Tensor &slot = r.batch.quantValues[node.outputs[index]];
    r.batchBytes += value.byteSize() - (slot.defined() ? slot.byteSize() : 0);
    slot = keptValue(value);  // as stored: the pool does not reuse referenced buffers
    // Bytes only grow until the batch ends: over now means over at the batch's end.
    if (r.bytes + r.batchBytes > r.budget) r.stopWhole();
}

void IncrementalCacheRecorder::endBatch(const std::map<std::string, Tensor> &floatValues,
                                        const std::vector<Tensor> &floatOutputs) {
    State &r = *m_state;
    if (!r.started) return;
    const size_t outputBytes = bytesOf(floatOutputs);
    // Room for the float outputs of the batches still to come, which save a float pass each.
    const size_t later = r.batches > r.cache.size() + 1 ? r.batches - r.cache.size() - 1 : 0;
    BatchCache kept;
    if (!r.wholeOver &&
        r.bytes + r.batchBytes + bytesOf(floatValues) + outputBytes * (1 + later) <= r.budget) {
        kept = std::move(r.batch);
        kept.whole = true;
        // Shared, not copied: the suite captures the next batch into new buffers while these
        // are referenced.
        kept.floatValues = keptValues(floatValues);
        r.bytes += r.batchBytes + bytesOf(floatValues);
    } else {
        r.stopWhole();
    }
    if (r.bytes + outputBytes <= r.budget) {
        kept.outputs = true;
        for (const Tensor &t : floatOutputs) kept.floatOutputs.push_back(keptValue(t));
        r.bytes += outputBytes;
    }
    r.cache.push_back(std::move(kept));
    r.batch = {};
    r.batchBytes = 0;
}

struct IncrementalSuite::Impl {
    const Graph *floatGraph = nullptr;
    const std::vector<std::map<std::string, Tensor>> *batches = nullptr;
    std::vector<BatchCache> cache;  // float values and outputs; the base model's values
    size_t budget = 0, cacheBytes = 0;  // cacheBytes: of `cache`
    // Per batch held whole, the current model's values that differ from the base model's, kept
    // when they fit in what the caches leave of the budget. Without them (overlayKept false) an
    // update re-runs every node dirty against the base model.
    std::vector<std::map<std::string, Tensor>> overlay;
    bool overlayKept = true;
    ModelState base, current;
    int lastRerun = 0;
    // The buffers of every update's plans, kept from one update to the next: the values an
    // update re-runs replace the previous update's, whose memory is then reused instead of
    // fresh pages (a page fault costs microseconds; a toggle of an early layer re-runs hundreds
    // of megabytes).
    std::shared_ptr<BufferPool> updateBuffers = std::make_shared<BufferPool>();
    WeightCorrelationMemo correlations;  // every update matches the models again
};

IncrementalSuite::IncrementalSuite() : m_impl(std::make_unique<Impl>()) {}
IncrementalSuite::~IncrementalSuite() = default;
size_t IncrementalSuite::cachedBytes() const {
    size_t n = 0;
    for (const auto &b : m_impl->cache)
        n += bytesOf(b.floatValues) + bytesOf(b.quantValues) + bytesOf(b.floatOutputs);
    for (const auto &o : m_impl->overlay) n += bytesOf(o);
    return n;
}
int IncrementalSuite::lastRerunNodes() const {
    return m_impl->lastRerun;
}
size_t IncrementalSuite::wholeBatches() const {
    return static_cast<size_t>(std::count_if(m_impl->cache.begin(), m_impl->cache.end(),
                                             [](const BatchCache &c) { return c.whole; }));
}

// Runs both models over the batches and records their values as the suite's own passes would.
Result<std::unique_ptr<IncrementalSuite>> IncrementalSuite::create(
    const Graph &floatGraph, const Graph &quantGraph,
    const std::vector<std::map<std::string, Tensor>> &batches, NumericSuiteReport report,
    const NumericSuiteOptions &options, size_t budgetBytes) {
    auto matching = matchLayers(floatGraph, quantGraph);
    if (!matching) return matching.status();
    auto comparison = CumulativeComparison::create(floatGraph, quantGraph, *matching,
                                                   comparisonOptions(options));
    if (!comparison) return comparison.status();
    std::set<std::string> wanted = (*comparison)->floatValuesNeeded();
    if (options.isolated || options.kernelCheck) {
        // The float inputs of every layer, for re-running the isolated comparison of a changed one.
        auto isolated = IsolatedComparator::create(floatGraph, quantGraph, *matching,
                                                   isolatedOptions(options));
        if (!isolated) return isolated.status().withContext("isolated comparison");
        wanted.insert((*isolated)->floatValuesNeeded().begin(),
                      (*isolated)->floatValuesNeeded().end());
    }
    auto floatPlan = createFloatPlan(floatGraph, options.threads, wanted);
    if (!floatPlan) return floatPlan.status();
    IncrementalCacheRecorder recorder(budgetBytes, batches.size());
    recorder.begin(*matching, **comparison);
    std::map<std::string, Tensor> floatValues;
    std::vector<Tensor> floatOutputs, quantOutputs;
    for (size_t b = 0; b < batches.size(); ++b) {
        QL_RETURN_IF_ERROR(runAndCapture(**floatPlan, batches[b], wanted, floatValues, floatOutputs)
                               .withContext("float model"));
        RunOptions run;
        run.tapStoredLayout = true;  // kept as stored: the pool does not reuse referenced buffers
        if (recorder.wantsQuantValues())
            run.tap = [&recorder](const Node &node, size_t index, const Tensor &value) {
                recorder.quantValue(node, index, value);
            };
        QL_RETURN_IF_ERROR((*comparison)->runQuantPlan(batches[b], quantOutputs, run));
        recorder.endBatch(floatValues, floatOutputs);
        if (options.progress &&
            !options.progress("cache", static_cast<int>(b + 1), static_cast<int>(batches.size())))
            return Status::error(ErrorKind::Cancelled, "analysis cancelled");
    }
    return create(floatGraph, quantGraph, batches, std::move(report), std::move(recorder));
}

Result<std::unique_ptr<IncrementalSuite>> IncrementalSuite::create(
    const Graph &floatGraph, const Graph &quantGraph,
    const std::vector<std::map<std::string, Tensor>> &batches, NumericSuiteReport report,
    IncrementalCacheRecorder &&recorded) {
    IncrementalCacheRecorder::State &r = *recorded.m_state;
    if (!r.started || r.cache.size() != batches.size() || batches.empty())
        return Status::internal("incremental analysis: the recording does not cover the batches");
    std::unique_ptr<IncrementalSuite> self(new IncrementalSuite());
    Impl &d = *self->m_impl;
    d.floatGraph = &floatGraph;
    d.batches = &batches;
    d.base.quant = quantGraph;
    d.base.report = std::move(report);
    d.base.matching = std::move(r.matching);
    d.base.lowered = std::move(r.lowered);
    d.base.reads = std::move(r.reads);
    d.cache = std::move(r.cache);
    d.budget = r.budget;
    d.cacheBytes = r.bytes;
    d.overlay.resize(batches.size());
    r = IncrementalCacheRecorder::State{};
    d.base.indexRows();
    d.current = d.base;
    return self;
}

Result<NumericSuiteReport> IncrementalSuite::update(const Graph &quantGraph,
                                                    const NumericSuiteOptions &options) {
    Impl &d = *m_impl;
    const Graph &floatGraph = *d.floatGraph;
    Trace trace;
    auto matching = matchLayers(floatGraph, quantGraph, &d.correlations);
    if (!matching) return matching.status();
    auto comparison =
        CumulativeComparison::create(floatGraph, quantGraph, *matching, comparisonOptions(options));
    if (!comparison) return comparison.status();
    CumulativeComparison &cmp = **comparison;
    const Graph &lowered = cmp.quantPlanGraph();
    trace.step("match + lower");

    // A value of the new model equals the base model's unless it is dirty against the base, and
    // the current model's (when the overlay holds them) unless it is dirty against it: only
    // nodes dirty against both re-run.
    const Delta fromBase = deltaFrom(d.base, quantGraph, lowered);
    const Delta fromCurrent = deltaFrom(d.current, quantGraph, lowered);
    std::vector<bool> rerun(lowered.nodes.size());
    std::set<std::string> rerunValues;
    int rerunCount = 0;
    for (size_t i = 0; i < lowered.nodes.size(); ++i) {
        rerun[i] = fromBase.dirty[i] && (fromCurrent.dirty[i] || !d.overlayKept);
        rerunCount += rerun[i];
        if (rerun[i])
            for (const auto &out : lowered.nodes[i].outputs) rerunValues.insert(out);
    }
    // Per layer, where each figure comes from: the base report, the current one, or a new run.
    enum Source { FromBase, FromCurrent, Recompute };
    std::vector<Source> cumulativeSource, weightSource, isolatedSource;
    std::vector<size_t> cumulativeRows, weightRows, isolatedRows;
    std::vector<std::string> reads;
    for (size_t i = 0; i < matching->matches.size(); ++i) {
        const LayerMatch &m = matching->matches[i];
        reads.push_back(cmp.quantValueRead(i));
        cumulativeSource.push_back(
            !cumulativeDiffers(d.base, fromBase, quantGraph, m, reads[i])         ? FromBase
            : !cumulativeDiffers(d.current, fromCurrent, quantGraph, m, reads[i]) ? FromCurrent
                                                                                  : Recompute);
        weightSource.push_back(!weightsDiffer(d.base, fromBase, quantGraph, m)         ? FromBase
                               : !weightsDiffer(d.current, fromCurrent, quantGraph, m) ? FromCurrent
                                                                                       : Recompute);
        // Isolated figures depend on the layer's own unit and quantizers only, not on upstream
        // layers.
        auto isolatedDiffers = [&](const ModelState &known, const Delta &delta) {
            return weightsDiffer(known, delta, quantGraph, m) ||
                   plumbingChanged(quantGraph, delta.changed, m.quantOutput);
        };
        isolatedSource.push_back(!isolatedDiffers(d.base, fromBase)         ? FromBase
                                 : !isolatedDiffers(d.current, fromCurrent) ? FromCurrent
                                                                            : Recompute);
        if (cumulativeSource[i] == Recompute) cumulativeRows.push_back(i);
        if (isolatedSource[i] == Recompute) isolatedRows.push_back(i);
        if (weightSource[i] == Recompute) weightRows.push_back(i);
    }
    trace.step("diff");

    // Batches held whole re-run only the dirty nodes; the others run the whole model, and the
    // float model too when they lack a float value a comparison reads (or their outputs).
    const auto whole = std::find_if(d.cache.begin(), d.cache.end(),
                                    [](const BatchCache &c) { return c.whole; });
    const BatchCache *firstWhole = whole == d.cache.end() ? nullptr : &*whole;
    const std::map<std::string, Tensor> *firstOverlay =
        firstWhole ? &d.overlay[static_cast<size_t>(whole - d.cache.begin())] : nullptr;
    // Float values a layer new to the matching compares may not be cached: then the caller
    // re-runs the whole suite.
    auto cached = [&](const std::string &name) {
        return !firstWhole || firstWhole->floatValues.count(name) != 0 ||
               d.batches->front().count(name) != 0;
    };
    std::set<std::string> floatNeeded;  // by a batch not held whole
    for (size_t i : cumulativeRows) {
        if (reads[i].empty()) continue;
        if (!cached(matching->matches[i].floatOutput))
            return Status::unsupported("incremental analysis: float value '" +
                                       matching->matches[i].floatOutput + "' is not cached");
        floatNeeded.insert(matching->matches[i].floatOutput);
    }
    // The changed layers alone on the float inputs (their own error, kernel check).
    std::unique_ptr<IsolatedComparator> isolated;
    std::vector<size_t> wantedRows;
    if (!isolatedRows.empty() && (options.isolated || options.kernelCheck)) {
        // With the layers that produce their inputs: the isolated graphs find the float
        // counterpart of an input through its producer's match. They are not run.
        std::set<std::string> producers;
        for (size_t i : isolatedRows) {
            const std::set<std::string> p = inputProducers(quantGraph, matching->matches[i]);
            producers.insert(p.begin(), p.end());
        }
        for (size_t j = 0; j < matching->matches.size(); ++j) {
            const LayerMatch &m = matching->matches[j];
            bool produces = producers.count(m.quantNode) != 0;
            for (const auto &f : m.foldedQuantNodes) produces = produces || producers.count(f);
            if (produces ||
                std::find(isolatedRows.begin(), isolatedRows.end(), j) != isolatedRows.end())
                wantedRows.push_back(j);
        }
        LayerMatching sub;
        for (size_t j : wantedRows) sub.matches.push_back(matching->matches[j]);
        IsolatedComparisonOptions subOptions = isolatedOptions(options);
        subOptions.bufferPool = d.updateBuffers;
        for (size_t i : isolatedRows) subOptions.onlyLayers.insert(matching->matches[i].floatNode);
        auto created = IsolatedComparator::create(floatGraph, quantGraph, sub, subOptions);
        if (!created) return created.status().withContext("isolated comparison");
        isolated = std::move(*created);
        floatNeeded.insert(isolated->floatValuesNeeded().begin(),
                           isolated->floatValuesNeeded().end());
    }
    trace.step("isolated");

    // The re-run of a batch held whole: nodes dirty against both models, fed the values that
    // cross the cut.
    std::unique_ptr<ExecutionPlan> plan;
    std::vector<std::string> cutInputs;
    if (rerunCount > 0 && firstWhole) {
        // The type of the value the batch loop feeds (`known` below): the overlay's only when the
        // value differs from the base (the overlay may hold another model's value by that name).
        auto typeOf = [&](const std::string &name) {
            using Values = const std::map<std::string, Tensor> *;
            const Values cached =
                fromBase.dirtyValues.count(name) ? firstOverlay : &firstWhole->quantValues;
            for (Values values : {cached, Values(&d.batches->front())}) {
                auto it = values->find(name);
                if (it != values->end()) return it->second.dtype();
            }
            return DataType::Undefined;
        };
        Subgraph sub = extractSubgraph(lowered, rerun, typeOf);
        cutInputs = sub.inputs;
        PlanOptions planOptions;
        planOptions.threads = options.threads;
        planOptions.bufferPool = d.updateBuffers;
        auto created = ExecutionPlan::create(std::move(sub.graph), planOptions);
        if (!created) return created.status().withContext("quantized model");
        plan = std::move(*created);
    }
    // The float model, for batches not held whole.
    std::unique_ptr<ExecutionPlan> floatPlan;
    const bool floatPass = std::any_of(d.cache.begin(), d.cache.end(), [&](const BatchCache &c) {
        return !c.whole && (!c.outputs || !floatNeeded.empty());
    });
    if (floatPass) {
        auto created = createFloatPlan(floatGraph, options.threads, floatNeeded, d.updateBuffers);
        if (!created) return created.status();
        floatPlan = std::move(*created);
    }
    trace.step("sub-plan");
    std::map<std::string, std::vector<size_t>>
        rowsReading;  // re-compared rows by the value they read
    for (size_t i : cumulativeRows)
        if (!reads[i].empty()) rowsReading[reads[i]].push_back(i);

    // The re-run values of batches held whole, for the next overlay while they fit.
    std::vector<std::map<std::string, Tensor>> fresh(d.cache.size());
    const size_t overlayRoom = d.budget > d.cacheBytes ? d.budget - d.cacheBytes : 0;
    size_t freshBytes = 0;
    bool keepFresh = true;
    double compareMs = 0.0;
    for (size_t b = 0; b < d.cache.size(); ++b) {
        const BatchCache &c = d.cache[b];
        const auto &inputs = (*d.batches)[b];
        const std::map<std::string, Tensor> *floatValues = &c.floatValues;
        const std::vector<Tensor> *floatOutputs = &c.floatOutputs;
        std::map<std::string, Tensor> floatRun;
        std::vector<Tensor> floatRunOutputs;
        if (!c.whole && (!c.outputs || !floatNeeded.empty())) {
            QL_RETURN_IF_ERROR(
                runAndCapture(*floatPlan, inputs, floatNeeded, floatRun, floatRunOutputs)
                    .withContext("float model"));
            floatValues = &floatRun;
            if (!c.outputs) floatOutputs = &floatRunOutputs;
        }
        if (isolated)
            QL_RETURN_IF_ERROR(
                isolated->addBatch(inputs, *floatValues).withContext("isolated comparison"));
        // A value of the new model that was not re-run: the current model's if it differs from
        // the base, else the base model's.
        auto known = [&](const std::string &name) -> const Tensor * {
            const auto &values = fromBase.dirtyValues.count(name) ? d.overlay[b] : c.quantValues;
            auto it = values.find(name);
            if (it != values.end()) return &it->second;
            auto in = inputs.find(name);
            return in != inputs.end() ? &in->second : nullptr;
        };
        Status tapStatus;
        RunOptions run;
        run.tapStoredLayout = true;  // as the full comparison sees them
        auto &out = fresh[b];
        run.tap = [&](const Node &node, size_t index, const Tensor &value) {
            const std::string &name = node.outputs[index];
            if (c.whole && keepFresh) {
                Tensor kept = keptValue(value);  // as stored: the pool does not reuse it
                freshBytes += kept.byteSize();
                keepFresh = freshBytes <= overlayRoom;
                if (keepFresh)
                    out[name] = std::move(kept);
                else
                    for (auto &values : fresh) values.clear();
            }
            auto rows = rowsReading.find(name);
            if (rows == rowsReading.end() || !tapStatus.isOk()) return;
            const auto start = std::chrono::steady_clock::now();
            tapStatus = cmp.addQuantValue(name, value, *floatValues, rows->second);
            compareMs += std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count();
        };
        std::vector<Tensor> quantOutputs;
        if (!c.whole) {
            QL_RETURN_IF_ERROR(cmp.runQuantPlan(inputs, quantOutputs, run));
            QL_RETURN_IF_ERROR(tapStatus);
            for (const auto &[name, rows] : rowsReading) {  // graph inputs pass no tap
                auto in = inputs.find(name);
                if (in != inputs.end())
                    QL_RETURN_IF_ERROR(cmp.addQuantValue(name, in->second, *floatValues, rows));
            }
        } else {
            std::vector<Tensor> subOutputs;
            if (plan) {
                std::map<std::string, Tensor> feed;
                for (const auto &name : cutInputs) {
                    const Tensor *t = known(name);
                    if (!t)
                        return Status::internal("incremental analysis: value '" + name +
                                                "' is not cached");
                    feed[name] = *t;
                }
                const auto runStart = std::chrono::steady_clock::now();
                QL_RETURN_IF_ERROR(plan->run(feed, subOutputs, run).withContext("quantized model"));
                if (trace.on)
                    std::fprintf(stderr, "    batch %zu: %.1f ms\n", b,
                                 std::chrono::duration<double, std::milli>(
                                     std::chrono::steady_clock::now() - runStart)
                                     .count());
                QL_RETURN_IF_ERROR(tapStatus);
            }
            // Re-compared layers whose value was not re-run (a new quantizer on a known value).
            for (const auto &[name, rows] : rowsReading) {
                if (rerunValues.count(name)) continue;
                if (const Tensor *t = known(name))
                    QL_RETURN_IF_ERROR(cmp.addQuantValue(name, *t, *floatValues, rows));
            }
            const Graph *subGraph = plan ? &plan->graph() : nullptr;
            for (const auto &output : lowered.outputs) {
                if (rerunValues.count(output.name)) {
                    size_t k = 0;
                    while (k < subGraph->outputs.size() && subGraph->outputs[k].name != output.name)
                        ++k;
                    if (k >= subOutputs.size())
                        return Status::internal("incremental analysis: output '" + output.name +
                                                "' missing");
                    quantOutputs.push_back(subOutputs[k]);
                    continue;
                }
                const Tensor *t = known(output.name);
                if (!t)
                    return Status::internal("incremental analysis: output '" + output.name +
                                            "' is not cached");
                quantOutputs.push_back(*t);
            }
        }
        QL_RETURN_IF_ERROR(cmp.addOutputs(inputs, *floatOutputs, quantOutputs));
        if (options.keepGoing && !options.keepGoing(cmp.firstOutputTally(), static_cast<int>(b + 1),
                                                    static_cast<int>(d.cache.size())))
            return Status::error(ErrorKind::Cancelled, kStoppedEarly);
        if (options.progress && !options.progress("cumulative", static_cast<int>(b + 1),
                                                  static_cast<int>(d.cache.size())))
            return Status::error(ErrorKind::Cancelled, "analysis cancelled");
    }
    IsolatedComparisonResult shadow;
    if (isolated) {
        const IsolatedComparisonResult all = isolated->result();
        for (size_t i : isolatedRows) {
            const size_t k = static_cast<size_t>(
                std::find(wantedRows.begin(), wantedRows.end(), i) - wantedRows.begin());
            shadow.layers.push_back(all.layers.at(k));
        }
    }
    trace.step("re-run + compare");
    if (trace.on) std::fprintf(stderr, "    of which compare %.1f ms\n", compareMs);

    std::vector<LayerWeightComparison> weights;
    if (!weightRows.empty()) {
        LayerMatching sub;
        for (size_t i : weightRows) sub.matches.push_back(matching->matches[i]);
        auto compared = compareWeights(floatGraph, quantGraph, sub);
        if (!compared) return compared.status().withContext("weight comparison");
        weights = std::move(*compared);
    }
    trace.step("weights");

    // The new report, each figure from its source, assembled as runNumericSuite does.
    const ActivationComparisonResult activations = cmp.result();
    NumericSuiteReport report = d.current.report;
    report.layers.assign(matching->matches.size(), LayerReport{});
    const PrecisionByNode precision = precisionByNode(activations.precision);
    report.int8Layers = report.fp32Layers = report.otherLayers = 0;
    auto indexIn = [](const std::vector<size_t> &rows, size_t i) {
        return static_cast<size_t>(std::find(rows.begin(), rows.end(), i) - rows.begin());
    };
    for (size_t i = 0; i < report.layers.size(); ++i) {
        LayerReport &row = report.layers[i];
        const LayerMatch &match = matching->matches[i];
        // A row starts as the current report's (FromCurrent figures); a layer new to the
        // matching starts empty and has every figure recomputed.
        const int currentRow = d.current.rowOf(match.floatNode),
                  baseIndex = d.base.rowOf(match.floatNode);
        if (currentRow >= 0) row = d.current.report.layers[currentRow];
        // Only read for figures taken from the base, which exist only for layers it has.
        static const LayerReport kNoRow;
        const LayerReport &baseRow = baseIndex >= 0 ? d.base.report.layers[baseIndex] : kNoRow;
        if (cumulativeSource[i] == FromBase)
            copyCumulativeFigures(row, baseRow);
        else if (cumulativeSource[i] == Recompute)
            setCumulativeFigures(row, activations.layers[i], report.quantPrecision);
        if (isolatedSource[i] == FromBase) {
            copyIsolatedFigures(row, baseRow);
        } else if (isolatedSource[i] == Recompute) {
            // From the changed layer's own isolated run.
            const size_t k = indexIn(isolatedRows, i);
            setIsolatedFigures(row, k < shadow.layers.size() ? &shadow.layers[k] : nullptr,
                               options);
        }
        if (weightSource[i] == FromBase)
            copyWeightFigures(row, baseRow);
        else if (weightSource[i] == Recompute)
            setWeightFigures(row, weights[indexIn(weightRows, i)]);
        setLayerIdentity(row, floatGraph, match, precision);
        report.countLayer(row);
    }
    report.outputs = outputReports(activations);
    report.unmatched = unmatchedLayers(floatGraph, quantGraph, *matching);

    // Commit (nothing above changed the object): the overlay holds the new model's values that
    // differ from the base model's, if they fit; else there is none.
    std::vector<std::map<std::string, Tensor>> overlays(d.cache.size());
    size_t overlayBytes = 0;
    for (size_t b = 0; b < d.cache.size() && keepFresh; ++b) {
        for (const auto &name : fromBase.dirtyValues) {
            auto f = fresh[b].find(name);
            auto o = d.overlay[b].find(name);
            const Tensor *value = f != fresh[b].end()       ? &f->second
                                  : o != d.overlay[b].end() ? &o->second
                                                            : nullptr;
            if (!value) continue;
            overlayBytes += value->byteSize();
            overlays[b][name] = *value;
        }
    }
    d.overlayKept = keepFresh && overlayBytes <= overlayRoom;
    d.overlay = d.overlayKept ? std::move(overlays)
                              : std::vector<std::map<std::string, Tensor>>(d.cache.size());
    fresh.clear();
    plan.reset();
    floatPlan.reset();
    // What the dropped values and the plans held goes back to the system, beyond what the next
    // overlay may take.
    if (d.updateBuffers->totalBytes() > overlayRoom) d.updateBuffers->releaseUnused();
    d.current.quant = quantGraph;
    d.current.lowered = lowered;
    d.current.matching = std::move(*matching);
    d.current.reads = std::move(reads);
    d.current.report = report;
    d.current.indexRows();
    d.lastRerun = rerunCount;
    trace.step("report + commit");
    if (trace.on)
        std::fprintf(stderr, "  re-ran %d of %zu nodes, %zu layers re-compared, %zu weights\n",
                     rerunCount, lowered.nodes.size(), cumulativeRows.size(), weightRows.size());
    return report;
}

}  // namespace ql::analysis

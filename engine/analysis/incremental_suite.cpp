#include "analysis/incremental_suite.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>

#include "analysis/activation_comparison.h"
#include "analysis/graph_diff.h"
#include "analysis/layer_matching.h"
#include "analysis/weight_comparison.h"
#include "passes/precision.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {
namespace {

struct BatchCache {
    std::map<std::string, Tensor> floatValues;  // what the cumulative comparison reads
    std::vector<Tensor> floatOutputs;
    std::map<std::string, Tensor> quantValues;  // every node output of the lowered quantized model
};

size_t bytesOf(const std::map<std::string, Tensor> &values) {
    size_t n = 0;
    for (const auto &[name, t] : values) n += t.byteSize();
    return n;
}

ActivationComparisonOptions comparisonOptions(const NumericSuiteOptions &options) {
    ActivationComparisonOptions c;
    c.precision = options.quantPrecision;
    c.int8Kernels = options.int8Kernels;
    c.threads = options.threads;
    c.labels = options.labels;
    return c;
}

bool sameMatch(const LayerMatch &a, const LayerMatch &b) {
    return a.floatNode == b.floatNode && a.quantNode == b.quantNode && a.floatOutput == b.floatOutput &&
           a.quantOutput == b.quantOutput && a.foldedFloatNodes == b.foldedFloatNodes &&
           a.foldedQuantNodes == b.foldedQuantNodes;
}

// Whether a changed node lies on the plumbing (Q/DQ, Cast, Identity, constants) behind `value`,
// up to and including the first compute node: a new quantizer or weight of a layer.
bool plumbingChanged(const Graph &graph, const std::vector<bool> &changed, const std::string &value, int depth = 0) {
    const int p = graph.producerIndex(value);
    if (p < 0 || depth > 8) return false;
    if (changed[p]) return true;
    if (isComputeLayer(graph.nodes[p])) return false;
    for (const auto &in : graph.nodes[p].inputs)
        if (!in.empty() && plumbingChanged(graph, changed, in, depth + 1)) return true;
    return false;
}

int nodeIndex(const Graph &graph, const std::string &name) {
    for (size_t i = 0; i < graph.nodes.size(); ++i)
        if (graph.nodes[i].name == name) return static_cast<int>(i);
    return -1;
}

// The layer's quantized nodes, or a weight / quantizer behind their inputs, changed.
bool unitChanged(const Graph &graph, const std::vector<bool> &changed, const LayerMatch &match) {
    std::vector<std::string> unit = match.foldedQuantNodes;
    unit.push_back(match.quantNode);
    for (const auto &name : unit) {
        const int i = nodeIndex(graph, name);
        if (i < 0 || changed[i]) return true;
        for (const auto &in : graph.nodes[i].inputs)
            if (!in.empty() && plumbingChanged(graph, changed, in)) return true;
    }
    return false;
}

std::string opTypeOf(const Graph &graph, const std::string &node) {
    const Node *n = graph.findNode(node);
    return n ? n->opType : std::string();
}

std::optional<double> accuracy(int64_t correct, int64_t rows) {
    if (rows <= 0) return std::nullopt;
    return static_cast<double>(correct) / static_cast<double>(rows);
}

// QL_SESSION_TRACE=1 prints the time of each step of an update to stderr.
struct Trace {
    bool on = std::getenv("QL_SESSION_TRACE") != nullptr;
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    void step(const char *what) {
        if (!on) return;
        const auto now = std::chrono::steady_clock::now();
        std::fprintf(stderr, "  %-22s %8.1f ms\n", what, std::chrono::duration<double, std::milli>(now - last).count());
        last = now;
    }
};

bool startsWith(const std::string &s, const std::string &prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

struct IncrementalSuite::Impl {
    const Graph *floatGraph = nullptr;
    const std::vector<std::map<std::string, Tensor>> *batches = nullptr;
    std::vector<BatchCache> cache;
    Graph quant;    // the current quantized model as given
    Graph lowered;  // as the comparison runs it
    LayerMatching matching;
    std::vector<std::string> reads;  // the plan value each match reads
    NumericSuiteReport report;
    int lastRerun = 0;
};

IncrementalSuite::IncrementalSuite() : m_impl(std::make_unique<Impl>()) {}
IncrementalSuite::~IncrementalSuite() = default;
size_t IncrementalSuite::cachedBytes() const {
    size_t n = 0;
    for (const auto &b : m_impl->cache) {
        n += bytesOf(b.floatValues) + bytesOf(b.quantValues);
        for (const auto &t : b.floatOutputs) n += t.byteSize();
    }
    return n;
}
int IncrementalSuite::lastRerunNodes() const { return m_impl->lastRerun; }

Result<std::unique_ptr<IncrementalSuite>> IncrementalSuite::create(
    const Graph &floatGraph, const Graph &quantGraph, const std::vector<std::map<std::string, Tensor>> &batches,
    NumericSuiteReport report, const NumericSuiteOptions &options, size_t budgetBytes) {
    std::unique_ptr<IncrementalSuite> self(new IncrementalSuite());
    Impl &d = *self->m_impl;
    d.floatGraph = &floatGraph;
    d.batches = &batches;
    d.quant = quantGraph;
    d.report = std::move(report);
    auto matching = matchLayers(floatGraph, quantGraph);
    if (!matching) return matching.status();
    d.matching = std::move(*matching);
    auto comparison = CumulativeComparison::create(floatGraph, quantGraph, d.matching, comparisonOptions(options));
    if (!comparison) return comparison.status();
    d.lowered = (*comparison)->quantPlanGraph();
    for (size_t i = 0; i < d.matching.matches.size(); ++i) d.reads.push_back((*comparison)->quantValueRead(i));

    PlanOptions planOptions;
    planOptions.threads = options.threads;
    Graph floatPrepared = floatGraph;
    QL_RETURN_IF_ERROR(preparePrecision(floatPrepared, Precision::Fp32));
    auto floatPlan = ExecutionPlan::create(std::move(floatPrepared), planOptions);
    if (!floatPlan) return floatPlan.status().withContext("float model");
    auto quantPlan = ExecutionPlan::create(d.lowered, planOptions);
    if (!quantPlan) return quantPlan.status().withContext("quantized model");
    const std::set<std::string> &wanted = (*comparison)->floatValuesNeeded();
    size_t bytes = 0;
    d.cache.resize(batches.size());
    for (size_t b = 0; b < batches.size(); ++b) {
        BatchCache &c = d.cache[b];
        QL_RETURN_IF_ERROR(runAndCapture(**floatPlan, batches[b], wanted, c.floatValues, c.floatOutputs)
                               .withContext("float model"));
        RunOptions run;
        run.tap = [&c](const Node &node, size_t index, const Tensor &value) {
            c.quantValues[node.outputs[index]] = value.clone();
        };
        std::vector<Tensor> outputs;
        QL_RETURN_IF_ERROR((*quantPlan)->run(batches[b], outputs, run).withContext("quantized model"));
        bytes += bytesOf(c.floatValues) + bytesOf(c.quantValues);
        for (const auto &t : c.floatOutputs) bytes += t.byteSize();
        if (bytes > budgetBytes)
            return Status::unsupported("incremental analysis: the cached activations exceed " +
                                       std::to_string(budgetBytes >> 20) + " MiB");
        if (options.progress && !options.progress("cache", static_cast<int>(b + 1), static_cast<int>(batches.size())))
            return Status::error(ErrorKind::Cancelled, "analysis cancelled");
    }
    return self;
}

Result<NumericSuiteReport> IncrementalSuite::update(const Graph &quantGraph, const NumericSuiteOptions &options) {
    Impl &d = *m_impl;
    const Graph &floatGraph = *d.floatGraph;
    Trace trace;
    auto matching = matchLayers(floatGraph, quantGraph);
    if (!matching) return matching.status();
    if (matching->matches.size() != d.matching.matches.size())
        return Status::unsupported("incremental analysis: the layers changed");
    for (size_t i = 0; i < matching->matches.size(); ++i)
        if (matching->matches[i].floatNode != d.matching.matches[i].floatNode)
            return Status::unsupported("incremental analysis: the layers changed");

    auto comparison = CumulativeComparison::create(floatGraph, quantGraph, *matching, comparisonOptions(options));
    if (!comparison) return comparison.status();
    CumulativeComparison &cmp = **comparison;
    const Graph &lowered = cmp.quantPlanGraph();
    trace.step("match + lower");

    // What the change touches: lowered nodes to re-run, layers to re-compare.
    const std::vector<bool> rerun = downstreamOf(lowered, changedNodes(d.lowered, lowered));
    std::set<std::string> rerunValues;
    for (size_t i = 0; i < lowered.nodes.size(); ++i)
        if (rerun[i])
            for (const auto &out : lowered.nodes[i].outputs) rerunValues.insert(out);
    const std::vector<bool> changed = changedNodes(d.quant, quantGraph);
    std::vector<size_t> cumulativeRows, weightRows;
    std::vector<std::string> reads;
    for (size_t i = 0; i < matching->matches.size(); ++i) {
        const LayerMatch &m = matching->matches[i];
        reads.push_back(cmp.quantValueRead(i));
        const bool sameLayer = sameMatch(m, d.matching.matches[i]);
        if (!sameLayer || reads[i] != d.reads[i] || rerunValues.count(reads[i]) ||
            plumbingChanged(quantGraph, changed, m.quantOutput))
            cumulativeRows.push_back(i);
        if (!sameLayer || unitChanged(quantGraph, changed, m)) weightRows.push_back(i);
    }

    trace.step("diff");
    // The re-run: changed nodes and everything downstream, fed the cached values at the cut.
    std::unique_ptr<ExecutionPlan> plan;
    std::vector<std::string> cutInputs;
    int rerunCount = 0;
    for (bool r : rerun) rerunCount += r;
    if (rerunCount > 0) {
        auto typeOf = [&](const std::string &name) {
            auto it = d.cache.front().quantValues.find(name);
            if (it != d.cache.front().quantValues.end()) return it->second.dtype();
            auto in = d.batches->front().find(name);
            return in != d.batches->front().end() ? in->second.dtype() : DataType::Undefined;
        };
        Subgraph sub = extractSubgraph(lowered, rerun, typeOf);
        cutInputs = sub.inputs;
        PlanOptions planOptions;
        planOptions.threads = options.threads;
        auto created = ExecutionPlan::create(std::move(sub.graph), planOptions);
        if (!created) return created.status().withContext("quantized model");
        plan = std::move(*created);
    }
    trace.step("sub-plan");
    std::map<std::string, std::vector<size_t>> rowsReading;  // re-compared rows by the value they read
    for (size_t i : cumulativeRows)
        if (!reads[i].empty()) rowsReading[reads[i]].push_back(i);

    std::vector<std::map<std::string, Tensor>> fresh(d.cache.size());
    double cloneMs = 0.0, compareMs = 0.0;
    for (size_t b = 0; b < d.cache.size(); ++b) {
        const BatchCache &c = d.cache[b];
        const auto &inputs = (*d.batches)[b];
        std::vector<Tensor> subOutputs;
        if (plan) {
            std::map<std::string, Tensor> feed;
            for (const auto &name : cutInputs) {
                auto q = c.quantValues.find(name);
                if (q != c.quantValues.end()) {
                    feed[name] = q->second;
                    continue;
                }
                auto in = inputs.find(name);
                if (in == inputs.end()) return Status::internal("incremental analysis: value '" + name + "' is not cached");
                feed[name] = in->second;
            }
            Status tapStatus;
            RunOptions run;
            auto &out = fresh[b];
            run.tap = [&](const Node &node, size_t index, const Tensor &value) {
                const auto start = std::chrono::steady_clock::now();
                const std::string &name = node.outputs[index];
                out[name] = value.clone();
                const auto cloned = std::chrono::steady_clock::now();
                auto rows = rowsReading.find(name);
                if (rows != rowsReading.end() && tapStatus.isOk())
                    tapStatus = cmp.addQuantValue(name, value, c.floatValues, rows->second);
                cloneMs += std::chrono::duration<double, std::milli>(cloned - start).count();
                compareMs += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - cloned).count();
            };
            QL_RETURN_IF_ERROR(plan->run(feed, subOutputs, run).withContext("quantized model"));
            QL_RETURN_IF_ERROR(tapStatus);
        }
        // Re-compared layers whose value was not re-run (a new quantizer on an old value).
        for (const auto &[name, rows] : rowsReading) {
            if (rerunValues.count(name)) continue;
            auto q = c.quantValues.find(name);
            if (q != c.quantValues.end()) QL_RETURN_IF_ERROR(cmp.addQuantValue(name, q->second, c.floatValues, rows));
        }
        std::vector<Tensor> quantOutputs;
        const Graph &subGraph = plan ? plan->graph() : lowered;
        for (const auto &out : lowered.outputs) {
            if (rerunValues.count(out.name)) {
                size_t k = 0;
                while (k < subGraph.outputs.size() && subGraph.outputs[k].name != out.name) ++k;
                if (k >= subOutputs.size()) return Status::internal("incremental analysis: output '" + out.name + "' missing");
                quantOutputs.push_back(subOutputs[k]);
                continue;
            }
            auto q = c.quantValues.find(out.name);
            if (q == c.quantValues.end()) return Status::internal("incremental analysis: output '" + out.name + "' is not cached");
            quantOutputs.push_back(q->second);
        }
        QL_RETURN_IF_ERROR(cmp.addOutputs(inputs, c.floatOutputs, quantOutputs));
        if (options.progress && !options.progress("cumulative", static_cast<int>(b + 1), static_cast<int>(d.cache.size())))
            return Status::error(ErrorKind::Cancelled, "analysis cancelled");
    }

    trace.step("re-run + compare");
    if (trace.on) std::fprintf(stderr, "    of which clone %.1f ms, compare %.1f ms\n", cloneMs, compareMs);
    std::vector<LayerWeightComparison> weights;
    if (!weightRows.empty()) {
        LayerMatching sub;
        for (size_t i : weightRows) sub.matches.push_back(matching->matches[i]);
        auto compared = compareWeights(floatGraph, quantGraph, sub);
        if (!compared) return compared.status().withContext("weight comparison");
        weights = std::move(*compared);
    }

    trace.step("weights");
    // The new report: the previous one with the touched figures replaced, as runNumericSuite
    // assembles them.
    const ActivationComparisonResult activations = cmp.result();
    NumericSuiteReport report = d.report;
    std::map<std::string, const NodePrecision *> precision;
    for (const auto &entry : activations.precision.nodes) precision[entry.node] = &entry;
    report.int8Layers = report.fp32Layers = 0;
    std::vector<bool> redoCumulative(report.layers.size(), false), redoWeights(report.layers.size(), false);
    for (size_t i : cumulativeRows) redoCumulative[i] = true;
    for (size_t k = 0; k < weightRows.size(); ++k) {
        const size_t i = weightRows[k];
        redoWeights[i] = true;
        LayerReport &row = report.layers[i];
        const LayerWeightComparison &w = weights[k];
        row.weightSqnrDb.reset();
        row.weightChannelSqnrDb.clear();
        row.weightChannelMin.clear();
        row.weightChannelMax.clear();
        if (w.stats) {
            row.weightSqnrDb = w.stats->sqnrDb;
            row.weightChannelSqnrDb = w.stats->channelSqnrDb;
            row.weightChannelMin = w.stats->channelMin;
            row.weightChannelMax = w.stats->channelMax;
        }
    }
    for (size_t i = 0; i < report.layers.size(); ++i) {
        LayerReport &row = report.layers[i];
        const LayerMatch &m = matching->matches[i];
        row.quantName = m.quantNode;
        row.foldedFloatNodes = m.foldedFloatNodes;
        row.foldedQuantNodes = m.foldedQuantNodes;
        row.matchedBy = m.how;
        auto p = precision.find(m.quantNode);
        row.precision = p != precision.end() && p->second->int8 ? "int8" : "fp32";
        row.precisionReason = p != precision.end() ? p->second->reason : "not quantized in the model";
        (row.precision == "int8" ? report.int8Layers : report.fp32Layers) += 1;
        if (!redoCumulative[i] && !redoWeights[i]) continue;
        // Notes of the figures recomputed here are rebuilt; figures not recomputed here go.
        auto &notes = row.notes;
        notes.erase(std::remove_if(notes.begin(), notes.end(),
                                   [&](const std::string &n) {
                                       return (redoCumulative[i] && startsWith(n, "the quantized value '")) ||
                                              (redoWeights[i] && startsWith(n, "weight: "));
                                   }),
                    notes.end());
        if (redoCumulative[i]) {
            const LayerActivationComparison &a = activations.layers[i];
            row.cumulative.reset();
            if (a.observed)
                row.cumulative = a.metrics;
            else
                notes.push_back("the quantized value '" + a.match.quantOutput + "' does not exist when the model runs " +
                                report.quantPrecision);
            if (row.isolated || row.kernelVsReferenceSqnrDb) {
                row.isolated.reset();
                row.kernelVsReferenceSqnrDb.reset();
                row.kernelMismatch = false;
                notes.push_back("isolated figures are not recomputed after a toggle");
            }
        }
        if (redoWeights[i]) {
            for (size_t k = 0; k < weightRows.size(); ++k)
                if (weightRows[k] == i && !row.weightSqnrDb && weights[k].channelAxis >= 0 && !weights[k].note.empty())
                    notes.push_back("weight: " + weights[k].note);
        }
    }
    report.outputs.clear();
    for (const auto &out : activations.outputs) {
        OutputReport o;
        o.floatName = out.floatName;
        o.quantName = out.quantName;
        o.sqnrDb = out.metrics.sqnrDb;
        o.top1Agreement = out.top1Agreement;
        if (out.labelled) {
            o.floatAccuracy = accuracy(out.floatCorrect, out.rows);
            o.quantAccuracy = accuracy(out.quantCorrect, out.rows);
        }
        report.outputs.push_back(std::move(o));
    }
    report.unmatched.clear();
    for (const auto &name : matching->unmatchedFloat) report.unmatched.push_back({name, opTypeOf(floatGraph, name), "float"});
    for (const auto &name : matching->unmatchedQuant) report.unmatched.push_back({name, opTypeOf(quantGraph, name), "quant"});

    // Commit: nothing above changed the object.
    std::set<std::string> produced;
    for (const auto &node : lowered.nodes) produced.insert(node.outputs.begin(), node.outputs.end());
    for (size_t b = 0; b < d.cache.size(); ++b) {
        auto &values = d.cache[b].quantValues;
        for (auto it = values.begin(); it != values.end();)
            it = produced.count(it->first) ? std::next(it) : values.erase(it);
        for (auto &[name, t] : fresh[b]) values[name] = std::move(t);
    }
    d.lowered = lowered;
    d.quant = quantGraph;
    d.matching = std::move(*matching);
    d.reads = std::move(reads);
    d.report = report;
    d.lastRerun = rerunCount;
    trace.step("report + commit");
    if (trace.on)
        std::fprintf(stderr, "  re-ran %d of %zu nodes, %zu layers re-compared, %zu weights\n", rerunCount,
                     lowered.nodes.size(), cumulativeRows.size(), weightRows.size());
    return report;
}

}  // namespace ql::analysis

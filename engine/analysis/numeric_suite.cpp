#include "analysis/numeric_suite.h"

#include <map>

#include "analysis/isolated_comparison.h"
#include "analysis/layer_matching.h"
#include "analysis/weight_comparison.h"
#include "runtime/execution_plan.h"

namespace ql::analysis {
namespace {

std::string opTypeOf(const Graph &graph, const std::string &node) {
    const Node *n = graph.findNode(node);
    return n ? n->opType : std::string();
}

// Starts one report row per match with what needs no data: names, precision, weights.
std::vector<LayerReport> layerRows(const Graph &floatGraph, const LayerMatching &matching,
                                   const std::vector<LayerWeightComparison> &weights,
                                   const PrecisionReport &precision) {
    std::map<std::string, const NodePrecision *> byNode;
    for (const auto &entry : precision.nodes) byNode[entry.node] = &entry;
    std::vector<LayerReport> rows;
    for (size_t i = 0; i < matching.matches.size(); ++i) {
        const LayerMatch &match = matching.matches[i];
        LayerReport row;
        row.name = match.floatNode;
        row.quantName = match.quantNode;
        row.opType = opTypeOf(floatGraph, match.floatNode);
        row.foldedFloatNodes = match.foldedFloatNodes;
        row.foldedQuantNodes = match.foldedQuantNodes;
        row.matchedBy = match.how;
        auto p = byNode.find(match.quantNode);
        row.precision = p != byNode.end() && p->second->int8 ? "int8" : "fp32";
        row.precisionReason = p != byNode.end() ? p->second->reason : "not quantized in the model";
        const LayerWeightComparison &w = weights[i];
        if (w.stats) {
            row.weightSqnrDb = w.stats->sqnrDb;
            row.weightChannelSqnrDb = w.stats->channelSqnrDb;
            row.weightChannelMin = w.stats->channelMin;
            row.weightChannelMax = w.stats->channelMax;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::optional<double> accuracy(int64_t correct, int64_t rows) {
    if (rows <= 0) return std::nullopt;
    return static_cast<double>(correct) / static_cast<double>(rows);
}

}  // namespace

std::vector<OutputReport> outputReports(const ActivationComparisonResult &activations) {
    std::vector<OutputReport> outputs;
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
        outputs.push_back(std::move(o));
    }
    return outputs;
}

std::vector<UnmatchedLayer> unmatchedLayers(const Graph &floatGraph, const Graph &quantGraph,
                                            const LayerMatching &matching) {
    std::vector<UnmatchedLayer> unmatched;
    for (const auto &name : matching.unmatchedFloat) unmatched.push_back({name, opTypeOf(floatGraph, name), "float"});
    for (const auto &name : matching.unmatchedQuant) unmatched.push_back({name, opTypeOf(quantGraph, name), "quant"});
    return unmatched;
}

Result<NumericSuiteReport> runNumericSuite(const Graph &floatGraph, const Graph &quantGraph,
                                           const BatchSourceFactory &inputs, const NumericSuiteOptions &options) {
    if (!inputs) return Status::badInput("numeric suite: no inputs");
    auto matching = matchLayers(floatGraph, quantGraph);
    if (!matching) return matching.status();
    auto weights = compareWeights(floatGraph, quantGraph, *matching);
    if (!weights) return weights.status().withContext("weight comparison");
    if (options.progress && !options.progress("weights", 1, 1))
        return Status::error(ErrorKind::Cancelled, "analysis cancelled");

    ActivationComparisonOptions cumulativeOptions;
    cumulativeOptions.precision = options.quantPrecision;
    cumulativeOptions.int8Kernels = options.int8Kernels;
    cumulativeOptions.threads = options.threads;
    cumulativeOptions.labels = options.labels;
    auto cumulative = CumulativeComparison::create(floatGraph, quantGraph, *matching, cumulativeOptions);
    if (!cumulative) return cumulative.status();

    std::unique_ptr<IsolatedComparator> isolated;
    if (options.isolated || options.kernelCheck) {
        IsolatedComparisonOptions isolatedOptions;
        isolatedOptions.int8Kernels = options.int8Kernels;
        isolatedOptions.kernelCheck = options.kernelCheck;
        isolatedOptions.kernelCheckBatches = options.kernelCheckBatches;
        isolatedOptions.kernelMismatchDb = kKernelMismatchDb;
        isolatedOptions.threads = options.threads;
        auto created = IsolatedComparator::create(floatGraph, quantGraph, *matching, isolatedOptions);
        if (!created) return created.status().withContext("isolated comparison");
        isolated = std::move(*created);
    }

    // One float pass per batch serves every comparison.
    auto floatPlan = createFloatPlan(floatGraph, options.threads);
    if (!floatPlan) return floatPlan.status();
    std::set<std::string> wanted = (*cumulative)->floatValuesNeeded();
    if (isolated) wanted.insert(isolated->floatValuesNeeded().begin(), isolated->floatValuesNeeded().end());

    auto source = inputs();
    if (!source) return source.status();
    std::map<std::string, Tensor> batch, floatValues;
    std::vector<Tensor> floatOutputs;
    for (int done = 1;; ++done) {
        batch.clear();
        auto more = (*source)(batch);
        if (!more) return more.status();
        if (!*more) break;
        QL_RETURN_IF_ERROR(runAndCapture(**floatPlan, batch, wanted, floatValues, floatOutputs).withContext("float model"));
        QL_RETURN_IF_ERROR((*cumulative)->addBatch(batch, floatValues, floatOutputs));
        if (isolated) QL_RETURN_IF_ERROR(isolated->addBatch(batch, floatValues).withContext("isolated comparison"));
        if (options.progress && !options.progress("cumulative", done, options.expectedBatches))
            return Status::error(ErrorKind::Cancelled, "analysis cancelled");
    }
    const ActivationComparisonResult activations = (*cumulative)->result();
    if (activations.samples == 0) return Status::badInput("numeric suite: the inputs hold no samples");
    if (!options.labels.empty() && !activations.outputs.empty() &&
        activations.outputs[0].rows != static_cast<int64_t>(options.labels.size()))
        return Status::badInput("labels: " + std::to_string(options.labels.size()) + " labels for " +
                                std::to_string(activations.outputs[0].rows) + " samples");

    NumericSuiteReport report;
    report.samples = activations.samples;
    report.quantPrecision = precisionName(options.quantPrecision);
    report.int8Kernels = int8KernelsName(options.int8Kernels);
    report.layers = layerRows(floatGraph, *matching, *weights, activations.precision);
    for (size_t i = 0; i < report.layers.size(); ++i) {
        LayerReport &row = report.layers[i];
        const LayerActivationComparison &a = activations.layers[i];
        if (a.observed)
            row.cumulative = a.metrics;
        else
            row.notes.push_back("the quantized value '" + a.match.quantOutput + "' does not exist when the model runs " +
                                report.quantPrecision);
        if (!row.weightSqnrDb && (*weights)[i].channelAxis >= 0 && !(*weights)[i].note.empty())
            row.notes.push_back("weight: " + (*weights)[i].note);
        (row.precision == "int8" ? report.int8Layers : report.fp32Layers) += 1;
    }
    if (isolated) {
        const IsolatedComparisonResult shadow = isolated->result();
        for (size_t i = 0; i < report.layers.size() && i < shadow.layers.size(); ++i) {
            LayerReport &row = report.layers[i];
            const LayerIsolatedComparison &l = shadow.layers[i];
            if (options.isolated && l.metrics) row.isolated = l.metrics;
            if (options.kernelCheck && l.kernelVsReferenceSqnrDb) {
                row.kernelVsReferenceSqnrDb = l.kernelVsReferenceSqnrDb;
                row.kernelMismatch = l.kernelMismatch;
            }
            if (!l.note.empty()) row.notes.push_back("isolated: " + l.note);
        }
    }
    report.outputs = outputReports(activations);
    report.unmatched = unmatchedLayers(floatGraph, quantGraph, *matching);
    return report;
}

}  // namespace ql::analysis

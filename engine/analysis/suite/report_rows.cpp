#include "analysis/suite/report_rows.h"

#include <algorithm>

namespace ql::analysis {
namespace {

// Note kinds by prefix, in their order in a row.
constexpr const char *kCumulativeNote = "the quantized value '";
constexpr const char *kWeightNote = "weight: ";
constexpr const char *kIsolatedNote = "isolated: ";

bool startsWith(const std::string &s, const std::string &prefix) {
    return s.rfind(prefix, 0) == 0;
}

int noteRank(const std::string &note) {
    if (startsWith(note, kCumulativeNote)) return 0;
    if (startsWith(note, kWeightNote)) return 1;
    if (startsWith(note, kIsolatedNote)) return 2;
    return 3;
}

// Replaces the notes of one kind with `from`'s notes of that kind, keeping the row's order.
void replaceNotes(LayerReport &to, const std::vector<std::string> &from, const char *prefix) {
    auto &notes = to.notes;
    notes.erase(std::remove_if(notes.begin(), notes.end(),
                               [&](const std::string &n) { return startsWith(n, prefix); }),
                notes.end());
    for (const auto &n : from)
        if (startsWith(n, prefix)) notes.push_back(n);
    std::stable_sort(notes.begin(), notes.end(), [](const std::string &a, const std::string &b) {
        return noteRank(a) < noteRank(b);
    });
}

}  // namespace

std::string nodeOpType(const Graph &graph, const std::string &node) {
    const Node *n = graph.findNode(node);
    return n ? n->opType : std::string();
}

PrecisionByNode precisionByNode(const PrecisionReport &precision) {
    PrecisionByNode byNode;
    for (const auto &entry : precision.nodes) byNode[entry.node] = &entry;
    return byNode;
}

void setLayerIdentity(LayerReport &row, const Graph &floatGraph, const LayerMatch &match,
                      const PrecisionByNode &precision) {
    row.name = match.floatNode;
    row.quantName = match.quantNode;
    row.opType = nodeOpType(floatGraph, match.floatNode);
    row.foldedFloatNodes = match.foldedFloatNodes;
    row.foldedQuantNodes = match.foldedQuantNodes;
    row.matchedBy = match.how;
    row.matchConfidence = match.confidence;
    auto p = precision.find(match.quantNode);
    row.precision = p == precision.end()             ? "fp32"
                    : p->second->int8                ? "int8"
                    : p->second->quantizedAs.empty() ? "fp32"
                                                     : p->second->quantizedAs;
    row.precisionReason = p != precision.end() ? p->second->reason : "not quantized in the model";
}

void setCumulativeFigures(LayerReport &row, const LayerActivationComparison &compared,
                          const std::string &quantPrecision) {
    std::vector<std::string> notes;
    if (compared.observed) {
        row.cumulative = compared.metrics;
        row.sampleRanges = compared.sampleRanges;
        row.outputChannelMaxima = compared.channelMaxima;
        row.outputChannelMeanError = compared.channelMeanError;
    } else {
        row.cumulative.reset();
        row.sampleRanges = {};
        row.outputChannelMaxima.clear();
        row.outputChannelMeanError.clear();
        notes.push_back(kCumulativeNote + compared.match.quantOutput +
                        (compared.compared
                             ? "' does not exist when the model runs " + quantPrecision
                             : "' was not compared: this analysis compares the outputs only"));
    }
    replaceNotes(row, notes, kCumulativeNote);
}

void setWeightFigures(LayerReport &row, const LayerWeightComparison &compared) {
    row.weightSqnrDb.reset();
    row.weightChannelSqnrDb.clear();
    row.weightChannelMin.clear();
    row.weightChannelMax.clear();
    std::vector<std::string> notes;
    if (compared.stats) {
        row.weightSqnrDb = compared.stats->sqnrDb;
        row.weightChannelSqnrDb = compared.stats->channelSqnrDb;
        row.weightChannelMin = compared.stats->channelMin;
        row.weightChannelMax = compared.stats->channelMax;
    } else if (compared.channelAxis >= 0 && !compared.note.empty()) {
        notes.push_back(kWeightNote + compared.note);
    }
    replaceNotes(row, notes, kWeightNote);
}

void setIsolatedFigures(LayerReport &row, const LayerIsolatedComparison *compared,
                        const NumericSuiteOptions &options) {
    row.isolated.reset();
    row.kernelVsReferenceSqnrDb.reset();
    row.kernelMismatch = false;
    std::vector<std::string> notes;
    if (compared) {
        if (options.isolated && compared->metrics) row.isolated = compared->metrics;
        if (options.kernelCheck && compared->kernelVsReferenceSqnrDb) {
            row.kernelVsReferenceSqnrDb = compared->kernelVsReferenceSqnrDb;
            row.kernelMismatch = compared->kernelMismatch;
        }
        if (!compared->note.empty()) notes.push_back(kIsolatedNote + compared->note);
    }
    replaceNotes(row, notes, kIsolatedNote);
}

void copyCumulativeFigures(LayerReport &to, const LayerReport &from) {
    to.cumulative = from.cumulative;
    to.sampleRanges = from.sampleRanges;
    to.outputChannelMaxima = from.outputChannelMaxima;
    to.outputChannelMeanError = from.outputChannelMeanError;
    replaceNotes(to, from.notes, kCumulativeNote);
}

void copyWeightFigures(LayerReport &to, const LayerReport &from) {
    to.weightSqnrDb = from.weightSqnrDb;
    to.weightChannelSqnrDb = from.weightChannelSqnrDb;
    to.weightChannelMin = from.weightChannelMin;
    to.weightChannelMax = from.weightChannelMax;
    replaceNotes(to, from.notes, kWeightNote);
}

void copyIsolatedFigures(LayerReport &to, const LayerReport &from) {
    to.isolated = from.isolated;
    to.kernelVsReferenceSqnrDb = from.kernelVsReferenceSqnrDb;
    to.kernelMismatch = from.kernelMismatch;
    replaceNotes(to, from.notes, kIsolatedNote);
}

}  // namespace ql::analysis

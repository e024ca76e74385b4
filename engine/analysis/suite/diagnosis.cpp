#include "analysis/suite/diagnosis.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "analysis/metrics/sample_ranges.h"

namespace ql::analysis {
namespace {

bool finite(double v) {
    return std::isfinite(v);
}

Finding layerFinding(FindingKind kind, Severity severity, size_t index, const LayerReport &row) {
    Finding f;
    f.kind = kind;
    f.severity = severity;
    f.layer = static_cast<int>(index);
    f.layerName = row.name;
    f.opType = row.opType;
    return f;
}

double medianOf(std::vector<double> v) {
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
    if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The float node whose output a BatchNormalization reads.
std::string producerOf(const Graph *graph, const std::string &node) {
    if (!graph) return {};
    const Node *bn = graph->findNode(node);
    if (!bn || bn->inputs.empty()) return {};
    const int p = graph->producerIndex(bn->inputs[0]);
    return p >= 0 ? graph->nodes[p].name : bn->inputs[0];
}

// Largest / smallest per-channel max |w| of the float weight; NaN without channel figures.
double channelRangeSpread(const LayerReport &row) {
    double widest = 0, narrowest = INFINITY;
    for (size_t c = 0; c < row.weightChannelMin.size() && c < row.weightChannelMax.size(); ++c) {
        const double range =
            std::max(std::fabs(row.weightChannelMin[c]), std::fabs(row.weightChannelMax[c]));
        if (range > 0) widest = std::max(widest, range), narrowest = std::min(narrowest, range);
    }
    return widest > 0 ? widest / narrowest : std::numeric_limits<double>::quiet_NaN();
}

void weightFindings(std::vector<Finding> &out, size_t i, const LayerReport &row,
                    const DiagnosisOptions &o) {
    if (!row.weightSqnrDb || row.precision != "int8") return;
    const auto &channels = row.weightChannelSqnrDb;
    const double median = medianOf(channels);
    double worst = std::numeric_limits<double>::quiet_NaN();
    int64_t worstChannel = -1;
    for (size_t c = 0; c < channels.size(); ++c)
        if (!std::isnan(channels[c]) && (worstChannel < 0 || channels[c] < worst))
            worst = channels[c], worstChannel = int64_t(c);
    const bool low = *row.weightSqnrDb < o.weightThresholdDb;
    const bool outlier = worstChannel >= 0 && channels.size() > 1 && worst < o.weightThresholdDb &&
                         (std::isinf(median) || median - worst > o.channelSpreadDb);
    if (!low && !outlier) return;
    Finding f = layerFinding(low ? FindingKind::LowWeightSqnr : FindingKind::WeightChannelOutlier,
                             Severity::Warning, i, row);
    f.value = *row.weightSqnrDb;
    f.reference = median;
    f.extra = worst;
    f.channel = worstChannel;
    f.channelRangeSpread = channelRangeSpread(row);
    if (f.channelRangeSpread >= o.remedyRangeSpread) f.remedy = "cle";
    out.push_back(f);
}

// Outlier channels in an output that int8 linear layers read. Without the graph the readers are
// unknown and the finding names none.
std::optional<Finding> outlierChannels(size_t i, const LayerReport &row,
                                       const NumericSuiteReport &report, const Graph *graph,
                                       const DiagnosisOptions &o) {
    const std::vector<float> &m = row.outputChannelMaxima;
    if (m.size() < 2) return std::nullopt;
    std::vector<double> sorted(m.begin(), m.end());
    const double median = medianOf(sorted);
    const auto widest = std::max_element(m.begin(), m.end());
    if (!(median > 0) || !(*widest / median >= o.outlierChannelSpread)) return std::nullopt;
    std::string reader;
    if (graph) {
        const Node *node = graph->findNode(row.name);
        for (const Node &n : graph->nodes) {
            if (!node || node->outputs.empty() || !n.hasInput(0) ||
                n.inputs[0] != node->outputs[0] || (n.opType != "MatMul" && n.opType != "Gemm"))
                continue;
            for (const LayerReport &r : report.layers)
                if (r.name == n.name && r.precision == "int8") reader = n.name;
            if (!reader.empty()) break;
        }
        if (reader.empty()) return std::nullopt;  // no int8 layer pays for the outliers
    }
    Finding f = layerFinding(FindingKind::ActivationOutlierChannels, Severity::Warning, i, row);
    f.value = *widest / median;
    f.reference = median;
    f.extra = *widest;
    f.channel = widest - m.begin();
    f.related = reader;
    f.remedy = "smoothquant";
    return f;
}

// A layer under the threshold whose error is mostly a per-channel constant.
std::optional<Finding> meanShift(size_t i, const LayerReport &row, const DiagnosisOptions &o) {
    const std::vector<double> &m = row.outputChannelMeanError;
    if (m.empty() || row.precision != "int8" || !row.cumulative ||
        !(row.cumulative->sqnrDb < o.sqnrThresholdDb) || !(row.cumulative->mse > 0))
        return std::nullopt;
    double squares = 0;
    size_t largest = 0;
    for (size_t c = 0; c < m.size(); ++c) {
        squares += m[c] * m[c];
        if (std::fabs(m[c]) > std::fabs(m[largest])) largest = c;
    }
    const double meanSquare = squares / double(m.size());
    const double share = std::min(1.0, meanSquare / row.cumulative->mse);
    if (!(share >= o.meanShiftShare)) return std::nullopt;
    Finding f = layerFinding(FindingKind::ChannelMeanShift, Severity::Warning, i, row);
    f.value = share;
    f.reference = std::sqrt(meanSquare);
    f.extra = std::sqrt(row.cumulative->mse);
    f.channel = static_cast<int64_t>(largest);
    f.remedy = "bias-correction";
    return f;
}

// The int8 weighted layers with balanced channel ranges, losing accuracy downstream, whose own
// error is largely their weights' rounding: one model-wide finding for the layer with the
// largest share (see RoundingDominated in the header).
std::optional<Finding> roundingDominated(const NumericSuiteReport &report,
                                         const DiagnosisOptions &o) {
    if (!o.weightsRoundedToNearest) return std::nullopt;
    std::optional<Finding> best;
    int layers = 0;
    for (size_t i = 0; i < report.layers.size(); ++i) {
        const LayerReport &row = report.layers[i];
        if (row.precision != "int8" || !row.weightSqnrDb || !row.isolated || !row.cumulative ||
            !(row.cumulative->sqnrDb < o.sqnrThresholdDb) ||
            !(channelRangeSpread(row) < o.remedyRangeSpread))
            continue;
        const double share =
            std::min(1.0, std::pow(10.0, (row.isolated->sqnrDb - *row.weightSqnrDb) / 10.0));
        if (!(share >= o.roundingShare)) continue;
        ++layers;
        if (best && !(share > best->value)) continue;
        best = layerFinding(FindingKind::RoundingDominated, Severity::Info, i, row);
        best->value = share;
        best->extra = -10.0 * std::log10(1.0 - share / 2.0);
        best->channelRangeSpread = channelRangeSpread(row);
        best->remedy = "adaround";
    }
    if (best) best->reference = layers;
    return best;
}

// The metrics whose per-sample SQNRs the data-sensitivity findings read.
const ComparisonMetrics *samplesOf(const LayerReport &row) {
    if (row.cumulative && row.cumulative->sampleSqnr) return &*row.cumulative;
    if (row.isolated && row.isolated->sampleSqnr) return &*row.isolated;
    return nullptr;
}

std::optional<Finding> sampleSqnrSpread(size_t i, const LayerReport &row,
                                        const DiagnosisOptions &o) {
    const ComparisonMetrics *samples = samplesOf(row);
    if (!samples || row.precision != "int8" || samples->sampleSqnr->stored <= 1)
        return std::nullopt;
    const SampleSqnrSummary &s = *samples->sampleSqnr;
    const bool spread = std::isinf(s.median) && s.median > 0
                            ? std::isfinite(s.min)
                            : s.median - s.min > o.dataSensitiveSpreadDb;
    if (!spread || std::isnan(s.min)) return std::nullopt;
    Finding f = layerFinding(FindingKind::DataSensitive, Severity::Warning, i, row);
    f.value = s.min;
    f.reference = s.median;
    f.extra = s.p5;
    return f;
}

std::optional<Finding> rangeVariation(size_t i, const LayerReport &row, const DiagnosisOptions &o) {
    if (row.precision != "int8") return std::nullopt;
    const std::optional<SampleRangeSummary> s = summarizeSampleRanges(row.sampleRanges);
    // NaN ratio (every range degenerate, or NaN data) compares false: no finding.
    if (!s || !(s->ratio >= o.rangeRatio)) return std::nullopt;
    Finding f = layerFinding(FindingKind::ActivationRangeVaries, Severity::Warning, i, row);
    f.value = s->ratio;
    f.reference = s->smallest;
    f.extra = s->largest;
    return f;
}

}  // namespace

const char *findingKindName(FindingKind kind) {
    switch (kind) {
        case FindingKind::UnfoldedBatchNorm:
            return "unfolded_batch_norm";
        case FindingKind::FirstLowSqnr:
            return "first_low_sqnr";
        case FindingKind::SqnrJump:
            return "sqnr_jump";
        case FindingKind::LowIsolatedSqnr:
            return "low_isolated_sqnr";
        case FindingKind::DataSensitive:
            return "data_sensitive";
        case FindingKind::ActivationRangeVaries:
            return "activation_range_varies";
        case FindingKind::HighSaturation:
            return "high_saturation";
        case FindingKind::KernelMismatch:
            return "kernel_mismatch";
        case FindingKind::LowWeightSqnr:
            return "low_weight_sqnr";
        case FindingKind::WeightChannelOutlier:
            return "weight_channel_outlier";
        case FindingKind::ActivationOutlierChannels:
            return "activation_outlier_channels";
        case FindingKind::ChannelMeanShift:
            return "channel_mean_shift";
        case FindingKind::RoundingDominated:
            return "rounding_dominated";
        case FindingKind::OutputAgreementDrop:
            return "output_agreement_drop";
        case FindingKind::AccuracyDrop:
            return "accuracy_drop";
    }
    return "unknown";
}

std::vector<Finding> diagnose(const NumericSuiteReport &report, const Graph *floatGraph,
                              const DiagnosisOptions &o) {
    std::vector<Finding> out;
    if (!report.outputs.empty()) {
        const OutputReport &output = report.outputs.front();
        if (finite(output.top1Agreement) && output.top1Agreement < 1.0 - o.agreementDrop) {
            Finding f;
            f.kind = FindingKind::OutputAgreementDrop;
            f.severity = output.top1Agreement < 1.0 - 5 * o.agreementDrop ? Severity::Error
                                                                          : Severity::Warning;
            f.value = output.top1Agreement;
            f.reference = output.sqnrDb;
            f.related = output.floatName;
            out.push_back(f);
        }
        if (output.floatAccuracy && output.quantAccuracy &&
            *output.floatAccuracy - *output.quantAccuracy > o.accuracyDrop) {
            Finding f;
            f.kind = FindingKind::AccuracyDrop;
            f.severity = *output.floatAccuracy - *output.quantAccuracy > 5 * o.accuracyDrop
                             ? Severity::Error
                             : Severity::Warning;
            f.value = *output.quantAccuracy;
            f.reference = *output.floatAccuracy;
            f.related = output.floatName;
            out.push_back(f);
        }
    }

    bool firstLowSeen = false;
    double previous = std::numeric_limits<double>::quiet_NaN();
    for (size_t i = 0; i < report.layers.size(); ++i) {
        const LayerReport &row = report.layers[i];
        const bool int8 = row.precision == "int8";
        const double cumulative =
            row.cumulative ? row.cumulative->sqnrDb : std::numeric_limits<double>::quiet_NaN();
        const double isolated =
            row.isolated ? row.isolated->sqnrDb : std::numeric_limits<double>::quiet_NaN();

        if (row.opType == "BatchNormalization" && int8) {
            Finding f = layerFinding(FindingKind::UnfoldedBatchNorm,
                                     cumulative < o.sqnrThresholdDb || isolated < o.sqnrThresholdDb
                                         ? Severity::Error
                                         : Severity::Warning,
                                     i, row);
            f.value = cumulative;
            f.reference = isolated;
            f.related = producerOf(floatGraph, row.name);
            out.push_back(f);
        }
        if (!std::isnan(cumulative) && cumulative < o.sqnrThresholdDb) {
            const double drop = previous - cumulative;  // NaN for the first layer with a figure
            if (!firstLowSeen) {
                Finding f = layerFinding(FindingKind::FirstLowSqnr, Severity::Error, i, row);
                f.value = cumulative;
                f.reference = previous;
                f.extra = o.sqnrThresholdDb;
                out.push_back(f);
                firstLowSeen = true;
            } else if (drop >= o.jumpDb) {
                Finding f = layerFinding(FindingKind::SqnrJump, Severity::Warning, i, row);
                f.value = cumulative;
                f.reference = previous;
                f.extra = o.sqnrThresholdDb;
                out.push_back(f);
            }
        }
        if (!std::isnan(cumulative)) previous = cumulative;
        if (!std::isnan(isolated) && isolated < o.sqnrThresholdDb && int8) {
            Finding f = layerFinding(FindingKind::LowIsolatedSqnr, Severity::Warning, i, row);
            f.value = isolated;
            f.extra = o.sqnrThresholdDb;
            out.push_back(f);
        }
        std::optional<Finding> spread = sampleSqnrSpread(i, row, o);
        if (std::optional<Finding> ranges = rangeVariation(i, row, o)) {
            if (spread) ranges->sampleSqnr = *samplesOf(row)->sampleSqnr;
            out.push_back(*ranges);
        } else if (spread) {
            out.push_back(*spread);
        }
        if (row.cumulative && row.cumulative->saturationPct &&
            *row.cumulative->saturationPct > o.saturationPct) {
            Finding f = layerFinding(FindingKind::HighSaturation,
                                     *row.cumulative->saturationPct > 5 * o.saturationPct
                                         ? Severity::Error
                                         : Severity::Warning,
                                     i, row);
            f.value = *row.cumulative->saturationPct;
            out.push_back(f);
        }
        if (row.kernelMismatch ||
            (row.kernelVsReferenceSqnrDb && *row.kernelVsReferenceSqnrDb < o.kernelMismatchDb)) {
            Finding f = layerFinding(FindingKind::KernelMismatch, Severity::Error, i, row);
            f.value = row.kernelVsReferenceSqnrDb ? *row.kernelVsReferenceSqnrDb
                                                  : std::numeric_limits<double>::quiet_NaN();
            f.extra = o.kernelMismatchDb;
            out.push_back(f);
        }
        weightFindings(out, i, row, o);
        if (auto outliers = outlierChannels(i, row, report, floatGraph, o))
            out.push_back(*outliers);
        if (auto shift = meanShift(i, row, o)) out.push_back(*shift);
    }
    if (auto rounding = roundingDominated(report, o)) out.push_back(*rounding);
    std::stable_sort(out.begin(), out.end(), [](const Finding &a, const Finding &b) {
        if (a.severity != b.severity) return a.severity > b.severity;
        return (a.layer < 0 ? -1 : a.layer) < (b.layer < 0 ? -1 : b.layer);
    });
    return out;
}

}  // namespace ql::analysis

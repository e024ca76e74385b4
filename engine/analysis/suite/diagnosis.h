#pragma once
// Diagnosis: the numeric suite's report read the way an engineer reads it, as structured
// findings (kind, layer, the numbers behind it). No prose here: the GUI words each finding in
// the user's language (widgets/diagnosis_list.h).
//
// Findings, with the figures they carry (NaN / -1 / "" where a field does not apply):
//   UnfoldedBatchNorm     a BatchNormalization that was not folded into a Conv and runs int8.
//                         value = cumulative SQNR, reference = isolated SQNR, related = the node
//                         whose output it normalises (float model), e.g. "/b1/Add".
//   FirstLowSqnr          the first layer (float topological order) whose cumulative SQNR is
//                         below the threshold: where the error starts. value = its SQNR,
//                         reference = the previous layer's cumulative SQNR, extra = threshold.
//   SqnrJump              a later layer under the threshold whose cumulative SQNR falls by at
//                         least jumpDb from the previous layer's. value, reference as above.
//   LowIsolatedSqnr       the layer's own (isolated) SQNR is under the threshold: its error is
//                         intrinsic. value = isolated SQNR, extra = threshold.
//   DataSensitive         per-sample SQNR spread: median − min above dataSensitiveSpreadDb: a few
//                         inputs have much larger error (outliers, unrepresentative calibration).
//                         value = min, reference = median, extra = 5th percentile.
//   ActivationRangeVaries the float output's per-sample range (max − min, sample_ranges.h) varies
//                         by at least rangeRatio between samples: one scale cannot fit them all.
//                         value = largest / smallest range, reference = smallest, extra = largest
//                         range. Samples whose range is degenerate (all zero, constant) are left
//                         out (sample_ranges.h). When the per-sample SQNR spread of DataSensitive
//                         fires on the same layer, it is folded into this finding (sampleSqnr)
//                         instead of a second finding: same cause, one line.
//   HighSaturation        more than saturationPct % of the float values fall outside the
//                         output quantizer's range. value = saturation %.
//   KernelMismatch        int8 kernel vs reference path below kKernelMismatchDb: implementation
//                         error. value = kernel-vs-reference SQNR.
//   LowWeightSqnr         weight SQNR below weightThresholdDb. value = weight SQNR,
//                         reference = median channel SQNR, extra = worst channel's, channel.
//   WeightChannelOutlier  weight SQNR fine overall but some channels much worse: the worst
//                         channel under weightThresholdDb and channelSpreadDb below the median.
//                         Same fields as LowWeightSqnr.
//                         Both weight findings carry channelRangeSpread (largest / smallest
//                         per-channel max |w| of the float weight) and, when it is at least
//                         remedyRangeSpread, the remedy "cle": one int8 scale cannot serve
//                         channels that far apart, and cross-layer equalization balances them.
//   ActivationOutlierChannels  a few channels of an output that int8 MatMul / Gemm layers read
//                         are far larger than the rest (LayerNorm outputs of transformers): the
//                         per-tensor activation scale they force leaves the other channels few
//                         levels. value = largest / median per-channel max |x| (at least
//                         outlierChannelSpread), reference = the median, extra = the largest,
//                         channel = the largest one, related = the first layer reading it, remedy
//                         "smoothquant" (it moves the outliers' range into the weights).
//   ChannelMeanShift      an int8 Conv / ConvTranspose / Gemm under the threshold whose error is
//                         largely a constant shift per output channel: the per-channel means of
//                         the cumulative error carry at least meanShiftShare of its power.
//                         value = that share (0..1), reference = RMS over channels of the mean
//                         error, extra = RMS of the error, channel = the largest shift, remedy
//                         "bias-correction" (it subtracts those means from the bias).
//   RoundingDominated     int8 Conv / Gemm / MatMul layers with balanced weight channel ranges
//                         (under remedyRangeSpread: CLE has nothing to do), under the threshold
//                         cumulatively, whose weights' rounding makes up at least roundingShare
//                         of their isolated error power, estimated as 10^((isolated − weight
//                         SQNR) / 10) (the weight SQNR stands for the output error the rounding
//                         causes, as it does for inputs without correlations). One finding for
//                         the layer with the largest share: value = that share (0..1),
//                         reference = how many layers qualify, extra = the isolated SQNR gain
//                         predicted there if the rounding error power halves (what AdaRound
//                         achieved in the weights alone on the fixtures measured: 2.3-7.5 dB on
//                         held-apart data), channelRangeSpread, remedy "adaround".
//   OutputAgreementDrop   top-1 agreement of the models below 1 − agreementDrop (layer -1).
//                         value = agreement (0..1), reference = output SQNR.
//   AccuracyDrop          with labels: quantized accuracy more than accuracyDrop below float.
//                         value = quantized accuracy, reference = float accuracy (0..1).

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "analysis/suite/numeric_suite.h"
#include "ir/graph.h"

namespace ql::analysis {

enum class FindingKind {
    UnfoldedBatchNorm,
    FirstLowSqnr,
    SqnrJump,
    LowIsolatedSqnr,
    DataSensitive,
    ActivationRangeVaries,
    HighSaturation,
    KernelMismatch,
    LowWeightSqnr,
    WeightChannelOutlier,
    ActivationOutlierChannels,
    ChannelMeanShift,
    RoundingDominated,
    OutputAgreementDrop,
    AccuracyDrop,
};

enum class Severity { Info, Warning, Error };

const char *findingKindName(FindingKind kind);  // "unfolded_batch_norm", ... (JSON, tests)

struct Finding {
    FindingKind kind = FindingKind::FirstLowSqnr;
    Severity severity = Severity::Warning;
    int layer = -1;  // index into report.layers; -1: the whole model
    std::string layerName, opType;
    std::string related;  // another node the finding names (see the kinds above)
    double value = std::numeric_limits<double>::quiet_NaN();
    double reference = std::numeric_limits<double>::quiet_NaN();
    double extra = std::numeric_limits<double>::quiet_NaN();
    int64_t channel = -1;
    double channelRangeSpread = std::numeric_limits<double>::quiet_NaN();  // weight findings
    std::string remedy;  // "" or the --remedy that fits ("cle", "smoothquant", "adaround", ...)
    // ActivationRangeVaries only: the per-sample SQNR spread when it is data-sensitive too.
    std::optional<SampleSqnrSummary> sampleSqnr;
};

struct DiagnosisOptions {
    double sqnrThresholdDb = 30.0;
    double jumpDb = 6.0;
    double dataSensitiveSpreadDb = 10.0;
    double rangeRatio = 10.0;  // largest / smallest per-sample range of a layer's float output
    double saturationPct = 1.0;
    double kernelMismatchDb = kKernelMismatchDb;
    double weightThresholdDb = 30.0;
    double channelSpreadDb = 10.0;
    double remedyRangeSpread = 10.0;  // per-channel weight range spread that suggests CLE
    double outlierChannelSpread = 8.0;  // largest / median channel max that suggests SmoothQuant
    // Share of a layer's error power in its per-channel means that suggests bias correction:
    // removing it gains at least 0.46 dB there, and the shifts add up through later layers
    // (DFQ's case after CLE: 4-17 % per layer, and bias correction gains 8 dB at the output).
    double meanShiftShare = 0.10;
    // Share of a layer's isolated error power in its weights' rounding that suggests AdaRound.
    double roundingShare = 0.25;
    // False when AdaRound (or another adaptive rounding) chose the weights: their SQNR then no
    // longer stands for the output error their rounding causes, and RoundingDominated is not made.
    bool weightsRoundedToNearest = true;
    double agreementDrop = 0.01;  // share of samples
    double accuracyDrop = 0.01;   // 1 percentage point
};

// Findings ordered by severity (errors first), then model-wide before layers, then layer order.
// `floatGraph` (optional) names the node a BatchNormalization follows.
std::vector<Finding> diagnose(const NumericSuiteReport &report, const Graph *floatGraph = nullptr,
                              const DiagnosisOptions &options = {});

}  // namespace ql::analysis

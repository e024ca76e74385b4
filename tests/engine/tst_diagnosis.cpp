// Diagnosis findings on hand-built reports: each kind fires on the figures that call for it, with
// those figures in its fields, and stays quiet just on the other side of its threshold.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "analysis/suite/diagnosis.h"
#include "test_support.h"

using namespace ql;
using namespace ql::analysis;

namespace {

ComparisonMetrics metrics(double sqnr, double minS = NAN, double p5 = NAN, double median = NAN) {
    ComparisonMetrics m;
    m.sqnrDb = sqnr;
    if (!std::isnan(minS)) m.sampleSqnr = SampleSqnrSummary{minS, p5, median, 16};
    return m;
}

LayerReport layer(const std::string &name, const std::string &op,
                  std::optional<double> cumulative) {
    LayerReport r;
    r.name = name;
    r.opType = op;
    r.precision = "int8";
    if (cumulative) r.cumulative = metrics(*cumulative);
    return r;
}

std::vector<Finding> ofKind(const std::vector<Finding> &all, FindingKind kind) {
    std::vector<Finding> out;
    for (const auto &f : all)
        if (f.kind == kind) out.push_back(f);
    return out;
}

}  // namespace

TEST(Diagnosis, FirstLowLayerAndLaterJumps) {
    NumericSuiteReport r;
    r.layers = {layer("a", "Conv", 45.0), layer("b", "Conv", 33.0), layer("c", "Conv", 24.0),
                layer("d", "Conv", 22.0), layer("e", "Conv", 12.0), layer("f", "Conv", 8.0)};
    const auto all = diagnose(r);
    const auto first = ofKind(all, FindingKind::FirstLowSqnr);
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].layer, 2);
    EXPECT_EQ(first[0].layerName, "c");
    EXPECT_EQ(first[0].value, 24.0);
    EXPECT_EQ(first[0].reference, 33.0);
    EXPECT_EQ(first[0].severity, Severity::Error);
    // d drops 2 dB (quiet), e drops 10 dB (a jump), f drops 4 dB (quiet).
    const auto jumps = ofKind(all, FindingKind::SqnrJump);
    ASSERT_EQ(jumps.size(), 1u);
    EXPECT_EQ(jumps[0].layerName, "e");
    EXPECT_EQ(jumps[0].value, 12.0);
    EXPECT_EQ(jumps[0].reference, 22.0);
    // Errors come first.
    EXPECT_EQ(all.front().severity, Severity::Error);
}

TEST(Diagnosis, HealthyModelHasNoFindings) {
    NumericSuiteReport r;
    r.layers = {layer("a", "Conv", 40.0), layer("b", "Relu", 38.0)};
    r.layers[0].weightSqnrDb = 45.0;
    r.layers[0].weightChannelSqnrDb = {44.0, 46.0, 45.0};
    r.layers[0].cumulative->saturationPct = 0.5;
    r.layers[0].kernelVsReferenceSqnrDb = 60.0;
    OutputReport out;
    out.sqnrDb = 35.0;
    out.top1Agreement = 0.995;
    out.floatAccuracy = 0.90;
    out.quantAccuracy = 0.895;
    r.outputs.push_back(out);
    EXPECT_TRUE(diagnose(r).empty());
}

TEST(Diagnosis, UnfoldedBatchNormNamesItsInput) {
    Graph g;
    Node add;
    add.name = "/b1/Add";
    add.opType = "Add";
    add.inputs = {"x", "y"};
    add.outputs = {"s"};
    Node bn;
    bn.name = "/b1/bn/BatchNormalization";
    bn.opType = "BatchNormalization";
    bn.inputs = {"s", "g", "b", "m", "v"};
    bn.outputs = {"n"};
    g.nodes = {add, bn};
    NumericSuiteReport r;
    r.layers = {layer("/b1/Add", "Add", 35.0),
                layer("/b1/bn/BatchNormalization", "BatchNormalization", 12.3)};
    r.layers[1].isolated = metrics(14.0);
    const auto bnFindings = ofKind(diagnose(r, &g), FindingKind::UnfoldedBatchNorm);
    ASSERT_EQ(bnFindings.size(), 1u);
    EXPECT_EQ(bnFindings[0].related, "/b1/Add");
    EXPECT_EQ(bnFindings[0].value, 12.3);
    EXPECT_EQ(bnFindings[0].reference, 14.0);
    EXPECT_EQ(bnFindings[0].severity, Severity::Error);
    // Kept in fp32: not a finding.
    r.layers[1].precision = "fp32";
    EXPECT_TRUE(ofKind(diagnose(r, &g), FindingKind::UnfoldedBatchNorm).empty());
}

TEST(Diagnosis, DataSensitiveSaturationKernelAndIsolated) {
    NumericSuiteReport r;
    r.layers = {layer("a", "Conv", 35.0), layer("b", "Conv", 34.0), layer("c", "Conv", 33.0)};
    r.layers[0].cumulative = metrics(35.0, 18.0, 25.0, 36.0);  // median - min = 18 dB
    r.layers[1].cumulative = metrics(34.0, 27.0, 30.0, 36.0);  // 9 dB: quiet
    r.layers[1].cumulative->saturationPct = 2.5;
    r.layers[2].kernelVsReferenceSqnrDb = 31.0;
    r.layers[2].isolated = metrics(21.0);
    const auto all = diagnose(r);
    const auto sensitive = ofKind(all, FindingKind::DataSensitive);
    ASSERT_EQ(sensitive.size(), 1u);
    EXPECT_EQ(sensitive[0].layerName, "a");
    EXPECT_EQ(sensitive[0].value, 18.0);
    EXPECT_EQ(sensitive[0].reference, 36.0);
    EXPECT_EQ(sensitive[0].extra, 25.0);
    const auto saturation = ofKind(all, FindingKind::HighSaturation);
    ASSERT_EQ(saturation.size(), 1u);
    EXPECT_EQ(saturation[0].layerName, "b");
    EXPECT_EQ(saturation[0].value, 2.5);
    const auto kernel = ofKind(all, FindingKind::KernelMismatch);
    ASSERT_EQ(kernel.size(), 1u);
    EXPECT_EQ(kernel[0].layerName, "c");
    EXPECT_EQ(kernel[0].value, 31.0);
    const auto isolated = ofKind(all, FindingKind::LowIsolatedSqnr);
    ASSERT_EQ(isolated.size(), 1u);
    EXPECT_EQ(isolated[0].value, 21.0);
}

TEST(Diagnosis, WeightChannelsGiveTheWorstChannel) {
    NumericSuiteReport r;
    r.layers = {layer("a", "Conv", 40.0), layer("b", "Conv", 40.0), layer("c", "Conv", 40.0)};
    r.layers[0].weightSqnrDb = 38.0;
    r.layers[0].weightChannelSqnrDb = {42.0, 41.0, 17.5, 40.0, 43.0};  // median 41, worst 17.5 at 2
    r.layers[1].weightSqnrDb = 22.0;
    r.layers[1].weightChannelSqnrDb = {21.0, 23.0, 22.0};
    r.layers[2].weightSqnrDb = 38.0;
    r.layers[2].weightChannelSqnrDb = {42.0, 41.0, 33.0};  // spread 8 dB and above 30: quiet
    const auto all = diagnose(r);
    const auto outliers = ofKind(all, FindingKind::WeightChannelOutlier);
    ASSERT_EQ(outliers.size(), 1u);
    EXPECT_EQ(outliers[0].layerName, "a");
    EXPECT_EQ(outliers[0].channel, 2);
    EXPECT_EQ(outliers[0].extra, 17.5);
    EXPECT_EQ(outliers[0].reference, 41.0);
    const auto low = ofKind(all, FindingKind::LowWeightSqnr);
    ASSERT_EQ(low.size(), 1u);
    EXPECT_EQ(low[0].layerName, "b");
    EXPECT_EQ(low[0].value, 22.0);
    EXPECT_EQ(low[0].channel, 0);
}

TEST(Diagnosis, WeightChannelRangesFarApartSuggestEqualization) {
    NumericSuiteReport r;
    r.layers = {layer("dw", "Conv", 40.0), layer("pw", "Conv", 40.0)};
    // dw: DFQ's depthwise case, channel ranges 0.01 .. 16 (1600x): channel 0 rounds to nothing.
    r.layers[0].weightSqnrDb = 45.7;
    r.layers[0].weightChannelSqnrDb = {-3.0, 44.0, 46.0, 45.0};
    r.layers[0].weightChannelMin = {-0.01f, -16.0f, -3.0f, -1.0f};
    r.layers[0].weightChannelMax = {0.005f, 12.0f, 4.0f, 2.0f};
    // pw: a low weight SQNR with ranges 1 .. 4 apart: no equalization to suggest.
    r.layers[1].weightSqnrDb = 22.0;
    r.layers[1].weightChannelSqnrDb = {21.0, 23.0};
    r.layers[1].weightChannelMin = {-1.0f, -4.0f};
    r.layers[1].weightChannelMax = {0.5f, 3.0f};
    const auto all = diagnose(r);
    const auto outliers = ofKind(all, FindingKind::WeightChannelOutlier);
    ASSERT_EQ(outliers.size(), 1u);
    EXPECT_EQ(outliers[0].remedy, "cle");
    EXPECT_NEAR(outliers[0].channelRangeSpread, 16.0 / 0.01, 1e-3);
    const auto low = ofKind(all, FindingKind::LowWeightSqnr);
    ASSERT_EQ(low.size(), 1u);
    EXPECT_EQ(low[0].remedy, "");
    EXPECT_NEAR(low[0].channelRangeSpread, 4.0, 1e-6);
}

TEST(Diagnosis, OutlierChannelsReadByInt8MatMulSuggestSmoothQuant) {
    // ln → MatMul q (int8); ln2 → MatMul fc (kept in fp32).
    Graph g;
    auto node = [&](const std::string &name, const std::string &op, std::vector<std::string> in,
                    const std::string &out) {
        Node n;
        n.name = name;
        n.opType = op;
        n.inputs = std::move(in);
        n.outputs = {out};
        g.nodes.push_back(n);
    };
    node("ln", "LayerNormalization", {"x", "g", "b"}, "h");
    node("q", "MatMul", {"h", "wq"}, "qo");
    node("ln2", "LayerNormalization", {"qo", "g", "b"}, "h2");
    node("fc", "MatMul", {"h2", "wf"}, "fo");
    NumericSuiteReport r;
    r.layers = {layer("ln", "LayerNormalization", 40.0), layer("q", "MatMul", 40.0),
                layer("ln2", "LayerNormalization", 40.0), layer("fc", "MatMul", 40.0)};
    r.layers[0].precision = r.layers[2].precision = "fp32";
    r.layers[3].precision = "fp32";
    // Channel 2 is 40x the median (2.0); channel maxima of ln2 likewise.
    r.layers[0].outputChannelMaxima = {2.0f, 1.5f, 80.0f, 2.5f, 2.0f};
    r.layers[2].outputChannelMaxima = r.layers[0].outputChannelMaxima;
    auto found = ofKind(diagnose(r, &g), FindingKind::ActivationOutlierChannels);
    ASSERT_EQ(found.size(), 1u);  // ln2's reader runs in fp32: nothing to fix there
    EXPECT_EQ(found[0].layerName, "ln");
    EXPECT_EQ(found[0].related, "q");
    EXPECT_EQ(found[0].channel, 2);
    EXPECT_NEAR(found[0].value, 40.0, 1e-9);
    EXPECT_EQ(found[0].reference, 2.0);
    EXPECT_EQ(found[0].extra, 80.0);
    EXPECT_EQ(found[0].remedy, "smoothquant");
    // Just under the threshold (7.9x): quiet.
    r.layers[0].outputChannelMaxima[2] = 15.8f;
    EXPECT_TRUE(ofKind(diagnose(r, &g), FindingKind::ActivationOutlierChannels).empty());
    // Without the graph the reader is unknown: the finding names none.
    r.layers[0].outputChannelMaxima[2] = 80.0f;
    found = ofKind(diagnose(r), FindingKind::ActivationOutlierChannels);
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].related, "");
}

TEST(Diagnosis, ErrorThatIsAShiftPerChannelSuggestsBiasCorrection) {
    NumericSuiteReport r;
    r.layers = {layer("c1", "Conv", 24.0), layer("c2", "Conv", 24.0), layer("c3", "Conv", 35.0)};
    // c1: error RMS 0.1 (mse 0.01), channel means ±0.05 and 0: mean square 0.01 / 6, 17 %.
    for (auto &row : r.layers) row.cumulative->mse = 0.01;
    r.layers[0].outputChannelMeanError = {0.05, -0.05, 0.0, 0.05, -0.05, 0.0};
    // c2: means of 0.02: 4 %, noise rather than a shift.
    r.layers[1].outputChannelMeanError = {0.02, -0.02, 0.02, -0.02};
    // c3: a shift as large as c1's, but the layer is above the threshold.
    r.layers[2].outputChannelMeanError = r.layers[0].outputChannelMeanError;
    const auto found = ofKind(diagnose(r), FindingKind::ChannelMeanShift);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].layerName, "c1");
    EXPECT_NEAR(found[0].value, 1.0 / 6.0, 1e-9);
    EXPECT_NEAR(found[0].reference, std::sqrt(0.01 / 6.0), 1e-9);
    EXPECT_NEAR(found[0].extra, 0.1, 1e-9);
    EXPECT_EQ(found[0].channel, 0);
    EXPECT_EQ(found[0].remedy, "bias-correction");
    // Kept in fp32: nothing to correct.
    r.layers[0].precision = "fp32";
    EXPECT_TRUE(ofKind(diagnose(r), FindingKind::ChannelMeanShift).empty());
}

TEST(Diagnosis, RoundingDominatedErrorWithBalancedRangesSuggestsAdaRound) {
    NumericSuiteReport r;
    r.layers = {layer("c1", "Conv", 28.0), layer("c2", "Conv", 26.0), layer("c3", "Conv", 25.0),
                layer("c4", "Conv", 35.0), layer("c5", "Conv", 24.0)};
    for (auto &row : r.layers) {
        row.isolated = metrics(32.0);
        row.weightChannelMin = {-0.5f, -0.4f};
        row.weightChannelMax = {0.6f, 0.3f};  // 1.5x apart
    }
    r.layers[0].weightSqnrDb = 35.0;  // 10^-0.3: 50 % of its isolated error
    r.layers[1].weightSqnrDb = 37.0;  // 32 %
    r.layers[2].weightSqnrDb = 42.0;  // 10 %: input-dominated
    r.layers[3].weightSqnrDb = 33.0;  // above the threshold cumulatively: nothing lost
    r.layers[4].weightSqnrDb = 32.0;  // ranges 100x apart: CLE's case, not this one
    r.layers[4].weightChannelMax = {50.0f, 0.3f};
    auto found = ofKind(diagnose(r), FindingKind::RoundingDominated);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].layerName, "c1");
    EXPECT_NEAR(found[0].value, std::pow(10.0, -0.3), 1e-9);
    EXPECT_EQ(found[0].reference, 2.0);  // c1 and c2
    EXPECT_NEAR(found[0].extra, -10 * std::log10(1 - std::pow(10.0, -0.3) / 2), 1e-9);
    EXPECT_EQ(found[0].remedy, "adaround");
    EXPECT_EQ(found[0].severity, Severity::Info);
    // Kept in fp32 or rounded finely enough: quiet.
    r.layers[0].precision = r.layers[1].precision = "fp32";
    EXPECT_TRUE(ofKind(diagnose(r), FindingKind::RoundingDominated).empty());
}

TEST(Diagnosis, OutputAgreementAndAccuracy) {
    NumericSuiteReport r;
    OutputReport out;
    out.floatName = "logits";
    out.sqnrDb = 14.0;
    out.top1Agreement = 0.90;
    out.floatAccuracy = 0.91;
    out.quantAccuracy = 0.84;
    r.outputs.push_back(out);
    const auto all = diagnose(r);
    const auto agreement = ofKind(all, FindingKind::OutputAgreementDrop);
    ASSERT_EQ(agreement.size(), 1u);
    EXPECT_EQ(agreement[0].layer, -1);
    EXPECT_EQ(agreement[0].value, 0.90);
    EXPECT_EQ(agreement[0].reference, 14.0);
    EXPECT_EQ(agreement[0].severity, Severity::Error);
    const auto accuracy = ofKind(all, FindingKind::AccuracyDrop);
    ASSERT_EQ(accuracy.size(), 1u);
    EXPECT_EQ(accuracy[0].value, 0.84);
    EXPECT_EQ(accuracy[0].reference, 0.91);
    EXPECT_EQ(accuracy[0].severity, Severity::Error);
    EXPECT_STREQ(findingKindName(FindingKind::AccuracyDrop), "accuracy_drop");
}

namespace {

// Per-sample ranges [0, r] of the float output, one per sample.
SampleRanges rangesOf(std::vector<float> widths) {
    SampleRanges r;
    for (float w : widths) {
        r.min.push_back(0.0f);
        r.max.push_back(w);
    }
    return r;
}

}  // namespace

TEST(Diagnosis, ActivationRangeVariesBetweenSamples) {
    NumericSuiteReport r;
    r.layers = {layer("a", "Conv", 40.0), layer("b", "Conv", 40.0), layer("c", "Relu", 40.0),
                layer("d", "Conv", 40.0), layer("e", "Conv", 40.0)};
    r.layers[0].sampleRanges = rangesOf({0.5f, 20.0f, 3.0f, 1.0f});  // 40x: a finding
    r.layers[1].sampleRanges = rangesOf({1.0f, 3.0f, 2.0f});         // 3x: quiet
    // All-zero samples (a Relu that is off for some inputs) are left out: 6 / 2 = 3x, quiet,
    // where counting them would give an infinite ratio.
    r.layers[2].sampleRanges = rangesOf({0.0f, 2.0f, 0.0f, 6.0f});
    r.layers[3].sampleRanges = rangesOf({0.0f, 0.0f, 0.0f});  // all zero: no ratio at all
    r.layers[4].sampleRanges = rangesOf({0.5f, 20.0f});       // 40x, but the layer runs fp32
    r.layers[4].precision = "fp32";
    const auto all = diagnose(r);
    const auto varies = ofKind(all, FindingKind::ActivationRangeVaries);
    ASSERT_EQ(varies.size(), 1u);
    EXPECT_EQ(varies[0].layerName, "a");
    EXPECT_EQ(varies[0].layer, 0);
    EXPECT_EQ(varies[0].value, 40.0);
    EXPECT_EQ(varies[0].reference, 0.5);
    EXPECT_EQ(varies[0].extra, 20.0);
    EXPECT_EQ(varies[0].severity, Severity::Warning);
    EXPECT_FALSE(varies[0].sampleSqnr);
    EXPECT_STREQ(findingKindName(FindingKind::ActivationRangeVaries), "activation_range_varies");

    // The threshold is inclusive and adjustable: 3x fires at 3, 40x does not at 50.
    DiagnosisOptions o;
    o.rangeRatio = 3.0;
    EXPECT_EQ(ofKind(diagnose(r, nullptr, o), FindingKind::ActivationRangeVaries).size(), 3u);
    o.rangeRatio = 50.0;
    EXPECT_TRUE(ofKind(diagnose(r, nullptr, o), FindingKind::ActivationRangeVaries).empty());
}

TEST(Diagnosis, RangeFindingCarriesTheSampleSqnrSpreadOfTheSameLayer) {
    // Layer a: ranges vary 40x and per-sample SQNR spreads 18 dB: one finding, with both.
    // Layer b: only the SQNR spread: the DataSensitive finding as before.
    NumericSuiteReport r;
    r.layers = {layer("a", "Conv", 35.0), layer("b", "Conv", 35.0)};
    r.layers[0].cumulative = metrics(35.0, 18.0, 25.0, 36.0);
    r.layers[0].sampleRanges = rangesOf({0.5f, 20.0f});
    r.layers[1].cumulative = metrics(35.0, 18.0, 25.0, 36.0);
    r.layers[1].sampleRanges = rangesOf({1.0f, 2.0f});
    const auto all = diagnose(r);
    const auto varies = ofKind(all, FindingKind::ActivationRangeVaries);
    ASSERT_EQ(varies.size(), 1u);
    EXPECT_EQ(varies[0].layerName, "a");
    ASSERT_TRUE(varies[0].sampleSqnr);
    EXPECT_EQ(varies[0].sampleSqnr->min, 18.0);
    EXPECT_EQ(varies[0].sampleSqnr->median, 36.0);
    const auto sensitive = ofKind(all, FindingKind::DataSensitive);
    ASSERT_EQ(sensitive.size(), 1u);
    EXPECT_EQ(sensitive[0].layerName, "b");
}

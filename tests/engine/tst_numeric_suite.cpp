// The numeric suite's report on the PyTorch FX fixture: one row per matched layer with the
// figures of the separate comparisons (weights, cumulative), accuracy from labels against an
// argmax computed here from PyTorch's own outputs, precision per layer, label-count errors,
// unmatched layers, cancellation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "analysis/suite/diagnosis.h"
#include "analysis/suite/isolated_comparison.h"
#include "analysis/suite/numeric_suite.h"
#include "analysis/suite/weight_comparison.h"
#include "fx_fixture.h"
#include "runtime/execution_plan.h"

using namespace ql;
using namespace ql::analysis;
using namespace ql::test;

namespace {

BatchSourceFactory batches(const Fixture &f, int64_t size) {
    return [&f, size]() -> Result<ActivationBatchSource> { return slicer(f, size); };
}

std::vector<int64_t> labelsOf(const Fixture &f) {
    std::vector<int64_t> labels;
    for (int64_t i = 0; i < f.labels.numel(); ++i)
        labels.push_back(static_cast<int64_t>(f.labels.valueAsDouble(i)));
    return labels;
}

// Share of rows of a [N, C] tensor whose argmax equals the label.
double accuracyOf(const Tensor &logits, const std::vector<int64_t> &labels) {
    const int64_t rows = logits.dim(0), width = logits.dim(1);
    int64_t correct = 0;
    for (int64_t r = 0; r < rows; ++r) {
        int64_t best = 0;
        for (int64_t c = 1; c < width; ++c)
            if (logits.valueAsDouble(r * width + c) > logits.valueAsDouble(r * width + best))
                best = c;
        correct += best == labels[static_cast<size_t>(r)];
    }
    return static_cast<double>(correct) / static_cast<double>(rows);
}

}  // namespace

TEST(NumericSuite, ReportRowsCarryEveryComparisonsFigures) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    NumericSuiteOptions options;
    options.threads = 1;
    options.kernelCheckSamples = 0;  // all, as compareIsolated below
    options.labels = labelsOf(f);
    auto report = runNumericSuite(f.floatGraph, f.quantGraph, batches(f, 16), options);
    ASSERT_TRUE(report) << report.status().message();
    EXPECT_EQ(report->samples, 64);
    ASSERT_EQ(report->layers.size(), f.matching.matches.size());
    EXPECT_TRUE(report->unmatched.empty());

    auto weights = compareWeights(f.floatGraph, f.quantGraph, f.matching);
    ASSERT_TRUE(weights);
    ActivationComparisonOptions cumulativeOptions;
    cumulativeOptions.threads = 1;
    auto cumulative = compareActivations(f.floatGraph, f.quantGraph, f.matching, slicer(f, 16),
                                         cumulativeOptions);
    ASSERT_TRUE(cumulative);
    IsolatedComparisonOptions isolatedOptions;
    isolatedOptions.threads = 1;
    auto isolated =
        compareIsolated(f.floatGraph, f.quantGraph, f.matching, slicer(f, 16), isolatedOptions);
    ASSERT_TRUE(isolated) << isolated.status().message();
    int int8 = 0;
    for (size_t i = 0; i < report->layers.size(); ++i) {
        const LayerReport &row = report->layers[i];
        SCOPED_TRACE(row.name);
        EXPECT_EQ(row.name, f.matching.matches[i].floatNode);
        EXPECT_EQ(row.quantName, f.matching.matches[i].quantNode);
        EXPECT_EQ(row.opType, f.floatGraph.findNode(row.name)->opType);
        EXPECT_EQ(row.weightSqnrDb.has_value(), (*weights)[i].stats.has_value());
        if (row.weightSqnrDb) EXPECT_EQ(*row.weightSqnrDb, (*weights)[i].stats->sqnrDb);
        ASSERT_TRUE(row.cumulative.has_value());
        EXPECT_EQ(row.cumulative->sqnrDb, cumulative->layers[i].metrics.sqnrDb);
        EXPECT_EQ(row.cumulative->saturationPct, cumulative->layers[i].metrics.saturationPct);
        // The shared float pass gives the isolated comparison's own figures.
        ASSERT_TRUE(row.isolated.has_value());
        ASSERT_TRUE(isolated->layers[i].metrics.has_value());
        EXPECT_EQ(row.isolated->sqnrDb, isolated->layers[i].metrics->sqnrDb);
        EXPECT_EQ(row.kernelVsReferenceSqnrDb, isolated->layers[i].kernelVsReferenceSqnrDb);
        if (row.precision == "int8") {
            ASSERT_TRUE(row.kernelVsReferenceSqnrDb.has_value());
            EXPECT_GE(*row.kernelVsReferenceSqnrDb, kKernelMismatchDb);
        }
        int8 += row.precision == "int8";
    }
    // FX requantizes the Flatten with another scale: that one runs DQ -> fp32 -> Q.
    EXPECT_EQ(int8, 7);
    EXPECT_EQ(report->int8Layers, 7);
    EXPECT_EQ(report->fp32Layers, 1);
    for (const auto &row : report->layers)
        if (row.opType == "Flatten") EXPECT_EQ(row.precision, "fp32") << row.precisionReason;

    // Accuracy of both models: the float model's equals PyTorch's float argmax on these labels,
    // the quantized model's equals PyTorch's int8 argmax (they agree on every sample here).
    ASSERT_EQ(report->outputs.size(), 1u);
    const char *data = std::getenv("QL_TEST_DATA");
    auto torchFloat = readTensorFile(std::string(data) + "/fx_fashion_cnn/torch_float_output.npy");
    auto torchInt8 = readTensorFile(std::string(data) + "/fx_fashion_cnn/torch_int8_output.npy");
    ASSERT_TRUE(torchFloat && torchInt8);
    ASSERT_TRUE(report->outputs[0].floatAccuracy && report->outputs[0].quantAccuracy);
    EXPECT_DOUBLE_EQ(*report->outputs[0].floatAccuracy, accuracyOf(*torchFloat, options.labels));
    EXPECT_DOUBLE_EQ(*report->outputs[0].quantAccuracy, accuracyOf(*torchInt8, options.labels));
    EXPECT_EQ(report->outputs[0].sqnrDb, cumulative->outputs[0].metrics.sqnrDb);
}

TEST(NumericSuite, SampleRangesEqualANaivePerSampleFloatRun) {
    // The report's per-sample ranges of each layer's float output against a float plan run here
    // one sample at a time, its tap reading every matched float value (plain layout) and
    // taking min and max by a plain loop. The suite runs batches of 7 and of 16.
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    auto plan = ExecutionPlan::create(f.floatGraph);
    ASSERT_TRUE(plan) << plan.status().message();
    std::map<std::string, std::vector<float>> naiveMin, naiveMax;
    std::set<std::string> wanted;
    for (const auto &m : f.matching.matches) wanted.insert(m.floatOutput);
    const int64_t samples = f.inputs.dim(0);
    auto one = slicer(f, 1);
    for (int64_t s = 0; s < samples; ++s) {
        std::map<std::string, Tensor> batch;
        ASSERT_TRUE(*one(batch));
        RunOptions run;
        run.tap = [&](const Node &node, size_t index, const Tensor &value) {
            const std::string &name = node.outputs[index];
            if (!wanted.count(name)) return;
            float lo = value.data<float>()[0], hi = lo;
            for (int64_t i = 1; i < value.numel(); ++i) {
                lo = std::min(lo, value.data<float>()[i]);
                hi = std::max(hi, value.data<float>()[i]);
            }
            naiveMin[name].push_back(lo);
            naiveMax[name].push_back(hi);
        };
        std::vector<Tensor> outputs;
        ASSERT_TRUE((*plan)->run(batch, outputs, run).isOk());
    }
    NumericSuiteOptions options;
    options.threads = 1;
    options.isolated = options.kernelCheck = false;
    for (int64_t batch : {7, 16}) {
        SCOPED_TRACE(batch);
        auto report = runNumericSuite(f.floatGraph, f.quantGraph, batches(f, batch), options);
        ASSERT_TRUE(report) << report.status().message();
        ASSERT_EQ(report->layers.size(), f.matching.matches.size());
        for (size_t i = 0; i < report->layers.size(); ++i) {
            const LayerReport &row = report->layers[i];
            const std::string &value = f.matching.matches[i].floatOutput;
            SCOPED_TRACE(row.name + " / " + value);
            ASSERT_EQ(row.sampleRanges.size(), size_t(samples));
            ASSERT_EQ(naiveMin[value].size(), size_t(samples));
            for (int64_t s = 0; s < samples; ++s) {
                // Convolutions may sum in another order for another batch size: ulps apart.
                const float tolerance =
                    1e-5f * std::max(1.0f, naiveMax[value][s] - naiveMin[value][s]);
                EXPECT_NEAR(row.sampleRanges.min[s], naiveMin[value][s], tolerance)
                    << "sample " << s;
                EXPECT_NEAR(row.sampleRanges.max[s], naiveMax[value][s], tolerance)
                    << "sample " << s;
            }
            EXPECT_GT(row.sampleRanges.range(0), 0.0);  // real activations, not a constant
        }
    }
}

TEST(NumericSuite, InputsOfVeryDifferentScaleMakeTheRangeFindingFire) {
    // The fixture's images give per-sample ranges within ~2.6x of each other: no finding. With
    // every other image dimmed to 1/40 the first conv's ranges differ ~40x (bias and Relu
    // aside), and the diagnosis says so for the int8 layers.
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    NumericSuiteOptions options;
    options.threads = 1;
    options.isolated = options.kernelCheck = false;
    auto plain = runNumericSuite(f.floatGraph, f.quantGraph, batches(f, 16), options);
    ASSERT_TRUE(plain) << plain.status().message();
    for (const auto &finding : diagnose(*plain))
        EXPECT_NE(finding.kind, FindingKind::ActivationRangeVaries)
            << finding.layerName << " " << finding.value;

    Tensor dimmed = f.inputs.clone();
    const int64_t per = dimmed.numel() / dimmed.dim(0);
    for (int64_t s = 1; s < dimmed.dim(0); s += 2)
        for (int64_t i = 0; i < per; ++i) dimmed.data<float>()[s * per + i] /= 40.0f;
    const std::string input = f.floatGraph.inputs[0].name;
    auto report = runNumericSuite(
        f.floatGraph, f.quantGraph,
        [&]() -> Result<ActivationBatchSource> { return slicer(dimmed, input, 16); }, options);
    ASSERT_TRUE(report) << report.status().message();
    const auto findings = diagnose(*report);
    const Finding *conv1 = nullptr;
    for (const auto &finding : findings)
        if (finding.kind == FindingKind::ActivationRangeVaries &&
            finding.layerName == "/conv1/Conv")
            conv1 = &finding;
    ASSERT_TRUE(conv1);
    const auto summary = summarizeSampleRanges(report->layers[size_t(conv1->layer)].sampleRanges);
    ASSERT_TRUE(summary);
    EXPECT_EQ(conv1->value, summary->ratio);
    EXPECT_EQ(conv1->reference, summary->smallest);
    EXPECT_EQ(conv1->extra, summary->largest);
    EXPECT_GT(conv1->value, 20.0);
    EXPECT_LT(conv1->value, 200.0);
    for (const auto &finding : findings)  // folded into the range finding, not reported twice
        if (finding.kind == FindingKind::DataSensitive) EXPECT_NE(finding.layerName, "/conv1/Conv");
    std::printf("conv1 ranges %.3g to %.3g: %.1fx; per-sample SQNR folded in: %s\n",
                conv1->reference, conv1->extra, conv1->value, conv1->sampleSqnr ? "yes" : "no");
}

TEST(NumericSuite, LabelCountMustMatchTheSamples) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    NumericSuiteOptions options;
    options.isolated = options.kernelCheck = false;
    options.labels = labelsOf(f);
    options.labels.push_back(3);  // 65 labels, 64 samples
    auto tooMany = runNumericSuite(f.floatGraph, f.quantGraph, batches(f, 64), options);
    ASSERT_FALSE(tooMany);
    EXPECT_EQ(tooMany.status().message(), "labels: 65 labels for 64 samples");
    options.labels.resize(40);
    auto tooFew = runNumericSuite(f.floatGraph, f.quantGraph, batches(f, 32), options);
    ASSERT_FALSE(tooFew);
    EXPECT_NE(tooFew.status().message().find("40 labels, but the inputs hold more samples"),
              std::string::npos)
        << tooFew.status().message();
}

TEST(NumericSuite, UnmatchedLayersAreListedWithTheirModel) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    // An extra float-only layer: a Sigmoid on the output, which the quantized model does not have.
    Graph extended = f.floatGraph;
    Node sigmoid;
    sigmoid.name = "/extra/Sigmoid";
    sigmoid.opType = "Sigmoid";
    sigmoid.inputs = {extended.outputs[0].name};
    sigmoid.outputs = {"extra_out"};
    extended.nodes.push_back(sigmoid);
    extended.outputs[0].name = "extra_out";
    NumericSuiteOptions options;
    options.isolated = options.kernelCheck = false;
    auto report = runNumericSuite(extended, f.quantGraph, batches(f, 64), options);
    ASSERT_TRUE(report) << report.status().message();
    ASSERT_EQ(report->unmatched.size(), 1u);
    EXPECT_EQ(report->unmatched[0].name, "/extra/Sigmoid");
    EXPECT_EQ(report->unmatched[0].opType, "Sigmoid");
    EXPECT_EQ(report->unmatched[0].model, "float");
}

TEST(NumericSuite, CancelStopsWithCancelled) {
    Fixture f;
    ASSERT_TRUE(loadFixture(f));
    NumericSuiteOptions options;
    int calls = 0;
    options.progress = [&](const std::string &stage, int, int) {
        ++calls;
        return stage == "weights";  // cancel at the first data batch
    };
    auto report = runNumericSuite(f.floatGraph, f.quantGraph, batches(f, 8), options);
    ASSERT_FALSE(report);
    EXPECT_EQ(report.status().kind(), ErrorKind::Cancelled);
    EXPECT_EQ(calls, 2);  // weights started, the first batch (the weights finish after the passes)
}

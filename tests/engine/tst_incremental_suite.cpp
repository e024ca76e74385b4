// IncrementalSuite on the PyTorch FX fixture: an update re-runs only the lowered nodes downstream
// of the change, and its report equals a full runNumericSuite on the changed model; updates in
// any order (and back) stay equal; a changed layer matching is Unsupported; cancel changes nothing.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/session/incremental_suite.h"
#include "analysis/session/keep_layers_fp32.h"
#include "fx_fixture.h"

using namespace ql;
using namespace ql::analysis;
using namespace ql::test;

namespace {

struct SuiteSetup {
    Fixture f;
    std::vector<std::map<std::string, Tensor>> batches;
    NumericSuiteOptions options;

    bool load() {
        if (!loadFixture(f)) return false;
        auto source = slicer(f, 16);
        for (;;) {
            std::map<std::string, Tensor> batch;
            auto more = source(batch);
            if (!more || !*more) break;
            batches.push_back(batch);
        }
        options.threads = 1;
        for (int64_t i = 0; i < f.labels.numel(); ++i)
            options.labels.push_back(int64_t(f.labels.valueAsDouble(i)));
        return true;
    }
    BatchSourceFactory factory() const {
        return [this]() -> Result<ActivationBatchSource> {
            auto next = std::make_shared<size_t>(0);
            return ActivationBatchSource(
                [this, next](std::map<std::string, Tensor> &batch) -> Result<bool> {
                    if (*next >= batches.size()) return false;
                    batch = batches[(*next)++];
                    return true;
                });
        };
    }
    Graph toggled(const std::set<std::string> &layers) const {
        Graph g = f.quantGraph;
        std::vector<LayerMatch> matches;
        for (const auto &m : f.matching.matches)
            if (layers.count(m.floatNode)) matches.push_back(m);
        EXPECT_TRUE(keepLayersFp32(g, f.floatGraph, matches).isOk());
        return g;
    }
    NumericSuiteReport full(const Graph &quant) const {
        auto r = runNumericSuite(f.floatGraph, quant, factory(), options);
        EXPECT_TRUE(r) << r.status().message();
        return r ? *r : NumericSuiteReport{};
    }
};

bool close(double a, double b) {
    if (std::isinf(a) || std::isinf(b)) return a == b;
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

void expectEqualFigures(const NumericSuiteReport &a, const NumericSuiteReport &b) {
    ASSERT_EQ(a.layers.size(), b.layers.size());
    EXPECT_EQ(a.int8Layers, b.int8Layers);
    for (size_t i = 0; i < a.layers.size(); ++i) {
        const auto &x = a.layers[i], &y = b.layers[i];
        SCOPED_TRACE(x.name);
        EXPECT_EQ(x.precision, y.precision);
        EXPECT_EQ(x.precisionReason, y.precisionReason);
        EXPECT_EQ(x.weightSqnrDb.has_value(), y.weightSqnrDb.has_value());
        if (x.weightSqnrDb && y.weightSqnrDb) EXPECT_TRUE(close(*x.weightSqnrDb, *y.weightSqnrDb));
        ASSERT_EQ(x.cumulative.has_value(), y.cumulative.has_value());
        if (x.cumulative) {
            EXPECT_TRUE(close(x.cumulative->sqnrDb, y.cumulative->sqnrDb))
                << x.cumulative->sqnrDb << " " << y.cumulative->sqnrDb;
            EXPECT_TRUE(close(x.cumulative->mse, y.cumulative->mse));
            EXPECT_EQ(x.cumulative->samples, y.cumulative->samples);
            EXPECT_EQ(x.cumulative->saturationPct, y.cumulative->saturationPct);
            // The float output's per-sample ranges: the float model never changes, so exactly.
            EXPECT_EQ(x.sampleRanges.size(), size_t(x.cumulative->samples));
        }
        EXPECT_EQ(x.sampleRanges.min, y.sampleRanges.min);
        EXPECT_EQ(x.sampleRanges.max, y.sampleRanges.max);
        EXPECT_EQ(x.notes, y.notes);
    }
    ASSERT_EQ(a.outputs.size(), b.outputs.size());
    EXPECT_TRUE(close(a.outputs[0].sqnrDb, b.outputs[0].sqnrDb));
    EXPECT_EQ(a.outputs[0].top1Agreement, b.outputs[0].top1Agreement);
    EXPECT_EQ(a.outputs[0].quantAccuracy, b.outputs[0].quantAccuracy);
    EXPECT_EQ(a.outputs[0].floatAccuracy, b.outputs[0].floatAccuracy);
}

}  // namespace

TEST(IncrementalSuite, RerunsOnlyDownstreamOfTheChange) {
    SuiteSetup s;
    ASSERT_TRUE(s.load());
    auto suite = IncrementalSuite::create(s.f.floatGraph, s.f.quantGraph, s.batches,
                                          s.full(s.f.quantGraph), s.options, size_t(1) << 30);
    ASSERT_TRUE(suite) << suite.status().message();
    EXPECT_GT((*suite)->cachedBytes(), 0u);

    const Graph lastToggled = s.toggled({"/fc/Gemm"});
    auto last = (*suite)->update(lastToggled, s.options);
    ASSERT_TRUE(last) << last.status().message();
    const int lastRerun = (*suite)->lastRerunNodes();
    expectEqualFigures(*last, s.full(lastToggled));

    const Graph firstToggled = s.toggled({"/conv1/Conv"});
    auto first = (*suite)->update(firstToggled, s.options);
    ASSERT_TRUE(first) << first.status().message();
    const int firstRerun = (*suite)->lastRerunNodes();
    expectEqualFigures(*first, s.full(firstToggled));
    EXPECT_GT(lastRerun, 0);
    EXPECT_LT(lastRerun, firstRerun);
    EXPECT_LE(lastRerun, 4);  // the Gemm (and the plumbing around it)

    // Both, then the Gemm alone: only the Gemm's part runs, fed values of the model at creation.
    const Graph both = s.toggled({"/conv1/Conv", "/fc/Gemm"});
    auto bothReport = (*suite)->update(both, s.options);
    ASSERT_TRUE(bothReport);
    expectEqualFigures(*bothReport, s.full(both));
    auto lastAgain = (*suite)->update(lastToggled, s.options);
    ASSERT_TRUE(lastAgain);
    EXPECT_EQ((*suite)->lastRerunNodes(), lastRerun);
    expectEqualFigures(*lastAgain, *last);

    // Back to the start: the report at creation, exactly, with nothing re-run.
    auto back = (*suite)->update(s.f.quantGraph, s.options);
    ASSERT_TRUE(back);
    EXPECT_EQ((*suite)->lastRerunNodes(), 0);
    expectEqualFigures(*back, s.full(s.f.quantGraph));
    // The same model again re-runs nothing.
    auto same = (*suite)->update(s.f.quantGraph, s.options);
    ASSERT_TRUE(same);
    EXPECT_EQ((*suite)->lastRerunNodes(), 0);
    expectEqualFigures(*same, *back);
}

// Over the budget the caches keep what fits, batch by batch; the batches left out re-run whole
// (the float model too where its values or outputs were not kept), with the same figures.
TEST(IncrementalSuite, BatchesOverTheBudgetReRunWholeWithTheSameFigures) {
    SuiteSetup s;
    ASSERT_TRUE(s.load());
    ASSERT_GE(s.batches.size(), 3u);
    const NumericSuiteReport initial = s.full(s.f.quantGraph);
    auto all = IncrementalSuite::create(s.f.floatGraph, s.f.quantGraph, s.batches, initial,
                                        s.options, size_t(1) << 30);
    ASSERT_TRUE(all) << all.status().message();
    EXPECT_EQ((*all)->wholeBatches(), s.batches.size());
    const size_t allBytes = (*all)->cachedBytes();
    for (size_t budget : {allBytes / 2, size_t(1000), size_t(0)}) {
        SCOPED_TRACE(budget);
        auto suite = IncrementalSuite::create(s.f.floatGraph, s.f.quantGraph, s.batches, initial,
                                              s.options, budget);
        ASSERT_TRUE(suite) << suite.status().message();
        EXPECT_LE((*suite)->cachedBytes(), budget);
        if (budget == allBytes / 2) {
            EXPECT_GT((*suite)->wholeBatches(), 0u);
            EXPECT_LT((*suite)->wholeBatches(), s.batches.size());
        } else {
            EXPECT_EQ((*suite)->wholeBatches(), 0u);
        }
        for (const std::set<std::string> &layers :
             {std::set<std::string>{"/conv2/Conv"},
              std::set<std::string>{"/conv1/Conv", "/fc/Gemm"}, std::set<std::string>{}}) {
            const Graph g = s.toggled(layers);
            auto r = (*suite)->update(g, s.options);
            ASSERT_TRUE(r) << r.status().message();
            expectEqualFigures(*r, s.full(g));
        }
    }
}

// The fp32 search's sessions compare the outputs alone: the caches hold no float activation,
// and the output figures equal the full suite's.
TEST(IncrementalSuite, OutputsOnlyCachesNoFloatActivations) {
    SuiteSetup s;
    ASSERT_TRUE(s.load());
    NumericSuiteOptions outputsOnly = s.options;
    outputsOnly.compareLayers = false;
    outputsOnly.isolated = outputsOnly.kernelCheck = false;
    auto initial = runNumericSuite(s.f.floatGraph, s.f.quantGraph, s.factory(), outputsOnly);
    ASSERT_TRUE(initial) << initial.status().message();
    for (const LayerReport &row : initial->layers) {
        EXPECT_FALSE(row.cumulative.has_value());
        ASSERT_FALSE(row.notes.empty());
        EXPECT_NE(row.notes.front().find("compares the outputs only"), std::string::npos);
    }
    auto all = IncrementalSuite::create(s.f.floatGraph, s.f.quantGraph, s.batches, s.full(s.f.quantGraph),
                                        s.options, size_t(1) << 30);
    auto suite = IncrementalSuite::create(s.f.floatGraph, s.f.quantGraph, s.batches, *initial,
                                          outputsOnly, size_t(1) << 30);
    ASSERT_TRUE(all && suite);
    EXPECT_EQ((*suite)->wholeBatches(), s.batches.size());
    EXPECT_LT((*suite)->cachedBytes(), (*all)->cachedBytes());
    for (const std::set<std::string> &layers :
         {std::set<std::string>{"/conv2/Conv"}, std::set<std::string>{"/conv1/Conv", "/fc/Gemm"}}) {
        const Graph g = s.toggled(layers);
        auto r = (*suite)->update(g, outputsOnly);
        ASSERT_TRUE(r) << r.status().message();
        const NumericSuiteReport want = s.full(g);
        ASSERT_EQ(r->outputs.size(), want.outputs.size());
        EXPECT_TRUE(close(r->outputs[0].sqnrDb, want.outputs[0].sqnrDb));
        EXPECT_EQ(r->outputs[0].top1Agreement, want.outputs[0].top1Agreement);
        EXPECT_EQ(r->outputs[0].quantAccuracy, want.outputs[0].quantAccuracy);
        EXPECT_EQ(r->int8Layers, want.int8Layers);
    }
}

TEST(IncrementalSuite, CancelKeepsTheState) {
    SuiteSetup s;
    ASSERT_TRUE(s.load());
    const NumericSuiteReport initial = s.full(s.f.quantGraph);
    auto suite = IncrementalSuite::create(s.f.floatGraph, s.f.quantGraph, s.batches, initial,
                                          s.options, size_t(1) << 30);
    ASSERT_TRUE(suite);
    NumericSuiteOptions cancelling = s.options;
    cancelling.progress = [](const std::string &, int done, int) { return done < 2; };
    auto cancelled = (*suite)->update(s.toggled({"/conv2/Conv"}), cancelling);
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.status().kind(), ErrorKind::Cancelled);
    // The caches still describe the original model: toggling the fc now equals a full run.
    const Graph fc = s.toggled({"/fc/Gemm"});
    auto r = (*suite)->update(fc, s.options);
    ASSERT_TRUE(r);
    expectEqualFigures(*r, s.full(fc));
}

TEST(IncrementalSuite, IsolatedFiguresStayForLayersWhoseUnitDidNotChange) {
    SuiteSetup s;
    ASSERT_TRUE(s.load());
    // Isolated figures as a report with the shadow comparison would carry them.
    NumericSuiteReport initial = s.full(s.f.quantGraph);
    ASSERT_TRUE(initial.layers[0].isolated.has_value());
    const double int8Isolated = initial.layers[0].isolated->sqnrDb;  // /conv1/Conv
    for (size_t i = 0; i < initial.layers.size(); ++i) {
        initial.layers[i].isolated = ComparisonMetrics{};
        initial.layers[i].isolated->sqnrDb = 30.0 + double(i);
        initial.layers[i].kernelVsReferenceSqnrDb = 60.0 + double(i);
    }
    auto suite = IncrementalSuite::create(s.f.floatGraph, s.f.quantGraph, s.batches, initial,
                                          s.options, size_t(1) << 30);
    ASSERT_TRUE(suite);
    auto toggled = (*suite)->update(s.toggled({"/conv1/Conv"}), s.options);
    ASSERT_TRUE(toggled);
    for (size_t i = 0; i < toggled->layers.size(); ++i) {
        const LayerReport &row = toggled->layers[i];
        SCOPED_TRACE(row.name);
        if (row.name == "/conv1/Conv") {
            // Compared in isolation again: a float layer, its output still requantized for the
            // int8 layers after it, so only the output quantizer's error is left.
            ASSERT_TRUE(row.isolated.has_value());
            EXPECT_GT(row.isolated->sqnrDb, int8Isolated + 3.0);
            EXPECT_EQ(row.precision, "fp32");
        } else {
            // Downstream cumulative figures changed, their own isolated ones did not.
            ASSERT_TRUE(row.isolated.has_value());
            EXPECT_EQ(row.isolated->sqnrDb, 30.0 + double(i));
            EXPECT_EQ(row.kernelVsReferenceSqnrDb, 60.0 + double(i));
        }
    }
    auto back = (*suite)->update(s.f.quantGraph, s.options);
    ASSERT_TRUE(back);
    for (size_t i = 0; i < back->layers.size(); ++i) {
        ASSERT_TRUE(back->layers[i].isolated.has_value());
        EXPECT_EQ(back->layers[i].isolated->sqnrDb, 30.0 + double(i));
        EXPECT_EQ(back->layers[i].notes, initial.layers[i].notes);
    }
}

// The caches recorded from runNumericSuite's own passes are the ones the suite's own passes
// fill: the same bytes, the same budget decision to the byte, the same updates. Recording
// changes no figure of the suite's report.
TEST(IncrementalSuite, RecordedFromTheSuitesPassesEqualsItsOwnPasses) {
    SuiteSetup s;
    ASSERT_TRUE(s.load());
    const NumericSuiteReport initial = s.full(s.f.quantGraph);
    auto own = IncrementalSuite::create(s.f.floatGraph, s.f.quantGraph, s.batches, initial,
                                        s.options, size_t(1) << 30);
    ASSERT_TRUE(own) << own.status().message();
    const size_t ownBytes = (*own)->cachedBytes();

    auto recordWithBudget = [&](size_t budget, NumericSuiteReport &report) {
        IncrementalCacheRecorder recorder(budget, s.batches.size());
        auto r = runNumericSuite(s.f.floatGraph, s.f.quantGraph, s.factory(), s.options, &recorder);
        EXPECT_TRUE(r) << r.status().message();
        if (r) report = *r;
        return IncrementalSuite::create(s.f.floatGraph, s.f.quantGraph, s.batches, report,
                                        std::move(recorder));
    };
    NumericSuiteReport recordedReport;
    auto recorded = recordWithBudget(ownBytes, recordedReport);  // exactly enough
    ASSERT_TRUE(recorded) << recorded.status().message();
    expectEqualFigures(recordedReport, initial);
    EXPECT_EQ((*recorded)->cachedBytes(), ownBytes);

    // A byte less: the last batch keeps its float outputs alone, in both.
    NumericSuiteReport overReport;
    auto over = recordWithBudget(ownBytes - 1, overReport);
    ASSERT_TRUE(over) << over.status().message();
    expectEqualFigures(overReport, initial);
    auto ownOver = IncrementalSuite::create(s.f.floatGraph, s.f.quantGraph, s.batches, initial,
                                            s.options, ownBytes - 1);
    ASSERT_TRUE(ownOver) << ownOver.status().message();
    EXPECT_EQ((*over)->wholeBatches(), s.batches.size() - 1);
    EXPECT_EQ((*ownOver)->wholeBatches(), s.batches.size() - 1);
    EXPECT_EQ((*over)->cachedBytes(), (*ownOver)->cachedBytes());

    for (const std::set<std::string> &layers :
         {std::set<std::string>{"/conv2/Conv"}, std::set<std::string>{"/conv1/Conv", "/fc/Gemm"},
          std::set<std::string>{}}) {
        const Graph g = s.toggled(layers);
        auto a = (*recorded)->update(g, s.options);
        auto b = (*own)->update(g, s.options);
        ASSERT_TRUE(a && b);
        EXPECT_EQ((*recorded)->lastRerunNodes(), (*own)->lastRerunNodes());
        expectEqualFigures(*a, *b);
        expectEqualFigures(*a, s.full(g));
    }
}

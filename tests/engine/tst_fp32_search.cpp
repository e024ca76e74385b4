// The fp32 search on the embedded demo (a Fashion-MNIST CNN whose entropy-calibrated int8 model
// loses 25 dB in its first layers): the exhaustive answer is minimal (re-measured here over every
// smaller set), the greedy search finds a set of the same size, an unreachable target says so.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>

#include "analysis/search/fp32_search.h"
#include "onnx_io/model_loader.h"

using namespace ql;
using namespace ql::analysis;

namespace {

std::string demo(const std::string &file) {
    const char *root = std::getenv("QL_TEST_DATA");
    return std::string(root ? root : "tests/data") + "/../../resources/demo/" + file;
}

std::unique_ptr<AnalysisSession> demoSession(bool labels, bool inApp = false) {
    auto floatGraph = loadModel(demo("fashion_cnn.onnx"));
    auto quantGraph = loadModel(demo("fashion_cnn_int8.onnx"));
    EXPECT_TRUE(floatGraph.isOk() && quantGraph.isOk());
    std::optional<Graph> quant;
    if (!inApp) quant = std::move(*quantGraph);
    auto data = evaluationDataFromFiles(*floatGraph, {demo("samples.npy")}, 16);
    EXPECT_TRUE(data.isOk());
    if (labels) data->labels = readLabelsFile(demo("labels.npy")).value();
    SessionOptions options;
    options.suite.threads = 2;
    auto session = AnalysisSession::create(*floatGraph, quant, std::move(*data), options);
    EXPECT_TRUE(session.isOk()) << session.status().message();
    return session.isOk() ? std::move(*session) : nullptr;
}

SearchOptions target(const std::string &text, int exhaustiveUpTo = 14) {
    SearchOptions o;
    o.target = parseSearchTarget(text).value();
    o.exhaustiveUpTo = exhaustiveUpTo;
    return o;
}

}  // namespace

TEST(Fp32Search, Targets) {
    EXPECT_EQ(searchTargetName(parseSearchTarget("sqnr:35").value()), "sqnr:35");
    EXPECT_EQ(parseSearchTarget("agreement:99.5").value().metric, SearchMetric::Agreement);
    EXPECT_EQ(parseSearchTarget("accuracy-drop:0.5").value().value, 0.5);
    for (const char *bad : {"psnr:3", "sqnr:", "sqnr:x", "agreement:101", "accuracy-drop:-1"})
        EXPECT_EQ(parseSearchTarget(bad).status().kind(), ErrorKind::BadInput) << bad;
    EXPECT_TRUE(meetsTarget(35.0, parseSearchTarget("sqnr:35").value()));
    EXPECT_TRUE(meetsTarget(0.4, parseSearchTarget("accuracy-drop:0.5").value()));
    EXPECT_FALSE(meetsTarget(NAN, parseSearchTarget("sqnr:0").value()));
}

TEST(Fp32Search, ExhaustiveAnswerIsMinimalAndGreedyFindsTheSameSize) {
    auto session = demoSession(false);
    ASSERT_TRUE(session);
    for (double db : {25.0, 35.0, 40.0}) {
        const std::string text = "sqnr:" + std::to_string(static_cast<int>(db));
        auto exhaustive = searchFp32Layers(*session, target(text));
        ASSERT_TRUE(exhaustive.isOk()) << exhaustive.status().message();
        ASSERT_TRUE(exhaustive->reached) << text;
        EXPECT_TRUE(exhaustive->exhaustive);
        EXPECT_EQ(exhaustive->candidates.size(), 7u);
        EXPECT_GE(exhaustive->figure, db);
        const size_t k = exhaustive->layers.size();
        ASSERT_GE(k, 1u);
        // The session is left with the set: its report is the figure.
        EXPECT_DOUBLE_EQ(session->report().outputs.at(0).sqnrDb, exhaustive->figure);

        // Minimal: no set one smaller reaches the target (measured again here, set by set).
        const auto &c = exhaustive->candidates;
        for (unsigned mask = 0; mask < (1u << c.size()); ++mask) {
            if (static_cast<size_t>(__builtin_popcount(mask)) != k - 1) continue;
            std::set<std::string> layers;
            for (size_t i = 0; i < c.size(); ++i)
                if (mask & (1u << i)) layers.insert(c[i]);
            auto report = session->setFp32Layers(layers);
            ASSERT_TRUE(report.isOk());
            EXPECT_LT(report->outputs.at(0).sqnrDb, db)
                << text << " with " << layers.size() << " layers";
        }

        auto greedy = searchFp32Layers(*session, target(text, 0));
        ASSERT_TRUE(greedy.isOk()) << greedy.status().message();
        EXPECT_TRUE(greedy->reached);
        EXPECT_FALSE(greedy->exhaustive);
        EXPECT_EQ(greedy->layers.size(), k) << text;
        EXPECT_GE(greedy->figure, db);
        EXPECT_LT(greedy->evaluations.size(), exhaustive->evaluations.size() + 8) << text;
    }
}

TEST(Fp32Search, UnreachableTargetsAndBadInput) {
    auto session = demoSession(false);
    ASSERT_TRUE(session);
    auto result = searchFp32Layers(*session, target("sqnr:500"));
    ASSERT_TRUE(result.isOk());
    EXPECT_FALSE(result->reached);
    EXPECT_EQ(result->evaluations.size(), 2u);  // as quantized, then all fp32: nothing more to try
    EXPECT_EQ(result->layers.size(), 7u);
    EXPECT_GT(result->allRaisedFigure,
              100.0);  // every layer in fp32: the float model, up to rounding

    SearchOptions budget = target("sqnr:40");
    budget.maxEvaluations = 5;
    auto stopped = searchFp32Layers(*session, budget);
    ASSERT_TRUE(stopped.isOk());
    EXPECT_TRUE(stopped->budgetExhausted);
    EXPECT_FALSE(stopped->exhaustive);
    EXPECT_EQ(stopped->evaluations.size(), 5u);

    auto noLabels = searchFp32Layers(*session, target("accuracy-drop:0.5"));
    ASSERT_FALSE(noLabels.isOk());
    EXPECT_EQ(noLabels.status().kind(), ErrorKind::BadInput);

    auto labelled = demoSession(true);
    auto drop = searchFp32Layers(*labelled, target("accuracy-drop:0"));
    ASSERT_TRUE(drop.isOk());
    EXPECT_TRUE(drop->reached);
    EXPECT_LE(drop->figure, 0.0);
}

TEST(Fp32Search, HoldoutTakesTheLastWholeBatchesAndTheirLabels) {
    auto floatGraph = loadModel(demo("fashion_cnn.onnx"));
    ASSERT_TRUE(floatGraph.isOk());
    auto data = evaluationDataFromFiles(*floatGraph, {demo("samples.npy")}, 16);
    ASSERT_TRUE(data.isOk());
    data->labels = readLabelsFile(demo("labels.npy")).value();
    const std::vector<int64_t> labels = data->labels;
    auto split = splitHoldout(std::move(*data), 0.25);
    ASSERT_TRUE(split.isOk()) << split.status().message();
    EXPECT_EQ(split->first.samples, 48);
    EXPECT_EQ(split->second.samples, 16);
    EXPECT_EQ(split->first.batches.size(), 3u);
    EXPECT_EQ(split->second.labels, std::vector<int64_t>(labels.begin() + 48, labels.end()));
    EXPECT_EQ(split->first.labels, std::vector<int64_t>(labels.begin(), labels.begin() + 48));

    auto one = evaluationDataFromFiles(*floatGraph, {demo("samples.npy")}, 64);
    ASSERT_TRUE(one.isOk());
    EXPECT_EQ(splitHoldout(std::move(*one), 0.25).status().kind(), ErrorKind::BadInput);
}

// The timed sets: the front holds no dominated point, starts with the model as quantized (the
// fewest layers), holds the layer-count answer; the latency objective's answer meets the target
// and is within the tie band of every timed set meeting it.
TEST(Fp32Search, ParetoFrontAndLatencyObjective) {
    auto session = demoSession(false);
    ASSERT_TRUE(session);
    auto layers = searchFp32Layers(*session, target("sqnr:35"));
    ASSERT_TRUE(layers.isOk()) << layers.status().message();
    ASSERT_TRUE(layers->reached);
    EXPECT_GT(layers->latencyMs, 0.0);
    EXPECT_EQ(layers->latencyBatchSamples, 16);
    ASSERT_GE(layers->pareto.size(), 2u);
    EXPECT_TRUE(layers->pareto.front().layers.empty());
    bool holdsAnswer = false;
    for (const ParetoPoint &p : layers->pareto) {
        holdsAnswer = holdsAnswer || p.layers == layers->layers;
        EXPECT_EQ(p.meetsTarget, p.figure >= 35.0);
        bool measured = false;
        for (const SearchEvaluation &e : layers->evaluations)
            measured = measured || (e.layers == p.layers && e.figure == p.figure);
        EXPECT_TRUE(measured) << "a front point that the search never measured";
        for (const ParetoPoint &q : layers->pareto) {
            const bool noWorse = q.layers.size() <= p.layers.size() && q.latencyMs <= p.latencyMs &&
                                 q.figure >= p.figure;
            const bool better = q.layers.size() < p.layers.size() || q.latencyMs < p.latencyMs ||
                                q.figure > p.figure;
            EXPECT_FALSE(noWorse && better) << "a dominated point in the front";
        }
    }
    EXPECT_TRUE(holdsAnswer);

    SearchOptions fastest = target("sqnr:35");
    fastest.objective = SearchObjective::Latency;
    auto latency = searchFp32Layers(*session, fastest);
    ASSERT_TRUE(latency.isOk()) << latency.status().message();
    ASSERT_TRUE(latency->reached);
    EXPECT_GE(latency->figure, 35.0);
    EXPECT_DOUBLE_EQ(session->report().outputs.at(0).sqnrDb, latency->figure);
    for (const ParetoPoint &p : latency->pareto)
        if (p.meetsTarget) EXPECT_LE(latency->latencyMs, p.latencyMs * (1.0 + fastest.latencyTies));
    EXPECT_TRUE(parseSearchObjective("latency", fastest.objective));
    EXPECT_FALSE(parseSearchObjective("speed", fastest.objective));
}

// Where only "does this set meet the target" matters (the exhaustive sizes, the pruning), an
// evaluation stops once the target is out of reach. The answers are those of the search that
// measures every set in full, and every stopped set, measured in full, misses the target by at
// least what the bound said.
TEST(Fp32Search, EarlyStopGivesTheSameAnswers) {
    struct Case {
        const char *target;
        bool labels;
        int exhaustiveUpTo;
    };
    int stoppedInAll = 0;
    for (const Case &c : {Case{"sqnr:35", false, 14}, Case{"sqnr:40", false, 0},
                          Case{"agreement:100", false, 14}, Case{"accuracy-drop:0", true, 14}}) {
        auto session = demoSession(c.labels);
        ASSERT_TRUE(session);
        SearchOptions full = target(c.target, c.exhaustiveUpTo);
        full.earlyStop = false;
        auto measured = searchFp32Layers(*session, full);
        ASSERT_TRUE(measured.isOk()) << measured.status().message();
        EXPECT_EQ(measured->stoppedEarly, 0);

        auto fresh = demoSession(c.labels);
        ASSERT_TRUE(fresh);
        auto stopping = searchFp32Layers(*fresh, target(c.target, c.exhaustiveUpTo));
        ASSERT_TRUE(stopping.isOk()) << stopping.status().message();
        EXPECT_EQ(stopping->reached, measured->reached) << c.target;
        EXPECT_EQ(stopping->layers, measured->layers) << c.target;
        EXPECT_DOUBLE_EQ(stopping->figure, measured->figure) << c.target;
        EXPECT_EQ(stopping->evaluations.size(), measured->evaluations.size()) << c.target;
        stoppedInAll += stopping->stoppedEarly;

        const SearchTarget t = parseSearchTarget(c.target).value();
        for (const SearchEvaluation &e : stopping->evaluations) {
            if (!e.stoppedEarly) continue;
            EXPECT_TRUE(std::isnan(e.figure));
            EXPECT_FALSE(meetsTarget(e.bound, t)) << c.target;
            auto report = fresh->setFp32Layers({e.layers.begin(), e.layers.end()});
            ASSERT_TRUE(report.isOk());
            const double figure = searchMetricValue(*report, t.metric);
            EXPECT_FALSE(meetsTarget(figure, t)) << c.target;
            // The bound is the best the rest could give: the full figure is no better.
            EXPECT_FALSE(betterFigure(figure, e.bound + (t.metric == SearchMetric::AccuracyDrop ? -1e-9 : 1e-9),
                                      t.metric))
                << c.target << ": " << figure << " against the bound " << e.bound;
        }
    }
    EXPECT_GT(stoppedInAll, 0);  // the demo's searches do stop some evaluations
}

// Issue 37: 16-bit layers as the search's choice, on the demo quantized in the app (its own
// min-max int8 model: 41 dB). The 16-bit answer is minimal (exhaustive) and re-measures to its
// figure; searching both precisions answers with the fewer layers (16 bits on a tie) and its
// Pareto front holds sets of both; a quantized model file refuses 16 bits in one line.
TEST(Fp32Search, SixteenBitLayersAsTheChoice) {
    std::vector<SearchPrecision> both;
    ASSERT_TRUE(parseSearchPrecisions("fp32,int16", both));
    EXPECT_EQ(both, (std::vector<SearchPrecision>{SearchPrecision::Fp32, SearchPrecision::Int16}));
    for (const char *bad : {"", "int8", "fp32,fp32", "int16,"})
        EXPECT_FALSE(parseSearchPrecisions(bad, both)) << bad;

    auto session = demoSession(false, true);
    ASSERT_TRUE(session);
    const double int8 = session->report().outputs.at(0).sqnrDb;
    SearchOptions sixteen = target("sqnr:48");
    sixteen.precisions = {SearchPrecision::Int16};
    auto found = searchFp32Layers(*session, sixteen);
    ASSERT_TRUE(found.isOk()) << found.status().message();
    ASSERT_TRUE(found->reached);
    EXPECT_EQ(found->precision, SearchPrecision::Int16);
    EXPECT_TRUE(found->exhaustive);
    EXPECT_FALSE(found->layers.empty());
    EXPECT_GT(found->allRaisedFigure, int8 + 10.0);
    // The session stands on the answer: those layers at 16 bits, none in fp32.
    EXPECT_TRUE(session->fp32Layers().empty());
    EXPECT_EQ(session->layerRemedies().int16,
              std::set<std::string>(found->layers.begin(), found->layers.end()));
    EXPECT_NEAR(session->report().outputs.at(0).sqnrDb, found->figure, 1e-9);
    for (const std::string &name : found->layers)
        for (const LayerReport &row : session->report().layers)
            if (row.name == name) EXPECT_EQ(row.precision, "int16") << name;
    // Minimal: no smaller set at 16 bits was recorded meeting the target.
    for (const SearchEvaluation &e : found->evaluations) {
        EXPECT_EQ(e.precision, SearchPrecision::Int16);
        if (e.layers.size() < found->layers.size()) EXPECT_FALSE(e.figure >= 48.0);
    }

    SearchOptions either = target("sqnr:48");
    either.precisions = {SearchPrecision::Fp32, SearchPrecision::Int16};
    auto answer = searchFp32Layers(*session, either);
    ASSERT_TRUE(answer.isOk()) << answer.status().message();
    ASSERT_EQ(answer->byPrecision.size(), 2u);
    const PrecisionOutcome &fp32 = answer->byPrecision[0], &int16 = answer->byPrecision[1];
    EXPECT_EQ(int16.layers, found->layers);
    ASSERT_TRUE(fp32.reached && int16.reached);
    const PrecisionOutcome &expected = int16.layers.size() <= fp32.layers.size() ? int16 : fp32;
    EXPECT_EQ(answer->precision, expected.precision);
    EXPECT_EQ(answer->layers, expected.layers);
    std::set<SearchPrecision> onFront;
    for (const ParetoPoint &p : answer->pareto)
        if (!p.layers.empty()) onFront.insert(p.precision);
    EXPECT_EQ(onFront.size(), 2u) << "the front holds fp32 and 16-bit sets";

    auto file = demoSession(false);
    ASSERT_TRUE(file);
    auto refused = searchFp32Layers(*file, sixteen);
    ASSERT_FALSE(refused.isOk());
    EXPECT_NE(refused.status().message().find("quantized in the app"), std::string::npos)
        << refused.status().message();
}

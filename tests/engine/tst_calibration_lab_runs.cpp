// The calibration lab on the embedded demo (a Fashion-MNIST CNN, 64 training images as the pool,
// 64 labelled test images): the plan's draws, identical runs, the statistics recomputed from the
// predictions, a run's model against calibrating on its files directly, cancel and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "analysis/calibration_lab/calibration_lab.h"
#include "analysis/session/analysis_session.h"
#include "core/stop_token.h"
#include "onnx_io/model_loader.h"
#include "onnx_io/tensor_file.h"
#include "quant/calibration_data.h"
#include "quant/remedies/bias_correction.h"
#include "test_support.h"

using namespace ql;
using namespace ql::analysis;

namespace {

std::string demoDir() {
    const char *root = std::getenv("QL_TEST_DATA");
    return std::string(root ? root : "tests/data") + "/../../resources/demo/";
}

CalibrationMethod method(const std::string &name) {
    auto m = parseCalibrationMethod(name);
    EXPECT_TRUE(m.isOk()) << name;
    return m.isOk() ? *m : CalibrationMethod{};
}

CalibrationLabOptions demoOptions() {
    CalibrationLabOptions o;
    auto pool = quant::listCalibrationFiles({demoDir() + "pool"});
    EXPECT_TRUE(pool.isOk());
    if (pool.isOk()) o.poolFiles = *pool;
    o.evalFiles = {demoDir() + "samples.npy"};
    auto labels = readLabelsFile(demoDir() + "labels.npy");
    EXPECT_TRUE(labels.isOk());
    if (labels.isOk()) o.labels = *labels;
    o.seed = 7;
    o.threads = 2;
    o.bootstrapResamples = 500;
    return o;
}

Graph demoModel() {
    auto g = loadModel(demoDir() + "fashion_cnn.onnx");
    EXPECT_TRUE(g.isOk()) << g.status().message();
    return g.isOk() ? *g : Graph{};
}

const CalibrationRunResult &runById(const CalibrationLabResult &lab, const std::string &id) {
    for (const auto &r : lab.runs)
        if (r.spec.id == id) return r;
    ADD_FAILURE() << "no run " << id;
    return lab.runs.front();
}

}  // namespace

TEST(CalibrationLabPlan, MethodNames) {
    EXPECT_EQ(calibrationMethodName(method("percentile:99.99")), "percentile:99.99");
    EXPECT_EQ(method("percentile").percentile, 99.999);
    EXPECT_EQ(calibrationMethodName(method("moving_average")), "moving-average");
    EXPECT_EQ(calibrationMethodName(method("KL")), "entropy");
    for (const char *bad :
         {"median", "minmax:3", "percentile:0", "percentile:101", "percentile:x"}) {
        auto m = parseCalibrationMethod(bad);
        ASSERT_FALSE(m.isOk()) << bad;
        EXPECT_EQ(m.status().kind(), ErrorKind::BadInput);
        EXPECT_NE(m.status().message().find(bad), std::string::npos) << m.status().message();
    }
}

TEST(CalibrationLabPlan, DrawsAreSeededSortedAndSharedByTheMethods) {
    CalibrationLabOptions o;
    for (int i = 0; i < 64; ++i) o.poolFiles.push_back("f" + std::to_string(i));
    o.methods = {method("minmax"), method("entropy")};
    o.sizes = {8, 64};
    o.repeats = 3;
    o.seed = 5;
    const auto runs = planCalibrationRuns(o, {});
    ASSERT_EQ(runs.size(), 12u);
    EXPECT_EQ(runs.front().id, "minmax-n8-r1-b1");
    std::map<std::pair<int64_t, int>, std::vector<int64_t>> drawn;
    for (const auto &r : runs) {
        ASSERT_EQ(static_cast<int64_t>(r.calibIndices.size()), r.size);
        EXPECT_TRUE(std::is_sorted(r.calibIndices.begin(), r.calibIndices.end()));
        EXPECT_EQ(std::set<int64_t>(r.calibIndices.begin(), r.calibIndices.end()).size(),
                  r.calibIndices.size());
        EXPECT_GE(r.calibIndices.front(), 0);
        EXPECT_LT(r.calibIndices.back(), 64);
        auto [it, fresh] = drawn.emplace(std::make_pair(r.size, r.repeat), r.calibIndices);
        if (!fresh) EXPECT_EQ(it->second, r.calibIndices) << "methods share the draws: " << r.id;
    }
    EXPECT_NE(drawn[std::make_pair(int64_t{8}, 1)], drawn[std::make_pair(int64_t{8}, 2)]);
    EXPECT_NE(drawn[std::make_pair(int64_t{8}, 2)], drawn[std::make_pair(int64_t{8}, 3)]);
    EXPECT_EQ(calibrationKey(runs[9]),
              calibrationKey(runs[10]));  // entropy n64: every repeat is the pool
    EXPECT_NE(calibrationKey(runs[0]), calibrationKey(runs[6]));  // another method

    EXPECT_EQ(planCalibrationRuns(o, {})[1].calibIndices, runs[1].calibIndices);  // seeded
    o.seed = 6;
    EXPECT_NE(planCalibrationRuns(o, {})[1].calibIndices, runs[1].calibIndices);

    o.selection = CalibrationSelection::First;
    EXPECT_EQ(planCalibrationRuns(o, {})[2].calibIndices,
              (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));

    // Stratified: 4 classes of 16 files; 8 files take 2 of each.
    o.selection = CalibrationSelection::Stratified;
    std::vector<int64_t> classes;
    for (int i = 0; i < 64; ++i) classes.push_back(i % 4);
    for (const auto &r : planCalibrationRuns(o, classes)) {
        if (r.size != 8) continue;
        std::map<int64_t, int> perClass;
        for (int64_t i : r.calibIndices) ++perClass[classes[static_cast<size_t>(i)]];
        EXPECT_EQ(perClass, (std::map<int64_t, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}})) << r.id;
    }
}

TEST(CalibrationLab, RunsOnTheDemoWithStatisticsFromItsOwnPredictions) {
    CalibrationLabOptions o = demoOptions();
    o.methods = {method("minmax"), method("entropy"), method("moving-average")};
    o.sizes = {8, 64};
    o.repeats = 2;
    o.calibBatches = {1, 4};
    const Graph g = demoModel();
    auto lab = CalibrationLab::create(g, o);
    ASSERT_TRUE(lab.isOk()) << lab.status().message();
    auto result = (*lab)->run();
    ASSERT_TRUE(result.isOk()) << result.status().message();
    const CalibrationLabResult &r = *result;
    ASSERT_TRUE(r.complete);
    ASSERT_EQ(r.runs.size(), 24u);
    EXPECT_EQ(r.poolSamples, 64);
    EXPECT_EQ(r.evalRows, 64);
    ASSERT_TRUE(r.floatModel.accuracy.has_value());

    // Identical calibrations are evaluated once: the batch size changes only the moving average,
    // and at n = 64 every repeat calibrates on the whole pool.
    EXPECT_EQ(runById(r, "minmax-n8-r1-b4").identicalTo, "minmax-n8-r1-b1");
    EXPECT_EQ(runById(r, "entropy-n8-r2-b4").identicalTo, "entropy-n8-r2-b1");
    EXPECT_EQ(runById(r, "minmax-n64-r2-b1").identicalTo, "minmax-n64-r1-b1");
    EXPECT_EQ(runById(r, "moving-average-n8-r1-b4").identicalTo, "");
    EXPECT_EQ(runById(r, "moving-average-n64-r2-b4").identicalTo, "moving-average-n64-r1-b4");
    EXPECT_EQ(runById(r, "minmax-n8-r1-b1").identicalTo, "");
    // The moving average does see the batch size: on all 64 samples its range at batch 4 (16
    // batches) differs from batch 1 (64 batches), and so does the model's output.
    EXPECT_NE(runById(r, "moving-average-n64-r1-b4").sqnrDb,
              runById(r, "moving-average-n64-r1-b1").sqnrDb);

    for (const auto &run : r.runs) {
        ASSERT_EQ(run.predictions.size(), 64u) << run.spec.id;
        int64_t correct = 0, agree = 0;
        for (size_t i = 0; i < 64; ++i) {
            correct += run.predictions[i] == o.labels[i];
            agree += run.predictions[i] == r.floatModel.predictions[i];
        }
        ASSERT_TRUE(run.accuracy.has_value());
        EXPECT_DOUBLE_EQ(*run.accuracy, correct / 64.0) << run.spec.id;
        EXPECT_DOUBLE_EQ(run.top1Agreement, agree / 64.0) << run.spec.id;
        EXPECT_DOUBLE_EQ(run.accuracyCi95->low, wilsonInterval(correct, 64).low);
        EXPECT_DOUBLE_EQ(run.accuracyCi95->high, wilsonInterval(correct, 64).high);
        EXPECT_GT(run.sqnrDb, 10.0) << run.spec.id;  // int8 of this CNN: 14-42 dB
    }
    // minmax on 64 samples is the demo's best calibration (README: about 41 dB).
    EXPECT_GT(runById(r, "minmax-n64-r1-b1").sqnrDb, 38.0);

    // Comparisons: best vs worst, each method's best vs float, size steps, batch steps.
    std::map<std::string, int> kinds;
    for (const auto &c : r.comparisons) {
        ++kinds[c.kind];
        auto predictions = [&](const std::string &id) {
            return id == "float" ? r.floatModel.predictions : runById(r, id).predictions;
        };
        const auto a = predictions(c.a), b = predictions(c.b);
        int64_t n01 = 0, n10 = 0;
        for (size_t i = 0; i < 64; ++i) {
            const bool ra = a[i] == o.labels[i], rb = b[i] == o.labels[i];
            n01 += !ra && rb;
            n10 += ra && !rb;
        }
        EXPECT_EQ(c.n01, n01) << c.a << " vs " << c.b;
        EXPECT_EQ(c.n10, n10) << c.a << " vs " << c.b;
        EXPECT_DOUBLE_EQ(c.mcnemarP, mcnemarExactP(n01, n10));
        EXPECT_DOUBLE_EQ(c.diff, (n10 - n01) / 64.0);
        EXPECT_LE(c.diffCi95.low, c.diff + 1e-12);
        EXPECT_GE(c.diffCi95.high, c.diff - 1e-12);
        EXPECT_FALSE(c.verdict.empty());
    }
    EXPECT_EQ(kinds["best_vs_worst"], 1);
    EXPECT_EQ(kinds["method_vs_float"], 3);
    EXPECT_EQ(kinds["size_step"], 6);   // 3 methods x 2 batch sizes x (8 -> 64)
    EXPECT_EQ(kinds["batch_step"], 6);  // 3 methods x 2 sizes x (1 -> 4)
}

TEST(CalibrationLab, ARunsModelIsWhatCalibratingOnItsFilesGives) {
    CalibrationLabOptions o = demoOptions();
    o.methods = {method("entropy"), method("moving-average")};
    o.sizes = {16};
    o.repeats = 1;
    o.calibBatches = {3};
    const Graph g = demoModel();
    auto lab = CalibrationLab::create(g, o);
    ASSERT_TRUE(lab.isOk()) << lab.status().message();
    for (const CalibrationRunSpec &spec : (*lab)->plannedRuns()) {
        auto fromLab = (*lab)->quantizeRun(spec);
        ASSERT_TRUE(fromLab.isOk()) << fromLab.status().message();
        // `quantize --calib <files> --calib-batch 3`: calibrate on the files in batches of 3.
        std::vector<std::string> files;
        for (int64_t i : spec.calibIndices) files.push_back(o.poolFiles[static_cast<size_t>(i)]);
        auto source = quant::fileBatchSource(g, files, spec.calibBatch);
        ASSERT_TRUE(source.isOk());
        quant::CalibrationStatistics stats;
        ASSERT_TRUE(quant::calibrate(g, *source, stats).isOk());
        EXPECT_EQ(stats.batchCount(), 6);  // 16 samples in batches of 3
        auto direct = quant::quantizeGraph(g, stats, (*lab)->quantizerOptions(spec));
        ASSERT_TRUE(direct.isOk());
        const auto &a = fromLab->plan.activations, &b = direct->plan.activations;
        ASSERT_EQ(a.size(), b.size());
        ASSERT_FALSE(a.empty());
        for (const auto &[value, q] : a) {
            ASSERT_TRUE(b.count(value)) << value;
            // The lab's merged histograms are the calibration's histograms, but the float model
            // ran at batch 1 in the lab and at batch 3 here: on AVX2 oneDNN sums in another order
            // per batch size, moving values by ULPs and a range by up to a bin or two of the
            // >= 1024 the data fills. Bit equality holds where the kernels do not change.
            ASSERT_EQ(q.scale.size(), b.at(value).scale.size());
            for (size_t c = 0; c < q.scale.size(); ++c) {
                EXPECT_NEAR(q.scale[c], b.at(value).scale[c], 2.0 / 1024 * q.scale[c]) << spec.id << " " << value;
                EXPECT_NEAR(q.zeroPoint[c], b.at(value).zeroPoint[c], 1) << spec.id << " " << value;
            }
        }
        auto batches = (*lab)->calibrationBatches(spec);
        ASSERT_TRUE(batches.isOk());
        EXPECT_EQ(batches->size(), 6u);
        EXPECT_EQ(batches->front().at("input").dim(0), 3);
    }
}

namespace {
// Eight runs on the demo (two methods, two sizes, two repeats): enough to cancel in the middle.
CalibrationLabOptions eightRunOptions() {
    CalibrationLabOptions o = demoOptions();
    o.methods = {method("minmax"), method("mse")};
    o.sizes = {8, 16};
    o.repeats = 2;
    return o;
}
}  // namespace

TEST(CalibrationLab, CancelKeepsTheFinishedRuns) {
    const CalibrationLabOptions o = eightRunOptions();
    auto lab = CalibrationLab::create(demoModel(), o);
    ASSERT_TRUE(lab.isOk()) << lab.status().message();
    auto result = (*lab)->run(
        [](const std::string &stage, int done, int) { return stage != "runs" || done < 3; });
    ASSERT_TRUE(result.isOk()) << result.status().message();
    EXPECT_FALSE(result->complete);
    EXPECT_EQ(result->runsPlanned, 8);
    // Workers evaluate runs side by side: those under way when Cancel came are dropped.
    EXPECT_GE(result->runs.size(), 3u);
    EXPECT_LT(result->runs.size(), 8u);
    EXPECT_FALSE(result->comparisons.empty());  // of the finished runs

    // Cancelled during the pool pass: no lab at all.
    auto early = CalibrationLab::create(
        demoModel(), o,
        [](const std::string &stage, int done, int) { return stage != "pool" || done < 5; });
    ASSERT_FALSE(early.isOk());
    EXPECT_EQ(early.status().kind(), ErrorKind::Cancelled);
}

TEST(CalibrationLab, StopFlagStopsTheWorkersMidRun) {
    auto lab = CalibrationLab::create(demoModel(), eightRunOptions());
    ASSERT_TRUE(lab.isOk()) << lab.status().message();
    std::atomic<bool> stop{false};
    StopScope scope(&stop);
    // The callback never says stop; the calling thread's flag (the GUI's Cancel) does.
    auto result = (*lab)->run([&](const std::string &, int done, int) {
        if (done >= 1) stop = true;
        return true;
    });
    ASSERT_TRUE(result.isOk()) << result.status().message();
    EXPECT_FALSE(result->complete);
    EXPECT_GE(result->runs.size(), 1u);
    EXPECT_LT(result->runs.size(), 8u);
}

TEST(CalibrationLab, BadInputNamesTheOffendingValue) {
    const Graph g = demoModel();
    auto expectBad = [&](CalibrationLabOptions o, const std::string &needle) {
        if (o.methods.empty()) o.methods = {method("minmax")};
        if (o.sizes.empty()) o.sizes = {8};
        auto lab = CalibrationLab::create(g, o);
        ASSERT_FALSE(lab.isOk()) << needle;
        EXPECT_EQ(lab.status().kind(), ErrorKind::BadInput) << lab.status().message();
        EXPECT_NE(lab.status().message().find(needle), std::string::npos) << lab.status().message();
    };
    CalibrationLabOptions o = demoOptions();
    o.sizes = {8, 65};
    expectBad(o, "size 65 is larger than the pool (64 files)");
    o = demoOptions();
    o.poolFiles.clear();
    expectBad(o, "pool is empty");
    o = demoOptions();
    o.labels.pop_back();
    expectBad(o, "63 labels for 64 evaluation rows");
    o = demoOptions();
    o.calibBatches = {0};
    expectBad(o, "calibration batch 0");

    // A pool file of another image size: the error names the file.
    const std::string bad =
        (std::filesystem::temp_directory_path() / "ql_lab_bad_shape.npy").string();
    ASSERT_TRUE(writeNpy(bad, test::randomTensor({1, 27, 28}, 3)).isOk());
    o = demoOptions();
    o.poolFiles.push_back(bad);
    expectBad(o, "ql_lab_bad_shape.npy");
    std::filesystem::remove(bad);
}

// Remedies as a lab axis: every calibration once per remedy set, the remedied run compared with
// the same calibration without remedies, the remedies applied to the run's own files (its model
// is `quantize --remedy` on them), and the remedies that rescale the float model refused.
TEST(CalibrationLab, RemediesAreAnAxisComparedWithTheSameCalibration) {
    CalibrationLabOptions o = demoOptions();
    o.methods = {method("minmax")};
    o.sizes = {16, 32};
    o.repeats = 3;
    o.quantizer.perChannelWeights = false;
    for (const char *set : {"none", "bias-correction", "adaround+bias-correction"}) {
        auto remedies = parseLabRemedies(set);
        ASSERT_TRUE(remedies.isOk()) << set;
        EXPECT_EQ(labRemediesName(*remedies), set);
        o.remedies.push_back(*remedies);
    }
    o.remedies.erase(o.remedies.begin());  // the default's "none" was first already
    const Graph g = demoModel();
    auto lab = CalibrationLab::create(g, o);
    ASSERT_TRUE(lab.isOk()) << lab.status().message();
    ASSERT_EQ((*lab)->plannedRuns().size(), 2u * 3u * 3u);
    auto result = (*lab)->run();
    ASSERT_TRUE(result.isOk()) << result.status().message();

    // Per size: each remedied set against its twin without remedies, on the plain runs' median
    // repeat.
    int remedyComparisons = 0;
    for (const RunComparison &c : result->comparisons) {
        if (c.kind == "best_vs_worst") continue;  // over every run
        if (c.kind != "remedy_vs_none") {
            // The other comparisons are between calibrations without remedies.
            EXPECT_EQ(c.a.find('+'), std::string::npos) << c.kind << " " << c.a;
            EXPECT_EQ(c.b.find('+'), std::string::npos) << c.kind << " " << c.b;
            continue;
        }
        ++remedyComparisons;
        const std::string plain = c.a.substr(0, c.a.find('+'));
        EXPECT_EQ(c.b, plain);
        const CalibrationRunResult &a = runById(*result, c.a), &b = runById(*result, c.b);
        EXPECT_EQ(a.spec.calibIndices, b.spec.calibIndices);
        EXPECT_TRUE(a.spec.remedies.any());
        EXPECT_LE(c.mcnemarP, 1.0);
        std::printf("%s: SQNR %.2f dB vs %.2f dB without; %s\n", c.a.c_str(), a.sqnrDb, b.sqnrDb,
                    c.verdict.c_str());
    }
    EXPECT_EQ(remedyComparisons, 2 * 2);

    // A remedied run's model: the plain run's plan, its biases moved (and its weights rounded
    // otherwise) by the remedies on its calibration files.
    const CalibrationRunSpec *corrected = (*lab)->findRun("minmax-n16-r1-b1+bias-correction");
    const CalibrationRunSpec *plain = (*lab)->findRun("minmax-n16-r1-b1");
    ASSERT_TRUE(corrected && plain);
    auto withBias = (*lab)->quantizeRun(*corrected), without = (*lab)->quantizeRun(*plain);
    ASSERT_TRUE(withBias.isOk() && without.isOk());
    size_t movedBiases = 0;
    for (const auto &[key, bias] : without->plan.biases) {
        const Tensor *a = withBias->model.initializer(bias.initializer + "_quantized");
        const Tensor *b = without->model.initializer(bias.initializer + "_quantized");
        if (a && b && a->toFloatVector() != b->toFloatVector()) ++movedBiases;
    }
    EXPECT_GE(movedBiases, 1u);
    // The same correction by hand on the run's files: the same int32 biases (within one step:
    // the lab's workers sum the means in another order).
    auto batches = (*lab)->calibrationBatches(*corrected);
    ASSERT_TRUE(batches.isOk());
    Graph source = g;
    quant::addZeroBiases(source);
    Graph prepared = quant::prepareFloatGraph(source, true);
    // The correction moves biases only: the remedied run's plan is the one it started from.
    auto byHand = quant::correctBiases(prepared, withBias->plan, quant::batchesOpener(*batches));
    ASSERT_TRUE(byHand.isOk()) << byHand.status().message();
    EXPECT_GE(byHand->layers.size(), 1u);
    auto rebuilt = quant::buildQdqGraph(prepared, withBias->plan);
    ASSERT_TRUE(rebuilt.isOk());
    for (const auto &[key, bias] : withBias->plan.biases) {
        const Tensor *lab32 = withBias->model.initializer(bias.initializer + "_quantized");
        const Tensor *hand32 = rebuilt->initializer(bias.initializer + "_quantized");
        ASSERT_TRUE(lab32 && hand32) << bias.initializer;
        const std::vector<float> a = lab32->toFloatVector(), b = hand32->toFloatVector();
        ASSERT_EQ(a.size(), b.size());
        for (size_t c = 0; c < a.size(); ++c) EXPECT_NEAR(a[c], b[c], 1.0) << bias.initializer;
    }

    // Remedies that rescale the float model are refused, naming what to use instead.
    auto cle = parseLabRemedies("cle");
    ASSERT_FALSE(cle.isOk());
    EXPECT_NE(cle.status().message().find("--remedy cle"), std::string::npos);
    EXPECT_FALSE(parseLabRemedies("adaround+gptq").isOk());
    auto swapped = parseLabRemedies("bias-correction+adaround");
    ASSERT_TRUE(swapped.isOk());
    EXPECT_EQ(labRemediesName(*swapped), "adaround+bias-correction");
}

// The calibration lab against one in-app analysis (issue 12): on the embedded demo (Fashion-MNIST
// CNN; 64 pool files, 64 labelled evaluation samples; QL_BENCH_DEMO overrides the folder) it times
//   AnalyzeCalib: what `quantlens analyze --calib POOL --data EVAL --labels L` does: calibrate on
//     the pool, quantize (minmax), run the numeric suite (cumulative, isolated, kernel check);
//   CalibLab48: the whole lab of 4 methods x 4 sizes x 3 repeats (48 configurations, 40 distinct:
//     at n = 64 the repeats are the same run): one float pass over the pool and one over the
//     evaluation set, then per run a merge, a plan and an int8 pass.
// Target: CalibLab48 <= 8 x AnalyzeCalib (a lab of 48 separate analyses would be about 48 x).
// Results: README, "Calibration lab".

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include "analysis/session/analysis_session.h"
#include "analysis/calibration_lab/calibration_lab.h"
#include "analysis/suite/numeric_suite.h"
#include "onnx_io/model_loader.h"
#include "quant/calibration_data.h"

namespace {

using namespace ql;
using namespace ql::analysis;

std::string demo(const std::string &file) {
    const char *dir = std::getenv("QL_BENCH_DEMO");
    return std::string(dir && *dir ? dir : QL_DEMO_DIR) + "/" + file;
}

struct Inputs {
    Graph model;
    std::vector<std::string> pool, eval{demo("samples.npy")};
    std::vector<int64_t> labels;
};

const Inputs &inputs() {
    static const Inputs in = [] {
        Inputs i;
        i.model = loadModel(demo("fashion_cnn.onnx")).value();
        i.pool = quant::listCalibrationFiles({demo("pool")}).value();
        i.labels = readLabelsFile(demo("labels.npy")).value();
        return i;
    }();
    return in;
}

void AnalyzeCalib(benchmark::State &state) {
    const Inputs &in = inputs();
    for (auto _ : state) {
        quant::CalibrationStatistics stats;
        auto source = quant::fileBatchSource(in.model, in.pool);
        if (!quant::calibrate(in.model, source.value(), stats).isOk())
            state.SkipWithError("calibration failed");
        auto quantized = quant::quantizeGraph(in.model, stats, {});
        NumericSuiteOptions options;
        options.labels = in.labels;
        const BatchSourceFactory data = [&] {
            return quant::fileBatchSource(in.model, in.eval, 8);
        };
        auto report = runNumericSuite(in.model, quantized.value().model, data, options);
        if (!report.isOk()) state.SkipWithError(report.status().message().c_str());
        benchmark::DoNotOptimize(report);
    }
}

void CalibLab48(benchmark::State &state) {
    const Inputs &in = inputs();
    CalibrationLabOptions options;
    options.poolFiles = in.pool;
    options.evalFiles = in.eval;
    options.labels = in.labels;
    for (const char *m : {"minmax", "percentile:99.99", "entropy", "mse"})
        options.methods.push_back(parseCalibrationMethod(m).value());
    options.sizes = {8, 16, 32, 64};
    options.repeats = 3;
    for (auto _ : state) {
        auto lab = CalibrationLab::create(in.model, options);
        if (!lab.isOk()) state.SkipWithError(lab.status().message().c_str());
        auto result = (*lab)->run();
        if (!result.isOk() || result->runs.size() != 48) state.SkipWithError("lab failed");
        int distinct = 0;
        for (const auto &run : result->runs) distinct += run.identicalTo.empty();
        state.counters["distinct_runs"] = distinct;
        benchmark::DoNotOptimize(result);
    }
}

}  // namespace

BENCHMARK(AnalyzeCalib)->Unit(benchmark::kMillisecond)->MinTime(3.0)->UseRealTime();
BENCHMARK(CalibLab48)->Unit(benchmark::kMillisecond)->MinTime(3.0)->UseRealTime();
BENCHMARK_MAIN();

// Cost of the fp32 search's evaluations (issue 13): on a float / QDQ pair (default torchvision
// resnet18 from /tmp/models_q, made by tests/tools/export_torchvision_qdq.py; QL_BENCH_FLOAT,
// QL_BENCH_QUANT override) with 64 seeded random samples (QL_BENCH_SAMPLES, batches of
// QL_BENCH_BATCH), `search --target sqnr:30` (QL_BENCH_TARGET) runs on an interactive session and
// its evaluations' total time is compared with evaluations × one full pass, two ways:
//   ratio_int8_pass:  one pass of the int8 plan over all samples (the cheapest "full pass": what
//                     bench_toggle compares a toggle with);
//   ratio_full_eval:  one evaluation that re-runs the whole suite (a session without the
//                     incremental caches, as every evaluation would cost without them).
// Target: ratio <= 0.5.
//
// Measured 2026-11-25 on the 2-core AMD EPYC (AVX-512 VNNI), nothing else running, resnet18
// PyTorch FX QDQ, 64 random samples in batches of 8: see README ("fp32 search" section).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "analysis/session/analysis_session.h"
#include "analysis/search/fp32_search.h"
#include "onnx_io/model_loader.h"
#include "passes/int8_kernel_mode.h"
#include "passes/precision.h"
#include "runtime/execution_plan.h"

#include "bench_support.h"

namespace {

using namespace ql;
using namespace ql::analysis;
using namespace ql::bench;

struct Inputs {
    Graph floatGraph, quantGraph;
    EvaluationData data;
};

bool load(Inputs &in, benchmark::State &state) {
    auto f = loadModel(env("QL_BENCH_FLOAT", "/tmp/models_q/resnet18.onnx"));
    auto q = loadModel(env("QL_BENCH_QUANT", "/tmp/models_q/resnet18_qdq.onnx"));
    if (!f || !q) {
        state.SkipWithError("cannot load the models (see the header for how to make them)");
        return false;
    }
    in.floatGraph = std::move(*f);
    in.quantGraph = std::move(*q);
    auto data = randomEvaluationData(in.floatGraph, std::stoll(env("QL_BENCH_SAMPLES", "64")), 1,
                                     std::stoll(env("QL_BENCH_BATCH", "8")));
    if (!data) {
        state.SkipWithError(data.status().message().c_str());
        return false;
    }
    in.data = std::move(*data);
    return true;
}

// Median time (ms) of one pass of the int8 plan over all samples.
double int8PassMs(const Inputs &in) {
    Graph g = in.quantGraph;
    if (!preparePrecision(g, Precision::Int8).isOk()) return 0.0;
    applyInt8Kernels(g, Int8Kernels::Exact);
    auto plan = ExecutionPlan::create(std::move(g));
    if (!plan) return 0.0;
    std::vector<Tensor> outputs;
    for (const auto &batch : in.data.batches) (void)(*plan)->run(batch, outputs);  // primitives
    std::vector<double> times;
    for (int r = 0; r < 3; ++r) {
        const auto start = Clock::now();
        for (const auto &batch : in.data.batches) (void)(*plan)->run(batch, outputs);
        times.push_back(msSince(start));
    }
    return median(times);
}

void SearchEvaluations(benchmark::State &state) {
    Inputs in;
    if (!load(in, state)) return;
    const double passMs = int8PassMs(in);
    SearchOptions options;
    options.target = parseSearchTarget(env("QL_BENCH_TARGET", "sqnr:30")).value();
    for (auto _ : state) {
        // As `quantlens search` makes it: output figures only (env QL_BENCH_FULL_SUITE=1: the
        // whole suite, as the GUI's live session runs it).
        const SessionOptions asSearch = std::getenv("QL_BENCH_FULL_SUITE")
                                            ? SessionOptions{}
                                            : searchSessionOptions(SessionOptions{});
        auto created = AnalysisSession::create(in.floatGraph, in.quantGraph, in.data, asSearch);
        if (!created) {
            state.SkipWithError(created.status().message().c_str());
            return;
        }
        const auto start = Clock::now();
        auto result = searchFp32Layers(**created, options);
        const double searchMs = msSince(start);
        if (!result) {
            state.SkipWithError(result.status().message().c_str());
            return;
        }
        created->reset();  // one session's caches in memory at a time

        double evalMs = 0.0;
        for (const SearchEvaluation &e : result->evaluations) evalMs += e.seconds * 1e3;
        const double n = double(result->evaluations.size());

        // The same evaluations without the caches: every set re-runs the whole suite. Three of
        // the search's own sets (the first is as quantized: re-run too without caches).
        SessionOptions full = asSearch;
        full.incremental = false;
        auto uncached = AnalysisSession::create(in.floatGraph, in.quantGraph, in.data, full);
        if (!uncached) {
            state.SkipWithError(uncached.status().message().c_str());
            return;
        }
        std::vector<double> fullEvalMs;
        for (size_t i = 2; i < result->evaluations.size() && fullEvalMs.size() < 3; ++i) {
            const auto &layers = result->evaluations[i].layers;
            const auto t = Clock::now();
            if (!(*uncached)->setFp32Layers({layers.begin(), layers.end()})) break;
            fullEvalMs.push_back(msSince(t));
        }
        const double fullMs = median(fullEvalMs);
        state.counters["evaluations"] = n;
        state.counters["fp32_layers"] = double(result->layers.size());
        state.counters["reached"] = result->figure;
        state.counters["search_s"] = searchMs / 1e3;
        state.counters["evaluations_s"] = evalMs / 1e3;
        state.counters["int8_pass_ms"] = passMs;
        state.counters["full_eval_ms"] = fullMs;
        state.counters["ratio_int8_pass"] = evalMs / (n * passMs);
        state.counters["ratio_full_eval"] = evalMs / (n * fullMs);
        std::fprintf(stderr, "set:");
        for (const auto &name : result->layers) std::fprintf(stderr, " %s", name.c_str());
        std::fprintf(stderr, "\n");
    }
}

}  // namespace

BENCHMARK(SearchEvaluations)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK_MAIN();
